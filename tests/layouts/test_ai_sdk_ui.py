"""Vercel AI SDK ``UIMessage`` lists (docs/formats.md#vercel-ai-sdk-uimessage): a tool part
carries its own state and result, and the repair records the failure in the part, as the SDK's
``addToolOutput`` records a tool that failed."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import TP001_TEXT, text
from tests.provider_rules import ai_sdk_ui

USER = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Weather?"}]}
LATER = {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Hello?"}]}


def tool_part(state: str, **fields: Any) -> dict[str, Any]:
    part = {"type": "tool-getWeather", "toolCallId": "call-1", "state": state, "input": {}}
    return {**part, **fields}


def chat(*parts: dict[str, Any], then: tuple[dict[str, Any], ...] = (LATER,)) -> bytes:
    assistant = {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}, *parts]}
    return json.dumps([USER, assistant, *then]).encode()


@pytest.mark.parametrize(
    ("part", "findings"),
    [
        (tool_part("input-available"), [("TP001", "call-1")]),
        (tool_part("output-available", output="sunny"), []),
        (tool_part("output-error", errorText="boom"), []),
        (tool_part("output-denied", approval={"id": "a", "approved": False}), []),
        (tool_part("approval-responded", approval={"id": "a", "approved": True}), []),
        (tool_part("input-streaming"), []),  # never sent: convertToModelMessages leaves it out
        (tool_part("input-available", providerExecuted=True), []),  # the provider's own
        (tool_part("approval-requested", approval={"id": "a"}), [("TP001", "call-1")]),
        (tool_part("some-future-state"), [("TP001", "call-1")]),
    ],
    ids=lambda value: value["state"] if isinstance(value, dict) else None,
)
def test_each_state_is_read_as_the_sdk_sends_it(
    part: dict[str, Any], findings: list[tuple[str, str]]
) -> None:
    data = chat(part)
    report = patchcore.check_document(data, filename="chat.json")
    assert [c.dialect for c in report.conversations] == ["ai-sdk-ui"]
    assert found(report.findings) == findings
    if part["state"] not in ("approval-requested", "some-future-state"):  # refused by the SDK
        assert bool(ai_sdk_ui(json.loads(data))) == bool(findings)


def test_the_repair_is_what_add_tool_output_records_for_a_failed_tool() -> None:
    report = patchcore.fix_document(chat(tool_part("input-available")), filename="chat.json")
    assert report.output is not None
    part = json.loads(report.output)[1]["parts"][1]
    assert part == {
        "type": "tool-getWeather",
        "toolCallId": "call-1",
        "state": "output-error",
        "input": {},
        "errorText": text(TP001_TEXT, "getWeather", "call-1"),
    }
    assert not ai_sdk_ui(json.loads(report.output))


@pytest.mark.parametrize("state", ["approval-requested", "some-future-state"])
def test_a_part_awaiting_approval_or_of_an_unknown_state_is_never_answered(state: str) -> None:
    report = patchcore.fix_document(chat(tool_part(state, approval={"id": "a"})), filename="c.json")
    assert report.output is None
    assert found(report.remaining) == [("TP001", "call-1")]


def test_a_dynamic_tool_is_named_by_its_tool_name() -> None:
    part = {**tool_part("input-available"), "type": "dynamic-tool", "toolName": "lookup"}
    report = patchcore.check_document(chat(part), filename="chat.json")
    assert [f.tool_name for f in report.findings] == ["lookup"]


def test_ai_sdk_4_answers_both_copies_of_an_invocation() -> None:
    invocation = {"state": "call", "toolCallId": "c1", "toolName": "getWeather", "args": {}}
    assistant = {
        "id": "a1",
        "role": "assistant",
        "content": "",
        "toolInvocations": [invocation],
        "parts": [{"type": "tool-invocation", "toolInvocation": invocation}],
    }
    data = json.dumps([USER, assistant, LATER]).encode()
    report = patchcore.fix_document(data, filename="chat.json")
    assert report.output is not None
    repaired = json.loads(report.output)[1]
    answered = {**invocation, "state": "result", "result": text(TP001_TEXT, "getWeather", "c1")}
    assert repaired["toolInvocations"] == [answered]
    assert repaired["parts"] == [{"type": "tool-invocation", "toolInvocation": answered}]


def test_an_ai_sdk_4_message_without_parts_is_read() -> None:
    """Before AI SDK 4.2 a message had ``content`` and ``toolInvocations`` only: such a list was
    read as OpenAI Chat messages, whose calls it has none of."""
    assistant = {
        "id": "a1",
        "role": "assistant",
        "content": "",
        "toolInvocations": [{"state": "call", "toolCallId": "c1", "toolName": "t", "args": {}}],
    }
    user = {"id": "u1", "role": "user", "content": "Go"}
    report = patchcore.check_document(json.dumps([user, assistant]).encode(), filename="c.json")
    assert found(report.findings) == [("TP002", "c1")]


def test_a_corpus_line_of_ui_messages_is_not_taken_for_openai_chat() -> None:
    """The quick lane read a record's ``messages`` as OpenAI Chat when every message had a
    role, passing over ``parts``: a UIMessage chat with an open call was "clean"."""
    line = json.loads(chat(tool_part("input-available")))
    data = b"".join(json.dumps({"id": n, "messages": line}).encode() + b"\n" for n in range(3))
    report = patchcore.check_document(data, filename="chats.jsonl")
    assert found(report.findings) == [("TP001", "call-1")] * 3


def test_a_message_with_a_part_of_an_unknown_type_is_not_read_as_another_dialect() -> None:
    """A part type the SDK does not write (a tool part renamed, say) is no UIMessage's, and
    OpenAI Chat, which reads any message with a role, passed over its ``parts``: the call in
    it went unread and the list was "clean". Now nothing reads the list, and its call-like part
    is reported unread (TP004, docs/rules.md#unread-tool-call-tp004)."""
    renamed = {**tool_part("input-available"), "type": "toolx_getWeather"}
    report = patchcore.check_document(chat(renamed), filename="chat.json")
    assert [c.dialect for c in report.conversations] == [None]
    assert [f.code for f in report.findings] == ["TP004"]


def test_an_ai_sdk_4_copy_that_says_something_else_is_kept() -> None:
    """The ``toolInvocations`` copy of an open invocation is answered with it only while it
    too waits for its result: a copy whose state says anything else (here, none) is kept."""
    invocation = {"state": "call", "toolCallId": "c1", "toolName": "getWeather", "args": {}}
    assistant = {
        "id": "a1",
        "role": "assistant",
        "content": "",
        "toolInvocations": [{**invocation, "state": None}],
        "parts": [{"type": "tool-invocation", "toolInvocation": invocation}],
    }
    report = patchcore.fix_document(json.dumps([USER, assistant, LATER]).encode(), filename="c")
    assert report.output is not None
    repaired = json.loads(report.output)[1]
    assert repaired["toolInvocations"] == [{**invocation, "state": None}]
    assert repaired["parts"][0]["toolInvocation"]["state"] == "result"


@pytest.mark.parametrize("state", [[], {"x": 1}], ids=["list", "object"])
def test_a_state_that_is_no_string_is_a_state_the_sdk_does_not_write(state: Any) -> None:
    """A ``state`` of another JSON type failed the lookup among the known states (TypeError,
    found by the corruption properties): like any state the SDK does not write, its call is
    reported and never answered, in a tool part and in an AI SDK 4 invocation; a copy in
    ``toolInvocations`` with such a state is kept as it is."""
    part = chat({**tool_part("input-available"), "state": state})
    invocation = {"state": "call", "toolCallId": "c1", "toolName": "getWeather", "args": {}}
    odd = {**invocation, "state": state}
    v4 = {"id": "a1", "role": "assistant", "content": "", "toolInvocations": [odd]}
    for data, call in ((part, "call-1"), (json.dumps([USER, v4, LATER]).encode(), "c1")):
        report = patchcore.fix_document(data, filename="c.json")
        assert report.output is None
        assert found(report.remaining) == [("TP001", call)]
    copied = {**v4, "parts": [{"type": "tool-invocation", "toolInvocation": invocation}]}
    report = patchcore.fix_document(json.dumps([USER, copied, LATER]).encode(), filename="c")
    assert report.output is not None
    repaired = json.loads(report.output)[1]
    assert repaired["toolInvocations"] == [odd]
    assert repaired["parts"][0]["toolInvocation"]["state"] == "result"
