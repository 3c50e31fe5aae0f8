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

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from patchcore.codec import UTF8_BOM, Framing, decode_batch, parse
from patchcore.document import (
    ListReport,
    RecordsResult,
    Report,
    dialects_for,
    no_history,
    process_records,
    run,
)
from patchcore.errors import DecodeError

if TYPE_CHECKING:
    from patchcore.model import Finding
    from patchcore.options import Options

#: Inputs up to this size are read whole (where streaming would gain nothing).
WHOLE_LIMIT = 8 * 2**20
#: About how many bytes of whole lines go into one batch.
BATCH_BYTES = 4 * 2**20


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive whole lines of a JSON Lines input.

    Attributes:
        data: The lines joined by ``\\n`` (no separator before the first or after the last).
        first_line: The 1-based line number of the first line in the input.
        offset: Where ``data`` starts in the input, in bytes (a worker process may read the
            batch from the file itself rather than receive it through a pipe).
    """

    data: bytes
    first_line: int
    offset: int = 0


#: Told, after each batch (or once, for an input read whole), how many more bytes of the input
#: are done and how many message lists and findings they held.
Progress = Callable[[int, int, int], None]

#: Maps a function over batches lazily and in order, like the built-in ``map`` (the default)
#: or a process pool's ordered map.
Mapper = Callable[[Callable[[Batch], RecordsResult], Iterable[Batch]], Iterable[RecordsResult]]


def process_batch(batch: Batch, *, options: Options, fix: bool) -> RecordsResult:
    """Check (and with ``fix``, repair) every record of one batch; lines and columns are those
    of the whole input.

    Raises:
        DecodeError, ShapeError, SelfCheckError: as `patchcore.document.run`.
    """
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
    from patchcore.locate import classify  # the engine: only an input too big to read whole
    from patchcore.sessions import session_format  # sessions build on document (a cycle)

    if session_format(value, options) is not None:
        return False  # an agent session log: its conversations run across its lines
    return classify([value], dialects_for(options)) is None


class Stream:
    """One run over an input given as chunks of bytes: iterate it for the output (a check
    yields nothing), then read `report`.

    Every chunk is consumed once; at most ``whole_limit`` bytes plus the batches in flight are
    held at a time when the input is streamed. ``mapper`` runs `process_batch` over the batches
    (a process pool's ordered map spreads them over cores); ``progress`` hears of each batch
    done.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        *,
        filename: str | None,
        options: Options,
        fix: bool,
        mapper: Mapper = map,
        progress: Progress | None = None,
        whole_limit: int = WHOLE_LIMIT,
        batch_bytes: int = BATCH_BYTES,
    ) -> None:
        self._chunks = iter(chunks)
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

    def __iter__(self) -> Iterator[bytes]:
        head = bytearray()
        for chunk in self._chunks:
            head += chunk
            if len(head) > self._whole_limit and self._head_decides(head):
                break
        else:
            yield from self._whole(bytes(head))
            return
        if not independent_lines(head, options=self._options):
            for chunk in self._chunks:
                head += chunk
            yield from self._whole(bytes(head))
            return
        self.streamed = True
        yield from self._stream(head)

    def _whole(self, data: bytes) -> Iterator[bytes]:
        self._report = run(data, filename=self._filename, options=self._options, fix=self._fix)
        if self._progress is not None:
            self._progress(len(data), len(self._report.lists), len(self._report.findings))
        if self._fix:
            yield data if self._report.output is None else self._report.output

    @staticmethod
    def _head_decides(head: bytearray) -> bool:
        """Whether ``head`` holds a whole non-blank line and the start of another one: enough to
        tell JSON Lines from a document the way `patchcore.codec.decode` does."""
        first = head.lstrip()
        end = first.find(b"\n")
        return end >= 0 and bool(first[end:].strip())

    def _stream(self, head: bytearray) -> Iterator[bytes]:
        bom = UTF8_BOM if head.startswith(UTF8_BOM) else b""
        del head[: len(bom)]
        in_flight: deque[bytes] = deque()

        def batches() -> Iterator[Batch]:
            for batch in self._batches(head, len(bom)):
                in_flight.append(batch.data)
                yield batch

        work = partial(process_batch, options=self._options, fix=self._fix)
        totals = _Totals()
        separator = bom
        for result in self._mapper(work, batches()):
            data = in_flight.popleft()
            totals.add(result)
            if self._progress is not None:
                done = len(separator) + len(data)
                self._progress(done, len(result.lists), len(result.findings))
            if self._fix:
                yield separator + (data if result.output is None else result.output)
            separator = b"\n"
        if not totals.lists:
            raise no_history(None)
        self._report = totals.report()

    def _batches(self, buffer: bytearray, offset_of_buffer: int) -> Iterator[Batch]:
        """Cut the input (``buffer``: what has been read so far, from ``offset_of_buffer`` on)
        into batches of whole lines, numbering their first lines."""
        line, offset = 1, offset_of_buffer
        for chunk in self._chunks:
            buffer += chunk
            if len(buffer) < self._batch_bytes:
                continue
            cut = buffer.rfind(b"\n")
            if cut < 0:
                continue  # one line longer than a batch: it grows until the line ends
            data = bytes(buffer[:cut])
            del buffer[: cut + 1]
            yield Batch(data, line, offset)
            line += data.count(b"\n") + 1
            offset += cut + 1
        yield Batch(bytes(buffer), line, offset)


class _Totals:
    """The results of a streamed input's batches, summed into one report."""

    def __init__(self) -> None:
        self.lists: list[ListReport] = []
        self.findings: list[Finding] = []
        self.fixed: list[Finding] = []
        self.remaining: list[Finding] = []

    def add(self, result: RecordsResult) -> None:
        self.lists += result.lists
        self.findings += result.findings
        self.fixed += result.fixed
        self.remaining += result.remaining

    def report(self) -> Report:
        return Report(
            Framing.JSONL.value,
            tuple(self.lists),
            tuple(self.findings),
            None,
            tuple(self.fixed),
            tuple(self.remaining),
        )
