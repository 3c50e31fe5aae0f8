"""How a run's inputs are carried out: one interface (`Executor`), three ways: here, one input
after another (`Local`); here, with a large input's batches spread over a pool of worker
processes (`Local` with a `ProcessMapper`, ``--jobs``); or each input as a task on a Dask
cluster (`Cluster`, ``--dask``). Each yields the inputs' outcomes in input order, as they are
done; the runner (`cli.command_run`) reports them and knows nothing of where they ran.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import typer

from .cluster_run import Task, cluster_outcomes, process_input
from .exit_codes import ExitCode
from .parallel import ProcessMapper, available_cores
from .visible import visible

if TYPE_CHECKING:
    from patchcore import Result

    from .cluster_address import ClusterAddress
    from .input_run import Mode, Outcome
    from .inputs import Source

#: What hears of the work done: bytes read, message lists and findings.
Advance = Callable[[int, int, int], None]
#: What says the judgement of fine-tuning data in an input, once its result is known.
Judged = Callable[["Source"], Callable[["Result"], None]]


class Work(NamedTuple):
    """What every task of a run does, and whom it tells: its mode, whether the report needs
    each input's bytes (SARIF) or every message list (``-v``), what hears of the work done, and
    what says the judgement of fine-tuning data."""

    mode: Mode
    keep_bytes: bool
    every_list: bool
    advance: Advance
    judged: Judged


class Executor(Protocol):
    """Carries out tasks and yields their outcomes in the order of the tasks."""

    def outcomes(self, tasks: Sequence[Task], work: Work) -> Iterator[Outcome]: ...


class Local:
    """Each input in this process, in turn; a large input's batches over ``pool``'s workers
    when there is one."""

    def __init__(self, pool: ProcessMapper | None) -> None:
        self.pool = pool

    def outcomes(self, tasks: Sequence[Task], work: Work) -> Iterator[Outcome]:
        for task in tasks:
            yield process_input(
                task.source,
                options=task.options,
                mode=work.mode,
                target=task.target,
                pool=self.pool,
                progress=work.advance,
                keep_bytes=work.keep_bytes,
                every_list=work.every_list,
                judged=work.judged(task.source),
            )


class Cluster:
    """Each input a task on the cluster ``client`` is connected to (`cli.cluster_run`)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def outcomes(self, tasks: Sequence[Task], work: Work) -> Iterator[Outcome]:
        done = cluster_outcomes(
            self.client,
            tasks,
            mode=work.mode,
            keep_bytes=work.keep_bytes,
            every_list=work.every_list,
            advance=work.advance,
        )
        for task, outcome in zip(tasks, done, strict=True):
            if outcome.result is not None:
                work.judged(task.source)(outcome.result)  # its worker has written: said as it comes
            yield outcome


def executor_for(
    stack: ExitStack, *, jobs: int | None, dask: ClusterAddress | None, inputs: int
) -> Executor:
    """The executor of a run: on the cluster at ``dask``, else here, with a pool of at most
    ``jobs`` workers (every core by default) when there is more than one core to use. What it
    holds (the pool, the client) is closed with ``stack``, after an error or Ctrl-C too."""
    if dask is not None:
        client = _connected(dask, inputs=inputs)
        stack.callback(client.close)
        return Cluster(client)
    # More processes than cores only compete for them (and -j100000 would fork the machine
    # to death): the cores bound the jobs, the batches bound them further.
    workers = min(jobs, available_cores()) if jobs is not None else available_cores()
    pool = ProcessMapper(workers) if workers > 1 else None
    if pool is not None:
        stack.callback(pool.close)
    return Local(pool)


def _connected(address: ClusterAddress, *, inputs: int) -> Any:
    """A client of the cluster at ``address`` (a local one of at most a worker per core and
    per input); one that cannot be had within the connection's timeout ends the run (exit 2)."""
    from patchcore import MissingExtra

    try:
        from toolpatch.integrations.dask import connect

        return connect(address.scheduler, workers=address.local_workers(inputs))
    except (OSError, MissingExtra) as exc:
        sys.stderr.write(f"toolpatch: error: {visible(str(exc))}\n")
        raise typer.Exit(ExitCode.ERROR) from None
