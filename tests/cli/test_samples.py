"""Every shipped sample through the real CLI: findings, repaired bytes, stability, in place.

The samples are files: each input beside its expected repair (stated by hand; the LangChain ones
written by langchain-core, ``tests/langchain_samples.py``), and a ``cases.toml`` per folder saying
what ``check`` must report (read by ``tests/sample_cases.py``). This file first pins that
``samples/`` holds exactly the files the data names, that the LangChain files are what their
generator writes and that samples/README.md is generated from the data, then runs each pair
through ``python -m toolpatch``.

The provider-strict samples (``samples/strict/``) are run with their selectors (``--select
ALL``): ``check`` must mark each finding fixable, unsafe-fixable or not fixable; ``fix`` must
write ``x.fixed.json`` (safe fixes only) and ``fix --unsafe-fixes`` ``x.unsafe.json``, which
must pass the independent provider validator (``tests/provider_rules.py``) and be stable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import patchcore
from patchcore.dialects import DIALECTS
from patchcore.engine.locate import find_message_lists
from tests.builders import found, json_value
from tests.conftest import ROOT, SAMPLES
from tests.helpers import FINDING_LINE, canonical, run
from tests.langchain_samples import files as langchain_files
from tests.provider_rules import validate
from tests.sample_cases import (
    DATA_FILE,
    REGENERATE,
    Case,
    all_cases,
    case_files,
    data_files,
    drop_path,
    every_case,
    fixed_path,
    readme,
    unsafe_path,
)

CASES = all_cases()
#: Every file of samples/ but the data files: each case's input and expected outputs, the README.
FILES = sorted({relative for case in every_case() for relative in case_files(case)} | {"README.md"})
LANGCHAIN = langchain_files()
STRICT = [case for case in CASES if case.select]
DROP = [case for case in CASES if case.drop]
#: The folders of agent session logs (and Cline task histories), which the drop repair never
#: touches.
SESSION_FOLDERS = (
    "claude-code/",
    "claude-agent-sdk/",
    "codex/",
    "codex-bare/",
    "copilot/",
    "kimi/",
    "gemini-cli/",
    "gemini-stream-json/",
    "cline/",
    "pi/",
    "openhands/",
    "opencode/",
    "goose/",
)
FIXABILITY = ("safe", "unsafe", "none")


def toolpatch(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI through its real entry point (`tests.helpers.run`), from the checkout."""
    result = run(list(args), input=stdin, cwd=ROOT)
    return subprocess.CompletedProcess(
        result.args, result.code, result.stdout, result.stderr.encode()
    )


def explain(result: subprocess.CompletedProcess[bytes]) -> str:
    return (
        f"exit {result.returncode}\nstdout:\n{result.stdout.decode(errors='replace')}\n"
        f"stderr:\n{result.stderr.decode()}"
    )


@pytest.mark.parametrize("relative", FILES)
def test_sample_file_matches_its_definition(relative: str) -> None:
    """The README is generated from the data, a LangChain file is what langchain-core writes,
    and every other file (stated by hand) reads as JSON or JSON Lines."""
    data = (SAMPLES / relative).read_bytes()
    if relative == "README.md":
        assert data == readme(every_case()), f"samples/README.md is out of date: run `{REGENERATE}`"
    elif relative in LANGCHAIN:
        assert data == LANGCHAIN[relative], (
            f"samples/{relative} is not what langchain-core writes: run "
            "`python -m tests.langchain_samples` and review the diff"
        )
    else:
        assert json_value(SAMPLES / relative) not in (None, []), f"samples/{relative} is empty"


def test_samples_hold_no_stray_file() -> None:
    """Every file belongs to a case of its folder's data file, and the LangChain generator
    writes exactly the files of the LangChain cases."""
    on_disk = {str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.is_file()}
    data = {str(p.relative_to(SAMPLES)) for p in data_files()}
    assert on_disk - data == set(FILES), f"files no {DATA_FILE} names, or inputs missing"
    langchain = {f for f in FILES if f.startswith(("langchain/", "strict/langchain/"))}
    assert set(LANGCHAIN) == langchain


