"""Fine-tuning data through the real entry point (docs/cli.md#fine-tuning-data): a file whose
examples end on the call the model is to learn is judged before anything is written; ``fix``
leaves those calls byte for byte and exits 0 when nothing else is left, says so first, and fixes
the rest of the file as usual; ``--fix-training-targets`` (or the configuration's
``fix-training-targets``) answers them; ``--ignore TP002`` leaves them unreported; every report
format carries the judgement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import SEVEN_OF_TWENTY, fine_tuning_example, fine_tuning_file
from tests.helpers import run
from toolpatch.cli import command_run, output_sinks

#: The judgement of a file of twenty examples, seven of which end on their call.
NOTE = (
    "note: fine-tuning data: 7 of 20 examples end on a tool call, the training target; fix "
    "leaves those calls as they are (--fix-training-targets answers them; --ignore TP002 "
    "leaves them unreported)"
)
#: What each target's finding line ends with.
TARGET = "the fine-tuning example ends on this call, its training target: left as it is"


def training_file(tmp_path: Path, data: bytes | None = None) -> Path:
    target = tmp_path / "train.jsonl"
    target.write_bytes(fine_tuning_file(SEVEN_OF_TWENTY) if data is None else data)
    return target


@pytest.fixture
def order(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What a run did, in order: ``said`` when the judgement was said, ``written`` when a
    repair was put in place of a file or sent to stdout (each still done, as ever)."""
    done: list[str] = []
    say = command_run.render_training_note

    def said(*args: Any, **kwargs: Any) -> None:
        done.append("said")
        say(*args, **kwargs)

    monkeypatch.setattr(command_run, "render_training_note", said)
    for sink in (output_sinks.ReplacedFile, output_sinks.Spool):
        finish = sink.finish

        def written(self: Any, *args: Any, __finish: Any = finish, **kwargs: Any) -> None:
            done.append("written")
            __finish(self, *args, **kwargs)

        monkeypatch.setattr(sink, "finish", written)
    return done


def test_fix_leaves_seven_of_twenty_targets_byte_for_byte(tmp_path: Path) -> None:
    target = training_file(tmp_path)
    before = target.read_bytes()
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert target.read_bytes() == before
    assert result.stderr_lines[0] == f"{target}: {NOTE}", result.show()
    assert result.stderr.count(TARGET) == 7
    assert result.stderr_lines[-1] == (
        "Nothing to fix in 1 file, 7 training targets left as they are (`--fix-training-targets`)."
    )
    assert "[*]" not in result.stderr and "refused by the provider" not in result.stderr


def test_the_judgement_is_said_before_the_write(tmp_path: Path, order: list[str]) -> None:
    """Where other fixes apply, they are written after the judgement was said, and the
    targets' lines stay byte for byte."""
    data = fine_tuning_file(SEVEN_OF_TWENTY)
    lines = data.splitlines(keepends=True)
    inside = fine_tuning_example(4, ends_on_call=False, unanswered_inside=True)
    lines[4] = json.dumps(inside).encode() + b"\n"
    target = training_file(tmp_path, b"".join(lines))
    result = run(["fix", "--color", "never", str(target)], expect=0)
    assert order == ["said", "written"]
    assert result.stderr_lines[:2] == [
        f"{target}: {NOTE}",
        f"Fixed {target}: TP001 x1 (1 synthesized)",
    ]
    after = target.read_bytes().splitlines(keepends=True)
    assert [k for k, (old, new) in enumerate(zip(lines, after, strict=True)) if old != new] == [4]
    assert json.loads(after[4])["messages"][2]["tool_call_id"] == "lost_4"


def test_stdin_passes_the_targets_through(order: list[str]) -> None:
    data = fine_tuning_file(SEVEN_OF_TWENTY)
    result = run(["fix", "--color", "never", "-"], input=data, expect=0)
    assert result.stdout == data
    assert result.stderr_lines[0] == f"-: {NOTE}", result.show()
    assert order == ["said", "written"]
    named = run(["fix", "--stdin-filename", "train.jsonl", "-"], input=data, expect=0)
    assert named.stdout == data


