"""Where a run's product goes: the target ``-o`` names (`Target`), and the sinks ``fix`` puts
repaired bytes in while the input streams through.

``-o`` means one of four things, decided once (`cli.settings.Plan`): nothing given (``fix``
writes each input over itself, stdin to stdout; ``check`` prints its report), ``-`` (stdout), a
file, or for ``fix`` over URLs a PREFIX each input is written under
(docs/cli.md#object-stores). Each is a type of its own, so that no part of the run asks again
what ``-o`` said.

The output of a streamed input is produced piece by piece before anyone knows whether the
whole input will succeed or whether anything changed. So nothing reaches its destination early:
pieces go to a temporary file beside the target (replaced into place at the end, only if the
input changed or an output file was asked for) or to a spool copied at the end to stdout, or to
an ``-o`` that is no regular file (a device, a FIFO, ``/dev/stdout``): such a file is written to,
never replaced (docs/cli.md#safety). A
failed write is remembered, not raised: the input is still read to its end, and the failure
only matters (as `WriteFailed`) if the output was going to be used.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import msgspec

from toolpatch.integrations.file_io import (
    AtomicFile,
    Compression,
    Compressor,
    FileChanged,
    FileIdentity,
)

from .inputs import FileInput

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from .inputs import Source

#: How much of a spooled stdout product stays in memory before it moves to a temporary file.
#: Small: what is spooled is held on top of the batch in work, and moving it to the file copies
#: it once more (docs/large-corpora.md#memory).
SPOOL_MEMORY = 4 * 2**20
#: How much of an input is read at a time to copy it where it cannot be copied file to file.
COPY_BLOCK = 2**20


class InPlace(msgspec.Struct, frozen=True):
    """No ``-o``: ``fix`` writes each input over itself (stdin: to stdout); ``check`` prints
    its report."""


class ToStdout(msgspec.Struct, frozen=True):
    """``-o -``: the one input's repair, or the report, on stdout."""


class ToFile(msgspec.Struct, frozen=True):
    """``-o FILE``: the one input's repair, or the report, in ``path``."""

    path: Path


class ToPrefix(msgspec.Struct, frozen=True):
    """``fix -o PREFIX`` over URL inputs: each input is written under it, where its source
    says (`cli.object_inputs`); to each input, as in place."""

    url: str


Target = InPlace | ToStdout | ToFile | ToPrefix


def writes_stdout(target: Target, source: Source) -> bool:
    """Whether ``fix`` sends ``source``'s repair to stdout: ``-o -``, or stdin without ``-o``."""
    return isinstance(target, ToStdout) or (isinstance(target, InPlace) and source.is_stdin)


class WriteFailed(Exception):
    """The repaired output could not be written (the message names the target and why)."""


class Sink:
    """Takes output pieces; `finish` delivers them. Leaving the ``with`` block without
    `finish` throws everything away."""

    def write(self, piece: bytes | memoryview) -> None:
        """Take the next piece of output."""

    def copy(self, source: FileInput, offset: int, size: int) -> None:
        """Take ``size`` bytes of ``source`` from ``offset`` on as the next piece."""
        while size > 0:
            block = source.read(offset, min(size, COPY_BLOCK))
            self.write(block)
            offset += len(block)
            size -= len(block)

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        """Deliver the output (``changed``: it differs from the input).

        Raises:
            WriteFailed: The output could not be written.
        """

    def __enter__(self) -> Sink:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Release what the sink holds."""


class Discard(Sink):
    """``check`` and ``fix --check``: the output is not wanted."""

    def copy(self, source: FileInput, offset: int, size: int) -> None:
        """Nothing to read."""


class Spool(Sink):
    """stdin, ``-o -``: the product goes to stdout in one go, once the input succeeded
    (compressed as ``compression`` says: see `StreamOutput`)."""

    def __init__(self, *, compression: Compression | None = None) -> None:
        import tempfile  # only a fix to stdout spools: a check never needs it

        # Its file takes the pieces through a buffer of a copy block: a corpus's repair comes
        # in thousands of pieces of a few kilobytes (the runs between its patches), each a
        # write of its own through the default buffer (a fifth of the spool's time).
        self._spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            max_size=SPOOL_MEMORY, buffering=COPY_BLOCK
        )
        self._failure: OSError | None = None
        self._compressor: Compressor | None = (
            None if compression is None else compression.compressor()
        )

    def write(self, piece: bytes | memoryview) -> None:
        if self._failure is None:
            try:
                if self._compressor is not None:
                    piece = self._compressor.compress(piece)
                self._spool.write(piece)
            except OSError as exc:
                self._failure = exc

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        if self._compressor is not None and self._failure is None:
            try:
                self._spool.write(self._compressor.flush())
            except OSError as exc:
                self._failure = exc
        if self._failure is not None:
            reason = self._failure.strerror or self._failure
            msg = f"cannot write the output (spooled to a temporary file): {reason}"
            raise WriteFailed(msg)
        self._spool.seek(0)
        while block := self._spool.read(COPY_BLOCK):
            emit(block)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._spool.close()


class StreamOutput(Spool):
    """``-o`` naming what is not a regular file: a device (``/dev/null``), a FIFO, a socket,
    ``/dev/stdout``, ``/dev/fd/N`` (a process substitution). Renaming a file over it would
    replace the node itself (as root, ``/dev/null`` would become a regular file for the whole
    machine) and its reader would get nothing: it is opened and written to as a stream, as
    ``cat > PATH`` does, once the input succeeded (spooled until then, as stdout is).
    Compressed as its name ends, as a file would be."""

    def __init__(self, path: Path, *, compression: Compression | None) -> None:
        super().__init__(compression=compression)
        self._path = path

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        try:
            # Neither created nor truncated: it exists and is no regular file (`is_stream`).
            fd = os.open(self._path, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as exc:
            msg = f"cannot write {self._path}: {exc.strerror or exc}"
            raise WriteFailed(msg) from None
        with os.fdopen(fd, "wb") as out:

            def emit(block: bytes) -> None:
                out.write(block)

            try:
                super().finish(changed=changed, emit=emit)
                out.flush()
            except OSError as exc:
                msg = f"cannot write {self._path}: {exc.strerror or exc}"
                raise WriteFailed(msg) from None


def is_stream(path: Path) -> bool:
    """Whether ``path`` names something that exists and is no regular file (followed through
    symlinks: ``/dev/stdout`` is where stdout goes): `StreamOutput` writes to it."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # not there (a new file), or not reachable: the replace says why
        return False


