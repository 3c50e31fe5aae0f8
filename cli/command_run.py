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

Each outcome goes to the run's report as it comes (`RunReport`): the text report (stdout for
``check``, stderr for what ``fix`` and ``strip`` say, `cli.text_report`) or a machine reporter
(JSON, JSON Lines, GitHub, SARIF, HTML, `cli.machine_reports`), the diffs of ``fix --diff``,
the hints and notes, the progress bar, and at the end the summary and the exit code. Errors are
outcomes like any other (`Outcome.error`): the report says them where it says the rest.

Inputs are named as people think of them (`shown_name`): relative to the current folder, as
ruff shows paths. ruff makes every path absolute and then strips the current folder off it
(``ruff_linter::fs::relativize_path``): a file under the current folder reads relative however it
was named (``/home/ana/proj/h.json``, ``./h.json`` and ``sub/../h.json`` read ``h.json`` in
``/home/ana/proj``), and a file outside it reads absolute (``../h.json`` reads
``/home/ana/h.json``). The text report (`cli.text_report`), its errors and the diff headers
name inputs so; the machine reports keep the names as given.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple, Protocol

import msgspec
import typer
from msgspec import structs

import patchcore
from patchcore import MissingExtra, streamed

from .console import (
    NORMAL,
    SILENT,
    ColorMode,
    Printer,
    is_terminal,
    stderr_printer,
    visible,
    wants_color,
)
from .exit_codes import ExitCode
from .foreign_files import pass_over_foreign
from .input_errors import InputError
from .input_run import (
    BatchPool,
    Mode,
    Outcome,
    emit_stdout,
    framing_name,
    process,
    recorded_failure,
    unsaid,
)
from .inputs import OpenForWriting, Source, may_be_url
from .object_inputs import ObjectSource, is_object_url
from .options import OutputFormat
from .output_sinks import ReportFile, Target, ToFile, writes_stdout
from .parallel import ProcessMapper, available_cores
from .progress import Progress
from .provider_errors import render_provider_errors
from .settings import Command, Settings, input_sources
from .stores import database_hint, store_outcomes
from .summary_table import render_tables
from .text_report import (
    FIXING,
    STRIPPING,
    Summary,
    error_pieces,
    render_live_hint,
    render_outcome,
    render_summary,
    render_training_note,
)

if TYPE_CHECKING:
    from patchcore import Options, Result, StreamProgress

    from .cluster_address import ClusterAddress
    from .machine_reports import Reporter


def run(settings: Settings) -> int:
    """Carry out the run ``settings`` say; returns the exit code."""
    if settings.command is Command.SHOW:
        return _show(settings)
    return _run_inputs(settings)


