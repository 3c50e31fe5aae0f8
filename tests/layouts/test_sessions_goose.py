"""Goose session files (docs/formats.md#goose-sessions): a metadata line, then one message a
line; what goose sends (agent-visible messages, requests in assistant and responses in user
messages) is what is paired, and an interrupted turn gets the user message goose writes."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES

NAME = "20260302_091405.jsonl"
META = {"working_dir": "/home/ana", "description": "demo", "message_count": 2}


def session(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in (META, *messages))


def request(call_id: str) -> dict[str, Any]:
    call = {"status": "success", "value": {"name": "developer__shell", "arguments": {}}}
    return {"type": "toolRequest", "id": call_id, "toolCall": call}


def test_a_session_file_is_read_past_its_metadata_line() -> None:
    report = patchcore.check_document(
        (SAMPLES / "goose/killed-then-resumed.jsonl").read_bytes(), filename=NAME
    )
    assert report.layout == "goose-session"
    assert [(c.line, c.dialect, c.message_count) for c in report.conversations] == [(2, "goose", 5)]


def test_a_message_goose_does_not_send_issues_no_call() -> None:
    hidden = {"role": "assistant", "created": 1, "content": [request("c1")]}
    hidden["metadata"] = {"userVisible": True, "agentVisible": False}
    user_request = {"role": "user", "created": 2, "content": [request("c2")]}
    data = session(hidden, user_request)
    assert patchcore.check_document(data, filename=NAME).findings == ()


def test_a_call_that_did_not_parse_is_malformed() -> None:
    broken = {"type": "toolRequest", "id": "c1", "toolCall": {"status": "error", "error": "bad"}}
    data = session(
        {"role": "assistant", "created": 1, "content": [broken]},
        {"role": "user", "created": 2, "content": [{"type": "text", "text": "and?"}]},
    )
    report = patchcore.check_document(data, filename=NAME)
    assert found(report.findings) == [("TP003", "c1")]


def test_a_new_message_takes_the_shape_of_the_calling_one() -> None:
    call = {"id": "m1", "role": "assistant", "created": 7, "content": [request("c1")]}
    call["metadata"] = {"userVisible": True, "agentVisible": True}
    result = patchcore.fix_document(session(call), filename=NAME)
    assert result.output is not None
    new = json.loads(result.output.splitlines()[-1])
    assert list(new) == ["id", "role", "created", "content", "metadata"]
    assert (new["id"], new["created"], new["metadata"]["agentVisible"]) == (None, 7, True)
    assert new["content"][0]["toolResult"]["status"] == "error"


def test_the_session_clock_is_its_messages_created_time() -> None:
    data = session({"role": "assistant", "created": 1_900_000_000, "content": [request("c1")]})
    running = patchcore.make_options(live_since=1_899_999_000.0)
    result = patchcore.fix_document(data, filename=NAME, options=running)
    assert result.live and result.output is None
    assert result.last_entry == 1_900_000_000