def fix_exit(case: Case, *, unsafe: bool = False) -> int:
    """``fix`` exits 1 when findings remain after it, else 0: without ``--unsafe-fixes`` the
    unsafe-fixable ones remain too; a finding the other fixes cured does not."""
    return 1 if left_after(case, unsafe=unsafe) else 0


def fixability(finding: patchcore.Finding) -> str:
    return "none" if finding.fix is None else finding.fix.applicability.value


def left_after(case: Case, *, unsafe: bool) -> list[tuple[str, str | None]]:
    """The findings ``check`` still reports after ``fix`` (with or without ``--unsafe-fixes``),
    but for the training targets, which are no defect (docs/cli.md#fine-tuning-data)."""
    left = ("none",) if unsafe else ("unsafe", "none")
    cured = {tuple(finding) for finding in case.cured}
    return [
        (code, call_id)
        for (code, call_id), fix in zip(case.findings, case.fixes, strict=True)
        if fix in left and (code, call_id) not in cured and (code, call_id) not in case.targets
    ]


def test_unfixed_findings_are_findings_and_have_no_repair() -> None:
    for case in CASES:
        assert set(case.unfixed) <= set(case.findings), case.path
        assert set(case.targets) <= set(case.findings), case.path
        left = {*case.unfixed, *case.targets}
        if left and left == set(case.findings):
            assert case.expected is None, f"{case.path}: nothing is fixable, nothing changes"
            assert case.unsafe is None, f"{case.path}: nothing is fixable, nothing changes"
        if case.warning and "mixes dialects" in case.warning:
            assert not case.findings, f"{case.path}: a mixed list is reported, not checked"
        assert set(case.cured) <= set(case.unfixed), case.path


@pytest.mark.parametrize("case", STRICT, ids=lambda c: c.path)
def test_strict_case_states_every_fix(case: Case) -> None:
    """A provider-strict case says what each finding's fix is, and gives the outputs of both
    kinds of fix exactly when they change something."""
    assert case.path.startswith("strict/"), case.path
    assert len(case.fixability) == len(case.findings), case.path
    assert set(case.fixability) <= set(FIXABILITY), case.path
    fixes = case.fixes
    assert [f for f, fix in zip(case.findings, fixes, strict=True) if fix == "none"] == list(
        case.unfixed
    )
    assert (case.expected is not None) == ("safe" in fixes), case.path
    assert (case.unsafe is not None) == ("unsafe" in fixes), case.path


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_check_reports_the_expected_findings(case: Case) -> None:
    result = toolpatch("check", *case.selectors, f"samples/{case.path}")
    defects = [f for f in case.findings if f not in case.targets]
    assert result.returncode == (1 if defects else 0), explain(result)
    said = result.stderr.decode()
    assert not [line for line in said.splitlines() if FINDING_LINE.match(line)], explain(result)
    assert "Found " not in said and "No findings" not in said, "the report is on stdout"
    report = patchcore.check_document(
        (SAMPLES / case.path).read_bytes(),
        filename=case.path,
        options=case.options(),
    )
    assert found(report.findings) == [tuple(f) for f in case.findings]
    unfixable = [f for f in report.findings if f.fix is None and f.held is None]
    assert found(unfixable) == [tuple(f) for f in case.unfixed]
    targets = [f for f in report.findings if patchcore.is_training_target(f)]
    assert found(targets) == [tuple(f) for f in case.targets]
    assert [fixability(f) for f in report.findings] == case.fixes
    recovered = [f for f in report.findings if f.fix and f.fix.origin is patchcore.Origin.RECOVERED]
    assert found(recovered) == [tuple(f) for f in case.recovered]
    stderr = result.stdout.decode() + result.stderr.decode()  # the findings, the warnings
    assert ("(fix: recovered)" in stderr) == bool(case.recovered), explain(result)
    for (code, call_id), fix in zip(case.findings, case.fixes, strict=True):
        assert code in stderr
        if call_id is not None:
            assert call_id in stderr
        elif code not in ("TP106", "TP107") and patchcore.RULES[code].provider is None:
            # (a shape's rule and a provider rule say what they found without a call's id)
            assert "no id" in stderr, explain(result)
        marked = {"safe": f"{code} [*] ", "unsafe": f"{code} [~] ", "none": f"{code} "}[fix]
        assert marked in stderr, explain(result)
    assert "id None" not in stderr, explain(result)
    if case.warning is None:
        assert "warning:" not in stderr, explain(result)
    else:
        assert "warning:" in stderr, explain(result)
        assert case.warning in stderr, explain(result)
        assert any(listed.warning for listed in report.conversations)


