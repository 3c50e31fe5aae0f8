"""Where a session's entries sit in the file: one a line, or the elements of one JSON array.

An agent session is a sequence of *entries* (events). Claude Code and Codex write one a line, and
so does ``claude -p --output-format stream-json``; the Claude Agent SDK's messages are also kept
as one JSON array (a stream collected and saved whole, as test fixtures keep it). The layouts
read both the same way, and address their edits by the position of an entry among the file's
entries:

* ``Insert((), k, (value,))``: a new entry after entry ``k - 1``, in the style of that entry;
* ``Replace((k, *pointer), value)`` / ``Delete((k, *pointer))``: spliced into entry ``k``;
* ``Delete((k,))``: entry ``k`` removed.

In JSON Lines these are the edits the line writer `patchcore.raw.splice.splice_lines` applies
(a new entry is a new line); in an array they are edits of the document's top-level array,
spliced into its bytes. Either way every entry that needs no change is written back byte for
byte.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from patchcore.errors import DecodeError, ShapeError
from patchcore.model import Delete, Edit, Insert, Pointer
from patchcore.raw.codec import Decoded, Framing, Locator, Record, line_and_column, parses_alone
from patchcore.raw.splice import Spans, splice, splice_lines


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a session: a non-blank line, or an element of the array.

    Attributes:
        position: Its index among the file's entries (what edits address).
        record: Its bytes and the line they start on.
        value: Its parsed value; ``None`` when it is not JSON.
        problem: Why it is not JSON, when it is not.
        column: The column its bytes start at on that line.
        root: Its pointer in the file's record: ``()`` for a line, ``(position,)`` for an
            element of the array.
        pieces: The positions of the lines after it that hold the rest of it, where a raw
            line break inside a JSON string split it (`split_entry`): it is read whole, and its
            ``value`` is what the lines joined back hold.
        rest_of: For such a later piece, the position of the entry it is the rest of (its
            ``value`` is ``None``: it is read with that entry).
    """

    position: int
    record: Record
    value: Any
    problem: str | None = None
    column: int = 1
    root: Pointer = ()
    pieces: tuple[int, ...] = ()
    rest_of: int | None = None

    @property
    def noun(self) -> str:
        """What warnings call it."""
        return "entry" if self.root else "line"

    @property
    def one(self) -> str:
        """What warnings call it, with its article."""
        return "an entry" if self.root else "a line"


def read_entries(decoded: Decoded) -> list[Entry]:
    """Every entry of the file, parsed; a line that is not JSON is kept with the reason.

    Raises:
        DecodeError: The file is one JSON document that does not parse.
    """
    if decoded.framing is Framing.JSONL:
        return _lines(decoded)
    return _elements(decoded.records[0])


#: The most lines one entry split by raw line breaks is read back from (a tool's output with a
#: few line breaks written raw): a bound on the joins tried at a line that does not parse.
MAX_PIECES = 16
#: Why a line that a raw line break inside a JSON string cut short does not parse.
_CUT_IN_A_STRING = "unterminated string"


def _lines(decoded: Decoded) -> list[Entry]:
    records = decoded.records
    entries: list[Entry] = []
    for position, record in enumerate(records):
        try:
            entries.append(Entry(position, record, record.parse()))
        except DecodeError as error:
            entries.append(Entry(position, record, None, error.reason))
    position = 0
    while position < len(entries):
        entry = entries[position]
        cut = entry.problem is not None and _CUT_IN_A_STRING in entry.problem
        joined = (
            split_entry(records, position, lambda k: entries[k].problem is None) if cut else None
        )
        if joined is None:
            position += 1
            continue
        value, raw, pieces = joined
        record = entry.record
        whole = Record(raw, record.line, record.index, record.offset)
        entries[position] = Entry(position, whole, value, pieces=pieces)
        for k in pieces:
            entries[k] = Entry(k, records[k], None, rest_of=position)
        position = pieces[-1] + 1
    return entries


