"""Files as toolpatch reads and writes them, for the command line and the integrations alike.

**Atomic in-place writes**: a crash, a full disk or a signal never leaves a half-written file
(`AtomicFile`).

**Compressed corpora**: ``.jsonl.gz``, ``.jsonl.zst`` (and ``.json``/``.ndjson`` so compressed),
read as a stream of decompressed blocks and written back in their own compression
(docs/cli.md#inputs). This is the one home of compression: the Dask integration
(`toolpatch.integrations.dask`) reads and writes a compressed file through the same functions,
so both write the same bytes and say the same of a damaged file. gzip comes with the standard
library; zstd needs the ``zstandard`` package, the ``[zstd]`` extra. patchcore never sees a
compressed byte: the input layer hands it the decompressed content, and the output sink
compresses what it writes.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import functools
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import msgspec

from patchcore import extra_module

#: Whether to try a temporary file without a name first (`AtomicFile`); tests turn it off to
#: exercise the named fallback that other systems and file systems get.
ANONYMOUS_FILES = sys.platform == "linux" and os.path.isdir("/proc/self/fd")


class FileIdentity(msgspec.Struct, frozen=True):
    """What tells that a file is still the one that was read: where it lives (device and inode),
    its size and its modification time. Editors compare the same before they save."""

    device: int
    inode: int
    size: int
    modified_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> FileIdentity:
        """The identity in a ``stat``/``fstat`` result."""
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)

    def change(self, now: FileIdentity | None) -> str | None:
        """What differs in ``now`` (``None``: the file is gone), in words, the most telling
        first (a file that grew was modified too); ``None`` if nothing."""
        if now is None:
            return "it was removed or renamed"
        if (now.device, now.inode) != (self.device, self.inode):
            return "another file was put in its place"
        if now.size != self.size:
            return f"its size went from {self.size:,} to {now.size:,} bytes"
        if now.modified_ns != self.modified_ns:
            return "its modification time changed"
        return None


class FileChanged(Exception):
    """The file to replace is no longer the one that was read: replacing it would lose what
    another process wrote meanwhile, so nothing is written."""


class AtomicFile:
    """New contents for ``path``, written piece by piece and put in place all at once.

    The bytes go to a temporary file in the target's own directory (so the final rename stays on
    one file system): where the system allows it (Linux ``O_TMPFILE``) a file without a name,
    which nothing can leave behind (a process killed with ``kill -9`` included) until `commit`
    names it, else a named ``.NAME.*.tmp`` file. `commit` flushes it (and, ``durable``, waits
    until it is on disk: ``fsync``), gives it the original file's permission bits and replaces
    the target in one ``os.replace`` (a new file gets the umask's usual mode). A symlink is
    followed: its target is rewritten and the link stays a link. Leaving the ``with`` block
    without `commit` (an error, an interrupt, or nothing to change) removes the temporary file
    and leaves the original as it was. A file whose permission bits allow no one to write it is
    refused up front.

    ``durable``: the new contents replace the only copy of what the file held (a fix in place),
    so they are on disk before the rename, and the folder's new entry after it: a crash or a
    power cut leaves the old contents or the new ones, never an empty file. An output that can
    be made again from its input (``fix -o FILE``) is not waited for, as the shell's ``>`` is
    not: a crash can leave it empty, its input as it was (docs/cli.md#writing).

    Given ``expected``, the identity of the file as it was read, `commit` first makes sure the
    target still has it (`FileChanged` if not: another process wrote to it, replaced or removed
    it meanwhile).
    """

    def __init__(self, path: Path, *, durable: bool, expected: FileIdentity | None = None) -> None:
        self._target = Path(os.path.realpath(path))
        self._durable = durable
        self._expected = expected
        try:
            status: os.stat_result | None = self._target.stat()
        except FileNotFoundError:
            status = None
        if status is not None and not stat.S_ISREG(status.st_mode):
            # A rename over a device, a FIFO or a socket replaces the node itself
            # (docs/cli.md#safety): such a file is only ever written to as a stream.
            raise OSError(errno.EINVAL, _NOT_REGULAR, str(path))
        self._mode = stat.S_IMODE(status.st_mode) if status is not None else _default_mode()
        if status is not None and not self._mode & 0o222:
            # A rename would replace it regardless (and root may write anything): honour the bits.
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
        #: Who owns the file (user, group), kept when root (or a member of its group) fixes it.
        self._owner = (status.st_uid, status.st_gid) if status is not None else None
        #: The name the temporary file takes beside the target (`_leftover_removed`).
        self._usual = f".{self._target.name}.toolpatch.tmp"
        #: The temporary file's name, once it has one (at once, unless it is anonymous).
        self._temporary: str | None = None
        try:
            self._leftover_removed()
            fd = self._anonymous_file()
            if fd is None:
                fd, self._temporary = self._named_file()
        except OSError as exc:
            raise _in_folder(exc, self._target.parent) from None
        _lock(fd)
        self._handle = os.fdopen(fd, "wb")
        self._committed = False
        #: Bytes appended since the kernel was last asked to write the file out (`_appended`).
        self._unsent = 0

    def _leftover_removed(self) -> None:
        """Remove the temporary file a write of this target left when it was killed (``kill
        -9`` between naming it and the rename).

        Every temporary file is locked (``flock``) by its writer from its start to the rename,
        and the kernel drops the lock when the writer dies: a file of the usual name that can
        be locked is a leftover, one that cannot is another writer's, at work, left alone."""
        path = self._target.parent / self._usual
        try:
            fd = os.open(path, os.O_RDONLY | _NO_FOLLOW)
        except OSError:  # none (the usual case), or no file of ours (a symlink put there)
            return
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode) and _lock(fd, wait=False):
                os.unlink(path)
        finally:
            os.close(fd)

    def _named_file(self) -> tuple[int, str]:
        """A named temporary file beside the target (where there are no anonymous ones): the
        usual name, else (another writer has it) a random one. Between its creation and its
        lock another write of the same file could take it for a leftover: this write then fails
        with an error, and the original stays."""
        path = str(self._target.parent / self._usual)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            import tempfile  # only a fix that writes a file needs it: a check never does

            return tempfile.mkstemp(
                dir=self._target.parent, prefix=f".{self._target.name}.", suffix=".tmp"
            )

    def _anonymous_file(self) -> int | None:
        """A file without a name in the target's folder, or ``None`` where the system or the
        file system has none (then a named temporary file is used)."""
        if not ANONYMOUS_FILES or not hasattr(os, "O_TMPFILE"):
            return None
        try:
            return os.open(self._target.parent, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if exc.errno in _NO_ANONYMOUS_FILE:
                return None
            raise

    def write(self, data: bytes | memoryview) -> None:
        """Append ``data`` to the new contents."""
        self._appended(self._handle.write(data))

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
        self._appended(copied)
        return copied

    def _appended(self, size: int) -> None:
        """Every `WRITEBACK_BYTES` appended to a durable file, have the kernel start writing it
        out (it does so while the rest is made), so that `commit`'s fsync waits for the last
        part only. Left to itself the kernel writes a new file out some 30 s later, so the
        fsync of a large repair would wait for all of it, serially: for a 160 MB corpus with
        few lines to fix, that wait took a quarter of the whole run (docs/benchmarks.md)."""
        if not self._durable:
            return
        self._unsent += size
        if self._unsent >= WRITEBACK_BYTES:
            self._unsent = 0
            _start_writeback(self._handle.fileno())

    def commit(self) -> None:
        """Make the new contents the file's (durably, if the file is `durable`).

        Raises:
            FileChanged: The target is no longer the file that was read (nothing is written).
            OSError: The contents could not be written or put in place.
        """
        self._handle.flush()
        fd = self._handle.fileno()
        if self._durable:
            os.fsync(fd)
        self._keep_owner(fd)
        if os.chmod in os.supports_fd:  # after the owner: a chown clears set-id bits
            os.chmod(fd, self._mode)
        if self._temporary is None:
            self._temporary = self._name(fd)
        if os.chmod not in os.supports_fd:
            os.chmod(self._temporary, self._mode)
        self._check_unchanged()
        try:
            os.replace(self._temporary, self._target)  # still open, so still locked
        except OSError as exc:
            raise _in_folder(exc, self._target.parent) from None
        self._committed = True
        self._handle.close()
        if self._durable:
            _fsync_directory(self._target.parent)

    def _keep_owner(self, fd: int) -> None:
        """Give the new file the original's owner and group, as far as this process may: root
        fixing another user's file must not leave it ``root:root`` (its owner could no longer
        read it); a user may keep the group if a member of it. Else the new file is this
        user's, as any rename-based write leaves it."""
        if self._owner is None or not hasattr(os, "fchown"):
            return
        user, group = self._owner
        for owner in ((user, group), (-1, group)):
            try:
                os.fchown(fd, *owner)
                return
            except PermissionError:
                continue

    def _name(self, fd: int) -> str:
        """Give the anonymous file ``fd`` a temporary name beside the target (``linkat`` of
        ``/proc/self/fd/N`` following the link, as ``open(2)`` shows for ``O_TMPFILE``)."""
        folder = os.open(self._target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            name = self._usual  # the name a later write recognises (`_leftover_removed`)
            while True:
                try:
                    os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=folder, follow_symlinks=True)
                except FileExistsError:  # another write of this file is at work
                    name = f".{self._target.name}.{os.urandom(6).hex()}.tmp"
                    continue
                except OSError as exc:
                    raise _in_folder(exc, self._target.parent) from None
                return str(self._target.parent / name)
        finally:
            os.close(folder)

    def _check_unchanged(self) -> None:
        if self._expected is None:
            return
        try:
            now: FileIdentity | None = FileIdentity.of(os.stat(self._target))
        except FileNotFoundError:
            now = None
        change = self._expected.change(now)
        if change is not None:
            raise FileChanged(change)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._committed:
            # Closing flushes what is buffered, which fails again on a full disk: the contents
            # are being thrown away, so that failure does not matter; the file must still go.
            with contextlib.suppress(OSError):
                self._handle.close()
            if self._temporary is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._temporary)


#: ``open`` flags of a look at a possible leftover: not through a symlink, and a FIFO put in
#: its place does not block the open.
_NO_FOLLOW = (
    getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
)


def _lock(fd: int, *, wait: bool = True) -> bool:
    """Lock the file ``fd`` for this process until it is closed or the process ends (``flock``:
    the kernel drops it when the process dies, ``kill -9`` included). Without ``wait``,
    ``False`` when another process holds it, or where the platform has no ``flock`` (then no
    file can be told a leftover)."""
    try:
        import fcntl
    except ImportError:  # Windows: no leftovers are recognised
        return wait
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks: the file is not told a leftover either
        return wait
    return True


#: How many bytes are appended to a new file between two starts of its writeback.
WRITEBACK_BYTES = 16 * 2**20


def _start_writeback(fd: int) -> None:
    """Have the kernel start writing the changed pages of the file ``fd`` to disk, without
    waiting for them (Linux's ``sync_file_range`` with ``SYNC_FILE_RANGE_WRITE`` over the whole
    file; elsewhere nothing). A failed write is not reported here, nor taken from the fsync
    that follows: only waiting takes it, and that is left to `AtomicFile.commit`."""
    start = _sync_file_range()
    if start is not None:
        start(fd, 0, 0, _SYNC_FILE_RANGE_WRITE)


#: ``sync_file_range``'s flag that starts writing the dirty pages of the range out.
_SYNC_FILE_RANGE_WRITE = 2


@functools.cache
def _sync_file_range() -> Callable[[int, int, int, int], int] | None:
    """Linux's ``sync_file_range`` (which Python's ``os`` does not offer), or ``None``."""
    if sys.platform != "linux":
        return None
    import ctypes

    try:
        function = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):  # no C library to call, or one without it
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


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


