"""Fine-tuning data whose examples end on the call the model is to learn: a plain ``fix`` would
append a made-up result to each. When most conversations of a file (at least 5, more than half)
end on their own pending call (TP002), the report says so once per file and suggests leaving
TP002 out; a file where only a few end so gets no hint."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run
from toolpatch.cli.file_hints import TRAINING_MIN_CONVERSATIONS

HINT = "conversations end on a tool call of their own last turn (TP002)"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]


def example(number: int, *, ends_on_call: bool) -> str:
    """One training example: a question, and the target call (with its answer when the
    example does not end on it)."""
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": "Oslo"})},
            }
        ],
    }
    messages = [{"role": "user", "content": f"weather in Oslo, take {number}?"}, call]
    if not ends_on_call:
        messages += [
            {"role": "tool", "tool_call_id": f"call_{number}", "content": "4 degrees"},
            {"role": "assistant", "content": "4 degrees in Oslo."},
        ]
    return json.dumps({"messages": messages, "tools": TOOLS})


def training_file(tmp_path: Path, endings: list[bool]) -> Path:
    target = tmp_path / "train.jsonl"
    target.write_text("".join(example(n, ends_on_call=e) + "\n" for n, e in enumerate(endings)))
    return target


def test_a_fine_tuning_file_gets_one_hint(tmp_path: Path) -> None:
    target = training_file(tmp_path, [True] * 8)
    result = run(["check", "--color", "never", str(target)], expect=1)
    assert result.stderr.count(HINT) == 1
    hint = next(line for line in result.stderr_lines if HINT in line)
    assert hint.startswith(f"{target}: hint: 8 of 8 conversations end on a tool call")
    assert hint.endswith('(--ignore TP002, or in per-file-ignores: "train.jsonl" = ["TP002"])')
    assert result.stderr_lines.index(hint) > max(
        k for k, line in enumerate(result.stderr_lines) if ": TP002 [*]" in line
    )
    fixed = run(["check", "--color", "never", "--ignore", "TP002", str(target)], expect=0)
    assert HINT not in fixed.stderr


def test_fix_says_it_too(tmp_path: Path) -> None:
    target = training_file(tmp_path, [True] * 4 + [False] + [True])
    result = run(["fix", "--check", "--color", "never", str(target)], expect=1)
    assert "hint: 5 of 6 conversations end on a tool call" in result.stderr


def test_a_file_where_only_a_few_conversations_end_so_gets_none(tmp_path: Path) -> None:
    target = training_file(tmp_path, [True, False, False, True, False, False, False])
    result = run(["check", "--color", "never", str(target)], expect=1)
    assert "TP002 [*]" in result.stderr and "hint:" not in result.stderr
    half = training_file(tmp_path, [True, False] * 3)  # half is not most
    assert "hint:" not in run(["check", "--color", "never", str(half)], expect=1).stderr


def test_too_few_conversations_get_none(tmp_path: Path) -> None:
    target = training_file(tmp_path, [True] * (TRAINING_MIN_CONVERSATIONS - 1))
    assert "hint:" not in run(["check", "--color", "never", str(target)], expect=1).stderr


def test_the_machine_reports_carry_it_as_a_warning(tmp_path: Path) -> None:
    target = training_file(tmp_path, [True] * 6)
    records = json.loads(run(["check", "--output-format", "json", str(target)], expect=1).stdout)
    (warning,) = [r for r in records if r["kind"] == "warning"]
    assert warning["line"] is None and warning["file"] == str(target)
    assert warning["message"].startswith("6 of 6 " + HINT)
    github = run(["check", "--output-format", "github", str(target)], expect=1).stdout.decode()
    assert f"::warning title=toolpatch (warning),file={target}::{target}: warning: 6 of 6" in (
        github
    )
    sarif = json.loads(run(["check", "--output-format", "sarif", str(target)], expect=1).stdout)
    levels = [r["level"] for r in sarif["runs"][0]["results"]]
    assert levels.count("warning") == 1 and levels.count("error") == 6
