"""Objects that look like tool calls or results and that the reading chosen for a record does
not pair: what rule TP004 (``unread-tool-call``) reports
(docs/formats.md#what-is-read-and-what-is-said-unread).

A reading is chosen on positive evidence: a dialect's own markers in every element of a list, a
layout's first entry. What none of them reads could still be a history in a format toolpatch
was not taught (an agent's event log, a trace), and its calls would pass as answered. So the
objects that *look like* calls or results are counted wherever the reading does not pair them:

* outside every message list of the record (the locator's walk, `patchcore.engine.locate`,
  asks each object it passes; this module adds no pass of its own);
* in a checked list of any layout, a message or item in which its dialect reads no call and no
  result (an item of a type it does not know, calls under a key it does not read): one per
  message (`patchcore.engine.check`, with `held`);
* a result whose call no message of its list holds (`patchcore.engine.check`: TP101's
  orphan, said as TP004 where TP101 is not selected).

A message the list's dialect reads calls or results in is read as that dialect reads it; the
lists the locator knows to be copies of a history held elsewhere, or alternatives
(``choices``, ``generations``), and a list that mixes dialects (said in a warning) are not
counted.

Whether an object looks like a call or a result is decided from its own keys only (no walk
inside it), so asking costs a set test per object.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from patchcore.chat_names import (
    ID_KEYS,
    LIST_KEYS,
    OBJECT_KEYS,
    call_type,
)
from patchcore.model import Finding, Pointer, format_pointer

_KEYS = ID_KEYS | LIST_KEYS | OBJECT_KEYS


def call_like(node: Mapping[str, Any]) -> str | None:
    """What makes ``node`` look like a tool call or result (``"type 'tool_use'"``, ``"key
    'call_id'"``), or ``None`` when nothing does: a ``type`` of a call or result, or one of the
    keys that name, hold or are one, with a value that is not empty (``tool_calls: []`` and
    ``function_call: null`` hold no call). A type of that family that names a setting or a
    versioned tool definition is none (`patchcore.chat_names.call_type`)."""
    kind = node.get("type")
    if isinstance(kind, str) and call_type(kind):
        return f"type {kind!r}"
    if _KEYS.isdisjoint(node):
        return None
    for key in sorted(_KEYS.intersection(node)):
        value = node[key]
        if (
            (key in ID_KEYS and isinstance(value, str) and value)
            or (key in LIST_KEYS and isinstance(value, list) and value)
            or (key in OBJECT_KEYS and isinstance(value, dict))
        ):
            return f"key {key!r}"
    return None


def held(value: Any, pointer: Pointer) -> Iterator[tuple[Pointer, str]]:
    """The call-like objects of an element the reading does not read: the element itself, or
    else its members and the elements of its list members (a message's blocks or parts), each
    with its pointer and what makes it look so."""
    if not isinstance(value, dict):
        return
    what = call_like(value)
    if what is not None:
        yield pointer, what
        return
    for key, member in value.items():
        inner = member if isinstance(member, list) else [member]
        for index, part in enumerate(inner):
            what = call_like(part) if isinstance(part, dict) else None
            if what is not None:
                where = (*pointer, key, index) if member is inner else (*pointer, key)
                yield where, what


def finding(
    found: tuple[tuple[Pointer, str], ...], *, line: int | None, column: int | None
) -> Finding:
    """The TP004 finding of a record's unread call-like objects ``found`` (in document order):
    how many, and the first, where it is located."""
    from patchcore.rules import RULES

    first, what = found[0]
    count = len(found)
    if count == 1:
        message = (
            f"an object looks like a tool call or result ({what}), and no reading of this "
            "input pairs it: a call it holds may be unanswered"
        )
    else:
        message = (
            f"{count} objects look like tool calls or results, and no reading of this input "
            f"pairs them (the first: {what}, at {format_pointer(first) or '/'}): a call they "
            "hold may be unanswered"
        )
    rule = RULES[UNREAD]
    return Finding(
        code=UNREAD,
        rule=rule.name,
        message=message,
        dialect="",
        list_pointer=(),
        message_index=0,
        message_path=first,
        call_path=(),
        call_id=None,
        tool_name=None,
        fix=None,
        line=line,
        column=column,
    )


#: The rule's code.
UNREAD = "TP004"
