"""Atomic in-place writes: a crash, a full disk or a signal never leaves a half-written file."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the contents of ``path`` with ``data``, all or nothing.

    The bytes go to a temporary file in the target's own directory (so the final rename stays
    on one file system), are flushed and fsynced, get the original file's permission bits, and
    then replace the target in one ``os.replace`` (a new file gets the umask's usual mode). A
    symlink is followed: its target is rewritten and the link stays a link. On any error, or an
    interrupt, the temporary file is removed and the original is left as it was. A file whose
    permission bits allow no one to write it is not replaced.
    """
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _default_mode()
    if target.exists() and not mode & 0o222:
        # A rename would replace it regardless (and root may write anything): honour the bits.
        raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_directory(target.parent)


def _default_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; not every platform can open a directory, which is harmless."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