#: What ``open(O_TMPFILE)`` fails with where the kernel or the file system has no anonymous
#: files (a kernel that does not know the flag takes it for ``O_DIRECTORY``: EISDIR).
_NO_ANONYMOUS_FILE = frozenset({errno.EOPNOTSUPP, errno.ENOTSUP, errno.EISDIR, errno.EINVAL})
#: Why a path that is no regular file is not replaced.
_NOT_REGULAR = "it is not a regular file (a device, a FIFO, a socket), which is never replaced"
#: What a folder that does not let a file be created (or renamed) in it fails with.
_FOLDER_REFUSES = frozenset({errno.EACCES, errno.EPERM})


def _in_folder(exc: OSError, folder: Path) -> OSError:
    """A failure to create or rename the temporary file, said of the folder when it is the
    folder that refuses (the file itself may well be writable)."""
    if exc.errno not in _FOLDER_REFUSES:
        return exc
    reason = (
        f"the folder {folder} is not writable ({exc.strerror}): a fix writes the repair to a "
        "new file beside the original and renames it over it"
    )
    return PermissionError(exc.errno, reason, str(folder))


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


#: How much compressed input is read at a time.
READ_BYTES = 2**20
#: At most how much decompressed content one block holds.
BLOCK_BYTES = 2**20