def split_entry(
    records: Sequence[Record], first: int, alone: Callable[[int], bool]
) -> tuple[Any, bytes, tuple[int, ...]] | None:
    """The object that line ``first`` and the lines after it hold when a raw line break inside
    a JSON string split one entry over them (an agent that wrote a tool's output without
    escaping it; docs/cli.md#torn-lines), and the positions of those later lines; ``None``
    when no join of up to `MAX_PIECES` lines, none JSON on its own (``alone`` says which line
    is), is one object. The lines are joined back with the line break escaped (``\\n``), so
    the value holds the text as it was written; the joined bytes come with it (what the
    entry's `Record` holds: a place inside it is found in them, on the first line). A join is
    tried with msgspec alone, its errors never located: a hostile log of torn lines costs a
    few failed decodes a line, and a joined entry only msgspec refuses (a number such as
    ``1e400``) stays unread."""
    joined = records[first].raw
    for position in range(first + 1, min(first + MAX_PIECES, len(records))):
        piece = records[position].raw
        if not piece.strip() or alone(position):
            return None
        joined += b"\\n" + piece
        try:
            value = _JOINED.decode(joined)
        except (msgspec.DecodeError, RecursionError):
            continue
        if not isinstance(value, dict):
            return None
        return value, joined, tuple(range(first + 1, position + 1))
    return None


#: The decoder a join is tried with (`split_entry`).
_JOINED = msgspec.json.Decoder()


def _elements(document: Record) -> list[Entry]:
    """The elements of a document that is an array, each with the line and column it starts at
    (counted as the document is walked once: a large array stays linear)."""
    values = document.parse()
    raw = document.raw
    locator = Locator(raw)
    entries = []
    for position, (start, end) in enumerate(Spans(raw).elements(())):
        line, column = locator.at(start)
        record = Record(raw[start:end], line + document.line - 1)
        entries.append(Entry(position, record, values[position], None, column, (position,)))
    return entries


def write_entries(decoded: Decoded, edits: Sequence[Edit]) -> bytes:
    """The file with ``edits`` applied; every entry they do not touch keeps its bytes."""
    if decoded.framing is Framing.JSONL:
        mended, edits = _joined_where_edited(decoded, edits)
        return decoded.join(splice_lines(mended, edits))
    return decoded.join([splice(decoded.records[0].raw, edits)])


def _joined_where_edited(decoded: Decoded, edits: Sequence[Edit]) -> tuple[Decoded, list[Edit]]:
    """``decoded`` with each entry that raw line breaks split (`split_entry`) on one line, its
    breaks escaped, where an edit reaches into it, follows it or removes the line after it (its
    first piece: TP201's fix removes the pieces), and ``edits`` with the removal of its later
    lines: an edit of such an entry is written into it whole (its text unchanged, byte for
    byte), never into one of its pieces, and a new entry after it comes after the last."""
    records, lines = list(decoded.records), list(decoded.lines)
    removed = {
        e.pointer[0]
        for e in edits
        if isinstance(e, Delete) and len(e.pointer) == 1 and isinstance(e.pointer[0], int)
    }
    reached: set[object] = {k - 1 for k in removed}
    for edit in edits:
        if isinstance(edit, Insert):
            reached.add(edit.array[0] if edit.array else edit.index - 1)
        else:
            reached.add(edit.pointer[0])
    more: list[Edit] = []
    joined_any = False
    for position in sorted(k for k in reached if isinstance(k, int) and 0 <= k < len(records)):
        record = records[position]
        joined = (
            None
            if parses_alone(record.raw)
            else split_entry(records, position, lambda k: parses_alone(records[k].raw))
        )
        if joined is None:
            continue
        _, raw, pieces = joined
        records[position] = Record(raw, record.line, record.index, record.offset)
        lines[record.index] = raw
        more += [Delete((k,)) for k in pieces if k not in removed]
        joined_any = True
    if not joined_any:
        return decoded, list(edits)
    return Decoded(decoded.bom, decoded.framing, lines, records), [*edits, *more]


def place(entry: Entry, pointer: Pointer) -> tuple[int, int]:
    """Line and column in the file of the value at ``pointer`` inside ``entry`` (the start of
    the entry if the pointer leads nowhere)."""
    raw = entry.record.raw
    try:
        offset = Spans(raw).span(pointer)[0]
    except KeyError:
        offset = len(raw) - len(raw.lstrip())
    line, column = line_and_column(raw, offset)
    if line == 1:
        column += entry.column - 1
    return line + entry.record.line - 1, column


def relocated(error: ShapeError, entry: Entry, pointer: Pointer) -> ShapeError:
    """``error``, raised about a value of a message list, moved to where that value sits in the
    file: ``pointer`` inside ``entry``."""
    line, column = place(entry, pointer)
    return ShapeError(error.reason, path=(*entry.root, *pointer), line=line, column=column)
