"""Configuration: ``[tool.toolpatch]`` in ``pyproject.toml`` or a ``toolpatch.toml``, as in ruff.

Pinned through the real entry point: discovery from the common parent of the inputs upwards
(``toolpatch.toml`` wins in one folder, a ``pyproject.toml`` without the table is passed over,
one that never mentions toolpatch is not even parsed), every key (select, ignore,
per-file-ignores, texts, dialect, unsafe-fixes, output-format), the command line winning over
the file, ``--config PATH``, ``--config 'KEY = VALUE'``, ``--isolated``, and errors that name the
file and the key with exit code 2 and nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import patchcore
from tests.builders import (
    CLEAN,
    DANGLING,
    DANGLING_FIXED,
    pyproject,
    snapshot,
    toolpatch_toml,
    write,
)
from tests.conftest import ROOT
from tests.helpers import DEEPAGENTS_TP001_TEXT, TP001_TEXT, run, text

#: An OpenAI Chat history whose only defect is an orphan tool result (TP101, unsafe fix).
ORPHAN = (
    json.dumps(
        [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "zz", "content": "stale"},
            {"role": "assistant", "content": "hello"},
        ],
        indent=2,
    )
    + "\n"
).encode()


# --------------------------------------------------------------------------------------------
# discovery


def test_pyproject_table_applies(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    run(["check", "h.json"], cwd=tmp_path, expect=1)
    pyproject(tmp_path, '[tool.toolpatch]\nselect = ["TP1"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=0)


def test_toolpatch_toml_applies_with_top_level_keys(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'ignore = ["TP001"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=0)


def test_toolpatch_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    pyproject(tmp_path, '[tool.toolpatch]\nignore = ["TP001"]\n')
    toolpatch_toml(tmp_path, 'ignore = ["TP002"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=1)


def test_nearest_configuration_above_the_inputs_wins(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, 'ignore = ["TP001"]\n')
    project = tmp_path / "project"
    pyproject(project, "[tool.other]\nkey = 1\n")  # no [tool.toolpatch]: passed over
    write(project / "data" / "deep" / "h.json", DANGLING)
    run(["check", "data/deep/h.json"], cwd=project, expect=0)
    toolpatch_toml(project / "data", 'select = ["TP0"]\n')
    run(["check", "data/deep/h.json"], cwd=project, expect=1)


def test_discovery_starts_at_the_common_parent_of_the_inputs(tmp_path: Path) -> None:
    write(tmp_path / "runs" / "a" / "h.json", DANGLING)
    write(tmp_path / "runs" / "b" / "h.json", DANGLING)
    toolpatch_toml(tmp_path / "runs" / "a", 'ignore = ["TP001"]\n')
    # Common parent: runs/ (no configuration there or above) -> the file in a/ does not count.
    run(["check", "runs/a/h.json", "runs/b/h.json"], cwd=tmp_path, expect=1)
    # Only runs/a -> it counts.
    run(["check", "runs/a/h.json"], cwd=tmp_path, expect=0)
    run(["check", "runs/a"], cwd=tmp_path, expect=0)


def test_pyproject_that_never_mentions_toolpatch_is_not_parsed(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "pyproject.toml", b"this is [not toml", mtime=None)
    run(["check", "h.json"], cwd=tmp_path, expect=1)


def test_invalid_toml_is_an_error_naming_the_file(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "pyproject.toml", b"[tool.toolpatch\nselect = 1\n", mtime=None)
    result = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert "pyproject.toml" in result.stderr and "invalid TOML" in result.stderr
    assert result.stdout == b""


def test_stdin_discovers_from_the_current_folder_or_the_stdin_filename(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path / "quiet", 'ignore = ["TP001"]\n')
    (tmp_path / "loud").mkdir()
    run(["check", "-"], input=DANGLING, cwd=tmp_path / "quiet", expect=0)
    run(["check", "-"], input=DANGLING, cwd=tmp_path / "loud", expect=1)
    named = ["check", "--stdin-filename", "quiet/h.json", "-"]
    run(named, input=DANGLING, cwd=tmp_path, expect=0)


def test_the_summary_names_the_configuration_used(tmp_path: Path) -> None:
    write(tmp_path / "h.json", CLEAN)
    toolpatch_toml(tmp_path, 'select = ["TP0"]\n')
    for args in (["check", "-v", "h.json"], ["check", "h.json"]):
        shown = run(args, cwd=tmp_path, expect=0)
        assert shown.stderr_lines[-1:] + shown.stdout_lines[-1:] == [
            "Configuration: toolpatch.toml",
            "No findings in 1 file.",
        ]
    quiet = run(["check", "-q", "h.json"], cwd=tmp_path, expect=0)
    assert "toolpatch.toml" not in quiet.stderr


# --------------------------------------------------------------------------------------------
# keys


def test_per_file_ignores_by_path_and_by_file_name(tmp_path: Path) -> None:
    toolpatch_toml(
        tmp_path,
        '[per-file-ignores]\n"logs/*.json" = ["TP001"]\n"special.json" = ["TP0"]\n',
    )
    write(tmp_path / "logs" / "a.json", DANGLING)
    write(tmp_path / "other" / "a.json", DANGLING)
    write(tmp_path / "deep" / "er" / "special.json", DANGLING)
    run(["check", "logs/a.json"], cwd=tmp_path, expect=0)
    run(["check", "deep/er/special.json"], cwd=tmp_path, expect=0)
    result = run(["check", "--output-format", "jsonl", "."], cwd=tmp_path, expect=1)
    files = [json.loads(line)["file"] for line in result.stdout.decode().splitlines()]
    assert files == [str(Path("other") / "a.json")]


def test_per_file_ignores_apply_to_fix(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, '[per-file-ignores]\n"keep-*.json" = ["TP001"]\n')
    kept = write(tmp_path / "keep-me.json", DANGLING)
    fixed = write(tmp_path / "fix-me.json", DANGLING)
    before = snapshot(kept)
    run(["fix", "keep-me.json", "fix-me.json"], cwd=tmp_path, expect=0)
    assert snapshot(kept) == before
    assert fixed.read_bytes() == DANGLING_FIXED


def test_per_file_ignores_relative_to_the_configuration_folder(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, '[per-file-ignores]\n"data/*" = ["TP001"]\n')
    write(tmp_path / "data" / "h.json", DANGLING)
    run(["check", "h.json"], cwd=tmp_path / "data", expect=0)


def test_texts_change_the_synthetic_result(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, '[texts]\nTP001 = "Tool {name} ({id}) was interrupted."\n')
    path = write(tmp_path / "h.json", DANGLING)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    fixed = json.loads(path.read_bytes())
    assert fixed[3]["content"] == "Tool get_weather (call_1) was interrupted."
    default = run(["fix", "--isolated", "-"], input=DANGLING, cwd=tmp_path, expect=0)
    assert json.loads(default.stdout)[3]["content"] == text(TP001_TEXT, "get_weather", "call_1")


def test_texts_name_a_preset(tmp_path: Path) -> None:
    """``texts = "deepagents"`` writes deepagents' wording (docs/pairing.md#synthetic-results);
    a name that is no preset is a configuration error that lists the presets."""
    toolpatch_toml(tmp_path, 'texts = "deepagents"\n')
    path = write(tmp_path / "h.json", DANGLING)
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    content = json.loads(path.read_bytes())[3]["content"]
    assert content == text(DEEPAGENTS_TP001_TEXT, "get_weather", "call_1")
    toolpatch_toml(tmp_path, 'texts = "langchain"\n')
    bad = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert "'langchain' is not a preset of texts (known: 'deepagents')" in bad.stderr


def test_dialect_is_forced(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'dialect = "langchain"\n')
    run(["check", "h.json"], cwd=tmp_path, expect=1)  # an OpenAI file read as LangChain: TP004
    run(["check", "--dialect", "openai-chat", "h.json"], cwd=tmp_path, expect=1)


def test_unsafe_fixes_and_the_option_that_turns_them_off(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, 'select = ["ALL"]\nunsafe-fixes = true\n')
    path = write(tmp_path / "h.json", ORPHAN)
    run(["fix", "--no-unsafe-fixes", "h.json"], cwd=tmp_path, expect=1)
    assert path.read_bytes() == ORPHAN
    run(["fix", "h.json"], cwd=tmp_path, expect=0)
    assert [m["role"] for m in json.loads(path.read_bytes())] == ["user", "assistant"]


def test_output_format_is_the_default_of_check_only(tmp_path: Path) -> None:
    toolpatch_toml(tmp_path, 'output-format = "json"\n')
    write(tmp_path / "h.json", DANGLING)
    checked = run(["check", "h.json"], cwd=tmp_path, expect=1)
    assert json.loads(checked.stdout)[0]["code"] == "TP001"
    text_format = run(["check", "--output-format", "text", "h.json"], cwd=tmp_path, expect=1)
    assert "TP001" in text_format.stdout.decode()
    fixed = run(["fix", "--check", "h.json"], cwd=tmp_path, expect=1)
    assert fixed.stdout == b""


# --------------------------------------------------------------------------------------------
# the command line wins


def test_select_on_the_command_line_replaces_select_and_ignore(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'select = ["TP1"]\nignore = ["TP001"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=0)
    run(["check", "--select", "TP0", "h.json"], cwd=tmp_path, expect=1)


def test_ignore_on_the_command_line_adds_to_the_configured_one(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'ignore = ["TP002"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=1)
    run(["check", "--ignore", "TP001", "h.json"], cwd=tmp_path, expect=0)


# --------------------------------------------------------------------------------------------
# --config and --isolated


def test_config_names_a_file_anywhere(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    elsewhere = toolpatch_toml(tmp_path / "elsewhere", 'ignore = ["TP001"]\n')
    run(["check", "--config", str(elsewhere), "h.json"], cwd=tmp_path, expect=0)
    named_pyproject = pyproject(tmp_path / "other", '[tool.toolpatch]\nignore = ["TP0"]\n')
    run(["check", "--config", str(named_pyproject), "h.json"], cwd=tmp_path, expect=0)


def test_config_file_replaces_the_discovered_one(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'ignore = ["TP001"]\n')
    empty = toolpatch_toml(tmp_path / "empty", "")
    run(["check", "--config", str(empty), "h.json"], cwd=tmp_path, expect=1)


def test_config_override_of_one_key(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'select = ["TP1"]\n')
    run(["check", "h.json"], cwd=tmp_path, expect=0)
    run(["check", "--config", 'select = ["TP0"]', "h.json"], cwd=tmp_path, expect=1)
    both = ["--config", 'select = ["TP0"]', "--config", 'ignore = ["TP001"]']
    run(["check", *both, "h.json"], cwd=tmp_path, expect=0)


def test_isolated_ignores_configuration_files(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    toolpatch_toml(tmp_path, 'ignore = ["TP001"]\nthis-key = "is unknown"\n')
    run(["check", "--isolated", "h.json"], cwd=tmp_path, expect=1)
    run(["check", "--isolated", "--config", 'ignore = ["TP001"]', "h.json"], cwd=tmp_path, expect=0)


def test_isolated_with_a_config_file_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    path = toolpatch_toml(tmp_path, "")
    result = run(["check", "--isolated", "--config", str(path), "h.json"], cwd=tmp_path, expect=2)
    assert "--isolated" in result.stderr


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "--config", "nope.toml", "h.json"], cwd=tmp_path, expect=2)
    assert "nope.toml" in result.stderr


# --------------------------------------------------------------------------------------------
# errors name the file and the key


@pytest.mark.parametrize(
    ("body", "named"),
    [
        pytest.param('selectt = ["TP001"]\n', "selectt", id="unknown-key"),
        pytest.param('select = "TP001"\n', "select", id="select-not-a-list"),
        pytest.param('select = ["TP9"]\n', "select", id="unknown-rule"),
        pytest.param('ignore = ["NOPE"]\n', "ignore", id="unknown-ignored-rule"),
        pytest.param('unsafe-fixes = "yes"\n', "unsafe-fixes", id="flag-not-a-boolean"),
        pytest.param('dialect = "klingon"\n', "dialect", id="unknown-dialect"),
        pytest.param('output-format = "xml"\n', "output-format", id="unknown-format"),
        pytest.param('[texts]\nTP101 = "x"\n', "texts", id="text-for-a-rule-without-one"),
        pytest.param('[texts]\nTP001 = "  "\n', "texts", id="empty-text"),
        pytest.param('[texts]\nTP001 = "x {nme} {"\n', "{nme}", id="unknown-placeholder"),
        pytest.param('[texts]\nTP002 = "cut {id"\n', "never closed", id="unclosed-brace"),
        pytest.param('[texts]\nTP003 = "bad } {id}"\n', "closes nothing", id="stray-brace"),
        pytest.param('[per-file-ignores]\n"*.json" = ["TP9"]\n', "per-file-ignores", id="pfi"),
        pytest.param('per-file-ignores = ["TP001"]\n', "per-file-ignores", id="pfi-not-a-table"),
    ],
)
@pytest.mark.parametrize("command", ["check", "fix"])
def test_bad_configuration_names_file_and_key_and_writes_nothing(
    tmp_path: Path, body: str, named: str, command: str
) -> None:
    path = write(tmp_path / "h.json", DANGLING)
    before = snapshot(path)
    toolpatch_toml(tmp_path, body)
    result = run([command, "h.json"], cwd=tmp_path, expect=2)
    assert result.stdout == b""
    (line,) = result.stderr_lines
    assert "toolpatch.toml" in line and named in line, result.show()
    assert snapshot(path) == before


#: The keys of a configuration (docs/cli.md#configuration), and the dialects one can name.
KEYS = (
    "select",
    "ignore",
    "per-file-ignores",
    "texts",
    "dialect",
    "unsafe-fixes",
    "repair",
    "target",
    "output-format",
    "live-session-minutes",
    "keep-invalid-lines",
    "fix-training-targets",
    "max-record-mib",
    "exclude",
    "extend-exclude",
    "respect-gitignore",
    "force-exclude",
)
FORMATS = "concise, full, text, json, jsonl, github, sarif, html"
DIALECTS = ", ".join(dialect.name for dialect in patchcore.NAMED)

#: Every way a key's value can be refused, and what is said (after the file or ``--config``
#: override it is in): the key (and a table's entry) first, then what it expects or why
#: patchcore refuses it. The types are checked by `msgspec.convert` (`cli.config_files.Config`).
REFUSED = [
    ('selectt = ["TP001"]', f"unknown key 'selectt' (known: {', '.join(KEYS)})"),
    ('path = "x"', f"unknown key 'path' (known: {', '.join(KEYS)})"),  # a field, but no key
    ('select = "TP001"', 'select: expected a list of rule codes, e.g. ["TP001", "TP1"]'),
    ('select = ["TP001", 3]', 'select: expected a list of rule codes, e.g. ["TP001", "TP1"]'),
    ('select = ["TP9"]', "select: 'TP9' matches no rule (see `toolpatch rules`)"),
    ('ignore = ["NOPE"]', "ignore: 'NOPE' matches no rule (see `toolpatch rules`)"),
    ("ignore = 1", 'ignore: expected a list of rule codes, e.g. ["TP001", "TP1"]'),
    ('per-file-ignores = ["TP001"]', "per-file-ignores: expected a table"),
    (
        'per-file-ignores = {"*.json" = "TP001"}',
        'per-file-ignores.\'*.json\': expected a list of rule codes, e.g. ["TP001", "TP1"]',
    ),
    (
        'per-file-ignores = {"*.json" = ["TP9"]}',
        "per-file-ignores.'*.json': 'TP9' matches no rule (see `toolpatch rules`)",
    ),
    (
        "texts = 5",
        'texts: expected a string template per rule code, or a preset (texts = "deepagents")',
    ),
    ('texts = "langchain"', "texts: 'langchain' is not a preset of texts (known: 'deepagents')"),
    (
        "texts = {TP001 = 3}",
        'texts: expected a string template per rule code, or a preset (texts = "deepagents")',
    ),
    (
        'texts = {TP101 = "x"}',
        "texts: 'TP101' is not a rule with a synthetic text (known: TP001, TP002, TP003, TP307)",
    ),
    (
        'texts = {TP001 = "  "}',
        "texts: the template for TP001 is empty (providers reject empty results)",
    ),
    ("dialect = 3", "dialect: expected a dialect name (see `toolpatch formats`)"),
    ('dialect = "klingon"', f"dialect: unknown dialect 'klingon' (known: {DIALECTS})"),
    ("repair = 1", 'repair: expected a repair policy, "answer" or "drop"'),
    ('repair = "remove"', "repair: 'remove' is not a repair policy (known: 'answer', 'drop')"),
    ("target = 1", "target: expected a provider's name (anthropic, gemini, mistral, openai)"),
    (
        'target = "groq"',
        "target: 'groq' is not a provider (known: anthropic, gemini, mistral, openai)",
    ),
    ('unsafe-fixes = "yes"', "unsafe-fixes: expected true or false"),
    ("keep-invalid-lines = 1", "keep-invalid-lines: expected true or false"),
    ('fix-training-targets = "no"', "fix-training-targets: expected true or false"),
    ("respect-gitignore = 0", "respect-gitignore: expected true or false"),
    ('force-exclude = "x"', "force-exclude: expected true or false"),
    (
        'output-format = "xml"',
        f"output-format: expected one of {FORMATS}, got 'xml'",
    ),
    (
        "output-format = 3",
        f"output-format: expected one of {FORMATS}, got 3",
    ),
    (
        "live-session-minutes = -1",
        "live-session-minutes: expected a number of minutes, 0 or more (0 turns it off)",
    ),
    (
        "live-session-minutes = true",
        "live-session-minutes: expected a number of minutes, 0 or more (0 turns it off)",
    ),
    (
        'live-session-minutes = "5"',
        "live-session-minutes: expected a number of minutes, 0 or more (0 turns it off)",
    ),
    (
        "live-session-minutes = nan",
        "live-session-minutes: expected a number of minutes, 0 or more (0 turns it off)",
    ),
    ("max-record-mib = 0", "max-record-mib: expected a whole number of MiB, 1 or more"),
    ("max-record-mib = 1.5", "max-record-mib: expected a whole number of MiB, 1 or more"),
    ("max-record-mib = true", "max-record-mib: expected a whole number of MiB, 1 or more"),
    ('max-record-mib = "2"', "max-record-mib: expected a whole number of MiB, 1 or more"),
    (
        'exclude = "archive"',
        'exclude: expected a list of gitignore patterns, e.g. ["archive/", "*.tmp.json"]',
    ),
    (
        'exclude = ["a", 1]',
        'exclude: expected a list of gitignore patterns, e.g. ["archive/", "*.tmp.json"]',
    ),
    ('extend-exclude = ["!"]', "extend-exclude: '!' is not a gitignore pattern"),
    (
        "extend-exclude = 3",
        'extend-exclude: expected a list of gitignore patterns, e.g. ["archive/", "*.tmp.json"]',
    ),
]


@pytest.mark.parametrize(("assignment", "said"), REFUSED, ids=[a for a, _ in REFUSED])
def test_each_refused_value_says_its_key_and_what_it_expects(
    tmp_path: Path, assignment: str, said: str
) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "--config", assignment, "h.json"], cwd=tmp_path, expect=2)
    assert result.stdout == b""
    assert result.stderr == f"toolpatch: error: --config {assignment!r}: {said}\n"


def test_unknown_key_in_pyproject_names_the_table(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    pyproject(tmp_path, "[tool.toolpatch]\nline-length = 3\n")
    result = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert "pyproject.toml" in result.stderr and "[tool.toolpatch]" in result.stderr
    assert "'line-length'" in result.stderr


def test_bad_override_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    for override in ('select = ["TP9"]', "nope = 1", "select = ["):
        result = run(["check", "--config", override, "h.json"], cwd=tmp_path, expect=2)
        assert "--config" in result.stderr, result.show()


def test_the_documented_example_is_a_valid_configuration(tmp_path: Path) -> None:
    """The example of docs/cli.md#configuration is read without error and takes effect: its
    texts word the synthetic result, its report format is GitHub's."""
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "pyproject.toml").write_text(example)
    write(tmp_path / "history.json", DANGLING)
    checked = run(["check", "history.json"], cwd=tmp_path)
    assert checked.code == 1 and checked.stdout.decode().startswith("::error "), checked.show()
    fixed = run(["fix", "history.json"], cwd=tmp_path, expect=0)
    assert "was interrupted by a newer message" in (tmp_path / "history.json").read_text()
    assert fixed.stdout == b""
