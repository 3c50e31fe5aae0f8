"""The one runner: a run's settings (`cli.settings`) in, the exit code out. The inputs, each one
processed and reported, then the summary (``check``, ``fix``, ``strip``); or the one history
drawn (``show``).

The commands import it when they run, so that defining the command line (``--help``,
``--version``, the listings) loads none of it.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from typing import IO, TYPE_CHECKING, Any

import typer

import patchcore
from patchcore import MissingExtra

from .cluster_address import ClusterAddress
from .cluster_run import Task, cluster_outcomes, process_input
from .console import (
    NORMAL,
    SILENT,
    ColorMode,
    Printer,
    is_terminal,
    stderr_printer,
    wants_color,
)
from .exit_codes import ExitCode
from .input_errors import InputError
from .input_run import Mode, Outcome
from .inputs import Source
from .object_inputs import ObjectSource
from .open_files import OpenForWriting
from .options import OutputFormat
from .output_sinks import ReportFile
from .parallel import ProcessMapper, available_cores
from .plan import input_sources
from .progress import Progress, progress_wanted
from .provider_errors import render_provider_errors
from .settings import Command, Settings
from .shown_names import renamed, shown_name, shown_source
from .stores import database_hint, store_outcomes
from .summary_table import render_tables
from .targets import Target, ToFile, writes_stdout
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
from .visible import visible

if TYPE_CHECKING:
    from patchcore import Result

    from .machine_reports import Reporter


def _size(source: Source) -> int | None:
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
    """Carry out ``check``, ``fix`` or ``strip`` on every input, reporting each as it is done,
    then the summary; returns the exit code. Without ``--force``, a session log written to in
    the last ``live-session-minutes`` is live: its pending calls are reported, not answered.

    The text report names inputs as `cli.shown_names` does and, with ``--statistics``, counts
    the findings in tables instead of listing them; a machine report names them as given. A
    silent run writes no report at all, the product (repaired data, the diff) still. Store URLs
    among the paths (`cli.stores`) add one input per thread (only ``--thread``'s, when given).
    URLs among them (`cli.object_inputs`) add each object they name; with them, or with
    ``--dask``, ``fix``'s ``-o`` is a prefix each input is written under. ``--dask`` (an
    address, `toolpatch.integrations.dask.connect`) runs every input as a task on that cluster
    (`cli.cluster_run`)."""
    mode, verbosity, output_format = settings.mode, settings.verbosity, settings.output_format
    assert settings.plan is not None  # built by Settings.of for every command but show
    sources, stores, target = settings.plan.sources, settings.plan.stores, settings.plan.target
    words = STRIPPING if settings.command is Command.STRIP else FIXING
    printer = stderr_printer(settings.color)

    diff_printer = Printer(sys.stdout, styled=wants_color(settings.color, sys.stdout))
    stdout_product = mode is Mode.FIX_DIFF or (
        mode is Mode.FIX and any(writes_stdout(target, s) for s in sources)
    )
    outcomes = []
    with ExitStack() as stack:
        try:
            # ``-o`` is the report of a check, but the repaired data of a fix (`process`).
            reporter, report_to, report_file = (
                _report_streams(stack, output_format, target, color=settings.color)
                if mode is Mode.CHECK and verbosity > SILENT
                else (None, None, None)
            )
        except OSError as exc:
            failed = InputError(_named(target), f"cannot write the report: {exc.strerror}")
            printer.line(error_pieces(failed))
            return int(ExitCode.ERROR)
        except MissingExtra as exc:  # the html report without the html extra
            sys.stderr.write(f"toolpatch: error: {exc}\n")
            return int(ExitCode.ERROR)
        messages = reporter is not None and reporter.needs_messages
        # the text report of a check on stdout: its summary goes with it, as ruff's does
        summary_to = report_to if report_to is not None and report_file is None else printer
        sizes = [_size(source) for source in sources]
        show_bar = progress_wanted(
            printer,
            verbosity=verbosity,
            machine_report=reporter is not None,
            stdout_terminal_product=(stdout_product or summary_to is not printer)
            and is_terminal(sys.stdout),
        )
        total = None if None in sizes else sum(size or 0 for size in sizes)
        progress = stack.enter_context(Progress(printer, total_bytes=total, enabled=show_bar))
        # More processes than cores only compete for them (and -j100000 would fork the
        # machine to death): the cores bound the jobs, the batches bound them further.
        jobs = settings.jobs
        workers = min(jobs, available_cores()) if jobs is not None else available_cores()
        pool = ProcessMapper(workers) if workers > 1 and settings.dask is None else None
        if pool is not None:
            stack.callback(pool.close)  # after an error or Ctrl-C too
        started = time.time()
        writers = OpenForWriting()  # looked at once, when a file first needs it

        def reported(outcome: Outcome, name: str) -> None:
            """Print (and report) one input's outcome; ``name`` is what a machine report
            calls it."""
            if outcome.diff is not None:
                from .diff_view import print_diff  # fix --diff only

                print_diff(diff_printer, outcome.diff)
            render_outcome(
                outcome,
                mode,
                printer,
                verbosity=verbosity,
                report_to=report_to,
                show_findings=reporter is None and not settings.statistics,
                full=output_format is OutputFormat.FULL,
                words=words,
            )
            render_live_hint(
                outcome,
                mode,
                printer,
                verbosity=verbosity,
                minutes=settings.live_minutes,
                now=started,
                writers=writers,
            )
            if reporter is not None:
                reporter.add(renamed(outcome, name))
                outcome.data = outcome.plan = None  # kept for the reporter only
                if messages and outcome.result is not None:
                    outcome.result = outcome.result.without_messages()
            outcomes.append(outcome)

        def judged(source: Source) -> Callable[[Result], None]:
            """What says the judgement of fine-tuning data in ``source``, before it is
            written (docs/cli.md#fine-tuning-data)."""
            name = shown_source(source).name
            return partial(render_training_note, printer, name, verbosity=verbosity)

        chosen = [settings.options_for(source, now=started, writers=writers) for source in sources]
        if messages:  # the html report draws the messages around each finding
            chosen = [replace(options, finding_messages=True) for options in chosen]
        keep_bytes = reporter is not None and reporter.needs_bytes
        every_list = verbosity > NORMAL  # -v lists every message list
        done: Iterator[Outcome]
        if settings.dask is not None:
            client = _connected(settings.dask, inputs=len(sources))
            stack.callback(client.close)
            done = cluster_outcomes(
                client,
                [
                    Task(shown_source(s), options, target, size)
                    for s, options, size in zip(sources, chosen, sizes, strict=True)
                ],
                mode=mode,
                keep_bytes=keep_bytes,
                every_list=every_list,
                advance=lambda size, lists, findings: progress.advance(
                    bytes_read=size, records=lists, findings=findings
                ),
            )
        else:
            done = (
                process_input(
                    shown_source(source),
                    options=options,
                    mode=mode,
                    target=target,
                    pool=pool,
                    progress=lambda done, lists, findings: progress.advance(
                        bytes_read=done, records=lists, findings=findings
                    ),
                    keep_bytes=keep_bytes,
                    every_list=every_list,
                    judged=judged(source),
                )
                for source, options in zip(sources, chosen, strict=True)
            )
        for source, outcome in zip(sources, done, strict=True):
            if settings.dask is not None and outcome.result is not None:
                judged(source)(outcome.result)  # its worker has written: said as it comes back
            reported(database_hint(outcome), source.name)  # threads.sqlite: a store as a file
        for url in stores:
            options = settings.rules.options_for(url)
            if settings.live_minutes:  # a session store's own clock says whether it is live
                options = replace(options, live_since=started - settings.live_minutes * 60)
            if messages:
                options = replace(options, finding_messages=True)
            for outcome in store_outcomes(
                url,
                threads=settings.threads or [],
                mode=mode,
                options=options,
                answer_waiting=settings.force and bool(settings.threads),
            ):
                reported(outcome, outcome.source.name)
        summary = Summary(mode, outcomes, words)
        if reporter is not None:
            reporter.finish()
        elif settings.statistics:
            render_tables(summary, report_to or printer, verbosity=verbosity)
        elif verbosity >= NORMAL and output_format is not OutputFormat.FULL:
            # a training target is sent to a fine-tuning job, not to a provider's chat API
            defects = [f for f in summary.listed() if not patchcore.is_training_target(f)]
            render_provider_errors(defects, report_to or printer)
    if output_format is not OutputFormat.GITHUB:  # as ruff's: the annotations are the report
        if verbosity >= NORMAL and settings.config.path is not None:  # what chose the rules
            printer.text(f"Configuration: {shown_name(str(settings.config.path))}")
        render_summary(summary, summary_to, verbosity=verbosity)
    failures = [part.failure for part in (report_file, reporter) if part is not None]
    failure = next(filter(None, failures), None)
    if failure is not None:  # a full disk: said once
        reason = f"cannot write the report: {failure.strerror}"
        printer.line(error_pieces(InputError(_named(target), reason)))
        return int(ExitCode.ERROR)
    return int(
        summary.exit_code(
            exit_zero=settings.exit_zero, exit_non_zero_on_fix=settings.exit_non_zero_on_fix
        )
    )
