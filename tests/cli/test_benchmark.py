"""The benchmark runners work (CI runs them once, small; the timings themselves are not tested).

Speed and memory are judged by ``python -m benchmarks.run`` on the full bench corpus, as ratios
measured in one run; here a tiny corpus proves that every case runs and that the table and the
verdicts are printed.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from benchmarks.proxy import BODIES
from tests.conftest import ROOT
from tests.helpers import clean_env


def _benchmark(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m MODULE ARGS`` from the checkout, run to its end (exit 0)."""
    completed = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed


@pytest.mark.slow
def test_the_benchmark_runs_every_case_and_prints_the_verdicts() -> None:
    completed = _benchmark("benchmarks.run", "--conversations", "30", "--repeat", "1")
    rows = re.findall(r"^\| ([^|]+?) \| ([0-9.]+) \|", completed.stdout, re.MULTILINE)
    cases = {name for name, _ in rows}
    for dialect in ("langchain", "openai-chat"):
        for case in (
            "bare orjson",
            "bare orjson, two halves at once",
            "fix --jobs 1",
            "fix",
            "fix - (a pipe)",
            "check",
            "bare orjson, to /dev/null",
            "fix - (a pipe), to /dev/null",
        ):
            assert f"{dialect}: {case}" in cases, completed.stdout
    assert "langchain: deepagents" in cases  # deepagents is in the test dependencies
    # distributed is too: --dask on clusters of one and two workers, over the first corpus and
    # over an empty folder (what a run pays whatever its work)
    for workers in ("1 worker", "2 workers"):
        assert {
            f"langchain: fix --dask, {workers}{suffix}" for suffix in ("", ", no input")
        } <= cases
    assert {"start-up: import typer", "start-up: toolpatch check"} <= cases
    realistic = "realistic (langchain, 0.1 % unanswered)"
    assert {f"{realistic}: fix", f"{realistic}: check"} <= cases
    assert all(float(seconds) > 0 for _, seconds in rows)
    verdicts = re.findall(
        r"^- (.+): ([0-9.]+) \(target [≤≥] ([0-9.]+)[^)]*\) (PASS|MISS)$",
        completed.stdout,
        re.MULTILINE,
    )
    # per dialect: fix of a pipe, check, every core against one; deepagents and --dask workers
    # (LangChain); start-up; fix against check on the realistic corpus
    assert len(verdicts) == 2 * 3 + 1 + 1 + 1 + 1, completed.stdout
    labels = {label for label, *_ in verdicts}
    # the pipe's and the check's verdicts say their compute ratio (outputs to /dev/null)
    assert len(re.findall(r"; compute ratio, to /dev/null: [0-9.]+\)", completed.stdout)) == 4
    assert {"start-up: toolpatch check / import typer", f"{realistic}: fix / check"} <= labels
    # --dask is judged by its work, the run with no input taken off, and says the whole runs too
    assert "langchain: fix --dask workers 1 / workers 2, the work" in labels
    assert re.search(r"the work: [0-9.]+ \(target ≥ [^)]*; whole runs: [0-9.]+\)", completed.stdout)
    for label, value, bound, word in verdicts:
        if value == bound:
            continue  # equal once rounded: the verdict was taken on the unrounded ratio
        at_most = not any(kind in label for kind in ("jobs", "workers", "deepagents"))
        assert (float(value) <= float(bound) if at_most else float(value) >= float(bound)) == (
            word == "PASS"
        ), label
    capacities = re.findall(r"^- .+: two-process capacity .*: ([0-9.]+)$", completed.stdout, re.M)
    assert len(capacities) == 2, completed.stdout


@pytest.mark.slow
def test_the_proxy_benchmark_times_every_body_and_prints_the_verdicts() -> None:
    """docs/benchmarks.md#the-proxy: every body timed through the proxy and straight, the
    memory and the verdicts printed."""
    small = ["--requests", "8", "--clients", "2", "--memory-requests", "40", "--messages", "11"]
    completed = _benchmark("benchmarks.proxy", *small)
    for name in BODIES:
        for route in ("straight", "proxy"):
            assert f"| {name} (" in completed.stdout and f"| {route} |" in completed.stdout
        assert f"- {name}, median: " in completed.stdout
    assert "the proxy's resident memory:" in completed.stdout
    assert "- memory over 40 requests: " in completed.stdout
