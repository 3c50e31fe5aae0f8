"""Positions in JSON text: where the next value starts, and a byte offset as line and column.

Kept apart from `patchcore.raw.jsonspan`, which builds on them: every input needs them (to tell a
document from an array, to locate a decoding error), spans only a record checked in full.
"""

from __future__ import annotations

import re

_WHITESPACE = re.compile(rb"[ \t\r\n]*")


def skip_whitespace(buf: bytes, pos: int) -> int:
    """Position of the first non-whitespace byte at or after ``pos``."""
    match = _WHITESPACE.match(buf, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def line_and_column(buf: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    line_start = buf.rfind(b"\n", 0, offset) + 1
    line = buf.count(b"\n", 0, offset) + 1
    column = len(buf[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column
