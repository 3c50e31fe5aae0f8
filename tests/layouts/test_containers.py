"""Containers that hold more than a history: which list is the history, which lists only copy
it, which lists take no new message, and which elements of a list of wrappers hold none.

The samples (``openai-responses/agents-sdk-run-state.json``, ``stored-response.json``) and the
corpus run state show the whole files; these pin the rules one at a time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import openai_user as user
from tests.helpers import checked_and_copies

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


# --- Items of types toolpatch does not know (OpenAI Responses) ---------------------------------

ALL = patchcore.make_options(select=["ALL"])


def program(call_id: str) -> dict[str, Any]:
    return {"type": "program", "call_id": call_id, "code": "x()", "id": f"p_{call_id}"}


def program_output(call_id: str) -> dict[str, Any]:
    return {"type": "program_output", "call_id": call_id, "result": "done", "id": f"po_{call_id}"}


def test_unknown_items_do_not_hide_the_calls_beside_them() -> None:
    """A request with programmatic tool calling items: the unanswered function_call is found
    and answered, the unknown items are kept as they are, and the report warns of them."""
    request = {
        "input": [
            user("check stock"),
            {"type": "function_call", "call_id": "call_A", "name": "getDemand", "arguments": "{}"},
            program("call_P"),
            program_output("call_P"),
            user("and now?"),
        ]
    }
    report = patchcore.fix_document(json.dumps(request).encode(), options=ALL)
    assert [(f.code, f.call_id, f.fix is not None) for f in report.findings] == [
        ("TP001", "call_A", True)
    ]
    (checked, warning) = report.conversations
    assert (checked.dialect, checked.note, checked.message_count) == ("openai-responses", None, 5)
    assert warning.warning and warning.pointer == "/input"
    assert "program, program_output" in (warning.note or "")
    assert report.output is not None
    items = json.loads(report.output)["input"]
    assert items[2:4] == request["input"][2:4]
    assert [i.get("type") for i in items] == [
        None,
        "function_call",
        "program",
        "program_output",
        "function_call_output",
        None,
    ]


def test_an_unknown_call_pairs_with_its_output_and_is_never_answered() -> None:
    """An unknown item with a call_id is a call of an unknown kind: its ``*_output`` answers it
    (no orphan), and without one it is reported but gets no made-up output."""
    answered = [call("c1"), output("c1")]
    assert not patchcore.check_messages(
        [user("go"), *answered, program("call_P"), program_output("call_P")], options=ALL
    )
    messages = [user("go"), *answered, program("call_P"), user("well?")]
    repair = patchcore.fix_messages(messages, options=ALL)
    ((code, fix),) = [(f.code, f.fix) for f in repair.findings]
    assert (code, fix) == ("TP001", None)
    assert "type toolpatch does not know" in repair.findings[0].message
    assert repair.value == messages


def test_unknown_items_never_make_another_format_read_as_responses() -> None:
    """Only items beside Responses markers are tolerated, and never one another dialect reads:
    a LangChain message beside Responses items is no Responses history, and unknown items
    alone are no history at all: what in them looks like a call is said unread (TP004)."""
    lc = {"type": "human", "data": {"content": "hi"}}
    for unread in (
        {"messages": [lc, call("c1"), program("p")]},
        {"messages": [user("hi"), call("c1"), {"type": "ai", "id": "m"}]},
        {"items": [program("p"), program_output("p")]},
    ):
        (finding,) = patchcore.check_data(unread)
        assert finding.code == "TP004" and finding.dialect == "", finding
    with pytest.raises(patchcore.NoHistoryError):
        patchcore.check_data({"type": "config", "id": "c1"})


# --- Agents SDK run states of any size ---------------------------------------------------------


@pytest.mark.parametrize(
    "lone",
    [
        item(
            "tool_call_item",
            {"type": "custom_tool_call", "call_id": "c9", "name": "grep", "input": "x"},
        ),
        item("tool_call_output_item", output("c1")),
    ],
    ids=["call", "output"],
)
def test_a_run_state_with_one_generated_item_is_read(lone: dict[str, Any]) -> None:
    """One run item is as much a history as two: the lone call is pending, the lone output an
    orphan (what the same state with a second item says)."""
    findings = patchcore.check_data(run_state(lone), options=ALL)
    expected = "TP002" if lone["type"] == "tool_call_item" else "TP101"
    assert [(f.code, f.fix, f.list_pointer) for f in findings] == [
        (expected, None, ("generated_items",))
    ]


# --- The JavaScript Agents SDK (openai/openai-agents-js) ---------------------------------------


def js_call(call_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "callId": call_id,
        "name": "approve_refund",
        "status": "completed",
        "arguments": "{}",
    }


def js_result(call_id: str) -> dict[str, Any]:
    return {
        "type": "function_call_result",
        "name": "approve_refund",
        "callId": call_id,
        "status": "completed",
        "output": {"type": "text", "text": "done"},
    }


def js_item(kind: str, raw: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "rawItem": raw, "agent": AGENT}


def js_run_state(*items: dict[str, Any]) -> dict[str, Any]:
    """A RunState.toJSON of the JavaScript SDK whose history is ``items``."""
    raws = [i["rawItem"] for i in items]
    return {
        "$schemaVersion": "1.20",
        "currentTurn": 1,
        "originalInput": "Refund order 7.",
        "modelResponses": [{"usage": {}, "output": raws[:1], "responseId": "resp_1"}],
        "lastModelResponse": {"usage": {}, "output": raws[:1], "responseId": "resp_1"},
        "generatedItems": list(items),
        "lastProcessedResponse": {"newItems": list(items)},
        "pendingAgentToolRuns": {},
    }


def test_a_js_run_state_paused_on_an_approval_reports_the_call_once() -> None:
    """The approval item is no second call; the call awaits the decision: pending, never
    answered, nothing written into the state; the copies are listed, not checked."""
    state = js_run_state(
        js_item("tool_call_item", js_call("c1")), js_item("tool_approval_item", js_call("c1"))
    )
    report = patchcore.fix_document(json.dumps(state).encode(), options=ALL)
    ((finding),) = report.findings
    assert (finding.code, finding.call_id, finding.fix, finding.dialect) == (
        "TP002",
        "c1",
        None,
        "openai-agents-js",
    )
    assert "awaits an approval decision" in finding.message
    assert report.output is None
    assert checked_and_copies(report) == (
        [("/generatedItems", 1)],
        {
            "/modelResponses/0/output",
            "/lastModelResponse/output",
            "/lastProcessedResponse/newItems",
        },
    )


def test_a_js_run_state_whose_result_was_deleted_reports_it() -> None:
    """The call's id is in ``callId`` (no TP105); its deleted result is found, and cannot be
    added to the state."""
    state = js_run_state(
        js_item("tool_call_item", js_call("c1")),
        js_item("tool_call_item", js_call("c2")),
        js_item("tool_call_output_item", js_result("c2")),
    )
    findings = patchcore.check_data(state, options=ALL)
    assert [(f.code, f.call_id, f.fix) for f in findings] == [("TP002", "c1", None)]
    assert "run state takes no new item" in findings[0].message


def test_a_call_whose_tool_runs_a_paused_agent_awaits_its_approval() -> None:
    """``pendingAgentToolRuns["<tool>:<callId>"]``: the agent the call runs is paused on an
    approval; the call is pending, not answered (its result comes when the run resumes)."""
    state = js_run_state(js_item("tool_call_item", js_call("outer")))
    state["pendingAgentToolRuns"] = {"approve_refund:outer": "{}"}
    ((finding),) = patchcore.check_data(state, options=ALL)
    assert (finding.code, finding.fix) == ("TP002", None)
    assert "awaits an approval decision" in finding.message


def test_js_input_items_are_answered_in_their_own_spelling() -> None:
    repair = patchcore.fix_messages([user("Refund order 7."), js_call("c1"), user("Well?")])
    assert [(f.code, f.dialect) for f in repair.findings] == [("TP001", "openai-agents-js")]
    assert repair.value[2] == {
        "type": "function_call_result",
        "name": "approve_refund",
        "callId": "c1",
        "status": "completed",
        "output": {"type": "text", "text": repair.value[2]["output"]["text"]},
    }
    assert not patchcore.check_messages(repair.value, options=ALL)


def test_api_spelled_items_are_not_read_as_js() -> None:
    """``call_id`` items are the Responses API's, whatever a JavaScript SDK item beside them."""
    findings = patchcore.check_messages([user("go"), call("c1")])
    assert [f.dialect for f in findings] == ["openai-responses"]


def test_js_messages_with_the_sdks_own_parts_are_read() -> None:
    """The JavaScript SDK's messages may hold ``audio`` and ``image`` parts, which the API's do
    not (docs/formats.md#openai-agents-sdk-javascript)."""
    spoken = {"role": "user", "content": [{"type": "audio", "audio": "UklGR..."}]}
    findings = patchcore.check_messages([spoken, js_call("c1"), user("Well?")])
    assert [(f.code, f.dialect) for f in findings] == [("TP001", "openai-agents-js")]
