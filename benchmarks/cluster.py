"""The ``--dask`` cases of the benchmark: two clusters of worker processes on this machine
(one worker, two workers), started once for the run, and the corpus cut into parts.

``--dask`` runs each input as one task, so the corpus is given as several files (`parts`)
that the workers share out. The clusters are started before the timing and reached by their
``tcp://`` address, as a real cluster is: a case times connecting, the work and the report,
not starting workers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

#: How many files the corpus is cut into for the ``--dask`` cases.
PARTS = 8


def has_distributed() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def local_clusters(*workers: int) -> Iterator[dict[int, str]]:
    """A ``LocalCluster`` of each number of worker processes (one thread each), running while
    the block runs: their scheduler addresses by number of workers."""
    from distributed import LocalCluster

    with ExitStack() as stack:
        addresses = {}
        for count in workers:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=count,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.ERROR,
                )
            )
            addresses[count] = cluster.scheduler_address
        yield addresses


def parts(corpus: Path, count: int = PARTS) -> Path:
    """The corpus cut at line breaks into ``count`` files of about one size, in a folder beside
    it (made once)."""
    folder = corpus.with_suffix(".parts")
    if folder.is_dir():
        return folder
    folder.mkdir()
    data = corpus.read_bytes()
    start = 0
    for number in range(count):
        end = (
            len(data)
            if number == count - 1
            else data.index(b"\n", len(data) * (number + 1) // count) + 1
        )
        (folder / f"part-{number}.jsonl").write_bytes(data[start:end])
        start = end
    return folder
