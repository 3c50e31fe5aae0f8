"""``--keep-invalid-lines`` (and the ``keep-invalid-lines`` key) through the command line: a
corpus with a torn line is checked and repaired around it, the line is kept byte for byte and
reported with its line and column in every report format, and the exit code is 1. Without it a
torn line fails the whole file (exit 2, nothing written), as before."""

from __future__ import annotations

import json
from pathlib import Path

from tests.builders import NULS, TORN, conversation, torn_corpus
from tests.helpers import run

KEPT = "warning: not JSON (invalid JSON"


def corpus_file(tmp_path: Path, data: bytes | None = None) -> Path:
    target = tmp_path / "train.jsonl"
    target.write_bytes(torn_corpus() if data is None else data)
    return target


def test_without_the_option_the_file_fails_and_nothing_is_written(tmp_path: Path) -> None:
    target = corpus_file(tmp_path, b"\n".join([conversation(1), TORN, conversation(3)]))
    before = target.read_bytes()
    result = run(["fix", "--color", "never", str(target)], expect=2)
    assert f"{target}:2:42: error: invalid JSON" in result.stderr
    assert target.read_bytes() == before


HINT = "hint: a line torn by a crash while the file was written? --keep-invalid-lines keeps"


def test_the_error_of_a_torn_corpus_line_names_the_option(tmp_path: Path) -> None:
    """A torn line in a corpus of one conversation per line, the last or the first: the
    error says what would get past it."""
    for lines in ([conversation(1), TORN], [TORN, conversation(2), conversation(3)]):
        target = corpus_file(tmp_path, b"\n".join(lines))
        result = run(["check", "--color", "never", str(target)], expect=2)
        assert f"{target}: {HINT}" in result.stderr
        run(["check", "--keep-invalid-lines", str(target)], expect=1)


def test_no_such_hint_where_the_option_would_not_help(tmp_path: Path) -> None:
    """A file of one message per line still fails with it; a JSON document is no lines."""
    messages = tmp_path / "messages.jsonl"
    messages.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "assi\n')
    document = tmp_path / "history.json"
    document.write_bytes(b'[{"role": "user", "content": "hi"}')
    for target in (messages, document):
        assert "hint:" not in run(["check", str(target)], expect=2).stderr


def test_check_reports_each_kept_line_and_the_findings(tmp_path: Path) -> None:
    target = corpus_file(tmp_path)
    result = run(["check", "--keep-invalid-lines", "--color", "never", str(target)], expect=1)
    assert f"{target}:2:42: {KEPT}: " in result.stderr
    assert result.stderr.count("kept as it is") == 2
    assert f"{target}:4:1: warning: not JSON (NUL byte" in result.stderr
    assert [
        line.split(": ")[0]
        for line in (result.stdout_lines + result.stderr_lines)
        if ": TP001" in line
    ] == [f"{target}:{n}:{column_of(n)}" for n in (1, 3, 5)]
    assert "2 lines kept as they are (not JSON)" in result.said


def column_of(number: int) -> int:
    return conversation(number).index(b'{"role": "assistant"') + 1


def test_fix_repairs_the_other_lines_and_exits_1(tmp_path: Path) -> None:
    target = corpus_file(tmp_path)
    result = run(["fix", "--keep-invalid-lines", "--color", "never", str(target)], expect=1)
    assert (
        "Fixed 3 findings in 1 file (3 synthesized), 2 lines kept as they are (not JSON)."
        in result.stderr
    )
    lines = target.read_bytes().split(b"\n")
    assert lines[1] == TORN and lines[3] == NULS
    assert all(b'"tool_call_id"' in lines[k] for k in (0, 2, 4))
    again = run(["fix", "--keep-invalid-lines", "--color", "never", str(target)], expect=1)
    assert "Nothing to fix in 1 file, 2 lines kept as they are (not JSON)." in again.stderr
    run(["fix", "--keep-invalid-lines", "--exit-zero", str(target)], expect=0)


def test_only_torn_lines_left_exits_1_and_a_clean_file_0(tmp_path: Path) -> None:
    answered = conversation(1, answered=True)
    target = corpus_file(tmp_path, b"\n".join([answered, TORN]))
    run(["check", "--keep-invalid-lines", str(target)], expect=1)
    target.write_bytes(answered + b"\n")
    run(["check", "--keep-invalid-lines", str(target)], expect=0)


def test_the_configuration_key_and_its_override(tmp_path: Path) -> None:
    target = corpus_file(tmp_path)
    (tmp_path / "toolpatch.toml").write_text("keep-invalid-lines = true\n")
    result = run(["check", "--color", "never", str(target)], expect=1)
    assert f"{target}:2:42: {KEPT}" in result.stderr
    run(["check", "--no-keep-invalid-lines", str(target)], expect=2)
    (tmp_path / "toolpatch.toml").write_text('keep-invalid-lines = "yes"\n')
    bad = run(["check", str(target)], expect=2)
    assert "keep-invalid-lines: expected true or false" in bad.stderr


def test_stdin_and_diff(tmp_path: Path) -> None:
    data = torn_corpus()
    piped = run(
        ["fix", "--keep-invalid-lines", "--stdin-filename", "train.jsonl", "-"],
        input=data,
        expect=1,
    )
    lines = piped.stdout.split(b"\n")
    assert lines[1] == TORN and lines[3] == NULS
    target = corpus_file(tmp_path)
    diff = run(["fix", "--diff", "--keep-invalid-lines", str(target)], expect=1)
    assert b"+" in diff.stdout and target.read_bytes() == data


def test_machine_reports_carry_the_kept_lines(tmp_path: Path) -> None:
    target = corpus_file(tmp_path)
    name = str(target)
    base = ["check", "--keep-invalid-lines", str(target), "--output-format"]
    records = json.loads(run([*base, "json"], expect=1).stdout)
    kept = [r for r in records if r["kind"] == "warning"]
    assert [(r["file"], r["line"], r["column"]) for r in kept] == [(name, 2, 42), (name, 4, 1)]
    assert kept[0]["message"].startswith("not JSON (invalid JSON") and kept[0]["pointer"] == ""
    assert kept[1]["message"].startswith("not JSON (NUL byte")
    assert sum(1 for r in records if r["kind"] == "finding") == 3
    lines = [json.loads(line) for line in run([*base, "jsonl"], expect=1).stdout.splitlines()]
    assert [(r["line"], r["column"]) for r in lines if r["kind"] == "warning"] == [(2, 42), (4, 1)]
    github = run([*base, "github"], expect=1).stdout.decode()
    assert f"::warning title=toolpatch (warning),file={name},line=2,col=42::" in github
    assert f"{name}:2:42: warning: not JSON (invalid JSON" in github
    sarif = json.loads(run([*base, "sarif"], expect=1).stdout)
    results = sarif["runs"][0]["results"]
    warnings = [r for r in results if r["level"] == "warning"]
    regions = [w["locations"][0]["physicalLocation"]["region"] for w in warnings]
    assert [(r["startLine"], r.get("startColumn")) for r in regions] == [(2, 42), (4, 1)]
