"""Corpora too big to hold: JSON Lines checked and repaired batch by batch, in bounded memory.

A corpus of gigabytes is one conversation per line (training and evaluation sets). Holding it
whole would cost its size in memory several times over, so the input is cut at line breaks into
batches of about ``batch_bytes``; each batch is checked (and repaired) on its own by
`process_batch`, the unit a process pool or a distributed engine maps over, and the output comes
out batch by batch, in input order. Memory stays bounded by the batches in flight and the
largest record.

Only inputs that would be read record by record anyway are streamed. An input that fits in
``whole_limit`` bytes, a JSON document, and a file that is one conversation across its lines
(one message per line) are read whole and handed to `patchcore.document.run`, so a streamed run
and a whole one give the same bytes and the same findings.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol, Union, runtime_checkable

from patchcore.document import (
    ListReport,
    RecordsResult,
    Report,
    dialects_for,
    no_history,
    process_records,
    run,
)
from patchcore.errors import DecodeError, PatchcoreError
from patchcore.raw.codec import UTF8_BOM, Framing, decode_batch, parse

if TYPE_CHECKING:
    from patchcore.model import Finding
    from patchcore.options import Options
    from patchcore.raw.splice import Patch

#: Inputs up to this size are read whole (where streaming would gain nothing).
WHOLE_LIMIT = 8 * 2**20
#: About how many bytes of whole lines go into one batch.
BATCH_BYTES = 4 * 2**20


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive whole lines of a JSON Lines input.

    Attributes:
        data: The lines joined by ``\\n`` (no separator before the first or after the last), or
            ``None`` for a batch of a `RandomAccess` input: whoever processes it reads its
            ``size`` bytes from ``offset`` (a worker process reads it from the file itself
            rather than receive it through a pipe).
        first_line: The 1-based line number its lines are numbered from. A streamed input's
            batches are numbered from 1 each (so that no one need count the lines before
            them) and `Stream` moves what they report to the input's own lines.
        offset: Where the batch starts in the input, in bytes.
        size: How many bytes it has.
    """

    data: bytes | None
    first_line: int
    offset: int = 0
    size: int = 0

    @classmethod
    def of(cls, data: bytes, first_line: int = 1, offset: int = 0) -> Batch:
        """A batch of the lines ``data``."""
        return cls(data, first_line, offset, len(data))


#: Told, after each batch (or once, for an input read whole), how many more bytes of the input
#: are done and how many message lists and findings they held.
Progress = Callable[[int, int, int], None]

#: Maps a function over batches lazily and in order, like the built-in ``map`` or a process
#: pool's ordered map; a batch without its data is read first (`Batch`).
Mapper = Callable[[Callable[[Batch], RecordsResult], Iterable[Batch]], Iterable[RecordsResult]]


def process_batch(batch: Batch, *, options: Options, fix: bool) -> RecordsResult:
    """Check (and with ``fix``, repair) every record of one batch (its data read), its lines
    numbered from ``first_line``.

    Raises:
        DecodeError, ShapeError, SelfCheckError: as `patchcore.document.run`.
    """
    assert batch.data is not None, "a batch is processed once it is read"
    decoded = decode_batch(batch.data, first_line=batch.first_line)
    return process_records(decoded, options=options, fix=fix)


def independent_lines(head: bytes | bytearray, *, options: Options) -> bool:
    """Whether an input that starts with ``head`` (at least its first non-blank line and the
    start of the next) is JSON Lines whose lines can be checked and repaired each on its own:
    records that hold conversations, not the messages of one conversation or the events of an
    agent session. It decides as
    `patchcore.document.run` decides for the whole input, so either way gives the same bytes.
    """
    start = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
    while start < len(head) and head[start] in b" \t\r\n":
        start += 1
    end = head.find(b"\n", start)
    try:
        value = parse(bytes(head[start : end if end >= 0 else len(head)]))
    except DecodeError:
        return False  # a document (its first line is not a value), or a broken input
    from patchcore.engine.locate import classify  # the engine: only an input too big to read whole
    from patchcore.layouts.sessions import session_format  # sessions build on document (a cycle)

    if session_format(value, options) is not None:
        return False  # an agent session log: its conversations run across its lines
    return classify([value], dialects_for(options)) is None


