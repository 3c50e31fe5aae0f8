"""The agent sessions of ../shared/corpus (claude-code/, codex/, and the Claude Agent SDK stream
kept in claude-code/), read in place: no crash, the verdicts of docs/corpus.md, and the one real
capture taken while a tool ran, repaired so that it resumes.

Where toolpatch and the corpus's verdicts could be read to disagree, the test says who is right and
why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.builders import read_corpus as read
from tests.conftest import CORPUS
from tests.provider_rules import anthropic

pytestmark = pytest.mark.usefixtures("corpus")

SESSIONS = sorted(
    [*CORPUS.glob("claude-code/*.jsonl"), *CORPUS.glob("codex/*.jsonl")] if CORPUS.is_dir() else []
)
#: Verdict "clean" (or "already repaired", "no tools"; docs/corpus.md#clean-files): nothing to
#: report, under every rule.
CLEAN = [
    "claude-code/cct-sample-session.jsonl",
    "claude-code/claude-code-log-representative.jsonl",
    "claude-code/claude-reliability-coverage-test-fix.jsonl",
    "claude-code/claude-reliability-python-to-rust-port.jsonl",
    "claude-code/codemie-incremental-turn-2.jsonl",
    "claude-code/codemie-session-196820da.jsonl",
    "claude-code/spotter-ae4a77f8-long-session.jsonl",
    "claude-code/spotter-ae4a77f8-sidechain-agent.jsonl",
    "claude-code/spotter-fa812bfe-acompact.jsonl",
    "claude-code/spotter-short-rejected-parallel.jsonl",
    "claude-code/spotter-subagent-session.jsonl",
    "claude-code/spotter-tool-heavy-interrupted.jsonl",
    "codex/codemie-rollout-019e1625.jsonl",
    "codex/codemie-rollout-019e1695.jsonl",
]
TRUNCATED = "claude-code/codemie-incremental-turn-1-truncated.jsonl"
LATER = "claude-code/codemie-incremental-turn-2.jsonl"
OPEN_CALL = "toolu_bdrk_01NNGBKLENmr7j3TfUKZW7rz"


def records(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.split(b"\n") if line.strip()]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_session_is_read_as_a_session(path: Path) -> None:
    report = patchcore.fix_document(
        path.read_bytes(), filename=path.name, options=patchcore.make_options(select=["ALL"])
    )
    expected = "codex-rollout" if path.parent.name == "codex" else "claude-code-session"
    assert report.layout == expected
    assert [r for r in report.conversations if not r.warning], "its conversation is found"


@pytest.mark.parametrize("relative", CLEAN)
def test_clean_sessions_report_nothing(relative: str) -> None:
    """One conversation (the sidechain and compaction files: their agent's), nothing to report
    under any rule: parallel results on lines of their own, calls of one response written
    between results of its first calls, subagent traffic in progress lines and Claude Code's own
    rejection results are all read as Claude Code sends them."""
    report = patchcore.fix_document(
        read(relative), filename=relative, options=patchcore.make_options(select=["ALL"])
    )
    assert report.findings == ()
    assert report.output is None
    assert [r.warning for r in report.conversations] == [False]
    assert report.conversations[0].message_count > 1


def test_the_capture_taken_while_a_tool_ran_reports_its_one_open_call() -> None:
    report = patchcore.check_document(read(TRUNCATED), filename=TRUNCATED)
    assert found(report.findings) == [("TP002", OPEN_CALL)]
    assert report.findings[0].line == 25


def test_its_repair_resumes() -> None:
    """After the fix the parentUuid chain is intact (every parent is in the file, one chain from
    the last line back to the root through every message line) and the main thread, as Claude
    Code sends it, passes the Anthropic rules."""
    data = read(TRUNCATED)
    output = patchcore.fix_document(data, filename=TRUNCATED).output
    assert output is not None
    assert output.startswith(data), "the lines before are untouched; one line is added"
    lines = records(output)
    by_uuid = {line["uuid"]: line for line in lines if "uuid" in line}
    assert len(by_uuid) == len([line for line in lines if "uuid" in line]), "uuids are unique"
    assert all(line.get("parentUuid") in (None, *by_uuid) for line in lines)
    chain, node = [], lines[-1]
    while node is not None:
        chain.append(node["uuid"])
        node = by_uuid.get(node["parentUuid"]) if node["parentUuid"] else None
    messages = [line for line in lines if line.get("type") in ("user", "assistant")]
    assert [m["uuid"] for m in messages] == chain[::-1]
    assert anthropic(api_messages(messages)) == []
    assert anthropic(api_messages(messages[:-1])), "the validator sees the original's defect"
    again = patchcore.fix_document(
        output, filename=TRUNCATED, options=patchcore.make_options(select=["ALL"])
    )
    assert again.findings == ()
    assert again.output is None


def test_its_repair_stands_where_the_real_result_came_later() -> None:
    """turn-2.jsonl is the same session after the tool finished: its real result line hangs off
    the same line, in the same session, as the line toolpatch adds to turn-1."""
    output = patchcore.fix_document(read(TRUNCATED), filename=TRUNCATED).output
    assert output is not None
    added = records(output)[-1]
    real = records(read(LATER))[len(records(output)) - 1]
    assert real["message"]["content"][0]["tool_use_id"] == OPEN_CALL
    same = ("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")
    assert {k: added[k] for k in same} == {k: real[k] for k in same}
    assert added["type"] == real["type"] == "user"
    assert added["message"]["content"][0]["is_error"] is True
    # The line has the fields Claude Code writes on its own result lines, in its order, and
    # names the same assistant line as the source of the call.
    assert list(added) == list(real)
    assert added["sourceToolAssistantUUID"] == real["sourceToolAssistantUUID"]
    assert added["toolUseResult"] == "Error: " + added["message"]["content"][0]["content"]


def api_messages(lines: list[Any]) -> list[dict[str, Any]]:
    """Main-thread user/assistant lines as API messages (consecutive lines of one role merged:
    the capture has no parallel calls, so this is what Claude Code sends)."""
    out: list[dict[str, Any]] = []
    for line in lines:
        content = line["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if out and out[-1]["role"] == line["type"]:
            out[-1]["content"] += blocks
        else:
            out.append({"role": line["type"], "content": list(blocks)})
    return out


def test_edge_cases_file_behaves_as_sources_describes() -> None:
    """docs/corpus.md#defects-and-controls: "dangling tool_use, result under misspelled key,
    non-object lines"; dangling tool_edge_002 and toolu_todowrite_002. Both are found: the result
    for tool_edge_002 sits under `contenst`, so Claude Code would not send it either. Every odd line
    is reported and kept; the fix adds two lines and touches no other."""
    relative = "claude-code/claude-code-log-edge-cases.jsonl"
    data = read(relative)
    report = patchcore.fix_document(data, filename=relative)
    assert found(report.findings) == [("TP001", "tool_edge_002"), ("TP002", "toolu_todowrite_002")]
    warnings = {r.line: r.note for r in report.conversations if r.warning}
    assert sorted(warnings) == [10, 11, 13, 14, 15, 16, 18]
    assert "no 'content'" in (warnings[10] or "")
    assert report.output is not None
    before, after = data.split(b"\n"), report.output.split(b"\n")
    assert [line for line in after if line in before] == before
    assert len(after) == len(before) + 2


def test_spawn_and_wait_calls_closed_only_by_events_are_open() -> None:
    """The manifest counts call_spawn1 and call_wait1 as dangling and calls the file "calls closed
    only by event_msg". toolpatch reports both as pending (TP002), and that is right for a resume:
    Codex rebuilds the history from response_item lines only (codex-rs
    `reconstruct_history_from_rollout` skips event_msg), so both calls reach the model without
    an output."""
    relative = "codex/codemie-turn-spawn-skill-dangling.jsonl"
    report = patchcore.fix_document(read(relative), filename=relative)
    assert found(report.findings) == [("TP002", "call_spawn1"), ("TP002", "call_wait1")]
    assert report.output is not None
    added = [line for line in records(report.output) if line not in records(read(relative))]
    # each new line has the time of the line it follows (the wait call's): never earlier
    assert [(a["payload"]["call_id"], a["timestamp"]) for a in added] == [
        ("call_spawn1", "2026-05-12T10:00:10.000Z"),
        ("call_wait1", "2026-05-12T10:00:10.000Z"),
    ]


def test_calls_closed_only_by_collaboration_events_get_made_up_outputs() -> None:
    """docs/formats.md#codex: a ``collab_agent_spawn_end`` or ``collab_waiting_end`` event is no
    shell output; nothing in it is the text Codex gave the model, so the outputs are synthetic
    and say so."""
    relative = "codex/codemie-turn-spawn-skill-dangling.jsonl"
    report = patchcore.check_document(read(relative), filename=relative)
    assert [f.fix.origin for f in report.findings if f.fix] == [patchcore.Origin.SYNTHESIZED] * 2


def test_a_real_unified_exec_output_is_never_rebuilt_from_its_end_event() -> None:
    """The real rollout's 43 ``exec_command`` calls each have an ``exec_command_end`` event, and
    each output the model got is the chunk the tool returned when it yielded (``Chunk ID``,
    ``Wall time``, a process still running), not the event's output: with the outputs taken
    out, a fix must not pass the events' text off as what the model was told."""
    relative = "codex/codemie-rollout-019e1625.jsonl"
    lines = read(relative).split(b"\n")
    values = [json.loads(line) if line.strip() else None for line in lines]
    ended = {
        v["payload"]["call_id"]
        for v in values
        if v and v["type"] == "event_msg" and v["payload"]["type"] == "exec_command_end"
    }
    outputs = [
        v["payload"]["output"]
        for v in values
        if v
        and v["payload"].get("type") == "function_call_output"
        and v["payload"]["call_id"] in ended
    ]
    assert len(ended) == len(outputs) == 43
    assert all(output.startswith("Chunk ID: ") for output in outputs)
    cut = b"\n".join(
        line
        for line, v in zip(lines, values, strict=True)
        if not (v and v["payload"].get("type") == "function_call_output"
                and v["payload"]["call_id"] in ended)
    )  # fmt: skip
    report = patchcore.check_document(cut, filename=relative)
    answered = [f for f in report.findings if f.call_id in ended]
    assert len(answered) == 43
    assert {f.fix.origin for f in answered if f.fix} == {patchcore.Origin.SYNTHESIZED}


def test_a_torn_rollout_line_is_reported_and_kept() -> None:
    """docs/corpus.md#defects-and-controls: "invalid JSON line". The line is reported (a warning
    with its line number); the rest of the rollout, which holds no call, is clean."""
    relative = "codex/claude-code-log-malformed-rollout.jsonl"
    report = patchcore.fix_document(read(relative), filename=relative)
    assert [(r.line, r.warning) for r in report.conversations] == [(1, False), (3, True)]
    assert report.findings == ()
    assert report.output is None


def test_the_agent_sdk_stream_is_clean() -> None:
    """docs/corpus.md#clean-files: "clean (interleaved subagent)". The Claude Agent SDK stream (a
    JSON array of messages without roles) holds two conversations: the main thread (a thinking block
    and the Agent call on two entries, one turn; its result comes after the subagent's entries) and
    the subagent's (``parent_tool_use_id``: its prompt, two parallel calls on two entries, their two
    results). Nothing to report under any rule, nothing to rewrite."""
    relative = "claude-code/vercel-ai-claude-agent-sdk-subagent-stream.json"
    for select in (None, ["ALL"]):
        report = patchcore.fix_document(
            read(relative), filename=relative, options=patchcore.make_options(select=select)
        )
        assert report.layout == "claude-agent-sdk-stream"
        assert [(r.line, r.dialect, r.message_count, r.warning) for r in report.conversations] == [
            (2, "anthropic", 2, False),
            (40, "anthropic", 3, False),
        ]
        assert report.findings == ()
        assert report.output is None


def test_real_logs_copied_just_now_are_judged_by_their_own_clock(tmp_path: Path) -> None:
    """Every real session log, copied now as a clone or ``cp`` leaves it (its file's time is
    now): its entries say the session ended, so no pending call is held back and the one open
    call of the capture is fixable (docs/cli.md#live-sessions). The same capture with its
    entries' times moved to a minute ago is a running session: its call is held, and ``fix``
    writes nothing."""
    from tests.helpers import run
    from tests.session_logs import running

    copies = tmp_path / "copies"
    copies.mkdir()
    for path in SESSIONS:
        (copies / f"{path.parent.name}-{path.name}").write_bytes(path.read_bytes())
    checked = run(["check", "--color", "never", str(copies)], expect=1)
    assert "the session may still be running" not in checked.said
    assert "hint:" not in checked.said
    capture = copies / f"claude-code-{Path(TRUNCATED).name}"
    assert "TP002 [*] tool call" in run(["check", "--color", "never", str(capture)]).said
    live = tmp_path / "live.jsonl"
    live.write_bytes(running(read(TRUNCATED), ago=60)[0])
    before = live.read_bytes()
    held = run(["fix", "--color", "never", str(live)], expect=1)
    assert "the session may still be running" in held.stderr
    assert live.read_bytes() == before
