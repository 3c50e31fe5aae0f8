"""The proxy's benchmark works (docs/benchmarks.md#the-proxy): a tiny run proves that every
body is timed through the proxy and straight, and that the table, the memory and the verdicts
are printed; the timings themselves are not tested."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks.proxy import BODIES
from tests.conftest import ROOT
from tests.helpers import clean_env


@pytest.mark.slow
def test_the_proxy_benchmark_times_every_body_and_prints_the_verdicts() -> None:
    small = ["--requests", "8", "--clients", "2", "--memory-requests", "40", "--messages", "11"]
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.proxy", *small],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    for name in BODIES:
        for route in ("straight", "proxy"):
            assert f"| {name} (" in completed.stdout and f"| {route} |" in completed.stdout
        assert f"- {name}, median: " in completed.stdout
    assert "the proxy's resident memory:" in completed.stdout
    assert "- memory over 40 requests: " in completed.stdout
