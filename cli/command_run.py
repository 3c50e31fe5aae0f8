"""The one runner: a run's settings (`cli.settings`) in, the exit code out. The inputs, each one
processed and reported, then the summary (``check``, ``fix``, ``strip``); or the one history
drawn (``show``).

The commands import it when they run, so that defining the command line (``--help``,
``--version``, the listings) loads none of it.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import ExitStack

import typer

from .console import NORMAL, Printer, stderr_printer, wants_color
from .executors import Task, Work, executor_for
from .exit_codes import ExitCode
from .input_run import Outcome
from .open_files import OpenForWriting
from .plan import input_sources
from .run_report import RunReport, size_of
from .settings import Command, Settings
from .shown_names import shown_source
from .stores import database_hint, store_outcomes
from .text_report import error_pieces


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
    executor the settings choose (`cli.executors`: here, over a pool of workers, or on a Dask
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
