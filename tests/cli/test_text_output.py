"""The text report as ruff's: concise by default, ``full`` on request, ``--statistics``, ``-q``,
``-s``, and files named relative to the current folder (docs/cli.md#output).

Concise: one line per finding, ``path:line:col: CODE [*] message [/pointer]``, and each rule's
provider error once per run after the findings, not under every finding. ``full``: the dialect
in the brackets and each finding's own provider error under it. The tables by rule and by file
only with ``--statistics``, in place of the finding lines. ``-q``: the findings, warnings and
errors, no provider errors, hints or summary; ``-s``: nothing, the exit code still telling.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.builders import (
    CLEAN,
    DANGLING,
    DANGLING_CALL_LINE,
    DANGLING_JSONL,
    JSONL_LINES,
    write,
)
from tests.conftest import ROOT, SAMPLES
from tests.helpers import clean_env, run

OPENAI_ERROR = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
)
ANTHROPIC_SAMPLE = SAMPLES / "anthropic" / "request-partial-answer.json"
#: An Agents SDK run state: its dangling call cannot be fixed (the state takes no new item).
RUN_STATE = SAMPLES / "openai-responses" / "agents-sdk-run-state.json"
#: Five conversations that each end on a call of their own last turn: a fine-tuning set (its
#: note, said before anything is written).
TRAINING = b"".join(
    json.dumps(
        {
            "messages": [
                {"role": "user", "content": f"question {n}"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{n}",
                            "type": "function",
                            "function": {"name": "search", "arguments": "{}"},
                        }
                    ],
                },
            ]
        }
    ).encode()
    + b"\n"
    for n in range(5)
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """``a.json`` and ``b.json`` (a dangling OpenAI Chat call each, ids call_1), ``c.jsonl`` (one,
    id c1), ``clean.json``, and ``anthropic.json`` (an Anthropic request with a dangling call)."""
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "b.json", DANGLING)
    write(tmp_path / "c.jsonl", DANGLING_JSONL)
    write(tmp_path / "clean.json", CLEAN)
    write(tmp_path / "anthropic.json", ANTHROPIC_SAMPLE.read_bytes())
    return tmp_path


# --------------------------------------------------------------------------------------------
# concise


def test_each_finding_is_one_line(folder: Path) -> None:
    result = run(["check", "a.json", "c.jsonl"], cwd=folder, expect=1)
    a, c = result.finding_lines
    assert a == (
        f"a.json:{DANGLING_CALL_LINE}:3: TP001 [*] tool call 'get_weather' (id call_1) has no "
        "result, and the history goes on after it (fix: synthesized) [/2/tool_calls/0]"
    ), result.show()
    assert c.startswith("c.jsonl:2:1: TP001 [*] ") and c.endswith(" [/1/tool_calls/0]")
    assert "provider error" not in result.said, "no error under a finding"
    assert result.stdout_lines == [
        a,
        c,
        "TP001 (dangling-tool-call) is refused by the provider:",
        f"  openai-chat: {OPENAI_ERROR}ID",
        "Found 2 findings in 2 files (2 fixable with `toolpatch fix`).",
    ], result.show()


def test_the_provider_error_is_said_once_per_rule_and_dialect(folder: Path) -> None:
    names = ["a.json", "b.json", "c.jsonl", "anthropic.json", "clean.json"]
    result = run(["check", *names], cwd=folder, expect=1)
    assert len(result.finding_lines) == 4, result.show()
    after = result.stdout_lines[len(result.finding_lines) : -1]
    assert after == [
        "TP001 (dangling-tool-call) is refused by the provider:",
        "  anthropic: messages.N: `tool_use` ids were found without `tool_result` blocks "
        "immediately after: ID. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message.",
        f"  openai-chat: {OPENAI_ERROR}ID",
    ], "once per rule, once per dialect, the ids as ID" + result.show()


def test_over_the_samples_no_provider_error_is_repeated() -> None:
    """``check samples/`` once quoted the provider's error under each of its ~95 findings; each
    (rule, dialect, error) is said once, after the findings (docs/cli.md#output)."""
    result = run(["check", "--force", "samples"], cwd=ROOT, expect=1)
    findings = result.finding_lines
    assert len(findings) > 80, result.show()
    assert not any(line.startswith("    provider error:") for line in result.stdout_lines)
    said: list[tuple[str, str]] = []  # (rule heading, dialect and error)
    for line in result.stdout_lines[len(findings) :]:
        if line.endswith(" is refused by the provider:"):
            rule = line
        elif line.startswith("  "):
            said.append((rule, line))
    assert len(said) == len(set(said)) < len(findings) / 3, result.show()
    rules = [rule for rule, _ in said]
    assert rules == sorted(rules), "each rule once, in code order"
    assert all(len(line) < 400 for line in findings)


def test_fix_lists_what_is_left_and_its_provider_errors_once(tmp_path: Path) -> None:
    # A call that cannot be fixed stays: an Agents SDK run state takes no new item.
    for name in ("state.json", "state2.json"):
        write(tmp_path / name, RUN_STATE.read_bytes())
    result = run(["fix", "state.json", "state2.json"], cwd=tmp_path, expect=1)
    codes = [(line.split(":", 1)[0], line.split(" ")[1]) for line in result.finding_lines]
    assert codes == [
        ("state.json", "TP001"),
        ("state.json", "TP002"),
        ("state2.json", "TP001"),
        ("state2.json", "TP002"),
    ], result.show()
    assert result.stderr_lines[4:] == [
        "TP001 (dangling-tool-call) is refused by the provider:",
        "  openai-responses: No tool output found for function call ID.",
        "TP002 (pending-tool-call) is refused by the provider:",
        "  openai-responses: No tool output found for function call ID.",
        "Nothing to fix in 2 files, 4 findings not fixable.",
    ], result.show()


# --------------------------------------------------------------------------------------------
# full


def test_full_quotes_each_findings_own_provider_error_under_it(folder: Path) -> None:
    result = run(["check", "--output-format", "full", "a.json", "c.jsonl"], cwd=folder, expect=1)
    assert result.stdout_lines == [
        f"a.json:{DANGLING_CALL_LINE}:3: TP001 [*] tool call 'get_weather' (id call_1) has no "
        "result, and the history goes on after it (fix: synthesized) [openai-chat /2/tool_calls/0]",
        f"    provider error: {OPENAI_ERROR}call_1",
        "c.jsonl:2:1: TP001 [*] tool call 'lookup' (id c1) has no result, and the history goes "
        "on after it (fix: synthesized) [openai-chat /1/tool_calls/0]",
        f"    provider error: {OPENAI_ERROR}c1",
        "Found 2 findings in 2 files (2 fixable with `toolpatch fix`).",
    ], result.show()


@pytest.mark.parametrize(
    ("args", "env", "config"),
    [
        pytest.param(["--output-format", "full"], {}, None, id="option"),
        pytest.param([], {"TOOLPATCH_OUTPUT_FORMAT": "full"}, None, id="variable"),
        pytest.param([], {}, 'output-format = "full"\n', id="configuration"),
        pytest.param(
            [],
            {"TOOLPATCH_OUTPUT_FORMAT": "json"},
            'output-format = "full"\n',
            id="machine-variable-passed-over",
        ),
    ],
)
def test_fix_reports_in_full_when_asked(
    tmp_path: Path, args: list[str], env: dict[str, str], config: str | None
) -> None:
    """fix takes concise or full from its option, TOOLPATCH_OUTPUT_FORMAT or output-format,
    passing over a machine format meant for check."""
    write(tmp_path / "state.json", RUN_STATE.read_bytes())
    if config is not None:
        (tmp_path / "toolpatch.toml").write_text(config)
    result = run(["fix", *args, "state.json"], cwd=tmp_path, env=clean_env(**env), expect=1)
    lines = result.stderr_lines
    assert len(result.finding_lines) == 2 and lines[0].endswith(
        " [openai-responses /generated_items/0/raw_item]"
    ), result.show()
    for finding, error in ((lines[0], lines[1]), (lines[2], lines[3])):
        assert finding in result.finding_lines
        call_id = finding.split("(id ", 1)[1].split(")", 1)[0]
        assert error == f"    provider error: No tool output found for function call {call_id}."
    assert "is refused by the provider" not in result.stderr


def test_check_takes_concise_and_full_from_the_configuration_and_variable(folder: Path) -> None:
    (folder / "toolpatch.toml").write_text('output-format = "full"\n')
    configured = run(["check", "a.json"], cwd=folder, expect=1)
    assert configured.stdout_lines[1].startswith("    provider error: "), configured.show()
    env = clean_env(TOOLPATCH_OUTPUT_FORMAT="concise")
    variable = run(["check", "a.json"], cwd=folder, env=env, expect=1)
    assert variable.stdout_lines[1] == "TP001 (dangling-tool-call) is refused by the provider:"


def test_check_fix_reports_in_full(folder: Path) -> None:
    result = run(["check", "--fix", "--output-format", "full", "a.json"], cwd=folder, expect=0)
    assert result.stderr_lines == [
        "Fixed a.json: TP001 x1 (1 synthesized)",
        "Fixed 1 finding in 1 file (1 synthesized).",
    ]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        pytest.param(["fix", "--output-format", "json"], "--output-format", id="fix"),
        pytest.param(["check", "--fix", "--output-format", "sarif"], "--fix", id="check-fix"),
        pytest.param(
            ["check", "--statistics", "--output-format", "json"], "--statistics", id="statistics"
        ),
    ],
)
def test_text_only_options_with_a_machine_format_are_usage_errors(
    folder: Path, args: list[str], option: str
) -> None:
    result = run([*args, "a.json"], cwd=folder, expect=2)
    assert "Invalid value for" in result.stderr and option in result.stderr, result.show()
    assert (folder / "a.json").read_bytes() == DANGLING


