"""A run's report, as its outcomes come (`RunReport`): the text report (stdout for ``check``,
stderr for what ``fix`` and ``strip`` say, `cli.text_report`) or a machine reporter (JSON,
JSON Lines, GitHub, SARIF, HTML, `cli.machine_reports`), the diffs of ``fix --diff``, the
hints and notes, the progress bar, and at the end the summary and the exit code. Errors are
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
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from typing import IO, TYPE_CHECKING

from msgspec import structs

import patchcore
from patchcore import MissingExtra

from .console import NORMAL, SILENT, ColorMode, Printer, is_terminal, stderr_printer, wants_color
from .exit_codes import ExitCode
from .input_errors import InputError
from .input_run import Mode, Outcome
from .inputs import OpenForWriting, Source, may_be_url
from .object_inputs import ObjectSource, is_object_url
from .options import OutputFormat
from .output_sinks import ReportFile, Target, ToFile, writes_stdout
from .progress import Progress
from .provider_errors import render_provider_errors
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
    from patchcore import Options, Result

    from .command_run import Advance
    from .machine_reports import Reporter
    from .settings import Settings


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
