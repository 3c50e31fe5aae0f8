"""Every shipped sample through the real CLI: findings, repaired bytes, stability, in place.

The samples and their expected repairs are defined (by hand, with langchain-core writing the
LangChain shapes) in ``tests/sample_cases.py``; this file first pins that ``samples/`` holds
exactly what those definitions say, then runs each pair through ``python -m cli``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import patchcore
from tests.conftest import ROOT, SAMPLES
from tests.sample_cases import Case, all_cases, expected_files, fixed_path

CASES = all_cases()
FILES = expected_files()


def toolpatch(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI through its real entry point."""
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


def explain(result: subprocess.CompletedProcess[bytes]) -> str:
    return f"exit {result.returncode}\nstderr:\n{result.stderr.decode()}"


@pytest.mark.parametrize("relative", sorted(FILES))
def test_sample_file_matches_its_definition(relative: str) -> None:
    assert (SAMPLES / relative).read_bytes() == FILES[relative], (
        f"samples/{relative} is out of date: run `python -m tests.sample_cases`"
    )


def test_samples_hold_no_stray_file() -> None:
    on_disk = {str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*") if p.is_file()}
    assert on_disk == set(FILES)


def fix_exit(case: Case) -> int:
    """``fix`` exits 1 when findings without a fix remain, else 0."""
    return 1 if case.unfixed else 0


def found(findings: Sequence[patchcore.Finding]) -> list[tuple[str, str | None]]:
    return [(f.code, f.call_id) for f in findings]


def test_unfixed_findings_are_findings_and_have_no_repair() -> None:
    for case in CASES:
        assert set(case.unfixed) <= set(case.findings), case.path
        if case.unfixed and set(case.unfixed) == set(case.findings):
            assert case.expected is None, f"{case.path}: nothing is fixable, nothing changes"
        if case.warning:
            assert not case.findings, f"{case.path}: a mixed list is reported, not checked"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_check_reports_the_expected_findings(case: Case) -> None:
    result = toolpatch("check", f"samples/{case.path}")
    assert result.returncode == (1 if case.findings else 0), explain(result)
    assert result.stdout == b"", "check writes nothing to stdout"
    report = patchcore.check_document((SAMPLES / case.path).read_bytes(), filename=case.path)
    assert found(report.findings) == [tuple(f) for f in case.findings]
    unfixable = [f for f in report.findings if f.fix is None]
    assert found(unfixable) == [tuple(f) for f in case.unfixed]
    stderr = result.stderr.decode()
    for code, call_id in case.findings:
        assert code in stderr
        assert (call_id if call_id is not None else "no id") in stderr
    if case.warning is None:
        assert "warning:" not in stderr, explain(result)
    else:
        assert "warning:" in stderr, explain(result)
        assert case.warning in stderr, explain(result)
        assert any(listed.warning for listed in report.lists)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_fix_to_stdout_gives_the_expected_repair(case: Case) -> None:
    original = (SAMPLES / case.path).read_bytes()
    result = toolpatch("fix", "--stdin-filename", case.path, "-", stdin=original)
    assert result.returncode == fix_exit(case), explain(result)
    expected = (SAMPLES / fixed_path(case.path)).read_bytes() if case.expected else original
    assert result.stdout == expected


@pytest.mark.parametrize("case", [c for c in CASES if c.expected], ids=lambda c: c.path)
def test_repaired_sample_is_clean_and_stable(case: Case) -> None:
    repaired = SAMPLES / fixed_path(case.path)
    check = toolpatch("check", str(repaired.relative_to(ROOT)))
    assert check.returncode == (1 if case.unfixed else 0), explain(check)
    report = patchcore.check_document(repaired.read_bytes(), filename=repaired.name)
    assert found(report.findings) == [tuple(f) for f in case.unfixed]
    again = patchcore.fix_document(repaired.read_bytes(), filename=repaired.name)
    assert again.output is None, "fixing a repaired file must change nothing"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_fix_in_place(case: Case, tmp_path: Path) -> None:
    target = tmp_path / Path(case.path).name
    shutil.copyfile(SAMPLES / case.path, target)
    os.chmod(target, 0o640)
    os.utime(target, (1_000_000_000, 1_000_000_000))
    result = toolpatch("fix", str(target))
    assert result.returncode == fix_exit(case), explain(result)
    assert result.stdout == b""
    if case.expected:
        assert target.read_bytes() == (SAMPLES / fixed_path(case.path)).read_bytes()
        assert os.stat(target).st_mode & 0o777 == 0o640
    else:
        assert target.read_bytes() == (SAMPLES / case.path).read_bytes()
        assert os.stat(target).st_mtime == 1_000_000_000, "a clean file is never rewritten"
    assert [p.name for p in tmp_path.iterdir()] == [target.name], "no temporary file left"


def test_whole_samples_directory_in_one_run(tmp_path: Path) -> None:
    """The README's first command: check then fix the whole directory."""
    shutil.copytree(SAMPLES, tmp_path / "samples")
    unfixable = any(case.unfixed for case in CASES)
    check = toolpatch("check", str(tmp_path / "samples"))
    assert check.returncode == 1, explain(check)
    fix = toolpatch("fix", str(tmp_path / "samples"))
    assert fix.returncode == (1 if unfixable else 0), explain(fix)
    recheck = toolpatch("check", str(tmp_path / "samples"))
    assert recheck.returncode == (1 if unfixable else 0), explain(recheck)
    remaining = sum(len(case.unfixed) for case in CASES)
    assert recheck.stderr.decode().count(" TP0") == remaining, explain(recheck)
    for case in CASES:
        if case.expected:
            repaired = (tmp_path / "samples" / case.path).read_bytes()
            assert repaired == (SAMPLES / fixed_path(case.path)).read_bytes(), case.path
