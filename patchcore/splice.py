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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from patchcore.jsonspan import ArraySpan, array_span, value_start
from patchcore.model import Edit, Pointer

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

    def render(self, value: Any) -> bytes:
        """Serialise ``value`` in this style."""
        try:
            return self._dump(value, ensure_ascii=self.ensure_ascii)
        except UnicodeEncodeError:  # a lone surrogate cannot be written raw
            return self._dump(value, ensure_ascii=True)

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
    buf: bytes, span: ArraySpan, index: int, values: Sequence[Any], *, ensure_ascii: bool
) -> tuple[int, bytes]:
    """Where and what to insert so that ``values`` become elements ``index, index+1, ...``."""
    elements = span.elements
    if not elements:
        style = Style(": ", ", ", None, "", "\n", ensure_ascii)
        return span.start + 1, b", ".join(style.render(v) for v in values)
    reference = elements[index - 1] if index > 0 else elements[0]
    style = element_style(buf, *reference, ensure_ascii=ensure_ascii)
    separator = _separator(buf, span, index, style)
    body = separator.join(style.render(v) for v in values)
    if index < len(elements):
        return elements[index][0], body + separator
    return elements[-1][1], separator + body


def splice(buf: bytes, edits: Sequence[Edit]) -> bytes:
    """Return ``buf`` with ``edits`` applied; nothing outside the insertions changes.

    Edit pointers and indexes refer to the original ``buf``, so edits in nested arrays and in
    their parents can be combined freely.
    """
    ensure_ascii = buf.isascii()
    grouped: dict[tuple[Pointer, int], list[Any]] = {}
    for edit in edits:
        grouped.setdefault((edit.array, edit.index), []).extend(edit.values)
    spans: dict[Pointer, ArraySpan] = {}
    patches: list[tuple[int, int, bytes]] = []
    for order, ((pointer, index), values) in enumerate(grouped.items()):
        if pointer not in spans:
            spans[pointer] = array_span(buf, value_start(buf, pointer))
        position, text = _insertion(buf, spans[pointer], index, values, ensure_ascii=ensure_ascii)
        patches.append((position, order, text))
    patches.sort()
    out = []
    cursor = 0
    for position, _, text in patches:
        out.append(buf[cursor:position])
        out.append(text)
        cursor = position
    out.append(buf[cursor:])
    return b"".join(out)
