"""The JSON wire form of findings, fixes and edits: what the command line's JSON, JSON Lines and
SARIF reports hold, beside the model types it writes (`patchcore.model`), so that every report
says the same thing in the same words.

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

import math
from typing import Any

from patchcore.model import Delete, Edit, Finding, Fix, Insert, Replace, Verbatim, format_pointer


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
    """A finding's fix: applicability, what it does, where the result it writes comes from
    (``"recovered"``, ``"synthesized"``, or ``null`` for a fix that writes none), and its edits;
    ``None`` when it has none."""
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "origin": None if fix.origin is None else fix.origin.value,
        "edits": [edit_record(edit) for edit in fix.edits],
    }


def finding_record(finding: Finding, *, file: str) -> dict[str, Any]:
    """One finding of the input named ``file``: ruff's JSON shape plus what a chat history adds
    (dialect, call id, tool)."""
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
