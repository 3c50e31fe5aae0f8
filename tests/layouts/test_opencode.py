"""opencode exports (docs/formats.md#opencode): a tool part carries its own state; an
unfinished one is settled in place as opencode's session processor settles it, and strip puts
it back."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES

NAME = "session.json"
INFO = {"id": "msg_1", "sessionID": "ses_1", "role": "assistant", "time": {"created": 10}}


def export(*messages: dict[str, Any]) -> bytes:
    return json.dumps({"info": {"id": "ses_1"}, "messages": list(messages)}, indent=2).encode()


def tool_part(call_id: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"id": "prt_1", "type": "tool", "callID": call_id, "tool": "bash", "state": state}


def test_an_export_is_read_as_opencode_messages() -> None:
    report = patchcore.check_document(
        (SAMPLES / "opencode/killed-mid-tool.json").read_bytes(), filename=NAME
    )
    assert report.layout == "json"
    assert [(c.pointer, c.dialect, c.message_count) for c in report.conversations] == [
        ("/messages", "opencode", 2)
    ]


@pytest.mark.parametrize(
    "state",
    [
        {"status": "pending", "input": {}, "raw": '{"comm'},
        {"status": "running", "input": {"command": "ls"}, "time": {"start": 12}},
        {"status": "running", "input": {}, "title": "ls", "metadata": {}, "time": {"start": 12}},
    ],
)
def test_settling_keeps_the_state_and_strip_takes_it_back(state: dict[str, Any]) -> None:
    info = {**INFO, "time": {"created": 10, "completed": 20}}
    data = export({"info": info, "parts": [tool_part("c1", state)]})
    fixed = patchcore.fix_document(data, filename=NAME).output
    assert fixed is not None
    new = json.loads(fixed)["messages"][0]["parts"][0]["state"]
    assert (new["status"], new["time"]["end"]) == ("error", 20)
    assert new["error"].startswith("Tool call bash with id c1 ")
    assert [k for k in new if k not in ("error", "time")] == [k for k in state if k != "time"]
    assert new["input"] == state["input"]
    assert new["time"]["start"] == state.get("time", {"start": 10})["start"]
    assert patchcore.strip_document(fixed, filename=NAME).output == data


def test_a_state_opencode_would_not_write_is_reported_not_settled() -> None:
    odd = tool_part("c1", {"status": "running", "input": {}})  # running, but never started
    report = patchcore.fix_document(export({"info": INFO, "parts": [odd]}), filename=NAME)
    (finding,) = report.findings
    assert (finding.code, finding.fix, report.output) == ("TP002", None, None)


def test_a_completed_or_failed_part_is_answered() -> None:
    done = {"status": "completed", "input": {}, "output": "ok", "title": "", "metadata": {}}
    failed = {"status": "error", "input": {}, "error": "Tool execution aborted"}
    data = export(
        {"info": INFO, "parts": [tool_part("c1", {**done, "time": {"start": 1, "end": 2}})]},
        {"info": INFO, "parts": [tool_part("c2", {**failed, "time": {"start": 1, "end": 2}})]},
    )
    assert patchcore.check_document(data, filename=NAME).findings == ()


def test_opencodes_own_aborted_part_is_not_taken_for_toolpatchs() -> None:
    """strip removes only what fix wrote: a part opencode itself settled stays."""
    state = {"status": "error", "input": {}, "raw": "", "error": "Tool execution aborted"}
    state["time"] = {"start": 10, "end": 10}
    data = export({"info": INFO, "parts": [tool_part("c1", state)]})
    assert patchcore.strip_document(data, filename=NAME).output is None


def test_a_message_that_failed_is_not_sent_and_an_aborted_one_is() -> None:
    pending = tool_part("c1", {"status": "pending", "input": {}, "raw": ""})
    failed = {**INFO, "error": {"name": "APIError", "data": {"message": "Overloaded"}}}
    aborted = {**INFO, "error": {"name": "MessageAbortedError", "data": {"message": "Aborted"}}}
    assert (
        patchcore.check_document(
            export({"info": failed, "parts": [pending]}), filename=NAME
        ).findings
        == ()
    )
    report = patchcore.check_document(export({"info": aborted, "parts": [pending]}), filename=NAME)
    assert found(report.findings) == [("TP002", "c1")]
