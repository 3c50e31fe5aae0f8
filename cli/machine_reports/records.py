"""Warnings and input errors as JSON objects, beside the findings and fixes of
`patchcore.finding_record` (their wire form, with the model types it writes), shared by the
JSON, JSON Lines and SARIF reports so that every format says the same thing in the same words.
"""

from __future__ import annotations

import json
import re
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