def test_check_reports_the_targets_as_such(tmp_path: Path) -> None:
    """A target is reported, not as fixable, and no defect: check exits 0 on them alone."""
    target = training_file(tmp_path)
    result = run(["check", "--color", "never", str(target)], expect=0)
    assert result.stderr_lines[0] == f"{target}: {NOTE}"
    assert len(result.finding_lines) == 7
    assert all(
        line.endswith(f"{TARGET} [/messages/1/tool_calls/0]") for line in result.finding_lines
    )
    assert result.stdout_lines[-1] == (
        "No findings in 1 file, 7 training targets left as they are (`--fix-training-targets`)."
    )
    inside = fine_tuning_file([False, True], unanswered_inside=True)
    mixed = run(["check", "--color", "never", str(training_file(tmp_path, inside))], expect=1)
    assert ": TP001 [*] " in mixed.said and mixed.said.count(TARGET) == 1
    assert "Found 2 findings in 1 file (2 fixable with `toolpatch fix`)" in mixed.said


@pytest.mark.parametrize(
    "args",
    [["--fix-training-targets"], ["--config", "fix-training-targets = true"]],
    ids=["option", "configuration"],
)
def test_asking_answers_them(tmp_path: Path, args: list[str]) -> None:
    target = training_file(tmp_path)
    result = run(["fix", "--color", "never", *args, str(target)], expect=0)
    assert (
        "Fixed 7 findings in 1 file (7 synthesized)." in result.stderr
        and "note:" not in result.stderr
    )
    lines = [json.loads(line) for line in target.read_bytes().splitlines()]
    ended = [n for n, line in enumerate(lines) if line["messages"][-1]["role"] == "tool"]
    assert ended == [n for n, ends in enumerate(SEVEN_OF_TWENTY) if ends]
    back = run(
        [
            "check",
            "--no-fix-training-targets",
            "--config",
            "fix-training-targets = true",
            str(target),
        ],
        expect=0,
    )
    assert "No findings in 1 file." in back.said


def test_ignoring_tp002_still_works(tmp_path: Path) -> None:
    target = training_file(tmp_path)
    result = run(["fix", "--color", "never", "--ignore", "TP002", str(target)], expect=0)
    assert result.stderr_lines == ["Nothing to fix in 1 file."]


def test_every_report_format_carries_the_judgement(tmp_path: Path) -> None:
    target = training_file(tmp_path)
    message = NOTE.removeprefix("note: ")
    records = json.loads(run(["check", "--output-format", "json", str(target)], expect=0).stdout)
    (warning,) = [r for r in records if r["kind"] == "warning"]
    assert warning == {
        "kind": "warning",
        "file": str(target),
        "line": None,
        "column": None,
        "message": message,
        "pointer": "",
    }
    findings = [r for r in records if r["kind"] == "finding"]
    assert len(findings) == 7
    assert all(r["fix"] is None and r["message"].endswith(TARGET) for r in findings)
    lines = run(["check", "--output-format", "jsonl", str(target)], expect=0).stdout.splitlines()
    assert [json.loads(line) for line in lines] == records
    github = run(["check", "--output-format", "github", str(target)], expect=0).stdout.decode()
    assert f"::warning title=toolpatch (warning),file={target}::{target}: warning: {message}" in (
        github
    )
    assert github.count("::notice title=toolpatch (TP002)") == 7 and "::error" not in github
    sarif = json.loads(run(["check", "--output-format", "sarif", str(target)], expect=0).stdout)
    results = sarif["runs"][0]["results"]
    assert [r["level"] for r in results].count("note") == 7
    assert [r["message"]["text"] for r in results if r["level"] == "warning"] == [message]
    assert all("fixes" not in r for r in results)


def test_quiet_says_no_note(tmp_path: Path) -> None:
    target = training_file(tmp_path)
    result = run(["fix", "-q", str(target)], expect=0)
    assert "note:" not in result.stderr
