"""Reports cannot command the CI or the terminal (docs/cli.md#safety): every name and id from the
data or the file system is shown escaped in every output, ``fix --diff`` headers included, and
``fix --diff`` compares only the lines a repair changes (docs/cli.md#limits).

A GitHub Actions runner reads stdout and stderr for workflow commands (a line starting ``::``);
a terminal obeys ESC, BEL and C1 controls; U+202E reverses what follows it on screen and U+2028
ends a line in many viewers. None of them may come out raw from a name.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.conftest import SAMPLES
from tests.helpers import run
from tests.robustness import dangling_history, unanswered_calls
from tests.sample_cases import every_case
from toolpatch.cli.diff_view import diff_path, patched_diff, unified_diff

#: A file name that, printed raw, ends the line and writes a workflow command of its own.
COMMAND_NAME = "a\n::error file=evil.py,line=1::FAKE\x1b]0;x\x07\u009b2J\u202e.json"
#: What may never appear raw in a report: line-starting workflow commands are checked apart.
RAW = ("\x1b", "\x07", "\u009b", "\u202e", "\u2028")


def assert_nothing_raw(text: str) -> None:
    for char in RAW:
        assert char not in text, f"raw U+{ord(char):04X} in:\n{text!r}"
    commands = [line for line in text.splitlines() if line.startswith("::error file=evil")]
    assert not commands, commands


def hostile_history() -> bytes:
    """A dangling call whose tool name and id hold ESC, BEL, C1, U+202E and U+2028."""
    name = "get\x1b[31m\u202eweather\u2028::error file=evil.py::X"
    return json.dumps(dangling_history("call\x07\u009b1\u2028", name)).encode()


def test_fix_diff_quotes_a_file_name_that_holds_controls(tmp_path: Path) -> None:
    path = tmp_path / COMMAND_NAME
    path.write_bytes(json.dumps(dangling_history(), indent=2).encode())
    result = run(["fix", "--diff", COMMAND_NAME], cwd=tmp_path, expect=1)
    shown = result.stdout.decode()
    assert_nothing_raw(shown)
    headers = [line for line in shown.split("\n") if line.startswith(("---", "+++"))]
    quoted = COMMAND_NAME.replace("\n", "\\n").replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    quoted = quoted.replace("\u009b", "\\u009b").replace("\u202e", "\\u202e")
    assert headers == [f'--- "a/{quoted}"', f'+++ "b/{quoted}"']
    assert_nothing_raw(result.stderr)


def test_a_diff_header_is_quoted_as_git_quotes_it() -> None:
    assert diff_path("a", "plain/h.json") == "a/plain/h.json"
    assert diff_path("b", 'say "hi"\\.json') == '"b/say \\"hi\\"\\\\.json"'
    assert diff_path("a", "thread\u2028id") == '"a/thread\\u2028id"'


@pytest.mark.parametrize("output_format", ["github", "concise", "full"])
def test_check_reports_escape_names_and_ids(tmp_path: Path, output_format: str) -> None:
    (tmp_path / "h\u202e.json").write_bytes(hostile_history())
    result = run(["check", "--output-format", output_format, "."], cwd=tmp_path, expect=1)
    assert_nothing_raw(result.stdout.decode())
    assert_nothing_raw(result.stderr)
    assert "\\u202e" in result.stdout.decode() + result.stderr


def test_github_annotations_escape_controls_in_every_part(tmp_path: Path) -> None:
    (tmp_path / "h\x1b.json").write_bytes(hostile_history())
    result = run(["check", "--output-format", "github", "."], cwd=tmp_path, expect=1)
    lines = result.stdout.decode().splitlines()
    assert lines, result.show()
    assert all(line.startswith("::error title=toolpatch") for line in lines), lines
    assert "file=h\\x1b.json" in lines[0]
    assert "\\x07\\u009b1\\u2028" in lines[0]  # the call id, shown escaped


def test_show_escapes_names_and_ids(tmp_path: Path) -> None:
    (tmp_path / "h.json").write_bytes(hostile_history())
    result = run(["show", "h.json"], cwd=tmp_path, expect=0)
    assert_nothing_raw(result.stdout.decode())
    assert "\\u202e" in result.stdout.decode()


def test_fix_report_escapes_bidi_and_separators(tmp_path: Path) -> None:
    (tmp_path / "h\u2028x.json").write_bytes(hostile_history())
    result = run(["fix", "."], cwd=tmp_path, expect=0)
    assert_nothing_raw(result.stderr)
    assert "h\\u2028x.json" in result.stderr


# --------------------------------------------------------------------------------------------
# fix --diff compares the changed lines only


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many lines each comparison of `difflib.SequenceMatcher` was given."""
    sizes: list[int] = []
    get_opcodes = difflib.SequenceMatcher.get_opcodes

    def counting(self: difflib.SequenceMatcher[str]) -> Any:
        sizes.append(len(self.a) + len(self.b))
        return get_opcodes(self)

    monkeypatch.setattr(difflib.SequenceMatcher, "get_opcodes", counting)
    return sizes