class Compression(enum.Enum):
    """A compression a history file's name can end with."""

    GZIP = ".gz"
    ZSTD = ".zst"

    @classmethod
    def of(cls, name: str) -> Compression | None:
        """The compression ``name`` ends with, if any."""
        lowered = name.lower()
        return next((c for c in cls if lowered.endswith(c.value)), None)

    def require(self) -> None:
        """Check up front that this compression can be read and written here.

        Raises:
            MissingExtra: zstd without the ``zstandard`` package.
        """
        if self is Compression.ZSTD:
            _zstandard()

    def compressor(self) -> Compressor:
        """A fresh incremental compressor (gzip: level 6, as ``gzip`` writes by default; zstd:
        zstandard's default level, 3).

        Raises:
            MissingExtra: zstd without the ``zstandard`` package.
        """
        if self is Compression.GZIP:
            return zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        zstandard = _zstandard()
        compressor: Compressor = zstandard.ZstdCompressor().compressobj()
        return compressor


def plain_name(name: str) -> str:
    """``name`` without its compression ending (``x.jsonl.gz`` → ``x.jsonl``): what tells the
    framing of the content."""
    compression = Compression.of(name)
    return name if compression is None else name[: -len(compression.value)]


class CorruptInput(OSError):
    """The compressed input cannot be decompressed (an ``OSError``: the file, not its content,
    is at fault, as for an unreadable file)."""