# --------------------------------------------------------------------------------------------
# --statistics, -q, -s


def test_statistics_counts_instead_of_listing(folder: Path) -> None:
    result = run(["check", "--statistics", "a.json", "b.json", "c.jsonl"], cwd=folder, expect=1)
    assert not result.finding_lines, result.show()
    assert "By rule" in result.said and "By file" in result.said
    rows = [line for line in result.stdout_lines if line.startswith("│")]
    assert "│ TP001 │ dangling-tool-call │        3 │" in rows, result.show()
    assert result.stdout_lines[-1].startswith("Found 3 findings in 3 files")


def test_no_tables_without_statistics(folder: Path) -> None:
    result = run(["check", "-v", "--color", "always", "a.json", "b.json"], cwd=folder, expect=1)
    assert "By rule" not in result.said and "By file" not in result.said, result.show()


def test_quiet_keeps_findings_warnings_and_errors_only(tmp_path: Path) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "train.jsonl", TRAINING)
    write(tmp_path / "broken.json", b'{"messages": [')
    loud = run(["check", "a.json", "train.jsonl", "broken.json"], cwd=tmp_path, expect=2)
    assert any(" note: " in line for line in loud.stderr_lines), loud.show()
    quiet = run(["check", "-q", "a.json", "train.jsonl", "broken.json"], cwd=tmp_path, expect=2)
    errors = [line for line in quiet.stderr_lines if line.startswith("broken.json:")]
    assert quiet.stdout_lines == quiet.finding_lines, "the findings, and no summary"
    assert quiet.stderr_lines == errors, quiet.show()
    assert len(quiet.finding_lines) == 6 and len(errors) == 1, quiet.show()


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check"], id="check"),
        pytest.param(["check", "--output-format", "json"], id="json"),
        pytest.param(["check", "--statistics", "-v"], id="statistics"),
        pytest.param(["fix", "--check"], id="fix-check"),
        pytest.param(["fix"], id="fix"),
    ],
)
def test_silent_prints_nothing_and_exits_as_ever(tmp_path: Path, args: list[str]) -> None:
    write(tmp_path / "a.json", DANGLING)
    write(tmp_path / "broken.json", b"{")
    result = run([*args, "-s", "a.json", "broken.json"], cwd=tmp_path, expect=2)
    assert result.stderr == "" and result.stdout == b"", result.show()
    clean = run([*args, "--silent", "a.json"], cwd=tmp_path)
    assert clean.code == (0 if args == ["fix"] else 1), clean.show()
    assert clean.stderr == "" and clean.stdout == b""


