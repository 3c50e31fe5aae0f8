"""``check --output-format``: every format against its golden file, one shared set of findings.

The inputs are ``tests/data/formats/inputs``: an OpenAI Chat document (a TP003 call whose tool
name holds ``%``, a message with a line break), an Anthropic request (a safe TP001 fix that
rewraps a string ``content``, an unsafe TP101), an OpenAI Chat document whose call's own result
stands before it (a TP101, and a TP001 whose fix copies that result into place: recovered, where
every other answer is synthesized, docs/pairing.md#evidence-first), JSON Lines of
conversations saved under a name with ``,`` and ``:`` (a clean line, a TP002 in a recorded
request, whose ``model`` says it is no fine-tuning example, an unfixable TP105 and a TP101, and
a list that mixes dialects: a warning), and a broken file.
They are checked with ``--select ALL`` from a temporary folder, so the paths in the reports are
the relative names; the only normalisations are the version in the SARIF driver and the folder
itself (the SARIF ``%SRCROOT%``).

Regenerate the golden files after a deliberate change with
``TOOLPATCH_UPDATE_GOLDEN=1 python -m pytest tests/cli/test_cli_formats.py`` and review the diff.

Also pinned: the SARIF log is valid against the official SARIF 2.1.0 schema (vendored in
``tests/data/sarif``) and links each rule's documentation, JSON and JSON Lines carry the same
objects, GitHub annotations carry the fix marks and are the whole report (no finding lines, no
summary on stderr), machine formats put nothing but the report on stdout and never colour,
``-o FILE``, ``TOOLPATCH_OUTPUT_FORMAT`` and its precedence, and the exit-code modifiers
``--exit-zero`` and ``--exit-non-zero-on-fix``. The SARIF fixes and columns are
``tests/cli/test_sarif_fixes.py``'s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import patchcore
from tests.builders import anchors
from tests.conftest import ROOT
from tests.helpers import FINDING_LINE, TP003_TEXT, Result, clean_env, run, text
from toolpatch.cli.machine_reports.github import escape_data, escape_property
from toolpatch.cli.project import DOCUMENTATION, REPOSITORY

DATA = ROOT / "tests" / "data"
GOLDEN = DATA / "formats" / "expected"
INPUTS = DATA / "formats" / "inputs"
SARIF_SCHEMA = DATA / "sarif" / "sarif-schema-2.1.0.json"
#: The JSON Lines input is saved under this name, so that ``,`` and ``:`` need escaping.
ODD_NAME = "odd, name:1.jsonl"
FILES = ["chat.json", "anthropic.json", "copied.json", ODD_NAME, "broken.json"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
UPDATE = bool(os.environ.get("TOOLPATCH_UPDATE_GOLDEN"))

#: What the shared inputs hold: (file, code, call id or result id), in report order.
EXPECTED_FINDINGS = [
    ("chat.json", "TP003", "call_q"),
    ("anthropic.json", "TP001", "toolu_read"),
    ("anthropic.json", "TP101", "toolu_gone"),
    ("copied.json", "TP101", "call_bk7"),
    ("copied.json", "TP001", "call_bk7"),
    (ODD_NAME, "TP002", "call_p"),
    (ODD_NAME, "TP105", None),
    (ODD_NAME, "TP101", "x"),
]
MIXED = "mixes dialects (anthropic, openai-chat, openai-responses); not checked"
WARNING_LINE = f"{ODD_NAME}:4: /messages: warning: {MIXED}"
ERROR_LINE = "broken.json:2:1: error: invalid JSON: Expecting value"
SUMMARY_LINE = (
    "1 file could not be processed, found 8 findings in 4 files (4 fixable with "
    "`toolpatch fix`, 3 more with `--unsafe-fixes`)."
)


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """The shared inputs, copied to a fresh folder (the JSON Lines file renamed)."""
    for source in INPUTS.iterdir():
        name = ODD_NAME if source.name == "conversations.jsonl" else source.name
        shutil.copyfile(source, tmp_path / name)
    return tmp_path


def check(folder: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """``toolpatch check --select ALL --isolated ARGS FILES`` in ``folder``; errors win: exit 2."""
    return run(["check", "--select", "ALL", "--isolated", *args, *FILES], cwd=folder, env=env)


def normalised(text: str, folder: Path) -> str:
    text = text.replace(f'"{folder.as_uri()}/"', '"file:///<folder>/"')
    return text.replace(f'"{patchcore.__version__}"', '"<version>"')


def assert_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with TOOLPATCH_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{name} differs from its golden file:\n{actual}"


# --------------------------------------------------------------------------------------------
# golden files


@pytest.mark.parametrize(
    ("output_format", "golden"),
    [
        ("json", "report.json"),
        ("jsonl", "report.jsonl"),
        ("github", "report.github.txt"),
        ("sarif", "report.sarif"),
    ],
)
def test_machine_format_matches_its_golden_file(
    inputs: Path, output_format: str, golden: str
) -> None:
    result = check(inputs, "--output-format", output_format)
    assert result.code == 2, "broken.json is an error, and errors win" + result.show()
    report = result.stdout.decode("utf-8")
    assert "\x1b" not in report
    assert_golden(golden, normalised(report, inputs))
    # stderr keeps the warnings and errors, not the finding lines; the summary too, but after
    # GitHub annotations (the whole report, as ruff's github format is) there is none
    summary = [] if output_format == "github" else [SUMMARY_LINE]
    assert result.stderr_lines == [WARNING_LINE, ERROR_LINE, *summary], result.show()


@pytest.mark.parametrize(
    ("args", "golden"),
    [
        pytest.param([], "report.text.txt", id="concise"),
        pytest.param(["--output-format", "full"], "report.full.txt", id="full"),
    ],
)
def test_text_format_matches_its_golden_file(inputs: Path, args: list[str], golden: str) -> None:
    """The report on stdout (as ruff's), the warnings and errors on stderr."""
    result = check(inputs, *args)
    assert result.code == 2
    assert_golden(golden, result.stdout.decode())
    assert_golden(golden.replace(".txt", ".stderr.txt"), result.stderr)


@pytest.mark.parametrize("name", ["concise", "text"])
def test_concise_is_the_default_and_can_be_named(inputs: Path, name: str) -> None:
    default = check(inputs)
    named = check(inputs, "--output-format", name)
    assert named.stderr == default.stderr and named.stdout == default.stdout


# --------------------------------------------------------------------------------------------
# what each format says


def test_json_and_jsonl_carry_the_same_objects(inputs: Path) -> None:
    document = json.loads(check(inputs, "--output-format", "json").stdout)
    lines = check(inputs, "--output-format", "jsonl").stdout.decode().splitlines()
    assert [json.loads(line) for line in lines] == document


def test_json_findings_have_every_field(inputs: Path) -> None:
    records = json.loads(check(inputs, "--output-format", "json").stdout)
    findings = [r for r in records if r["kind"] == "finding"]
    assert [(r["file"], r["code"], r["call_id"]) for r in findings] == EXPECTED_FINDINGS
    for record in findings:
        assert list(record) == [
            "kind", "code", "name", "message", "file", "line", "column", "pointer",
            "list_pointer", "message_index", "dialect", "call_id", "tool_name",
            "provider_error", "fix",
        ]  # fmt: skip
        assert record["name"] == patchcore.RULES[record["code"]].name
        assert isinstance(record["line"], int) and isinstance(record["column"], int)
        assert record["pointer"].startswith(record["list_pointer"])
    tp003 = findings[0]
    assert tp003["tool_name"] == "quote_100%" and tp003["dialect"] == "openai-chat"
    assert tp003["fix"]["applicability"] == "safe"
    (insert,) = tp003["fix"]["edits"]
    assert insert == {
        "op": "insert",
        "pointer": "",
        "index": 3,
        "values": [
            {
                "role": "tool",
                "tool_call_id": "call_q",
                "content": text(TP003_TEXT, "quote_100%", "call_q"),
            }
        ],
    }


def test_json_fix_edits_replace_delete_and_refer_to_original_content(inputs: Path) -> None:
    records = json.loads(check(inputs, "--output-format", "json").stdout)
    by_key = {(r.get("file"), r.get("code")): r for r in records}
    (replace,) = by_key[("anthropic.json", "TP001")]["fix"]["edits"]
    assert replace["op"] == "replace" and replace["pointer"] == "/messages/2/content"
    assert {"type": "text", "text": {"$ref": "#/messages/2/content"}} in replace["value"]
    orphan = by_key[("anthropic.json", "TP101")]["fix"]
    assert orphan["applicability"] == "unsafe"
    assert orphan["edits"] == [{"op": "delete", "pointer": "/messages/4/content/0"}]
    assert by_key[(ODD_NAME, "TP105")]["fix"] is None


def test_unreadable_input_is_an_entry_in_every_machine_format(inputs: Path) -> None:
    records = json.loads(check(inputs, "--output-format", "json").stdout)
    assert records[-1] == {
        "kind": "error",
        "file": "broken.json",
        "line": 2,
        "column": 1,
        "message": "invalid JSON: Expecting value",
        "pointer": None,
    }
    github = check(inputs, "--output-format", "github").stdout.decode().splitlines()
    assert github[-1].startswith("::error title=toolpatch (error),file=broken.json,line=2,col=1::")
    sarif = json.loads(check(inputs, "--output-format", "sarif").stdout)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    assert notification["message"]["text"] == "invalid JSON: Expecting value"
    location = notification["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "broken.json", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 2, "startColumn": 1},
    }


def test_a_list_not_checked_is_a_warning_in_every_machine_format(inputs: Path) -> None:
    records = json.loads(check(inputs, "--output-format", "json").stdout)
    (warning,) = [r for r in records if r["kind"] == "warning"]
    assert warning == {
        "kind": "warning",
        "file": ODD_NAME,
        "line": 4,
        "column": None,
        "message": MIXED,
        "pointer": "/messages",
    }
    github = check(inputs, "--output-format", "github").stdout.decode().splitlines()
    assert [line for line in github if line.startswith("::warning ")] == [
        f"::warning title=toolpatch (warning),file=odd%2C name%3A1.jsonl,line=4::{WARNING_LINE}"
    ]
    sarif_run = json.loads(check(inputs, "--output-format", "sarif").stdout)["runs"][0]
    (result,) = [r for r in sarif_run["results"] if r["level"] == "warning"]
    rule = sarif_run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert result["ruleId"] == rule["id"] == "unchecked"
    assert rule["defaultConfiguration"] == {"level": "warning"}
    assert result["message"]["text"] == MIXED
    location = result["locations"][0]
    assert location["physicalLocation"]["region"] == {"startLine": 4}
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "/messages"


@pytest.mark.parametrize("output_format", ["text", "json", "jsonl", "github", "sarif"])
def test_a_warning_alone_keeps_exit_code_0(tmp_path: Path, output_format: str) -> None:
    """A warning is no finding (docs/cli.md#output-formats: a mixed list is reported with a warning,
    not repaired)."""
    mixed = "anthropic-with-openai-tool-message.json"
    shutil.copyfile(ROOT / "samples" / "mixed" / mixed, tmp_path / mixed)
    result = run(["check", "--output-format", output_format, mixed], cwd=tmp_path, expect=0)
    assert f"{mixed}: /: warning: mixes dialects" in result.stderr, result.show()
    if output_format == "sarif":
        (invocation,) = json.loads(result.stdout)["runs"][0]["invocations"]
        assert invocation["executionSuccessful"] is True, "a warning is no failed execution"
    elif output_format != "text":
        assert b"mixes dialects" in result.stdout, result.show()


def test_missing_file_is_an_error_entry(tmp_path: Path) -> None:
    result = run(["check", "--output-format", "jsonl", "nope.json"], cwd=tmp_path, expect=2)
    (record,) = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert record["kind"] == "error" and record["file"] == "nope.json"
    assert record["line"] is None and "No such file" in record["message"]


def test_github_annotations_are_escaped(inputs: Path) -> None:
    lines = check(inputs, "--output-format", "github").stdout.decode().splitlines()
    assert len(lines) == len(EXPECTED_FINDINGS) + 2, "one annotation per finding, warning, error"
    pattern = re.compile(r"^::error title=[^:,]+ \(\w+\),file=[^:,]*,line=\d+,col=\d+::.+$")
    warning = (
        f"::warning title=toolpatch (warning),file=odd%2C name%3A1.jsonl,line=4::{WARNING_LINE}"
    )
    assert all(pattern.match(line) or line == warning for line in lines), lines
    assert warning in lines
    tp003 = lines[0]
    assert "quote_100%25" in tp003, "% in the message is escaped"
    assert "%0Aprovider error: " in tp003, "the line break before the provider error is escaped"
    odd = next(line for line in lines if "TP002" in line)
    assert ",file=odd%2C name%3A1.jsonl,line=2," in odd, ": and , in a property are escaped"
    assert "::odd, name:1.jsonl:2:" in odd, "the message keeps them as they are"


def test_github_annotations_carry_the_fix_marks_of_the_text_report(inputs: Path) -> None:
    """``[*]``: ``toolpatch fix`` repairs it; ``[~]``: only with ``--unsafe-fixes``."""
    text = [line for line in check(inputs).stdout_lines if ": TP" in line]
    github = check(inputs, "--output-format", "github").stdout.decode().splitlines()
    annotations = [line for line in github if line.startswith("::error title=toolpatch (TP")]
    marks = [re.search(r": TP\d+( \[[*~]\])? ", line) for line in annotations]
    assert [m.group(1) if m else None for m in marks] == [
        " [*]",
        " [*]",
        " [~]",
        " [~]",
        " [*]",
        " [*]",
        None,
        " [~]",
    ]
    for annotation, line in zip(annotations, text, strict=True):
        words = annotation.split("::", 2)[2].split("%0A")[0].replace("%25", "%")
        assert line.startswith(words), "the annotation says what the text report's line says"


def test_github_report_has_nothing_else_on_stderr(inputs: Path) -> None:
    result = check(inputs, "--output-format", "github")
    assert result.stderr_lines == [WARNING_LINE, ERROR_LINE], result.show()
    clean = run(["check", "--output-format", "github", "chat.json"], cwd=inputs, expect=1)
    assert clean.stderr == "", "no finding line and no summary: the annotations are the report"


def test_github_escaping_follows_the_actions_toolkit() -> None:
    """``@actions/core``'s ``escapeData`` and ``escapeProperty``: ``%`` first, so that an
    escape is never escaped twice."""
    assert escape_data("100%\r\nnext: a, b") == "100%25%0D%0Anext: a, b"
    assert escape_property("100%\r\nnext: a, b") == "100%25%0D%0Anext%3A a%2C b"
    assert escape_property("%0A") == "%250A"


def test_sarif_is_valid_sarif_2_1_0(inputs: Path) -> None:
    log = json.loads(check(inputs, "--output-format", "sarif").stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    assert log["version"] == "2.1.0"
    broken = {**log, "runs": [{**log["runs"][0], "results": [{"ruleId": "TP001"}]}]}
    assert not jsonschema.Draft4Validator(schema).is_valid(broken), "the schema is enforced"


def test_sarif_names_files_from_the_working_directory_or_by_file_uri(
    inputs: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Code scanning resolves relative URIs against %SRCROOT% and only maps file:// URIs."""
    outside = tmp_path_factory.mktemp("outside")
    shutil.copyfile(INPUTS / "chat.json", outside / "elsewhere.json")
    shutil.copyfile(INPUTS / "chat.json", outside / "beside.json")
    (inputs / "sub").mkdir()
    shutil.copyfile(INPUTS / "chat.json", inputs / "sub" / "nested.json")
    names = [
        "chat.json",  # relative
        str(inputs / "sub" / "nested.json"),  # absolute, inside the working directory
        str(outside / "elsewhere.json"),  # absolute, outside it
        os.path.relpath(outside / "beside.json", inputs),  # ../, outside it
    ]
    result = run(["check", "--output-format", "sarif", *names], cwd=inputs, expect=1)
    log = json.loads(result.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    (sarif_run,) = log["runs"]
    root = f"{inputs.as_uri()}/"
    assert sarif_run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": root}}
    assert sarif_run["invocations"][0]["workingDirectory"] == {"uri": root}
    artifacts = [
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in sarif_run["results"]
    ]
    assert artifacts == [
        {"uri": "chat.json", "uriBaseId": "%SRCROOT%"},
        {"uri": "sub/nested.json", "uriBaseId": "%SRCROOT%"},
        {"uri": (outside / "elsewhere.json").as_uri()},
        {"uri": (outside / "beside.json").as_uri()},
    ]
    for artifact in artifacts:
        assert not artifact["uri"].startswith("/"), "an absolute path is no URI reference"


def test_sarif_has_a_rule_entry_per_code_and_results_point_at_them(inputs: Path) -> None:
    log = json.loads(check(inputs, "--output-format", "sarif").stdout)
    (sarif_run,) = log["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [*patchcore.RULES, "unchecked"]
    assert all(rule["name"] == patchcore.RULES[rule["id"]].name for rule in rules[:-1])
    results = [r for r in sarif_run["results"] if r["ruleId"] != "unchecked"]
    uris = {name: name for name in ("chat.json", "anthropic.json", "copied.json")}
    uris[ODD_NAME] = "odd,%20name%3A1.jsonl"  # a colon would read as a URI scheme
    located = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"])
               for r in results]  # fmt: skip
    assert located == [(uris[file], code) for file, code, _ in EXPECTED_FINDINGS]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_sarif_rules_link_their_documentation(inputs: Path) -> None:
    """``helpUri``: the rule's section of docs/rules.md (the heading exists), on the
    documentation of ``[project.urls]``; the driver's ``informationUri`` is the home page."""
    (sarif_run,) = json.loads(check(inputs, "--output-format", "sarif").stdout)["runs"]
    driver = sarif_run["tool"]["driver"]
    assert driver["informationUri"] == REPOSITORY
    for rule in driver["rules"]:
        page, anchor = rule["helpUri"].removeprefix(DOCUMENTATION).split("#")
        assert anchor in anchors(ROOT / "docs" / page), rule["helpUri"]
        if rule["id"] != "unchecked":
            assert rule["helpUri"] == f"{DOCUMENTATION}rules.md#{rule['name']}-{rule['id'].lower()}"


def test_clean_input_gives_an_empty_report(tmp_path: Path) -> None:
    (tmp_path / "clean.json").write_text('[{"role": "user", "content": "hi"}]')
    as_json = run(["check", "--output-format", "json", "clean.json"], cwd=tmp_path, expect=0)
    assert as_json.stdout == b"[]\n"  # written as it goes, closed with no item in it
    as_jsonl = run(["check", "--output-format", "jsonl", "clean.json"], cwd=tmp_path, expect=0)
    assert as_jsonl.stdout == b""
    as_sarif = run(["check", "--output-format", "sarif", "clean.json"], cwd=tmp_path, expect=0)
    sarif_run = json.loads(as_sarif.stdout)["runs"][0]
    assert sarif_run["results"] == [] and sarif_run["invocations"][0]["executionSuccessful"]
    assert b'\n      "results": []\n' in as_sarif.stdout


# --------------------------------------------------------------------------------------------
# where the report goes


@pytest.mark.parametrize("output_format", ["json", "jsonl", "github", "sarif"])
def test_machine_formats_never_colour(inputs: Path, output_format: str) -> None:
    plain = check(inputs, "--output-format", output_format)
    forced = check(
        inputs,
        "--output-format",
        output_format,
        "--color",
        "always",
        env=clean_env(FORCE_COLOR="1"),
    )
    assert forced.stdout == plain.stdout
    assert "\x1b" not in forced.stdout.decode()


@pytest.mark.parametrize("option", ["-o", "--output-file", "--output"])
def test_output_file_receives_the_report(inputs: Path, option: str) -> None:
    to_stdout = check(inputs, "--output-format", "json")
    to_file = check(inputs, "--output-format", "json", option, "report.json")
    assert to_file.code == 2 and to_file.stdout == b""
    assert (inputs / "report.json").read_bytes() == to_stdout.stdout


def test_output_file_dash_is_stdout(inputs: Path) -> None:
    to_stdout = check(inputs, "--output-format", "sarif")
    dash = check(inputs, "--output-format", "sarif", "-o", "-")
    assert dash.stdout == to_stdout.stdout


def test_text_report_to_a_file_holds_the_finding_lines(inputs: Path) -> None:
    result = check(inputs, "-o", "report.txt")
    report = (inputs / "report.txt").read_text()
    findings = [line for line in report.splitlines() if FINDING_LINE.match(line)]
    assert len(findings) == len(EXPECTED_FINDINGS)
    assert "TP001 (dangling-tool-call) is refused by the provider:" in report, "and the errors"
    assert "\x1b" not in report
    assert "TP001" not in result.stderr, "the finding lines went to the file"
    assert "broken.json:2:1: error:" in result.stderr, "errors stay on stderr"


def test_unwritable_output_file_is_an_error(inputs: Path) -> None:
    result = check(inputs, "--output-format", "json", "-o", "no/such/dir/report.json")
    assert result.code == 2 and result.stdout == b""
    assert "no/such/dir/report.json" in result.stderr and "cannot write" in result.stderr


def test_quiet_machine_format_prints_only_warnings_and_errors_on_stderr(inputs: Path) -> None:
    result = check(inputs, "--output-format", "jsonl", "-q")
    assert result.stderr_lines == [
        WARNING_LINE,
        "broken.json:2:1: error: invalid JSON: Expecting value",
    ], "no summary"
    assert len(result.stdout.decode().splitlines()) == len(EXPECTED_FINDINGS) + 2


# --------------------------------------------------------------------------------------------
# TOOLPATCH_OUTPUT_FORMAT


def test_environment_variable_sets_the_format(inputs: Path) -> None:
    by_option = check(inputs, "--output-format", "jsonl")
    by_variable = check(inputs, env=clean_env(TOOLPATCH_OUTPUT_FORMAT="jsonl"))
    assert by_variable.stdout == by_option.stdout != b""


def test_option_wins_over_environment_variable(inputs: Path) -> None:
    result = check(
        inputs, "--output-format", "github", env=clean_env(TOOLPATCH_OUTPUT_FORMAT="json")
    )
    assert result.stdout.startswith(b"::error ")


def test_environment_variable_wins_over_configuration(tmp_path: Path) -> None:
    (tmp_path / "toolpatch.toml").write_text('output-format = "sarif"\n')
    (tmp_path / "h.json").write_bytes((INPUTS / "chat.json").read_bytes())
    configured = run(["check", "h.json"], cwd=tmp_path, expect=1)
    assert json.loads(configured.stdout)["version"] == "2.1.0"
    env = clean_env(TOOLPATCH_OUTPUT_FORMAT="jsonl")
    by_variable = run(["check", "h.json"], cwd=tmp_path, env=env, expect=1)
    assert json.loads(by_variable.stdout.splitlines()[0])["code"] == "TP003"


def test_bad_environment_variable_is_a_usage_error(inputs: Path) -> None:
    result = check(inputs, env=clean_env(TOOLPATCH_OUTPUT_FORMAT="xml"))
    assert result.code == 2 and result.stdout == b""
    assert "xml" in result.stderr


# --------------------------------------------------------------------------------------------
# exit-code modifiers


def test_exit_zero_turns_findings_into_success(inputs: Path) -> None:
    run(["check", "--exit-zero", "chat.json"], cwd=inputs, expect=0)
    run(["fix", "--check", "--exit-zero", "chat.json"], cwd=inputs, expect=0)
    run(["fix", "--diff", "--exit-zero", "chat.json"], cwd=inputs, expect=0)
    assert (inputs / "chat.json").read_bytes() == (INPUTS / "chat.json").read_bytes()


def test_exit_zero_keeps_errors(inputs: Path) -> None:
    run(["check", "--exit-zero", "chat.json", "broken.json"], cwd=inputs, expect=2)
    run(["fix", "--exit-zero", "broken.json"], cwd=inputs, expect=2)


def test_exit_zero_with_remaining_unfixable_findings(inputs: Path) -> None:
    args = ["fix", "--select", "ALL", "--isolated", ODD_NAME]
    run(args, cwd=inputs, expect=1)  # TP105 cannot be fixed
    run([*args, "--exit-zero"], cwd=inputs, expect=0)


def test_exit_non_zero_on_fix(inputs: Path) -> None:
    run(["fix", "--exit-non-zero-on-fix", "chat.json"], cwd=inputs, expect=1)
    assert (inputs / "chat.json").read_bytes() != (INPUTS / "chat.json").read_bytes(), "fixed"
    run(["fix", "--exit-non-zero-on-fix", "chat.json"], cwd=inputs, expect=0)  # nothing left


def test_exit_zero_wins_over_exit_non_zero_on_fix(inputs: Path) -> None:
    run(["fix", "--exit-zero", "--exit-non-zero-on-fix", "chat.json"], cwd=inputs, expect=0)


def test_exit_non_zero_on_fix_applies_to_stdin() -> None:
    data = (INPUTS / "chat.json").read_bytes()
    result = run(["fix", "--exit-non-zero-on-fix", "-"], input=data, expect=1)
    assert b"has malformed or truncated arguments" in result.stdout


def _records(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def test_skip_no_history_skips_named_files_without_history(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}\n')
    (tmp_path / "h.json").write_bytes((INPUTS / "chat.json").read_bytes())
    run(["check", "package.json", "h.json"], cwd=tmp_path, expect=2)
    result = run(
        ["check", "--skip-no-history", "--output-format", "jsonl", "package.json", "h.json"],
        cwd=tmp_path,
        expect=1,
    )
    assert [(r["kind"], r["file"]) for r in _records(result)] == [("finding", "h.json")]
    assert "1 file skipped" in result.stderr
    (tmp_path / "bad.json").write_text("{")  # not JSON, and nothing in it says history
    run(["check", "--skip-no-history", "bad.json"], cwd=tmp_path, expect=0)
    (tmp_path / "torn.json").write_text('{"messages": [')  # a torn history: an error
    run(["check", "--skip-no-history", "torn.json"], cwd=tmp_path, expect=2)


def test_stdin_filename_names_stdin_in_machine_reports() -> None:
    data = (INPUTS / "chat.json").read_bytes()
    named = run(
        ["check", "--output-format", "jsonl", "--stdin-filename", "from/stdin.json", "-"],
        input=data,
        expect=1,
    )
    assert [r["file"] for r in _records(named)] == ["from/stdin.json"]
    unnamed = run(["check", "--output-format", "github", "-"], input=data, expect=1)
    assert unnamed.stdout.startswith(b"::error title=toolpatch (TP003),file=-,line=3,col=3::")
