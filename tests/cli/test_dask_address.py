"""``--dask ADDRESS`` checked as it is parsed
(docs/large-corpora.md#on-a-cluster-from-the-command-line): an odd address is a usage error at
once (no input listed, nothing of Dask started, no wait and no traceback), and ``local:N``
starts no more worker processes than ``--jobs`` would: the cores, and the inputs. The
connection's timeout is checked on a real cluster, tests/conformance/test_dask_cli.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import DANGLING, write
from tests.helpers import run, run_process
from toolpatch.cli.cluster_address import ClusterAddress, cluster_address
from toolpatch.cli.parallel import available_cores


@pytest.mark.parametrize(
    "address",
    [
        "foo",
        "tcp://",
        "tcp://127.0.0.1",
        "tcp://h:0",
        "tcp://h:99999",
        "tcp://u:p@h:1/x",
        "inproc://x",
        "http://h:8786",
        "local:",
        "local:0",
        "local:x",
        "local:-1",
        " local",
    ],
)
def test_an_odd_address_is_a_usage_error_at_once(address: str, tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    result = run_process(["check", "--dask", address, "h.json"], cwd=tmp_path, expect=2)
    # Click's refusal of the value: raised while parsing, before any connection is tried
    assert "Invalid value for '--dask'" in result.stderr, result.show()
    assert "h.json" not in result.stderr.replace(" h.json", "")  # no input was read


@pytest.mark.parametrize(
    ("address", "parsed"),
    [
        ("local", ClusterAddress(None, None)),
        ("local:3", ClusterAddress(None, 3)),
        ("tcp://scheduler:8786", ClusterAddress("tcp://scheduler:8786")),
        ("tls://10.0.0.7:8786", ClusterAddress("tls://10.0.0.7:8786")),
        ("tcp://[::1]:8786", ClusterAddress("tcp://[::1]:8786")),
    ],
)
def test_the_documented_addresses_are_taken(address: str, parsed: ClusterAddress) -> None:
    assert cluster_address(address) == parsed


def test_a_local_cluster_is_bounded_as_jobs_are() -> None:
    cores = available_cores()
    assert ClusterAddress(None, 64).local_workers(1) == 1
    assert ClusterAddress(None, 64).local_workers(1000) == cores
    assert ClusterAddress(None, None).local_workers(1000) == cores
    assert ClusterAddress(None, 1).local_workers(1000) == 1
    assert ClusterAddress(None, None).local_workers(0) == 1


def test_local_64_for_one_file_asks_for_one_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run asks the integration for the bounded count (the cluster itself is not started:
    its start is the conformance tests')."""
    import toolpatch.integrations.dask as integration

    asked: list[tuple[str | None, int]] = []

    def refuse(scheduler: str | None, *, workers: int) -> None:
        asked.append((scheduler, workers))
        raise OSError("not started by this test")

    monkeypatch.setattr(integration, "connect", refuse)
    write(tmp_path / "h.json", DANGLING)
    result = run(["check", "--dask", "local:64", "h.json"], cwd=tmp_path, expect=2)
    assert asked == [(None, 1)], result.show()
    assert result.stderr_lines[-1] == "toolpatch: error: not started by this test"


def test_one_large_file_asks_for_a_worker_per_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file over the whole-input limit is cut into batches, each a task of its own: it asks
    for as many workers as it has batches (within the cores and N); a small one, for one."""
    import toolpatch.integrations.dask as integration
    from toolpatch.integrations.dask import tasks_at_most

    asked: list[int] = []

    def refuse(scheduler: str | None, *, workers: int) -> None:
        asked.append(workers)
        raise OSError("not started by this test")

    monkeypatch.setattr(integration, "connect", refuse)
    assert [tasks_at_most(size) for size in (None, 10, 8 * 2**20)] == [1, 1, 1]
    assert tasks_at_most(8 * 2**20 + 1) == 3  # batches of about 4 MiB
    line = b'{"messages": []}\n'
    (tmp_path / "big.jsonl").write_bytes(line * (8 * 2**20 // len(line) + 1))
    run(["check", "--dask", "local:64", "big.jsonl"], cwd=tmp_path, expect=2)
    assert asked == [min(3, available_cores())]