def test_silent_still_writes_the_product_and_usage_errors(tmp_path: Path) -> None:
    write(tmp_path / "a.json", DANGLING)
    repaired = run(["fix", "-s", "-"], input=DANGLING, cwd=tmp_path, expect=0)
    assert b'"tool_call_id": "call_1"' in repaired.stdout and repaired.stderr == ""
    diff = run(["fix", "--diff", "-s", "a.json"], cwd=tmp_path, expect=1)
    assert diff.stdout.startswith(b"--- a/a.json") and diff.stderr == ""
    usage = run(["check", "-s", "--select", "XX9", "a.json"], cwd=tmp_path, expect=2)
    assert "XX9" in usage.stderr, "a usage error is not the report: it is still said"
    (tmp_path / "toolpatch.toml").write_text("select = 3\n")
    configured = run(["check", "-s", "a.json"], cwd=tmp_path, expect=2)
    assert "select" in configured.stderr


# --------------------------------------------------------------------------------------------
# file names


def test_an_absolute_path_under_the_current_folder_is_shown_relative(folder: Path) -> None:
    absolute = str(folder / "sub" / "a.json")
    write(folder / "sub" / "a.json", DANGLING)
    write(folder / "sub" / "broken.json", b"{")
    result = run(["check", absolute, str(folder / "sub" / "broken.json")], cwd=folder, expect=2)
    (finding,) = result.finding_lines
    assert finding.startswith(f"{Path('sub', 'a.json')}:{DANGLING_CALL_LINE}:3: TP001 "), (
        result.show()
    )
    assert any(line.startswith(f"{Path('sub', 'broken.json')}:1:") for line in result.stderr_lines)
    assert str(folder) not in result.said, result.show()
    report = run(["check", "--output-format", "json", absolute], cwd=folder, expect=1)
    (record,) = json.loads(report.stdout)
    assert record["file"] == absolute, "the machine reports name files as given"


