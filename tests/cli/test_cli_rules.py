"""The provider-strict rules on the command line (docs/rules.md), run as a user runs them.

Pins ``toolpatch rules`` and ``toolpatch rule CODE``, the ruff-style fixability marks on
``check`` lines (``[*]`` fixable, ``[~]`` fixable with ``--unsafe-fixes``, no mark: not
fixable), the summary's counts of both, that ``fix`` without ``--unsafe-fixes`` only ever
inserts bytes, the exit codes of ``fix --unsafe-fixes`` (0 when everything was fixable, 1 when
TP104/TP105 findings remain), and rule selection by prefix (``--select TP1``) and ``--ignore``.

The rule codes and names are the ones docs/rules.md lists, written out here; wording is pinned
only where the contract fixes it (codes, names, the provider errors users report, whether a fix
is safe, unsafe or absent).
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.builders import openai_assistant as assistant
from tests.builders import openai_call as call
from tests.builders import openai_tool as tool
from tests.builders import openai_user as user
from tests.conftest import SAMPLES
from tests.helpers import TP001_TEXT, Result, clean_env, premature_breaks, run, text

#: Every rule of docs/rules.md: code → (name, fix kind).
RULES = {
    "TP001": ("dangling-tool-call", "safe"),
    "TP002": ("pending-tool-call", "safe"),
    "TP003": ("invalid-tool-call", "safe"),
    "TP004": ("unread-tool-call", "none"),
    "TP101": ("orphan-tool-result", "unsafe"),
    "TP102": ("misplaced-tool-result", "unsafe"),
    "TP103": ("duplicate-tool-result", "unsafe"),
    "TP104": ("duplicate-tool-call-id", "none"),
    "TP105": ("missing-tool-call-id", "unsafe"),
    "TP106": ("tool-result-not-first", "unsafe"),
    "TP107": ("empty-tool-calls", "unsafe"),
    "TP201": ("split-line", "safe"),
    "TP301": ("no-thought-signature", "unsafe"),
    "TP302": ("mistral-tool-call-id", "unsafe"),
    "TP303": ("orphan-reasoning-item", "unsafe"),
    "TP304": ("assistant-prefill", "none"),
    "TP305": ("unstored-item", "unsafe"),
    "TP306": ("mistral-missing-tool-call-id", "none"),
    "TP307": ("empty-error-tool-result", "safe"),
}
CODE = re.compile(r"\bTP\d{3}\b")
#: ``path:line:col: CODE [mark] message``: the mark is ``[*]``, ``[~]`` or absent.
FINDING_LINE = re.compile(r"^(?P<path>.+?):\d+:\d+: (?P<code>TP\d{3})(?P<mark> \[[*~]\])? \S")

# --------------------------------------------------------------------------------------------
# histories


def dump(messages: list[Any], indent: int | None = 2) -> bytes:
    return (json.dumps(messages, indent=indent) + "\n").encode()


#: Every kind of finding fix can do something about: an orphan (TP101, unsafe), a misplaced
#: result (TP102, unsafe), a duplicate (TP103, unsafe), an empty tool_calls (TP107, unsafe) and
#: a dangling call (TP001, safe).
FIXABLE = [
    tool("call_gone", "Booked."),
    user("Weather in Rome?"),
    assistant(call("call_rome", "get_weather")),
    user("In Celsius."),
    tool("call_rome", "22C"),
    assistant(call("call_time", "get_time")),
    tool("call_time", "09:00"),
    tool("call_time", "09:00"),
    {"role": "assistant", "content": "22C, 09:00.", "tool_calls": []},
    assistant(call("call_book", "book_table")),
    user("Cancel that."),
]
#: The same after ``fix --select ALL --unsafe-fixes``, stated by hand.
FIXABLE_REPAIRED = [
    user("Weather in Rome?"),
    assistant(call("call_rome", "get_weather")),
    tool("call_rome", "22C"),
    user("In Celsius."),
    assistant(call("call_time", "get_time")),
    tool("call_time", "09:00"),
    {"role": "assistant", "content": "22C, 09:00."},
    assistant(call("call_book", "book_table")),
    tool("call_book", text(TP001_TEXT, "book_table", "call_book")),
    user("Cancel that."),
]
FIXABLE_CODES = ["TP101", "TP102", "TP103", "TP107", "TP001"]

#: Findings of all three kinds: TP001 (safe), TP101 (unsafe), TP104 and TP105 (no fix).
MIXED = [
    user("Weather in Paris and Rome?"),
    tool("call_stale", "old result"),
    assistant(call("call_0", "get_weather"), call("call_0", "get_weather")),
    tool("call_0", "18C"),
    tool("call_0", "24C"),
    assistant(call(None, "get_time")),
    user("And book a table."),
    assistant(call("call_book", "book_table")),
    user("No, cancel."),
]
MIXED_FIXES = {"TP101": "unsafe", "TP104": "none", "TP105": "none", "TP001": "safe"}


def write(tmp_path: Path, messages: list[Any], name: str = "history.json", **kw: Any) -> Path:
    path = tmp_path / name
    path.write_bytes(dump(messages, **kw))
    return path


def findings(result: Result) -> list[tuple[str, str]]:
    """``(code, mark)`` of each finding line, ``check``'s on stdout, what ``fix`` leaves on
    stderr (``""``: no mark)."""
    found = []
    for line in result.stdout_lines + result.stderr_lines:
        match = FINDING_LINE.match(line)
        if match:
            found.append((match["code"], (match["mark"] or "").strip()))
    return found


def summary(result: Result) -> str:
    """The closing line of a run: ``check``'s on stdout, with its report."""
    return (result.stdout_lines if "check" in result.args[1:2] else result.stderr_lines)[-1]