def safe_output(case: Case) -> bytes:
    """What ``fix`` (with the case's selectors) writes."""
    if case.expected is not None:
        return (SAMPLES / fixed_path(case.path)).read_bytes()
    return (SAMPLES / case.path).read_bytes()


def unsafe_output(case: Case) -> bytes:
    """What ``fix --unsafe-fixes`` (with the case's selectors) writes."""
    if case.unsafe is not None:
        return (SAMPLES / unsafe_path(case.path)).read_bytes()
    return safe_output(case)


@pytest.mark.slow  # a process per sample; the one-run directory tests below stay fast
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_fix_to_stdout_gives_the_expected_repair(case: Case) -> None:
    original = (SAMPLES / case.path).read_bytes()
    result = toolpatch("fix", *case.selectors, "--stdin-filename", case.path, "-", stdin=original)
    assert result.returncode == fix_exit(case), explain(result)
    assert result.stdout == safe_output(case)


@pytest.mark.slow  # a process per sample; the one-run directory tests below stay fast
@pytest.mark.parametrize("case", STRICT, ids=lambda c: c.path)
def test_unsafe_fix_to_stdout_gives_the_expected_repair(case: Case) -> None:
    original = (SAMPLES / case.path).read_bytes()
    result = toolpatch(
        "fix", *case.selectors, "--unsafe-fixes", "--stdin-filename", case.path, "-", stdin=original
    )
    assert result.returncode == fix_exit(case, unsafe=True), explain(result)
    assert result.stdout == unsafe_output(case)


@pytest.mark.slow  # a process per sample; the one-run directory tests below stay fast
@pytest.mark.parametrize("case", [c for c in CASES if c.expected], ids=lambda c: c.path)
def test_repaired_sample_is_clean_and_stable(case: Case, tmp_path: Path) -> None:
    repaired = SAMPLES / fixed_path(case.path)
    left = left_after(case, unsafe=False)
    named = tmp_path / Path(case.path).name  # under the input's name, which may choose the dialect
    shutil.copyfile(repaired, named)
    check = toolpatch("check", *case.selectors, str(named))
    assert check.returncode == (1 if left else 0), explain(check)
    options = case.options()
    report = patchcore.check_document(
        repaired.read_bytes(), filename=repaired.name, options=options
    )
    assert found(report.findings) == left
    again = patchcore.fix_document(repaired.read_bytes(), filename=repaired.name, options=options)
    assert again.output is None, "fixing a repaired file must change nothing"


def message_lists(path: Path) -> list[tuple[str, list[object]]]:
    """``(dialect, messages)`` of each history in a sample (JSON Lines: the non-blank lines'
    values as one list, so that one message per line is one history; an agent session log: the
    messages toolpatch reads its conversations as, the turns its client sends,
    docs/formats.md#agent-session-layouts)."""
    options = patchcore.make_options(select=["ALL"], with_messages=True)
    report = patchcore.check_document(path.read_bytes(), filename=path.name, options=options)
    if report.layout is not None and report.layout.endswith("-session"):
        return [
            (listed.dialect, list(listed.messages))
            for listed in report.conversations
            if listed.dialect is not None and listed.messages is not None
        ]
    return [
        (listed.dialect.name, [m for m in listed.messages if m is not None])
        for listed in find_message_lists(json_value(path), dialects=DIALECTS)
        if listed.dialect is not None and listed.note is None
    ]


