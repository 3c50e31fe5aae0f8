"""Containers that hold more than a history: which list is the history, which lists only copy
it, which lists take no new message, and which elements of a list of wrappers hold none.

The samples (``openai-responses/agents-sdk-run-state.json``, ``stored-response.json``) and the
corpus run state show the whole files; these pin the rules one at a time.
"""

from __future__ import annotations

from typing import Any

import patchcore

AGENT = {"name": "agent"}


def call(call_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "approve_refund",
        "arguments": "{}",
    }


def output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "done"}


def item(kind: str, raw: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "raw_item": raw, "agent": AGENT}


def run_state(*items: dict[str, Any]) -> dict[str, Any]:
    """An Agents SDK run state whose history is ``items`` (copied where the SDK copies them)."""
    return {
        "$schemaVersion": "1.13",
        "original_input": "Refund order 7.",
        "model_responses": [{"usage": {}, "output": [i["raw_item"] for i in items[:1]]}],
        "generated_items": list(items),
        "session_items": list(items),
        "last_model_response": {"usage": {}, "output": [i["raw_item"] for i in items[:1]]},
    }


def test_an_approved_and_answered_call_is_clean() -> None:
    """The approval item is no second call: once the call has its output, nothing is left."""
    state = run_state(
        item("tool_call_item", call("c1")),
        item("tool_approval_item", call("c1")),
        item("tool_call_output_item", output("c1")),
    )
    assert not patchcore.check_data(state, options=patchcore.make_options(select=["ALL"]))


def test_a_pending_call_without_an_approval_is_pending_but_cannot_be_answered_here() -> None:
    """Without an approval item the call is an ordinary pending call; an item still cannot be
    added to the run state."""
    (finding,) = patchcore.check_data(
        run_state(
            item("tool_call_item", call("c1")),
            item("tool_call_item", call("c2")),
            item("tool_call_output_item", output("c2")),
        )
    )
    assert (finding.code, finding.call_id, finding.fix) == ("TP002", "c1", None)
    assert "awaits an approval" not in finding.message
    assert "run state takes no new item" in finding.message


def test_a_stored_response_output_is_never_written_into() -> None:
    response = {"id": "resp_1", "object": "response", "output": [call("c1")]}
    repaired = patchcore.fix_data(response)
    assert repaired.value == response
    assert [(f.code, f.fix) for f in repaired.findings] == [("TP002", None)]


def test_an_element_without_a_message_does_not_make_a_call_dangle() -> None:
    """An ADK event without content (a state change) after the last call: the call is still
    the last turn's (TP002), not one the history went on after (TP001)."""
    session = {
        "events": [
            {"author": "user", "content": {"role": "user", "parts": [{"text": "Time?"}]}},
            {
                "author": "agent",
                "content": {"role": "model", "parts": [{"function_call": {"name": "now"}}]},
            },
            {"author": "agent", "actions": {"state_delta": {"asked": True}}},
        ]
    }
    assert [f.code for f in patchcore.check_data(session)] == ["TP002"]


def test_a_response_goes_past_an_event_without_content_into_the_user_event() -> None:
    """ADK builds the model's contents from the events that have content: the user event after
    a state-only event is the turn right after the call, and takes its response."""
    session = {
        "events": [
            {
                "author": "agent",
                "content": {"role": "model", "parts": [{"function_call": {"name": "now"}}]},
            },
            {"author": "agent", "actions": {"state_delta": {"asked": True}}},
            {"author": "user", "content": {"role": "user", "parts": [{"text": "Never mind."}]}},
        ]
    }
    repaired = patchcore.fix_data(session, options=patchcore.make_options(select=["ALL"]))
    assert [(f.code, f.fix is not None) for f in repaired.findings] == [("TP001", True)]
    parts = repaired.value["events"][2]["content"]["parts"]
    assert [next(iter(part)) for part in parts] == ["function_response", "text"]
    assert not patchcore.check_data(repaired.value, options=patchcore.make_options(select=["ALL"]))
