"""An agent session that may still be running: its calls pending in the last turn (TP002, and
TP003 there) are reported as possibly still running and left unanswered, and ``fix`` writes
nothing over its log (the agent appends to it), unless ``--force``; what else it would fix is
reported. Whether a session is running, its own clock says (docs/cli.md#live-sessions): the
newest time its entries record, within ``live-session-minutes`` (10 by default, 0: never); the
file's modification time only for a log that records none. A copy, a checkout or an unpacked
archive gives an ended session the time of now, so the samples are judged here on copies made
just now, as a fresh clone leaves them. stdin is never live, and only the agent-session
layouts are (a corpus or a JSON document is data, not a running agent)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.helpers import run
from tests.session_logs import newest_time, running, shifted
from toolpatch.cli.inputs import OpenForWriting

SIDECHAIN = SAMPLES / "claude-code/sidechain.jsonl"  # a TP002: the subagent's last Read
RUNNING = "the session may still be running"
NOT_WRITTEN = "not written (`--force`)"


def written_now(tmp_path: Path, sample: Path = SIDECHAIN, *, ago: float | None = None) -> Path:
    """A copy of ``sample`` made just now; with ``ago``, its entries' times moved so that the
    newest is ``ago`` seconds old (its session still running)."""
    target = tmp_path / sample.name
    data = sample.read_bytes()
    target.write_bytes(data if ago is None else running(data, ago=ago)[0])
    return target


def repaired(sample: Path, copy: bytes) -> bytes:
    """The stated repair of ``sample`` (its ``.fixed`` file) with its times moved as those of
    ``copy``, a running copy of it, were."""
    shift = round(newest_time(copy) - newest_time(sample.read_bytes()))
    fixed = sample.with_name(sample.name.replace(".json", ".fixed.json"))
    return shifted(fixed.read_bytes(), shift)


def aged(path: Path, minutes: float) -> Path:
    then = time.time() - minutes * 60
    os.utime(path, (then, then))
    return path


def test_a_session_running_now_keeps_its_pending_call(tmp_path: Path) -> None:
    target = written_now(tmp_path, ago=20)
    original = target.read_bytes()
    checked = run(["check", "--color", "never", str(target)], expect=1)
    assert f"{target}:7:336: TP002 tool call 'Read' (id toolu_01Read)" in checked.said
    assert RUNNING in checked.said
    assert "TP002 [*]" not in checked.said  # not marked fixable
    hint = f"{target}: hint: its last entry was written less than a minute ago"
    assert hint in checked.stderr
    assert "--force answers it" in checked.stderr
    fixed = run(["fix", "--color", "never", str(target)], expect=1)
    assert "Nothing to fix in 1 file, 1 finding not fixable." in fixed.stderr
    assert target.read_bytes() == original


def test_force_answers_it(tmp_path: Path) -> None:
    target = written_now(tmp_path, ago=20)
    expected = repaired(SIDECHAIN, target.read_bytes())
    run(["check", "--force", "--color", "never", str(target)], expect=1)  # fixable again
    result = run(["fix", "--force", "--color", "never", str(target)], expect=0)
    assert "Fixed 1 finding in 1 file (1 synthesized)." in result.stderr
    assert target.read_bytes() == expected


def test_an_old_session_is_answered_as_before(tmp_path: Path) -> None:
    target = aged(written_now(tmp_path), 11)
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert RUNNING not in result.stderr and "hint:" not in result.stderr
    assert target.read_bytes() == (SAMPLES / "claude-code/sidechain.fixed.jsonl").read_bytes()


@pytest.mark.parametrize(
    "sample",
    ["claude-code/sidechain.jsonl", "codex/patch-and-shell.jsonl", "gemini-cli/session-log.jsonl"],
)
def test_an_ended_session_copied_just_now_is_not_live(tmp_path: Path, sample: str) -> None:
    """Its file is new, its entries are not: the session ended when its last entry was
    written, and its pending call is answered (a fresh clone of a repository, ``cp``, an
    unpacked archive)."""
    target = written_now(tmp_path, SAMPLES / sample)
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert RUNNING not in result.stderr and "hint:" not in result.stderr
    expected = SAMPLES / sample.replace(".jsonl", ".fixed.jsonl")
    assert target.read_bytes() == expected.read_bytes()


def test_the_samples_of_a_fresh_clone_are_judged_by_their_entries(tmp_path: Path) -> None:
    """Every session sample copied as a clone leaves it (every file's time now): those whose
    entries record times are checked as the ended sessions they are (their pending calls
    fixable); the Claude Agent SDK's stream records none, so its file's time decides."""
    clone = tmp_path / "samples"
    for folder in ("claude-code", "codex", "gemini-cli", "claude-agent-sdk"):
        shutil.copytree(SAMPLES / folder, clone / folder, copy_function=shutil.copyfile)
    timed = [str(clone / f) for f in ("claude-code", "codex", "gemini-cli")]
    result = run(["check", "--color", "never", *timed], expect=1)
    assert RUNNING not in result.stderr and "hint:" not in result.stderr
    streams = run(["check", "--color", "never", str(clone / "claude-agent-sdk")], expect=1)
    assert RUNNING in streams.said
    assert "hint: the file was written to in the last 10 minutes" in streams.stderr


def test_a_recent_last_entry_in_an_old_file_is_live(tmp_path: Path) -> None:
    """``cp -p`` keeps an old file time; the log's own last entry says the agent wrote a
    minute ago."""
    # 90 s, not 60: `running` rounds its shift to whole seconds, and a minute is counted whole
    target = aged(written_now(tmp_path, ago=90), 120)
    original = target.read_bytes()
    result = run(["fix", "--color", "never", str(target)], expect=1)
    assert RUNNING in result.stderr
    assert "hint: its last entry was written 1 minute ago" in result.stderr
    assert target.read_bytes() == original


def test_a_log_that_records_no_time_goes_by_its_file(tmp_path: Path) -> None:
    """The Claude Agent SDK's stream has no times: its file's decides."""
    sample = SAMPLES / "claude-agent-sdk/parallel-interrupted.jsonl"
    target = written_now(tmp_path, sample)
    result = run(["fix", "--color", "never", str(target)], expect=1)
    assert RUNNING in result.stderr and "written to in the last 10 minutes" in result.stderr
    assert target.read_bytes() == sample.read_bytes()
    run(["fix", str(aged(target, 11))], expect=0)
    assert target.read_bytes() == sample.with_name("parallel-interrupted.fixed.jsonl").read_bytes()


def test_a_live_log_is_not_written_at_all(tmp_path: Path) -> None:
    """Codex: an apply_patch call cut off by a new prompt (TP001) and a shell call still
    running at the end (TP002). The agent still appends to its rollout: a new file put in its
    place would lose what it writes next, so ``fix`` writes nothing there, whatever the rule,
    and says what it would do; ``-o`` elsewhere writes the repair (TP002 held); ``--force``
    writes the file."""
    sample = SAMPLES / "codex/patch-and-shell.jsonl"
    target = written_now(tmp_path, sample, ago=30)
    original = target.read_bytes()
    checked = run(["check", "--color", "never", str(target)], expect=1)
    assert "TP001 [*]" in checked.said and RUNNING in checked.said
    # its summary said "1 fixable with `toolpatch fix`", which writes nothing here
    summary = "Found 2 findings in 1 file (1 fixable once the agent has stopped or with `--force`)"
    assert summary in checked.said
    forced = run(["check", "--force", "--color", "never", str(target)], expect=1)
    assert "Found 2 findings in 1 file (2 fixable with `toolpatch fix`)" in forced.said
    result = run(["fix", "--color", "never", str(target)], expect=1)
    assert target.read_bytes() == original
    assert "Fixed" not in result.stderr
    assert f"{target}:" in result.stderr and "TP001 [*]" in result.stderr
    assert "--force answers it and writes the file" in result.stderr
    assert f"1 finding in 1 live session log {NOT_WRITTEN}" in result.stderr
    assert "1 finding not fixable" in result.stderr  # the held TP002
    copy = tmp_path / "copy.jsonl"
    run(["fix", "-o", str(copy), str(target)], expect=1)
    outputs = [
        json.loads(line)["payload"].get("call_id")
        for line in copy.read_bytes().splitlines()
        if b'"function_call_output"' in line or b'"custom_tool_call_output"' in line
    ]
    assert "call_9Zt4GitTag" not in outputs and "call_5Rw1Patch" in outputs
    assert target.read_bytes() == original
    run(["fix", "--force", str(target)], expect=0)
    assert target.read_bytes() == repaired(sample, original)


@contextmanager
def appending(path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """An agent as a process of its own: it holds ``path`` open for appending (as Claude Code
    holds its log during a long tool call) until it is told to write its next entries, which
    it then appends to the file it holds."""
    script = (
        "import sys\n"
        "log = open(sys.argv[1], 'ab')\n"
        "print('open', flush=True)\n"
        "log.write(sys.stdin.buffer.read())\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as agent:
        assert agent.stdout is not None
        assert agent.stdout.readline() == b"open\n"
        try:
            yield agent
        finally:
            agent.kill()


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="Linux: open files in /proc")
def test_a_log_held_open_for_writing_is_never_written(tmp_path: Path) -> None:
    """A Claude Code log whose last entry is 11 minutes old, still held open for appending by
    its agent (a long tool call), was renamed over by ``fix``: the entries the agent wrote next
    went to the old file and were lost. A log that a process holds open for writing is live
    whatever the age of its last entry, with ``--force`` and ``live-session-minutes = 0`` too:
    its pending call is left, nothing is written over it, and the hint names the process. Once
    the agent has closed it, ``fix`` repairs it as before."""
    target = written_now(tmp_path, ago=11 * 60)
    original = target.read_bytes()
    (tmp_path / "toolpatch.toml").write_text("live-session-minutes = 0\n")
    later = b"".join(line + b"\n" for line in original.splitlines()[-1:] * 10)
    with appending(target) as agent:
        checked = run(["check", "--color", "never", str(target)], cwd=tmp_path, expect=1)
        assert RUNNING in checked.said and "TP002 [*]" not in checked.said
        hint = f"{target.name}: hint: process {agent.pid} holds it open for writing"
        assert hint in checked.stderr
        for force in ([], ["--force"]):
            fixed = run(["fix", *force, "--color", "never", str(target)], cwd=tmp_path, expect=1)
            assert "Fixed" not in fixed.stderr, fixed.stderr
            assert target.read_bytes() == original
        agent.communicate(later)  # the agent's next entries, to the file it holds
    assert target.read_bytes() == original + later  # none lost
    fixed = run(["fix", "--color", "never", str(target)], cwd=tmp_path, expect=0)
    assert "Fixed 1 finding in 1 file" in fixed.stderr
    assert target.read_bytes() != original + later


def test_only_writers_count_and_without_proc_the_clock_decides(tmp_path: Path) -> None:
    """A process that holds the log open for reading (a viewer, toolpatch itself) is no
    writer; where there is no ``/proc`` (not Linux) no writer is seen, and the clock alone
    decides (docs/cli.md#live-sessions)."""
    target = written_now(tmp_path)
    with target.open("rb"):
        assert OpenForWriting().holders(target.stat()) == ()
    with target.open("ab"):
        if Path("/proc/self/fdinfo").is_dir():
            assert OpenForWriting().holders(target.stat()) == (os.getpid(),)
        assert OpenForWriting(str(tmp_path / "no-proc")).holders(target.stat()) == ()


def test_a_live_log_with_only_calls_moved_past(tmp_path: Path) -> None:
    """Nothing held back but the write: the hint says so, and a check says that fix will not
    write it."""
    sample = SAMPLES / "codex/aborted-turn.jsonl"
    target = written_now(tmp_path, sample, ago=30)
    original = target.read_bytes()
    checked = run(["check", "--color", "never", str(target)], expect=1)
    assert "fix writes nothing to it until it has stopped, or with --force" in checked.stderr
    result = run(["fix", "--color", "never", str(target)], expect=1)
    assert "nothing was written" in result.stderr and "--force writes it" in result.stderr
    assert target.read_bytes() == original


def test_strip_does_not_write_a_live_log_either(tmp_path: Path) -> None:
    target = written_now(tmp_path, ago=20)
    original = target.read_bytes()
    run(["fix", "--force", str(target)], expect=0)
    repaired = target.read_bytes()
    result = run(["strip", "--color", "never", str(target)], expect=1)
    assert target.read_bytes() == repaired
    assert "nothing was written" in result.stderr
    run(["strip", "--force", str(target)], expect=0)
    assert target.read_bytes() == original


def test_the_configuration_key(tmp_path: Path) -> None:
    target = written_now(tmp_path, ago=20)
    original = target.read_bytes()
    run(["check", "--config", "live-session-minutes = 0", str(target)], expect=1)
    off = run(["check", "--color", "never", "--config", "live-session-minutes = 0", str(target)])
    assert RUNNING not in off.said and "TP002 [*]" in off.said
    target.write_bytes(running(original, ago=30 * 60 + 30)[0])  # half a minute's margin
    assert RUNNING not in run(["check", "--color", "never", str(target)]).stderr
    thirty = target.read_bytes()
    (tmp_path / "toolpatch.toml").write_text("live-session-minutes = 60\n")
    longer = run(["fix", "--color", "never", str(target)], expect=1)
    assert RUNNING in longer.stderr and "its last entry was written 30 minutes ago" in longer.stderr
    assert target.read_bytes() == thirty
    bad = run(["check", "--config", "live-session-minutes = -1", str(target)], expect=2)
    assert "live-session-minutes: expected a number of minutes" in bad.stderr


def test_stdin_is_never_live() -> None:
    data, _ = running(SIDECHAIN.read_bytes(), ago=20)
    result = run(["fix", "--stdin-filename", "session.jsonl", "-"], input=data, expect=0)
    assert result.stdout == repaired(SIDECHAIN, data)


def test_a_corpus_written_to_now_is_not_live(tmp_path: Path) -> None:
    """A corpus being written is no running agent: its last-turn calls are answered (recorded
    requests, with their ``model``: no fine-tuning examples, whose targets are left)."""
    line = {
        "model": "gpt-4o",
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
        ],
    }
    target = tmp_path / "corpus.jsonl"
    target.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert "Fixed 2 findings in 1 file (2 synthesized)." in result.stderr
    document = tmp_path / "history.json"
    document.write_text(json.dumps(line["messages"]))
    run(["fix", str(document)], expect=0)
    assert b'"tool_call_id"' in document.read_bytes()


@pytest.mark.parametrize(
    "sample",
    [
        "anthropic/server-tool-unanswered.json",
        "openai-responses/stored-response.json",
        "openai-responses/agents-sdk-run-state.json",
    ],
)
def test_no_live_hint_for_a_fresh_file_that_is_no_session_log(tmp_path: Path, sample: str) -> None:
    """Their pending calls have no fix for reasons of their own; ``--force`` changes nothing
    there, and the hint does not say it does."""
    target = written_now(tmp_path, SAMPLES / sample)
    for command in ("check", "fix"):
        result = run([command, "--color", "never", str(target)], expect=1)
        assert "hint:" not in result.stderr and "--force" not in result.stderr


def test_the_machine_report_says_why_there_is_no_fix(tmp_path: Path) -> None:
    target = written_now(tmp_path, ago=20)
    result = run(["check", "--output-format", "json", str(target)], expect=1)
    (finding,) = [r for r in json.loads(result.stdout) if r["kind"] == "finding"]
    assert finding["code"] == "TP002" and finding["fix"] is None
    assert RUNNING in finding["message"]


def test_a_result_kept_for_a_cut_line_is_no_running_call(tmp_path: Path) -> None:
    """A live log whose only held-back fix is an orphan result's, kept because the line before
    it is not JSON (docs/formats.md#claude-code): the hint says the file is not written while
    the agent may append to it, and promises no answer from ``--force`` for a running call."""
    sample = SAMPLES / "claude-code/parallel-split.jsonl"
    target = written_now(tmp_path, sample, ago=30)
    lines = target.read_bytes().split(b"\n")
    lines[7] = lines[7][: lines[7].index(b'"input"')]
    target.write_bytes(b"\n".join(lines))
    checked = run(["check", "--select", "ALL", "--color", "never", str(target)], expect=1)
    assert "line 8 before it is not JSON and may hold its call" in checked.said
    assert "fix writes nothing to it until it has stopped, or with --force" in checked.stderr
    assert "may still be running that call" not in checked.stderr