@pytest.mark.slow  # a process per sample; the one-run directory tests below stay fast
@pytest.mark.parametrize("case", [c for c in STRICT if c.unsafe], ids=lambda c: c.path)
def test_unsafe_repair_passes_the_provider_and_is_stable(case: Case) -> None:
    """After ``fix --unsafe-fixes --select ALL`` a history passes every rule of its provider
    (docs/rules.md), unless a finding without a fix (TP104, TP105) is left; fixing again changes
    nothing, and ``check`` reports exactly the findings that have no fix."""
    repaired = SAMPLES / unsafe_path(case.path)
    histories = message_lists(repaired)
    assert histories, f"{repaired.name}: no message list found"
    # The validator is not blind to the defects (LangGraph's own check looks at unanswered
    # calls only, so the LangChain inputs are not held to this).
    broken = [
        violation
        for dialect, messages in message_lists(SAMPLES / case.path)
        for violation in validate(dialect, messages)
    ]
    assert broken or histories[0][0] == "langchain", f"{case.path} breaks no provider rule"
    if "none" not in case.fixes:
        for dialect, messages in histories:
            violations = validate(dialect, messages)
            assert not violations, f"{repaired.name} ({dialect}):\n" + "\n".join(
                map(str, violations)
            )
    left = left_after(case, unsafe=True)
    data = repaired.read_bytes()
    again = toolpatch(
        "fix",
        "--select",
        "ALL",
        "--unsafe-fixes",
        "--stdin-filename",
        repaired.name,
        "-",
        stdin=data,
    )
    assert again.returncode == (1 if left else 0), explain(again)
    assert again.stdout == data, "fixing an unsafe-fixed file again must change nothing"
    check = toolpatch("check", "--select", "ALL", str(repaired.relative_to(ROOT)))
    assert check.returncode == (1 if left else 0), explain(check)
    report = patchcore.check_document(
        data, filename=repaired.name, options=patchcore.make_options(select=["ALL"])
    )
    assert found(report.findings) == left


