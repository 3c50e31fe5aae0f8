"""`toolpatch.integrations.dask` on Dask's local schedulers writes what ``toolpatch fix`` writes.

Inputs: every shipped sample (documents, conversations per line, messages per line, agent
session logs), the shared corpus where it is present, and a generated corpus cut into many
blocks. The reference is the CLI run in place on a copy of the same files.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path
from typing import Any

import dask
import pytest

import patchcore
from benchmarks.corpus import lines as corpus_lines
from tests.builders import COMPRESSIONS
from tests.conftest import CORPUS, SAMPLES
from tests.helpers import run as toolpatch
from tests.sample_cases import file_samples
from toolpatch.integrations.dask import FileRepair, fix_files


def inputs_from(folder: Path, into: Path) -> list[Path]:
    """Copy the sample inputs (not the expected outputs) of ``folder`` flat into ``into``: the
    files of ``samples/`` but those of a folder sample (an event store is one input only whole,
    and its expected folder's files have the same names as its own), or every corpus file."""
    into.mkdir(parents=True)
    copied = []
    for path in file_samples("*") if folder == SAMPLES else sorted(folder.rglob("*")):
        if path.suffix in (".json", ".jsonl") and ".fixed." not in path.name:
            target = into / f"{path.parent.name}--{path.name}"
            assert not target.exists(), f"two inputs copied to {target.name}"
            shutil.copyfile(path, target)
            copied.append(target)
    return copied


def cli_fixed(files: list[Path], folder: Path) -> dict[str, bytes]:
    """What ``toolpatch fix`` leaves in each file (run on copies in ``folder``; with ``--force``,
    since the copies were just written and a live session's pending calls are otherwise left
    alone, which the Dask integration, reading no modification times, does not do; with
    ``--jobs 1``, as a pool of worker processes is no test process's, and the bytes are the
    same)."""
    folder.mkdir()
    for path in files:
        shutil.copyfile(path, folder / path.name)
    toolpatch(["fix", "--force", "--jobs", "1", str(folder)])
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def dask_fixed(pattern: str, output: Path, scheduler: str, **kw: object) -> list[FileRepair]:
    tasks = fix_files(pattern, str(output), **kw)  # type: ignore[arg-type]
    return list(dask.compute(*tasks, scheduler=scheduler))


def readable(files: list[Path]) -> list[Path]:
    """The files the CLI repairs without an error (an error leaves a file alone; the Dask
    task raises instead, which `test_a_broken_file_fails_its_task` pins)."""
    good = []
    for path in files:
        try:
            patchcore.check_document(path.read_bytes(), filename=path.name)
        except patchcore.NoHistoryError:
            good.append(path)  # copied unchanged by both
        except patchcore.PatchcoreError:
            continue
        else:
            good.append(path)
    return good


@pytest.mark.parametrize("scheduler", ["sync", "processes"])
def test_samples_match_the_cli(tmp_path: Path, scheduler: str) -> None:
    files = readable(inputs_from(SAMPLES, tmp_path / "in"))
    for path in set((tmp_path / "in").iterdir()) - set(files):
        path.unlink()
    expected = cli_fixed(files, tmp_path / "cli")
    repairs = dask_fixed(str(tmp_path / "in" / "*"), tmp_path / "out", scheduler)
    assert len(repairs) == len(files)
    for name, data in expected.items():
        assert (tmp_path / "out" / name).read_bytes() == data, name
    assert sum(r.fixed for r in repairs) > 0


def test_a_corpus_cut_into_blocks_matches_the_cli(tmp_path: Path) -> None:
    """Files larger than what `patchcore.Stream` reads whole (`patchcore.streamed`), one of
    them compressed (decompressed as it is read, and cut as the plain file is), are cut into
    batches of about ``blocksize`` and written as ``toolpatch fix`` writes them."""
    folder = tmp_path / "in"
    folder.mkdir()
    for dialect in ("langchain", "openai-chat"):
        data = b"".join(corpus_lines(dialect=dialect, conversations=400, seed=5))
        assert patchcore.streamed(len(data))
        (folder / f"{dialect}.jsonl").write_bytes(b"\xef\xbb\xbf" + data[:-1])  # BOM, no EOL
    (folder / "langchain.jsonl.gz").write_bytes(gzip.compress(data))
    files = sorted(folder.iterdir())
    expected = cli_fixed(files, tmp_path / "cli")
    repairs = dask_fixed(str(folder / "*.jsonl*"), tmp_path / "out", "sync", blocksize=500_000)
    assert len(repairs) == 3
    assert all(r.blocks > 10 for r in repairs)
    for name, data in expected.items():
        written = (tmp_path / "out" / name).read_bytes()
        if name.endswith(".gz"):
            assert gzip.decompress(written) == gzip.decompress(data), name
        else:
            assert written == data, name


def test_the_shared_corpus_matches_the_cli(tmp_path: Path, corpus: Path) -> None:
    files = readable(inputs_from(CORPUS, tmp_path / "in"))
    for path in set((tmp_path / "in").iterdir()) - set(files):
        path.unlink()
    expected = cli_fixed(files, tmp_path / "cli")
    dask_fixed(str(tmp_path / "in" / "*"), tmp_path / "out", "sync", blocksize=4096)
    for name, data in expected.items():
        assert (tmp_path / "out" / name).read_bytes() == data, name


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_compressed_files_match_the_cli(tmp_path: Path, suffix: str) -> None:
    """A compressed file is repaired whole (it cannot be cut into blocks) and written back in
    its own compression: its content is what ``toolpatch fix`` writes in the same file; one
    with nothing to fix is copied as it is."""
    compress, decompress = COMPRESSIONS[suffix]
    files = readable(inputs_from(SAMPLES, tmp_path / "plain"))
    corpus = b"".join(corpus_lines(dialect="openai-chat", conversations=60, seed=5))
    (tmp_path / "plain" / "corpus.jsonl").write_bytes(corpus)
    folder = tmp_path / "in"
    folder.mkdir()
    for path in [*files, tmp_path / "plain" / "corpus.jsonl"]:
        (folder / (path.name + suffix)).write_bytes(compress(path.read_bytes()))
    packed = sorted(folder.iterdir())
    expected = cli_fixed(packed, tmp_path / "cli")
    repairs = dask_fixed(str(folder / f"*{suffix}"), tmp_path / "out", "sync", blocksize=50_000)
    assert len(repairs) == len(packed)
    assert all(r.blocks == 1 for r in repairs)
    assert sum(r.fixed for r in repairs) > 0
    for name, data in expected.items():
        assert decompress((tmp_path / "out" / name).read_bytes()) == decompress(data), name
        if data == (folder / name).read_bytes():  # nothing to fix: the very bytes
            assert (tmp_path / "out" / name).read_bytes() == data, name


def test_a_broken_file_fails_its_task(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    data = b"".join(corpus_lines(dialect="langchain", conversations=10, seed=2))
    (folder / "broken.jsonl").write_bytes(data[:-20] + b"\n" + data)
    with pytest.raises(patchcore.DecodeError):
        dask_fixed(str(folder / "*.jsonl"), tmp_path / "out", "sync", blocksize=20_000)


def test_a_corrupt_compressed_file_fails_its_task(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    data = gzip.compress(b"".join(corpus_lines(dialect="langchain", conversations=10, seed=2)))
    (folder / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError, match="not valid gzip data"):
        dask_fixed(str(folder / "*.gz"), tmp_path / "out", "sync")


def test_on_a_cluster_a_files_batches_are_block_tasks(tmp_path: Path) -> None:
    """On a ``dask.distributed`` cluster, a file `patchcore.Stream` cuts into batches has each
    batch run as a block task of its own (`toolpatch.integrations.dask.BLOCK_KEY`, as
    ``--dask`` runs them), counted in its `FileRepair`; the bytes are ``toolpatch fix``'s."""
    from toolpatch.integrations.dask import BLOCK_KEY

    folder = tmp_path / "in"
    folder.mkdir()
    data = b"".join(corpus_lines(dialect="langchain", conversations=300, seed=5))
    assert patchcore.streamed(len(data))
    (folder / "c.jsonl").write_bytes(data)
    expected = cli_fixed([folder / "c.jsonl"], tmp_path / "cli")
    tasks = fix_files(str(folder / "*.jsonl"), str(tmp_path / "out"), blocksize="1MiB")
    (repair,), keys = _computed_on_a_cluster(tasks)
    blocks = [key for key in keys if key.startswith(BLOCK_KEY)]
    assert repair.blocks == len(blocks) > 8
    assert repair.fixed > 0
    assert (tmp_path / "out" / "c.jsonl").read_bytes() == expected["c.jsonl"] != data


def test_files_that_fill_the_clusters_threads_run_their_batches_in_their_tasks(
    tmp_path: Path,
) -> None:
    """Two files cut into batches, on two one-thread workers: each file keeps a thread busy,
    so its batches run in its own task (`BlockTasks`), still counted in its `FileRepair`;
    the bytes are ``toolpatch fix``'s."""
    from toolpatch.integrations.dask import BLOCK_KEY

    folder = tmp_path / "in"
    folder.mkdir()
    data = b"".join(corpus_lines(dialect="langchain", conversations=300, seed=5))
    assert patchcore.streamed(len(data))
    for name in ("a.jsonl", "b.jsonl"):
        (folder / name).write_bytes(data)
    expected = cli_fixed([folder / "a.jsonl", folder / "b.jsonl"], tmp_path / "cli")
    tasks = fix_files(str(folder / "*.jsonl"), str(tmp_path / "out"), blocksize="1MiB")
    repairs, keys = _computed_on_a_cluster(tasks)
    assert not [key for key in keys if key.startswith(BLOCK_KEY)], keys
    assert all(repair.blocks > 8 for repair in repairs)
    for name in ("a.jsonl", "b.jsonl"):
        assert (tmp_path / "out" / name).read_bytes() == expected[name] != data


def _computed_on_a_cluster(tasks: list[Any]) -> tuple[list[FileRepair], list[str]]:
    """``tasks`` computed on a cluster of two one-thread worker processes of this test's own:
    their results, and the key of every task its scheduler was given."""
    from distributed import Client

    from tests.conformance.test_dask_cli import _task_keys, process_cluster

    with (
        process_cluster() as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        return client.compute(tasks, sync=True), client.run_on_scheduler(_task_keys)
