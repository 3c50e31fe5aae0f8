"""The human report: one line per finding or error, a closing summary, and the exit code.

Concise (the default, ruff's ``concise``): ``path:line:col: CODE [*] message (fix: ORIGIN)
[/pointer]``, each rule's provider errors said once after the findings (`cli.provider_errors`).
Full (``--output-format full``): the dialect beside the pointer and the provider's error under
each finding. ``(fix: recovered)`` or ``(fix: synthesized)`` says where the result a fix writes
comes from (`patchcore.Origin`); a fix that writes none says nothing. How much is said follows
the verbosity (`cli.console.SILENT` ... `VERBOSE`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

import msgspec

import patchcore

from .console import NORMAL, SILENT, Pieces, Printer
from .exit_codes import ExitCode
from .file_hints import kept_message, training_note
from .input_errors import InputError
from .input_run import EXCLUDED, Mode, Outcome
from .stores import is_store_url

if TYPE_CHECKING:
    from patchcore import Finding, Result

    from .inputs import OpenForWriting, Source


def plural(count: int, noun: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def fixability(finding: Finding) -> str:
    """``safe``, ``unsafe`` or ``none``: what ``fix`` can do about a finding."""
    if finding.fix is None:
        return "none"
    return finding.fix.applicability.value


def origin_note(finding: Finding) -> str:
    """`` (fix: recovered)`` or `` (fix: synthesized)``: where the result the finding's fix
    writes comes from; ``""`` when it has no fix, or one that writes no result."""
    if finding.fix is None or finding.fix.origin is None:
        return ""
    return f" (fix: {finding.fix.origin.value})"


def origin_counts(findings: Iterable[Finding]) -> str:
    """``2 recovered, 1 synthesized``: how many of the fixes of ``findings`` write a result the
    data recorded, and how many one made up (`patchcore.Origin` order); ``""`` for none."""
    counts = Counter(
        f.fix.origin for f in findings if f.fix is not None and f.fix.origin is not None
    )
    return ", ".join(f"{counts[o]} {o.value}" for o in patchcore.Origin if counts[o])


#: The marks a finding line carries: ``[*]`` fixed by ``toolpatch fix``, ``[~]`` only with
#: ``--unsafe-fixes`` (it deletes or moves content); no mark: not fixable.
MARKS = {"safe": " [*]", "unsafe": " [~]", "none": ""}


def finding_pieces(
    name: str, finding: Finding, *, mark_fixable: bool, full: bool = False
) -> Pieces:
    """``path:line:col: TP001 [*] message [/pointer]``, ruff style; ``full``:
    ``[dialect /pointer]``.

    The line and column are the calling message's (an editor jumps there); the pointer is the
    call's own place inside it, what finds it in a long one-line record and what ``jq`` takes.
    """
    # a store's thread has no lines: its findings are located by their pointer alone
    line = "" if finding.line is None else f"{finding.line}:{finding.column or 1}:"
    location = f"{name}:{line}"
    pieces: list[tuple[str, str]] = [(location, "bold"), (" ", ""), (finding.code, "bold red")]
    mark = MARKS[fixability(finding)] if mark_fixable else ""
    if mark:
        pieces.append((mark, "cyan"))
    where = patchcore.format_pointer(finding.pointer) or "/"  # loaded with the findings
    if full:
        where = f"{finding.dialect} {where}"
    pieces += [(" ", ""), (finding.message, "")]
    origin = origin_note(finding)
    if origin:
        assert finding.fix is not None  # a finding has an origin only with its fix
        recovered = finding.fix.origin is patchcore.Origin.RECOVERED
        pieces.append((origin, "green" if recovered else "yellow"))
    pieces.append((f" [{where}]", "dim"))
    return pieces


def print_findings(printer: Printer, name: str, findings: Iterable[Finding], *, full: bool) -> None:
    """Each finding's line; ``full``: each followed by the provider error it would cause,
    quoted."""
    printer.lines(_finding_lines(name, findings, full=full))


def _finding_lines(name: str, findings: Iterable[Finding], *, full: bool) -> Iterator[Pieces]:
    for finding in findings:
        yield finding_pieces(name, finding, mark_fixable=True, full=full)
        if full and finding.provider_error:
            yield (("    provider error: ", "dim"), (finding.provider_error, "dim"))


def error_pieces(error: InputError) -> Pieces:
    """``path:line:col: error: reason (at /pointer)``, as far as the location is known."""
    return ((error.place + ":", "bold"), (" error: ", "bold red"), (error.described, ""))


def _by_code(findings: Sequence[Finding]) -> str:
    """``TP001 x2, TP102 x1 (2 recovered, 1 synthesized)``: what a fix did to one input."""
    counts = Counter(f.code for f in findings)
    origins = origin_counts(findings)
    by_code = ", ".join(f"{code} x{n}" for code, n in sorted(counts.items()))
    return f"{by_code} ({origins})" if origins else by_code


class Wording(NamedTuple):
    """How a rewriting run says what it did: ``fix``'s words, or ``strip``'s."""

    done: str
    would: str
    noun: str
    nothing: str

    def verb(self, mode: Mode) -> str:
        return self.done if mode is Mode.FIX else self.would


FIXING = Wording("Fixed", "Would fix", "finding", "Nothing to fix")
STRIPPING = Wording("Stripped", "Would strip", "synthetic result", "Nothing to strip")


class Summary(msgspec.Struct):
    """Counts over a run, its closing line and its exit code (black's ``Report``)."""

    mode: Mode
    outcomes: list[Outcome]
    words: Wording = FIXING

    @property
    def errors(self) -> list[Outcome]:
        """Inputs that could not be evaluated or written."""
        return [o for o in self.outcomes if o.error is not None]

    @property
    def evaluated(self) -> list[Outcome]:
        """Inputs with a report."""
        return [o for o in self.outcomes if o.result is not None and o.error is None]

    def _changed(self) -> list[Outcome]:
        return [o for o in self.evaluated if o.result is not None and o.result.fixed]

    def _remaining(self) -> list[Finding]:
        """What a fix leaves to fix: its findings left, but for the training targets."""
        return [
            f
            for o in self.evaluated
            if o.result is not None
            for f in o.result.remaining
            if not patchcore.is_training_target(f)
        ]

    def _defects(self) -> list[Outcome]:
        """The inputs a check finds something to fix in (a training target is none)."""
        return [
            o
            for o in self.evaluated
            if o.result and any(not patchcore.is_training_target(f) for f in o.result.findings)
        ]

    def _targets(self) -> int:
        """How many calls fine-tuning examples end on were left as they are."""
        return sum(
            1
            for o in self.evaluated
            if o.result is not None
            for f in o.result.findings
            if patchcore.is_training_target(f)
        )

    def listed(self) -> list[Finding]:
        """The findings the report lists: all of a check's, what a fix leaves."""
        if self.mode is Mode.CHECK:
            return [f for o in self.evaluated if o.result is not None for f in o.result.findings]
        return self._remaining()

    def _kept(self) -> int:
        """How many lines were kept as they are, not being JSON (``--keep-invalid-lines``)."""
        return sum(len(o.result.invalid_lines) for o in self.evaluated if o.result is not None)

    def exit_code(self, *, exit_zero: bool = False, exit_non_zero_on_fix: bool = False) -> ExitCode:
        """Errors win over findings; ``fix`` is clean when nothing remains to be fixed.

        ``exit_zero`` turns findings into 0 (errors stay 2); ``exit_non_zero_on_fix`` makes a
        ``fix`` that changed something exit 1 (ruff's modifiers; ``exit_zero`` wins).
        """
        if self.errors:
            return ExitCode.ERROR
        if exit_zero:
            return ExitCode.OK
        if self._kept():
            return ExitCode.FINDINGS  # a line that is not JSON was neither checked nor fixed
        if exit_non_zero_on_fix and self.mode is Mode.FIX and self._changed():
            return ExitCode.FINDINGS
        if self.mode is Mode.CHECK:
            return ExitCode.FINDINGS if self._defects() else ExitCode.OK
        if self.mode in (Mode.FIX_CHECK, Mode.FIX_DIFF) and self._changed():
            return ExitCode.FINDINGS
        return ExitCode.FINDINGS if self._remaining() else ExitCode.OK

    @staticmethod
    def _waiting(outcomes: list[Outcome]) -> int:
        """How many safe fixes ``fix`` would not write yet: those of a session log taken for a
        running agent's, which ``fix`` leaves as it is until the agent has stopped (or
        ``--force``; docs/cli.md#live-sessions). ``-o`` elsewhere would write them, but a
        check cannot know where ``fix`` will be asked to write."""
        return sum(
            fixability(f) == "safe" and not patchcore.is_training_target(f)
            for o in outcomes
            if o.result is not None and o.result.live and o.source.path is not None
            for f in o.result.findings
        )

    @property
    def noun(self) -> str:
        """What the summary counts: files, the threads of stores, or inputs (of both kinds, or
        a store, bucket or prefix that could not be read as a whole: no file, and no thread)."""
        kinds = {_kind(o.source) for o in self.outcomes}
        return kinds.pop() if len(kinds) == 1 else "input"

    def line(self) -> str:
        """One closing sentence with the counts."""
        parts: list[str] = []
        evaluated = self.evaluated
        if self.mode is Mode.CHECK:
            with_findings = self._defects()
            findings = [
                f
                for o in with_findings
                if o.result
                for f in o.result.findings
                if not patchcore.is_training_target(f)
            ]
            if findings:
                kinds = Counter(fixability(f) for f in findings)
                later = self._waiting(with_findings)
                stopped = f"{later} fixable once the agent has stopped or with `--force`"
                how = f"{kinds['safe'] - later} fixable with `toolpatch fix`"
                if later:
                    how = f"{how}, {stopped}" if kinds["safe"] > later else stopped
                if kinds["unsafe"]:
                    how += f", {kinds['unsafe']} more with `--unsafe-fixes`"
                parts.append(
                    f"Found {plural(len(findings), 'finding')} in "
                    f"{plural(len(with_findings), self.noun)} ({how})"
                )
                clean = len(evaluated) - len(with_findings)
                if clean:
                    parts.append(f"{plural(clean, self.noun)} clean")
            elif evaluated:
                parts.append(f"No findings in {plural(len(evaluated), self.noun)}")
        else:
            changed = self._changed()
            fixed = [f for o in changed if o.result for f in o.result.fixed]
            words = self.words
            if fixed:
                origins = origin_counts(fixed)
                parts.append(
                    f"{words.verb(self.mode)} {plural(len(fixed), words.noun)} in "
                    f"{plural(len(changed), self.noun)}" + (f" ({origins})" if origins else "")
                )
                unchanged = len(evaluated) - len(changed)
                if unchanged:
                    parts.append(f"{plural(unchanged, self.noun)} left unchanged")
            elif evaluated:
                parts.append(f"{words.nothing} in {plural(len(evaluated), self.noun)}")
            held = [o.result for o in evaluated if o.held_back and o.result is not None]
            waiting = {id(f) for r in held for f in r.findings if fixability(f) == "safe"}
            remaining = [f for f in self._remaining() if id(f) not in waiting]
            unsafe = sum(1 for f in remaining if fixability(f) == "unsafe")
            if waiting:
                parts.append(
                    f"{plural(len(waiting), 'finding')} in {plural(len(held), 'live session log')}"
                    " not written (`--force`)"
                )
            if unsafe:
                parts.append(f"{plural(unsafe, 'finding')} fixable with `--unsafe-fixes`")
            if len(remaining) > unsafe:
                parts.append(f"{plural(len(remaining) - unsafe, 'finding')} not fixable")
        targets = self._targets()
        if targets:
            parts.append(
                f"{plural(targets, 'training target')} left as "
                f"{'it is' if targets == 1 else 'they are'} (`--fix-training-targets`)"
            )
        kept = self._kept()
        if kept:
            parts.append(
                f"{plural(kept, 'line')} kept as {'it is' if kept == 1 else 'they are'} (not JSON)"
            )
        skipped = Counter(_why_skipped(o) for o in self.outcomes if o.skipped is not None)
        for why, count in sorted(skipped.items(), key=lambda kind: _SKIPPED_ORDER.get(kind[0], 0)):
            parts.append(f"{plural(count, self.noun)} skipped ({why})")
        if self.errors:
            # A failed run says so first: what went well comes after.
            parts.insert(0, f"{plural(len(self.errors), self.noun)} could not be processed")
        if not parts:
            return "No input files."
        first, *rest = parts
        return (
            ", ".join([first[0].upper() + first[1:], *(p[0].lower() + p[1:] for p in rest)]) + "."
        )


def _kind(source: Source) -> str:
    """What the summary calls ``source``: a ``thread`` of a store, a ``file`` (standard input,
    an object of a bucket), or an ``input`` named by a URL that is neither (a store or a
    prefix that could not be read)."""
    if source.thread is not None:
        return "thread"
    named = source.name
    url = source.path is None and "://" in named
    return "input" if url and (is_store_url(named) or named.endswith("/")) else "file"


#: The order of the closing line's kinds of skipped inputs (a kind of its own comes first).
_SKIPPED_ORDER = {"no message history": 1, "excluded": 2, "not a regular file": 3}


def _why_skipped(outcome: Outcome) -> str:
    """The summary's kind of a skipped input."""
    if outcome.source.passed_over is not None:
        return "not a regular file"
    return "excluded" if outcome.skipped == EXCLUDED else outcome.skipped_as


def render_outcome(
    outcome: Outcome,
    mode: Mode,
    printer: Printer,
    *,
    verbosity: int,
    report_to: Printer | None = None,
    show_findings: bool = True,
    full: bool = False,
    words: Wording = FIXING,
) -> None:
    """Print what happened to one input: unless silent, its error or its warnings and findings;
    hints unless quiet; clean and skipped files, found lists and fixed findings when verbose.

    ``report_to`` receives the finding lines of a check instead of ``printer`` (``-o FILE``);
    without ``show_findings`` they are left out (a machine-readable report carries them, or
    ``--statistics`` counts them); ``full`` quotes the provider's error under each; ``words``
    say what a rewrite did (``strip``'s differ from ``fix``'s).
    """
    name = outcome.source.name
    if verbosity <= SILENT:
        return
    if outcome.error is not None:
        printer.line(error_pieces(outcome.error))
        if outcome.error.hint is not None and verbosity >= NORMAL:
            printer.line(((f"{name}: ", "bold"), ("hint: ", "cyan"), (outcome.error.hint, "")))
        return
    if outcome.skipped is not None:
        # What a walk does not read (a symlink, a FIFO) is said at once: it was not checked.
        if verbosity > NORMAL or outcome.source.passed_over is not None:
            printer.text(f"{name}: skipped: {outcome.skipped}")
        return
    report = outcome.result
    assert report is not None
    for listed in report.conversations:
        where = f"{name}:{listed.line}" if listed.line is not None else name
        if listed.warning:
            printer.line(
                (
                    (f"{where}: {listed.pointer or '/'}: ", "bold"),
                    ("warning: ", "yellow"),
                    (listed.note or "", ""),
                )
            )
        elif verbosity > NORMAL:
            what = listed.note or f"{listed.dialect}, {plural(listed.message_count, 'message')}"
            printer.text(f"{where}: {listed.pointer or '/'}: {what}")
    for error in report.invalid_lines:
        place = f"{name}:{error.line or 1}:{error.column or 1}: "
        printer.line(((place, "bold"), ("warning: ", "yellow"), (kept_message(error), "")))
    if not report.findings:
        if verbosity > NORMAL and not report.invalid_lines:
            printer.text(f"{name}: clean")
        return
    _render_findings(
        outcome,
        mode,
        printer,
        verbosity=verbosity,
        report_to=report_to,
        show_findings=show_findings,
        full=full,
        words=words,
    )


def _render_findings(
    outcome: Outcome,
    mode: Mode,
    printer: Printer,
    *,
    verbosity: int,
    report_to: Printer | None,
    show_findings: bool,
    full: bool,
    words: Wording,
) -> None:
    """The finding lines of one input with findings (what was fixed, then what is left).

    Quiet, a fix says only what it leaves; ``fix --check`` still says which files would change,
    as that is what it is asked.
    """
    name = outcome.source.name
    report = outcome.result
    assert report is not None
    if not show_findings:
        return
    if mode is Mode.CHECK:
        print_findings(report_to or printer, name, report.findings, full=full)
        return
    if report.fixed and (verbosity >= NORMAL or mode is Mode.FIX_CHECK):
        counts = f": {_by_code(report.fixed)}"
        printer.line(((f"{words.verb(mode)} ", "bold green"), (name, "bold"), (counts, "")))
        if verbosity > NORMAL:
            for finding in report.fixed:
                printer.line(finding_pieces(name, finding, mark_fixable=False, full=full))
    print_findings(printer, name, report.remaining, full=full)


def render_live_hint(
    outcome: Outcome,
    mode: Mode,
    printer: Printer,
    *,
    verbosity: int,
    minutes: float,
    now: float,
    writers: OpenForWriting,
) -> None:
    """For a session log taken for a running agent's (`patchcore.Result.live`), where the guard
    held something back: say why its pending calls were left unanswered or its fixes not
    written (the processes that hold it open for writing, as ``writers`` found them, or the
    time that decided), and how to have them once the agent has stopped. Nothing for a log
    with nothing held back, nor for a file that is no session log
    (docs/cli.md#live-sessions)."""
    report = outcome.result
    if verbosity < NORMAL or report is None or outcome.error is not None or not report.live:
        return
    held = [f for f in report.findings if f.pending and f.held is not None]
    fixable = any(f.fix is not None for f in report.findings)
    would_hold = mode is not Mode.FIX and fixable and outcome.source.path is not None
    unwritten = outcome.held_back or would_hold
    if not held and not unwritten:
        return
    holders = _holders(outcome.source, writers)
    if holders:
        pids = ", ".join(map(str, holders))
        why = f"process {pids} holds" if len(holders) == 1 else f"processes {pids} hold"
        why += " it open for writing"
    elif report.last_entry is None:
        why = f"the file was written to in the last {minutes:g} minutes"
    else:
        ago = int(max(now - report.last_entry, 0) // 60)
        when = "less than a minute" if ago < 1 else plural(ago, "minute")
        why = f"its last entry was written {when} ago"
    calls, them = ("that call", "it") if len(held) == 1 else ("those calls", "them")
    if held:
        hint = f"{why}, so its agent may still be running {calls}: once it has stopped, "
        hint += f"--force answers {them}" + (" and writes the file" if outcome.held_back else "")
    elif outcome.held_back:
        hint = (
            f"{why}, so its agent may still be appending to it: nothing was written (a new "
            "file in its place would lose what the agent writes next); once it has stopped, "
            "--force writes it"
        )
    else:
        hint = (
            f"{why}, so its agent may still be appending to it: fix writes nothing to it "
            "until it has stopped, or with --force"
        )
    if not holders:
        hint += " (live-session-minutes = 0 turns this off)"
    printer.line(((f"{outcome.source.name}: ", "bold"), ("hint: ", "cyan"), (hint, "")))


def render_training_note(printer: Printer, name: str, result: Result, *, verbosity: int) -> None:
    """Say what was judged of an input with fine-tuning examples that end on their call
    (`patchcore.training_data`): called once its result is known, before anything is written
    (docs/cli.md#fine-tuning-data). Nothing for an input with no such example, or when quiet."""
    judged = patchcore.training_data(result)
    if judged is not None and verbosity >= NORMAL:
        printer.line(((f"{name}: ", "bold"), ("note: ", "cyan"), (training_note(judged), "")))


def _holders(source: Source, writers: OpenForWriting) -> tuple[int, ...]:
    """The processes that hold ``source``'s file open for writing (none for stdin, an object,
    or a file gone since)."""
    if source.path is None:
        return ()
    try:
        return writers.holders(source.path.stat())
    except OSError:
        return ()


def render_summary(summary: Summary, printer: Printer, *, verbosity: int) -> None:
    """Print the closing line unless quiet."""
    if verbosity >= NORMAL:
        printer.text(summary.line())