class ReplacedFile(Sink):
    """A file (the input itself, ``in_place``, or ``-o FILE``), replaced atomically at the end:
    always for an output file, only when something changed for the input (an unchanged file is
    never rewritten, so its mtime stays). Only the input itself is replaced durably
    (`AtomicFile`): it is the one copy of what it held, where an output can be made again from
    its input.

    ``expected``: the identity of the input as it was read, for the input itself. If the file
    no longer has it at the end (another process appended to it, rewrote, replaced or removed
    it meanwhile), nothing is written: the repair of what was read would lose what was added.

    ``compression``: the file is written compressed (`integrations.file_io`), as it is written.
    """

    def __init__(
        self,
        path: Path,
        *,
        in_place: bool,
        expected: FileIdentity | None = None,
        compression: Compression | None = None,
    ) -> None:
        self._path = path
        self._in_place = in_place
        self._expected = expected
        self._file: AtomicFile | None = None
        self._failure: OSError | None = None
        self._compressor: Compressor | None = (
            None if compression is None else compression.compressor()
        )

    def write(self, piece: bytes | memoryview) -> None:
        if self._failure is not None:
            return
        try:
            if self._compressor is not None:
                piece = self._compressor.compress(piece)
            self._target().write(piece)
        except OSError as exc:
            self._failure = exc

    def copy(self, source: FileInput, offset: int, size: int) -> None:
        if self._compressor is not None:  # the bytes must pass through the compressor
            super().copy(source, offset, size)
            return
        if self._failure is not None:
            return
        try:
            copied = self._target().copy_from(source.fd, offset, size)
        except OSError as exc:
            self._failure = exc
            return
        # The kernel copied what the file holds now: the bytes that were checked only if it
        # is still the file it was (`cli.inputs.FileInput`; an error for the input if not).
        source.check_unchanged()
        super().copy(source, offset + copied, size - copied)  # what the kernel could not copy

    def _target(self) -> AtomicFile:
        if self._file is None:
            self._file = AtomicFile(self._path, durable=self._in_place, expected=self._expected)
        return self._file

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        if not changed and self._in_place:
            return
        try:
            if self._compressor is not None and self._failure is None:
                self._target().write(self._compressor.flush())
            if self._failure is not None:
                raise self._failure
            self._target().commit()  # the target is made here for an empty product
        except FileChanged as exc:
            msg = (
                f"not written: the file changed while it was being fixed ({exc}); the repair of "
                "what was read would lose that, so the file is left as it is now"
            )
            raise WriteFailed(msg) from None
        except OSError as exc:
            msg = f"cannot write {self._path}: {exc.strerror or exc}"
            raise WriteFailed(msg) from None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._file is not None:
            self._file.__exit__(kind, error, traceback)


class ReportFile(io.RawIOBase):
    """The file ``check -o FILE`` writes its report to. A write that fails (a full disk,
    ``/dev/full``) is remembered in `failure`, not raised from the middle of the report, so
    the run ends with one plain error instead of an internal one; nothing more is written."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(path, flags | getattr(os, "O_BINARY", 0), 0o666)
        self.failure: OSError | None = None

    def writable(self) -> bool:
        return True

    def write(self, data: Buffer) -> int:
        view = memoryview(data).cast("B")
        while self.failure is None and view:
            try:
                view = view[os.write(self._fd, view) :]
            except OSError as exc:
                self.failure = exc
        return len(memoryview(data).cast("B"))

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()
