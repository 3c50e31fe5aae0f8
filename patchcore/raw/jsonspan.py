"""Byte spans of JSON values, found in the original text.

Parsers give values, not positions. To splice new elements into a file without re-serialising
anything else, we need the byte span of a given array and of each of its elements. `Spans`
finds them along a JSON pointer, one container at a time, and remembers what it found:

* msgspec splits a container into its members (``dict[str, Raw]``, ``list[Raw]``) at C speed,
  skipping everything inside them; each raw member is then matched to its exact place by a
  short forward walk over the separators, which also verifies the split;
* where msgspec cannot help (``NaN`` and other non-standard tokens, duplicated keys), a pure
  Python scanner walks the bytes instead, jumping over strings whole and counting brackets.

The input must already have parsed as JSON; the scanner does not validate.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import Any

import msgspec

from patchcore.model import Pointer
from patchcore.raw.positions import skip_whitespace, skip_whitespace_back

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURAL = re.compile(rb'["\[\]{}]')
_SCALAR = re.compile(rb'[^\s\[\]{},:"]+')
_RAW_MEMBERS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_ELEMENTS = msgspec.json.Decoder(list[msgspec.Raw])
_OPEN_BRACKET = ord("[")

#: A ``(start, end)`` byte span.
Span = tuple[int, int]


def value_end(buf: bytes, pos: int) -> int:
    """End offset of the JSON value that starts at ``pos`` (the pure Python scanner)."""
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


def _key(token: bytes) -> str:
    return json.loads(token) if b"\\" in token else token[1:-1].decode("utf-8")


def _scan_members(buf: bytes, pos: int) -> list[Member]:
    """The members of the object starting at ``pos``, in order (duplicates included)."""
    found: list[Member] = []
    cursor = skip_whitespace(buf, pos + 1)
    if buf[cursor : cursor + 1] == b"}":
        return found
    while True:
        key_end = value_end(buf, cursor)
        colon = skip_whitespace(buf, key_end)
        start = skip_whitespace(buf, colon + 1)
        end = value_end(buf, start)
        found.append(Member(_key(buf[cursor:key_end]), cursor, start, end))
        cursor = skip_whitespace(buf, end)
        if buf[cursor : cursor + 1] != b",":
            return found
        cursor = skip_whitespace(buf, cursor + 1)


def _scan_elements(buf: bytes, pos: int) -> list[Span]:
    """The element spans of the array starting at ``pos``."""
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
    return elements


def _place(buf: bytes, raw: msgspec.Raw, pos: int) -> int | None:
    """End of ``raw`` if it stands at ``pos`` in ``buf``, else ``None``.

    msgspec's raw values are the very bytes of their input, so a value that starts and ends
    with the bytes found at its place is that value; comparing every byte would cost a search
    through the whole value (a conversation is tens of kilobytes) for nothing.
    """
    end = pos + len(raw)
    view = memoryview(raw)
    if end > len(buf) or not view:
        return None
    return end if buf[pos] == view[0] and buf[end - 1] == view[-1] else None


def _split_members(buf: bytes, start: int, end: int) -> list[Member] | None:
    """The object's members via msgspec, each placed and checked; ``None`` if that fails."""
    try:
        decoded = _RAW_MEMBERS.decode(memoryview(buf)[start:end])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the scanner decides (it does not recurse)
    found: list[Member] = []
    cursor = skip_whitespace(buf, start + 1)
    for key, raw in decoded.items():
        if found:
            if buf[cursor : cursor + 1] != b",":
                return None  # a duplicated key folded the dict: let the scanner decide
            cursor = skip_whitespace(buf, cursor + 1)
        token = _STRING.match(buf, cursor)
        if token is None or _key(token.group()) != key:
            return None
        colon = skip_whitespace(buf, token.end())
        if buf[colon : colon + 1] != b":":
            return None
        value = skip_whitespace(buf, colon + 1)
        value_stop = _place(buf, raw, value)
        if value_stop is None:
            return None
        found.append(Member(key, cursor, value, value_stop))
        cursor = skip_whitespace(buf, value_stop)
    return found if buf[cursor : cursor + 1] == b"}" else None


def _split_elements(buf: bytes, start: int, end: int) -> list[Span] | None:
    """The array's element spans via msgspec, each placed and checked; ``None`` if that fails."""
    try:
        decoded = _RAW_ELEMENTS.decode(memoryview(buf)[start:end])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the scanner decides (it does not recurse)
    return _placed_elements(buf, start, decoded)


def _placed_elements(buf: bytes, start: int, decoded: list[msgspec.Raw]) -> list[Span] | None:
    """The spans of the raw elements ``decoded`` of the array whose ``[`` is at ``start``,
    each placed and checked; ``None`` if they are not its elements."""
    uniform = _uniform_elements(buf, start, decoded)
    if uniform is not None:
        return uniform
    found: list[Span] = []
    cursor = skip_whitespace(buf, start + 1)
    for raw in decoded:
        if found:
            if buf[cursor : cursor + 1] != b",":
                return None
            cursor = skip_whitespace(buf, cursor + 1)
        stop = _place(buf, raw, cursor)
        if stop is None:
            return None
        found.append((cursor, stop))
        cursor = skip_whitespace(buf, stop)
    return found if buf[cursor : cursor + 1] == b"]" else None


