"""Apply edits to the original bytes, writing only the new values, in the file's own style.

Everything outside the inserted text stays byte-identical. The new text copies its neighbours:
the separator between elements (``,\\n    `` or ``, ``), the indentation unit and depth of a
pretty-printed element, ``": "`` vs ``":"``, CRLF line ends, and whether non-ASCII text is
escaped. In a pretty-printed document ``git diff`` then shows the inserted lines and, at most, a
comma added to the line before an insertion at the end of a list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from patchcore.jsonspan import ArraySpan, array_span, members, value_end, value_start
from patchcore.model import Delete, Edit, Insert, Pointer, Verbatim

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
        marked = _mark(value, parts)
        try:
            text = self._dump(marked, ensure_ascii=self.ensure_ascii)
        except UnicodeEncodeError:  # a lone surrogate cannot be written raw
            text = self._dump(marked, ensure_ascii=True)
        for number, pointer in enumerate(parts):
            assert raw is not None, "a Verbatim part needs the original bytes"
            text = text.replace(json.dumps(_sentinel(number)).encode("ascii"), raw(pointer), 1)
        return text

    def _dump(self, value: Any, *, ensure_ascii: bool) -> bytes:
        if self.indent is None:
            text = json.dumps(
                value,
                separators=(self.item_separator, self.key_separator),
                ensure_ascii=ensure_ascii,
            )
        else:
            text = json.dumps(
                value,
                indent=self.indent,
                separators=(",", self.key_separator),
                ensure_ascii=ensure_ascii,
            ).replace("\n", self.newline + self.margin)
        return text.encode("utf-8")


def _sentinel(number: int) -> str:
    return f"\x00verbatim-{number}\x00"


def _mark(value: Any, parts: list[Pointer]) -> Any:
    """``value`` with each `Verbatim` swapped for a sentinel string (recorded in ``parts``)."""
    if isinstance(value, Verbatim):
        parts.append(value.pointer)
        return _sentinel(len(parts) - 1)
    if isinstance(value, list):
        return [_mark(v, parts) for v in value]
    if isinstance(value, dict):
        return {k: _mark(v, parts) for k, v in value.items()}
    return value


def element_style(buf: bytes, start: int, end: int, *, ensure_ascii: bool) -> Style:
    """Learn the style of the element ``buf[start:end]`` (a neighbour of the new element)."""
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

    line_start = buf.rfind(b"\n", 0, start) + 1
    own_line = buf[line_start:start]
    margin = own_line[: len(own_line) - len(own_line.lstrip(b" \t"))]
    newline = "\r\n" if b"\r\n" in raw or buf[line_start - 2 : line_start] == b"\r\n" else "\n"
    indent = None
    if b"\n" in raw:
        after = raw[raw.index(b"\n") + 1 :]
        inner = after[: len(after) - len(after.lstrip(b" \t"))]
        unit = inner[len(margin) :] if inner.startswith(margin) else b""
        indent = (unit or b"  ").decode("ascii")
    return Style(
        key_separator=key_separator,
        item_separator=item_separator,
        indent=indent,
        margin=margin.decode("ascii"),
        newline=newline,
        ensure_ascii=ensure_ascii,
    )


def _separator(buf: bytes, span: ArraySpan, index: int, style: Style) -> bytes:
    """The bytes between two elements, copied from the array (or made up for one element)."""
    elements = span.elements
    if len(elements) >= 2:
        left = min(max(index - 1, 0), len(elements) - 2)
        return buf[elements[left][1] : elements[left + 1][0]]
    lead = buf[span.start + 1 : elements[0][0]]
    if b"\n" in lead:
        return b"," + lead
    return style.item_separator.encode("ascii")


def _insertion(
    buf: bytes,
    span: ArraySpan,
    index: int,
    values: Sequence[Any],
    *,
    ensure_ascii: bool,
    raw: Raw,
) -> tuple[int, bytes]:
    """Where and what to insert so that ``values`` become elements ``index, index+1, ...``."""
    elements = span.elements
    if not elements:
        style = Style(": ", ", ", None, "", "\n", ensure_ascii)
        return span.start + 1, b", ".join(style.render(v, raw) for v in values)
    reference = elements[index - 1] if index > 0 else elements[0]
    style = element_style(buf, *reference, ensure_ascii=ensure_ascii)
    separator = _separator(buf, span, index, style)
    body = separator.join(style.render(v, raw) for v in values)
    if index < len(elements):
        return elements[index][0], body + separator
    return elements[-1][1], separator + body


def _line_margin(buf: bytes, position: int) -> str:
    """Leading whitespace of the line that holds ``position``."""
    line_start = buf.rfind(b"\n", 0, position) + 1
    line = buf[line_start:position]
    return line[: len(line) - len(line.lstrip(b" \t"))].decode("ascii")


def _deletions(spans: Sequence[tuple[int, int]], doomed: set[int]) -> list[tuple[int, int]]:
    """Byte ranges that remove the ``doomed`` items of a list of item spans, with separators.

    Each run of removed items goes with the separator after it, or, for a run that ends the
    list, with the separator before it; so the remaining items stay well separated.
    """
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


def splice(buf: bytes, edits: Sequence[Edit]) -> bytes:
    """Return ``buf`` with ``edits`` applied; nothing outside the edited places changes.

    Edit pointers and indexes refer to the original ``buf``, so edits in nested arrays and in
    their parents can be combined freely (a replaced or deleted value must not also hold an
    edit, and an array must not lose every element while it gains new ones).
    """
    ensure_ascii = buf.isascii()

    def raw(pointer: Pointer) -> bytes:
        start = value_start(buf, pointer)
        return buf[start : value_end(buf, start)]

    grouped: dict[tuple[Pointer, int], list[Any]] = {}
    doomed: dict[Pointer, set[Any]] = {}
    # (start, rank, end, text): at one position, insertions go before deletions.
    patches: list[tuple[int, int, int, bytes]] = []
    for edit in edits:
        if isinstance(edit, Insert):
            grouped.setdefault((edit.array, edit.index), []).extend(edit.values)
        elif isinstance(edit, Delete):
            doomed.setdefault(edit.pointer[:-1], set()).add(edit.pointer[-1])
        else:
            start = value_start(buf, edit.pointer)
            parent = value_start(buf, edit.pointer[:-1])
            style = element_style(buf, parent, value_end(buf, parent), ensure_ascii=ensure_ascii)
            style = replace(style, margin=_line_margin(buf, start))
            text = style.render(edit.value, raw)
            patches.append((start, 1, value_end(buf, start), text))
    spans: dict[Pointer, ArraySpan] = {}
    for (pointer, index), values in grouped.items():
        if pointer not in spans:
            spans[pointer] = array_span(buf, value_start(buf, pointer))
        position, text = _insertion(
            buf, spans[pointer], index, values, ensure_ascii=ensure_ascii, raw=raw
        )
        patches.append((position, 0, position, text))
    for pointer, keys in doomed.items():
        start = value_start(buf, pointer)
        if buf[start : start + 1] == b"{":
            found = members(buf, start)
            items = [(m.start, m.end) for m in found]
            chosen = {k for k, m in enumerate(found) if m.key in keys}
        else:
            items = list(array_span(buf, start).elements)
            chosen = set(keys)
            assert not (
                chosen >= set(range(len(items))) and any(p == pointer for p, _ in grouped)
            ), "an array cannot lose every element and gain new ones in one splice"
        patches += [(a, 1, b, b"") for a, b in _deletions(items, chosen)]
    patches.sort()
    out = []
    cursor = 0
    for start, _, end, text in patches:
        out.append(buf[cursor:start])
        out.append(text)
        cursor = max(cursor, end)
    out.append(buf[cursor:])
    return b"".join(out)
