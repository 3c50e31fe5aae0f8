"""``--dask`` on a real ``dask.distributed`` cluster of worker processes against a real
S3-compatible server (moto's, `tests.object_store`), docs/large-corpora.md.

``fix --dask local:2 s3://…/in/`` writes the bytes ``fix`` writes on local copies, ``check
--dask`` reports what a local check reports, and a worker killed while it repairs an input is
replaced and its task run again by Dask: the run still ends with every object repaired.
"""

from __future__ import annotations

import dataclasses
import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import patchcore
from benchmarks.corpus import lines as corpus_lines
from tests.builders import plain, slow_run
from tests.conftest import SAMPLES
from tests.helpers import MODULE, run, run_process
from tests.object_store import S3Server, local_names, set_s3_env, toolpatch, tree, uploaded, with_s3


def process_cluster() -> Any:
    """A ``LocalCluster`` of two worker processes, all on free ports of 127.0.0.1. Its
    scheduler starts an HTTP server even without a dashboard, on port 8787 unless told
    otherwise: a second run of the suite at the same time (README's test command beside
    ``.ci/run`` on one machine) held that port, distributed warned and took another, and the
    warning, an error under the suite's settings, failed the cluster's start."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    )


def test_a_local_cluster_gives_the_findings_and_bytes_of_a_local_run(
    s3_server: S3Server, tmp_path: Path
) -> None:
    tree(tmp_path / "in")
    url = uploaded(s3_server, tmp_path / "in")
    json_check = ["check", "--force", "--output-format", "json"]
    local = toolpatch(s3_server, [*json_check, "in"], tmp_path)
    remote = toolpatch(s3_server, [*json_check, "--dask", "local:2", url], tmp_path)
    assert remote.code == local.code == 1, remote.show()
    assert local_names(remote.stdout.decode(), url) == local.stdout.decode()

    local = toolpatch(s3_server, ["fix", "--force", "in"], tmp_path)
    remote = toolpatch(s3_server, ["fix", "--force", "--dask", "local:2", url], tmp_path)
    assert remote.code == local.code, remote.show()
    assert local_names(remote.stderr, url) == local.stderr
    fs = s3_server.fs()
    fs.invalidate_cache()
    for path in (tmp_path / "in").rglob("*"):
        if path.is_file():
            key = f"{url.removeprefix('s3://')}{path.relative_to(tmp_path / 'in').as_posix()}"
            assert fs.cat_file(key) == path.read_bytes(), key


def test_strip_on_a_cluster_undoes_fix(s3_server: S3Server, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    data = b"".join(corpus_lines(dialect="openai-chat", conversations=40, seed=3))
    (tmp_path / "in" / "corpus.jsonl").write_bytes(data)
    url = uploaded(s3_server, tmp_path / "in")
    toolpatch(s3_server, ["fix", "--dask", "local:1", url], tmp_path)
    fs = s3_server.fs()
    fs.invalidate_cache()
    assert fs.cat_file(f"{url.removeprefix('s3://')}corpus.jsonl") != data
    toolpatch(s3_server, ["strip", "--dask", "local:1", url], tmp_path)
    fs.invalidate_cache()
    assert fs.cat_file(f"{url.removeprefix('s3://')}corpus.jsonl") == data


def test_a_missing_bucket_is_that_inputs_error_on_a_cluster(
    s3_server: S3Server, tmp_path: Path
) -> None:
    (tmp_path / "in").mkdir()
    shutil.copyfile(SAMPLES / "openai-chat" / "trailing-call.json", tmp_path / "in" / "t.json")
    url = uploaded(s3_server, tmp_path / "in")
    missing = ["s3://tp-no-such-bucket/in/", "s3://tp-no-such-bucket/x.json"]
    result = toolpatch(s3_server, ["check", "--dask", "local:1", *missing, url], tmp_path)
    assert result.code == 2, result.show()
    errors = [line.split(": error: ")[0] for line in result.stderr_lines if ": error: " in line]
    assert errors == missing, result.show()
    assert f"{url}t.json:8:5: TP002" in result.said  # the other input is still checked


def test_a_killed_worker_is_replaced_and_its_input_repaired(
    s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cluster is this test's own (its workers read the server's address from the
    environment they start with), reached by ``tcp://``; as soon as a worker is running one
    of the command's tasks, its process is killed (SIGKILL). Its nanny starts a new one, the
    scheduler gives the lost task to a worker again, and the outcome is a local run's."""
    from distributed import Client

    folder = tmp_path / "in"
    folder.mkdir()
    for number in range(6):
        data = b"".join(corpus_lines(dialect="langchain", conversations=300, seed=number))
        (folder / f"part-{number}.jsonl").write_bytes(data)
    url = uploaded(s3_server, folder)
    local = toolpatch(s3_server, ["fix", "in"], tmp_path)
    set_s3_env(s3_server, monkeypatch)
    with (
        process_cluster() as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        pids = client.run(os.getpid)
        command = subprocess.Popen(
            [*MODULE, "fix", "--dask", cluster.scheduler_address, url],
            cwd=tmp_path,
            env=with_s3(s3_server),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and command.poll() is None and time.monotonic() < deadline:
            busy = [worker for worker, keys in client.processing().items() if keys]
            if busy:
                killed = pids[busy[0]]
                os.kill(killed, signal.SIGKILL)
            time.sleep(0.005)
        stdout, stderr = command.communicate(timeout=300)
        assert killed is not None, "the run ended before a worker could be killed"
        assert killed not in client.run(os.getpid).values()  # it was replaced
    report = stderr.decode()
    assert command.returncode == local.code, report
    assert local_names(report, url) == local.stderr
    fs = s3_server.fs()
    fs.invalidate_cache()
    for path in sorted(folder.iterdir()):
        key = f"{url.removeprefix('s3://')}{path.name}"
        assert fs.cat_file(key) == path.read_bytes(), key
    assert not stdout


def test_the_progress_bar_follows_the_tasks_of_the_cluster(tmp_path: Path) -> None:
    """Local files given by relative names, on two workers: while one task waits for its
    input (a named pipe filled after a pause), the bar counts the other, already done."""
    code, stderr = slow_run(tmp_path, ["--dask", "local:2"], stderr_terminal=True)
    assert code == 1, stderr
    assert "1 conversation, 1 finding" in plain(stderr), "a.json counted before the wait"
    assert "slow.jsonl:2:" not in plain(stderr), "the findings go to stdout, beside the bar"
    assert "Found 2 findings" not in plain(stderr), "and the summary with them"


def test_one_file_fixed_into_an_output_file_on_a_cluster(tmp_path: Path) -> None:
    """Named relatively: the worker, whose working folder is its own, is given both paths
    absolute; the input is left alone. ``-o -`` is refused: a worker has no such stdout."""
    source = SAMPLES / "openai-chat" / "trailing-call.json"
    shutil.copyfile(source, tmp_path / "h.json")
    run(["fix", "--dask", "local:1", "h.json", "-o", "fixed.json"], cwd=tmp_path, expect=0)
    assert (tmp_path / "fixed.json").read_bytes() == source.with_suffix(".fixed.json").read_bytes()
    assert (tmp_path / "h.json").read_bytes() == source.read_bytes()
    refused = run(["fix", "--dask", "local:1", "h.json", "-o", "-"], cwd=tmp_path, expect=2)
    assert "not this stdout" in refused.stderr


def large_corpus(path: Path, *, conversations: int = 420) -> bytes:
    """A JSON Lines corpus with dangling calls, over patchcore's whole-input limit (8 MiB), so
    that it is streamed in several batches: about 13 MB."""
    data = b"".join(corpus_lines(dialect="langchain", conversations=conversations, seed=5))
    path.write_bytes(data)
    return data


class _Bytes:
    """Bytes read at any offset (`patchcore.RandomAccess`), as a file is."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]


def batches_of(data: bytes) -> int:
    """How many batches `patchcore.Stream` cuts ``data`` (a file) into."""
    seen: list[patchcore.Batch] = []

    def counted(function: Any, batches: Iterable[patchcore.Batch]) -> Iterator[patchcore.Result]:
        for batch in batches:
            seen.append(batch)
            yield function(
                dataclasses.replace(batch, data=data[batch.offset : batch.offset + batch.size])
            )

    stream = patchcore.Stream(
        _Bytes(data),
        filename="c.jsonl",
        options=patchcore.make_options(),
        fix=True,
        mapper=counted,
    )
    for _ in stream:
        pass
    return len(seen)


def test_one_large_file_is_spread_over_the_cluster_in_block_tasks(tmp_path: Path) -> None:
    """One large corpus on ``local:2``: its batches are block tasks of their own, and the
    file written, the report and the exit code are a local ``fix``'s."""
    data = large_corpus(tmp_path / "c.jsonl")
    shutil.copyfile(tmp_path / "c.jsonl", tmp_path / "local.jsonl")
    local = run_process(["fix", "local.jsonl"], cwd=tmp_path, timeout=300)
    remote = run_process(["fix", "--dask", "local:2", "c.jsonl"], cwd=tmp_path, timeout=300)
    assert remote.code == local.code == 0, remote.stderr
    assert remote.stderr.replace("c.jsonl", "local.jsonl") == local.stderr
    assert (tmp_path / "c.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes() != data


def test_the_block_tasks_submitted_are_the_batches_of_the_input(tmp_path: Path) -> None:
    """On a cluster of this test's own, reached by ``tcp://``: ``check`` of one large corpus
    submits one task for the input and one block task for each batch `patchcore.Stream` cuts
    it into (more than one), and reports what a local check reports."""

    from toolpatch.integrations.dask import BLOCK_KEY

    data = large_corpus(tmp_path / "c.jsonl")
    batches = batches_of(data)
    assert batches > 1
    local = run_process(["check", "c.jsonl"], cwd=tmp_path, timeout=300)
    remote, keys = _checked_on_a_cluster(["c.jsonl"], tmp_path)
    assert remote.code == local.code == 1, remote.stderr
    assert (remote.stdout, remote.stderr) == (local.stdout, local.stderr)
    blocks = [key for key in keys if key.startswith(BLOCK_KEY)]
    assert len(blocks) == batches, keys
    assert len(keys) == batches + 1  # and the input's own task


def test_inputs_that_fill_the_clusters_threads_run_no_block_tasks(tmp_path: Path) -> None:
    """Two large corpora on two one-thread workers: each input keeps a thread busy, so its
    batches run in its own task, in order (a block task would only add its batch's trip to a
    worker and back, docs/large-corpora.md#on-a-cluster-from-the-command-line); the report is
    a local check's."""

    large_corpus(tmp_path / "a.jsonl")
    shutil.copyfile(tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    local = run_process(["check", "a.jsonl", "b.jsonl"], cwd=tmp_path, timeout=300)
    remote, keys = _checked_on_a_cluster(["a.jsonl", "b.jsonl"], tmp_path)
    assert remote.code == local.code == 1, remote.stderr
    assert (remote.stdout, remote.stderr) == (local.stdout, local.stderr)
    assert len(keys) == 2, keys  # the inputs' own tasks, and no block task


def _checked_on_a_cluster(paths: list[str], cwd: Path) -> tuple[Any, list[str]]:
    """``check --dask`` of ``paths`` on a cluster of this test's own, reached by its ``tcp://``
    address: the run, and the key of every task its scheduler was given."""
    from distributed import Client

    with (
        process_cluster() as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        remote = run_process(
            ["check", "--dask", cluster.scheduler_address, *paths], cwd=cwd, timeout=300
        )
        return remote, client.run_on_scheduler(_task_keys)


def _task_keys(dask_scheduler: Any) -> list[str]:
    """On the scheduler: the keys of every task it has been given (each once)."""
    return sorted({str(entry[0]) for entry in dask_scheduler.transition_log})


def test_a_block_that_fails_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    """A torn line in the middle of a large corpus fails its block task: the input is an
    error, reported as a local run reports it, and nothing is written over it."""
    data = large_corpus(tmp_path / "c.jsonl")
    middle = data.index(b"\n", len(data) // 2) + 1
    torn = data[:middle] + b'{"messages": [\n' + data[middle:]
    (tmp_path / "c.jsonl").write_bytes(torn)
    (tmp_path / "local.jsonl").write_bytes(torn)
    local = run_process(["fix", "local.jsonl"], cwd=tmp_path, timeout=300)
    remote = run_process(["fix", "--dask", "local:2", "c.jsonl"], cwd=tmp_path, timeout=300)
    assert remote.code == local.code == 2, remote.stderr
    assert remote.stderr.replace("c.jsonl", "local.jsonl") == local.stderr
    assert (tmp_path / "c.jsonl").read_bytes() == torn


def test_an_address_without_a_scheduler_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "h.json").write_bytes(b'{"messages": []}')
    result = toolpatch_plain(["check", "--dask", "tcp://127.0.0.1:9", str(tmp_path)])
    assert result.returncode == 2
    assert "no Dask scheduler answers at tcp://127.0.0.1:9" in result.stderr
    usage = toolpatch_plain(["check", "--dask", "local:x", str(tmp_path)])
    assert usage.returncode == 2
    assert "is not a cluster's address" in usage.stderr


def test_a_server_that_is_not_a_scheduler_is_an_error_within_the_timeout(tmp_path: Path) -> None:
    """An HTTP server accepts the connection and never answers in Dask's protocol: the run
    ends within the connection's timeout with one line, not hanging for ever."""
    from toolpatch.integrations.dask import CONNECT_SECONDS

    (tmp_path / "h.json").write_bytes(b'{"messages": []}')
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        address = f"tcp://127.0.0.1:{web.server_address[1]}"
        # a run that waited on past its connect timeout would hit the process's own timeout
        result = toolpatch_plain(["check", "--dask", address, str(tmp_path)])
    finally:
        web.shutdown()
        web.server_close()
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"toolpatch: error: no Dask scheduler answers at {address}: "
        f"no answer within {CONNECT_SECONDS:g} s"
    ]


def toolpatch_plain(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolpatch", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
