"""Repair a corpus on a Dask cluster: the same bytes as ``toolpatch fix``, spread over workers.

Why Dask: it is plain Python (``pip install "toolpatch-cli[dask]"``; PySpark needs a JVM, Ray a
runtime of its own); fsspec, which it comes with, reads and writes any file system (local, S3,
GCS, HDFS, ...); and the same task graph runs on a laptop (the local scheduler) and on a
cluster (``dask.distributed``).

One design serves ``toolpatch check|fix|strip --dask`` and `fix_files`: each input is one task,
which runs the input's one path (`patchcore.Stream`), and a large file of conversation lines
that ``Stream`` cuts into batches has its batches run as block tasks of their own
(`BlockTasks`, keys `BLOCK_KEY`) when the task runs on a ``dask.distributed`` worker, in the
task, in order, otherwise. Whether a file is cut, and where, ``Stream`` alone decides (its
layout and size: `patchcore.streamed`); a compressed file (``.gz``; ``.zst`` with the
``[zstd]`` extra) is decompressed as it is read and streamed as the same plain file would be,
and written back in its own compression (`toolpatch.integrations.file_io`, the command
line's own code). So the output is the bytes ``toolpatch fix`` writes (a file with nothing to
fix, or no history at all, is copied as it is, compressed bytes and all), and an unreadable
file fails its task with the `PatchcoreError` ``toolpatch`` reports, located in the file.

Example (local scheduler; with ``dask.distributed.Client(...)`` the same code runs on a
cluster)::

    import dask
    import patchcore
    from toolpatch.integrations.dask import fix_files

    tasks = fix_files("s3://corpus/2026-*/*.jsonl", "s3://corpus-fixed/")
    reports = dask.compute(*tasks)
"""

from __future__ import annotations

import logging
import os
import posixpath
import shutil
import tempfile
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import IO, Any, Protocol

from patchcore.extras import MissingExtra
from patchcore.pipeline import BATCH_BYTES

try:
    import fsspec
    from dask import delayed
    from dask.delayed import Delayed
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="dask", part="toolpatch.integrations.dask") from None

from patchcore import (
    Batch,
    Mapper,
    NoHistoryError,
    Options,
    Result,
    Stream,
    Unchanged,
    streamed,
)
from toolpatch.integrations.file_io import (
    READ_BYTES,
    Compression,
    FileIdentity,
    decompressed,
    plain_name,
)


@dataclass(frozen=True, slots=True)
class FileRepair:
    """What the repair of one file did.

    Attributes:
        source: The input's path.
        target: Where the output was written.
        fixed: How many findings were fixed.
        remaining: How many findings are left (not fixable, or unsafe without ``unsafe_fixes``).
        blocks: How many batches `patchcore.Stream` cut the file into, each a block task on a
            ``dask.distributed`` worker when the run's files left threads idle (`BlockTasks`),
            else run in the file's task (1: it was read whole, as every file of at most
            `patchcore.streamed`'s whole-input limit is, and every file whose layout is no
            conversation per line).
        note: Why a whole file was copied unchanged (it holds no message history).
    """

    source: str
    target: str
    fixed: int
    remaining: int
    blocks: int
    note: str | None = None


