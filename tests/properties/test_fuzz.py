"""A bounded coverage-guided fuzz run of patchcore (atheris), as part of the test suite.

``tests/properties/fuzz/fuzz_patchcore.py`` runs in a subprocess, seeded with every file of
samples/ (copied into a temporary corpus folder, which libFuzzer extends), with a fixed ``-seed``
and a fixed number of runs, so a run is reproducible; ``-max_total_time`` caps it on a slow
machine. It must end cleanly: no uncaught exception, no timeout, no memory blow-up. On failure
the message shows libFuzzer's report and the crashing input.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import clean_env
from tests.robustness import ROOT, SAMPLES

HARNESS = ROOT / "tests" / "properties" / "fuzz" / "fuzz_patchcore.py"
SEED = 20261202
RUNS = 30_000
MAX_SECONDS = 25


def seed_corpus(folder: Path) -> int:
    """Copy every sample (inputs and expected repairs) into ``folder``; how many."""
    folder.mkdir()
    count = 0
    for path in sorted(SAMPLES.rglob("*")):
        if path.suffix in (".json", ".jsonl"):
            shutil.copyfile(path, folder / f"{path.parent.name}--{path.name}")
            count += 1
    return count


def test_fuzz_patchcore(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    seeded = seed_corpus(corpus)
    assert seeded > 20, f"only {seeded} seed files"
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    completed = subprocess.run(
        [
            sys.executable,
            str(HARNESS),
            str(corpus),
            f"-seed={SEED}",
            f"-runs={RUNS}",
            f"-max_total_time={MAX_SECONDS}",
            "-rss_limit_mb=2048",
            "-timeout=10",
            "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/",
        ],
        cwd=tmp_path,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=MAX_SECONDS + 120,
        check=False,
    )
    log = completed.stderr.decode("utf-8", "replace") + completed.stdout.decode("utf-8", "replace")
    crashes = sorted(artifacts.iterdir())
    shown = "\n".join(f"{c.name}: {c.read_bytes()[:4000]!r}" for c in crashes)
    report = log[log.find("=== Uncaught") :] if "=== Uncaught" in log else log[-4000:]
    assert completed.returncode == 0 and not crashes, (
        f"the fuzzer failed (exit {completed.returncode})\n{report}\ncrashing input(s):\n{shown}"
    )
    executed = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    assert executed, f"no final stats in the fuzzer's output:\n{log[-2000:]}"
    assert int(executed[1]) >= min(RUNS, 2000), f"only {executed[1]} inputs were run"
    assert "INITED" in log, f"libFuzzer did not load the seed corpus:\n{log[-2000:]}"
