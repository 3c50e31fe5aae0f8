"""Gemini CLI session logs (``session-*.jsonl``): the conversation is the one the CLI reads back
(the last version of each message, less what a rewind dropped, from the last ``$set`` list of
messages on), and a repair goes into the line that holds the version it reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.session_logs import GEMINI_CLI_SESSION, compact_jsonl, gcli_call, gcli_message, gcli_turn

NAME = "session-2026-03-02T08-14-3f2b8c1e.jsonl"
META = {**GEMINI_CLI_SESSION, "kind": "main"}
CALL_ID = "read_file-1772439310402-8c2f5a1e7b3d9"
PROMPT = gcli_message(130, "user", [{"text": "What does the worker config say?"}])
LATER = gcli_message(160, "user", [{"text": "Anything?"}])


def log(*records: Any) -> bytes:
    return compact_jsonl([META, *records])


def call(status: str = "executing", **fields: Any) -> dict[str, Any]:
    entry = gcli_call("read_file", CALL_ID, {"file_path": "src/worker/config.ts"}, status)
    return {**entry, **fields}


ANSWER = [{"functionResponse": {"id": CALL_ID, "name": "read_file", "response": {"output": "ok"}}}]
OPEN_TURN = gcli_turn(134, "", [call()])
DONE_TURN = gcli_turn(134, "", [call("success", result=ANSWER)])


def found_at_lines(report: patchcore.Result) -> list[tuple[str, str | None, int | None]]:
    return [(f.code, f.call_id, f.line) for f in report.findings]


def changed_lines(before: bytes, after: bytes) -> list[int]:
    old, new = before.split(b"\n"), after.split(b"\n")
    assert len(old) == len(new), "no line is added or removed"
    return [
        number
        for number, pair in enumerate(zip(old, new, strict=True), start=1)
        if pair[0] != pair[1]
    ]


def test_a_log_is_read_as_the_conversation_the_cli_resumes() -> None:
    report = patchcore.check_document(log(PROMPT, OPEN_TURN, DONE_TURN), filename=NAME)
    assert report.layout == "gemini-cli-log"
    assert [(r.line, r.dialect, r.message_count) for r in report.conversations] == [
        (2, "gemini-cli", 2)
    ]
    assert report.findings == (), "the call's last version has its result"


def test_the_last_version_of_a_message_is_repaired_in_its_line() -> None:
    data = log(PROMPT, gcli_message(134, "gemini", "Let me look."), OPEN_TURN, LATER)
    report = patchcore.fix_document(data, filename=NAME)
    assert found_at_lines(report) == [("TP001", CALL_ID, 4)]
    assert report.output is not None
    assert changed_lines(data, report.output) == [4]
    entry = json.loads(report.output.split(b"\n")[3])["toolCalls"][0]
    assert list(entry)[-2:] == ["result", "resultDisplay"]
    again = patchcore.fix_document(report.output, filename=NAME)
    assert again.output is None and again.findings == ()


def test_a_message_keeps_the_place_of_its_first_line() -> None:
    """The turn is appended again after the next prompt: it still comes before it, so its
    open call is dangling, not pending."""
    first = gcli_message(134, "gemini", "Let me look.")
    report = patchcore.check_document(log(PROMPT, first, LATER, OPEN_TURN), filename=NAME)
    assert found_at_lines(report) == [("TP001", CALL_ID, 5)]


@pytest.mark.parametrize(
    ("rewind", "left"),
    [
        (LATER["id"], [("TP002", CALL_ID, 3)]),
        (OPEN_TURN["id"], []),
        (PROMPT["id"], []),
        ("no-such-message", []),  # the CLI then drops them all
    ],
)
def test_a_rewind_drops_a_message_and_every_later_one(
    rewind: str, left: list[tuple[str, str, int]]
) -> None:
    data = log(PROMPT, OPEN_TURN, LATER, {"$rewindTo": rewind})
    assert found_at_lines(patchcore.check_document(data, filename=NAME)) == left


def test_messages_set_in_the_metadata_replace_the_message_lines() -> None:
    data = log(PROMPT, DONE_TURN, {"$set": {"messages": [PROMPT, OPEN_TURN, LATER]}}, LATER)
    report = patchcore.fix_document(data, filename=NAME)
    assert found_at_lines(report) == [("TP001", CALL_ID, 4)]
    assert report.output is not None
    assert changed_lines(data, report.output) == [4]
    listed = json.loads(report.output.split(b"\n")[3])["$set"]["messages"]
    assert "error" in listed[1]["toolCalls"][0]["result"][0]["functionResponse"]["response"]
    assert listed[0] == PROMPT and listed[2] == LATER
    assert [r.pointer for r in report.conversations] == ["/$set/messages"]


def test_an_empty_messages_set_leaves_no_message() -> None:
    """``loadConversationRecord``: a ``$set`` of messages is a checkpoint that clears the ones
    before it, an empty one too."""
    data = log({"$set": {"messages": [PROMPT]}}, PROMPT, OPEN_TURN, {"$set": {"messages": []}})
    assert found_at_lines(patchcore.check_document(data, filename=NAME)) == []


def test_the_message_lines_after_a_checkpoint_go_on_from_it() -> None:
    """Gemini CLI writes a ``$set`` of its first messages at once, then appends message lines:
    those are the conversation too (read as the list alone, a call left open in them passed
    with no findings)."""
    data = log(PROMPT, DONE_TURN, {"$set": {"messages": [PROMPT]}}, OPEN_TURN)
    report = patchcore.check_document(data, filename=NAME)
    assert found_at_lines(report) == [("TP002", CALL_ID, 5)]
    assert [(r.line, r.message_count) for r in report.conversations] == [(4, 2)]


def test_a_torn_last_line_and_unknown_records_are_kept_and_reported() -> None:
    data = log(PROMPT, OPEN_TURN, {"$unknown": 1}) + b'{"id":"g9","type":"gem'
    report = patchcore.fix_document(data, filename=NAME)
    assert found_at_lines(report) == [("TP002", CALL_ID, 3)]
    warnings = [(r.line, r.note) for r in report.conversations if r.warning]
    assert [line for line, _ in warnings] == [4, 5]
    assert report.output is not None
    assert report.output.endswith(b'\n{"id":"g9","type":"gem')


def test_a_broken_entry_is_located_in_its_line() -> None:
    broken = gcli_message(134, "gemini", "", toolCalls="read_file")
    with pytest.raises(patchcore.ShapeError) as raised:
        patchcore.check_document(log(PROMPT, broken), filename=NAME)
    assert raised.value.line == 3
    assert patchcore.format_pointer(raised.value.path) == "/toolCalls"


def test_session_documents_one_a_line_are_not_a_log() -> None:
    """A JSON Lines file of whole session records: each line is checked on its own."""
    session = {**GEMINI_CLI_SESSION, "messages": [PROMPT, OPEN_TURN]}
    report = patchcore.check_document(compact_jsonl([session, session]), filename="all.jsonl")
    assert report.layout == "jsonl"
    assert found_at_lines(report) == [("TP002", CALL_ID, 1), ("TP002", CALL_ID, 2)]