def test_fix_diff_compares_only_the_lines_a_repair_changes(compared: list[int]) -> None:
    """A fix with a change every few lines of a large input once diffed the whole input with
    difflib: quadratic (40 MB took 43 s, 300 MB did not finish). Now each changed run of lines
    is compared alone, and the diff is the one difflib makes of the whole."""
    data = unanswered_calls(500, indent=2)
    result = patchcore.fix_document(data, filename="h.json")
    assert result.output is not None
    assert len(result.fixed) == 500
    patches = patchcore.repair_patches(data, result)
    diff = unified_diff(data, result.output, name="h.json", patches=patches)
    assert max(compared) < 40, "a run of lines as long as the input was compared"
    assert sum(compared) < 2 * (data.count(b"\n") + result.output.count(b"\n"))
    assert applied(data, diff) == result.output
    compared.clear()
    whole = unified_diff(data, result.output, name="h.json")  # the whole, compared
    assert max(compared) > data.count(b"\n")
    assert diff.count("\n+") == whole.count("\n+")
    assert diff.count("\n-") == whole.count("\n-")


def applied(before: bytes, diff: str) -> bytes:
    """``before`` with the unified ``diff`` applied (for text whose lines all end in a line
    feed)."""
    old = before.decode().split("\n")
    new: list[str] = []
    done = 0
    for hunk in re.split(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@\n", diff, flags=re.M)[1:]:
        if hunk.isdigit():
            start = int(hunk) - 1 if int(hunk) else 0
            new += old[done:start]
            done = start
            continue
        for line in hunk.split("\n")[:-1]:
            if line[0] in " -":
                assert old[done] == line[1:], (done, line)
                done += 1
            if line[0] in " +":
                new.append(line[1:])
    return "\n".join(new + old[done:]).encode()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"a\nb\nc", b"a\nb\nc\nd"),  # appended to a last line without a line feed
        (b"a\nb\nc\n", b"a\nb\nc\nd\n"),
        (b"a\nb\n", b"x\na\nb\n"),
        (b"\xef\xbb\xbfa\nb\n", b"\xef\xbb\xbfa\nz\nb\n"),
        (b"a\n\xffb\nc\n", b"a\n\xffb\nd\nc\n"),
    ],
)
def test_a_diff_of_regions_is_the_diff_of_the_whole(before: bytes, after: bytes) -> None:
    matcher = difflib.SequenceMatcher(None, before, after)
    patches = [
        (i1, i2, after[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]
    whole = unified_diff(before, after, name="x")
    assert unified_diff(before, after, name="x", patches=patches) == whole


@pytest.mark.parametrize(
    "sample",
    sorted(p for p in SAMPLES.rglob("*.json") if p.with_suffix(".fixed.json").exists()),
    ids=lambda p: str(p.relative_to(SAMPLES)),
)
def test_a_samples_diff_of_regions_is_a_unified_diff_of_the_repair(sample: Path) -> None:
    """The region diff of a real repair gives the repair when applied, with no more than three
    lines of context around each run of changes, as ``diff -u`` writes it (an unchanged line of
    a region beside the unchanged lines around it is not a fourth). Where the inserted lines
    repeat their neighbours it may place them otherwise than a matcher over the whole input:
    where the repair put them."""
    data = sample.read_bytes()
    # a provider's sample is fixed for its target (docs/cli.md#target)
    (target,) = {c.target for c in every_case() if SAMPLES / c.path == sample}
    result = patchcore.fix_document(data, options=patchcore.make_options(target=target))
    assert result.output is not None
    patches = patchcore.repair_patches(data, result)
    diff = unified_diff(data, result.output, name="x", patches=patches)
    if data.endswith(b"\n") and result.output.endswith(b"\n"):
        assert applied(data, diff) == result.output
    for hunk in re.split(r"^@@ .* @@\n", diff, flags=re.M)[1:]:
        lines = hunk.split("\n")[:-1]
        changed = [n for n, line in enumerate(lines) if line[:1] in "+-"]
        assert changed[0] <= 3, hunk
        assert len(lines) - 1 - changed[-1] <= 3, hunk


@pytest.mark.parametrize("gap", [5, 6, 7, 8, 9, 40])
def test_a_diff_read_window_by_window_is_the_diff_of_the_whole(gap: int) -> None:
    """``fix --diff`` of a large file reads it a window at a time around its changes: changes
    ``gap`` lines apart (a hunk's context joins them up to seven) give the hunks, and the line
    numbers, of a diff of the whole."""
    before = b"".join(b"line %d\n" % k for k in range(12 * gap))
    after = bytearray()
    patches = []
    for k, line in enumerate(before.splitlines(keepends=True)):
        if k % gap == 2:
            start = before.index(line)
            patches.append((start, start + len(line), b"changed %d\n" % k))
            after += b"changed %d\n" % k
        else:
            after += line

    def read(offset: int, size: int) -> bytes:
        return before[offset : offset + size]

    windowed = patched_diff(read, len(before), patches, name="x")
    assert windowed == unified_diff(before, bytes(after), name="x")
