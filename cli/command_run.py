"""Carry out a run of ``check`` or ``fix``: configuration and rule settings from the command line,
the inputs, each one processed and reported, then the summary and the exit code.

The commands import it when they run, so that defining the command line (``--help``,
``--version``, the listings) loads none of it.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

import typer

import patchcore

from . import config_files as configuration
from .config_files import LIVE_SESSION_MINUTES
from .console import NORMAL, SILENT, ColorMode, Printer, is_terminal, stderr_printer, wants_color
from .exit_codes import ExitCode
from .foreign_files import pass_over_foreign
from .input_errors import InputError
from .input_run import Mode, Outcome, emit_stdout, process
from .inputs import DEFAULT_EXCLUDE, Source, WalkSettings, given_paths, resolve
from .output_format import OUTPUT_FORMAT_VARIABLE, OutputFormat
from .parallel import ProcessMapper, available_cores
from .progress import Progress, progress_wanted
from .provider_errors import render_provider_errors
from .rule_settings import RuleSettings
from .shown_names import renamed, shown_source
from .stores import database_hint, split_paths, store_outcomes
from .summary_table import render_tables
from .text_report import (
    FIXING,
    STRIPPING,
    Summary,
    error_pieces,
    render_live_hint,
    render_outcome,
    render_summary,
)
from .visible import visible

if TYPE_CHECKING:
    from patchcore import Options

    from .machine_reports import Reporter


def _split(values: list[str] | None) -> list[str] | None:
    """``--select A,B --select C`` → ``["A", "B", "C"]``."""
    if values is None:
        return None
    return [part for value in values for part in value.split(",") if part.strip()]


def rule_settings(
    config: configuration.Config,
    select: list[str] | None,
    ignore: list[str] | None,
    dialect: str | None,
    *,
    unsafe_fixes: bool | None = None,
    keep_invalid_lines: bool | None = None,
    repair: str | None = None,
    strip: bool = False,
) -> RuleSettings:
    """Command line over configuration; bad command-line values are usage errors. ``strip``:
    the run finds the results toolpatch wrote (``toolpatch strip``) instead."""
    rules = RuleSettings.merge(
        config,
        select=_split(select),
        ignore=_split(ignore),
        dialect=dialect,
        unsafe_fixes=unsafe_fixes,
        keep_invalid_lines=keep_invalid_lines,
        repair=repair,
        strip=strip,
    )
    try:
        rules.options_for()
    except patchcore.UnknownDialectError as exc:
        raise typer.BadParameter(exc.reason, param_hint="--dialect") from None
    except patchcore.UnknownRepairError as exc:
        raise typer.BadParameter(
            exc.reason.removeprefix("repair: "), param_hint="--repair"
        ) from None
    except patchcore.UnknownRuleError as exc:
        raise typer.BadParameter(exc.reason, param_hint="--select/--ignore") from None
    return rules


def load_configuration(
    configs: list[str] | None,
    *,
    isolated: bool,
    paths: list[str] | None,
    stdin_filename: str | None,
) -> configuration.Config:
    """The run's configuration; one that cannot be used ends the run with exit code 2, and so
    does a current folder that no longer exists (removed under the shell): relative names,
    configuration discovery and the names shown all start from it."""
    try:
        os.getcwd()
    except FileNotFoundError:
        sys.stderr.write("toolpatch: error: the current folder no longer exists\n")
        raise typer.Exit(ExitCode.ERROR) from None
    try:
        return configuration.resolve(
            configs or [],
            isolated=isolated,
            paths=given_paths(paths or []),
            stdin_filename=stdin_filename,
        )
    except configuration.ConfigError as exc:
        sys.stderr.write(f"toolpatch: error: {visible(str(exc))}\n")  # it quotes the keys
        raise typer.Exit(ExitCode.ERROR) from None


def walk_settings(
    config: configuration.Config,
    *,
    respect_gitignore: bool | None = None,
    force_exclude: bool | None = None,
) -> WalkSettings:
    """What a run passes over: the command line's flags over the configuration's keys."""
    exclude = DEFAULT_EXCLUDE if config.exclude is None else config.exclude
    return WalkSettings(
        exclude=(*exclude, *config.extend_exclude),
        root=config.root,
        respect_gitignore=(
            respect_gitignore
            if respect_gitignore is not None
            else config.respect_gitignore is not False
        ),
        force_exclude=force_exclude if force_exclude is not None else bool(config.force_exclude),
    )


def input_sources(
    paths: list[str] | None,
    *,
    stdin_filename: str | None,
    skip: bool,
    walk: WalkSettings | None = None,
) -> list[Source]:
    """The inputs; with ``skip``, named files without a history are skipped, not errors."""
    sources = resolve(paths or [], stdin_filename=stdin_filename, walk=walk or WalkSettings())
    return [replace(source, explicit=False) for source in sources] if skip else sources


def _size(source: Source) -> int | None:
    """The input's size in bytes, when it is a regular file (not stdin, a pipe, a device) and
    not compressed (whose decompressed size is known only at its end)."""
    if source.compression is not None:
        return None
    try:
        status = source.path.stat() if source.path is not None else None
    except OSError:
        return None
    return status.st_size if status is not None and stat.S_ISREG(status.st_mode) else None


def live_minutes(config: configuration.Config, *, force: bool) -> float:
    """How recently a session log may have been written to and still be taken for a running
    agent's: ``live-session-minutes`` (`LIVE_SESSION_MINUTES` when not set); 0 with ``force``."""
    if force:
        return 0
    configured = config.live_session_minutes
    return LIVE_SESSION_MINUTES if configured is None else configured


