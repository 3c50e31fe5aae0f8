"""A store fix writes each thread in one transaction with its re-check
(docs/stores.md#langgraph): two ``toolpatch fix`` processes over the same store at once never
write two repairs of one thread (no thread forks), and a write that fails leaves the database
as ``check`` reads it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers import run, run_process
from tests.stores import Saver, clone_thread, forked_threads, postgres_url, store, stuck_thread

__all__ = ["postgres_url", "store"]  # the fixtures, used by name

#: Threads enough for two fixes at once to meet on some (before the fix, 50 to 190 of 2,000
#: threads forked on either backend).
THREADS = 1000


@pytest.mark.slow
def test_two_fixes_at_once_never_fork_a_thread(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
        clone_thread(checkpointer, "stuck", THREADS - 1)
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run_process, ["fix", url], cwd=tmp_path, timeout=300) for _ in "ab"]
        both = [ran.result() for ran in runs]
    for ran in both:
        assert ran.code in (0, 2), ran.show()
        for line in ran.stderr.splitlines():  # each thread: fixed, or found moved by the other
            assert (
                line.startswith("Fixed")
                or "changed while toolpatch worked" in line
                or ("threads could not be processed" in line)
            ), ran.show()
    with saver() as checkpointer:
        assert forked_threads(checkpointer) == 0
    run(["check", url], cwd=tmp_path, expect=0)
