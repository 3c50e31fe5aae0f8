"""Findings, their fixes, warnings and input errors as JSON objects, shared by the JSON, JSON
Lines and SARIF reports so that every format says the same thing in the same words.

Pointers are RFC 6901 JSON pointers into the record that holds the message list: the whole
document, or the JSON Lines line at ``line`` (for a file with one message per line, the whole
file, the first part being the message's index among its messages). A fix's edits are
patchcore's edits as they would be applied:

* ``{"op": "insert", "pointer": ARRAY, "index": N, "values": [...]}`` (the first value lands at
  index N of the original array);
* ``{"op": "replace", "pointer": P, "value": V}`` (a member its object lacks is added: JSON
  Patch's ``add``);
* ``{"op": "delete", "pointer": P}``.

Inside a value, ``{"$ref": "#/POINTER"}`` stands for the original value at that pointer, kept
byte for byte (a string ``content`` wrapped into a list of blocks).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from patchcore.model import Delete, Edit, Finding, Fix, Insert, Replace, Verbatim, format_pointer

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


def jsonable(value: Any) -> Any:
    """``value`` with every `Verbatim` as a ``$ref`` object and every tuple as a list; a number
    JSON cannot write (``NaN``, ``Infinity`` read from the input) becomes its name as a string, so
    the report stays valid JSON."""
    if isinstance(value, Verbatim):
        return {"$ref": "#" + format_pointer(value.pointer)}
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value).replace("inf", "Infinity").replace("nan", "NaN")
    return value


def edit_record(edit: Edit) -> dict[str, Any]:
    """One edit as a JSON object (see the module docstring)."""
    if isinstance(edit, Insert):
        return {
            "op": "insert",
            "pointer": format_pointer(edit.array),
            "index": edit.index,
            "values": jsonable(edit.values),
        }
    if isinstance(edit, Replace):
        return {
            "op": "replace",
            "pointer": format_pointer(edit.pointer),
            "value": jsonable(edit.value),
        }
    assert isinstance(edit, Delete)
    return {"op": "delete", "pointer": format_pointer(edit.pointer)}


def fix_record(fix: Fix | None) -> dict[str, Any] | None:
    """A finding's fix: applicability, what it does, and its edits; ``None`` when it has none."""
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "edits": [edit_record(edit) for edit in fix.edits],
    }


def finding_record(file: str, finding: Finding) -> dict[str, Any]:
    """One finding, ruff's JSON shape plus what a chat history adds (dialect, call id, tool)."""
    return {
        "kind": "finding",
        "code": finding.code,
        "name": finding.rule,
        "message": finding.message,
        "file": file,
        "line": finding.line,
        "column": finding.column,
        "pointer": format_pointer(finding.pointer),
        "list_pointer": format_pointer(finding.list_pointer),
        "message_index": finding.message_index,
        "dialect": finding.dialect,
        "call_id": finding.call_id,
        "tool_name": finding.tool_name,
        "provider_error": finding.provider_error,
        "fix": fix_record(finding.fix),
    }


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