def _show(settings: Settings) -> int:
    """``show``: the one history drawn as panels, nothing written (exit 0), or its error (2)."""
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
    stdin and objects, then each thread of its stores, `cli.settings`), reporting each as it is
    done (`RunReport`), then the summary; returns the exit code. The inputs run on the
    executor the settings choose (`executor_for`: here, over a pool of workers, or on a Dask
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
    (where nobody hears ``judged``: `Cluster` says the judgement once the outcome is back,
    after the worker wrote)."""
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
    try:
        from toolpatch.integrations.dask import connect, tasks_at_most

        busy = sum(tasks_at_most(task.size) for task in tasks)
        return connect(address.scheduler, workers=address.local_workers(busy))
    except (OSError, MissingExtra) as exc:
        sys.stderr.write(f"toolpatch: error: {visible(str(exc))}\n")
        raise typer.Exit(ExitCode.ERROR) from None


class RunReport:
    """Everything a run of ``check``, ``fix`` or ``strip`` says, in the order it says it."""

    def __init__(
        self,
        settings: Settings,
        target: Target,
        streams: tuple[Reporter | None, Printer | None, ReportFile | None],
        *,
        started: float,
    ) -> None:
        from .settings import Command

        self.settings, self.target, self.started = settings, target, started
        self.reporter, self.report_to, self.report_file = streams
        self.printer = stderr_printer(settings.color)
        self.diff_printer = Printer(sys.stdout, styled=wants_color(settings.color, sys.stdout))
        self.words = STRIPPING if settings.command is Command.STRIP else FIXING
        # the text report of a check on stdout: its summary goes with it, as ruff's does
        on_stdout = self.report_to is not None and self.report_file is None
        self.summary_to = self.report_to if on_stdout and self.report_to else self.printer
        self.writers = OpenForWriting()  # looked at once, when a file first needs it
        self.outcomes: list[Outcome] = []

    @classmethod
    def opened(cls, settings: Settings, stack: ExitStack, *, started: float) -> RunReport | None:
        """The report of a run, its ``-o`` file opened in ``stack``; ``None`` when the report
        cannot be written (said on stderr: the run ends with exit 2 before reading anything).
        ``-o`` is the report of a check, but the repaired data of a fix (`cli.input_run`)."""
        assert settings.plan is not None  # built by Settings.of for every command but show
        target = settings.plan.target
        try:
            streams = (
                _report_streams(stack, settings.output_format, target, color=settings.color)
                if settings.mode is Mode.CHECK and settings.verbosity > SILENT
                else (None, None, None)
            )
        except OSError as exc:
            failed = InputError(_named(target), f"cannot write the report: {exc.strerror}")
            stderr_printer(settings.color).line(error_pieces(failed))
            return None
        except MissingExtra as exc:  # the html report without the html extra
            sys.stderr.write(f"toolpatch: error: {exc}\n")
            return None
        return cls(settings, target, streams, started=started)

    @property
    def keeps_bytes(self) -> bool:
        """Whether the report needs each input's bytes and the plan of its fixes (SARIF)."""
        return self.reporter is not None and self.reporter.needs_bytes

    def options(self, options: Options) -> Options:
        """``options`` as the report needs them: the HTML report draws the messages around
        each finding."""
        needs = self.reporter is not None and self.reporter.needs_messages
        return replace(options, finding_messages=True) if needs else options

    def options_for(self, source: Source) -> Options:
        """The options of ``source`` (`Settings.options_for`), as the report needs them."""
        found = self.settings.options_for(source, now=self.started, writers=self.writers)
        return self.options(found)

    def store_options(self, url: str) -> Options:
        """The options of a store's threads: its rules, and a session store's own clock
        deciding whether a thread is live (`patchcore.Options.live_since`)."""
        options = self.settings.rules.options_for(url)
        minutes = self.settings.live_minutes
        if minutes:
            options = replace(options, live_since=self.started - minutes * 60)
        return self.options(options)

    def progress(self, sources: Sequence[Source], stack: ExitStack) -> Advance:
        """What hears of the work done (bytes read, message lists, findings): the progress bar
        over ``sources``, entered in ``stack``, when the run shows one (`_shows_bar`); else
        nobody."""
        if not self._shows_bar(sources):
            return _unheard
        sizes = [size_of(source) for source in sources]
        total = None if None in sizes else sum(size or 0 for size in sizes)
        bar = stack.enter_context(Progress(self.printer, total_bytes=total))
        return lambda size, lists, findings: bar.advance(
            bytes_read=size, records=lists, findings=findings
        )

    def _shows_bar(self, sources: Sequence[Source]) -> bool:
        """Whether the run shows a progress bar: for a person watching a terminal's stderr, so
        only for a text report (not quiet) that does not share that terminal with stdout's
        product (docs/cli.md#output)."""
        if self.settings.verbosity < NORMAL or self.reporter is not None:
            return False
        mode = self.settings.mode
        stdout_product = mode is Mode.FIX_DIFF or (
            mode is Mode.FIX and any(writes_stdout(self.target, s) for s in sources)
        )
        if (stdout_product or self.summary_to is not self.printer) and is_terminal(sys.stdout):
            return False
        return is_terminal(self.printer.stream)

    def judged(self, source: Source) -> Callable[[Result], None]:
        """What says the judgement of fine-tuning data in ``source`` (named as shown), before
        it is written (docs/cli.md#fine-tuning-data)."""
        verbosity = self.settings.verbosity
        return partial(render_training_note, self.printer, source.name, verbosity=verbosity)

    def add(self, outcome: Outcome, name: str) -> None:
        """Say (and report) one input's outcome; ``name`` is what a machine report calls it."""
        settings, reporter = self.settings, self.reporter
        if outcome.diff is not None:
            from .diff_view import print_diff  # fix --diff only

            print_diff(self.diff_printer, outcome.diff)
        mode, printer, verbosity = settings.mode, self.printer, settings.verbosity
        show_findings = reporter is None and not settings.statistics
        full = settings.output_format is OutputFormat.FULL
        render_outcome(
            outcome,
            mode,
            printer,
            verbosity=verbosity,
            report_to=self.report_to,
            show_findings=show_findings,
            full=full,
            words=self.words,
        )
        render_live_hint(
            outcome,
            mode,
            printer,
            verbosity=verbosity,
            minutes=settings.live_minutes,
            now=self.started,
            writers=self.writers,
        )
        if reporter is not None:
            reporter.add(renamed(outcome, name))
            outcome.data = outcome.plan = None  # kept for the reporter only
            if reporter.needs_messages and outcome.result is not None:
                outcome.result = outcome.result.without_messages()
        self.outcomes.append(outcome)

    def close(self) -> Summary:
        """End the report proper, before its ``-o`` file is closed: the machine report's end,
        or the text report's tables or provider errors."""
        settings, reporter = self.settings, self.reporter
        summary = Summary(settings.mode, self.outcomes, self.words)
        if reporter is not None:
            reporter.finish()
        elif settings.statistics:
            render_tables(summary, self.report_to or self.printer, verbosity=settings.verbosity)
        elif settings.verbosity >= NORMAL and settings.output_format is not OutputFormat.FULL:
            # a training target is sent to a fine-tuning job, not to a provider's chat API
            defects = [f for f in summary.listed() if not patchcore.is_training_target(f)]
            if defects:  # nothing left to say of a run that left nothing
                render_provider_errors(defects, self.report_to or self.printer)
        return summary

    def finish(self, summary: Summary) -> int:
        """The closing lines once the report is closed, and the run's exit code."""
        settings, printer = self.settings, self.printer
        if settings.output_format is not OutputFormat.GITHUB:  # ruff's: annotations only
            if settings.verbosity >= NORMAL and settings.config.path is not None:
                printer.text(f"Configuration: {shown_name(str(settings.config.path))}")
            render_summary(summary, self.summary_to, verbosity=settings.verbosity)
        parts = (self.report_file, self.reporter)
        failure = next(filter(None, [part.failure for part in parts if part is not None]), None)
        if failure is not None:  # a full disk: said once
            reason = f"cannot write the report: {failure.strerror}"
            printer.line(error_pieces(InputError(_named(self.target), reason)))
            return int(ExitCode.ERROR)
        return int(
            summary.exit_code(
                exit_zero=settings.exit_zero, exit_non_zero_on_fix=settings.exit_non_zero_on_fix
            )
        )


def _unheard(size: int, lists: int, findings: int) -> None:
    """The `Advance` of a run without a progress bar: nobody counts the work done."""


def size_of(source: Source) -> int | None:
    """The input's size in bytes, when it is a regular file (not stdin, a pipe, a device) and
    not compressed (whose decompressed size is known only at its end); an object's as listed."""
    if source.compression is not None:
        return None
    if isinstance(source, ObjectSource):
        return source.size
    try:
        status = source.path.stat() if source.path is not None else None
    except OSError:
        return None
    return status.st_size if status is not None and stat.S_ISREG(status.st_mode) else None


def _report_streams(
    stack: ExitStack, output_format: OutputFormat, target: Target, *, color: ColorMode
) -> tuple[Reporter | None, Printer | None, ReportFile | None]:
    """Where a check's report goes: a machine reporter (stdout or ``-o FILE``, binary), or for
    the text formats a printer, of stdout unless ``-o FILE`` is given (ruff's: findings are
    the product of a check, ``check . > report.txt`` keeps them); and the ``-o`` file, whose
    failure to be written is said at the end (`ReportFile`)."""
    to_file = stack.enter_context(ReportFile(target.path)) if isinstance(target, ToFile) else None
    if output_format.for_people:
        if to_file is None:
            return None, Printer(sys.stdout, styled=wants_color(color, sys.stdout)), None
        text = stack.enter_context(io.TextIOWrapper(io.BufferedWriter(to_file), "utf-8"))
        return None, Printer(text, styled=False), to_file
    from .machine_reports import REPORTERS  # machine formats only: the text report needs none

    binary: IO[bytes] = (
        sys.stdout.buffer if to_file is None else stack.enter_context(io.BufferedWriter(to_file))
    )
    return REPORTERS[output_format](binary), None, to_file


def _named(target: Target) -> str:
    """What an error about writing the report calls where it went."""
    return str(target.path) if isinstance(target, ToFile) else "-"


def shown_name(name: str) -> str:
    """``name`` relative to the current folder when it lies inside it, else absolute; ``-``
    (standard input without ``--stdin-filename``), a URL (an object's name) and a name whose
    folder cannot be told (the current folder was removed) stay as they are."""
    if name == "-" or (may_be_url(name) and is_object_url(name)):
        return name
    try:
        cwd = os.getcwd()
        absolute = os.path.abspath(name)
        relative = os.path.relpath(absolute, cwd)
    except (OSError, ValueError):  # no current folder; another drive (Windows)
        return name
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute
    return relative


def shown_source(source: Source) -> Source:
    """``source`` named as people are shown it (`shown_name`)."""
    name = shown_name(source.name)
    return source if name == source.name else structs.replace(source, name=name)


def renamed(outcome: Outcome, name: str) -> Outcome:
    """``outcome`` with its input called ``name``, in its error too (the diff keeps its
    headers: only ``fix --diff`` makes one, and only the text report prints it)."""
    old = outcome.source.name
    if name == old:
        return outcome
    error = outcome.error
    if error is not None and error.file == old:
        error = structs.replace(error, file=name)
    return structs.replace(outcome, source=structs.replace(outcome.source, name=name), error=error)
