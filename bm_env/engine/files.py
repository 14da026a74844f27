"""Writing a file atomically, with the permissions any new file of the user gets.

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
