"""pi / openclaw session files (docs/formats.md#pi-and-openclaw-sessions): the branch pi resumes
(the path from the last entry to the root), what a compaction keeps, calls of aborted turns,
and results linked into the tree as pi links an entry it appends."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from patchcore.layouts.sessions.layout import moment
from tests.builders import found
from tests.sample_cases import SAMPLES

NAME = "session.jsonl"
SESSION = "3b8c1d2e-5f7a-4c9b-8e1d-2a6f0c4b7d91"
HEADER = {"type": "session", "version": 3, "id": SESSION, "timestamp": "2026-03-02T09:00:00.000Z"}
HEADER["cwd"] = "/home/ana/shop"


def sample(name: str) -> bytes:
    return (SAMPLES / "pi" / name).read_bytes()


def lines_of(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def message(number: int, parent: int | None, body: dict[str, Any]) -> dict[str, Any]:
    """A message entry whose id is ``e`` and its number, timed by its number (seconds)."""
    return {
        "type": "message",
        "id": f"e{number:07d}",
        "parentId": None if parent is None else f"e{parent:07d}",
        "timestamp": f"2026-03-02T09:00:{number:02d}.000Z",
        "message": body,
    }


def ask(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def calling(*ids: str, stop: str = "toolUse") -> dict[str, Any]:
    blocks = [{"type": "toolCall", "id": i, "name": "bash", "arguments": {}} for i in ids]
    return {"role": "assistant", "content": blocks, "stopReason": stop, "timestamp": 2}


def answer(call_id: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "bash",
        "content": [{"type": "text", "text": "ok"}],
        "isError": False,
        "timestamp": 3,
    }


def session(*entries: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in (HEADER, *entries))


def test_a_session_file_is_read_as_its_resumed_branch() -> None:
    report = patchcore.check_document(sample("killed-mid-tool.jsonl"), filename=NAME)
    assert report.layout == "pi-session"
    listed = [c for c in report.conversations if c.dialect == "pi"]
    assert [(c.line, c.message_count) for c in listed] == [(2, 4)]
    (note,) = [c for c in report.conversations if c.dialect is None]
    assert note.note is not None and note.note.startswith("4 entries are on branches")
    assert not note.warning


def test_the_other_branches_are_written_back_as_they_are() -> None:
    data = sample("killed-mid-tool.jsonl")
    result = patchcore.fix_document(data, filename=NAME)
    assert result.output is not None
    before, after = data.splitlines(), result.output.splitlines()
    assert after[: len(before)] == before
    (new,) = lines_of(b"\n".join(after[len(before) :]))
    assert new["parentId"] == lines_of(data)[-1]["id"]


def test_a_call_off_the_resumed_branch_is_not_read() -> None:
    data = session(
        message(1, None, ask("Run it.")),
        message(2, 1, calling("call_Old")),
        message(3, 1, ask("No, do something else.")),
    )
    assert patchcore.check_document(data, filename=NAME).findings == ()


def test_a_call_summarised_away_or_in_an_aborted_turn_is_not_dangling() -> None:
    report = patchcore.check_document(sample("compacted.jsonl"), filename=NAME)
    assert found(report.findings) == [("TP001", "toolu_01Ps4ApplyDev1")]


def test_a_compaction_that_keeps_the_call_keeps_it_dangling() -> None:
    compaction = {
        "type": "compaction",
        "id": "e0000004",
        "parentId": "e0000003",
        "timestamp": "2026-03-02T09:00:04.000Z",
        "summary": "Ran it.",
        "firstKeptEntryId": "e0000002",
        "tokensBefore": 1000,
    }
    data = session(
        message(1, None, ask("Run it.")),
        message(2, 1, calling("call_Kept")),
        message(3, 2, ask("Well?")),
        compaction,
        message(5, 4, ask("Go on.")),
    )
    report = patchcore.fix_document(data, filename=NAME)
    assert found(report.findings) == [("TP001", "call_Kept")]
    assert report.output is not None
    entries = lines_of(report.output)
    new = entries[3]
    assert (new["parentId"], new["message"]["toolCallId"]) == ("e0000002", "call_Kept")
    assert entries[4]["parentId"] == new["id"]  # the next entry on the branch hangs off it


def test_a_repair_at_a_fork_re_points_only_the_resumed_branch() -> None:
    data = session(
        message(1, None, ask("Run it.")),
        message(2, 1, calling("call_Fork")),
        message(3, 2, ask("First try.")),
        message(4, 2, ask("Second try.")),
    )
    result = patchcore.fix_document(data, filename=NAME)
    assert result.output is not None
    entries = lines_of(result.output)
    new = entries[3]
    assert [e["parentId"] for e in entries[4:]] == ["e0000002", new["id"]]


def test_fix_then_strip_gives_the_session_back() -> None:
    for name in ("killed-mid-tool.jsonl", "resumed-after-crash.jsonl", "compacted.jsonl"):
        data = sample(name)
        fixed = patchcore.fix_document(data, filename=NAME).output
        assert fixed is not None
        stripped = patchcore.strip_document(fixed, filename=NAME)
        assert stripped.output == data, name


def test_a_pending_call_of_a_running_session_is_held() -> None:
    data = sample("killed-mid-tool.jsonl")
    newest = max(moment(e.get("timestamp")) or 0 for e in lines_of(data))
    running = patchcore.make_options(live_since=newest)
    result = patchcore.fix_document(data, filename=NAME, options=running)
    assert result.live and result.output is None
    (held,) = result.findings
    assert held.code == "TP002" and held.fix is None and held.held is not None


def test_the_new_result_is_what_pi_writes_for_a_tool_it_could_not_run() -> None:
    result = patchcore.fix_document(sample("resumed-after-crash.jsonl"), filename=NAME)
    assert result.output is not None
    new = lines_of(result.output)[3]
    assert list(new) == ["type", "id", "parentId", "timestamp", "message"]
    assert len(new["id"]) == 8 and int(new["id"], 16) >= 0
    assert list(new["message"]) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "timestamp",
    ]
    assert new["message"]["isError"] is True


def test_an_unknown_entry_is_kept_and_said() -> None:
    data = session(message(1, None, ask("Hi.")), {"type": "telemetry", "id": "x", "parentId": None})
    report = patchcore.check_document(data, filename=NAME)
    warnings = [c.note for c in report.conversations if c.warning]
    assert warnings == ["an entry of unknown type 'telemetry'; kept as it is"]


def test_an_entry_without_a_string_id_gets_no_entries_hung_off_it() -> None:
    """A corrupted id (found by the corruption properties: a list) neither breaks the reading
    nor has new entries hang off it: the call is reported without a fix."""
    broken = message(2, 1, calling("call_Lost"))
    broken["id"] = []
    data = session(message(1, None, ask("Run it.")), broken)
    result = patchcore.fix_document(data, filename=NAME)
    (finding,) = result.findings
    assert (finding.code, finding.fix, result.output) == ("TP002", None, None)


def test_a_parent_id_that_is_no_string_ends_the_branch() -> None:
    loose = message(2, None, ask("And now?"))
    loose["parentId"] = ["e0000001"]
    data = session(message(1, None, calling("call_Root")), loose)
    report = patchcore.check_document(data, filename=NAME)
    assert [c.message_count for c in report.conversations if c.dialect == "pi"] == [1]
