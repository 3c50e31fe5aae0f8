"""Agent session logs through the command line: listed by ``toolpatch formats``, odd lines
warned about, and read whole however large (a session's conversation runs across its lines)."""

from __future__ import annotations

from pathlib import Path

import patchcore
from patchcore import Stream
from tests.conftest import SAMPLES
from tests.helpers import run


def test_formats_lists_the_session_layouts() -> None:
    result = run(["formats", "--color", "never"], expect=0)
    listed = result.stdout.decode()
    assert "claude-code  Claude Code session log" in listed
    assert "codex  Codex rollout" in listed
    assert "`~/.claude/projects/<project>/<session>.jsonl`" in listed


def test_check_warns_about_a_line_it_keeps_unread(tmp_path: Path) -> None:
    data = (SAMPLES / "claude-code/interrupt.jsonl").read_bytes()
    target = tmp_path / "session.jsonl"
    target.write_bytes(data + b'{"type": "x-telemetry", "sessionId": "s"}\n')
    result = run(["check", "--color", "never", str(target)], expect=1)
    assert f"{target}:10: /: warning: an event of unknown type 'x-telemetry'; kept as it is" in (
        result.said
    )
    assert f"{target}:3:" in result.said and "TP001 [*]" in result.said
    run(["fix", str(target)], expect=0)
    assert target.read_bytes().endswith(b'{"type": "x-telemetry", "sessionId": "s"}\n')


def test_a_session_over_the_streaming_threshold_is_read_whole() -> None:
    """Streaming cuts JSON Lines into batches of independent lines; a session's lines are not
    independent, so a large one is read whole and repaired exactly as a small one."""
    data = (SAMPLES / "claude-code/parallel-split.jsonl").read_bytes()
    options = patchcore.make_options()
    stream = Stream(iter([data]), filename="s.jsonl", options=options, fix=True, whole_limit=64)
    output = b"".join(stream)
    assert not stream.streamed
    assert stream.result.layout == "claude-code-session"
    assert output == (SAMPLES / "claude-code/parallel-split.fixed.jsonl").read_bytes()


def test_a_result_whose_call_line_is_cut_short_is_kept(tmp_path: Path) -> None:
    """A tool_use line a crash cut short is not JSON, and its tool_result line answers no call
    the session reads (TP101, refused by the API). Its unsafe fix would drop the result; but its
    call may be in the cut line, so even ``--unsafe-fixes`` keeps it and says why. A line of NUL
    bytes, as a crash also leaves, holds no call: the drop stays on offer there."""
    lines = (SAMPLES / "claude-code/parallel-split.jsonl").read_bytes().split(b"\n")
    assert b'"id":"toolu_01TmLis"' in lines[7] and b'"tool_use_id":"toolu_01TmLis"' in lines[9]
    lines[7] = lines[7][: lines[7].index(b'"input"')]
    target = tmp_path / "session.jsonl"
    target.write_bytes(b"\n".join(lines))
    kept = (
        "TP101 tool result for id toolu_01TmLis answers no earlier call; line 8 before it is not "
        "JSON and may hold its call, so the result is kept"
    )
    checked = run(["check", "--select", "ALL", "--color", "never", str(target)], expect=1)
    assert f"{target}:10:286: {kept}" in checked.said
    assert "--unsafe-fixes" not in checked.said
    run(["fix", "--select", "ALL", "--unsafe-fixes", str(target)], expect=1)
    assert lines[9] in target.read_bytes().split(b"\n")
    lines[7] = b"\x00" * 40
    target.write_bytes(b"\n".join(lines))
    checked = run(["check", "--select", "ALL", "--color", "never", str(target)], expect=1)
    assert f"{target}:10:286: TP101 [~] tool result for id toolu_01TmLis" in checked.said
