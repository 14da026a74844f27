"""Writing a file atomically, with the permissions any new file of the user gets; and, before a long run,
whether a file or folder can be written at the end of it (:func:`unwritable_file`, :func:`unwritable_folder`).

Records and checkpoints are written to a temporary file beside the target, then renamed
over it, so a reader never sees half a file. ``tempfile.mkstemp`` would create the
temporary file with mode 0600, which the rename keeps: a record shared with others, or a
checkpoint read by another account, would be unreadable to them. Here the temporary file is
created as ``open()`` creates files (0666 less the umask), and removed if anything fails.
"""

from __future__ import annotations

import errno
import os
import secrets
import tempfile
from pathlib import Path
from typing import IO, Callable


def write_atomic(path: str | os.PathLike, write: Callable[[IO], None], binary: bool = False) -> Path:
    """Create or replace ``path`` with what ``write(file)`` writes; returns the path.

    The folder is created if missing. A ``path`` that is a directory is refused with
    :class:`IsADirectoryError` before anything is written.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory; give a file name", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _unwritable_place(folder: Path, wanted: str) -> str | None:
    """Why no file can be created in ``folder`` (or its nearest existing parent), or None."""
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return f"cannot write {wanted}: {existing} is not a directory"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as e:
        return f"cannot write {wanted}: {existing} is not writable ({e.strerror})"
    return None


def unwritable_file(value: str) -> str | None:
    """Why a file could not be written at ``value`` (one line), or None: checked before a run, so that its end
    is not lost to a name that is a directory or a folder without write permission."""
    path = Path(value).expanduser()
    if not value:
        return "give a file name such as game.json"
    if path.is_dir():
        return f"{value!r} is a directory; give a file name such as game.json"
    if path.exists() and not os.access(path, os.W_OK):
        return f"cannot write {value}: the file is not writable"
    return _unwritable_place(path.parent if str(path.parent) else Path("."), value)


def unwritable_folder(value: str) -> str | None:
    """Why files could not be written into the folder ``value`` (created at the end if missing), or None."""
    path = Path(value).expanduser()
    if not value:
        return "give a folder name"
    if path.exists() and not path.is_dir():
        return f"{value} exists and is not a folder"
    return _unwritable_place(path, value)