@runtime_checkable
class RandomAccess(Protocol):
    """An input that can be read at any offset, as a regular file can (the caller opens and
    reads it: this module touches no file system)."""

    @property
    def size(self) -> int:
        """Its length in bytes."""

    def read(self, offset: int, size: int) -> bytes:
        """``size`` bytes from ``offset`` on (fewer only at the end).

        Raises:
            OSError: It cannot be read (or changed while being read).
        """


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A piece of output that is ``size`` bytes of a `RandomAccess` input from ``offset`` on,
    as they are: the caller copies them (a file system may copy them without reading them)."""

    offset: int
    size: int


#: A piece of a streamed output: new bytes, or a range of the input copied as it is.
Piece = Union[bytes, memoryview, Unchanged]  # noqa: UP007 - a runtime alias on Python 3.10


class Stream:
    """One run over an input: iterate it for the output (a check yields nothing), then read
    `report`.

    The input is either chunks of bytes (a pipe: every chunk is consumed once) or a
    `RandomAccess` file. At most ``whole_limit`` bytes plus the batches in flight are held at a
    time when the input is streamed; the output of a streamed file is mostly `Unchanged`
    ranges around the repaired bytes, so the bytes nothing changes are never held at all.
    ``mapper`` runs `process_batch` over the batches (a process pool's ordered map spreads them
    over cores; by default they run here, in order); ``progress`` hears of each batch done.
    """

    def __init__(
        self,
        source: Iterable[bytes] | RandomAccess,
        *,
        filename: str | None,
        options: Options,
        fix: bool,
        mapper: Mapper | None = None,
        progress: Progress | None = None,
        whole_limit: int = WHOLE_LIMIT,
        batch_bytes: int = BATCH_BYTES,
    ) -> None:
        self._file = source if isinstance(source, RandomAccess) else None
        self._chunks = iter(()) if isinstance(source, RandomAccess) else iter(source)
        self._filename = filename
        self._options = options
        self._fix = fix
        self._mapper = mapper
        self._progress = progress
        self._whole_limit = whole_limit
        self._batch_bytes = batch_bytes
        self._report: Report | None = None
        self.streamed = False
        """Whether the input was processed batch by batch (else it was read whole)."""

    @property
    def report(self) -> Report:
        """The outcome, once the output has been iterated to its end. For a streamed input its
        ``output`` is ``None``: the output is what the iteration yielded (``fixed`` tells
        whether it differs from the input)."""
        if self._report is None:
            msg = "the stream has not been read to its end"
            raise RuntimeError(msg)
        return self._report

    def __iter__(self) -> Iterator[Piece]:
        head, complete = self._head()
        if complete:
            yield from self._whole(bytes(head))
        elif not independent_lines(head, options=self._options):
            yield from self._whole(self._rest(head))
        else:
            self.streamed = True
            yield from self._stream(head)

    def _head(self) -> tuple[bytearray, bool]:
        """Enough of the input to tell its layout, and whether that is all of it (an input
        small enough to be read whole)."""
        head = bytearray()
        probe = _LayoutProbe()
        for piece in self._pieces():
            head += piece
            if len(head) > self._whole_limit and probe.decides(head):
                return head, False
        return head, True

    def _pieces(self) -> Iterator[bytes]:
        """The input from its start, in pieces (a file's grow: a huge single-line document
        is read in a few reads)."""
        if self._file is None:
            # Not ``yield from``: when the head is enough, closing this generator must not
            # close the chunks, whose rest the batches read.
            for chunk in self._chunks:  # noqa: UP028
                yield chunk
            return
        offset, size = 0, self._whole_limit + 1
        while offset < self._file.size:
            piece = self._file.read(offset, size)
            yield piece
            offset += len(piece)
            size = max(size, offset)

    def _rest(self, head: bytearray) -> bytes:
        """The whole input, ``head`` first."""
        if self._file is not None:
            head += self._file.read(len(head), self._file.size - len(head))
        else:
            for chunk in self._chunks:
                head += chunk
        return bytes(head)

    def _whole(self, data: bytes) -> Iterator[Piece]:
        self._report = run(data, filename=self._filename, options=self._options, fix=self._fix)
        if self._progress is not None:
            self._progress(len(data), len(self._report.lists), len(self._report.findings))
        if self._fix:
            yield data if self._report.output is None else self._report.output

    def _stream(self, head: bytearray) -> Iterator[Piece]:
        bom = UTF8_BOM if head.startswith(UTF8_BOM) else b""
        in_flight: deque[Batch] = deque()
        batches = (
            self._file_batches(len(bom)) if self._file is not None else self._chunk_batches(head)
        )

        def tracked() -> Iterator[Batch]:
            for batch in batches:
                in_flight.append(batch)
                yield batch

        work = partial(process_batch, options=self._options, fix=self._fix)
        mapper = self._mapper if self._mapper is not None else partial(_read_and_map, self._file)
        totals = _Totals()
        written = 0  # how much of a file input the output has covered
        results = iter(mapper(work, tracked()))
        for number in itertools.count():
            try:
                result = next(results)
            except StopIteration:
                break
            except PatchcoreError as error:  # about the batch first in line, numbered from 1
                raise error.moved(totals.lines) from None
            batch = in_flight.popleft()
            totals.add(result)
            if self._progress is not None:
                done = batch.size + (len(bom) if number == 0 else 1)
                self._progress(done, len(result.lists), len(result.findings))
            if not self._fix:
                continue
            if batch.data is not None:
                yield bom if number == 0 else b"\n"
                yield from _patched(batch.data, result.patches)
                continue
            for start, end, new in result.patches:
                yield Unchanged(written, batch.offset + start - written)
                yield new
                written = batch.offset + end
        if self._fix and self._file is not None:
            yield Unchanged(written, self._file.size - written)
        if not totals.lists:
            raise no_history(None)
        self._report = totals.report()

    def _chunk_batches(self, buffer: bytearray) -> Iterator[Batch]:
        """Cut the chunked input (``buffer``: what has been read so far, its byte-order mark
        included) into batches of whole lines."""
        bom = len(UTF8_BOM) if buffer.startswith(UTF8_BOM) else 0
        del buffer[:bom]
        offset = bom
        for chunk in self._chunks:
            buffer += chunk
            if len(buffer) < self._batch_bytes:
                continue
            cut = buffer.rfind(b"\n")
            if cut < 0:
                continue  # one line longer than a batch: it grows until the line ends
            data = bytes(buffer[:cut])
            del buffer[: cut + 1]
            yield Batch.of(data, offset=offset)
            offset += cut + 1
        yield Batch.of(bytes(buffer), offset=offset)

    def _file_batches(self, start: int) -> Iterator[Batch]:
        """Cut a `RandomAccess` input, from ``start`` on, into batches of whole lines, without
        their data: only the bytes near each cut are read here."""
        assert self._file is not None
        size = self._file.size
        offset = start
        while size - offset > self._batch_bytes:
            cut = self._line_end_before(offset + self._batch_bytes, offset)
            if cut is None:
                break  # the rest is one line
            yield Batch(None, 1, offset, cut - offset)
            offset = cut + 1
        yield Batch(None, 1, offset, size - offset)

    def _line_end_before(self, end: int, start: int) -> int | None:
        """The offset of the last line break before ``end`` and after ``start`` in the file,
        else of the first one after ``end`` (a line longer than a batch); ``None`` if none."""
        assert self._file is not None
        window = _CUT_WINDOW
        position = end
        while position > start:
            low = max(start, position - window)
            found = self._file.read(low, position - low).rfind(b"\n")
            if found >= 0:
                return low + found
            position = low
        position = end
        while position < self._file.size:
            piece = self._file.read(position, self._batch_bytes)
            found = piece.find(b"\n")
            if found >= 0:
                return position + found
            position += len(piece)
        return None


#: How much is read around a batch's end to find the line break it is cut at.
_CUT_WINDOW = 2**16


def _read_and_map(
    file: RandomAccess | None, function: Callable[[Batch], RecordsResult], batches: Iterable[Batch]
) -> Iterator[RecordsResult]:
    """The in-process mapper: each batch read (if it is not yet), then processed."""
    for batch in batches:
        if batch.data is None:
            assert file is not None
            batch = replace(batch, data=file.read(batch.offset, batch.size))
        yield function(batch)


class _LayoutProbe:
    """Tells, as an input's head grows, whether it holds a whole non-blank line and the start
    of another one: enough to tell JSON Lines from a document the way `patchcore.raw.codec.decode`
    does. Each call looks only at what the last one had not seen."""

    def __init__(self) -> None:
        self._start: int | None = None  # the first non-blank byte
        self._line_end: int | None = None  # the end of the first non-blank line
        self._seen = 0

    def decides(self, head: bytearray) -> bool:
        if self._start is None:
            found = _NOT_BLANK.search(head, self._seen)
            if found is None:
                self._seen = len(head)
                return False
            self._start = self._seen = found.start()
        if self._line_end is None:
            end = head.find(b"\n", self._seen)
            if end < 0:
                self._seen = len(head)
                return False
            self._line_end = self._seen = end
        if _NOT_BLANK.search(head, self._seen) is None:
            self._seen = len(head)
            return False
        return True


_NOT_BLANK = re.compile(rb"[^ \t\r\n\x0b\x0c]")


def _patched(data: bytes, patches: Sequence[Patch]) -> Iterator[bytes | memoryview]:
    """The pieces of ``data`` with ``patches`` applied (unchanged runs as views, not copies)."""
    view = memoryview(data)
    cursor = 0
    for start, end, new in patches:
        yield view[cursor:start]
        yield new
        cursor = end
    yield view[cursor:]


class _Totals:
    """The results of a streamed input's batches, each numbered from line 1, summed into one
    report on the input's own lines."""

    def __init__(self) -> None:
        self.lists: list[ListReport] = []
        self.findings: list[Finding] = []
        self.fixed: list[Finding] = []
        self.remaining: list[Finding] = []
        self.lines = 0
        """How many lines the batches added so far hold: where the next one starts."""

    def add(self, result: RecordsResult) -> None:
        """Add the next batch's result."""
        lines = self.lines
        self.lines += result.lines
        if not lines:
            moved = {id(f): f for f in result.findings}
            self.lists += result.lists
        else:
            moved = {id(f): _moved(f, lines) for f in result.findings}
            self.lists += [
                replace(r, line=r.line + lines) if r.line is not None else r for r in result.lists
            ]
        self.findings += moved.values()
        self.fixed += [moved[id(f)] for f in result.fixed]
        self.remaining += [moved[id(f)] for f in result.remaining]

    def report(self) -> Report:
        return Report(
            Framing.JSONL.value,
            tuple(self.lists),
            tuple(self.findings),
            None,
            tuple(self.fixed),
            tuple(self.remaining),
        )


def _moved(finding: Finding, lines: int) -> Finding:
    return replace(finding, line=finding.line + lines) if finding.line is not None else finding
