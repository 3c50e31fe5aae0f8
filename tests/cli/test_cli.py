"""The ``toolpatch`` command, run as a user runs it: a subprocess of the real entry point.

Pins docs/cli.md and docs/pairing.md#fidelity, as black and ruff behave: exit codes 0/1/2 (errors
win over findings), stdin and ``-``, stdout carrying only the product, in-place writes that
leave clean files alone (bytes and mtime) and keep mode and symlinks, ``--check`` / ``--diff``
writing nothing, directory walks, located one-line errors for unreadable input, byte fidelity
(BOM, CRLF, blank lines, missing final newline), ``-q`` / ``-v``, and that a check of an OpenAI
Chat file imports neither langchain-core nor pydantic.

Wording is never pinned except where the contract fixes it: rule codes, exit codes, the
``path:line:col:`` prefix and the synthetic texts.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

import patchcore
from tests.builders import (
    CLEAN,
    CLEAN_MESSAGES,
    DANGLING,
    DANGLING_CALL_LINE,
    DANGLING_FIXED,
    DANGLING_JSONL,
    DANGLING_MESSAGES,
    JSONL_LINES,
    OLD_MTIME,
    line_of,
    snapshot,
    tp001,
    write,
)
from tests.conftest import ROOT
from tests.helpers import TP002_TEXT, clean_env, console_script, run, run_process, text

ERROR_LINE = re.compile(r"^(?P<name>.+?):(?P<line>\d+):(?P<col>\d+): error: \S")
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# --------------------------------------------------------------------------------------------
# histories


NO_HISTORY = b'{"name": "config", "values": [1, 2, 3]}\n'
ONE_MESSAGE_LINE = (
    b'{"role": "assistant", "content": null, "tool_calls": [{"id": "c7", "type": "function", '
    b'"function": {"name": "pending_tool", "arguments": "{}"}}]}'
)


# --------------------------------------------------------------------------------------------
# exit codes


@pytest.mark.parametrize(
    ("args", "content", "code"),
    [
        (["check"], CLEAN, 0),
        (["check"], DANGLING, 1),
        (["check"], DANGLING_JSONL, 1),
        (["fix"], CLEAN, 0),
        (["fix"], DANGLING, 0),
        (["fix", "--check"], CLEAN, 0),
        (["fix", "--check"], DANGLING, 1),
        (["fix", "--diff"], CLEAN, 0),
        (["fix", "--diff"], DANGLING, 1),
        (["fix", "--check", "--diff"], DANGLING, 1),
        (["check", "--select", "TP001"], DANGLING, 1),
        (["check", "--select", "TP002"], DANGLING, 0),
        (["check", "--select", "TP002,TP001"], DANGLING, 1),
        (["check", "--select", "TP002", "--select", "TP001"], DANGLING, 1),
        (["check", "--select", "ALL"], DANGLING, 1),
        (["check", "--ignore", "TP001"], DANGLING, 0),
        (["check", "--ignore", "TP0"], DANGLING, 0),
        (["fix", "--check", "--ignore", "TP001"], DANGLING, 0),
        (["check", "--dialect", "openai-chat"], DANGLING, 1),
        (["check"], NO_HISTORY, 2),
        (["fix"], NO_HISTORY, 2),
        # An OpenAI file read as LangChain: its calls are read by no reading (TP004).
        (["check", "--dialect", "langchain"], DANGLING, 1),
    ],
)
def test_exit_codes(tmp_path: Path, args: list[str], content: bytes, code: int) -> None:
    suffix = ".jsonl" if content is DANGLING_JSONL else ".json"
    path = write(tmp_path / f"history{suffix}", content)
    result = run([*args, path.name], cwd=tmp_path, expect=code)
    if args == ["fix"] and content is DANGLING:
        assert path.read_bytes() == DANGLING_FIXED, result.show()
        run(["check", path.name], cwd=tmp_path, expect=0)


def test_fix_leaves_nothing_fixable_and_is_idempotent(tmp_path: Path) -> None:
    path = write(tmp_path / "h.json", DANGLING)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == DANGLING_FIXED
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    before = snapshot(path)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    run(["fix", "--check", "h.json"], cwd=tmp_path, expect=0)
    run(["check", "h.json"], cwd=tmp_path, expect=0)
    assert snapshot(path) == before


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check", "--select", "TP9", "h.json"], id="unknown-select"),
        pytest.param(["check", "--select", "TP001,NOPE", "h.json"], id="unknown-in-list"),
        pytest.param(["check", "--ignore", "XYZ", "h.json"], id="unknown-ignore"),
        pytest.param(["fix", "--select", "TP9", "h.json"], id="fix-unknown-select"),
        pytest.param(["check", "--dialect", "klingon", "h.json"], id="unknown-dialect"),
        pytest.param(["fix", "--dialect", "klingon", "h.json"], id="fix-unknown-dialect"),
        pytest.param(["fix", "-o", "out.json", "h.json", "c.json"], id="fix-o-two-inputs"),
        pytest.param(["check", "--no-such-option", "h.json"], id="unknown-option"),
        pytest.param(["check", "--color", "sometimes", "h.json"], id="bad-color"),
        pytest.param(["frobnicate", "h.json"], id="unknown-command"),
    ],
)
def test_usage_errors_exit_2_and_touch_nothing(tmp_path: Path, args: list[str]) -> None:
    dangling = write(tmp_path / "h.json", DANGLING)
    clean = write(tmp_path / "c.json", CLEAN)
    before = snapshot(dangling), snapshot(clean)
    result = run(args, cwd=tmp_path, expect=2)
    assert result.stdout == b"", result.show()
    assert result.stderr.strip(), result.show()
    assert (snapshot(dangling), snapshot(clean)) == before
    assert not (tmp_path / "out.json").exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    for command in ("check", "fix"):
        result = run([command, "missing.json"], cwd=tmp_path, expect=2)
        assert result.stdout == (b"1 file could not be processed.\n" if command == "check" else b"")
        assert any(line.startswith("missing.json:") for line in result.stderr_lines), result.show()


@pytest.mark.parametrize("kind", ["symlink-loop", "through-a-file"])
def test_unreadable_file_exits_2(tmp_path: Path, kind: str) -> None:
    if kind == "symlink-loop":
        (tmp_path / "loop.json").symlink_to("loop.json")
        name = "loop.json"
    else:
        write(tmp_path / "plain.json", CLEAN)
        name = "plain.json/inner.json"
    for command in ("check", "fix"):
        result = run([command, name], cwd=tmp_path, expect=2)
        assert result.stdout == (b"1 file could not be processed.\n" if command == "check" else b"")
        assert any(line.startswith(f"{name}:") for line in result.stderr_lines), result.show()


@pytest.mark.parametrize(
    ("command", "others"),
    [
        (["check"], ["dangling.json", "broken.json"]),
        (["check"], ["broken.json", "dangling.json"]),
        (["check"], ["dangling.json", "missing.json"]),
        (["fix", "--check"], ["dangling.json", "broken.json"]),
        (["fix", "--diff"], ["broken.json", "dangling.json"]),
        (["fix"], ["clean.json", "nohistory.json"]),
        (["check"], ["clean.json", "nohistory.json", "dangling.json"]),
    ],
)
def test_errors_win_over_findings(tmp_path: Path, command: list[str], others: list[str]) -> None:
    write(tmp_path / "dangling.json", DANGLING)
    write(tmp_path / "clean.json", CLEAN)
    write(tmp_path / "broken.json", b'[{"role": "user", ')
    write(tmp_path / "nohistory.json", NO_HISTORY)
    result = run([*command, *others], cwd=tmp_path, expect=2)
    if "dangling.json" in others and command == ["check"]:
        assert any(
            line.startswith("dangling.json:") and "TP001" in line for line in result.stdout_lines
        ), "the other file's findings are still reported" + result.show()


def test_fix_other_files_are_still_fixed_when_one_fails(tmp_path: Path) -> None:
    dangling = write(tmp_path / "dangling.json", DANGLING)
    broken = write(tmp_path / "broken.json", b'[{"role": "user", ')
    before = snapshot(broken)
    run(["fix", "dangling.json", "broken.json"], cwd=tmp_path, expect=2)
    assert dangling.read_bytes() == DANGLING_FIXED
    assert snapshot(broken) == before


# --------------------------------------------------------------------------------------------
# stdin and stdout


@pytest.mark.parametrize(
    ("args", "content", "code"),
    [
        (["check", "-"], DANGLING, 1),
        (["check"], DANGLING, 1),
        (["check", "-"], CLEAN, 0),
        (["check"], CLEAN, 0),
        (["check"], DANGLING_JSONL, 1),
        (["fix", "--check", "-"], DANGLING, 1),
        (["fix", "--check"], CLEAN, 0),
        # JSON Lines from Python's json.dumps: NaN is valid input everywhere else
        # (docs/pairing.md#fidelity)
        pytest.param(
            ["check"],
            b'{"role": "user", "content": "a", "score": NaN}\n' + DANGLING_JSONL,
            1,
            id="jsonl-with-nan-in-first-line",
        ),
        (["check", "-"], b"", 2),
        (["check", "-"], b'[{"role": ', 2),
    ],
)
def test_check_stdin(args: list[str], content: bytes, code: int) -> None:
    result = run(args, input=content, expect=code)
    assert not content or content not in result.stdout, "check writes its report, never the data"
    if args[0] == "check":
        assert not result.stderr_lines or code == 2, "the report is on stdout" + result.show()


@pytest.mark.parametrize("args", [["fix", "-"], ["fix"]])
def test_fix_stdin_writes_repaired_stream_to_stdout(args: list[str], tmp_path: Path) -> None:
    result = run(args, input=DANGLING, expect=0)
    assert result.stdout == DANGLING_FIXED, result.show()
    assert "TP001" in result.stderr, "what was fixed is said on stderr" + result.show()
    # the same bytes as an in-place fix
    path = write(tmp_path / "h.json", DANGLING)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == result.stdout


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(CLEAN, id="clean-json"),
        pytest.param(CLEAN.rstrip(b"\n"), id="clean-no-final-newline"),
        pytest.param(b"\xef\xbb\xbf" + CLEAN.replace(b"\n", b"\r\n"), id="clean-bom-crlf"),
        pytest.param(
            b'{"role": "user", "content": "a"}\r\n\r\n{"role": "assistant", "content": "b"}',
            id="clean-jsonl",
        ),
    ],
)
def test_fix_stdin_echoes_unchanged_input_unchanged(content: bytes) -> None:
    result = run(["fix", "-"], input=content, expect=0)
    assert result.stdout == content, result.show()


def test_fix_stdin_jsonl_inserts_a_line() -> None:
    result = run(["fix", "-"], input=DANGLING_JSONL, expect=0)
    lines = result.stdout.split(b"\n")
    assert lines[:2] == JSONL_LINES[:2]
    assert json.loads(lines[2]) == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": tp001("lookup", "c1"),
    }
    assert lines[3:] == [JSONL_LINES[2], b""]


def test_stdin_filename_makes_one_line_input_jsonl_and_names_it() -> None:
    # Without a name, one line is one JSON document: a single message (like a stored API
    # response) whose pending call is reported but cannot be answered beside it.
    bare = run(["check"], input=ONE_MESSAGE_LINE, expect=1)
    assert bare.stderr == ""
    assert "TP002 tool call" in bare.said and "[*]" not in bare.said, bare.show()
    unfixed = run(["fix", "-"], input=ONE_MESSAGE_LINE, expect=1)
    assert unfixed.stdout == ONE_MESSAGE_LINE

    named = run(["check", "--stdin-filename", "x.jsonl"], input=ONE_MESSAGE_LINE, expect=1)
    assert named.stderr == ""
    finding = [line for line in named.stdout_lines if "TP002" in line]
    assert finding, named.show()
    assert finding[0].startswith("x.jsonl:1:"), named.show()

    dash = run(["check", "-", "--stdin-filename", "x.jsonl"], input=ONE_MESSAGE_LINE, expect=1)
    assert any(line.startswith("x.jsonl:1:") for line in dash.stdout_lines), dash.show()

    fixed = run(["fix", "-", "--stdin-filename", "x.jsonl"], input=ONE_MESSAGE_LINE, expect=0)
    first, second = fixed.stdout.split(b"\n")
    assert first == ONE_MESSAGE_LINE
    assert json.loads(second)["content"] == text(TP002_TEXT, "pending_tool", "c7")
    assert "x.jsonl" in fixed.stderr, fixed.show()


@pytest.mark.parametrize(
    "content", [b'{"a": 1}\n', b'{"a": ', b""], ids=["no-history", "broken", "empty"]
)
def test_fix_stdin_writes_nothing_to_stdout_for_input_it_cannot_read(content: bytes) -> None:
    """An error is an error for a filter too: nothing on stdout, so a pipeline cannot mistake
    the echo of unreadable input for a repaired stream."""
    result = run(["fix", "-"], input=content, expect=2)
    assert result.stdout == b"", result.show()


def test_stdin_filename_names_errors() -> None:
    result = run(["check", "--stdin-filename", "in.json"], input=b'{"a": ', expect=2)
    (line,) = [line for line in result.stderr_lines if ERROR_LINE.match(line)]
    assert line.startswith("in.json:1:"), result.show()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["check", "dangling.json", "clean.json"], 1),
        (["check", "-v", "dangling.json", "clean.json"], 1),
        (["fix", "--check", "dangling.json"], 1),
        (["fix", "-v", "dangling.json"], 0),
        (["check", "broken.json"], 2),
        (["fix", "broken.json"], 2),
    ],
)
def test_stdout_is_empty_unless_there_is_a_product(
    tmp_path: Path, args: list[str], code: int
) -> None:
    """The product of ``check`` is its report (as ruff's); of the others, repaired data or a
    diff: without one, stdout is empty, and what ``fix`` says goes to stderr."""
    write(tmp_path / "dangling.json", DANGLING)
    write(tmp_path / "clean.json", CLEAN)
    write(tmp_path / "broken.json", b"[")
    result = run(args, cwd=tmp_path, expect=code)
    if args[0] == "check":
        assert result.stdout_lines[-1].endswith(("fix`).", "clean.", "processed.")), result.show()
        assert not result.finding_lines or not any(
            line in result.stderr_lines for line in result.finding_lines
        ), result.show()
    else:
        assert result.stdout == b"", result.show()
    assert result.stderr_lines or args[0] == "check", "messages go to stderr" + result.show()


def test_check_output_file(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "-o", "report.txt", "h.json"], cwd=tmp_path, expect=1)
    assert result.stdout == b""
    report = (tmp_path / "report.txt").read_text()
    assert "TP001" in report and "call_1" in report, result.show()


# --------------------------------------------------------------------------------------------
# in-place writes


def test_fix_rewrites_only_files_that_need_it(tmp_path: Path) -> None:
    dangling = write(tmp_path / "dangling.json", DANGLING)
    clean = write(tmp_path / "clean.json", CLEAN)
    clean_before = snapshot(clean)
    result = run(["fix", "dangling.json", "clean.json"], cwd=tmp_path, expect=0)
    assert result.stdout == b""
    assert dangling.read_bytes() == DANGLING_FIXED
    assert dangling.stat().st_mtime_ns != OLD_MTIME * 10**9
    assert snapshot(clean) == clean_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.json", "dangling.json"], (
        "no temporary or backup files are left behind"
    )


def test_fix_keeps_the_file_mode(tmp_path: Path) -> None:
    path = write(tmp_path / "h.json", DANGLING)
    path.chmod(0o640)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == DANGLING_FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_fix_writes_through_a_symlink(tmp_path: Path) -> None:
    target = write(tmp_path / "real" / "history.json", DANGLING)
    link = tmp_path / "link.json"
    link.symlink_to(Path("real") / "history.json")
    run(["fix", "link.json"], cwd=tmp_path, expect=0)
    assert link.is_symlink()
    assert os.readlink(link) == str(Path("real") / "history.json")
    assert target.read_bytes() == DANGLING_FIXED


@pytest.mark.parametrize("flag", ["--check", "--diff"])
@pytest.mark.parametrize(("content", "code"), [(DANGLING, 1), (CLEAN, 0), (DANGLING_JSONL, 1)])
def test_check_and_diff_write_nothing(tmp_path: Path, flag: str, content: bytes, code: int) -> None:
    name = "h.jsonl" if content is DANGLING_JSONL else "h.json"
    path = write(tmp_path / name, content)
    before = snapshot(path)
    result = run(["fix", flag, name], cwd=tmp_path, expect=code)
    assert snapshot(path) == before
    assert [p.name for p in tmp_path.iterdir()] == [name]
    if flag == "--check" or code == 0:
        assert result.stdout == b"", result.show()


def test_diff_is_a_plain_unified_diff_when_piped(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["fix", "--diff", "h.json"], cwd=tmp_path, expect=1)
    diff = result.stdout.decode()
    assert "\x1b" not in diff, result.show()
    lines = diff.splitlines()
    assert lines[0] == "--- a/h.json", result.show()
    assert lines[1] == "+++ b/h.json", result.show()
    assert lines[2].startswith("@@ "), result.show()
    added = [line[1:] for line in lines[2:] if line.startswith("+")]
    removed = [line for line in lines[2:] if line.startswith("-")]
    assert removed == [], "an insertion in the middle of a list removes nothing"
    assert len(added) == 5, "the five lines of the pretty-printed tool message" + result.show()
    assert any(tp001("get_weather", "call_1") in line for line in added)
    assert "\x1b" not in result.stderr


def test_diff_applies_to_the_original(tmp_path: Path) -> None:
    """Applying the printed diff with the context lines gives the fixed bytes."""
    write(tmp_path / "h.json", DANGLING)
    diff = run(["fix", "--diff", "h.json"], cwd=tmp_path, expect=1).stdout.decode()
    new_lines = [line[1:] for line in diff.splitlines(keepends=True)[3:] if line[:1] in (" ", "+")]
    old_lines = [line[1:] for line in diff.splitlines(keepends=True)[3:] if line[:1] in (" ", "-")]
    text = DANGLING.decode()
    assert "".join(old_lines) in text
    assert text.replace("".join(old_lines), "".join(new_lines)) == DANGLING_FIXED.decode()


def test_diff_in_colour_on_request(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["fix", "--diff", "--color", "always", "h.json"], cwd=tmp_path, expect=1)
    diff = result.stdout.decode()
    assert ANSI.search(diff), result.show()
    plain = ANSI.sub("", diff)
    assert "--- a/h.json" in plain and "+++ b/h.json" in plain


def test_no_colour_with_never_or_no_color(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    never = run(["fix", "--diff", "--color", "never", "h.json"], cwd=tmp_path, expect=1)
    assert "\x1b" not in never.stdout.decode() + never.stderr
    env = clean_env(NO_COLOR="1", FORCE_COLOR="1")
    no_color = run(["check", "h.json"], cwd=tmp_path, expect=1, env=env)
    assert "\x1b" not in no_color.stderr


def test_diff_of_stdin(tmp_path: Path) -> None:
    result = run(["fix", "--diff", "-"], input=DANGLING, expect=1)
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ "), result.show()
    assert any(line.startswith("+") and "call_1" in line for line in lines[2:])


def test_fix_output_file_leaves_the_input_alone(tmp_path: Path) -> None:
    source = write(tmp_path / "h.json", DANGLING)
    before = snapshot(source)
    result = run(["fix", "-o", "out.json", "h.json"], cwd=tmp_path, expect=0)
    assert result.stdout == b""
    assert snapshot(source) == before
    assert (tmp_path / "out.json").read_bytes() == DANGLING_FIXED


def test_fix_output_file_is_not_written_for_bad_input(tmp_path: Path) -> None:
    source = write(tmp_path / "h.json", b'[{"role": "user", ')
    before = snapshot(source)
    result = run(["fix", "-o", "out.json", "h.json"], cwd=tmp_path, expect=2)
    assert result.stdout == b""
    assert snapshot(source) == before
    assert not (tmp_path / "out.json").exists()


def test_fix_output_dash_is_stdout(tmp_path: Path) -> None:
    source = write(tmp_path / "h.json", DANGLING)
    before = snapshot(source)
    result = run(["fix", "-o", "-", "h.json"], cwd=tmp_path, expect=0)
    assert result.stdout == DANGLING_FIXED
    assert snapshot(source) == before


def test_fix_langchain_file(tmp_path: Path) -> None:
    messages = [
        SystemMessage("You are helpful."),
        HumanMessage("What are my events?"),
        AIMessage("", tool_calls=[{"id": "123", "name": "get_events_for_days", "args": {"n": 3}}]),
        HumanMessage("Never mind."),
    ]
    path = write(tmp_path / "lc.json", json.dumps(messages_to_dict(messages), indent=2).encode())
    run(["fix", "lc.json"], cwd=tmp_path, expect=0)
    loaded = messages_from_dict(json.loads(path.read_bytes()))
    assert len(loaded) == 5
    tool = loaded[3]
    assert isinstance(tool, ToolMessage)
    assert (tool.tool_call_id, tool.name) == ("123", "get_events_for_days")
    assert tool.content == tp001("get_events_for_days", "123")
    assert loaded[:3] == messages[:3] and loaded[4] == messages[3]


# --------------------------------------------------------------------------------------------
# directories


def make_tree(root: Path) -> dict[str, Path]:
    files = {
        "top": write(root / "a.json", DANGLING),
        "nested": write(root / "sub" / "deeper" / "b.jsonl", DANGLING_JSONL),
        "clean": write(root / "sub" / "c.json", CLEAN),
        "hidden_dir": write(root / ".hidden" / "d.json", DANGLING),
        "other_ext": write(root / "notes.txt", DANGLING),
        "no_history": write(root / "config.json", NO_HISTORY),
    }
    return files


def test_check_walks_directories(tmp_path: Path) -> None:
    files = make_tree(tmp_path / "tree")
    result = run(["check", "tree"], cwd=tmp_path, expect=1)
    named = {line.split(":", 1)[0] for line in result.finding_lines}
    assert named == {str(Path("tree") / "a.json"), str(Path("tree/sub/deeper/b.jsonl"))}, (
        result.show()
    )
    assert ".hidden" not in result.said
    assert "notes.txt" not in result.said
    assert "config.json" not in result.said, "a skipped file is mentioned only with -v"
    assert not [line for line in result.stderr_lines if ERROR_LINE.match(line)]
    assert files["no_history"].read_bytes() == NO_HISTORY


def test_check_walk_verbose_mentions_skipped_file(tmp_path: Path) -> None:
    make_tree(tmp_path / "tree")
    result = run(["check", "-v", "tree"], cwd=tmp_path, expect=1)
    assert "config.json" in result.stderr, result.show()
    assert not [line for line in result.stderr_lines if ERROR_LINE.match(line)], result.show()


def test_fix_walks_directories(tmp_path: Path) -> None:
    files = make_tree(tmp_path / "tree")
    untouched = {k: snapshot(files[k]) for k in ("clean", "hidden_dir", "other_ext", "no_history")}
    run(["fix", "tree"], cwd=tmp_path, expect=0)
    assert files["top"].read_bytes() == DANGLING_FIXED
    assert files["nested"].read_bytes() != DANGLING_JSONL
    assert {k: snapshot(files[k]) for k in untouched} == untouched
    run(["check", "tree"], cwd=tmp_path, expect=0)


def test_file_without_history_named_explicitly_is_an_error(tmp_path: Path) -> None:
    make_tree(tmp_path / "tree")
    path = tmp_path / "tree" / "config.json"
    for command in (["check"], ["fix"], ["fix", "--check"]):
        result = run([*command, "tree/config.json"], cwd=tmp_path, expect=2)
        errors = [line for line in result.stderr_lines if ERROR_LINE.match(line)]
        assert len(errors) == 1, result.show()
        match = ERROR_LINE.match(errors[0])
        assert match is not None and match["name"] == "tree/config.json", result.show()
        assert path.read_bytes() == NO_HISTORY


def test_walk_skips_files_that_are_neither_json_nor_histories(tmp_path: Path) -> None:
    """tsconfig.json (comments, a trailing comma) is passed over like a file without a history;
    a broken file that names history keys is a torn history, and an error; named on the
    command line without --skip-no-history, a file that cannot be read is an error too."""
    make_tree(tmp_path / "tree")
    tsconfig = (ROOT / "tests" / "data" / "jsonc" / "tsconfig.json").read_bytes()
    write(tmp_path / "tree" / "tsconfig.json", tsconfig)
    write(tmp_path / "tree" / "torn.json", b'[{"role": "user", "content": "hi"},\n')
    result = run(["check", "-v", "tree"], cwd=tmp_path, expect=2)
    (skipped,) = [line for line in result.stderr_lines if "tsconfig.json" in line]
    assert skipped.startswith("tree/tsconfig.json: skipped: not JSON or JSON Lines (2:3: "), skipped
    errors = [line for line in result.stderr_lines if ERROR_LINE.match(line)]
    assert errors == ["tree/torn.json:2:1: error: invalid JSON: Expecting value"], result.show()
    named = run(["check", "tree/tsconfig.json"], cwd=tmp_path, expect=2)
    assert named.stderr_lines[0].startswith("tree/tsconfig.json:2:3: error: invalid JSON")
    run(["check", "--skip-no-history", "tree/tsconfig.json"], cwd=tmp_path, expect=0)


def test_directory_and_file_given_twice_are_checked_once(tmp_path: Path) -> None:
    make_tree(tmp_path / "tree")
    result = run(["check", "tree", str(Path("tree") / "a.json")], cwd=tmp_path, expect=1)
    assert sum("a.json" in line and "TP001" in line for line in result.stdout_lines) == 1, (
        result.show()
    )


# --------------------------------------------------------------------------------------------
# unreadable input


BAD_INPUTS: dict[str, tuple[str, bytes, int | None]] = {
    # name: (file name, content, line the error must name or None)
    "truncated-json": ("t.json", DANGLING[: len(DANGLING) // 2], None),
    "broken-jsonl-line-3": (
        "b.jsonl",
        b"\n".join([*JSONL_LINES[:2], b'{"role": "user", "content": ', b'{"role": "user"}']),
        3,
    ),
    "broken-jsonl-line-3-unnamed": (
        "b.json",
        b"\n".join([*JSONL_LINES[:2], b'{"role": "user", oops}', JSONL_LINES[2]]) + b"\n",
        3,
    ),
    "invalid-utf8": (
        "u.json",
        DANGLING.replace(b"Paris", b"Par\xffis"),
        line_of(DANGLING, b"Paris"),
    ),
    "empty": ("e.json", b"", 1),
    "whitespace-only": ("w.json", b"  \n\t\n   \r\n", 1),
    "utf16": ("x.json", "[]".encode("utf-16"), 1),
}


@pytest.mark.parametrize("command", [["check"], ["fix"], ["fix", "--diff"]])
@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_is_a_located_error_and_never_rewritten(
    tmp_path: Path, case: str, command: list[str]
) -> None:
    name, content, line = BAD_INPUTS[case]
    path = write(tmp_path / name, content)
    before = snapshot(path)
    result = run([*command, name], cwd=tmp_path, expect=2)
    assert snapshot(path) == before, "an unreadable file must never be rewritten"
    summary = b"1 file could not be processed.\n" if command == ["check"] else b""
    assert result.stdout == summary, result.show()
    errors = [entry for entry in result.stderr_lines if ERROR_LINE.match(entry)]
    assert len(errors) == 1, result.show()
    match = ERROR_LINE.match(errors[0])
    assert match is not None
    assert match["name"] == name, result.show()
    if line is not None:
        assert int(match["line"]) == line, result.show()
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_broken_jsonl_line_blocks_fixing_the_other_lines(tmp_path: Path) -> None:
    content = b"\n".join([*JSONL_LINES, b"{oops", JSONL_LINES[0]]) + b"\n"
    path = write(tmp_path / "h.jsonl", content)
    result = run(["fix", "h.jsonl"], cwd=tmp_path, expect=2)
    assert path.read_bytes() == content
    assert any(line.startswith("h.jsonl:4:") for line in result.stderr_lines), result.show()


# --------------------------------------------------------------------------------------------
# byte fidelity


def test_fix_keeps_the_bom(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    path = write(tmp_path / "h.json", bom + DANGLING)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == bom + DANGLING_FIXED


def test_fix_keeps_the_bom_of_jsonl(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    path = write(tmp_path / "h.jsonl", bom + DANGLING_JSONL)
    run(["fix", "h.jsonl"], cwd=tmp_path, expect=0)
    data = path.read_bytes()
    assert data.startswith(bom) and not data.startswith(bom * 2)
    assert data[len(bom) :].split(b"\n")[:2] == JSONL_LINES[:2]


def test_fix_pretty_crlf_json(tmp_path: Path) -> None:
    path = write(tmp_path / "h.json", DANGLING.replace(b"\n", b"\r\n"))
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == DANGLING_FIXED.replace(b"\n", b"\r\n")


@pytest.mark.parametrize("where", ["middle", "last"])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_fix_jsonl_keeps_untouched_lines_byte_for_byte(
    tmp_path: Path, ending: bytes, final_newline: bool, where: str
) -> None:
    """Blank lines, CRLF and a missing final newline survive; the new line copies the ending.

    ``where`` puts the dangling call in the middle (TP001) or on the last line (TP002).
    """
    lines = [b"", JSONL_LINES[0], b"", b"   ", JSONL_LINES[1]]
    if where == "middle":
        lines += [b"", JSONL_LINES[2]]
    content = ending.join(lines) + (ending if final_newline else b"")
    path = write(tmp_path / "h.jsonl", content)
    result = run(["fix", "h.jsonl"], cwd=tmp_path, expect=0)
    data = path.read_bytes()
    if ending == b"\r\n":
        assert data.count(b"\n") == data.count(b"\r\n"), f"bare LF in a CRLF file: {data!r}"
    old_lines = content.split(ending)
    new_lines = data.split(ending)
    assert len(new_lines) == len(old_lines) + 1, f"{data!r}" + result.show()
    inserted = new_lines.pop(5)
    assert json.loads(inserted)["tool_call_id"] == "c1"
    assert new_lines == old_lines, "untouched lines changed"
    assert data.endswith(ending) == final_newline


def test_fix_jsonl_of_conversations_rewrites_only_the_dangling_line(tmp_path: Path) -> None:
    rows = [
        json.dumps({"id": 1, "messages": CLEAN_MESSAGES}).encode(),
        json.dumps({"id": 2, "messages": DANGLING_MESSAGES}, separators=(",", ":")).encode(),
        b'{"id": 3, "n": 123456789012345678901234567890, "x": NaN, "messages": []}',
        json.dumps({"id": 4, "messages": CLEAN_MESSAGES}, ensure_ascii=False).encode(),
    ]
    content = b"\r\n".join(rows) + b"\r\n"
    path = write(tmp_path / "runs.jsonl", content)
    check = run(["check", "runs.jsonl"], cwd=tmp_path, expect=1)
    (finding,) = check.finding_lines
    assert finding.startswith("runs.jsonl:2:"), check.show()
    run(["fix", "runs.jsonl"], cwd=tmp_path, expect=0)
    new_rows = path.read_bytes().split(b"\r\n")
    assert new_rows[0] == rows[0] and new_rows[2:] == [*rows[2:], b""]
    assert json.loads(new_rows[1])["messages"][3]["tool_call_id"] == "call_1"
    expected_row = json.dumps(
        {"id": 2, "messages": json.loads(DANGLING_FIXED)}, separators=(",", ":")
    ).encode()
    assert new_rows[1] == expected_row


def test_fix_keeps_exotic_values(tmp_path: Path) -> None:
    content = (
        b'{"n": 123456789012345678901234567890, "f": 1e2, "x": NaN, "s": "caf\\u00e9",\n'
        b' "messages": ' + DANGLING.rstrip(b"\n") + b"}\n"
    )
    path = write(tmp_path / "h.json", content)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    data = path.read_bytes()
    assert data.startswith(content.split(b"\n", 1)[0] + b"\n")
    assert json.loads(data)["messages"][3]["tool_call_id"] == "call_1"


# --------------------------------------------------------------------------------------------
# report and verbosity


def test_report_line_names_file_line_code_id_and_tool(tmp_path: Path) -> None:
    write(tmp_path / "h.jsonl", DANGLING_JSONL)
    result = run(["check", "h.jsonl"], cwd=tmp_path, expect=1)
    assert not result.stderr_lines, "check's report is on stdout" + result.show()
    finding, rule, error, summary = result.stdout_lines
    assert re.match(r"^h\.jsonl:2:\d+: TP001 \[\*\] ", finding), result.show()
    assert "c1" in finding and "lookup" in finding, result.show()
    assert finding.endswith(" [/1/tool_calls/0]"), "the call's pointer in its line, no dialect"
    assert rule == "TP001 (dangling-tool-call) is refused by the provider:", result.show()
    assert error.startswith("  openai-chat: An assistant message with 'tool_calls' must")
    assert error.endswith(": ID"), "said for every such call, not for c1 alone"
    assert "TP001" not in summary and not summary.startswith("h.jsonl:")


def test_report_of_json_document(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "h.json"], cwd=tmp_path, expect=1)
    (finding,) = result.finding_lines
    # the line of the calling message in the pretty document
    assert finding.startswith(f"h.json:{DANGLING_CALL_LINE}:"), result.show()
    assert "call_1" in finding and "get_weather" in finding
    assert len(result.stdout_lines) == 4, "the finding, the rule's provider error, the summary"


def test_report_many_files_one_summary(tmp_path: Path) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.jsonl", DANGLING_JSONL)
    write(tmp_path / "c.json", CLEAN)
    result = run(["check", "a.json", "b.jsonl", "c.json"], cwd=tmp_path, expect=1)
    names = [line.split(":", 1)[0] for line in result.finding_lines]
    assert names == ["a.json", "b.jsonl"], result.show()
    assert re.search(r"\d", result.stdout_lines[-1]), "the summary has counts" + result.show()


def test_fix_reports_what_it_fixed(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert "h.json" in result.stderr and "TP001" in result.stderr, result.show()


@pytest.mark.parametrize(
    ("args", "code", "printed"),
    [
        (["check", "-q", "h.json", "c.json"], 1, ["h.json"]),
        (["check", "--quiet", "h.json"], 1, ["h.json"]),
        (["check", "-qq", "h.json"], 1, ["h.json"]),  # -qq is -q, as it was
        (["check", "-q", "c.json"], 0, []),
        (["fix", "-q", "h.json"], 0, []),
        (["fix", "--check", "-q", "h.json"], 1, ["Would fix h.json: TP001 x1 (1 synthesized)"]),
        (["fix", "--diff", "-q", "h.json"], 1, []),
        (["fix", "--diff", "-q", "c.json"], 0, []),
    ],
)
def test_quiet_prints_the_findings_and_no_summary(
    tmp_path: Path, args: list[str], code: int, printed: list[str]
) -> None:
    """ruff's -q: the findings (for fix --check, the files that would change), no provider
    errors, hints or summary line."""
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "c.json", CLEAN)
    result = run(args, cwd=tmp_path, expect=code)
    shown = [
        line.split(":", 1)[0] if line in result.finding_lines else line
        for line in (result.stdout_lines if args[0] == "check" else []) + result.stderr_lines
    ]
    assert shown == printed, result.show()


def test_quiet_still_prints_errors(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "broken.json", b"{")
    result = run(["check", "-q", "h.json", "broken.json"], cwd=tmp_path, expect=2)
    (finding,), (error,) = result.stdout_lines, result.stderr_lines
    assert finding.startswith("h.json:") and " TP001 [*] " in finding, result.show()
    assert ERROR_LINE.match(error), result.show()
    assert error.startswith("broken.json:1:")


def test_verbose_lists_found_lists_and_clean_files(tmp_path: Path) -> None:
    write(tmp_path / "clean.json", CLEAN)
    plain = run(["check", "clean.json"], cwd=tmp_path, expect=0)
    verbose = run(["check", "-v", "clean.json"], cwd=tmp_path, expect=0)
    assert "clean.json" not in plain.stderr, plain.show()
    mentions = [line for line in verbose.stderr_lines if line.startswith("clean.json")]
    assert mentions, verbose.show()
    assert len(verbose.stderr_lines) > len(plain.stderr_lines)
    assert any("openai-chat" in line for line in mentions), "the dialect found" + verbose.show()


# --------------------------------------------------------------------------------------------
# entry points


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str) -> None:
    result = run([flag], expect=0)
    assert result.stdout.decode() == f"toolpatch {patchcore.__version__}\n", result.show()


@pytest.mark.parametrize(
    ("name", "suggested"),
    [
        ("openai", "did you mean 'openai-chat', 'openai-responses' or 'openai-agents-js'?"),
        ("anthropc", "did you mean 'anthropic'?"),
        ("Gemini-CLI", "did you mean 'gemini-cli'?"),
    ],
)
def test_a_mistyped_dialect_suggests_the_names_it_is_close_to(name: str, suggested: str) -> None:
    result = run(["check", "--dialect", name, "x.json"], expect=2)
    assert suggested in " ".join(result.stderr.split()), result.show()


def test_a_dialect_near_no_name_suggests_none() -> None:
    result = run(["check", "--dialect", "klingon", "x.json"], expect=2)
    assert "did you mean" not in result.stderr and "known: langchain" in result.stderr


def test_check_fix_repairs_as_fix_does(tmp_path: Path) -> None:
    """ruff users type ``check --fix``: it writes what ``fix`` writes and exits as ``fix`` does."""
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.json", DANGLING)
    fixed = run(["check", "--fix", "a.json"], cwd=tmp_path, expect=0)
    run(["fix", "b.json"], cwd=tmp_path, expect=0)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes() != DANGLING
    assert "Fixed a.json: TP001 x1" in fixed.stderr, fixed.show()


@pytest.mark.parametrize("extra", [["-o", "report.txt"], ["--output-format", "json"]])
def test_check_fix_refuses_a_report_destination_or_format(tmp_path: Path, extra: list[str]) -> None:
    path = write(tmp_path / "a.json", DANGLING)
    before = snapshot(path)
    result = run(["check", "--fix", *extra, "a.json"], cwd=tmp_path, expect=2)
    assert "--fix" in result.stderr, result.show()
    assert snapshot(path) == before


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["check", "--help"], ["fix", "--help"]])
def test_help(args: list[str]) -> None:
    result = run(args, expect=0)
    assert result.stdout.strip(), result.show()


def test_console_script(tmp_path: Path) -> None:
    script = [console_script()]
    write(tmp_path / "h.json", DANGLING)
    run_process(["--version"], command=script, expect=0)
    run_process(["check", "h.json"], cwd=tmp_path, command=script, expect=1)
    piped = run_process(["fix", "-"], input=DANGLING, command=script, expect=0)
    assert piped.stdout == DANGLING_FIXED
    run_process(["check", "--select", "TP9", "h.json"], cwd=tmp_path, command=script, expect=2)


@pytest.mark.parametrize("package", ["langchain_core", "pydantic"])
def test_check_of_openai_chat_file_imports_no_heavy_packages(tmp_path: Path, package: str) -> None:
    path = write(tmp_path / "h.json", DANGLING)
    code = (
        "import sys\n"
        f"sys.argv = ['toolpatch', 'check', {str(path)!r}]\n"
        "from toolpatch.cli.app import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] == {package!r}))\n"
    )
    result = run_process(["-c", code], command=[sys.executable], cwd=tmp_path)
    printed = result.stdout.decode().strip().splitlines()
    assert printed, result.show()
    assert printed[-1] == "[]", f"`toolpatch check` imported {package}: {printed[-1][:300]}"
    assert "TP001" in result.stdout.decode(), "the check itself ran" + result.show()


def test_a_failed_run_says_so_first_in_its_summary(tmp_path: Path) -> None:
    """The closing line of a run with an unreadable file leads with the failure, not with
    "Nothing to fix"."""
    write(tmp_path / "broken.json", b'{"messages": [')
    write(tmp_path / "ok.json", CLEAN)
    fixed = run(["fix", "broken.json", "ok.json"], cwd=tmp_path, expect=2)
    assert fixed.stderr_lines[-1] == "1 file could not be processed, nothing to fix in 1 file."
    checked = run(["check", "broken.json", "ok.json"], cwd=tmp_path, expect=2)
    assert checked.stdout_lines[-1] == "1 file could not be processed, no findings in 1 file."


def test_the_same_file_named_twice_is_checked_once(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "h.json", "./h.json", "."], cwd=tmp_path, expect=1)
    assert result.stdout_lines[-1].startswith("Found 1 finding in 1 file"), result.show()


def test_fix_of_stdin_without_history_passes_it_through_with_skip_no_history() -> None:
    """A filter that skips its input writes it back: ``cat a | toolpatch fix --skip-no-history
    - > b`` used to leave ``b`` empty. A history is still repaired, and an input that cannot be
    read still writes nothing (exit 2)."""
    data = b'{"name": "not a history", "version": 1}\n'
    skipped = run(["fix", "--skip-no-history", "-"], input=data, expect=0)
    assert skipped.stdout == data, skipped.show()
    assert skipped.stderr_lines == ["1 file skipped (no message history)."], skipped.show()
    fixed = run(["fix", "--skip-no-history", "-"], input=DANGLING, expect=0)
    assert fixed.stdout == DANGLING_FIXED, fixed.show()
    broken = run(["fix", "--skip-no-history", "-"], input=b'{"messages": [', expect=2)
    assert broken.stdout == b"", broken.show()
