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
    return Finding(code, "rule", "what", "anthropic", (), 0, (0,), (), "id", "tool", fix)


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
