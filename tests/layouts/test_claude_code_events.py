"""The lines Claude Code 2.1.332 writes besides its messages
(docs/formats.md#what-else-claude-code-writes): each is a known event, kept byte for byte and
never paired, so a session the current client wrote gets no warning; the copies of calls and
results in ``api-request-blob`` are never taken for the session's own; an ``attachment`` that
hung off the line of an unanswered call hangs off the new result line after `fix`.

The lines are modelled on a session Claude Code 2.1.332 wrote itself (the conformance test
`tests/conformance/test_claude_code_resume.py` runs it), cut to the keys that matter.
"""

from __future__ import annotations

import json
from typing import Any

import patchcore
from tests.builders import found
from tests.helpers import TP002_TEXT, text
from tests.session_logs import (
    CLAUDE_SESSION,
    SESSION_ID,
    cc_assistant,
    cc_user,
    compact_jsonl,
    line_uuid,
    tool_use,
)

NAME = "session.jsonl"
CALL = tool_use("toolu_Run1", "Bash", command="make test")


def _attachment(number: int, parent: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "parentUuid": line_uuid(parent),
        "isSidechain": False,
        "attachment": {"type": kind, **fields},
        "type": "attachment",
        "uuid": line_uuid(number),
        "timestamp": "2026-02-10T21:12:00.000Z",
        **{k: v for k, v in CLAUDE_SESSION.items() if k != "isSidechain"},
    }


def _session() -> list[dict[str, Any]]:
    """A prompt whose ``Bash`` call the run never answered, among 2.1.332's other lines."""
    reminder = "<system-reminder>\nToday's date is 2026-02-10.\n</system-reminder>"
    copied_call = {"role": "assistant", "content": [tool_use("toolu_Old", "Read", file_path="a")]}
    copied_result = {"type": "tool_result", "tool_use_id": "toolu_Old", "content": "text"}
    return [
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "sessionId": SESSION_ID,
            "content": "test it",
        },
        {"type": "queue-operation", "operation": "dequeue", "sessionId": SESSION_ID},
        cc_user(1, None, "test it"),
        {
            **_attachment(2, 1, "date", date="2026-02-10"),
            "rendered": [{"content": reminder}],
            "renderedRole": "system",
        },
        {"type": "atis-latch", "atis": "", "sessionId": SESSION_ID},
        {
            "type": "api-request-shape",
            "sessionId": SESSION_ID,
            "shapeHash": "31da",
            "shape": {
                "system": [{"type": "text", "text": "You are"}],
                "tools": [{"name": "Bash", "input_schema": {}}],
            },
        },
        {
            "type": "api-request-blob",
            "sessionId": SESSION_ID,
            "hash": "f11c",
            "message": copied_call,
        },
        {
            "type": "api-request-blob",
            "sessionId": SESSION_ID,
            "hash": "bef7",
            "message": {
                "role": "user",
                "content": [copied_result, {"type": "text", "text": reminder}],
            },
        },
        {
            "type": "api-request",
            "sessionId": SESSION_ID,
            "id": "6981a861",
            "params": {"model": "claude-opus-4-6", "max_tokens": 32000},
            "keep": 0,
            "tail": ["f11c", "bef7"],
            "requestDigest": "fe80",
        },
        {"type": "tools-used", "tools": ["Bash"], "sessionId": SESSION_ID},
        cc_assistant(3, 2, "msg_Run", CALL),
        {
            "type": "last-prompt",
            "lastPrompt": "test it",
            "leafUuid": line_uuid(3),
            "sessionId": SESSION_ID,
        },
        _attachment(4, 3, "prompt_snapshot", systemPrompt=["You are"]),
        {"type": "mode", "mode": "normal", "sessionId": SESSION_ID},
        {"type": "cost-state", "sessionId": SESSION_ID, "totalCostUSD": 0.01, "modelUsage": {}},
    ]


def _fix(data: bytes) -> patchcore.Result:
    return patchcore.fix_document(data, filename=NAME, options=patchcore.make_options())


def test_every_line_type_is_a_known_event() -> None:
    """No warning; the one finding is the session's own unanswered call, not the copies."""
    data = compact_jsonl(_session())
    report = _fix(data)
    assert [(r.line, r.note) for r in report.conversations if r.warning] == []
    assert found(report.findings) == [("TP002", "toolu_Run1")]


def test_the_repair_takes_the_attachment_that_hung_off_the_call() -> None:
    """The result line goes right after the call's line; the attachment hanging off the call
    now hangs off it; every other line keeps its bytes; fixing again changes nothing."""
    data = compact_jsonl(_session())
    report = _fix(data)
    assert report.output is not None
    before, after = data.split(b"\n"), report.output.split(b"\n")
    call_line = 10
    new = json.loads(after[call_line + 1])
    assert new["parentUuid"] == line_uuid(3)
    (block,) = new["message"]["content"]
    assert block["tool_use_id"] == "toolu_Run1"
    assert block["content"] == text(TP002_TEXT, "Bash", "toolu_Run1")
    assert after[: call_line + 1] == before[: call_line + 1]
    assert after[call_line + 2] == before[call_line + 1], "last-prompt is left as it is"
    attachment = json.loads(after[call_line + 3])
    assert attachment == {**json.loads(before[call_line + 2]), "parentUuid": new["uuid"]}
    assert after[call_line + 4 :] == before[call_line + 3 :]
    again = _fix(report.output)
    assert again.findings == ()
