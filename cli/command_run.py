"""The one runner: a run's settings (`cli.settings`) in, the exit code out. The inputs, each one
processed and reported, then the summary (``check``, ``fix``, ``strip``); or the one history
drawn (``show``).

How the inputs are carried out is one interface (`Executor`), three ways: here, one input
after another (`Local`); here, with a large input's batches spread over a pool of worker
processes (`Local` with a `ProcessMapper`, ``--jobs``); or each input as a task on a Dask
cluster (`Cluster`, ``--dask``). Each yields the inputs' outcomes in input order, as they are
done; the runner reports them and knows nothing of where they ran.

``--dask ADDRESS``: every input of a run is one task on a ``dask.distributed`` cluster
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

The commands import it when they run, so that defining the command line (``--help``,
``--version``, the listings) loads none of it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import msgspec
import typer
from msgspec import structs

from patchcore import streamed

from .console import NORMAL, Printer, stderr_printer, visible, wants_color
from .exit_codes import ExitCode
from .foreign_files import pass_over_foreign
from .input_errors import InputError
from .input_run import BatchPool, Mode, Outcome, emit_stdout, process, unsaid
from .inputs import OpenForWriting
from .output_sinks import Target, ToFile
from .parallel import ProcessMapper, available_cores
from .plan import input_sources
from .run_report import RunReport, shown_source, size_of
from .settings import Command, Settings
from .stores import database_hint, store_outcomes
from .text_report import error_pieces

if TYPE_CHECKING:
    from patchcore import Options, Result, StreamProgress

    from .cluster_address import ClusterAddress
    from .inputs import Source


def run(settings: Settings) -> int:
    """Carry out the run ``settings`` say; returns the exit code."""
    if settings.command is Command.SHOW:
        return _show(settings)
    return _run_inputs(settings)


def _show(settings: Settings) -> int:
    """``show``: the one history drawn as panels, nothing written (exit 0), or its error (2)."""
    from .input_run import framing_name, recorded_failure
    from .show import conversations, render

    (path,) = settings.paths or ["-"]
    sources = input_sources([path], stdin_filename=settings.stdin_filename, skip=False)
    if len(sources) != 1 or (os.path.isdir(path) and not sources[0].events):
        msg = "show takes one file (or - for stdin, or an event store), not a directory"
        raise typer.BadParameter(msg, param_hint="PATH")
    (source,) = sources
    printer = stderr_printer(settings.color)
    options = settings.options_for(source, now=time.time(), writers=OpenForWriting())
    outcome = Outcome(source)
    with recorded_failure(outcome):  # an allocation refused too: one line, never a traceback
        found_lists = conversations(
            source.read(options), name=framing_name(source), options=options
        )
    if outcome.error is not None:
        printer.line(error_pieces(outcome.error))
        return int(ExitCode.ERROR)
    out = Printer(sys.stdout, styled=wants_color(settings.color, sys.stdout))
    render(found_lists, out, name=source.name, full=settings.full)
    return int(ExitCode.OK)


def _run_inputs(settings: Settings) -> int:
    """Carry out ``check``, ``fix`` or ``strip`` on every input of the run's plan (its files,
    stdin and objects, then each thread of its stores, `cli.plan`), reporting each as it is
    done (`cli.run_report`), then the summary; returns the exit code. The inputs run on the
    executor the settings choose (`cli.command_run`: here, over a pool of workers, or on a Dask
    cluster); without ``--force``, a session log written to in the last
    ``live-session-minutes`` is live: its pending calls are reported, not answered."""
    plan, mode = settings.plan, settings.mode
    assert plan is not None  # built by Settings.of for every command but show
    with ExitStack() as stack:
        report = RunReport.opened(settings, stack, started=time.time())
        if report is None:
            return int(ExitCode.ERROR)
        advance = report.progress(plan.sources, stack)
        tasks = [
            Task(shown_source(s), report.options_for(s), plan.target, size_of(s))
            for s in plan.sources
        ]
        executor = executor_for(stack, jobs=settings.jobs, dask=settings.dask, tasks=tasks)
        work = Work(
            mode,
            keep_bytes=report.keeps_bytes,
            every_list=settings.verbosity > NORMAL,  # -v lists every message list
            advance=advance,
            judged=report.judged,
        )
        done = executor.outcomes(tasks, work)
        for source, outcome in zip(plan.sources, done, strict=True):
            if outcome.error is not None:  # threads.sqlite: a store named as a file
                outcome = database_hint(outcome)
            report.add(outcome, source.name)
        for url in plan.stores:
            for outcome in store_outcomes(
                url,
                threads=settings.threads or [],
                mode=mode,
                options=report.store_options(url),
                answer_waiting=settings.force and bool(settings.threads),
            ):
                report.add(outcome, outcome.source.name)
        summary = report.close()
    return report.finish(summary)


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


def process_input(
    source: Source,
    *,
    options: Options,
    mode: Mode,
    target: Target,
    keep_bytes: bool,
    every_list: bool = False,
    pool: BatchPool | None = None,
    progress: StreamProgress | None = None,
    judged: Callable[[Result], None] = unsaid,
) -> Outcome:
    """One input's outcome, as a run reports it: here, or in a task on a cluster's worker
    (where nobody hears ``judged``: `cli.command_run.Cluster` says the judgement once the outcome is
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
    if outcome.error is None:
        return outcome
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

    from toolpatch.integrations.dask import BlockTasks

    futures = [
        client.submit(
            process_input,
            _as_a_worker_finds_it(task.source),
            options=task.options,
            mode=mode,
            target=_target_as_a_worker_finds_it(task.target),
            keep_bytes=keep_bytes,
            every_list=every_list,
            pool=BlockTasks(inputs=len(tasks)),  # a streamed input's batches, where they pay
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
    """Each input a task on the cluster ``client`` is connected to (`cluster_outcomes`)."""

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
    stack: ExitStack, *, jobs: int | None, dask: ClusterAddress | None, tasks: Sequence[Task]
) -> Executor:
    """The executor of ``tasks``: on the cluster at ``dask``, else here, with a pool of at
    most ``jobs`` workers (every core by default) when there is more than one core to use and
    an input to stream (`_may_stream`). What it holds (the pool, the client) is closed with
    ``stack``, after an error or Ctrl-C too."""
    if dask is not None:
        client = _connected(dask, tasks=tasks)
        stack.callback(client.close)
        return Cluster(client)
    if not any(map(_may_stream, tasks)):  # every input is read whole: batches need no pool
        return Local(None)
    # More processes than cores only compete for them (and -j100000 would fork the machine
    # to death): the cores bound the jobs, the batches bound them further.
    workers = min(jobs, available_cores()) if jobs is not None else available_cores()
    pool = ProcessMapper(workers) if workers > 1 else None
    if pool is not None:
        stack.callback(pool.close)
    return Local(pool)


def _may_stream(task: Task) -> bool:
    """Whether the input may be processed batch by batch, which a pool spreads
    (`patchcore.streamed`: it is larger than what is read whole, or its size is known only once
    it is read, as standard input's, a pipe's or a compressed file's)."""
    return streamed(task.size)


def _connected(address: ClusterAddress, *, tasks: Sequence[Task]) -> Any:
    """A client of the cluster at ``address`` (a local one of at most a worker per core and
    per task the run's inputs may keep busy at once: a large file's batches each count); one
    that cannot be had within the connection's timeout ends the run (exit 2)."""
    from patchcore import MissingExtra

    try:
        from toolpatch.integrations.dask import connect, tasks_at_most

        busy = sum(tasks_at_most(task.size) for task in tasks)
        return connect(address.scheduler, workers=address.local_workers(busy))
    except (OSError, MissingExtra) as exc:
        sys.stderr.write(f"toolpatch: error: {visible(str(exc))}\n")
        raise typer.Exit(ExitCode.ERROR) from None
