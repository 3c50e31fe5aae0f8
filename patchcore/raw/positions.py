"""Positions in JSON text: where the next value starts, and a byte offset as line and column.

Kept apart from `patchcore.raw.jsonspan`, which builds on them: every input needs them (to tell a
document from an array, to locate a decoding error), spans only a record checked in full.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence

_WHITESPACE = re.compile(rb"[ \t\r\n]*")
_WHITESPACE_BYTES = b" \t\r\n"


def skip_whitespace(buf: bytes | bytearray, pos: int) -> int:
    """Position of the first non-whitespace byte at or after ``pos``."""
    match = _WHITESPACE.match(buf, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def skip_whitespace_back(buf: bytes, end: int, floor: int = 0) -> int:
    """Position just past the last non-whitespace byte before ``end`` (``floor`` at the
    lowest): where the run of whitespace that ends at ``end`` starts."""
    while end > floor and buf[end - 1] in _WHITESPACE_BYTES:
        end -= 1
    return end


def line_and_column(buf: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    return Locator(buf).at(offset)


class Locator:
    """Line and column of many offsets of one buffer, counted on from the last offset asked:
    the offsets of a record's findings, asked in increasing order, cost one pass over the
    buffer together, where counting from the start for each would be quadratic (a list of
    thousands of unanswered calls; a long single-line document). An offset before the last
    one asked is counted from the start again (correct, only slower)."""

    def __init__(self, buf: bytes, *, ascii_only: bool = False) -> None:
        self._buf = buf
        self._ascii_only = ascii_only
        """The buffer is ASCII: a column is a count of bytes."""
        self._offset = 0
        self._line = 1
        self._column = 1

    def at(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of ``offset``."""
        if offset < self._offset:
            self._offset, self._line, self._column = 0, 1, 1
        # Counted in place (no copy of the stretch), and only the last line's part is decoded.
        start = self._offset
        breaks = self._buf.count(b"\n", start, offset)
        if breaks:
            self._line += breaks
            self._column = 1
            start = self._buf.rfind(b"\n", start, offset) + 1
        if self._ascii_only:
            self._column += offset - start
        else:
            self._column += len(str(memoryview(self._buf)[start:offset], "utf-8", "replace"))
        self._offset = offset
        return self._line, self._column


class LineStarts:
    """Where the line holding an offset of one buffer starts (just past the last LF or CR
    before it), for many offsets in any order: the line breaks are found once, as far as the
    furthest offset asked, and each offset is looked up among them. Looking back from each
    offset instead (``rfind``) scanned to the start of its line every time: quadratic in a
    single-line document gaining thousands of results (and in any file without a CR, which
    ``rfind`` looked for back to the file's start)."""

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self._starts = array("q", [0])  # every line start before `_scanned`, in order
        self._scanned = 0

    def at(self, offset: int) -> int:
        """The start of the line that holds ``offset``."""
        if offset > self._scanned:
            self._starts.extend(_line_starts(self.buf, self._scanned, offset))
            self._scanned = offset
        return self._starts[bisect_right(self._starts, offset) - 1]


_LINE_BREAK_BYTE = re.compile(rb"[\r\n]")


def _line_starts(buf: bytes, start: int, end: int) -> Sequence[int]:
    """The offsets just past each LF or CR in ``buf[start:end]``. A record of JSON Lines has
    none: two scans in C (``memchr``) say so in a twentieth of the pattern's time, which was a
    twelfth of splicing a corpus's repairs."""
    if buf.find(b"\n", start, end) < 0 and buf.find(b"\r", start, end) < 0:
        return ()
    return [match.end() for match in _LINE_BREAK_BYTE.finditer(buf, start, end)]
