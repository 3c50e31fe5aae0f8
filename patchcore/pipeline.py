"""The path of one input, whatever its layout and however it is read: `run` for bytes held
whole, `Stream` for chunks of a pipe or a file read at any offset. Both end in one `Result`.

1. The layout is decided once, from the head of the input (`layout_of`, here: the agent
   session layouts first, as their first entry tells, then one message per line, one
   conversation per line, a JSON document written as a string, and a JSON document). Whoever
   needs the layout (the batcher, the Dask integration, ``toolpatch show``) asks it, with the
   whole input or just its start.
2. An input that fits in ``whole_limit`` bytes, or whose layout cannot be cut into independent
   batches (a JSON document, one message per line, an agent session), is read whole and its
   layout processes it (`patchcore.layouts.base.Layout.process`): split into conversations,
   checked by the engine (`patchcore.engine.check.check_list`), repaired by splicing edits into
   the bytes, and the repair re-checked.
3. A larger input of conversation lines is cut at line breaks into batches of about
   ``batch_bytes`` (`Batch`); each is processed on its own by `process_batch`, the unit a
   process pool or a distributed engine maps over, and the output comes out batch by batch, in
   input order. Memory stays bounded by the batches in flight and the largest record, and a
   streamed run and a whole one give the same bytes and the same findings.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Protocol, Union, runtime_checkable

from patchcore.chat_names import MESSAGE_KEYS
from patchcore.errors import DecodeError, InvalidLineError, PatchcoreError
from patchcore.layouts.base import Head, Layout, may_be_session
from patchcore.layouts.encoded import ENCODED_DOCUMENT
from patchcore.layouts.records import CONVERSATION_LINES, JSON_DOCUMENT, no_history, weighed
from patchcore.raw.codec import (
    UTF8_BOM,
    Decoded,
    Framing,
    decode,
    decode_batch,
    nul_error,
    parse,
    skip_whitespace,
    too_blank,
    too_large,
    torn_record,
)
from patchcore.raw.held_lines import HeldLines
from patchcore.result import Conversation, LineCount, Result, moved

if TYPE_CHECKING:
    from patchcore.model import Finding
    from patchcore.options import Options
    from patchcore.raw.splice import Patch


#: Inputs up to this size are read whole (where streaming would gain nothing).
WHOLE_LIMIT = 8 * 2**20
#: About how many bytes of whole lines go into one batch.
BATCH_BYTES = 4 * 2**20
#: How much of a large file is read first to tell its layout (more, doubling, until its first
#: line is whole).
_HEAD_BYTES = 2**16


def streamed(size: int | None, *, whole_limit: int = WHOLE_LIMIT) -> bool:
    """Whether an input of ``size`` bytes (``None``: a size known only once it is read, as a
    pipe's or a compressed file's) is large enough for `Stream` to cut into batches, if its
    layout allows (conversation lines): it is larger than ``whole_limit``, what is read whole
    because streaming it would gain nothing. The one answer to "may this input be streamed?":
    `Stream` asks it of the head it has read, and whoever plans the work around an input (a
    pool of processes, a cluster's workers) asks it of the input's size."""
    return size is None or size > whole_limit


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
StreamProgress = Callable[[int, int, int], None]

#: Maps a function over batches lazily and in order, like the built-in ``map`` or a process
#: pool's ordered map; a batch without its data is read first (`Batch`).
Mapper = Callable[[Callable[[Batch], Result], Iterable[Batch]], Iterable[Result]]


def run(data: bytes, *, filename: str | None, options: Options, fix: bool) -> Result:
    """Check (and with ``fix``, repair) one input held whole.

    Raises:
        DecodeError: The input is not readable JSON / JSON Lines (the first bad record).
        NoHistoryError: It holds no message list.
        ShapeError: A message has a tool-related field of the wrong shape.
        SelfCheckError: The repaired output did not check clean (a bug: nothing is written).
    """
    decoded, layout, options = read_input(data, filename=filename, options=options)
    return layout.process(decoded, options=options, fix=fix)


def process_batch(batch: Batch, *, options: Options, fix: bool, every_list: bool = True) -> Result:
    """Check (and with ``fix``, repair) every line of one batch of conversation lines (its data
    read), numbered from ``first_line``; the result's patches are of the batch's data. Without
    ``every_list``, a list the quick lane proves clean is counted (``clean_lists``), not kept:
    a worker process then sends back only the lists with something to say.

    Raises:
        DecodeError, ShapeError, SelfCheckError: As `run`.
    """
    assert batch.data is not None, "a batch is processed once it is read"
    return CONVERSATION_LINES.process_batch(
        batch.data, first_line=batch.first_line, options=options, fix=fix, every_list=every_list
    )


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

    A streamed input's result keeps the message lists with findings, a note or a warning, and
    counts the clean ones (`Result.clean_lists`), so that memory does not grow with the number
    of lines; ``every_list`` keeps them all (a listing of every list asked for).
    """

    def __init__(
        self,
        source: Iterable[bytes] | RandomAccess,
        *,
        filename: str | None,
        options: Options,
        fix: bool,
        mapper: Mapper | None = None,
        progress: StreamProgress | None = None,
        whole_limit: int = WHOLE_LIMIT,
        batch_bytes: int = BATCH_BYTES,
        every_list: bool = False,
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
        self._every_list = every_list
        self._meter = _RecordMeter(options.max_record_bytes)
        self._result: Result | None = None
        self.streamed = False
        """Whether the input was processed batch by batch (else it was read whole)."""

    @property
    def result(self) -> Result:
        """The outcome, once the output has been iterated to its end. For a streamed input its
        ``output`` is ``None`` and it keeps no patches: the output is what the iteration yielded
        (``changed`` tells whether it differs from the input)."""
        if self._result is None:
            msg = "the stream has not been read to its end"
            raise RuntimeError(msg)
        return self._result

    def __iter__(self) -> Iterator[Piece]:
        head, complete = self._head()
        if complete:
            yield from self._whole(bytes(head))
            return
        layout = layout_of_head(head, options=self._options)
        if layout is None or not layout.batches:
            yield from self._whole(self._rest(head, document=layout is None))
        else:
            self.streamed = True
            yield from self._stream(head)

    def read_whole(self) -> bytes:
        """The whole input, read as an iteration reads what it holds whole, within the same
        bounds: a document no larger than the record-size limit, no line and no run of blank
        space longer than it (refused as soon as it is known, before the rest is read). For a
        caller that needs every byte at once (a diff of the input and its repair, a drawing of
        it), instead of iterating.

        Raises:
            DecodeError: A record or a run of blank space is larger than the limit.
            OSError: The input cannot be read.
        """
        head, complete = self._head()
        if complete:
            return bytes(head)
        return self._rest(head, document=layout_of_head(head, options=self._options) is None)

    def _head(self) -> tuple[bytearray, bool]:
        """Enough of the input to tell its layout, and whether that is all of it (an input
        small enough to be read whole)."""
        head = bytearray()
        probe = _LayoutProbe()
        limit = self._options.max_record_bytes
        size = self._file.size if self._file is not None else None
        for piece in self._pieces():
            self._meter.add(piece)
            head += piece
            known = size if size is not None else len(head)
            if (
                known > min(self._whole_limit, limit)
                and probe.decides(head)
                and streamed(known, whole_limit=self._whole_limit)
            ):
                return head, False
        return head, True

    def _pieces(self) -> Iterator[bytes]:
        """The input from its start, in pieces (a file's grow, up to the record-size limit: a
        huge single-line document is read in a few reads, and refused before it is all
        read when it is over the limit)."""
        if self._file is None:
            # Not ``yield from``: when the head is enough, closing this generator must not
            # close the chunks, whose rest the batches read.
            for chunk in self._chunks:  # noqa: UP028
                yield chunk
            return
        offset, size = 0, self._whole_limit + 1
        if self._probes_a_small_head():
            size = _HEAD_BYTES
        while offset < self._file.size:
            piece = self._file.read(offset, size)
            yield piece
            offset += len(piece)
            size = min(max(size, offset), self._options.max_record_bytes + 1)

    def _probes_a_small_head(self) -> bool:
        """Whether the file is told from its first lines alone: it is streamed by its size, so
        only its layout is asked of its head (its first line and the start of the next), and
        neither a torn first line (``keep_invalid_lines`` reads the second whole) nor a
        record-size limit below what is read whole (a head that long is where the limit is
        met) needs more. The batches read the file from its start again, so the main process
        reads a few kilobytes, not `WHOLE_LIMIT`, before the first batch."""
        assert self._file is not None
        options = self._options
        return (
            streamed(self._file.size, whole_limit=self._whole_limit)
            and not options.keep_invalid_lines
            and options.max_record_bytes > self._whole_limit
        )

    def _rest(self, head: bytearray, *, document: bool) -> bytes:
        """The whole input, ``head`` first; a ``document`` (one record) no larger than the
        record-size limit (`patchcore.raw.codec.too_large`: it is refused as soon as it is
        known to be larger, before it is all read)."""
        limit = self._options.max_record_bytes + len(UTF8_BOM)
        if self._file is not None:
            if document and self._file.size > limit:
                raise too_large(self._options.max_record_bytes, line=1)
            chunks: Iterable[bytes] = _file_pieces(self._file, len(head), self._whole_limit)
        else:
            chunks = self._chunks
        for chunk in chunks:
            self._meter.add(chunk)
            head += chunk
            if document and len(head) > limit:
                raise too_large(self._options.max_record_bytes, line=1)
        return bytes(head)

    def _whole(self, data: bytes) -> Iterator[Piece]:
        result = run(data, filename=self._filename, options=self._options, fix=self._fix)
        self._result = result
        if self._progress is not None:
            self._progress(len(data), len(result.conversations), len(result.findings))
        if self._fix:
            yield data if result.output is None else result.output

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

        work = partial(
            process_batch, options=self._options, fix=self._fix, every_list=self._every_list
        )
        mapper = self._mapper if self._mapper is not None else partial(_read_and_map, self._file)
        totals = _Totals(every_list=self._every_list)
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
                self._progress(done, len(result.conversations), len(result.findings))
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
        result = weighed(totals.result())
        if not result.conversations and not result.clean_lists:
            raise no_history(None, kept=totals.invalid_lines)
        self._result = result

    def _chunk_batches(self, head: bytearray) -> Iterator[Batch]:
        """Cut the chunked input (``head``: what has been read so far, its byte-order mark
        included) into batches of whole lines, each joined once from the chunks it spans
        (`patchcore.raw.held_lines`)."""
        bom = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
        held = HeldLines()
        # the head itself (a slice of it: a copy), never a view of it: whoever still holds the
        # chunk (a profiler's sampled frame, on a Dask worker) would keep the head from being
        # emptied ("Existing exports of data")
        held.add(head[bom:] if bom else head)
        del head[:]
        offset = bom
        chunks = itertools.chain((b"",), self._chunks)  # the head may hold batches already
        for chunk in chunks:
            held.add(chunk)
            # A batch ends at the last line break within `batch_bytes` (at the first one after,
            # for a line longer than a batch): the head, read whole, is cut like the rest.
            while held.size >= self._batch_bytes:
                cut = held.line_end(self._batch_bytes)
                if cut is None:  # one line longer than a batch: it grows until the line ends
                    if held.size > self._options.max_record_bytes:
                        limit = self._options.max_record_bytes
                        yield self._too_long(held.first(limit + 1), offset)
                        return
                    break
                yield Batch.of(held.take(cut), offset=offset)
                offset += cut + 1
        yield Batch.of(held.take_all(), offset=offset)

    def _too_long(self, data: bytes, offset: int) -> Batch:
        """The batch that ends in a line longer than the record-size limit, that line cut just
        past the limit: processing it refuses that line (`patchcore.raw.codec.too_large`) after
        every line before it, and the rest of the line is never read."""
        return Batch.of(data, offset=offset)

    def _file_batches(self, start: int) -> Iterator[Batch]:
        """Cut a `RandomAccess` input, from ``start`` on, into batches of whole lines, without
        their data: only the bytes near each cut are read here."""
        assert self._file is not None
        size = self._file.size
        offset = start
        limit = self._options.max_record_bytes
        while size - offset > self._batch_bytes:
            cut = self._line_end_before(offset + self._batch_bytes, offset)
            if cut is None:
                break  # the rest is one line
            if cut - offset > max(self._batch_bytes, limit):  # one line, longer than the limit
                yield self._too_long(self._file.read(offset, limit + 1), offset)
                return
            yield Batch(None, 1, offset, cut - offset)
            offset = cut + 1
        if size - offset > max(self._batch_bytes, limit):
            yield self._too_long(self._file.read(offset, limit + 1), offset)
            return
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
    file: RandomAccess | None, function: Callable[[Batch], Result], batches: Iterable[Batch]
) -> Iterator[Result]:
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


class _RecordMeter:
    """Refuses, as the pieces of an input read whole go by, a line longer than the record-size
    ``limit`` (the byte-order mark aside) or a run of blank space longer than it (spaces, blank
    lines: counted as part of the record that follows them, `patchcore.raw.codec.too_blank`),
    before the rest is read: a few kilobytes of ``.gz`` can hold gigabytes of either, and no
    record would ever end them. Each piece is looked at once."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._line = 0  # how many bytes the line being read has so far
        self._blank = 0  # how many blank bytes follow the last non-blank one
        self._breaks = 0  # line breaks so far
        self._blank_line = 1  # the line the blank run starts on
        self._bom = len(UTF8_BOM)  # how much of the first line may be its byte-order mark

    def add(self, piece: bytes | bytearray) -> None:
        """Take the next piece.

        Raises:
            DecodeError: The line being read, or the blank run, is past the limit.
        """
        size = len(piece)
        # up to the last non-blank byte (whitespace as bytes.strip); a piece that ends on ink,
        # as most do, is not copied to find it
        ink = size if size and piece[-1] not in _BLANK else len(piece.rstrip())
        breaks = piece.count(b"\n", 0, ink)  # each byte's line break counted once
        if ink:
            self._blank = size - ink
            self._blank_line = self._breaks + breaks + 2
        else:
            self._blank += size
        breaks += piece.count(b"\n", ink)
        last_break = piece.rfind(b"\n") if breaks else -1
        if last_break < 0:
            self._line += size
        else:
            self._line = size - last_break - 1
            self._bom = 0
        self._breaks += breaks
        if self._line > self._limit + self._bom:
            raise too_large(self._limit, line=self._breaks + 1)
        if self._blank > self._limit:
            raise too_blank(self._limit, line=min(self._blank_line, self._breaks + 1))


#: The bytes ``bytes.strip`` takes for blank space (ASCII whitespace), as byte values.
_BLANK = frozenset(b" \t\n\r\x0b\x0c")


def _file_pieces(file: RandomAccess, offset: int, size: int) -> Iterator[bytes]:
    """``file`` from ``offset`` to its end, ``size`` bytes at a time."""
    while offset < file.size:
        piece = file.read(offset, size)
        yield piece
        offset += len(piece)


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
    result on the input's own lines (without their patches: the output was streamed). Unless
    ``every_list``, a clean list is counted, not kept (`Stream`)."""

    def __init__(self, *, every_list: bool = False) -> None:
        self.every_list = every_list
        self.clean_lists = 0
        self.conversations: list[Conversation] = []
        self.findings: list[Finding] = []
        self.fixed: list[Finding] = []
        self.remaining: list[Finding] = []
        self.invalid_lines: list[DecodeError] = []
        self.count = LineCount()
        self.lines = 0
        """How many lines the batches added so far hold: where the next one starts."""

    def add(self, result: Result) -> None:
        """Add the next batch's result."""
        lines = self.lines
        self.lines += result.lines
        kept = result.conversations
        self.clean_lists += result.clean_lists  # counted where the batch was processed
        if not self.every_list:
            kept = tuple(c for c in kept if not _clean(c))
            self.clean_lists += len(result.conversations) - len(kept)
        if not lines:
            here = {id(f): f for f in result.findings}
            self.conversations += kept
        else:
            here = {id(f): moved(f, lines) for f in result.findings}
            self.conversations += [c.moved(lines, here) for c in kept]
        self.findings += here.values()
        self.fixed += [here[id(f)] for f in result.fixed]
        self.remaining += [here[id(f)] for f in result.remaining]
        self.invalid_lines += [error.moved(lines) for error in result.invalid_lines]
        if result.line_count is not None:
            self.count += result.line_count.moved(lines)

    def result(self) -> Result:
        return Result(
            CONVERSATION_LINES.name,
            tuple(self.conversations),
            tuple(self.findings),
            tuple(self.fixed),
            tuple(self.remaining),
            lines=self.lines,
            invalid_lines=tuple(self.invalid_lines),
            line_count=self.count,
            clean_lists=self.clean_lists,
        )


def _clean(listed: Conversation) -> bool:
    """Whether a list was checked and says nothing: no finding, no note, no warning."""
    return listed.dialect is not None and listed.note is None and not listed.findings


def layout_of(decoded: Decoded, options: Options) -> Layout:
    """The layout of an input (``decoded`` may be all of it, or its first lines).

    Raises:
        DecodeError: The first record is not JSON and a layout must read it to tell
            (`InvalidLineError` when the next lines make a corpus of one conversation per line,
            where ``keep_invalid_lines`` would keep it).
    """
    try:
        return _decided(Head(decoded, lenient=options.keep_invalid_lines), options)
    except DecodeError as error:
        if options.keep_invalid_lines or decoded.framing is not Framing.JSONL:
            raise
        try:
            kept = _decided(Head(decoded, lenient=True), options)
        except DecodeError:
            raise error from None
        if kept is not CONVERSATION_LINES:
            raise
        raise InvalidLineError(
            error.reason, line=error.line, column=error.column, pointer=error.pointer
        ) from None


def read_input(
    data: bytes, *, filename: str | None, options: Options
) -> tuple[Decoded, Layout, Options]:
    """An input held whole, decoded; its layout (`layout_of`); and the options it is read with.

    An agent session log with NUL bytes (a crash while it was written: docs/cli.md#torn-lines)
    is read as with ``keep_invalid_lines``: a line with NULs is kept as it is, a line of NULs
    alone is TP202's, and the rest is checked. Any other input with NUL bytes is refused.

    Raises:
        DecodeError: As `patchcore.raw.codec.decode` and `layout_of`.
    """
    lenient = options.keep_invalid_lines
    try:
        decoded = decode(
            data, filename=filename, lenient=lenient, max_record=options.max_record_bytes
        )
    except DecodeError as error:
        if lenient or nul_error(data, first_line=1) is None:
            raise
        kept = replace(options, keep_invalid_lines=True)
        try:
            decoded = decode(
                data, filename=filename, lenient=True, max_record=options.max_record_bytes
            )
            layout = layout_of(decoded, kept)
        except DecodeError:
            raise error from None
        from patchcore.layouts.sessions.layout import SessionLayout

        if not isinstance(layout, SessionLayout):
            raise error from None
        return decoded, layout, kept
    return decoded, layout_of(decoded, options), options


def _decided(head: Head, options: Options) -> Layout:
    return next(layout for layout in _candidates(head) if layout.recognises(head, options))


def _candidates(head: Head) -> Iterator[Layout]:
    """The layouts, in the order they are asked, each only for an input that shows its sign
    (a JSON document and a corpus of conversation lines are asked of no other). The session and
    message-per-line layouts are loaded only for an input that may be one
    (`patchcore.layouts.base`): they import the engine, which a clean file's quick
    proof does without."""
    if may_be_session(head.first_entry):
        from patchcore.layouts.sessions import SESSION_LAYOUTS

        yield from SESSION_LAYOUTS
    if head.framing is Framing.JSONL and _may_be_message(head.first_record):
        from patchcore.layouts.message_lines import MESSAGE_LINES

        yield MESSAGE_LINES
    if OTLP_EXPORT.match(head.decoded.records[0].raw):
        from patchcore.layouts.otlp_traces import OTLP_TRACES

        yield OTLP_TRACES
    yield CONVERSATION_LINES
    if head.framing is Framing.JSON and head.decoded.body.lstrip().startswith(b'"'):
        yield ENCODED_DOCUMENT  # a document that is a string: decided from its first byte
    yield JSON_DOCUMENT


#: How an OTLP-JSON export starts (``resourceSpans`` is its one member): the cheap sign that
#: loads its layout (`patchcore.layouts.otlp_traces`), which the parsed record then decides.
OTLP_EXPORT = re.compile(rb'\s*\{\s*"resourceSpans"\s*:')


def _may_be_message(value: object) -> bool:
    """Whether a first line may be a message (which the message-per-line layout then decides,
    with every dialect): a JSON object with a key every message has one of."""
    return isinstance(value, dict) and not MESSAGE_KEYS.isdisjoint(value)


def layout_of_head(head: bytes | bytearray, *, options: Options) -> Layout | None:
    """The layout of an input that starts with ``head`` (at least its first non-blank line and
    the start of the next), when its first line is a JSON value: the input is JSON Lines, and
    `layout_of` decides from that line as it does for the whole input. ``None`` when the first
    line is not a value: a JSON document (or a broken input), which only the whole tells.
    With ``keep_invalid_lines``, a torn first line (`patchcore.raw.codec.torn_record`) is
    passed over, and the next line decides if it is an object alone.
    """
    start = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
    lenient = options.keep_invalid_lines
    for attempt in range(2 if lenient else 1):
        start = skip_whitespace(head, start)
        end = head.find(b"\n", start)
        line = bytes(head[start : end if end >= 0 else len(head)])
        try:
            value = parse(line)
        except DecodeError:
            if not lenient or attempt or end < 0 or not torn_record(line):
                return None
            start = end + 1
            continue
        if attempt and not isinstance(value, dict):
            return None
        return _decided(Head(decode_batch(line, first_line=1), first_record=value), options)
    return None