def only_inserted(old: object, new: object) -> bool:
    """Whether ``new`` is ``old`` with elements inserted into its lists (at any depth) and
    nothing deleted, moved or changed; an Anthropic string content may become a block list
    that keeps the string in a text block (docs/formats.md#anthropic, the plain-string reply)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return list(old) == list(new) and all(only_inserted(old[k], new[k]) for k in old)
    if isinstance(old, list) and isinstance(new, list):
        remaining = iter(new)
        return all(any(only_inserted(value, candidate) for candidate in remaining) for value in old)
    if isinstance(old, str) and isinstance(new, list):
        return {"type": "text", "text": old} in new
    return canonical(old) == canonical(new)


@pytest.mark.parametrize("case", [c for c in STRICT if c.expected], ids=lambda c: c.path)
def test_safe_fix_only_inserts(case: Case) -> None:
    """``fix`` without ``--unsafe-fixes`` deletes and moves nothing: its output is the input
    with results inserted, and the TP1xx findings are all still there."""
    before = message_lists(SAMPLES / case.path)
    after = message_lists(SAMPLES / fixed_path(case.path))
    assert [d for d, _ in before] == [d for d, _ in after]
    for (_, old), (_, new) in zip(before, after, strict=True):
        assert only_inserted(old, new), f"{case.path}: fix changed more than insertions"
    report = patchcore.check_document(
        safe_output(case), filename=case.path, options=patchcore.make_options(select=case.select)
    )
    strict_left = [f for f in found(report.findings) if not f[0].startswith("TP0")]
    assert strict_left == [f for f in left_after(case, unsafe=False) if not f[0].startswith("TP0")]


@pytest.mark.slow  # a process per sample; the one-run directory tests below stay fast
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_fix_in_place(case: Case, tmp_path: Path) -> None:
    target = tmp_path / Path(case.path).name
    shutil.copyfile(SAMPLES / case.path, target)
    os.chmod(target, 0o640)
    os.utime(target, (1_000_000_000, 1_000_000_000))
    result = toolpatch("fix", *case.selectors, str(target))
    assert result.returncode == fix_exit(case), explain(result)
    assert result.stdout == b""
    if case.expected:
        assert target.read_bytes() == (SAMPLES / fixed_path(case.path)).read_bytes()
        assert os.stat(target).st_mode & 0o777 == 0o640
    else:
        assert target.read_bytes() == (SAMPLES / case.path).read_bytes()
        assert os.stat(target).st_mtime == 1_000_000_000, "a clean file is never rewritten"
    assert [p.name for p in tmp_path.iterdir()] == [target.name], "no temporary file left"


def default_unfixed(case: Case) -> list[tuple[str, str | None]]:
    """The findings the default selection (the TP0xx rules and TP103) reports and plain ``fix``
    leaves, training targets aside: those without a safe fix (TP103's is unsafe)."""
    default = patchcore.RuleSelection.build().codes
    return [
        (code, call_id)
        for (code, call_id), fix in zip(case.findings, case.fixes, strict=True)
        if code in default and fix != "safe" and (code, call_id) not in case.targets
    ]


def test_whole_samples_directory_in_one_run(tmp_path: Path) -> None:
    """The README's first command: check then fix the whole directory (default rules: the
    strict samples get their safe fixes, which only the TP0xx rules have; their duplicate
    results, TP103, are reported by default and stay, as their fix is unsafe)."""
    shutil.copytree(SAMPLES, tmp_path / "samples")
    unfixable = any(default_unfixed(case) for case in CASES)
    check = toolpatch("check", str(tmp_path / "samples"))
    assert check.returncode == 1, explain(check)
    fix = toolpatch("fix", str(tmp_path / "samples"))
    assert fix.returncode == (1 if unfixable else 0), explain(fix)
    recheck = toolpatch("check", str(tmp_path / "samples"))
    assert recheck.returncode == (1 if unfixable else 0), explain(recheck)
    remaining = [code for case in CASES for code, _ in default_unfixed(case)]
    targets = sum(len(case.targets) for case in CASES)
    reported = recheck.stdout.decode()
    tp0 = sum(c.startswith("TP0") for c in remaining) + targets
    assert reported.count(": TP0") - reported.count(": TP004 ") == tp0, explain(recheck)
    # An orphan result (TP101, opt-in) whose call no message holds is reported by default as
    # unread (TP004: docs/rules.md#unread-tool-call-tp004), in the strict samples that have one.
    orphaned = {c.path for c in CASES if any(code == "TP101" for code, _ in c.findings)}
    unread = {
        line.removeprefix(f"{tmp_path / 'samples'}/").split(":")[0]
        for line in reported.splitlines()
        if ": TP004 " in line
    }
    assert unread and {p.replace(".fixed.", ".") for p in unread} <= orphaned, explain(recheck)
    # A duplicate stays in the input and in its x.fixed.json, which the walk reads too.
    twice = [c.path for c in CASES if any(code == "TP103" for code, _ in default_unfixed(c))]
    expected = {p for path in twice for p in (path, fixed_path(path)) if (SAMPLES / p).is_file()}
    root = f"{tmp_path / 'samples'}/"
    flagged = {
        line.removeprefix(root).split(":")[0]
        for line in reported.splitlines()
        if ": TP103 " in line
    }
    assert flagged == expected and twice, explain(recheck)
    assert reported.count(": TP1") == reported.count(": TP103 "), "the other TP1xx rules are opt-in"
    for case in CASES:  # a sample the CLI reads in a dialect its name chooses too
        repaired = (tmp_path / "samples" / case.path).read_bytes()
        # a provider's rules apply only for its target, which this run does not name
        untargeted = (SAMPLES / case.path).read_bytes() if case.target else safe_output(case)
        assert repaired == untargeted, case.path


def test_strict_directory_with_unsafe_fixes_in_one_run(tmp_path: Path) -> None:
    """``fix --select ALL --unsafe-fixes`` over samples/strict/ writes every ``x.unsafe.json``
    (and leaves the inputs whose findings have no fix as they were); exit 1, since TP104 and
    TP105 findings remain."""
    shutil.copytree(SAMPLES / "strict", tmp_path / "strict")
    # a case with a target is fixed for its provider, a run of its own (the tests above)
    untargeted = [case for case in STRICT if case.target is None]
    for case in STRICT:
        if case.target is not None:
            for name in case_files(case):
                (tmp_path / name).unlink()
    inputs = {case.path: (tmp_path / case.path).read_bytes() for case in untargeted}
    fix = toolpatch("fix", "--select", "ALL", "--unsafe-fixes", str(tmp_path / "strict"))
    assert fix.returncode == (1 if any(c.unfixed for c in untargeted) else 0), explain(fix)
    wrong = []
    for case in untargeted:
        written = (tmp_path / case.path).read_bytes()
        if written != unsafe_output(case):
            wrong.append(case.path)
        if written == inputs[case.path]:
            assert not case.unsafe and not case.expected, case.path
    assert not wrong, f"not the expected x.unsafe.* output: {wrong}"


def drop_options(case: Case) -> patchcore.Options:
    """What ``fix --repair drop --unsafe-fixes`` (with the case's selectors) runs with."""
    return case.options(repair="drop", unsafe_fixes=True)


@pytest.mark.parametrize("case", DROP, ids=lambda c: c.path)
def test_drop_repair_gives_the_expected_output(case: Case) -> None:
    """``x.drop.json`` is what the drop repair writes: it passes the provider's rules, fixing it
    again changes nothing, and what is left is what has no fix."""
    expected = (SAMPLES / drop_path(case.path)).read_bytes()
    original = (SAMPLES / case.path).read_bytes()
    result = patchcore.fix_document(original, filename=case.path, options=drop_options(case))
    assert result.output == expected
    assert all(f.fix is not None for f in result.fixed)
    dropped = [f for f in result.fixed if f.code.startswith("TP0")]
    assert dropped, f"{case.path}: no call was dropped"
    assert all(
        f.fix is not None and f.fix.description == "drop the unanswered call" for f in dropped
    )
    if "none" not in case.fixes:
        for dialect, messages in message_lists(SAMPLES / drop_path(case.path)):
            violations = validate(dialect, messages)
            assert not violations, "\n".join(map(str, violations))
    again = patchcore.fix_document(expected, filename=case.path, options=drop_options(case))
    assert again.output is None, "dropping again must change nothing"
    assert found(again.findings) == left_after(case, unsafe=True)


@pytest.mark.slow  # a process per sample
@pytest.mark.parametrize("case", DROP, ids=lambda c: c.path)
def test_drop_repair_through_the_cli(case: Case) -> None:
    original = (SAMPLES / case.path).read_bytes()
    args = ("--repair", "drop", "--unsafe-fixes", "--stdin-filename", case.path, "-")
    result = toolpatch("fix", *case.selectors, *args, stdin=original)
    assert result.returncode == fix_exit(case, unsafe=True), explain(result)
    assert result.stdout == (SAMPLES / drop_path(case.path)).read_bytes()


def test_every_dialect_and_layout_has_a_drop_sample() -> None:
    """Each folder of default samples with a call to answer, but the agent sessions', holds a
    drop sample, and so does pydantic-ai's (its histories are among the strict ones only); so do
    a JSON document, a conversation per line and a message per line."""

    def answers(case: Case) -> bool:
        return any(
            code.startswith("TP0") and fix == "safe"
            for (code, _), fix in zip(case.findings, case.fixes, strict=True)
        )

    answering = {
        case.path.rpartition("/")[0]
        for case in CASES
        if answers(case) and not case.select and not case.path.startswith(SESSION_FOLDERS)
    }
    dropping = {case.path.rpartition("/")[0] for case in DROP}
    assert answering | {"strict/pydantic-ai"} <= dropping
    layouts = {
        patchcore.check_document((SAMPLES / case.path).read_bytes(), filename=case.path).layout
        for case in DROP
    }
    assert {"json", "jsonl", "jsonl-messages"} <= layouts


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.path.startswith(SESSION_FOLDERS) and c.findings],
    ids=lambda c: c.path,
)
def test_drop_never_rewrites_an_agent_session(case: Case) -> None:
    """A session log's unanswered calls are what the agent did: the drop repair leaves them,
    and each finding says why."""
    original = (SAMPLES / case.path).read_bytes()
    result = patchcore.fix_document(original, filename=case.path, options=drop_options(case))
    # the fixes that are no drop (TP307's text in an empty error result) still run
    assert all(f.code == "TP307" for f in result.fixed)
    assert (result.output is None) == (not result.fixed)
    dropped = [f for f in result.findings if f.code.startswith("TP0") and f.fix is not None]
    assert not dropped
    assert all(
        "would rewrite what the agent did" in f.message
        for f in result.findings
        if f.code.startswith("TP0") and (f.code, f.call_id) not in case.unfixed
    )


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.expected and not c.recovered_by_fix],
    ids=lambda c: c.path,
)
def test_strip_after_fix_gives_back_the_input(case: Case) -> None:
    """``toolpatch strip`` finds every result ``fix`` wrote and removes it: the input's bytes
    come back (an agent session's added entries too, with the links ``fix`` re-pointed)."""
    fixed = (SAMPLES / fixed_path(case.path)).read_bytes()
    stripped = patchcore.strip_document(fixed, filename=case.path)
    assert stripped.output == (SAMPLES / case.path).read_bytes()
    assert all(f.fix is not None for f in stripped.findings)
    options = case.options()
    report = patchcore.check_document(stripped.output, filename=case.path, options=options)
    assert found(report.findings) == [tuple(f) for f in case.findings], "the input's findings"
    assert (
        patchcore.strip_document((SAMPLES / case.path).read_bytes(), filename=case.path).output
        is None
    ), "an input holds no synthetic result"


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.expected and c.recovered_by_fix == list(c.findings)],
    ids=lambda c: c.path,
)
def test_strip_keeps_a_recovered_result(case: Case) -> None:
    """A result ``fix`` recovered from the data is the data's own, not one toolpatch made up:
    ``toolpatch strip`` leaves it (docs/pairing.md#evidence-first)."""
    fixed = (SAMPLES / fixed_path(case.path)).read_bytes()
    stripped = patchcore.strip_document(fixed, filename=case.path)
    assert stripped.output is None, "nothing to strip"
    assert not stripped.findings


def test_strip_through_the_cli(tmp_path: Path) -> None:
    """``strip`` rewrites in place, ``--diff`` shows the removal, ``--check`` exits 1, and a
    stripped file is stripped of nothing more."""
    case = next(c for c in CASES if c.path == "anthropic/plain-string-reply.json")
    target = tmp_path / "h.json"
    target.write_bytes((SAMPLES / fixed_path(case.path)).read_bytes())
    diff = toolpatch("strip", "--diff", str(target))
    assert diff.returncode == 1, explain(diff)
    assert b"-" in diff.stdout and b"is_error" in diff.stdout
    assert toolpatch("strip", "--check", str(target)).returncode == 1
    done = toolpatch("strip", str(target))
    assert done.returncode == 0, explain(done)
    assert target.read_bytes() == (SAMPLES / case.path).read_bytes()
    # strip's own words: it removes results, it fixes nothing
    assert done.stderr.decode().splitlines()[-1] == "Stripped 1 synthetic result in 1 file."
    again = toolpatch("strip", "--check", str(target))
    assert again.returncode == 0, explain(again)
    assert again.stderr.decode().splitlines()[-1] == "Nothing to strip in 1 file."