#: How much compressed input a zstd frame is fed at a time: zstandard's decompressor returns
#: all it can make of what it is given, with no bound, so small feeds keep each output small.
#: A zstd block of 128 KiB can be written in four bytes (a run of one byte), so 1 KiB of input
#: makes at most 32 MiB: a small file that expands to gigabytes (a bomb) is read a bounded
#: block at a time, as gzip's is. (Feeding 16 KiB at a time, one call made 500 MB.)
ZSTD_FEED_BYTES = 2**10


def decompressed(compression: Compression, read: Callable[[int], bytes]) -> Iterator[bytes]:
    """The decompressed content of what ``read`` returns (one frame or member after another,
    as ``cat a.gz b.gz`` makes them), in blocks of at most `BLOCK_BYTES`.

    Raises:
        CorruptInput: It is not ``compression``'s format, or it is cut short.
        MissingExtra: zstd without the ``zstandard`` package.
    """
    name = "gzip" if compression is Compression.GZIP else "zstd"
    errors: tuple[type[Exception], ...] = (zlib.error, EOFError)
    if compression is Compression.GZIP:

        def fresh() -> _Incremental:
            return zlib.decompressobj(16 + zlib.MAX_WBITS)

        feed = READ_BYTES
    else:
        zstandard = _zstandard()
        errors = (zstandard.ZstdError,)

        def fresh() -> _Incremental:
            made: _Incremental = zstandard.ZstdDecompressor().decompressobj()
            return made

        feed = ZSTD_FEED_BYTES
    inflate: _Incremental | None = None  # the frame being read (none yet, or one just ended)
    try:
        while data := read(READ_BYTES):
            at = 0
            while at < len(data):
                if inflate is None:
                    inflate = fresh()
                yield from _drained(inflate, data[at : at + feed])
                at += feed
                if inflate.eof:  # the next frame starts in what it left
                    data = inflate.unused_data + data[at:]
                    at = 0
                    inflate = None
    except errors as exc:
        msg = f"not valid {name} data: {exc}"
        raise CorruptInput(msg) from None
    if inflate is not None:
        msg = f"not valid {name} data: cut short (a truncated file)"
        raise CorruptInput(msg)


class Compressor(Protocol):
    """An incremental compressor (zlib's, zstandard's)."""

    def compress(self, data: bytes | memoryview, /) -> bytes: ...

    def flush(self) -> bytes: ...


class _Incremental(Protocol):
    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes, /) -> bytes: ...


_ZLIB = type(zlib.decompressobj())


def _drained(inflate: _Incremental, data: bytes) -> Iterator[bytes]:
    """Inflate ``data``, in blocks of at most `BLOCK_BYTES` (zlib's: it is asked for no more;
    zstd's: its output is cut)."""
    if isinstance(inflate, _ZLIB):
        while True:
            out = inflate.decompress(data, BLOCK_BYTES)
            if out:
                yield out
            data = inflate.unconsumed_tail
            # a full block may leave output pending in zlib even with all its input taken
            if inflate.eof or (not data and len(out) < BLOCK_BYTES):
                return
    out = inflate.decompress(data)
    for start in range(0, len(out), BLOCK_BYTES):
        yield out[start : start + BLOCK_BYTES]


def _zstandard() -> Any:
    """The ``zstandard`` module (the ``[zstd]`` extra)."""
    return extra_module("zstandard", extra="zstd", part="a .zst file")


def file_blocks(compression: Compression, fd: int) -> Iterator[bytes]:
    """The decompressed content of the open file ``fd``, read from where it stands."""
    return decompressed(compression, lambda size: os.read(fd, size))
