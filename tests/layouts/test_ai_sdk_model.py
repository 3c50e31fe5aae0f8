"""Vercel AI SDK ``ModelMessage`` lists (docs/formats.md#vercel-ai-sdk-modelmessage): calls are
answered as the SDK's prompt check counts them, approvals included."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import TP002_TEXT, text
from tests.provider_rules import ai_sdk_model

USER = {"role": "user", "content": "Drop the old table."}


def call(ident: str = "c1", **fields: Any) -> dict[str, Any]:
    return {
        "type": "tool-call",
        "toolCallId": ident,
        "toolName": "dropTable",
        "input": {},
        **fields,
    }


def result(ident: str = "c1") -> dict[str, Any]:
    output = {"type": "json", "value": {"dropped": True}}
    return {"type": "tool-result", "toolCallId": ident, "toolName": "dropTable", "output": output}


REQUEST = {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"}
RESPONSE = {"type": "tool-approval-response", "approvalId": "a1", "approved": True}


def check(*messages: dict[str, Any]) -> patchcore.Report:
    return patchcore.check_document(json.dumps([USER, *messages]).encode(), filename="run.json")


@pytest.mark.parametrize(
    ("messages", "findings"),
    [
        ([{"role": "assistant", "content": [call()]}], [("TP002", "c1")]),
        ([{"role": "assistant", "content": [call()]}, {"role": "tool", "content": [result()]}], []),
        # the provider's own call: the SDK checks nothing of it
        ([{"role": "assistant", "content": [call(providerExecuted=True)]}], []),
        # an approved call the SDK runs on the next request, and the same once it ran
        (
            [
                {"role": "assistant", "content": [call(), REQUEST]},
                {"role": "tool", "content": [RESPONSE]},
            ],
            [],
        ),
        (
            [
                {"role": "assistant", "content": [call(), REQUEST]},
                {"role": "tool", "content": [RESPONSE, result()]},
            ],
            [],
        ),
        # an approval nobody gave yet
        ([{"role": "assistant", "content": [call(), REQUEST]}], [("TP002", "c1")]),
    ],
)
def test_calls_are_counted_as_the_sdk_counts_them(
    messages: list[dict[str, Any]], findings: list[tuple[str, str]]
) -> None:
    report = check(*messages)
    assert [c.dialect for c in report.conversations] == ["ai-sdk-model"]
    assert found(report.findings) == findings
    assert bool(ai_sdk_model([USER, *messages])) == bool(findings)


def test_a_call_awaiting_approval_is_never_answered() -> None:
    data = json.dumps([USER, {"role": "assistant", "content": [call(), REQUEST]}]).encode()
    report = patchcore.fix_document(data, filename="run.json")
    assert report.output is None
    assert found(report.remaining) == [("TP002", "c1")]


def test_the_repair_is_the_result_convert_to_model_messages_writes_for_a_failed_tool() -> None:
    data = json.dumps([USER, {"role": "assistant", "content": [call()]}]).encode()
    report = patchcore.fix_document(data, filename="run.json")
    assert report.output is not None
    repaired = json.loads(report.output)
    assert repaired[-1] == {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "dropTable",
                "output": {"type": "error-text", "value": text(TP002_TEXT, "dropTable", "c1")},
            }
        ],
    }
    assert not ai_sdk_model(repaired)


def test_an_openai_tool_message_is_not_read_as_a_model_message() -> None:
    messages = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [], "id": "x"},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    report = patchcore.check_document(json.dumps(messages).encode(), filename="chat.json")
    assert [c.dialect for c in report.conversations] == ["openai-chat"]
