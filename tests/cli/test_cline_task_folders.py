"""Cline by what the task folder holds (cli/inputs.py,
docs/formats.md#cline-and-roo-code-task-histories): a renamed or ``.fixed`` copy of a task
history in a Cline task folder is read as Cline sends it, not as plain Anthropic messages."""

from __future__ import annotations

from pathlib import Path

from tests.builders import write
from tests.conftest import SAMPLES
from tests.helpers import run

HEALTHY = (SAMPLES / "cline/healthy-task/api_conversation_history.json").read_bytes()
#: What Cline's chat panel keeps beside the history (``ui_messages.json``): say and ask rows.
UI_MESSAGES = b'[{"ts": 1764839642113, "type": "say", "say": "task", "text": "Fix the test"}]\n'


def test_a_renamed_copy_beside_ui_messages_is_read_as_cline(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "1764839642113"
    write(task / "ui_messages.json", UI_MESSAGES)
    copy = write(task / "history-backup.json", HEALTHY)
    result = run(["check", str(copy)], expect=0)
    assert result.finding_lines == [], result.show()


def test_a_fixed_copy_beside_the_history_is_read_as_cline(tmp_path: Path) -> None:
    task = tmp_path / "tasks" / "1764839642113"
    write(task / "api_conversation_history.json", HEALTHY)
    fixed = write(task / "api_conversation_history.fixed.json", HEALTHY)
    run(["check", str(fixed)], expect=0)
    run(["check", str(task)], expect=0)


def test_the_same_copy_outside_a_task_folder_is_anthropic(tmp_path: Path) -> None:
    """Nothing but content then, which cannot tell Cline: the text-answered calls dangle."""
    copy = write(tmp_path / "elsewhere" / "history-backup.json", HEALTHY)
    result = run(["check", str(copy)], expect=1)
    assert {line.split()[1] for line in result.finding_lines} == {"TP001"}, result.show()


def test_clines_other_task_files_keep_their_reading(tmp_path: Path) -> None:
    """``ui_messages.json`` is no model conversation: no history, as before."""
    task = tmp_path / "tasks" / "1764839642113"
    write(task / "api_conversation_history.json", HEALTHY)
    ui = write(task / "ui_messages.json", UI_MESSAGES)
    result = run(["check", str(ui)], expect=2)
    assert "no message history" in result.stderr, result.show()


def test_the_shipped_fixed_sample_reports_nothing() -> None:
    result = run(["check", "--force", str(SAMPLES / "cline")], expect=1)
    fixed = "interrupted-task/api_conversation_history.fixed.json"
    assert not [line for line in result.stderr_lines if fixed in line], result.show()
    assert len(result.finding_lines) == 1, "the interrupted task's pending call only"
