"""Warnings and input errors as JSON objects, beside the findings and fixes of
`patchcore.finding_record` (their wire form, with the model types it writes), shared by the
JSON, JSON Lines and SARIF reports so that every format says the same thing in the same words;
and the JSON text they are written as, a document's one long array item by item
(`StreamedArray`).
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

from ..input_errors import InputError
from .base import InputWarning

#: What ``json.dumps`` leaves raw but a terminal obeys: DEL and the C1 controls (CSI, OSC, ...).
_RAW_CONTROLS = re.compile("[\x7f-\x9f]")


def json_text(value: Any, *, indent: int | None = None) -> str:
    """A report as JSON text: readable UTF-8, with every control character escaped (``json``
    escapes C0; DEL and C1 are escaped here), so the values stay exact and a report shown on a
    terminal cannot drive it (lone surrogates: `Reporter.write`)."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _RAW_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class StreamedArray:
    """The text of a JSON document (indented by 2) whose one long array is written an item at
    a time, so that a report holds one item, never the whole array or its text
    (docs/cli.md#reports): `head`, then `item` for each item, then `tail` are
    together the bytes of `json_text` over the whole document.

    ``document`` holds the array as ``[StreamedArray.PLACE]``.
    """

    #: Where the document holds the streamed array: the one item of its list, a string no value
    #: of an input can be (it is drawn afresh for each run).
    PLACE = f"streamed array {secrets.token_hex(16)}"

    def __init__(self, document: Any) -> None:
        text = json_text(document, indent=2)
        marker = json_text(self.PLACE)
        at = text.index(marker)
        before, self._after = text[:at], text[at + len(marker) :]
        self._open = before.rstrip(" ").removesuffix("\n")  # up to and with the array's "["
        self._item_break = before[len(self._open) :]  # a line break, then the items' indent

    def head(self) -> str:
        """The document up to its array's ``[``."""
        return self._open

    def item(self, value: Any, *, first: bool) -> str:
        """One item of the array, after a comma unless it is the ``first``. JSON strings escape
        their line breaks: each line break of the item's text is one of its layout."""
        text = json_text(value, indent=2).replace("\n", self._item_break)
        return ("" if first else ",") + self._item_break + text

    def tail(self, *, empty: bool) -> str:
        """The document after the array's last item (after its ``[``: ``]``, if it is ``empty``)."""
        return self._after[self._after.index("]") :] if empty else self._after


def warning_record(warning: InputWarning) -> dict[str, Any]:
    """A part of an input that was not checked (its column, where not known: ``null``), or a
    hint about the whole file (its line too)."""
    return {
        "kind": "warning",
        "file": warning.file,
        "line": warning.line,
        "column": warning.column,
        "message": warning.message,
        "pointer": warning.pointer,
    }


def error_record(error: InputError) -> dict[str, Any]:
    """An input that could not be evaluated: its location as far as known (``null`` where
    not), the pointer of the offending value included."""
    return {
        "kind": "error",
        "file": error.file,
        "line": error.line,
        "column": error.column,
        "message": error.message,
        "pointer": error.pointer,
    }
