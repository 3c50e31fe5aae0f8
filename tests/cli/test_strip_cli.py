"""``toolpatch strip`` through the command line, as a user runs it (docs/cli.md#strip)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SAMPLES
from tests.helpers import run


def test_strip_right_after_fix_gives_back_a_session_log(tmp_path: Path) -> None:
    """Through the command line, as a user runs it: ``fix --force`` on a log just copied (so
    written to moments ago), then ``strip`` at once."""
    original = (SAMPLES / "claude-code" / "sidechain.jsonl").read_bytes()
    log = tmp_path / "session.jsonl"
    log.write_bytes(original)
    run(["fix", "--force", log.name], cwd=tmp_path, expect=0)
    assert log.read_bytes() != original
    done = run(["strip", log.name], cwd=tmp_path, expect=0)
    assert log.read_bytes() == original, done.show()
