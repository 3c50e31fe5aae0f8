"""The quick lane hands pairing calls whose id is their key: a message that issues one id twice
is told apart from a key that repeats by design as on the full path (the lane's call had no
``id``, and fixing such a LangChain history raised AttributeError; found by the corruption
properties, from a sample whose AI messages were duplicated)."""

from __future__ import annotations

import json
from typing import Any

import patchcore


def lc(kind: str, **data: Any) -> dict[str, Any]:
    fields = {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": kind}
    return {"type": kind, "data": {**fields, "name": None, **data}}


def ai(ident: str, *calls: str) -> dict[str, Any]:
    made = [{"name": "get_weather", "args": {}, "id": c, "type": "tool_call"} for c in calls]
    return lc("ai", id=ident, tool_calls=made, invalid_tool_calls=[], usage_metadata=None)


def tool(ident: str, answered: str) -> dict[str, Any]:
    return lc("tool", content="ok", id=ident, tool_call_id=answered, artifact=None)


def test_a_message_issuing_one_id_twice_is_fixed_through_the_quick_lane() -> None:
    history = [
        tool("t-0", "call_Old0"),
        lc("human", content="Weather in Rome?", id="h-1"),
        ai("run-1", "call_Rm1", "call_Rm1"),
        lc("human", content="And then Madrid.", id="h-2"),
        tool("t-1", "call_Rm1"),
        ai("run-2", "call_Md2", "call_Md2"),
        tool("t-2", "call_Md2"),
        tool("t-3", "call_Md2"),
        ai("run-3", "call_Tm3"),
        lc("human", content="Never mind the time.", id="h-3"),
    ]
    result = patchcore.fix_document(json.dumps(history).encode(), filename="combined.json")
    found = sorted((f.code, f.call_id) for f in result.findings)
    # and the first message, a result whose call is not in the history (TP004 by default)
    assert found == [("TP001", "call_Rm1"), ("TP001", "call_Tm3"), ("TP004", "call_Old0")]
    assert result.output is not None
