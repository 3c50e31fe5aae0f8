"""``live`` (`patchcore.Options.live`): in an agent session that may still be running, a call
pending in the last turn (TP002) gets no fix and says why; the rest is checked and repaired as
in any session, and only the session layouts read the option."""

from __future__ import annotations

import json

import patchcore
from patchcore.layouts.base import Analysis
from patchcore.layouts.sessions.layout import STILL_RUNNING, held_while_live
from patchcore.model import Finding, Fix, Insert
from patchcore.pipeline import run
from patchcore.rules import Applicability
from tests.conftest import SAMPLES
from tests.session_logs import codex_item, codex_user, exec_call, newest_time, rollout

LIVE = patchcore.make_options(live=True)


def test_a_live_session_keeps_its_pending_calls_and_answers_the_others() -> None:
    data = (SAMPLES / "codex/patch-and-shell.jsonl").read_bytes()
    result = run(data, filename="rollout.jsonl", options=LIVE, fix=True)
    assert [f.code for f in result.fixed] == ["TP001"]
    (held,) = result.remaining
    assert held.code == "TP002" and held.fix is None
    assert held.message.endswith(f"; {STILL_RUNNING}")
    assert result.conversations[0].findings[-1] is held  # the conversation says the same
    shown = patchcore.make_options(live=True, with_messages=True)
    listed = run(data, filename="rollout.jsonl", options=shown, fix=False).conversations[0]
    assert listed.edits[-1] == () and listed.edits[0] != ()  # show draws no result for it


def test_without_live_it_is_answered() -> None:
    data = (SAMPLES / "claude-agent-sdk/parallel-interrupted.jsonl").read_bytes()
    assert len(run(data, filename="s.jsonl", options=LIVE, fix=True).fixed) == 0
    fixed = run(data, filename="s.jsonl", options=patchcore.make_options(), fix=True)
    expected = (SAMPLES / "claude-agent-sdk/parallel-interrupted.fixed.jsonl").read_bytes()
    assert fixed.output == expected


def test_only_sessions_are_live() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [call]}]
    document = json.dumps(messages).encode()
    assert [f.code for f in run(document, filename=None, options=LIVE, fix=True).fixed] == ["TP002"]


def finding(code: str, fix: Fix | None) -> Finding:
    return Finding(
        code,
        "rule",
        "what",
        "anthropic",
        (),
        0,
        (0,),
        (),
        "id",
        "tool",
        fix,
        pending=code == "TP002",
    )


def test_a_fix_sharing_an_edit_with_a_held_one_is_held_too() -> None:
    """One new entry answering a turn's calls is one edit: a fix of another finding that
    carries it would answer the pending call all the same."""
    shared = Insert((), 1, ("results",))
    own = Insert((), 3, ("other",))
    pending = finding("TP002", Fix(Applicability.SAFE, "answer", (shared,)))
    sharing = finding("TP003", Fix(Applicability.SAFE, "answer", (shared,)))
    apart = finding("TP001", Fix(Applicability.SAFE, "answer", (own,)))
    analysis = held_while_live(Analysis((), (pending, sharing, apart)))
    assert [f.fix is None for f in analysis.findings] == [True, True, False]
    assert analysis.findings[2] is apart


def test_a_held_finding_says_it_was_held_and_why() -> None:
    """``Finding.held``: the library says which findings it held back and why, so that no
    caller guesses it from a finding without a fix or from its sentence."""
    data = (SAMPLES / "codex/patch-and-shell.jsonl").read_bytes()
    result = run(data, filename="rollout.jsonl", options=LIVE, fix=True)
    assert [(f.code, f.held) for f in result.findings] == [
        ("TP001", None),
        ("TP002", STILL_RUNNING),
    ]
    assert result.remaining[0].held == STILL_RUNNING
    assert all(
        f.held is None
        for f in run(data, filename="r.jsonl", options=patchcore.make_options(), fix=True).findings
    )


SIDECHAIN = (SAMPLES / "claude-code/sidechain.jsonl").read_bytes()


def test_the_log_s_own_clock_decides() -> None:
    """``live_since``: the newest time the entries record decides, whatever the caller judged
    from the file; the result says what was decided, and from which time."""
    newest = newest_time(SIDECHAIN)
    ended = patchcore.make_options(live=True, live_since=newest + 1)
    result = run(SIDECHAIN, filename="s.jsonl", options=ended, fix=True)
    assert [f.code for f in result.fixed] == ["TP002"]
    assert not result.live and result.last_entry == newest
    running = patchcore.make_options(live=False, live_since=newest)
    result = run(SIDECHAIN, filename="s.jsonl", options=running, fix=True)
    assert result.fixed == () and result.live and result.last_entry == newest
    (held,) = result.remaining
    assert held.message.endswith(f"; {STILL_RUNNING}")


def test_gemini_cli_s_last_update_counts() -> None:
    """A Gemini CLI message appended again keeps its first ``timestamp``; ``lastUpdated`` (the
    metadata's, and each ``$set`` of it) says when the log last changed."""
    data = (SAMPLES / "gemini-cli/session-log.jsonl").read_bytes()
    lines = [json.loads(line) for line in data.splitlines()]
    messages = [line["timestamp"] for line in lines if "timestamp" in line]
    assert max(messages) < lines[0]["lastUpdated"] == "2026-03-02T08:16:41.930Z"
    result = run(data, filename="s.jsonl", options=patchcore.make_options(), fix=False)
    assert result.last_entry == newest_time(b'"2026-03-02T08:16:41.930Z"')


def test_a_log_that_records_no_time_is_live_as_the_caller_judged() -> None:
    data = (SAMPLES / "claude-agent-sdk/parallel-interrupted.jsonl").read_bytes()
    options = patchcore.make_options(live=True, live_since=1e12)
    result = run(data, filename="s.jsonl", options=options, fix=True)
    assert result.live and result.last_entry is None and result.fixed == ()
    options = patchcore.make_options(live=False, live_since=0)
    assert not run(data, filename="s.jsonl", options=options, fix=True).live


def test_a_pending_call_with_malformed_arguments_is_held_like_tp002() -> None:
    """A call cut off at the token limit in the last turn is TP003, and still pending: the
    running agent answers it (with the tool's error) as it answers any call."""
    cut = {**exec_call("call_cut", "git status"), "arguments": '{"cmd": "git sta'}
    lines = [
        rollout(0, "session_meta", {"id": "019e", "cwd": "/home/ana/shop"}),
        *codex_user(1, "what changed?"),
        codex_item(2, exec_call("call_past", "git diff")),
        *codex_user(3, "never mind, status?"),
        codex_item(4, cut),
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    live = run(data, filename="r.jsonl", options=LIVE, fix=True)
    assert [f.code for f in live.fixed] == ["TP001"]
    (held,) = live.remaining
    assert held.code == "TP003" and held.pending and held.fix is None
    assert held.message.endswith(f"; {STILL_RUNNING}")
    ended = run(data, filename="r.jsonl", options=patchcore.make_options(), fix=True)
    assert sorted(f.code for f in ended.fixed) == ["TP001", "TP003"]