def only_insertions(before: bytes, after: bytes) -> list[str]:
    """The edits that turn ``before`` into ``after`` other than insertions (none: ``after`` is
    ``before`` with bytes inserted)."""
    old, new = before.decode(), after.decode()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        f"{op} {old[i1:i2]!r} -> {new[j1:j2]!r}"
        for op, i1, i2, j1, j2 in matcher.get_opcodes()
        if op not in ("equal", "insert")
    ]


# --------------------------------------------------------------------------------------------
# toolpatch rules / toolpatch rule CODE


def test_rules_lists_every_rule_once() -> None:
    result = run(["rules"], expect=0)
    listed = CODE.findall(result.stdout.decode())
    assert sorted(listed) == sorted(RULES), result.show()
    out = result.stdout.decode()
    for code, (name, _) in RULES.items():
        (line,) = [line for line in out.splitlines() if re.match(rf"\s*{code}\b", line)]
        assert name in line, result.show()


def test_rules_tells_safe_unsafe_and_unfixable_apart() -> None:
    out = run(["rules"], expect=0).stdout.decode()
    for code, (_, fix) in RULES.items():
        (line,) = [line for line in out.splitlines() if re.match(rf"\s*{code}\b", line)]
        if fix == "unsafe":
            assert "unsafe" in line, line
        elif fix == "safe":
            assert re.search(r"\bsafe\b", line) and "unsafe" not in line, line
        else:
            assert re.search(r"\bno fix\b", line, re.IGNORECASE), line


@pytest.mark.parametrize("spelling", ["TP101", "tp101", " TP101 "])
def test_rule_explains_tp101(spelling: str) -> None:
    result = run(["rule", spelling], expect=0)
    out = " ".join(result.stdout.decode().split())  # the text is wrapped to the terminal
    assert "TP101" in out and "orphan-tool-result" in out, result.show()
    # What providers answer (docs/rules.md): OpenAI Chat and Anthropic at least.
    assert "must be a response to a preceeding message with 'tool_calls'" in out, result.show()
    assert "unexpected `tool_use_id` found in `tool_result` blocks" in out, result.show()
    # The fix, and that it is unsafe (it deletes content).
    assert re.search(r"\bdrop", out, re.IGNORECASE), result.show()
    assert "unsafe" in out and "--unsafe-fixes" in out, result.show()
    assert set(CODE.findall(out)) == {"TP101"}, "explains that one rule only"


