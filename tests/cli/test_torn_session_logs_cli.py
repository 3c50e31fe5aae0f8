"""`toolpatch fix` of the torn session logs an agent leaves (docs/cli.md#torn-lines), through
the real entry point: NUL bytes a crash left are kept and reported, and the rest repaired; a
line split by a raw line break is written back whole (TP201)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run
from tests.session_logs import cc_assistant, cc_user, compact_jsonl, tool_use

RECORDS = [
    cc_user(1, None, "List."),
    cc_assistant(2, 1, "msg_Ls", tool_use("toolu_Ls", "Bash", command="ls\npwd")),
]


def test_fix_keeps_the_nul_bytes_and_answers_the_call(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    whole = compact_jsonl(RECORDS)
    log.write_bytes(whole + b"\x00" * 64)
    fixed = run(["fix", str(log)], expect=0)
    assert "3: /: warning: 64 NUL bytes and nothing else" in fixed.stderr, fixed.show()
    assert "TP002 x1" in fixed.stderr, fixed.show()
    out = log.read_bytes()
    assert out.startswith(whole) and out.endswith(b"\x00" * 64)
    assert b'"tool_use_id":"toolu_Ls"' in out


def test_fix_writes_a_split_line_back_whole(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    whole = compact_jsonl(RECORDS)
    log.write_bytes(whole.replace(b"\\n", b"\n"))
    checked = run(["check", str(log)], expect=1)
    assert ":2:1: TP201 [*] lines 2-3 hold one entry" in checked.said, checked.show()
    run(["fix", str(log)], expect=0)
    assert log.read_bytes().startswith(whole)
