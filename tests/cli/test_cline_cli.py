"""Cline and Roo Code task histories through the real entry point: the file name
``api_conversation_history.json`` makes the CLI read a file by Cline's convention (the
``cline`` dialect), ``--dialect`` or the configured ``dialect`` overrides the name and chooses
it for other names (docs/formats.md#cline-and-roo-code-task-histories)."""

from __future__ import annotations

from pathlib import Path

from tests.builders import write
from tests.conftest import SAMPLES
from tests.helpers import run

HEALTHY = (SAMPLES / "cline/healthy-task/api_conversation_history.json").read_bytes()
#: The tool_use ids of the healthy task, each answered by the next user message's text.
CALLS = (
    "toolu_01Rk7Wm2Qd9Lx4Tb8Hs3Nc6V",
    "toolu_01Vb5Jn8Kc2Ps6Wd1Mf4Gh9T",
    "toolu_01Ht3Lz6Xe9Qa2Cy5Ur8Bk1W",
)


def test_a_healthy_task_history_has_no_finding_and_fix_leaves_it(tmp_path: Path) -> None:
    task = write(tmp_path / "tasks" / "1764839642113" / "api_conversation_history.json", HEALTHY)
    result = run(["check", str(task)], expect=0)
    assert result.finding_lines == [], result.show()
    run(["fix", str(task)], expect=0)
    assert task.read_bytes() == HEALTHY


def test_the_same_messages_under_another_name_are_read_as_anthropic(tmp_path: Path) -> None:
    other = write(tmp_path / "history.json", HEALTHY)
    result = run(["check", str(other)], expect=1)
    assert [line.split()[1] for line in result.finding_lines] == ["TP001"] * len(CALLS)
    assert all(call in result.said for call in CALLS)


def test_dialect_option_chooses_cline_for_other_names_and_overrides_the_name(
    tmp_path: Path,
) -> None:
    other = write(tmp_path / "history.json", HEALTHY)
    run(["check", "--dialect", "cline", str(other)], expect=0)
    task = write(tmp_path / "api_conversation_history.json", HEALTHY)
    forced = run(["check", "--dialect", "anthropic", str(task)], expect=1)
    assert len(forced.finding_lines) == len(CALLS), forced.show()
    write(tmp_path / "toolpatch.toml", b'dialect = "cline"\n', mtime=None)
    run(["check", str(other)], cwd=tmp_path, expect=0)


def test_stdin_is_named_by_stdin_filename() -> None:
    run(["check", "--stdin-filename", "api_conversation_history.json", "-"], HEALTHY, expect=0)
    run(["check", "-"], HEALTHY, expect=1)


def test_formats_lists_the_cline_dialect() -> None:
    listed = run(["formats"], expect=0).stdout.decode()
    assert "cline  Cline task history" in listed
    assert "api_conversation_history.json" in listed