def _uniform_elements(buf: bytes, start: int, decoded: list[msgspec.Raw]) -> list[Span] | None:
    """The element spans of an array whose elements are all parted by the same bytes (a JSON
    Lines record, any compact or one-line array), proven by comparing the array's inside with
    its elements joined by that separator: one C-speed comparison instead of a walk."""
    if len(decoded) < 2:
        return None
    first = skip_whitespace(buf, start + 1)
    after_first = first + len(decoded[0])
    comma = skip_whitespace(buf, after_first)
    if buf[comma : comma + 1] != b",":
        return None
    separator = buf[after_first : skip_whitespace(buf, comma + 1)]
    if not buf.startswith(separator.join(decoded), first):
        return None
    # Element k starts after the k elements before it and k separators: summed in C.
    lengths = list(map(len, decoded))
    step = len(separator)
    starts = list(map(add, accumulate(lengths, initial=first), range(0, len(lengths) * step, step)))
    return list(zip(starts, map(add, starts, lengths), strict=True))


@lru_cache(maxsize=16)
def _member_list(key: str) -> msgspec.json.Decoder[Any]:
    """Decodes an object's member ``key`` as a list of raw elements, skipping its other
    members (a few keys, such as ``messages``, are asked of every record of a corpus)."""
    listed = msgspec.defstruct("Listed", [("elements", list[msgspec.Raw], msgspec.field(name=key))])
    return msgspec.json.Decoder(listed)


def _member_elements(buf: bytes, key: str) -> tuple[Span, list[Span]] | None:
    """The span of the array at member ``key`` of the object that ``buf`` is, and its
    elements' spans, from one msgspec pass over ``buf`` (where splitting the object into its
    members and then the array into its elements would take two, and a walk over the members).

    The elements come out raw, and a raw value is the very bytes of its input: the first
    element's bytes occur in ``buf`` at its place, so where they occur only once, that is its
    place, and it places the others (`_placed_elements` proves them). A duplicated key is read
    as the parsers read it (the last one); if its array starts like an earlier one, the first
    element's bytes occur twice. ``None``: not so (no such array of two elements or more,
    bytes that occur twice, anything msgspec does not read): the members are split instead.
    """
    try:
        raws: list[msgspec.Raw] = _member_list(key).decode(buf).elements
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if len(raws) < 2:
        return None
    first = raws[0]
    position = buf.find(first)
    if position < 0 or buf.find(first, position + 1) >= 0:
        return None
    opener = skip_whitespace_back(buf, position) - 1
    if opener < 0 or buf[opener] != _OPEN_BRACKET:
        return None
    elements = _placed_elements(buf, opener, raws)
    if elements is None:
        return None
    close = skip_whitespace(buf, elements[-1][1])
    if buf[close : close + 1] != b"]":
        return None
    return (opener, close + 1), elements


class Spans:
    """The spans of values in one JSON text, found along pointers and remembered."""

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        start = skip_whitespace(buf, 0)
        end = skip_whitespace_back(buf, len(buf), start)
        self._spans: dict[Pointer, Span] = {(): (start, end)}
        self._members: dict[Pointer, list[Member]] = {}
        self._elements: dict[Pointer, list[Span]] = {}

    def span(self, pointer: Pointer) -> Span:
        """``(start, end)`` of the value at ``pointer``.

        Follows the last occurrence of a duplicated key, as the parsers do.

        Raises:
            KeyError: The pointer does not lead to a value.
        """
        known_span = self._spans.get(pointer)
        if known_span is not None:
            return known_span
        if not pointer:
            raise KeyError(pointer)
        # Walk down from the deepest ancestor already known (a loop: nesting is not bounded by
        # Python's recursion limit, only by the parser's).
        known = len(pointer) - 1
        while pointer[:known] not in self._spans:
            known -= 1
        for depth in range(known + 1, len(pointer) + 1):
            found = self._child(pointer[: depth - 1], pointer[depth - 1])
            self._spans[pointer[:depth]] = found
        return found

    def _child(self, parent: Pointer, part: str | int) -> Span:
        """The span of member or element ``part`` of the (known) value at ``parent``."""
        start, _ = self._spans[parent]
        opener = self.buf[start : start + 1]
        if opener == b"{" and isinstance(part, str):
            matches = [m for m in self.members(parent) if m.key == part]
            if not matches:
                raise KeyError(part)
            return matches[-1].value_start, matches[-1].end
        if opener == b"[" and isinstance(part, int):
            elements = self.elements(parent)
            if not 0 <= part < len(elements):
                raise KeyError(part)
            return elements[part]
        raise KeyError(part)

    def raw(self, pointer: Pointer) -> bytes:
        """The bytes of the value at ``pointer``."""
        start, end = self.span(pointer)
        return self.buf[start:end]

    def members(self, pointer: Pointer) -> list[Member]:
        """The members of the object at ``pointer``, in order."""
        if pointer not in self._members:
            start, end = self.span(pointer)
            found = _split_members(self.buf, start, end)
            self._members[pointer] = found if found is not None else _scan_members(self.buf, start)
        return self._members[pointer]

    def elements(self, pointer: Pointer) -> list[Span]:
        """The element spans of the array at ``pointer``."""
        if pointer not in self._elements:
            found = self._member_elements(pointer)
            if found is None:
                start, end = self.span(pointer)
                found = _split_elements(self.buf, start, end)
                if found is None:
                    found = _scan_elements(self.buf, start)
            self._elements[pointer] = found
        return self._elements[pointer]

    def _member_elements(self, pointer: Pointer) -> list[Span] | None:
        """The elements of an array that is a member of the root object (a corpus record's
        ``messages``), found in one pass (`_member_elements`), its own span remembered too;
        ``None`` for any other array, or where that does not find them."""
        if len(pointer) != 1 or pointer in self._spans or not isinstance(pointer[0], str):
            return None
        start, _ = self._spans[()]
        if self.buf[start : start + 1] != b"{":
            return None
        found = _member_elements(self.buf, pointer[0])
        if found is None:
            return None
        self._spans[pointer], elements = found
        return elements
