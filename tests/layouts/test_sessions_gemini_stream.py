"""Gemini CLI stream-json output (docs/formats.md#gemini-cli-stream-json-output): read on its
``init`` event, ``tool_use`` paired with ``tool_result`` on ``tool_id``, an open call reported
and never answered, live by its events' own clock."""

from __future__ import annotations

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES
from tests.session_logs import compact_jsonl, read_events

KILLED = SAMPLES / "gemini-stream-json/killed-mid-tool.jsonl"
COMPLETE = SAMPLES / "gemini-stream-json/complete-run.jsonl"
NAME = "gemini-run.jsonl"


def test_a_run_killed_mid_tool_is_reported_not_passed_as_clean() -> None:
    """Read as Responses items, such a log said "No findings": its tool_use events were
    never calls."""
    report = patchcore.check_document(KILLED.read_bytes(), filename=NAME)
    assert report.layout == "gemini-stream-json"
    assert found(report.findings) == [
        ("TP002", "read_file-1772438602731-1e8a3c5d7f9b2"),
        ("TP002", "run_shell_command-1772438602733-9b4f2d6a8c0e1"),
    ]
    assert [(f.line, f.column, f.dialect) for f in report.findings] == [
        (8, 1, "gemini-stream-json"),
        (9, 1, "gemini-stream-json"),
    ]


def test_a_long_answer_streamed_in_chunks_does_not_hide_the_calls() -> None:
    """Where the model's text chunks were most of the lines, the log was read one conversation
    a line (each ``message`` event a Responses message) and passed with no findings."""
    rows = read_events(KILLED)
    chunks = [{**rows[2], "content": f" part {n}"} for n in range(6)]
    report = patchcore.check_document(compact_jsonl([*rows[:3], *chunks, *rows[3:]]), filename=NAME)
    assert report.layout == "gemini-stream-json"
    assert [f.code for f in report.findings] == ["TP002", "TP002"]


def test_nothing_is_written_into_the_output_log() -> None:
    report = patchcore.fix_document(KILLED.read_bytes(), filename=NAME)
    assert report.output is None
    assert all(f.fix is None and "not what it resumes from" in f.message for f in report.findings)


def test_every_result_answers_its_call_error_or_not() -> None:
    report = patchcore.check_document(
        COMPLETE.read_bytes(), filename=NAME, options=patchcore.make_options(select=["ALL"])
    )
    assert report.findings == ()
    (listed,) = report.conversations
    assert listed.message_count == 7


def test_a_result_lost_mid_run_is_a_dangling_call() -> None:
    rows = [row for row in read_events(COMPLETE) if row.get("status") != "error"]
    report = patchcore.check_document(compact_jsonl(rows), filename=NAME)
    assert found(report.findings) == [("TP001", "read_file-1772439003282-0c7e3a9b5d1f4")]


def test_its_clock_is_the_newest_event() -> None:
    data = KILLED.read_bytes()
    last = patchcore.check_document(data, filename=NAME).last_entry
    assert last is not None
    at = patchcore.make_options(live_since=last)
    after = patchcore.make_options(live_since=last + 1)
    assert patchcore.check_document(data, filename=NAME, options=at).live
    assert not patchcore.check_document(data, filename=NAME, options=after).live


def test_a_call_renamed_to_an_unknown_type_is_said_not_passed() -> None:
    rows = [
        {**row, "type": "tool_call"} if row["type"] == "tool_use" else row
        for row in read_events(KILLED)
    ]
    report = patchcore.check_document(compact_jsonl(rows), filename=NAME)
    assert [r.note for r in report.conversations if r.warning] == [
        "an event of unknown type 'tool_call'; kept as it is"
    ] * 3


def test_an_init_with_other_keys_is_no_stream() -> None:
    """Positive evidence only: an ``init`` with keys the CLI never writes is not its stream (and
    the lines, no corpus either, say their tool events unread: TP004,
    docs/rules.md#unread-tool-call-tp004)."""
    rows = read_events(COMPLETE)
    rows[0] = {**rows[0], "cwd": "/home/ana"}
    report = patchcore.check_document(compact_jsonl(rows), filename=NAME)
    assert report.findings and {f.code for f in report.findings} == {"TP004"}
