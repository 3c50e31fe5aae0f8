"""What a person at a terminal gets, and what a pipe never gets: colour (``--color``, NO_COLOR,
FORCE_COLOR), the coloured diff, the tables by rule and by file (``--statistics`` only, on a
terminal or not), and the progress bar.

The progress bar needs a terminal and a run that takes more than a moment: stderr is a pseudo
terminal, and one input is a named pipe that the test fills only after a pause (an input that
is slow to read, like a network file system), so the bar must appear while toolpatch waits.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
from pathlib import Path

import pytest

from tests.builders import ANSI, CLEAN, DANGLING, DANGLING_JSONL, plain, slow_run, write
from tests.conftest import SAMPLES
from tests.helpers import MODULE, clean_env, run

#: The progress bar's counts (the summary line never says "conversation").
BAR = re.compile(r"\d+ conversations?, \d+ findings?")


# --------------------------------------------------------------------------------------------
# colour of messages


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        pytest.param([], {}, False, id="pipe"),
        pytest.param([], {"FORCE_COLOR": "1"}, True, id="FORCE_COLOR"),
        pytest.param([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, id="NO_COLOR-wins"),
        pytest.param(["--color", "always"], {"NO_COLOR": "1"}, True, id="always-beats-NO_COLOR"),
        pytest.param(["--color", "never"], {"FORCE_COLOR": "1"}, False, id="never"),
    ],
)
def test_message_colour(
    tmp_path: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", *args, "h.json"], cwd=tmp_path, env=clean_env(**env), expect=1)
    assert bool(ANSI.search(result.said)) is coloured, result.show()
    reference = run(["check", "h.json"], cwd=tmp_path, expect=1)
    assert plain(result.stderr) == reference.stderr


# --------------------------------------------------------------------------------------------
# the diff


@pytest.mark.parametrize(
    "sample",
    [
        "openai-chat/parallel-partial-answer.json",
        "openai-chat/malformed-arguments.json",  # tab indentation
        "openai-chat/crlf-blank-lines.jsonl",  # CRLF line ends
    ],
)
def test_coloured_diff_is_the_plain_diff_plus_colour(tmp_path: Path, sample: str) -> None:
    name = Path(sample).name
    write(tmp_path / name, (SAMPLES / sample).read_bytes())
    piped = run(["fix", "--diff", name], cwd=tmp_path, expect=1)
    assert b"\x1b" not in piped.stdout
    coloured = run(["fix", "--diff", "--color", "always", name], cwd=tmp_path, expect=1)
    diff = coloured.stdout.decode()
    assert ANSI.sub("", diff).encode() == piped.stdout, "only colour is added"
    added = [line for line in diff.split("\n") if line.startswith("\x1b[32m+")]
    assert added and all(line.rstrip("\r").endswith("\x1b[0m") for line in added)
    assert diff.startswith("\x1b[1m--- a/")


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        pytest.param([], {"FORCE_COLOR": "1"}, True, id="FORCE_COLOR"),
        pytest.param([], {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False, id="NO_COLOR"),
        pytest.param(["--color", "never"], {"FORCE_COLOR": "1"}, False, id="never"),
    ],
)
def test_diff_colour_follows_the_switches(
    tmp_path: Path, args: list[str], env: dict[str, str], coloured: bool
) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["fix", "--diff", *args, "h.json"], cwd=tmp_path, env=clean_env(**env), expect=1)
    assert (b"\x1b[" in result.stdout) is coloured


# --------------------------------------------------------------------------------------------
# --statistics tables


def tables_then_summary(stderr: str) -> tuple[list[str], str]:
    """The lines from the "By rule" heading to the end, and the last line."""
    lines = [plain(line) for line in stderr.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("By rule")), len(lines))
    return lines[start:], lines[-1]


def test_statistics_tables_replace_the_findings_and_the_summary_stays_last(
    tmp_path: Path,
) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.jsonl", DANGLING_JSONL)
    write(tmp_path / "c.json", CLEAN)
    result = run(["check", "--statistics", "a.json", "b.jsonl", "c.json"], cwd=tmp_path, expect=1)
    tables, last = tables_then_summary(result.stdout.decode())
    assert tables, result.show()
    assert not result.finding_lines, "the tables count the findings instead of listing them"
    assert "is refused by the provider" not in result.said
    assert last.startswith("Found 2 findings in 2 files"), result.show()
    by_file = tables.index(next(line for line in tables if line.startswith("By file")))
    rule_rows = [line for line in tables[:by_file] if "TP001" in line]
    assert rule_rows == ["│ TP001 │ dangling-tool-call │        2 │"], tables
    file_rows = [line.split("│")[1].strip() for line in tables[by_file:] if line.startswith("│")]
    assert file_rows == ["a.json", "b.jsonl"], "files with findings only"


def test_fix_tables_count_fixed_and_left(tmp_path: Path) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.jsonl", DANGLING_JSONL)
    result = run(["fix", "--check", "--statistics", "a.json", "b.jsonl"], cwd=tmp_path, expect=1)
    tables, last = tables_then_summary(result.stderr)
    assert any("would fix" in line and "left" in line for line in tables), result.show()
    assert not any(line.startswith("Would fix a.json") for line in result.stderr_lines), (
        "the table by file says it"
    )
    assert last.startswith("Would fix 2 findings in 2 files")


@pytest.mark.parametrize(
    ("args", "files", "shown"),
    [
        pytest.param([], ["a.json", "b.jsonl"], False, id="pipe"),
        pytest.param(["--color", "always"], ["a.json", "b.jsonl"], False, id="colour-asked"),
        pytest.param(["-v"], ["a.json", "b.jsonl"], False, id="verbose"),
        pytest.param(["--statistics"], ["a.json"], True, id="one-file"),
        pytest.param(["--statistics", "--color", "always"], ["a.json"], True, id="colour"),
        pytest.param(["--statistics"], ["c.json"], False, id="no-findings"),
        pytest.param(["--statistics", "-q"], ["a.json", "b.jsonl"], True, id="quiet"),
        pytest.param(["--statistics", "-s"], ["a.json", "b.jsonl"], False, id="silent"),
    ],
)
def test_when_tables_are_shown(
    tmp_path: Path, args: list[str], files: list[str], shown: bool
) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.jsonl", DANGLING_JSONL)
    write(tmp_path / "c.json", CLEAN)
    result = run(["check", *args, *files], cwd=tmp_path)
    assert ("By rule" in plain(result.said)) is shown, result.show()
    assert ("By file" in plain(result.said)) is shown


# --------------------------------------------------------------------------------------------
# progress bar


def test_progress_bar_on_a_terminal_while_an_input_is_slow(tmp_path: Path) -> None:
    code, stderr = slow_run(tmp_path, [], stderr_terminal=True)
    assert code == 1, stderr
    assert BAR.search(plain(stderr)), "the bar with its counts" + stderr
    assert "1 conversation, 1 finding" in plain(stderr), "a.json was counted before the wait"
    assert "slow.jsonl:2:" not in plain(stderr), "the findings go to stdout, beside the bar"
    assert "Found 2 findings" not in plain(stderr), "and the summary with them"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "terminal"),
    [
        pytest.param([], False, id="stderr-not-a-terminal"),
        pytest.param(["-q"], True, id="quiet"),
        pytest.param(["--output-format", "json"], True, id="machine-format"),
    ],
)
def test_no_progress_bar(tmp_path: Path, args: list[str], terminal: bool) -> None:
    code, stderr = slow_run(tmp_path, args, stderr_terminal=terminal)
    assert code == 1, stderr
    assert not BAR.search(plain(stderr)), stderr
    if not terminal:
        assert "\x1b" not in stderr


def test_no_progress_bar_for_a_quick_run_on_a_terminal(tmp_path: Path) -> None:
    write(tmp_path / "a.json", DANGLING)
    primary, secondary = pty.openpty()
    try:
        completed = subprocess.run(
            [*MODULE, "check", "a.json"],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=secondary,
            env=clean_env(),
            timeout=60,
            check=False,
        )
        os.close(secondary)
        stderr = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            stderr += chunk
    finally:
        os.close(primary)
    assert completed.returncode == 1
    text = plain(stderr.decode())
    assert not BAR.search(text), text
    assert "TP001" not in text, "the report goes to stdout, not the terminal's stderr"