def test_dot_and_dot_dot_inside_the_folder_are_shown_plain(folder: Path) -> None:
    result = run(["check", "./a.json", "../" + folder.name + "/b.json"], cwd=folder, expect=1)
    assert [line.split(":", 1)[0] for line in result.finding_lines] == ["a.json", "b.json"]


def test_a_file_outside_the_current_folder_is_shown_absolute(folder: Path) -> None:
    inner = folder / "inner"
    inner.mkdir()
    result = run(["check", "../a.json"], cwd=inner, expect=1)
    (finding,) = result.finding_lines
    assert finding.startswith(f"{folder / 'a.json'}:{DANGLING_CALL_LINE}:3: TP001 "), result.show()


def test_fix_names_files_relative_in_its_lines_and_diff(folder: Path) -> None:
    absolute = str(folder / "a.json")
    diff = run(["fix", "--diff", absolute], cwd=folder, expect=1)
    assert diff.stdout.startswith(b"--- a/a.json\n+++ b/a.json\n"), diff.show()
    assert diff.stderr_lines[0] == "Would fix a.json: TP001 x1 (1 synthesized)", diff.show()
    fixed = run(["fix", absolute], cwd=folder, expect=0)
    assert fixed.stderr_lines == [
        "Fixed a.json: TP001 x1 (1 synthesized)",
        "Fixed 1 finding in 1 file (1 synthesized).",
    ]


def test_stdin_filename_is_shown_relative(folder: Path) -> None:
    name = str(folder / "piped.json")
    result = run(["check", "--stdin-filename", name, "-"], input=DANGLING, cwd=folder, expect=1)
    (finding,) = result.finding_lines
    assert finding.startswith(f"piped.json:{DANGLING_CALL_LINE}:3: "), result.show()


class _CountedWrites(io.StringIO):
    """A stream that counts the writes it gets."""

    writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


@pytest.mark.parametrize("full", [False, True])
def test_a_reports_findings_are_one_write_with_the_lines_of_one_each(full: bool) -> None:
    """Thousands of findings are one write to the stream (a write and a flush each cost more
    than the line), and the lines are those written one by one, escapes included."""
    from patchcore import check_document
    from toolpatch.cli.console import Printer
    from toolpatch.cli.text_report import finding_pieces, print_findings

    line = b'{"messages": [' + b", ".join(JSONL_LINES) + b"]}\n"
    corpus = line.replace(b'"c1"', b'"c\\u001b[2J1"') * 500
    findings = check_document(corpus, filename="a.jsonl").findings
    assert len(findings) == 500
    stream = _CountedWrites()
    print_findings(Printer(stream, styled=False), "a\x1bb.jsonl", findings, full=full)
    assert stream.writes == 1
    one_by_one = io.StringIO()
    printer = Printer(one_by_one, styled=False)
    for finding in findings:
        printer.line(finding_pieces("a\x1bb.jsonl", finding, mark_fixable=True, full=full))
        if full:
            printer.line((("    provider error: ", ""), (finding.provider_error or "", "")))
    assert stream.getvalue() == one_by_one.getvalue()
    assert "\x1b" not in stream.getvalue() and "\\x1b[2J" in stream.getvalue()


def test_fix_counts_the_recovered_and_the_synthesized_results(tmp_path: Path) -> None:
    """docs/cli.md#recovered-or-synthesized: a call whose own result stands before it gets a
    copy of it, the other a made-up one; each finding line says which, and so do the counts."""
    history = [
        {"role": "user", "content": "Book the train and the hotel."},
        {"role": "tool", "tool_call_id": "call_bk", "content": "booked TGV-6611"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_bk", "type": "function", "function": {"name": "book_train",
                 "arguments": "{}"}},
                {"id": "call_ht", "type": "function", "function": {"name": "book_hotel",
                 "arguments": "{}"}},
            ],
        },
        {"role": "user", "content": "Done?"},
    ]  # fmt: skip
    (tmp_path / "h.json").write_text(json.dumps(history, indent=2) + "\n")
    checked = run(["check", "h.json"], cwd=tmp_path, expect=1)
    train, hotel = checked.finding_lines
    assert "(id call_bk)" in train and train.endswith(" (fix: recovered) [/2/tool_calls/0]")
    assert "(id call_ht)" in hotel and hotel.endswith(" (fix: synthesized) [/2/tool_calls/1]")
    fixed = run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert fixed.stderr_lines == [
        "Fixed h.json: TP001 x2 (1 recovered, 1 synthesized)",
        "Fixed 2 findings in 1 file (1 recovered, 1 synthesized).",
    ]
    written = json.loads((tmp_path / "h.json").read_text())
    assert written[3] == history[1], "the booking's own result, copied after its call"
