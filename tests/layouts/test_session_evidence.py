"""Evidence first in the agent session logs (docs/pairing.md#evidence-first,
docs/formats.md#codex, #gemini-cli): what a log recorded of a call whose result is missing is
written instead of a made-up result, and marked recovered; what it does not say whole is not
guessed at, and the result stays synthesized."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import tp001
from tests.sample_cases import SAMPLES
from tests.session_logs import codex_event, codex_item, codex_user, compact_jsonl, rollout

NAME = "rollout.jsonl"
META = rollout(0, "session_meta", {"id": "019e1695", "cwd": "/home/ana/shop"})
OUTPUT = "F.\n=== FAILURES ===\ntest_tax: assert 12 == 13\n1 failed, 1 passed in 2.31s\n"


def shell_call(call_id: str, name: str = "shell", kind: str = "function_call") -> dict[str, Any]:
    if kind == "local_shell_call":
        action = {"type": "exec", "command": ["pytest", "-q"]}
        return {"type": kind, "call_id": call_id, "status": "completed", "action": action}
    return {
        "type": kind,
        "name": name,
        "arguments": '{"command":["pytest","-q"]}',
        "call_id": call_id,
    }


def end_event(call_id: str, **changes: Any) -> dict[str, Any]:
    """An ``exec_command_end`` event as codex-rs 0.12x writes it (a shell call's)."""
    event = {
        "type": "exec_command_end",
        "call_id": call_id,
        "turn_id": "turn-1",
        "command": ["pytest", "-q"],
        "cwd": "/home/ana/shop",
        "parsed_cmd": [],
        "source": "agent",
        "stdout": OUTPUT,
        "stderr": "",
        "aggregated_output": OUTPUT,
        "exit_code": 1,
        "duration": {"secs": 2, "nanos": 351000000},
        "formatted_output": OUTPUT,
        "status": "failed",
    }
    event.update(changes)
    return event


def fixed(call: dict[str, Any], *events: dict[str, Any]) -> tuple[patchcore.Finding, Any]:
    """The one finding of a rollout whose call ``call`` was cut off by a new prompt, with
    ``events`` after it, and the output item ``fix`` wrote for it."""
    records = [
        *codex_user(1, "Run the tests."),
        codex_item(2, call),
        *(codex_event(3, event) for event in events),
        *codex_user(4, "Why did it fail?"),
    ]
    report = patchcore.fix_document(compact_jsonl([META, *records]), filename=NAME)
    (finding,) = report.findings
    assert report.output is not None
    lines = [json.loads(line) for line in report.output.splitlines()]
    (written,) = [
        line["payload"]
        for line in lines
        if line["payload"].get("type", "").endswith("_call_output")
    ]
    return finding, written


def test_a_shell_call_gets_the_output_codex_gave_the_model() -> None:
    """``ShellHandler``'s structured output, compact JSON, the duration an ``f32`` rounded to
    a tenth: 2.351 s is 2.4."""
    finding, written = fixed(shell_call("call_T"), end_event("call_T"))
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.RECOVERED
    metadata = '"metadata":{"exit_code":1,"duration_seconds":2.4}'
    assert written == {
        "type": "function_call_output",
        "call_id": "call_T",
        "output": '{"output":' + json.dumps(OUTPUT) + "," + metadata + "}",
    }


@pytest.mark.parametrize(
    ("secs", "nanos", "shown"),
    [
        (0, 250000000, "0.3"),  # Rust rounds halves away from zero (Python's round: 0.2)
        (3, 0, "3.0"),  # serde_json writes an integral f32 with its ".0"
        (0, 31250000, "0.0"),
        (12, 940000000, "12.9"),
        (100, 50000000, "100.1"),
    ],
)
def test_the_duration_is_rounded_and_written_as_codex_does(
    secs: int, nanos: int, shown: str
) -> None:
    event = end_event("call_T", exit_code=0, status="completed")
    event["duration"] = {"secs": secs, "nanos": nanos}
    _, written = fixed(shell_call("call_T"), event)
    assert written["output"].endswith(f'"duration_seconds":{shown}}}}}')


def test_a_local_shell_call_gets_the_structured_output() -> None:
    finding, written = fixed(
        shell_call("call_L", kind="local_shell_call"), end_event("call_L", exit_code=0)
    )
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.RECOVERED
    assert json.loads(written["output"]) == {
        "output": OUTPUT,
        "metadata": {"exit_code": 0, "duration_seconds": 2.4},
    }


def test_a_shell_command_call_gets_the_freeform_output() -> None:
    """``ShellCommandHandler``'s text: the wall time as Rust's ``Display`` shows an ``f32``."""
    event = end_event("call_F", exit_code=0, status="completed")
    event["duration"] = {"secs": 3, "nanos": 0}
    _, written = fixed(shell_call("call_F", name="shell_command"), event)
    assert written["output"] == f"Exit code: 0\nWall time: 3 seconds\nOutput:\n{OUTPUT}"


def test_a_declined_command_gets_the_message_the_model_got() -> None:
    message = "exec command rejected by user"
    event = end_event(
        "call_D",
        stdout="",
        stderr=message,
        aggregated_output=message,
        formatted_output=message,
        exit_code=-1,
        duration={"secs": 0, "nanos": 0},
        status="declined",
    )
    finding, written = fixed(shell_call("call_D"), event)
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.RECOVERED
    assert written["output"] == message


@pytest.mark.parametrize(
    ("call", "events"),
    [
        # a unified exec's output is the chunk returned when the tool yielded, not the end's
        (
            shell_call("call_U", name="exec_command"),
            [end_event("call_U", source="unified_exec_startup", process_id="4821")],
        ),
        # a cut freeform output is cut otherwise than the event's formatted_output
        (
            shell_call("call_U", name="shell_command"),
            [end_event("call_U", formatted_output="F.\n[... 3 lines omitted ...]\n")],
        ),
        # an end event of an older release: no source, no formatted output
        (shell_call("call_U"), [{"type": "exec_command_end", "call_id": "call_U", "exit_code": 0}]),
        # two end events that disagree: which one the model was told is not known
        (shell_call("call_U"), [end_event("call_U"), end_event("call_U", exit_code=2)]),
        # a patch's end event holds no duration: its output cannot be written as Codex wrote it
        (
            {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch",
             "call_id": "call_U"},
            [{"type": "patch_apply_end", "call_id": "call_U", "stdout": "Success.", "stderr": "",
              "success": True, "status": "completed"}],
        ),
        # an end event of another call says nothing of this one
        (shell_call("call_U"), [end_event("call_Other")]),
    ],
    ids=["unified-exec", "cut-freeform", "old-event", "two-events", "patch", "other-call"],
)  # fmt: skip
def test_what_an_event_does_not_say_whole_is_made_up(
    call: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    finding, written = fixed(call, *events)
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.SYNTHESIZED
    assert written["output"] == tp001(call["name"], "call_U")


def test_a_recovered_output_is_kept_by_strip_and_fixed_once() -> None:
    """It is the log's own output: ``strip`` does not take it away, and a second ``fix``
    finds nothing."""
    data = (SAMPLES / "codex/exec-output-survived.jsonl").read_bytes()
    repaired = patchcore.fix_document(data, filename=NAME).output
    assert repaired is not None
    assert patchcore.strip_document(repaired, filename=NAME).output is None
    assert patchcore.fix_document(repaired, filename=NAME).output is None
    assert patchcore.check_document(repaired, filename=NAME).findings == ()


GEMINI_CALL = {
    "id": "read_file-1",
    "name": "read_file",
    "args": {"absolute_path": "/home/ana/shop/src/checkout.ts"},
    "timestamp": "2026-03-04T09:40:18.402Z",
}


def gemini_session(**entry: Any) -> bytes:
    messages = [
        {"id": "m1", "timestamp": "2026-03-04T09:40:15.000Z", "type": "user", "content": "Go."},
        {
            "id": "m2",
            "timestamp": "2026-03-04T09:40:18.000Z",
            "type": "gemini",
            "content": "Reading it.",
            "toolCalls": [{**GEMINI_CALL, **entry}],
        },
        {"id": "m3", "timestamp": "2026-03-04T09:41:50.000Z", "type": "user", "content": "And?"},
    ]
    document = {"sessionId": "s", "projectHash": "p", "startTime": "t", "lastUpdated": "t"}
    return json.dumps({**document, "messages": messages}).encode()


def gemini_fix(**entry: Any) -> tuple[patchcore.Finding, Any]:
    report = patchcore.fix_document(gemini_session(**entry), filename="session.json")
    (finding,) = report.findings
    assert report.output is not None
    (written,) = json.loads(report.output)["messages"][1]["toolCalls"]
    return finding, written


def test_a_gemini_cli_error_keeps_its_message_for_the_model() -> None:
    """``createErrorResponse``: ``resultDisplay`` is the error's message, and the response the
    model got is that message as ``response.error``."""
    shown = "File not found: /home/ana/shop/src/checkout.ts"
    finding, written = gemini_fix(status="error", resultDisplay=shown)
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.RECOVERED
    assert written["result"] == [
        {
            "functionResponse": {
                "id": "read_file-1",
                "name": "read_file",
                "response": {"error": shown},
            }
        }
    ]
    assert written["resultDisplay"] == shown


@pytest.mark.parametrize(
    "entry",
    [
        {"status": "cancelled", "resultDisplay": "Cancelled by the user."},  # worded otherwise
        {"status": "executing"},
        {"status": "error", "resultDisplay": ""},
        {"status": "error", "resultDisplay": {"fileDiff": "..."}},
    ],
)
def test_a_gemini_cli_entry_that_keeps_no_error_message_gets_a_synthetic_result(
    entry: dict[str, Any],
) -> None:
    finding, written = gemini_fix(**entry)
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.SYNTHESIZED
    error = written["result"][0]["functionResponse"]["response"]["error"]
    assert error == tp001("read_file", "read_file-1")


def test_a_gemini_cli_success_without_result_is_still_not_answered() -> None:
    """A success's ``resultDisplay`` is what the screen showed, never the output the model got
    (the corpus's Gemini CLI sessions: not once the same text)."""
    report = patchcore.check_document(
        gemini_session(status="success", resultDisplay="Read 12 lines."), filename="s.json"
    )
    assert [(f.code, f.fix) for f in report.findings] == [("TP001", None)]


def test_a_claude_code_tool_use_result_is_not_read_as_the_lost_result() -> None:
    """``toolUseResult`` is the tool's output for the screen (an object, or ``"Error: "`` and
    the text), not the ``tool_result`` content the model got, and a line that kept it without
    its block names no call (docs/formats.md#claude-code): the call's result is synthesized."""
    data = (SAMPLES / "claude-code/interrupt.jsonl").read_bytes()
    report = patchcore.check_document(data, filename="session.jsonl")
    assert report.findings
    assert {f.fix.origin for f in report.findings if f.fix} == {patchcore.Origin.SYNTHESIZED}


def test_a_store_recorded_error_answers_a_claude_code_call() -> None:
    """`Options.recorded_results` reaches a session's new entries too: the text is the
    recorded one, and the fix says so."""
    data = (SAMPLES / "claude-code/interrupt.jsonl").read_bytes()
    (call_id,) = [f.call_id for f in patchcore.check_document(data, filename="s.jsonl").findings]
    assert call_id is not None
    options = patchcore.make_options(recorded_results={call_id: "disk full"})
    report = patchcore.fix_document(data, filename="s.jsonl", options=options)
    (finding,) = report.findings
    assert finding.fix is not None and finding.fix.origin is patchcore.Origin.RECOVERED
    assert report.output is not None and b'"content":"disk full"' in report.output
    assert found(report.fixed) == [("TP001", call_id)]
