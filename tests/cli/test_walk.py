"""What a run reads, as ruff decides it (docs/cli.md#inputs): no PATH means the current folder
unless standard input holds data, and a walk passes over what the configuration excludes and
what ``.gitignore`` / ``.ignore`` files ignore.

Pinned through the real entry point, with standard input of each kind a run meets: ``/dev/null``
(CI, cron), a pipe, a regular file (``< file``), and a terminal (a pseudo terminal).
"""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli import CLEAN, DANGLING, DANGLING_FIXED, snapshot, write
from tests.helpers import MODULE, Result, clean_env, run


def finding_files(result: Result) -> list[str]:
    """The files named by the finding lines of a text report, in order, each once."""
    names = [line.split(":", 1)[0] for line in result.stderr_lines if " TP0" in line]
    return list(dict.fromkeys(names))


def run_with_stdin(args: list[str], stdin: int, cwd: Path) -> Result:
    """``toolpatch ARGS`` with file descriptor ``stdin`` as its standard input."""
    completed = subprocess.run(
        [*MODULE, *args],
        stdin=stdin,
        capture_output=True,
        cwd=cwd,
        env=clean_env(),
        timeout=60,
        check=False,
    )
    stderr = completed.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    return Result([*MODULE, *args], completed.returncode, completed.stdout, stderr)


# --------------------------------------------------------------------------------------------
# no PATH: standard input or the current folder


@pytest.mark.parametrize("command", [["check"], ["fix", "--check"], ["fix", "--diff"]])
def test_no_path_and_stdin_dev_null_checks_the_current_folder(
    tmp_path: Path, command: list[str]
) -> None:
    """CI runs a command with standard input on /dev/null: that is no input, so the folder is
    checked (it used to read the empty stdin and fail with "-:1:1: empty input")."""
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "sub" / "clean.json", CLEAN)
    result = run(command, cwd=tmp_path, expect=1)  # stdin is /dev/null
    assert "empty input" not in result.stderr, result.show()
    if command == ["check"]:
        assert finding_files(result) == ["h.json"], result.show()
    else:
        assert "h.json" in result.stderr + result.stdout.decode(), result.show()


@pytest.mark.parametrize("command", [["fix"], ["check", "--fix"]])
def test_no_path_fix_repairs_the_current_folder_in_place(
    tmp_path: Path, command: list[str]
) -> None:
    path = write(tmp_path / "deep" / "h.json", DANGLING)
    clean = write(tmp_path / "clean.json", CLEAN)
    before = snapshot(clean)
    result = run(command, cwd=tmp_path, expect=0)
    assert result.stdout == b"", "the folder is fixed in place, nothing goes to stdout"
    assert path.read_bytes() == DANGLING_FIXED
    assert snapshot(clean) == before


@pytest.mark.parametrize(("command", "code"), [(["check"], 1), (["fix"], 0)])
def test_no_path_and_piped_stdin_reads_stdin_not_the_folder(
    tmp_path: Path, command: list[str], code: int
) -> None:
    folder_file = write(tmp_path / "h.json", DANGLING)
    result = run(command, input=DANGLING, cwd=tmp_path, expect=code)
    assert "h.json" not in result.stderr, "the folder is not read" + result.show()
    assert folder_file.read_bytes() == DANGLING
    if command == ["fix"]:
        assert result.stdout == DANGLING_FIXED
    else:
        assert finding_files(result) == ["-"], result.show()


def test_no_path_and_stdin_an_empty_regular_file_checks_the_folder(tmp_path: Path) -> None:
    write(tmp_path / "data" / "h.json", DANGLING)
    empty = write(tmp_path / "empty.txt", b"")
    with empty.open("rb") as stdin:
        result = run_with_stdin(["check", "data"], stdin.fileno(), tmp_path)
        assert result.code == 1, result.show()  # a PATH given: stdin plays no part
    with empty.open("rb") as stdin:
        result = run_with_stdin(["check"], stdin.fileno(), tmp_path / "data")
    assert result.code == 1, result.show()
    assert finding_files(result) == ["h.json"], result.show()


def test_no_path_and_stdin_a_regular_file_with_data_reads_it(tmp_path: Path) -> None:
    """``toolpatch check < history.json``: the file is standard input, the folder is not read."""
    write(tmp_path / "folder" / "clean.json", CLEAN)
    history = write(tmp_path / "history.json", DANGLING)
    with history.open("rb") as stdin:
        result = run_with_stdin(["check"], stdin.fileno(), tmp_path / "folder")
    assert result.code == 1, result.show()
    assert finding_files(result) == ["-"], result.show()


def test_no_path_and_stdin_a_terminal_checks_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    primary, secondary = pty.openpty()
    try:
        result = run_with_stdin(["check"], secondary, tmp_path)
    finally:
        os.close(secondary)
        os.close(primary)
    assert result.code == 1, result.show()
    assert result.stdout == b""
    assert finding_files(result) == ["h.json"], result.show()


def test_no_path_in_an_empty_folder_finds_nothing(tmp_path: Path) -> None:
    result = run(["check"], cwd=tmp_path, expect=0)
    assert "empty input" not in result.stderr, result.show()


def test_dash_still_reads_stdin_even_when_it_is_empty(tmp_path: Path) -> None:
    """``-`` says "standard input" outright: an empty one is then an error, as before."""
    write(tmp_path / "h.json", CLEAN)
    result = run(["check", "-"], cwd=tmp_path, expect=2)
    assert "empty input" in result.stderr, result.show()


def test_no_path_discovers_the_configuration_from_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "toolpatch.toml", b'ignore = ["TP001"]\n')
    write(tmp_path / "h.json", DANGLING)
    run(["check"], cwd=tmp_path, expect=0)
