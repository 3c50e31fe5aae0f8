"""GitHub Copilot CLI events.jsonl (docs/formats.md#github-copilot-cli-events): calls in
``assistant.message`` ``toolRequests``, results in ``tool.execution_complete``, the repair a
failed ``tool.execution_complete`` chained into the events, compaction counts kept true."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from tests.builders import found
from tests.provider_rules import openai_chat
from tests.sample_cases import SAMPLES
from tests.session_logs import compact_jsonl, copilot_chat, read_events

INTERRUPTED = SAMPLES / "copilot/interrupted-bash.jsonl"
COMPACTED = SAMPLES / "copilot/compacted.jsonl"
NAME = "events.jsonl"


def test_an_aborted_call_is_found_in_its_tool_request() -> None:
    report = patchcore.check_document(INTERRUPTED.read_bytes(), filename=NAME)
    assert report.layout == "copilot-events"
    assert found(report.findings) == [("TP001", "call_Qm8LwT3bZk5Yd2Hs7Jc4Fv1X")]
    (finding,) = report.findings
    assert patchcore.format_pointer(finding.pointer) == "/data/toolRequests/1"
    assert finding.line == 4


def test_the_repair_is_a_failed_completion_chained_into_the_read_events() -> None:
    repaired = patchcore.fix_document(INTERRUPTED.read_bytes(), filename=NAME).output
    assert repaired is not None
    rows = [json.loads(line) for line in repaired.splitlines()]
    chain = [row["parentId"] for row in rows[1:]]
    assert chain == [row["id"] for row in rows[:-1]], "every event hangs off the one before it"
    new = rows[7]
    assert new["type"] == "tool.execution_complete"
    assert new["data"]["success"] is False
    assert openai_chat(copilot_chat(rows)) == []
    assert openai_chat(copilot_chat(read_events(INTERRUPTED))) != []
    assert patchcore.fix_document(repaired, filename=NAME).output is None


def after_compaction(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` and a turn whose view call is still open at the end."""
    request = {"toolCallId": "call_Vw6Gy2Nd8Qs4Tz1Jf7Hk3Pm9", "name": "view", "arguments": {}}
    event = {
        "type": "assistant.message",
        "data": {"messageId": "m-view", "content": "", "toolRequests": [request]},
        "id": "6c1f0e2d-7a3b-4c5d-9e8f-0a1b2c3d4e5f",
        "timestamp": "2026-06-14T21:02:55.930Z",
        "parentId": rows[-1]["id"],
    }
    return [*rows, event]


def test_a_call_before_a_compaction_is_reported_and_its_counts_kept() -> None:
    data = compact_jsonl(after_compaction(read_events(COMPACTED)))
    report = patchcore.fix_document(data, filename=NAME)
    before, pending = report.findings
    assert (before.code, before.fix) == ("TP001", None)
    assert "counted the conversation's messages" in before.message
    assert (pending.code, pending.fix is not None) == ("TP002", True)
    assert report.output is not None
    assert report.output.startswith(data), "only the open call at the end is answered"


def test_a_failed_compaction_counts_nothing() -> None:
    rows = read_events(COMPACTED)
    rows[8]["data"] = {"success": False, "error": "model call failed"}
    report = patchcore.fix_document(compact_jsonl(rows), filename=NAME)
    assert [f.fix is not None for f in report.findings] == [True]


def test_a_rewind_removes_the_calls_it_rewound() -> None:
    rows = read_events(INTERRUPTED)
    rewind = {
        "type": "session.snapshot_rewind",
        "data": {"upToEventId": rows[3]["id"], "eventsRemoved": 5},
        "id": "9e0f8a1b-2c3d-4e5f-8a9b-0c1d2e3f4a5b",
        "timestamp": "2026-06-14T21:39:50.000Z",
        "parentId": rows[7]["id"],
    }
    report = patchcore.check_document(compact_jsonl([*rows[:8], rewind, *rows[8:]]), filename=NAME)
    assert report.findings == ()


def test_a_subagent_is_a_conversation_of_its_own() -> None:
    rows = read_events(INTERRUPTED)
    agent = [{**row, "agentId": "agent-p1"} for row in rows[1:4]]
    report = patchcore.check_document(compact_jsonl([*rows, *agent]), filename=NAME)
    assert [(c.dialect, c.message_count) for c in report.conversations] == [
        ("openai-chat", 5),
        ("openai-chat", 2),
    ]
    assert found(report.findings) == [
        ("TP001", "call_Qm8LwT3bZk5Yd2Hs7Jc4Fv1X"),
        ("TP002", "call_nf1RvU9GxssNg2g7WtPgHqQ4"),
        ("TP002", "call_Qm8LwT3bZk5Yd2Hs7Jc4Fv1X"),
    ]


def test_a_user_requested_tool_answers_no_model_call() -> None:
    rows = read_events(INTERRUPTED)
    done = {
        "type": "tool.execution_complete",
        "data": {
            "toolCallId": "user-1",
            "success": True,
            "isUserRequested": True,
            "result": {"content": "ok"},
        },
        "id": "1a2b3c4d-0000-4000-8000-000000000001",
        "timestamp": "2026-06-14T21:40:00.000Z",
        "parentId": rows[-1]["id"],
    }
    options = patchcore.make_options(select=["ALL"])
    report = patchcore.check_document(compact_jsonl([*rows, done]), filename=NAME, options=options)
    assert [f.code for f in report.findings] == ["TP001"]


def test_its_clock_is_the_newest_event() -> None:
    data = INTERRUPTED.read_bytes()
    last = patchcore.check_document(data, filename=NAME).last_entry
    assert last is not None
    assert patchcore.check_document(
        data, filename=NAME, options=patchcore.make_options(live_since=last)
    ).live


def test_strip_takes_the_repair_back_and_rechains() -> None:
    fixed = (SAMPLES / "copilot/interrupted-bash.fixed.jsonl").read_bytes()
    assert patchcore.strip_document(fixed, filename=NAME).output == INTERRUPTED.read_bytes()
