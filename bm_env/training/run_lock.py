"""One owner per run folder: an exclusive lock held by the ``bm-train`` process that writes it.

Two processes in one run folder (``--resume RUN`` twice, or two fresh runs given the same
``--run-dir``) would interleave their training states, prune each other's and write two
TensorBoard event files for the same steps. So a trainer first takes ``RUN_DIR/owner.lock``
with ``fcntl.flock`` and keeps it for the rest of the process's life; a second process is
refused with the owner's pid. The operating system releases the lock when its process
ends, however it ends (a ``kill -9`` included), so a killed run never leaves its folder
stuck. Within one process the lock is taken once per folder (a resume after a run in the
same process is the same owner). Where ``fcntl`` does not exist (Windows) nothing is locked.
"""

from __future__ import annotations

import os
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows)
    fcntl = None

from .state import TrainingStateError

LOCK_NAME = "owner.lock"

#: Folders this process owns (their real paths) -> the open lock file, kept open for the process's life.
_HELD: dict[str, IO] = {}


def claim_run_dir(run_dir: str) -> None:
    """Make this process the owner of ``run_dir`` (created if missing), or refuse naming the owner's pid."""
    os.makedirs(run_dir, exist_ok=True)
    key = os.path.realpath(run_dir)
    if key in _HELD or fcntl is None:
        return
    f = open(os.path.join(run_dir, LOCK_NAME), "a+", encoding="utf-8")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        pid = f.read().strip() or "unknown"
        f.close()
        raise TrainingStateError(f"run folder {run_dir!r} is in use by another bm-train process (pid {pid}); "
                                 "wait for it to end, or give another --run-dir") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    _HELD[key] = f


def abandon_run_dir(run_dir: str) -> None:
    """Give up a folder this process claimed for a fresh run that was refused before it wrote anything.

    The lock is released and the folder removed when it holds nothing but the lock, so a refused
    ``bm-train`` leaves no empty run folder behind; a folder with anything else in it is left as it is.
    """
    f = _HELD.pop(os.path.realpath(run_dir), None)
    if f is not None:
        f.close()
    if os.path.isdir(run_dir) and set(os.listdir(run_dir)) <= {LOCK_NAME}:
        lock = os.path.join(run_dir, LOCK_NAME)
        if os.path.exists(lock):
            os.remove(lock)
        os.rmdir(run_dir)