def live_options(
    source: Source, options: Options, *, config: configuration.Config, force: bool, now: float
) -> Options:
    """``options`` for ``source``, marked live when it may be the log of an agent session that
    is still running: a regular file written to less than ``live-session-minutes`` ago (stdin
    has no time, nor does a compressed file, which no agent appends to: never; 0 minutes or
    ``force``: never). Only the agent-session layouts read it
    (`patchcore.Options.live`); ``check``, ``fix`` and ``show`` decide it here alike."""
    minutes = live_minutes(config, force=force)
    if not minutes or source.path is None or source.compression is not None:  # an archive
        return options
    try:
        status = source.path.stat()
    except OSError:
        return options
    live = stat.S_ISREG(status.st_mode) and now - status.st_mtime < minutes * 60
    return replace(options, live=True) if live else options


def text_format(given: str | None, config: configuration.Config) -> OutputFormat:
    """The text report's form for ``fix`` and ``check --fix``: the first of ``given``,
    ``TOOLPATCH_OUTPUT_FORMAT`` and the configured ``output-format`` that names one (``concise``,
    ``full``, ``text``), else ``concise``; a machine format there is ``check``'s, passed over."""
    for value in (given, os.environ.get(OUTPUT_FORMAT_VARIABLE), config.output_format):
        try:
            chosen = OutputFormat(value) if value is not None else None
        except ValueError:
            continue
        if chosen is not None and chosen.for_people:
            return chosen
    return OutputFormat.CONCISE


def _report_streams(
    stack: ExitStack, output_format: OutputFormat, output: Path | None
) -> tuple[Reporter | None, Printer | None]:
    """Where a check's report goes: a machine reporter (stdout or ``-o FILE``, binary), or for
    the text formats a plain printer when ``-o`` is given."""
    to_file = output if output is not None and str(output) != "-" else None
    if output_format.for_people:
        if output is None:
            return None, None
        text: IO[str] = sys.stdout if to_file is None else stack.enter_context(to_file.open("w"))
        return None, Printer(text, styled=False)
    from .machine_reports import REPORTERS  # machine formats only: the text report needs none

    binary: IO[bytes] = (
        sys.stdout.buffer if to_file is None else stack.enter_context(to_file.open("wb"))
    )
    return REPORTERS[output_format](binary), None