@pytest.mark.parametrize(("code", "fix"), [(c, f) for c, (_, f) in RULES.items()])
def test_rule_explains_every_rule_and_its_fix_kind(code: str, fix: str) -> None:
    result = run(["rule", code], expect=0)
    out = result.stdout.decode()
    assert RULES[code][0] in out, result.show()
    if fix == "unsafe":
        assert "unsafe" in out, result.show()
    elif fix == "safe":
        # The safe fix's text says no "unsafe"; the drop policy after it (the TP0xx rules'
        # only: the others answer no call) is unsafe.
        safety, _, policies = out.partition("With `--repair drop`")
        assert re.search(r"\bsafe\b", safety) and "unsafe" not in safety, result.show()
        assert ("unsafe" in policies) == code.startswith("TP0"), result.show()
    else:
        assert re.search(r"\bno fix\b", out, re.IGNORECASE), result.show()
        assert "unsafe" not in out, result.show()
    assert result.stderr == "", result.show()


@pytest.mark.parametrize("code", ["TP999", "TP1", "ALL", "E501"])
def test_rule_of_an_unknown_code_is_a_usage_error(code: str) -> None:
    result = run(["rule", code], expect=2)
    assert result.stdout == b"", result.show()
    assert code in result.stderr, result.show()


def test_rule_without_a_code_is_a_usage_error() -> None:
    run(["rule"], expect=2)


#: ``ruff rule F401``'s sections, in its order.
SECTIONS = ["## What it does", "## Why is this bad?", "## Example"]


def fenced(out: str) -> list[str]:
    """The fenced code blocks of ``out``, in order."""
    return re.findall(r"^```json\n(.*?)^```$", out, re.MULTILINE | re.DOTALL)


