"""Apply edits to the original bytes, writing only the new values, in the file's own style;
and the byte spans of JSON values in the original text that the edits are placed by.

Everything outside the inserted text stays byte-identical. The new text copies its neighbours:
the separator between elements (``,\\n    `` or ``, ``), the indentation unit and depth of a
pretty-printed element, ``": "`` vs ``":"``, CRLF line ends, and whether non-ASCII text is
escaped. In a pretty-printed document ``git diff`` then shows the inserted lines and, at most, a
comma added to the line before an insertion at the end of a list.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import TYPE_CHECKING, Any

import msgspec

from patchcore.model import Delete, Edit, Insert, Pointer, Replace, Verbatim
from patchcore.raw.codec import LineStarts, skip_whitespace, skip_whitespace_back

if TYPE_CHECKING:
    from patchcore.raw.codec import Decoded


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


def _raw_end(buf: bytes, raw: msgspec.Raw, pos: int) -> int | None:
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
        value_stop = _raw_end(buf, raw, value)
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
        stop = _raw_end(buf, raw, cursor)
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


#: Gives the original bytes of the value at a pointer (for `Verbatim` parts of new values).
Raw = Callable[[Pointer], bytes]

_KEY_OR_ITEM = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[:,]', re.DOTALL)


@dataclass(frozen=True, slots=True)
class Style:
    """How to write a new element so that it looks like its neighbour.

    Attributes:
        key_separator: ``": "`` or ``":"``.
        item_separator: Between items on one line: ``", "`` or ``","``.
        indent: Indentation unit for a pretty-printed element, ``None`` for one-line elements.
        margin: Indentation of the element's own line (prefixed to its continuation lines).
        newline: ``"\\n"`` or ``"\\r\\n"``.
        ensure_ascii: Escape non-ASCII text as ``\\uXXXX`` (the file has no raw non-ASCII byte).
    """

    key_separator: str
    item_separator: str
    indent: str | None
    margin: str
    newline: str
    ensure_ascii: bool

    def render(self, value: Any, raw: Raw | None = None) -> bytes:
        """Serialise ``value`` in this style; `Verbatim` parts are written as ``raw`` gives them."""
        parts: list[Pointer] = []
        try:
            text = self._dump(value, parts, ensure_ascii=self.ensure_ascii)
        except UnicodeEncodeError:  # a lone surrogate cannot be written raw
            parts.clear()
            text = self._dump(value, parts, ensure_ascii=True)
        for number, pointer in enumerate(parts):
            assert raw is not None, "a Verbatim part needs the original bytes"
            text = text.replace(json.dumps(_sentinel(number)).encode("ascii"), raw(pointer), 1)
        return text

    def _dump(self, value: Any, parts: list[Pointer], *, ensure_ascii: bool) -> bytes:
        """``value`` as JSON, each `Verbatim` part written as a sentinel string (and its pointer
        recorded in ``parts``, in order)."""

        def verbatim(part: object) -> str:
            if not isinstance(part, Verbatim):
                msg = f"not JSON: {type(part).__name__}"
                raise TypeError(msg)
            parts.append(part.pointer)
            return _sentinel(len(parts) - 1)

        if self.indent is None:
            text = json.dumps(
                value,
                separators=(self.item_separator, self.key_separator),
                ensure_ascii=ensure_ascii,
                default=verbatim,
            )
        else:
            text = json.dumps(
                value,
                indent=self.indent,
                separators=(",", self.key_separator),
                ensure_ascii=ensure_ascii,
                default=verbatim,
            ).replace("\n", self.newline + self.margin)
        return text.encode("utf-8")


def _sentinel(number: int) -> str:
    return f"\x00verbatim-{number}\x00"


def element_style(lines: LineStarts, start: int, end: int, *, ensure_ascii: bool) -> Style:
    """Learn the style of the element ``buf[start:end]`` (a neighbour of the new element) of
    the buffer ``lines`` finds the lines of. It looks only at the element and at the start
    of its line (found among the lines already found: `LineStarts`), so the styles of many
    insertions into one buffer take time linear in it."""
    buf = lines.buf
    raw = buf[start:end]
    key_separator, item_separator = ": ", None
    for match in _KEY_OR_ITEM.finditer(raw):
        token = match.group()
        if token == b":":
            key_separator = ": " if raw[match.end() : match.end() + 1] == b" " else ":"
            if item_separator is not None:
                break
        elif token == b",":
            item_separator = ", " if raw[match.end() : match.end() + 1] == b" " else ","
            break
    if item_separator is None:
        item_separator = ", " if key_separator == ": " else ","

    # A line ends with LF, CRLF or a lone CR (old Mac files): each is kept as found.
    line_start = lines.at(start)
    margin = _line_margin(lines, start)
    newline = _newline(raw) or _newline(buf[max(line_start - 2, 0) : line_start]) or "\n"
    indent = None
    if line_break := _LINE_BREAK.search(raw):
        after = raw[line_break.end() :]
        inner = after[: len(after) - len(after.lstrip(b" \t"))]
        unit = inner[len(margin) :] if inner.startswith(margin.encode("ascii")) else b""
        indent = (unit or b"  ").decode("ascii")
    return Style(
        key_separator=key_separator,
        item_separator=item_separator,
        indent=indent,
        margin=margin,
        newline=newline,
        ensure_ascii=ensure_ascii,
    )


#: A line break: CRLF, LF or a lone CR.
_LINE_BREAK = re.compile(rb"\r\n?|\n")


def _newline(data: bytes) -> str | None:
    """The line break ``data`` uses (CRLF before LF before a lone CR), if it has one."""
    for newline in ("\r\n", "\n", "\r"):
        if newline.encode("ascii") in data:
            return newline
    return None


def _separator(
    buf: bytes, opener: int, elements: Sequence[Span], index: int, style: Style
) -> bytes:
    """The bytes between two elements, copied from the array (or made up for one element)."""
    if len(elements) >= 2:
        left = min(max(index - 1, 0), len(elements) - 2)
        return buf[elements[left][1] : elements[left + 1][0]]
    lead = buf[opener + 1 : elements[0][0]]
    if _LINE_BREAK.search(lead):
        return b"," + lead
    return style.item_separator.encode("ascii")


def _insertion(
    lines: LineStarts,
    opener: int,
    elements: Sequence[Span],
    index: int,
    values: Sequence[Any],
    *,
    ensure_ascii: bool,
    raw: Raw,
) -> tuple[int, bytes]:
    """Where and what to insert so that ``values`` become elements ``index, index+1, ...`` of
    the array whose ``[`` is at ``opener`` (in the buffer of ``lines``)."""
    buf = lines.buf
    if not elements:
        style = Style(": ", ", ", None, "", "\n", ensure_ascii)
        return opener + 1, b", ".join(style.render(v, raw) for v in values)
    reference = elements[index - 1] if index > 0 else elements[0]
    style = element_style(lines, *reference, ensure_ascii=ensure_ascii)
    separator = _separator(buf, opener, elements, index, style)
    body = separator.join(style.render(v, raw) for v in values)
    if index < len(elements):
        return elements[index][0], body + separator
    return elements[-1][1], separator + body


def _absent_member(spans: Spans, pointer: Pointer) -> bool:
    """Whether ``pointer`` names a member that its object (which exists) does not have."""
    if not pointer or not isinstance(pointer[-1], str):
        return False
    parent = pointer[:-1]
    start, _ = spans.span(parent)
    if spans.buf[start : start + 1] != b"{":
        return False
    return all(member.key != pointer[-1] for member in spans.members(parent))


def _members_added(
    lines: LineStarts,
    spans: Spans,
    pointer: Pointer,
    members: Sequence[tuple[str, Any]],
    *,
    ensure_ascii: bool,
    raw: Raw,
) -> tuple[int, int, int, bytes]:
    """The patch that adds ``members`` after the last member of the object at ``pointer``, each
    on its own line in a pretty-printed object, separated and indented like the others."""
    opener, closer = spans.span(pointer)
    style = element_style(lines, opener, closer, ensure_ascii=ensure_ascii)
    existing = [(member.start, member.end) for member in spans.members(pointer)]
    if existing:
        style = replace(style, margin=_line_margin(lines, existing[-1][0]))
        separator = _separator(lines.buf, opener, existing, len(existing), style)
    else:
        separator = style.item_separator.encode("ascii")
    texts = [
        style.render(key) + style.key_separator.encode("ascii") + style.render(value, raw)
        for key, value in members
    ]
    body = separator.join(texts)
    if not existing:
        return (opener + 1, 0, opener + 1, body)
    return (existing[-1][1], 0, existing[-1][1], separator + body)


def _line_margin(lines: LineStarts, position: int) -> str:
    """Leading whitespace of the line that holds ``position`` (up to ``position``)."""
    line_start = lines.at(position)
    margin = _MARGIN.match(lines.buf, line_start, position)
    assert margin is not None  # the pattern matches the empty string
    return margin.group().decode("ascii")


_MARGIN = re.compile(rb"[ \t]*")


def _deletions(container: Span, spans: Sequence[Span], doomed: set[int]) -> list[tuple[int, int]]:
    """Byte ranges that remove the ``doomed`` items of a container, with their separators.

    Each run of removed items goes with the separator after it, or, for a run that ends the
    list, with the separator before it; so the remaining items stay well separated. A container
    that loses every item becomes ``{}`` or ``[]``.
    """
    if spans and doomed >= set(range(len(spans))):
        return [(container[0] + 1, container[1] - 1)]
    ranges = []
    index = 0
    while index < len(spans):
        if index not in doomed:
            index += 1
            continue
        first = index
        while index + 1 < len(spans) and index + 1 in doomed:
            index += 1
        last = index
        if last + 1 < len(spans):
            ranges.append((spans[first][0], spans[last + 1][0]))
        elif first > 0:
            ranges.append((spans[first - 1][1], spans[last][1]))
        else:
            ranges.append((spans[first][0], spans[last][1]))
        index += 1
    return ranges


def rebased(edit: Edit, depth: int) -> Edit:
    """``edit`` with its own pointer made relative to the value ``depth`` parts down (the
    pointers of `Verbatim` parts stay as they are: they name places in the original)."""
    if isinstance(edit, Insert):
        return Insert(edit.array[depth:], edit.index, edit.values)
    if isinstance(edit, Delete):
        return Delete(edit.pointer[depth:])
    return Replace(edit.pointer[depth:], edit.value)


def _place(edit: Edit) -> Pointer:
    """The value an edit changes inside of (or replaces)."""
    return edit.array if isinstance(edit, Insert) else edit.pointer


#: A change to a text: the bytes from ``start`` to ``end`` are replaced by ``new`` (an insertion
#: when ``start == end``). Patches of one text are sorted and do not overlap.
Patch = tuple[int, int, bytes]


def apply_patches(buf: bytes, patches: Sequence[Patch]) -> bytes:
    """``buf`` with ``patches`` applied."""
    out = []
    cursor = 0
    for start, end, new in patches:
        out.append(buf[cursor:start])
        out.append(new)
        cursor = end
    out.append(buf[cursor:])
    return b"".join(out)


def splice(
    buf: bytes,
    edits: Sequence[Edit],
    *,
    raw: Raw | None = None,
    ensure_ascii: bool | None = None,
    spans: Spans | None = None,
) -> bytes:
    """Return ``buf`` with ``edits`` applied (see `splice_patches`)."""
    return apply_patches(
        buf, splice_patches(buf, edits, raw=raw, ensure_ascii=ensure_ascii, spans=spans)
    )


def splice_patches(
    buf: bytes,
    edits: Sequence[Edit],
    *,
    raw: Raw | None = None,
    ensure_ascii: bool | None = None,
    spans: Spans | None = None,
    lines: LineStarts | None = None,
) -> list[Patch]:
    """The patches that apply ``edits`` to ``buf``; nothing outside the edited places changes.

    Edit pointers and indexes refer to the original ``buf``, so edits in nested arrays and in
    their parents can be combined freely (a replaced or deleted value must not also hold an
    edit). `Verbatim` parts of new values are read through ``raw`` (by default from ``buf``
    itself; a caller splicing a piece of a larger text passes the larger text's reader).

    An array that both loses and gains elements is rebuilt from its elements (each spliced on
    its own first, if edits reach inside it), joined with the array's own separator.
    ``spans`` and ``lines``: the caller's `Spans` and `LineStarts` of ``buf``, if it has them
    (what they found is reused: a caller splicing many edit sets into one buffer, each fix of
    a plan alone, finds its values and line breaks once).
    """
    spans = Spans(buf) if spans is None else spans
    lines = LineStarts(buf) if lines is None else lines
    read = raw or spans.raw
    ascii_only = buf.isascii() if ensure_ascii is None else ensure_ascii
    inserts: dict[Pointer, dict[int, list[Any]]] = {}
    doomed: dict[Pointer, set[Any]] = {}
    for edit in edits:
        if isinstance(edit, Insert):
            inserts.setdefault(edit.array, {}).setdefault(edit.index, []).extend(edit.values)
        elif isinstance(edit, Delete):
            doomed.setdefault(edit.pointer[:-1], set()).add(edit.pointer[-1])
    rebuilt = {pointer for pointer in inserts if pointer in doomed}

    def owner(edit: Edit) -> tuple[Pointer, int] | None:
        """The outermost element of a rebuilt array that ``edit`` reaches inside, if any (an
        edit of the rebuilt array itself, such as dropping one of its elements, is not inside
        that element)."""
        place = _place(edit)
        for depth in range(len(place)):
            element = place[depth]
            inside = isinstance(edit, Insert) or len(place) > depth + 1
            if inside and place[:depth] in rebuilt and isinstance(element, int):
                return place[:depth], element
        return None

    nested: dict[tuple[Pointer, int], list[Edit]] = {}
    patches: list[tuple[int, int, int, bytes]] = []  # (start, rank, end, text)
    added: dict[Pointer, list[tuple[str, Any]]] = {}  # object -> new members, in edit order
    for edit in edits:
        found = owner(edit)
        if found is not None:
            nested.setdefault(found, []).append(rebased(edit, len(found[0]) + 1))
        elif isinstance(edit, Replace) and _absent_member(spans, edit.pointer):
            key = edit.pointer[-1]
            assert isinstance(key, str)
            added.setdefault(edit.pointer[:-1], []).append((key, edit.value))
        elif isinstance(edit, Replace):
            start, end = spans.span(edit.pointer)
            parent = spans.span(edit.pointer[:-1])
            style = element_style(lines, *parent, ensure_ascii=ascii_only)
            style = replace(style, margin=_line_margin(lines, start))
            patches.append((start, 1, end, style.render(edit.value, read)))

    patches += [
        _members_added(lines, spans, pointer, members, ensure_ascii=ascii_only, raw=read)
        for pointer, members in added.items()
    ]
    for pointer, by_index in inserts.items():
        if pointer in rebuilt or owner(Insert(pointer, 0, ())) is not None:
            continue
        opener, elements = spans.span(pointer)[0], spans.elements(pointer)
        for index, values in by_index.items():
            position, text = _insertion(
                lines, opener, elements, index, values, ensure_ascii=ascii_only, raw=read
            )
            patches.append((position, 0, position, text))
    for pointer, keys in doomed.items():
        if pointer in rebuilt or owner(Delete((*pointer, 0))) is not None:
            continue
        start, end = spans.span(pointer)
        if buf[start : start + 1] == b"{":
            found_members = spans.members(pointer)
            items = [(m.start, m.end) for m in found_members]
            chosen = {k for k, m in enumerate(found_members) if m.key in keys}
        else:
            items = spans.elements(pointer)
            chosen = set(keys)
        patches += [(a, 1, b, b"") for a, b in _deletions((start, end), items, chosen)]
    for pointer in rebuilt:
        if owner(Delete((*pointer, 0))) is not None:
            continue
        patches.append(
            _rebuild(
                lines, spans, pointer, inserts[pointer], doomed[pointer], nested, read, ascii_only
            )
        )

    patches.sort()
    # An insertion where a removed range starts goes before the removal (its rank is lower); a
    # range that starts inside an earlier one is cut to what is left of it.
    normalised: list[Patch] = []
    cursor = 0
    for start, _, end, text in patches:
        start, end = max(start, cursor), max(end, cursor)
        normalised.append((start, end, text))
        cursor = end
    return normalised


def _rebuild(
    lines: LineStarts,
    spans: Spans,
    pointer: Pointer,
    inserts: dict[int, list[Any]],
    doomed: set[Any],
    nested: dict[tuple[Pointer, int], list[Edit]],
    read: Raw,
    ascii_only: bool,
) -> tuple[int, int, int, bytes]:
    """The patch that rewrites the inside of an array losing and gaining elements."""
    buf = lines.buf
    opener, closer = spans.span(pointer)
    elements = spans.elements(pointer)
    kept = [k for k in range(len(elements)) if k not in doomed]
    reference = elements[kept[0]] if kept else elements[0]
    style = element_style(lines, *reference, ensure_ascii=ascii_only)
    separator = _separator(buf, opener, elements, 1, style)
    texts: list[bytes] = []
    for index in range(len(elements) + 1):
        texts += [style.render(value, read) for value in inserts.get(index, ())]
        if index in kept:
            start, end = elements[index]
            inner = nested.get((pointer, index))
            piece = buf[start:end]
            texts.append(
                splice(piece, inner, raw=read, ensure_ascii=ascii_only) if inner else piece
            )
    first, last = elements[0][0], elements[-1][1]
    if not texts:
        return (opener + 1, 1, closer - 1, b"")
    return (first, 1, last, separator.join(texts))


def splice_lines(decoded: Decoded, edits: Sequence[Edit]) -> list[bytes]:
    """The physical lines of JSON Lines whose records are the elements of one list (one
    message per line, an agent session's entries) after ``edits`` of that list: new elements
    become new lines, removed ones drop their line, and edits inside an element are spliced
    into its own line.

    New lines end like the file's lines (CRLF files keep CRLF). Inserting after a last line
    that has no line terminator gives that line the file's terminator and leaves the new last
    line without one, so the file still ends as it did.
    """
    records = decoded.records
    ensure_ascii = all(line.isascii() for line in decoded.lines)
    eol = b"\r" if any(line.endswith(b"\r") for line in decoded.lines) else b""
    lines: list[bytes | None] = list(decoded.lines)

    def raw(pointer: Pointer) -> bytes:
        return Spans(records[int(pointer[0])].raw).raw(pointer[1:])

    inside: dict[int, list[Edit]] = {}
    after_line: dict[int, list[bytes]] = {}
    for edit in edits:
        if isinstance(edit, Insert) and not edit.array:
            neighbour = records[max(edit.index - 1, 0)]
            style = element_style(
                LineStarts(neighbour.raw), 0, len(neighbour.raw.rstrip()), ensure_ascii=ensure_ascii
            )
            # Index 0 never happens for results (they follow a call); keep it at the top if so.
            slot = records[edit.index - 1].index if edit.index > 0 else -1
            after_line.setdefault(slot, []).extend(style.render(v, raw) for v in edit.values)
        elif isinstance(edit, Delete) and len(edit.pointer) == 1:
            lines[records[int(edit.pointer[0])].index] = None
        else:
            inside.setdefault(_message_of(edit), []).append(rebased(edit, 1))
    for message_index, message_edits in inside.items():
        record = records[message_index]
        lines[record.index] = splice(record.raw, message_edits, raw=raw, ensure_ascii=ensure_ascii)

    out: list[bytes] = [line + eol for line in after_line.get(-1, [])]
    last = len(lines) - 1
    for index, line in enumerate(lines):
        new = after_line.get(index, [])
        if line is None:  # a removed message: its new neighbours still end like the file's lines
            out += [n + eol for n in new]
        elif new and index == last:  # no terminator after this line: it moves to the last one
            out.append(line + eol)
            out += [n + eol for n in new[:-1]]
            out.append(new[-1])
        else:
            out.append(line)
            out += [n + eol for n in new]
    if decoded.lines[-1] and lines[-1] is None:
        # The file had no final newline and its last line went: the new last line loses its
        # terminator too (a CRLF's CR included), so the file still ends without one.
        while len(out) > 1 and not out[-1].strip():
            out.pop()
        out[-1] = out[-1].removesuffix(b"\r")
    return out


def edit_reach(decoded: Decoded, edit: Edit, spans: Spans | None) -> tuple[int, int]:
    """Where in ``decoded``'s body an edit of its entries lands, as `splice_lines` (JSON Lines)
    and `splice` (a document, ``spans`` its `Spans`) write it: the bytes of the entry (or the
    value) it changes or removes, or, for new entries, the point where they go in (an empty
    range). What a report needs to tell which change of a whole repair is whose, without
    writing each edit alone."""
    from patchcore.raw.codec import Framing

    records = decoded.records
    if decoded.framing is Framing.JSONL:
        if isinstance(edit, Insert) and not edit.array:
            if edit.index == 0:
                return 0, 0
            before = records[edit.index - 1]
            ends = before.index + 1 < len(decoded.lines)  # a line break after it
            point = before.offset + len(decoded.lines[before.index]) + ends
            return point, point
        record = records[_message_of(edit)]
        return record.offset, record.offset + len(record.raw)
    assert spans is not None, "a document's edits are found in its spans"
    base = records[0].offset
    if isinstance(edit, Insert):
        previous = edit.index - 1
        point = (
            spans.elements(edit.array)[previous][1]
            if previous >= 0
            else spans.span(edit.array)[0] + 1
        )
        return base + point, base + point
    pointer = edit.pointer
    while pointer:
        try:
            start, end = spans.span(pointer)
            return base + start, base + end
        except KeyError:  # a member to add: where its object is
            pointer = pointer[:-1]
    start, end = spans.span(())
    return base + start, base + end


def _message_of(edit: Edit) -> int:
    """The message (line) an edit inside a message belongs to."""
    place = edit.array if isinstance(edit, Insert) else edit.pointer
    first = place[0]
    assert isinstance(first, int)
    return first
