"""Gemini CLI sessions: a call's result lives in its own ``toolCalls`` entry, and the repair
records the failure there, as the CLI records a failed call."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import TP001_TEXT, TP002_TEXT, text
from tests.provider_rules import gemini_cli
from tests.sample_cases import SAMPLES
from tests.session_logs import gcli_call, gcli_message, gcli_turn, gemini_cli_session, stringified

NAME = "session-2026-03-02T08-14-3f2b8c1e.json"
CALL_ID = "read_file-1772439310402-8c2f5a1e7b3d9"
PROMPT = gcli_message(130, "user", "What does the worker config say?")


def read(*messages: dict[str, Any]) -> bytes:
    return stringified([gemini_cli_session(list(messages))])


def open_call(status: str = "executing", **fields: Any) -> dict[str, Any]:
    call = gcli_call("read_file", CALL_ID, {"file_path": "src/worker/config.ts"}, status)
    return {**call, **fields}


def fixed_entry(data: bytes, message: int = 1, call: int = 0) -> dict[str, Any]:
    report = patchcore.fix_document(data, filename=NAME)
    assert report.output is not None
    entry: dict[str, Any] = json.loads(report.output)["messages"][message]["toolCalls"][call]
    return entry


#: The samples without a repaired twin (the repaired ones, and their inputs, are held to the
#: same rule in tests/conformance/test_provider_rules.py).
UNREPAIRED = ("gemini-cli/clean.json", "gemini-cli/success-without-result.json")


@pytest.mark.parametrize("relative", UNREPAIRED)
def test_the_history_resumed_is_refused_exactly_when_a_finding_is_left(relative: str) -> None:
    data = (SAMPLES / relative).read_bytes()
    report = patchcore.fix_document(data, filename=NAME)
    assert report.output is None
    refused = gemini_cli(json.loads(data)["messages"])
    assert bool(refused) == bool(report.remaining)


def test_a_session_is_read_at_its_messages() -> None:
    report = patchcore.check_document(
        (SAMPLES / "gemini-cli/clean.json").read_bytes(), filename=NAME
    )
    assert [(r.pointer, r.dialect, r.message_count) for r in report.conversations] == [
        ("/messages", "gemini-cli", 7)
    ]
    assert report.findings == ()


@pytest.mark.parametrize(
    "status", ["validating", "scheduled", "awaiting_approval", "executing", "error", "cancelled"]
)
def test_an_open_call_gets_an_error_result_in_its_entry(status: str) -> None:
    entry = fixed_entry(read(PROMPT, gcli_turn(134, "", [open_call(status)]), PROMPT))
    words = text(TP001_TEXT, "read_file", CALL_ID)
    assert entry["result"] == [
        {"functionResponse": {"id": CALL_ID, "name": "read_file", "response": {"error": words}}}
    ]
    assert entry["resultDisplay"] == words
    assert list(entry)[-2:] == ["result", "resultDisplay"], "added after the last member"
    assert entry["status"] == status, "what the CLI saw stays"


@pytest.mark.parametrize("empty", [None, "", []])
def test_an_empty_result_is_filled_in_its_place(empty: Any) -> None:
    call = {"id": CALL_ID, "name": "read_file", "args": {}, "result": empty, "status": "error"}
    entry = fixed_entry(read(PROMPT, gcli_turn(134, "", [call])))
    assert list(entry) == [*call, "resultDisplay"], "filled where it was"
    assert entry["result"][0]["functionResponse"]["response"] == {
        "error": text(TP002_TEXT, "read_file", CALL_ID)
    }


@pytest.mark.parametrize("display", ["3 lines", "", None])
def test_a_display_already_recorded_is_kept(display: Any) -> None:
    entry = fixed_entry(read(PROMPT, gcli_turn(134, "", [open_call(resultDisplay=display)])))
    assert entry["resultDisplay"] == display


def test_a_completed_call_without_result_is_reported_not_answered() -> None:
    data = read(PROMPT, gcli_turn(134, "", [open_call("success", result=None)]), PROMPT)
    report = patchcore.fix_document(data, filename=NAME)
    (finding,) = report.findings
    assert (finding.code, finding.fix) == ("TP001", None)
    assert "recorded as a success without its result: it ran" in finding.message
    assert report.output is None


@pytest.mark.parametrize(
    ("result", "answered"),
    [
        (None, False),
        ("", False),
        ([], False),
        ("done", True),
        ({"functionResponse": {"name": "read_file", "response": {"output": "x"}}}, True),
        ([{"functionResponse": {"name": "read_file", "response": {"output": "x"}}}], True),
    ],
)
def test_a_result_answers_as_the_cli_sends_it(result: Any, answered: bool) -> None:
    data = read(PROMPT, gcli_turn(134, "", [open_call("success", result=result)]))
    report = patchcore.check_document(data, filename=NAME)
    assert found(report.findings) == ([] if answered else [("TP002", CALL_ID)])


@pytest.mark.parametrize(
    "after",
    [
        gcli_message(140, "info", "Request cancelled."),
        gcli_message(141, "error", "[API Error: quota exceeded]"),
        gcli_message(142, "warning", "Approaching the token limit."),
        gcli_message(143, "user", "/chat save before-crash"),
        gcli_message(144, "user", "?"),
        gcli_message(145, "user", "   "),
    ],
)
def test_what_the_model_never_sees_leaves_the_call_pending(after: dict[str, Any]) -> None:
    data = read(PROMPT, gcli_turn(134, "", [open_call()]), after)
    assert found(patchcore.check_document(data, filename=NAME).findings) == [("TP002", CALL_ID)]


@pytest.mark.parametrize(
    "after",
    [
        PROMPT,
        gcli_message(146, "user", [{"text": "Carry on."}]),
        gcli_message(147, "gemini", "I could not read it.", thoughts=[], model="gemini-2.5-pro"),
    ],
)
def test_a_message_the_model_sees_makes_the_call_dangling(after: dict[str, Any]) -> None:
    data = read(PROMPT, gcli_turn(134, "", [open_call()]), after)
    assert found(patchcore.check_document(data, filename=NAME).findings) == [("TP001", CALL_ID)]


def test_results_pair_with_their_own_entry_even_with_one_id() -> None:
    """Ids are never compared: the second entry (same id, no result) is open, the first is
    answered by its own result."""
    answered = open_call("success", result=[{"functionResponse": {"id": CALL_ID}}])
    data = read(PROMPT, gcli_turn(134, "", [answered, open_call()]))
    report = patchcore.check_document(data, filename=NAME)
    assert [(f.code, f.call_id, f.call_path) for f in report.findings] == [
        ("TP002", CALL_ID, ("toolCalls", 1))
    ]


def test_a_call_without_id_gets_a_response_without_one() -> None:
    call = open_call()
    del call["id"]
    entry = fixed_entry(read(PROMPT, gcli_turn(134, "", [call])))
    response = entry["result"][0]["functionResponse"]
    assert response == {
        "name": "read_file",
        "response": {"error": text(TP002_TEXT.replace(" with id {id}", ""), "read_file", "")},
    }


def test_fixing_twice_writes_the_same_bytes() -> None:
    data = read(PROMPT, gcli_turn(134, "", [open_call(), open_call("scheduled")]), PROMPT)
    once = patchcore.fix_document(data, filename=NAME).output
    assert once is not None
    again = patchcore.fix_document(once, filename=NAME)
    assert again.output is None and again.findings == ()


def test_parsed_messages_are_repaired_alike() -> None:
    """The Python API edits parsed values (not bytes): the same entry, the same members."""
    messages = [PROMPT, gcli_turn(134, "", [open_call()])]
    snapshot = copy.deepcopy(messages)
    repair = patchcore.fix_messages(messages)
    assert messages == snapshot, "the input is not mutated"
    spliced = json.loads(patchcore.fix_document(read(*messages), filename=NAME).output or b"")
    assert repair.value == spliced["messages"]


@pytest.mark.parametrize(
    ("tool_calls", "where", "reason"),
    [
        ({"id": "x"}, "/messages/1/toolCalls", "'toolCalls' must be a list"),
        (["read_file"], "/messages/1/toolCalls/0", "a tool call must be an object"),
        ([{"id": 1.5, "name": "x"}], "/messages/1/toolCalls/0/id", "must be a string"),
    ],
)
def test_broken_entries_are_located(tool_calls: Any, where: str, reason: str) -> None:
    turn = gcli_message(134, "gemini", "", toolCalls=tool_calls)
    with pytest.raises(patchcore.ShapeError) as raised:
        patchcore.check_document(read(PROMPT, turn), filename=NAME)
    assert patchcore.format_pointer(raised.value.path) == where
    assert reason in raised.value.reason
