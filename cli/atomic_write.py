"""Atomic in-place writes: a crash, a full disk or a signal never leaves a half-written file."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the contents of ``path`` with ``data``, all or nothing (see `AtomicFile`)."""
    with AtomicFile(path) as handle:
        handle.write(data)
        handle.commit()


class AtomicFile:
    """New contents for ``path``, written piece by piece and put in place all at once.

    The bytes go to a temporary file in the target's own directory (so the final rename stays
    on one file system); `commit` flushes and fsyncs it, gives it the original file's
    permission bits and replaces the target in one ``os.replace`` (a new file gets the umask's
    usual mode). A symlink is followed: its target is rewritten and the link stays a link.
    Leaving the ``with`` block without `commit` (an error, an interrupt, or nothing to change)
    removes the temporary file and leaves the original as it was. A file whose permission bits
    allow no one to write it is refused up front.
    """

    def __init__(self, path: Path) -> None:
        self._target = Path(os.path.realpath(path))
        exists = self._target.exists()
        self._mode = stat.S_IMODE(self._target.stat().st_mode) if exists else _default_mode()
        if exists and not self._mode & 0o222:
            # A rename would replace it regardless (and root may write anything): honour the bits.
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        import tempfile  # only a fix that writes a file needs it: a check never does

        fd, self._temporary = tempfile.mkstemp(
            dir=self._target.parent, prefix=f".{self._target.name}.", suffix=".tmp"
        )
        self._handle = os.fdopen(fd, "wb")
        self._committed = False

    def write(self, data: bytes | memoryview) -> None:
        """Append ``data`` to the new contents."""
        self._handle.write(data)

    def copy_from(self, fd: int, offset: int, size: int) -> int:
        """Append up to ``size`` bytes of the file ``fd`` from ``offset`` on, copied by the
        kernel (``copy_file_range``, then ``sendfile``): the bytes never pass through this
        process, which makes copying what a fix leaves alone cost next to nothing.

        Returns:
            How many bytes were copied: fewer than ``size`` where the kernel cannot copy
            between these files (the caller writes the rest).
        """
        self._handle.flush()
        out = self._handle.fileno()
        copied = 0
        for copy in _KERNEL_COPIES:
            try:
                while copied < size:
                    done = copy(fd, out, offset + copied, size - copied)
                    if done == 0:
                        break  # some file systems copy nothing: fall back
                    copied += done
            except OSError as exc:
                if exc.errno not in _CANNOT_COPY:
                    raise
            if copied == size:
                break
        return copied

    def commit(self) -> None:
        """Make the new contents the file's, durably."""
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        os.chmod(self._temporary, self._mode)
        os.replace(self._temporary, self._target)
        self._committed = True
        _fsync_directory(self._target.parent)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._committed:
            # Closing flushes what is buffered, which fails again on a full disk: the contents
            # are being thrown away, so that failure does not matter; the file must still go.
            with contextlib.suppress(OSError):
                self._handle.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temporary)


def _copy_file_range(source: int, target: int, offset: int, size: int) -> int:
    return os.copy_file_range(source, target, size, offset)


def _sendfile(source: int, target: int, offset: int, size: int) -> int:
    return os.sendfile(target, source, offset, size)


#: Ways the kernel copies file to file, best first (each where the platform has it).
_KERNEL_COPIES: tuple[Callable[[int, int, int, int], int], ...] = tuple(
    copy
    for copy, available in (
        (_copy_file_range, hasattr(os, "copy_file_range")),
        (_sendfile, sys.platform == "linux"),
    )
    if available
)
#: What a kernel copy fails with when it cannot copy between these two files (then the next
#: way is tried); any other error (a full disk) is the write's failure.
_CANNOT_COPY = frozenset(
    {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EBADF}
)


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
