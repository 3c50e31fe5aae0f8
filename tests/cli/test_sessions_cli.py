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
