"""Kimi CLI context.jsonl (docs/formats.md#kimi-cli-context-files): read on its first record,
its messages one conversation, the repair a tool message as Kimi writes a failed tool's, the
session's clock the file's."""

from __future__ import annotations

import json

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES
from tests.session_logs import compact_jsonl, read_events

BETWEEN = SAMPLES / "kimi/killed-between-writes.jsonl"
AFTER = SAMPLES / "kimi/killed-after-reply.jsonl"
NAME = "context.jsonl"


def test_the_context_file_is_one_conversation() -> None:
    """Read one line per conversation, each call line was "pending" with no fix."""
    report = patchcore.check_document(BETWEEN.read_bytes(), filename=NAME)
    assert report.layout == "kimi-context"
    assert [(r.line, r.dialect, r.message_count) for r in report.conversations] == [
        (3, "openai-chat", 6)
    ]
    assert found(report.findings) == [("TP001", "Shell:2")]
    (finding,) = report.findings
    assert patchcore.format_pointer(finding.pointer) == "/tool_calls/1"


def test_the_repair_is_a_failed_tool_message_after_the_turn() -> None:
    data = AFTER.read_bytes()
    repaired = patchcore.fix_document(data, filename=NAME).output
    assert repaired is not None
    assert repaired.startswith(data)
    new = json.loads(repaired[len(data) :])
    assert new["role"] == "tool"
    assert new["tool_call_id"] == "Shell:0"
    assert new["content"].startswith("<system>ERROR: Tool call Shell with id Shell:0 ")
    assert new["content"].endswith("</system>")
    assert patchcore.fix_document(repaired, filename=NAME).output is None


def test_strip_takes_the_repair_back() -> None:
    fixed = (SAMPLES / "kimi/killed-between-writes.fixed.jsonl").read_bytes()
    assert patchcore.strip_document(fixed, filename=NAME).output == BETWEEN.read_bytes()


def test_a_record_of_another_role_is_kept_and_said() -> None:
    rows = [*read_events(AFTER), {"role": "_compaction", "summary": "…"}]
    report = patchcore.check_document(compact_jsonl(rows), filename=NAME)
    assert [(r.line, r.note) for r in report.conversations if r.warning] == [
        (5, "a record of role '_compaction', which Kimi CLI does not write; kept as it is")
    ]


def test_its_clock_is_the_files() -> None:
    data = AFTER.read_bytes()
    ended = patchcore.make_options(live_since=0.0)
    live = patchcore.make_options(live=True, live_since=0.0)
    assert not patchcore.check_document(data, filename=NAME, options=ended).live
    report = patchcore.check_document(data, filename=NAME, options=live)
    assert report.live
    assert [f.fix for f in report.findings] == [None]


def test_a_usage_record_alone_makes_no_context_file() -> None:
    """Kimi's file begins with its system prompt, or a checkpoint in older releases."""
    rows = read_events(AFTER)
    data = compact_jsonl([rows[3], *rows[1:3]])
    assert patchcore.check_document(data, filename=NAME).layout != "kimi-context"