def fix_files(
    urlpath: str | Sequence[str],
    output_dir: str,
    *,
    options: Options | None = None,
    blocksize: int | str | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> list[Delayed]:
    """One delayed task per input file; computing it writes the repaired file to
    ``output_dir`` under the same base name and returns its `FileRepair`.

    Each task runs the path ``toolpatch fix --dask`` runs for a file (`patchcore.Stream`, a
    streamed file's batches as `BlockTasks`); its output is written to the target whole, once
    the file's repair is complete.

    Args:
        urlpath: Input files: a path, a glob or a list of them, on any fsspec file system.
        output_dir: Directory the outputs go to (created if needed; same file system rules).
        options: From `patchcore.make_options` (default: the TP0xx rules and TP103, safe fixes).
        blocksize: About how many bytes of whole lines go into one batch of a streamed file
            (`patchcore.Stream`'s ``batch_bytes``; an int or a size such as ``"64MiB"``);
            ``None``: ``Stream``'s own, what ``toolpatch`` uses. It does not decide whether a
            file is cut: a file of at most ``Stream``'s whole-input limit (`patchcore.streamed`)
            is read whole, whatever its ``blocksize``.
        storage_options: Passed to fsspec (credentials, endpoints).

    Raises:
        MissingExtra: A ``.zst`` file without the ``[zstd]`` extra (said here, not in a task).
    """
    chosen = options if options is not None else Options()
    batch_bytes = BATCH_BYTES if blocksize is None else _parsed_size(blocksize)
    storage = dict(storage_options or {})
    fs, _, paths = fsspec.get_fs_token_paths(urlpath, storage_options=storage)
    out_fs, _, (out_root,) = fsspec.get_fs_token_paths(output_dir, storage_options=storage)
    out_fs.makedirs(out_root, exist_ok=True)
    tasks = []
    for path in sorted(paths):
        compression = Compression.of(path)
        if compression is not None:
            compression.require()  # the extra is missing: say so now, not in a task
        target = posixpath.join(out_root, posixpath.basename(path))
        tasks.append(
            delayed(_fix_file)(fs, path, out_fs, target, chosen, batch_bytes, inputs=len(paths))
        )
    return tasks


def _parsed_size(blocksize: int | str) -> int:
    """``blocksize`` in bytes (``"64MiB"``: Dask's own reading of a size)."""
    from dask.utils import parse_bytes

    size: int = parse_bytes(blocksize)
    return size


def _fix_file(
    fs: fsspec.AbstractFileSystem,
    source: str,
    out_fs: fsspec.AbstractFileSystem,
    target: str,
    options: Options,
    batch_bytes: int,
    *,
    inputs: int,
) -> FileRepair:
    """Repair the file ``source`` as ``toolpatch fix`` does: `patchcore.Stream` over its
    content as fsspec reads it (decompressed, if it is compressed), its batches as block tasks
    while the run's ``inputs`` leave threads idle (`BlockTasks`, counted for
    `FileRepair.blocks`). The output is spooled to a local temporary file and copied to
    ``target`` once complete (compressed as the input is); a file with nothing fixed, or no
    history, is copied as it is instead.

    Raises:
        PatchcoreError: The file cannot be read as a history (located in the file).
        OSError: It cannot be read, or a compressed file is not valid in its compression.
    """
    compression = Compression.of(source)
    counted = _CountedBatches(BlockTasks(inputs=inputs))
    with fs.open(source, "rb") as handle, tempfile.TemporaryFile() as spool:
        read: Callable[[int], bytes] = handle.read
        chunks = (
            iter(lambda: read(READ_BYTES), b"")
            if compression is None
            else decompressed(compression, read)
        )
        stream = Stream(
            chunks,
            filename=plain_name(source),
            options=options,
            fix=True,
            mapper=counted,
            batch_bytes=batch_bytes,
        )
        try:
            _write(stream, spool, compression)
        except NoHistoryError as error:  # nothing to repair: the copy is the input
            _copy(fs.open(source, "rb"), out_fs, target)
            return FileRepair(source, target, 0, 0, 1, error.reason)
        result = stream.result
        if result.changed:
            spool.seek(0)
            _copy(spool, out_fs, target)
        else:
            _copy(fs.open(source, "rb"), out_fs, target)
    blocks = counted.batches if stream.streamed else 1
    return FileRepair(source, target, len(result.fixed), len(result.remaining), blocks)


def _write(stream: Stream, spool: IO[bytes], compression: Compression | None) -> None:
    """Write the output of ``stream`` (fed chunks: never an `Unchanged` range) to ``spool``, in
    ``compression``."""
    compressor = None if compression is None else compression.compressor()
    for piece in stream:
        assert not isinstance(piece, Unchanged), "a stream of chunks yields its bytes"
        spool.write(piece if compressor is None else compressor.compress(piece))
    if compressor is not None:
        spool.write(compressor.flush())


def _copy(read: IO[bytes], out_fs: fsspec.AbstractFileSystem, target: str) -> None:
    """Copy ``read`` (closed after) to ``target``."""
    with read, out_fs.open(target, "wb") as handle:
        shutil.copyfileobj(read, handle)


class _CountedBatches:
    """A `patchcore.Mapper` that hands the batches to ``mapper``, counting them."""

    def __init__(self, mapper: Mapper) -> None:
        self._mapper = mapper
        self.batches = 0

    def __call__(
        self, function: Callable[[Batch], Result], batches: Iterable[Batch]
    ) -> Iterable[Result]:
        return self._mapper(function, self._counted(batches))

    def _counted(self, batches: Iterable[Batch]) -> Iterator[Batch]:
        for batch in batches:
            self.batches += 1
            yield batch


#: The key every block task of a streamed input is submitted under, before its own id (what
#: a cluster's dashboard shows, and what `tests/conformance/test_dask_cli.py` counts).
BLOCK_KEY = "toolpatch-block"


class OpenFile(Protocol):
    """A regular file an input's task has open (`toolpatch.cli.inputs.FileInput`): its path,
    absolute on the workers, and what it was when it was opened."""

    path: str
    identity: FileIdentity


class BlockTasks:
    """`patchcore.Stream`'s ``mapper`` on a ``dask.distributed`` cluster: each batch of a
    streamed input (a large file of conversation lines) one task, a few per worker in flight,
    results in input order. Made where the input is submitted and run in the input's own task:
    the first batch connects it to the cluster (``worker_client``, which also frees the
    worker's slot for block tasks while the input's task waits for them).

    Only while the run's ``inputs`` leave threads of the cluster idle (fewer inputs than
    threads): a block task costs its batch's trip to a worker and its result's trip back
    (an object's batch is sent its bytes, through the scheduler), which only a thread that
    would otherwise wait pays back. Eight files of 20 MB on one worker took 2.6 s as block
    tasks and 1.7 s each in its task, on two workers 1.9 s and 1.2 s (docs/large-corpora.md).
    Otherwise, and outside a worker (a local scheduler), the batches are processed in the
    input's task itself, in order.

    ``patchcore.Stream`` decides whether an input is cut into batches and where (its layout
    and size, `patchcore.layout_of_head`): the cluster only runs them."""

    def __init__(self, *, inputs: int = 1) -> None:
        self.inputs = inputs

    def __call__(
        self, function: Callable[[Batch], Result], batches: Iterable[Batch]
    ) -> Iterator[Result]:
        return self._ordered(function, batches, None)

    def reading(self, file: OpenFile) -> Mapper:
        """The same map over batches of the open regular file ``file``: each block task reads
        its batch from the file itself (`_read_batch`, by its path: a file system every worker
        mounts), instead of receiving it in its task."""

        def mapper(
            function: Callable[[Batch], Result], batches: Iterable[Batch]
        ) -> Iterator[Result]:
            return self._ordered(function, batches, file)

        return mapper

    def _ordered(
        self, function: Callable[[Batch], Result], batches: Iterable[Batch], file: OpenFile | None
    ) -> Iterator[Result]:
        from distributed import worker_client

        workers = _cluster_workers()
        if self.inputs >= sum(int(worker.get("nthreads", 1)) for worker in workers.values()):
            for batch in batches:  # each batch here, in order
                yield function(_read_batch(file, batch) if batch.data is None else batch)
            return
        window = 2 * len(workers)
        with worker_client() as client:
            in_flight: deque[Any] = deque()
            try:
                for batch in batches:
                    task = (
                        (function, batch)
                        if batch.data is not None
                        else (_read_and_run, function, file, batch)
                    )
                    key = f"{BLOCK_KEY}-{uuid.uuid4().hex}"
                    in_flight.append(client.submit(*task, key=key, pure=False))
                    if len(in_flight) > window:
                        yield in_flight.popleft().result()
                while in_flight:
                    yield in_flight.popleft().result()
            finally:
                client.cancel(list(in_flight))  # a batch failed, or the input's task ends


def _cluster_workers() -> dict[str, Any]:
    """The workers of the cluster this task runs on, as its scheduler describes them (their
    threads, ``nthreads``), asked once per input; none outside a worker (a local scheduler)."""
    from distributed import get_client, get_worker

    try:
        get_worker()
    except ValueError:
        return {}
    workers: dict[str, Any] = get_client().scheduler_info().get("workers", {})
    return workers


def tasks_at_most(size: int | None) -> int:
    """How many tasks an input of ``size`` bytes (``None``: not known) may keep busy at once: a
    file `patchcore.Stream` may cut into batches (`patchcore.streamed`) one per batch, any other
    one (its own task)."""
    if size is None or not streamed(size):
        return 1
    return -(-size // BATCH_BYTES)


def _read_and_run(
    function: Callable[[Batch], Result], file: OpenFile | None, batch: Batch
) -> Result:
    """A block task: read the batch from the file, then run ``function`` on it."""
    return function(_read_batch(file, batch))


def _read_batch(file: OpenFile | None, batch: Batch) -> Batch:
    """``batch`` with its bytes, read from ``file`` by its path; the file must still have the
    size and modification time it had when the input's task opened it (its device and inode
    are another machine's on a shared file system).

    Raises:
        OSError: The file cannot be read, or it is not what it was (it changed while read).
    """
    assert file is not None, "a batch without its bytes is a batch of an open file"
    fd = os.open(file.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        data = os.pread(fd, batch.size, batch.offset)
        while len(data) < batch.size and (
            more := os.pread(fd, batch.size - len(data), batch.offset + len(data))
        ):
            data += more
        status = os.fstat(fd)
    finally:
        os.close(fd)
    identity = file.identity
    if (status.st_size, status.st_mtime_ns) != (identity.size, identity.modified_ns):
        msg = "the file changed while toolpatch read it (its size or modification time)"
        raise OSError(msg)
    return replace(batch, data=data)


#: How long a scheduler has to answer ``--dask tcp://…``: the connection, its handshake and a
#: first request together.
CONNECT_SECONDS = 10.0


def connect(scheduler: str | None, *, workers: int, timeout: float = CONNECT_SECONDS) -> Any:
    """A ``dask.distributed`` client of the scheduler at ``scheduler`` (``tcp://host:port``,
    checked by `toolpatch.cli.cluster_address`), or, for ``None``, of a ``LocalCluster`` of
    ``workers`` worker processes started here. Close it when done (it closes a local cluster it
    started too).

    Raises:
        MissingExtra: ``distributed`` is not installed (the ``[dask]`` extra).
        OSError: No Dask scheduler answers at ``scheduler`` within ``timeout`` seconds.
    """
    try:
        from distributed import Client
    except ModuleNotFoundError as missing:
        raise MissingExtra(missing, extra="dask", part="--dask") from None
    if scheduler is None:
        # A LocalCluster the client owns (closed with it). One thread per worker process: the
        # engine is Python, so threads would share one interpreter lock.
        return Client(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            # on this machine only, on free ports (a fixed port may be taken: a warning)
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            # What the workers log is not the run's report: a task's error reaches the command
            # through its future, a restarted worker's task is retried, and a worker whose
            # heartbeat meets the scheduler already closing (as the cluster closes at the end of
            # every run) logs an error with a traceback that means nothing for the run.
            silence_logs=logging.CRITICAL,
            set_as_default=False,
        )
    _ask_identity(scheduler, timeout)
    try:
        return Client(scheduler, set_as_default=False, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        msg = f"no Dask scheduler answers at {scheduler}: {exc}"
        raise OSError(msg) from None


def _ask_identity(scheduler: str, timeout: float) -> None:
    """Ask what answers at ``scheduler``, all within ``timeout`` seconds. ``Client`` bounds the
    connection but not the handshake after it: a server of another protocol (an HTTP server)
    that accepts the connection and never answers in Dask's held it for ever.

    Raises:
        OSError: Nothing answers in time, or what answers is not a Dask scheduler.
    """
    import asyncio

    from distributed.comm import connect as connected
    from distributed.core import send_recv

    async def identity() -> Any:
        comm = await connected(scheduler, timeout=timeout)
        try:
            return await send_recv(comm, op="identity")
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except (OSError, asyncio.TimeoutError) as exc:
        why = str(exc) or f"no answer within {timeout:g} s"
        msg = f"no Dask scheduler answers at {scheduler}: {why}"
        raise OSError(msg) from None
    except Exception as exc:  # what a server of another protocol sends, read as Dask's
        msg = f"no Dask scheduler answers at {scheduler}: it answered {type(exc).__name__}"
        raise OSError(msg) from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        msg = f"what answers at {scheduler} is not a Dask scheduler (it is {kind or 'unknown'})"
        raise OSError(msg)
