"""``--dask ADDRESS``: every input of a run is one task on a ``dask.distributed`` cluster
(docs/large-corpora.md#on-a-cluster-from-the-command-line).

A task runs on its worker exactly what a local run does for the input (`process_input`: read
it, check or repair it, write its repair, record its outcome), and its `Outcome` comes back to
this process, which reports the outcomes in input order as they arrive and moves the progress
bar as the cluster finishes tasks. An input's repair is written by its own task, only whole
and only once complete (`cli.object_inputs` for objects, an atomic rename for files); a task
whose worker dies is run again by Dask on another worker (up to the scheduler's
``allowed-failures``), and since nothing of a killed task was written, the retry starts from
the input as it was. An input whose tasks kill every worker they run on is that input's error.

Workers read the inputs themselves: objects through fsspec, with the credentials of their own
environment, and files by their paths (so on a cluster of several machines, files must be on a
file system every worker sees).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import structs

from .foreign_files import pass_over_foreign
from .input_errors import InputError
from .input_run import Mode, Outcome, emit_stdout, process, unsaid
from .targets import Target, ToFile

if TYPE_CHECKING:
    from patchcore import Options, Result, StreamProgress

    from .inputs import Source
    from .parallel import ProcessMapper


def process_input(
    source: Source,
    *,
    options: Options,
    mode: Mode,
    target: Target,
    keep_bytes: bool,
    every_list: bool = False,
    pool: ProcessMapper | None = None,
    progress: StreamProgress | None = None,
    judged: Callable[[Result], None] = unsaid,
) -> Outcome:
    """One input's outcome, as a run reports it: here, or in a task on a cluster's worker
    (where nobody hears ``judged``: `cli.executors.Cluster` says the judgement once the outcome is
    back, after the worker wrote)."""
    outcome = process(
        source,
        options=options,
        mode=mode,
        target=target,
        emit=emit_stdout,
        pool=pool,
        progress=progress,
        keep_bytes=keep_bytes,
        every_list=every_list,
        judged=judged,
    )
    return pass_over_foreign(outcome)  # tsconfig.json & co: not JSON, no history


class Task(msgspec.Struct, frozen=True):
    """One input to run on the cluster: the source (named as the report shows it), its
    options, where ``fix`` writes it, and its size for the progress bar."""

    source: Source
    options: Options
    target: Target
    size: int | None


def _as_a_worker_finds_it(source: Source) -> Source:
    """``source`` with the absolute path of its file (a worker's working folder is not this
    process's); its name, what the reports show, stays."""
    if source.path is None or source.path.is_absolute():
        return source
    return structs.replace(source, path=Path(os.path.abspath(source.path)))


def _target_as_a_worker_finds_it(target: Target) -> Target:
    """``target`` with the absolute path of its file, as `_as_a_worker_finds_it`."""
    if isinstance(target, ToFile):
        return ToFile(Path(os.path.abspath(target.path)))
    return target


def cluster_outcomes(
    client: Any,
    tasks: Sequence[Task],
    *,
    mode: Mode,
    keep_bytes: bool,
    every_list: bool,
    advance: Callable[[int, int, int], None],
) -> Iterator[Outcome]:
    """The outcome of every task, in the order of ``tasks``, each yielded as soon as it and
    every one before it are done; ``advance`` hears of each task done (its bytes, message
    lists and findings) as it finishes, whatever its place."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    futures = [
        client.submit(
            process_input,
            _as_a_worker_finds_it(task.source),
            options=task.options,
            mode=mode,
            target=_target_as_a_worker_finds_it(task.target),
            keep_bytes=keep_bytes,
            every_list=every_list,
            pure=False,  # a run of its own: a key of its own, never a result kept from before
        )
        for task in tasks
    ]
    place = {future.key: number for number, future in enumerate(futures)}
    done: dict[int, Outcome] = {}
    upcoming = 0
    try:
        with client.as_current():  # as_completed asks for the current client
            finished = as_completed(futures)
        for future in finished:
            number = place[future.key]
            task = tasks[number]
            try:
                outcome: Outcome = future.result()
            except KilledWorker as exc:
                why = f"its task ended every worker it ran on ({exc}); nothing was written"
                outcome = Outcome(task.source, error=InputError(task.source.name, why))
            result = outcome.result
            advance(
                task.size or 0,
                len(result.conversations) if result is not None else 0,
                len(result.findings) if result is not None else 0,
            )
            done[number] = outcome
            while upcoming in done:
                yield done.pop(upcoming)
                upcoming += 1
    finally:
        client.cancel([f for f in futures if not f.done()])