def run_inputs(
    mode: Mode,
    paths: list[str] | None,
    *,
    rules: RuleSettings,
    config: configuration.Config,
    output: Path | None,
    verbosity: int,
    stdin_filename: str | None,
    color: ColorMode,
    skip_no_history: bool,
    output_format: OutputFormat = OutputFormat.CONCISE,
    statistics: bool = False,
    exit_zero: bool = False,
    exit_non_zero_on_fix: bool = False,
    jobs: int | None = None,
    force: bool = False,
    walk: WalkSettings | None = None,
    threads: list[str] | None = None,
) -> int:
    """Carry out ``mode`` on every input, reporting each as it is done, then the summary;
    returns the exit code. Without ``force``, a session log written to in the last
    ``live-session-minutes`` is live: its pending calls are reported, not answered. ``walk``
    says what directory walks (and, with its ``force_exclude``, named paths) pass over.

    The text report names inputs as `cli.shown_names` does and, with ``statistics``, counts the
    findings in tables instead of listing them; a machine report names them as given. A silent
    run (``verbosity`` `SILENT`) writes no report at all, the product (repaired data, the diff)
    still. Store URLs among ``paths`` (`cli.stores`) add one input per thread (only
    ``threads``, when given)."""
    printer = stderr_printer(color)
    paths, stores = split_paths(paths)
    sources = (
        input_sources(paths, stdin_filename=stdin_filename, skip=skip_no_history, walk=walk)
        if paths or not stores
        else []
    )
    if threads and not stores:
        msg = "names threads of a store: give a langgraph+ or agents+ URL"
        raise typer.BadParameter(msg, param_hint="--thread")
    if rules.strip and stores:
        msg = (
            "strip reads files; a store's repair is undone by going back to the checkpoint "
            "or item before it (docs/stores.md#rolling-back)"
        )
        raise typer.BadParameter(msg, param_hint="PATH")
    words = STRIPPING if rules.strip else FIXING
    if mode is Mode.FIX and output is not None and stores:
        msg = "a store is repaired in place, not written to -o"
        raise typer.BadParameter(msg, param_hint="--output")
    if mode is Mode.FIX and output is not None and len(sources) != 1:
        msg = f"needs exactly one input, got {len(sources)}"
        raise typer.BadParameter(msg, param_hint="--output")
    if verbosity > 1 and config.path is not None:
        printer.text(f"Using configuration {config.path}")

    diff_printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    stdout_product = mode is Mode.FIX_DIFF or (
        mode is Mode.FIX and (str(output) == "-" or any(s.is_stdin for s in sources))
    )
    outcomes = []
    with ExitStack() as stack:
        try:
            # ``-o`` is the report of a check, but the repaired data of a fix (`process`).
            reporter, report_to = (
                _report_streams(stack, output_format, output)
                if mode is Mode.CHECK and verbosity > SILENT
                else (None, None)
            )
        except OSError as exc:
            failed = InputError(str(output), f"cannot write the report: {exc.strerror}")
            printer.line(error_pieces(failed))
            return int(ExitCode.ERROR)
        sizes = [_size(source) for source in sources]
        show_bar = progress_wanted(
            printer,
            verbosity=verbosity,
            machine_report=reporter is not None,
            stdout_terminal_product=stdout_product and is_terminal(sys.stdout),
        )
        total = None if None in sizes else sum(size or 0 for size in sizes)
        progress = stack.enter_context(Progress(printer, total_bytes=total, enabled=show_bar))
        workers = jobs if jobs is not None else available_cores()
        pool = ProcessMapper(workers) if workers > 1 else None
        if pool is not None:
            stack.callback(pool.close)  # after an error or Ctrl-C too
        started = time.time()

        def reported(outcome: Outcome, name: str, *, live: bool) -> None:
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
                show_findings=reporter is None and not statistics,
                full=output_format is OutputFormat.FULL,
                words=words,
            )
            if live:
                minutes = live_minutes(config, force=force)
                render_live_hint(outcome, printer, verbosity=verbosity, minutes=minutes)
            if reporter is not None:
                reporter.add(renamed(outcome, name))
                outcome.data = outcome.plan = None  # kept for the reporter only
            outcomes.append(outcome)

        for source in sources:
            options = live_options(
                source, rules.options_for(source.name), config=config, force=force, now=started
            )
            outcome = process(
                shown_source(source),
                options=options,
                mode=mode,
                output=output if mode is Mode.FIX else None,
                emit=emit_stdout,
                pool=pool,
                progress=lambda done, lists, findings: progress.advance(
                    bytes_read=done, records=lists, findings=findings
                ),
                keep_bytes=reporter is not None and reporter.needs_bytes,
            )
            outcome = pass_over_foreign(outcome)  # tsconfig.json & co: not JSON, no history
            outcome = database_hint(outcome)  # threads.sqlite: a store named as a file
            # strip is never held back by a live session (docs/cli.md#live-sessions): no hint
            reported(outcome, source.name, live=options.live and not options.strip)
        for url in stores:
            for outcome in store_outcomes(
                url,
                threads=threads or [],
                mode=mode,
                options=rules.options_for(url),
                answer_waiting=force and bool(threads),
            ):
                reported(outcome, outcome.source.name, live=False)
        summary = Summary(mode, outcomes, words)
        if reporter is not None:
            reporter.finish()
        elif statistics:
            render_tables(summary, report_to or printer, verbosity=verbosity)
        elif verbosity >= NORMAL and output_format is not OutputFormat.FULL:
            render_provider_errors(summary.listed(), report_to or printer)
    if output_format is not OutputFormat.GITHUB:  # as ruff's: the annotations are the report
        render_summary(summary, printer, verbosity=verbosity)
    return int(summary.exit_code(exit_zero=exit_zero, exit_non_zero_on_fix=exit_non_zero_on_fix))
