"""Byte spans of JSON values, found by scanning the original text.

orjson and the standard library give values, not positions. To splice new elements into a file
without re-serialising anything else, we need the byte span of a given array and of each of its
elements. This scanner walks the raw bytes along a JSON pointer, skipping every value that is not
on the way with C-speed regular expressions (strings are jumped over whole, containers by bracket
counting), so its cost is proportional to the bytes before the target, not to the number of
characters in it.

The input must already have parsed as JSON; the scanner does not validate.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from patchcore.model import Pointer

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURAL = re.compile(rb'["\[\]{}]')
_SCALAR = re.compile(rb'[^\s\[\]{},:"]+')
_WHITESPACE = re.compile(rb"[ \t\r\n]*")


def skip_whitespace(buf: bytes, pos: int) -> int:
    """Position of the first non-whitespace byte at or after ``pos``."""
    match = _WHITESPACE.match(buf, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def value_end(buf: bytes, pos: int) -> int:
    """End offset of the JSON value that starts at ``pos``."""
    first = buf[pos : pos + 1]
    if first == b'"':
        match = _STRING.match(buf, pos)
        assert match is not None
        return match.end()
    if first in (b"[", b"{"):
        depth = 0
        cursor = pos
        while True:
            match = _STRUCTURAL.search(buf, cursor)
            assert match is not None
            char = match.group()
            if char == b'"':
                string = _STRING.match(buf, match.start())
                assert string is not None
                cursor = string.end()
                continue
            depth += 1 if char in (b"[", b"{") else -1
            cursor = match.end()
            if depth == 0:
                return cursor
    match = _SCALAR.match(buf, pos)
    assert match is not None
    return match.end()


@dataclass(frozen=True, slots=True)
class Member:
    """Where one member of an object is: its key's first byte, its value's span."""

    key: str
    start: int
    value_start: int
    end: int


def members(buf: bytes, pos: int) -> list[Member]:
    """The members of the object starting at ``pos``, in order."""
    found: list[Member] = []
    cursor = skip_whitespace(buf, pos + 1)
    if buf[cursor : cursor + 1] == b"}":
        return found
    while True:
        key_end = value_end(buf, cursor)
        token = buf[cursor:key_end]
        key = json.loads(token) if b"\\" in token else token[1:-1].decode("utf-8")
        colon = skip_whitespace(buf, key_end)
        start = skip_whitespace(buf, colon + 1)
        end = value_end(buf, start)
        found.append(Member(key, cursor, start, end))
        cursor = skip_whitespace(buf, end)
        if buf[cursor : cursor + 1] != b",":
            return found
        cursor = skip_whitespace(buf, cursor + 1)


@dataclass(frozen=True, slots=True)
class ArraySpan:
    """Where an array and its elements are in the buffer.

    Attributes:
        start: Offset of ``[``.
        end: Offset just after ``]``.
        elements: ``(start, end)`` of each element.
    """

    start: int
    end: int
    elements: tuple[tuple[int, int], ...]


def array_span(buf: bytes, pos: int) -> ArraySpan:
    """Spans of the array starting at ``pos`` and of its elements."""
    elements = []
    cursor = skip_whitespace(buf, pos + 1)
    if buf[cursor : cursor + 1] != b"]":
        while True:
            end = value_end(buf, cursor)
            elements.append((cursor, end))
            cursor = skip_whitespace(buf, end)
            if buf[cursor : cursor + 1] != b",":
                break
            cursor = skip_whitespace(buf, cursor + 1)
    return ArraySpan(pos, cursor + 1, tuple(elements))


def value_start(buf: bytes, pointer: Pointer, *, base: int | None = None) -> int:
    """Offset where the value at ``pointer`` starts.

    Follows the last occurrence of a duplicated key, as the parsers do.

    Raises:
        KeyError: The pointer does not lead to a value.
    """
    pos = skip_whitespace(buf, 0) if base is None else base
    for part in pointer:
        opener = buf[pos : pos + 1]
        if opener == b"{" and isinstance(part, str):
            starts = [m.value_start for m in members(buf, pos) if m.key == part]
            if not starts:
                raise KeyError(part)
            pos = starts[-1]
        elif opener == b"[" and isinstance(part, int):
            elements = array_span(buf, pos).elements
            if not 0 <= part < len(elements):
                raise KeyError(part)
            pos = elements[part][0]
        else:
            raise KeyError(part)
    return pos


def line_and_column(buf: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    line_start = buf.rfind(b"\n", 0, offset) + 1
    line = buf.count(b"\n", 0, offset) + 1
    column = len(buf[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column
