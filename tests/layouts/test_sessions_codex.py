"""Codex rollouts (docs/formats.md#codex): response items paired as Responses items, event lines
kept as they are, new output lines placed after the call's turn with the call line's timestamp."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import TP001_TEXT, text
from tests.sample_cases import SAMPLES
from tests.session_logs import (
    codex_event,
    codex_item,
    codex_user,
    compact_jsonl,
    exec_call,
    rollout,
)

NAME = "rollout.jsonl"
META = rollout(0, "session_meta", {"id": "019e1695", "cwd": "/home/ana/shop"})


def rollout_of(*records: Any) -> bytes:
    return compact_jsonl([META, *records])


def output(call_id: str, words: str, kind: str = "function_call_output") -> dict[str, Any]:
    return {"type": kind, "call_id": call_id, "output": words}


def test_a_rollout_is_read_as_its_response_items() -> None:
    data = (SAMPLES / "codex/aborted-turn.jsonl").read_bytes()
    report = patchcore.check_document(data, filename=NAME)
    assert report.layout == "codex-rollout"
    assert [(r.line, r.dialect, r.message_count) for r in report.conversations] == [
        (5, "openai-responses", 6)
    ]
    (finding,) = report.findings
    assert (finding.code, finding.call_id, finding.line) == ("TP001", "call_8Kp3GitSt", 8)
    assert patchcore.format_pointer(finding.pointer) == "/payload"
    assert data.split(b"\n")[7][finding.column - 1 :].startswith(b'{"type":"function_call"')


def test_an_end_event_does_not_answer_a_call() -> None:
    """Codex rebuilds a resumed history from response items only: a call closed by an
    ``exec_command_end`` event still has no output."""
    records = [
        *codex_user(1, "Show git status."),
        codex_item(2, exec_call("call_St", "git status")),
        codex_event(3, {"type": "exec_command_end", "call_id": "call_St", "exit_code": 0}),
        *codex_user(4, "Thanks."),
    ]
    report = patchcore.fix_document(rollout_of(*records), filename=NAME)
    assert found(report.findings) == [("TP001", "call_St")]
    assert report.output is not None
    new = json.loads(report.output.split(b"\n")[4])
    assert new == {
        "timestamp": "2026-05-12T10:00:02.000Z",
        "type": "response_item",
        "payload": output("call_St", text(TP001_TEXT, "exec_command", "call_St")),
    }


def test_a_local_shell_call_is_answered_by_a_function_call_output() -> None:
    shell = {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_Sh", "status": "completed"}
    records = [
        *codex_user(1, "List files."),
        codex_item(2, {**shell, "action": {"type": "exec", "command": ["ls"]}}),
        codex_item(3, output("call_Sh", "README.md")),
        *codex_user(4, "Thanks."),
    ]
    assert (
        patchcore.check_document(
            rollout_of(*records), filename=NAME, options=patchcore.make_options(select=["ALL"])
        ).findings
        == ()
    )


def test_only_the_output_lines_are_added() -> None:
    """Every other line (events included) is written back byte for byte, and fixing again
    changes nothing."""
    data = (SAMPLES / "codex/patch-and-shell.jsonl").read_bytes()
    repaired = patchcore.fix_document(data, filename=NAME).output
    assert repaired is not None
    before, after = data.split(b"\n"), repaired.split(b"\n")
    added = [line for line in after if line not in before]
    assert [json.loads(line)["payload"]["type"] for line in added] == [
        "custom_tool_call_output",
        "function_call_output",
    ]
    assert [line for line in after if line in before] == before
    assert patchcore.fix_document(repaired, filename=NAME).output is None


def test_orphan_output_lines_go_only_with_unsafe_fixes() -> None:
    records = [
        *codex_user(1, "Continue."),
        codex_item(2, output("call_Old", "stale")),
        codex_item(3, exec_call("call_New", "ls")),
        codex_item(4, output("call_New", "README.md")),
    ]
    data = rollout_of(*records)
    report = patchcore.fix_document(
        data, filename=NAME, options=patchcore.make_options(select=["ALL"])
    )
    assert found(report.findings) == [("TP101", "call_Old")]
    assert report.output is None
    assert [f.fix.applicability.value for f in report.findings if f.fix] == ["unsafe"]
    unsafe = patchcore.fix_document(
        data, filename=NAME, options=patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    )
    assert unsafe.output is not None
    lines = data.split(b"\n")
    assert unsafe.output.split(b"\n") == lines[:3] + lines[4:]


def test_unreadable_lines_are_kept_and_reported() -> None:
    data = b"\n".join(
        [
            rollout_of(*codex_user(1, "Go.")).rstrip(b"\n"),
            b'{"timestamp":"t","type":"response_item","payload":"text"}',
            b'{"timestamp":"t","type":"ghost_snapshot","payload":{}}',
            b"{torn",
            compact_jsonl([codex_item(5, exec_call("call_Ls", "ls"))]),
        ]
    )
    report = patchcore.fix_document(data, filename=NAME)
    assert [(r.line, r.note) for r in report.conversations if r.warning] == [
        (4, "a response_item whose payload is a string; kept as it is"),
        (5, "a line of unknown type 'ghost_snapshot'; kept as it is"),
        (
            6,
            "not JSON (invalid JSON: Expecting property name enclosed in double quotes); "
            "kept as it is",
        ),
    ]
    assert found(report.findings) == [("TP002", "call_Ls")]
    assert report.output is not None
    assert report.output.split(b"\n")[:7] == data.split(b"\n")[:7]


def test_a_call_id_of_the_wrong_shape_is_an_error_on_its_line() -> None:
    call = {"type": "function_call", "name": "ls", "arguments": "{}", "call_id": {"id": 1}}
    data = rollout_of(*codex_user(1, "Go."), codex_item(2, call))
    with pytest.raises(patchcore.ShapeError) as caught:
        patchcore.check_document(data, filename=NAME)
    assert (caught.value.line, caught.value.pointer) == (4, "/payload/call_id")


def test_a_rollout_is_recognised_past_a_torn_first_line() -> None:
    data = b'{"timestamp":"2026-05-12T10:00:00.000Z","type":"sess\n' + rollout_of(
        *codex_user(1, "Go."), codex_item(2, exec_call("call_Ls", "ls"))
    )
    report = patchcore.check_document(data, filename=NAME)
    assert report.layout == "codex-rollout"
    assert found(report.findings) == [("TP002", "call_Ls")]


def test_the_line_that_makes_a_file_a_rollout_is_never_dropped() -> None:
    """A rollout whose head was cut may begin with an orphan output: dropping it would leave a
    file that no longer reads as a rollout, so that drop is not offered (the others are)."""
    records = [
        codex_item(1, output("call_Cut", "stale")),
        *codex_user(2, "Continue."),
        codex_item(3, output("call_Old", "stale")),
    ]
    data = compact_jsonl(records)
    report = patchcore.fix_document(
        data, filename=NAME, options=patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    )
    assert found(report.findings) == [("TP101", "call_Cut"), ("TP101", "call_Old")]
    assert [f.fix is not None for f in report.findings] == [False, True]
    assert report.output == b"\n".join([*data.split(b"\n")[:3], b""])


#: A tool search the client runs, and the output Codex writes when its result is missing.
CLIENT_SEARCH = {
    "type": "tool_search_call",
    "call_id": "ts_1",
    "execution": "client",
    "status": "completed",
    "arguments": {"query": "calendar"},
}
MISSING_SEARCH = {
    "type": "tool_search_output",
    "call_id": "ts_1",
    "status": "incomplete",
    "execution": "client",
    "tools": [],
}


def test_a_client_tool_search_is_answered_as_codex_answers_it() -> None:
    """docs/formats.md#openai-responses: a ``tool_search_call`` run by the client is a call,
    answered by a ``tool_search_output``; one the server runs is not (in rollouts and lists)."""
    records = [
        *codex_user(1, "Find a calendar tool."),
        codex_item(2, CLIENT_SEARCH),
        *codex_user(3, "Never mind."),
    ]
    report = patchcore.fix_document(rollout_of(*records), filename=NAME)
    assert found(report.findings) == [("TP001", "ts_1")]
    assert report.output is not None
    assert json.loads(report.output.split(b"\n")[4])["payload"] == MISSING_SEARCH
    assert patchcore.fix_document(report.output, filename=NAME).output is None
    strict = patchcore.make_options(select=["ALL"])
    assert patchcore.check_document(report.output, filename=NAME, options=strict).findings == ()

    items = [
        {"role": "user", "content": "Find a tool."},
        CLIENT_SEARCH,
        {"role": "user", "content": "?"},
    ]
    assert patchcore.fix_messages(items).value[2] == MISSING_SEARCH
    server = {**CLIENT_SEARCH, "execution": "server", "call_id": None}
    assert patchcore.check_messages([items[0], server, items[2]], options=strict) == []
    answered = [items[0], CLIENT_SEARCH, {**MISSING_SEARCH, "status": "completed"}, items[2]]
    assert patchcore.check_messages(answered, options=strict) == []


@pytest.mark.parametrize(
    "sample", sorted(p.name for p in (SAMPLES / "codex").glob("*.jsonl") if ".fixed" not in p.name)
)
def test_a_repair_never_writes_a_line_earlier_than_the_one_before_it(sample: str) -> None:
    """A new output line took its call's time, and where outputs or messages came between the
    call and the new line, it was earlier than the line before it (a rollout whose times go
    back). It takes the time of the line it follows."""
    data = (SAMPLES / "codex" / sample).read_bytes()
    result = patchcore.fix_document(data, filename=sample, options=patchcore.make_options())
    assert result.output is not None
    times = [json.loads(line).get("timestamp") for line in result.output.splitlines()]
    stamped = [t for t in times if isinstance(t, str)]
    assert stamped == sorted(stamped)