def prose(out: str) -> str:
    """``out`` without its code blocks."""
    return re.sub(r"^```json\n.*?^```$", "```", out, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("spelling", ["TP001", "tp001", "dangling-tool-call", "Dangling-Tool-Call"])
def test_rule_by_code_or_name_in_ruffs_layout(spelling: str) -> None:
    result = run(["rule", spelling], expect=0)
    out = result.stdout.decode()
    assert out == run(["rule", "TP001"], expect=0).stdout.decode(), "one rule, one text"
    lines = out.splitlines()
    assert lines[0] == "# dangling-tool-call (TP001)", result.show()
    assert "Fix is sometimes available." in lines, result.show()
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [*SECTIONS, "## Fix safety"], result.show()
    assert any(line.startswith("Use instead") for line in lines), result.show()
    assert (
        "This fix is safe" in out
        and "Tool call {name} with id {id} has no recorded result" in " ".join(out.split())
    ), result.show()


def test_rule_quotes_each_provider_error_once() -> None:
    """The provider errors came twice (the explanation's quotes, then each dialect's); each
    wording is listed once now, with every dialect that answers it."""
    out = " ".join(run(["rule", "TP001"], expect=0).stdout.decode().split())
    for wording in (
        "Found AIMessages with tool_calls that do not have a corresponding ToolMessage",
        "No tool output found for function call",
        "Please ensure that the number of function response parts",
        "must be followed by tool messages responding to each 'tool_call_id'",
    ):
        assert out.count(wording) == 1, wording
    assert "`openai-agents-js`, `openai-responses`: No tool output found" in out
    assert "`gemini`, `gemini-cli`: Please ensure" in out


@pytest.mark.parametrize("code", list(RULES))
def test_rule_example_is_what_fix_writes(tmp_path: Path, code: str) -> None:
    """The example's "before" is a history the rule (and only it) reports, and its "after" is
    byte for byte what ``toolpatch fix`` writes for it; for a rule without a fix, a history no
    rule reports."""
    out = run(["rule", code], expect=0).stdout.decode()
    before, after, *dropped = fenced(out)
    path = tmp_path / "history.json"
    path.write_text(before)
    provider = patchcore.RULES[code].provider
    # a provider rule's example may show the pairing rules' own defects too (a tool message
    # without an id answers no call): it is checked with its rule alone, for its provider
    targeted = ["--target", provider] if provider is not None else []
    selected = [*targeted, "--select", code if provider is not None else "ALL"]
    checked = run(["check", *selected, str(path)], expect=1)
    assert {found for found, _ in findings(checked)} == {code}, checked.show()
    if RULES[code][1] == "none":
        path.write_text(after)
        run(["check", *selected, str(path)], expect=0)
        return
    default = code in patchcore.RuleSelection.build().codes
    fix = ["fix"] if default or provider is not None else ["fix", "--select", code]
    fix += targeted  # a provider rule applies to the run that targets its provider
    fix += ["--unsafe-fixes"] if RULES[code][1] == "unsafe" else []
    assert f"Use instead (what `toolpatch {' '.join(fix)}` writes):" in out, out
    fixed = run([*fix, "-"], input=before.encode(), expect=0)
    assert fixed.stdout.decode() == after, fixed.show()
    if code.startswith("TP0"):  # and what the drop repair policy writes
        drop = ["fix", "--repair", "drop", "--unsafe-fixes", "-"]
        assert "What `toolpatch fix --repair drop --unsafe-fixes` writes:" in out, out
        assert [run(drop, input=before.encode(), expect=0).stdout.decode()] == dropped
    else:
        assert not dropped, out


@pytest.mark.parametrize("code", ["TP001", "TP102", "TP104", "TP106"])
@pytest.mark.parametrize("columns", [80, 120])
def test_rule_is_wrapped_to_the_terminal(code: str, columns: int) -> None:
    """Prose is wrapped to the terminal (up to 100 columns), filling each line; the JSON
    histories are data and are printed as they are."""
    out = run(["rule", code], env=clean_env(COLUMNS=str(columns)), expect=0).stdout.decode()
    width = min(columns, 100) - 2
    text = prose(out)
    assert max(len(line) for line in text.splitlines()) <= width, out
    assert not premature_breaks(text, width), "\n".join(premature_breaks(text, width))


@pytest.mark.parametrize(
    ("spelling", "suggested"),
    [
        ("dangling", "did you mean 'dangling-tool-call'?"),
        ("pending-call", "did you mean 'pending-tool-call'"),
        ("TP1", "did you mean 'TP101', 'TP102', 'TP103', 'TP104', 'TP105', 'TP106' or 'TP107'?"),
        ("tp00", "did you mean 'TP001', 'TP002', 'TP003' or 'TP004'?"),
        ("E501", None),
    ],
)
def test_rule_of_an_unknown_name_suggests_close_ones(spelling: str, suggested: str | None) -> None:
    result = run(["rule", spelling], expect=2)
    assert result.stdout == b"", result.show()
    message = " ".join(result.stderr.split())
    assert f"'{spelling}' is not a rule code or name" in message, result.show()
    if suggested is None:
        assert "did you mean" not in message, result.show()
    else:
        assert suggested in message, result.show()


# --------------------------------------------------------------------------------------------
# check: marks and summary


def test_check_marks_safe_unsafe_and_unfixable_findings(tmp_path: Path) -> None:
    path = write(tmp_path, MIXED)
    result = run(["check", "--select", "ALL", str(path)], expect=1)
    marks = {"safe": "[*]", "unsafe": "[~]", "none": ""}
    assert findings(result) == [
        ("TP101", marks["unsafe"]),
        ("TP104", marks["none"]),
        ("TP105", marks["none"]),
        ("TP001", marks["safe"]),
    ], result.show()


def test_check_summary_counts_fixable_and_unsafe_fixable(tmp_path: Path) -> None:
    result = run(["check", "--select", "ALL", str(write(tmp_path, MIXED))], expect=1)
    line = summary(result)
    assert re.search(r"\b4 findings\b", line), result.show()
    assert re.search(r"\b1 fixable\b", line), result.show()
    assert re.search(r"\b1 more\b[^.]*--unsafe-fixes", line), result.show()


def test_check_summary_counts_over_several_files(tmp_path: Path) -> None:
    write(tmp_path, MIXED, "a.json")
    write(tmp_path, FIXABLE, "b.json")
    result = run(["check", "--select", "ALL", str(tmp_path)], expect=1)
    assert len(findings(result)) == 4 + 5, result.show()
    line = summary(result)
    assert re.search(r"\b9 findings in 2 files\b", line), result.show()
    assert re.search(r"\b2 fixable\b", line), result.show()
    assert re.search(r"\b5 more\b[^.]*--unsafe-fixes", line), result.show()


def test_check_summary_without_unsafe_findings_does_not_mention_them(tmp_path: Path) -> None:
    dangling = [user("Hi"), assistant(call("call_1", "get_weather")), user("Bye")]
    result = run(["check", "--select", "ALL", str(write(tmp_path, dangling))], expect=1)
    assert findings(result) == [("TP001", "[*]")], result.show()
    assert "--unsafe-fixes" not in summary(result), result.show()


def test_default_check_reports_no_strict_rule(tmp_path: Path) -> None:
    """The orphan is said by default as a result no call answers (TP004), not as TP101."""
    result = run(["check", str(write(tmp_path, MIXED))], expect=1)
    assert findings(result) == [("TP004", ""), ("TP001", "[*]")], result.show()


# --------------------------------------------------------------------------------------------
# fix without --unsafe-fixes: only insertions


def inputs_of(folder: Path) -> list[Path]:
    """The sample inputs under ``folder`` (not their expected outputs)."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.suffix in (".json", ".jsonl") and ".fixed." not in p.name and ".unsafe." not in p.name
    )


@pytest.mark.slow  # a diff of every strict sample's bytes: over ten seconds
def test_fix_without_unsafe_fixes_only_inserts(tmp_path: Path) -> None:
    """``fix --select ALL`` never deletes or moves: each output is its input plus inserted
    bytes, and a file whose findings are all unsafe or unfixable is not rewritten."""
    folder = tmp_path / "strict"
    shutil.copytree(SAMPLES / "strict", folder)
    write(folder, FIXABLE, "fixable.json")
    write(folder, MIXED, "mixed.json", indent=None)
    before = {p: p.read_bytes() for p in inputs_of(folder)}
    assert len(before) > 20
    stamps = {p: p.stat().st_mtime_ns for p in before}
    run(["fix", "--select", "ALL", *map(str, before)], expect=1)
    changed = 0
    for path, data in before.items():
        after = path.read_bytes()
        assert not only_insertions(data, after), f"{path.name}: {only_insertions(data, after)}"
        if after == data:
            assert path.stat().st_mtime_ns == stamps[path], f"{path.name} rewritten unchanged"
        else:
            changed += 1
    assert changed >= 3, "some of these files have a dangling call to answer"


def test_fix_without_unsafe_fixes_leaves_strict_findings(tmp_path: Path) -> None:
    path = write(tmp_path, FIXABLE, indent=4)
    original = path.read_bytes()
    result = run(["fix", "--select", "ALL", str(path)], expect=1)
    assert not only_insertions(original, path.read_bytes()), result.show()
    # The unsafe-fixable findings are the ones left, still marked so.
    assert findings(result) == [
        ("TP101", "[~]"),
        ("TP102", "[~]"),
        ("TP103", "[~]"),
        ("TP107", "[~]"),
    ], result.show()
    assert re.search(r"\b4 findings\b[^,.]*--unsafe-fixes", summary(result)), result.show()
    recheck = run(["check", "--select", "ALL", str(path)], expect=1)
    assert [code for code, _ in findings(recheck)] == FIXABLE_CODES[:-1], recheck.show()


# --------------------------------------------------------------------------------------------
# fix --unsafe-fixes: exit codes


def test_unsafe_fix_of_fixable_findings_exits_0(tmp_path: Path) -> None:
    path = write(tmp_path, FIXABLE)
    before = run(["check", "--select", "ALL", str(path)], expect=1)
    assert [code for code, _ in findings(before)] == FIXABLE_CODES, before.show()
    result = run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=0)
    assert json.loads(path.read_bytes()) == FIXABLE_REPAIRED, result.show()
    assert findings(result) == [], "nothing remains to report"
    run(["check", "--select", "ALL", str(path)], expect=0)
    again = path.read_bytes()
    run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=0)
    assert path.read_bytes() == again, "a second unsafe fix changes nothing"


def test_unsafe_fix_to_stdout(tmp_path: Path) -> None:
    result = run(["fix", "--select", "ALL", "--unsafe-fixes", "-"], input=dump(FIXABLE), expect=0)
    assert json.loads(result.stdout) == FIXABLE_REPAIRED, result.show()


def test_unsafe_fix_exits_1_when_unfixable_findings_remain(tmp_path: Path) -> None:
    path = write(tmp_path, MIXED)
    result = run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=1)
    assert sorted(code for code, _ in findings(result)) == ["TP104", "TP105"], result.show()
    assert all(mark == "" for _, mark in findings(result)), result.show()
    repaired = json.loads(path.read_bytes())
    assert tool("call_stale", "old result") not in repaired, "the orphan is dropped"
    assert tool("call_book", text(TP001_TEXT, "book_table", "call_book")) in repaired
    recheck = run(["check", "--select", "ALL", str(path)], expect=1)
    assert sorted(code for code, _ in findings(recheck)) == ["TP104", "TP105"], recheck.show()
    again = path.read_bytes()
    run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=1)
    assert path.read_bytes() == again


@pytest.mark.parametrize("code", ["TP104", "TP105"])
def test_unsafe_fix_exits_1_for_one_unfixable_finding(tmp_path: Path, code: str) -> None:
    if code == "TP104":
        messages = [
            user("Paris and Rome?"),
            assistant(call("call_0", "get_weather"), call("call_0", "get_weather")),
            tool("call_0", "18C"),
            tool("call_0", "24C"),
        ]
    else:
        messages = [user("Time?"), assistant(call("", "get_time")), user("Hello?")]
    path = write(tmp_path, messages)
    original = path.read_bytes()
    result = run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=1)
    assert findings(result) == [(code, "")], result.show()
    assert path.read_bytes() == original, "nothing to fix: the file is left alone"


def test_unsafe_fixes_apply_only_to_selected_rules(tmp_path: Path) -> None:
    """``--unsafe-fixes`` alone runs the default (TP0xx) rules: the orphan stays (reported as
    TP004, which has no fix)."""
    path = write(tmp_path, FIXABLE)
    run(["fix", "--unsafe-fixes", str(path)], expect=1)
    repaired = json.loads(path.read_bytes())
    assert repaired[0] == tool("call_gone", "Booked."), "TP101 was not selected"
    assert tool("call_book", text(TP001_TEXT, "book_table", "call_book")) in repaired


# --------------------------------------------------------------------------------------------
# --select TP1 / --ignore


@pytest.mark.parametrize("selector", ["TP1", "tp1", "TP10"])
def test_select_tp1_selects_only_the_strict_rules(tmp_path: Path, selector: str) -> None:
    path = write(tmp_path, MIXED)
    result = run(["check", "--select", selector, str(path)], expect=1)
    codes = [code for code, _ in findings(result)]
    assert codes == ["TP101", "TP104", "TP105"], result.show()


def test_select_tp1_fix_inserts_no_synthetic_result(tmp_path: Path) -> None:
    path = write(tmp_path, FIXABLE)
    original = path.read_bytes()
    result = run(["fix", "--select", "TP1", str(path)], expect=1)
    assert path.read_bytes() == original, "no TP1xx fix is safe: nothing is written"
    assert [code for code, _ in findings(result)] == FIXABLE_CODES[:-1], result.show()
    run(["fix", "--select", "TP1", "--unsafe-fixes", str(path)], expect=0)
    repaired = json.loads(path.read_bytes())
    assert repaired == [m for m in FIXABLE_REPAIRED if m.get("tool_call_id") != "call_book"]
    dangling = run(["check", "--select", "ALL", str(path)], expect=1)
    assert findings(dangling) == [("TP001", "[*]")], dangling.show()


def test_select_combines_prefixes_and_codes(tmp_path: Path) -> None:
    path = write(tmp_path, MIXED)
    result = run(["check", "--select", "TP0,TP105", str(path)], expect=1)
    assert [code for code, _ in findings(result)] == ["TP004", "TP105", "TP001"], result.show()


ANTHROPIC: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Lisbon?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
    },
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Here:"},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "21C"},
            {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "stale"},
        ],
    },
    {"role": "assistant", "content": "21C."},
]


def test_ignore_tp106(tmp_path: Path) -> None:
    path = write(tmp_path, ANTHROPIC)
    everything = run(["check", "--select", "ALL", str(path)], expect=1)
    assert [code for code, _ in findings(everything)] == ["TP106", "TP101"], everything.show()
    ignored = run(["check", "--select", "ALL", "--ignore", "TP106", str(path)], expect=1)
    assert [code for code, _ in findings(ignored)] == ["TP101"], ignored.show()
    run(["fix", "--select", "ALL", "--ignore", "TP106", "--unsafe-fixes", str(path)], expect=0)
    repaired = json.loads(path.read_bytes())
    # The orphan is dropped; the text stays first, as TP106 was ignored.
    assert repaired[2]["content"] == ANTHROPIC[2]["content"][:2]
    after = run(["check", "--select", "ALL", str(path)], expect=1)
    assert findings(after) == [("TP106", "[~]")], after.show()
    run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=0)
    assert json.loads(path.read_bytes())[2]["content"] == [
        ANTHROPIC[2]["content"][1],
        ANTHROPIC[2]["content"][0],
    ]


def test_ignore_wins_over_select(tmp_path: Path) -> None:
    path = write(tmp_path, ANTHROPIC)
    run(["check", "--select", "TP106", "--ignore", "TP1", str(path)], expect=0)


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_selector_is_a_usage_error(tmp_path: Path, option: str) -> None:
    path = write(tmp_path, MIXED)
    original = path.read_bytes()
    result = run(["fix", option, "TP9", str(path)], expect=2)
    assert "TP9" in result.stderr, result.show()
    assert path.read_bytes() == original


# --------------------------------------------------------------------------------------------
# Unsafe fixes never empty a history


@pytest.mark.parametrize("name", ["history.jsonl", "history.json"])
def test_unsafe_fix_does_not_delete_the_whole_history(tmp_path: Path, name: str) -> None:
    """A file that is nothing but an orphan result used to be written back empty (0 bytes),
    which `check` then refused: deleting everything is not offered."""
    path = tmp_path / name
    original = b'{"role":"tool","tool_call_id":"call_1","content":"18C"}\n'
    path.write_bytes(original)
    fixed = run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=1)
    assert path.read_bytes() == original
    assert findings(fixed) == [("TP101", "")]
    assert "not fixable" in summary(fixed)
    assert findings(run(["check", "--select", "ALL", str(path)], expect=1)) == [("TP101", "")]


def test_unsafe_fix_leaving_one_message_line_reads_back(tmp_path: Path) -> None:
    """Two message lines in a `.json` file; deleting the orphan leaves one line, which no
    longer frames as JSON Lines: it reads back as a one-message history, not as an error."""
    path = tmp_path / "history.json"
    path.write_bytes(
        b'{"role":"tool","tool_call_id":"call_1","content":"18C"}\n{"role":"user","content":"x"}\n'
    )
    run(["fix", "--select", "ALL", "--unsafe-fixes", str(path)], expect=0)
    assert path.read_bytes() == b'{"role":"user","content":"x"}\n'
    assert summary(run(["check", "--select", "ALL", str(path)], expect=0)) == (
        "No findings in 1 file."
    )
