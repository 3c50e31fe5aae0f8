"""SARIF text regions of an input: lines and columns as code scanning counts them.

SARIF counts columns in UTF-16 code units unless a run says otherwise (``columnKind``), and
GitHub code scanning reads them so: a character outside the Basic Multilingual Plane (an emoji)
is two columns, as in a JavaScript string. toolpatch locates findings in characters (code
points, as its text and JSON reports say); `TextPositions` turns those into UTF-16 columns, and
byte offsets (the fixes' patches) into line and column. Lines end at LF (a CRLF's CR is the
last character of its line), SARIF's default ``newlineSequences``; a byte-order mark is not part
of the text, so line 1 starts after it.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

_BOM = b"\xef\xbb\xbf"


def utf16_length(text: str) -> int:
    """How many UTF-16 code units ``text`` has (two for a character above U+FFFF)."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


class TextPositions:
    """Lines and UTF-16 columns in one input's bytes; its lines are found as far as asked."""

    def __init__(self, data: bytes) -> None:
        self.bom = len(_BOM) if data.startswith(_BOM) else 0
        self.data = data
        self._starts = [self.bom]  # the offset of each line found so far
        self._complete = False
        self._line: tuple[int, str] | None = None  # the last line decoded: (number, text)

    def _find_lines(self, *, line: int | None = None, offset: int | None = None) -> None:
        """Find line starts until ``line`` starts, or the line that holds ``offset`` is known."""
        starts = self._starts
        while not self._complete and (
            (line is not None and len(starts) < line)
            or (offset is not None and starts[-1] <= offset)
        ):
            found = self.data.find(b"\n", starts[-1])
            if found < 0:
                self._complete = True
            else:
                starts.append(found + 1)

    def _line_start(self, line: int) -> int | None:
        self._find_lines(line=line)
        return self._starts[line - 1] if line <= len(self._starts) else None

    def _text(self, line: int) -> str:
        """Line ``line`` as text (a byte that is not UTF-8 read as U+FFFD, as toolpatch's
        columns count it), without its LF."""
        if self._line is None or self._line[0] != line:
            start = self._line_start(line)
            assert start is not None
            end = self.data.find(b"\n", start)
            raw = self.data[start : end if end >= 0 else len(self.data)]
            self._line = (line, raw.decode("utf-8", errors="replace"))
        return self._line[1]

    def column(self, line: int, column: int) -> int:
        """The UTF-16 column of the character at code-point ``column`` of ``line``."""
        if self._line_start(line) is None:  # not a line of this input: nothing to convert
            return column
        return utf16_length(self._text(line)[: column - 1]) + 1

    def position(self, offset: int) -> tuple[int, int]:
        """The line and UTF-16 column of the byte ``offset`` of the input (at a character
        boundary)."""
        offset = max(offset, self.bom)
        self._find_lines(offset=offset)
        line = bisect_right(self._starts, offset)
        start = self._starts[line - 1]
        before = self.data[start:offset].decode("utf-8", errors="replace")
        return line, utf16_length(before) + 1

    def region(self, start: int, end: int) -> dict[str, Any]:
        """The text region of the bytes ``start`` to ``end`` (an insertion point when they are
        equal): its end column is that of the character after it."""
        start_line, start_column = self.position(start)
        end_line, end_column = self.position(end)
        return {
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
        }
