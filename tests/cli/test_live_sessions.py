"""A session log written to in the last minutes may belong to an agent that is still running:
its calls pending in the last turn (TP002) are reported as possibly still running and left
unanswered unless ``--force``; calls the history moved past (TP001) are answered as always.
How recent is ``live-session-minutes`` (10 by default, 0: never); stdin is never live, and only
the agent-session layouts are (a corpus or a JSON document is data, not a running agent)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import SAMPLES
from tests.helpers import run

SIDECHAIN = SAMPLES / "claude-code/sidechain.jsonl"  # a TP002: the subagent's last Read
RUNNING = "the session may still be running"


def written_now(tmp_path: Path, sample: Path = SIDECHAIN) -> Path:
    target = tmp_path / sample.name
    target.write_bytes(sample.read_bytes())
    return target


def aged(path: Path, minutes: float) -> Path:
    then = time.time() - minutes * 60
    os.utime(path, (then, then))
    return path


def test_a_session_written_to_now_keeps_its_pending_call(tmp_path: Path) -> None:
    target = written_now(tmp_path)
    checked = run(["check", "--color", "never", str(target)], expect=1)
    assert f"{target}:7:336: TP002 tool call 'Read' (id toolu_01Read)" in checked.stderr
    assert RUNNING in checked.stderr
    assert "TP002 [*]" not in checked.stderr  # not marked fixable
    assert f"{target}: hint: the file was written to in the last 10 minutes" in checked.stderr
    assert "--force answers it" in checked.stderr
    fixed = run(["fix", "--color", "never", str(target)], expect=1)
    assert "Nothing to fix in 1 file, 1 finding not fixable." in fixed.stderr
    assert target.read_bytes() == SIDECHAIN.read_bytes()


def test_force_answers_it(tmp_path: Path) -> None:
    target = written_now(tmp_path)
    run(["check", "--force", "--color", "never", str(target)], expect=1)  # fixable again
    result = run(["fix", "--force", "--color", "never", str(target)], expect=0)
    assert "Fixed 1 finding in 1 file." in result.stderr
    assert target.read_bytes() == (SAMPLES / "claude-code/sidechain.fixed.jsonl").read_bytes()


def test_an_old_session_is_answered_as_before(tmp_path: Path) -> None:
    target = aged(written_now(tmp_path), 11)
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert RUNNING not in result.stderr and "hint:" not in result.stderr
    assert target.read_bytes() == (SAMPLES / "claude-code/sidechain.fixed.jsonl").read_bytes()


def test_calls_the_history_moved_past_are_answered_in_a_live_session(tmp_path: Path) -> None:
    """Codex: an apply_patch call cut off by a new prompt (TP001) and a shell call still
    running at the end (TP002): only the first is answered while the rollout is live."""
    target = written_now(tmp_path, SAMPLES / "codex/patch-and-shell.jsonl")
    result = run(["fix", "--color", "never", str(target)], expect=1)
    assert f"Fixed {target}: TP001 x1" in result.stderr
    assert "TP002" in result.stderr and RUNNING in result.stderr
    assert b"call_5Rw1Patch" in target.read_bytes()
    outputs = [
        json.loads(line)["payload"].get("call_id")
        for line in target.read_bytes().splitlines()
        if b'"function_call_output"' in line or b'"custom_tool_call_output"' in line
    ]
    assert "call_9Zt4GitTag" not in outputs and "call_5Rw1Patch" in outputs
    run(["fix", "--force", str(target)], expect=0)
    expected = (SAMPLES / "codex/patch-and-shell.fixed.jsonl").read_bytes()
    assert target.read_bytes() == expected


def test_the_configuration_key(tmp_path: Path) -> None:
    target = written_now(tmp_path)
    run(["check", "--config", "live-session-minutes = 0", str(target)], expect=1)
    off = run(["check", "--color", "never", "--config", "live-session-minutes = 0", str(target)])
    assert RUNNING not in off.stderr and "TP002 [*]" in off.stderr
    aged(target, 30)
    assert RUNNING not in run(["check", "--color", "never", str(target)]).stderr
    (tmp_path / "toolpatch.toml").write_text("live-session-minutes = 60\n")
    longer = run(["fix", "--color", "never", str(target)], expect=1)
    assert RUNNING in longer.stderr and "the last 60 minutes" in longer.stderr
    assert target.read_bytes() == SIDECHAIN.read_bytes()
    bad = run(["check", "--config", "live-session-minutes = -1", str(target)], expect=2)
    assert "live-session-minutes: expected a number of minutes" in bad.stderr


def test_stdin_is_never_live() -> None:
    result = run(
        ["fix", "--stdin-filename", "session.jsonl", "-"], input=SIDECHAIN.read_bytes(), expect=0
    )
    assert result.stdout == (SAMPLES / "claude-code/sidechain.fixed.jsonl").read_bytes()


def test_a_corpus_written_to_now_is_not_live(tmp_path: Path) -> None:
    """A training set being written is no running agent: its last-turn calls are answered."""
    line = {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_w",
                        "type": "function",
                        "function": {"name": "weather", "arguments": "{}"},
                    }
                ],
            },
        ]
    }
    target = tmp_path / "corpus.jsonl"
    target.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert "Fixed 2 findings in 1 file." in result.stderr
    document = tmp_path / "history.json"
    document.write_text(json.dumps(line["messages"]))
    run(["fix", str(document)], expect=0)
    assert b'"tool_call_id"' in document.read_bytes()


def test_the_machine_report_says_why_there_is_no_fix(tmp_path: Path) -> None:
    target = written_now(tmp_path)
    result = run(["check", "--output-format", "json", str(target)], expect=1)
    (finding,) = [r for r in json.loads(result.stdout) if r["kind"] == "finding"]
    assert finding["code"] == "TP002" and finding["fix"] is None
    assert RUNNING in finding["message"]
