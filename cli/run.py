"""Run check or fix over the inputs: read, call patchcore, write, and record each outcome."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import patchcore
from cli.inputs import Source
from cli.write import write_atomically
from patchcore.analyze import Options
from patchcore.diff import unified_diff
from patchcore.document import Report, run


class Mode(enum.Enum):
    """What a run does with what it finds (black's ``WriteBack``)."""

    CHECK = "check"
    """Report findings; write nothing."""
    FIX = "fix"
    """Write repaired files (in place, to ``-o``, or to stdout for stdin)."""
    FIX_CHECK = "fix --check"
    """Say which files would change; write nothing."""
    FIX_DIFF = "fix --diff"
    """Print the diff of what would change; write nothing."""

    @property
    def fixes(self) -> bool:
        """Whether repaired output is computed."""
        return self is not Mode.CHECK


@dataclass
class Outcome:
    """What happened to one input.

    Attributes:
        source: The input.
        report: patchcore's report, if the input could be evaluated.
        error: The located error text, if it could not.
        skipped: Why it was passed over (a walked file without a history), if it was.
    """

    source: Source
    report: Report | None = None
    error: str | None = None
    skipped: str | None = None
    diff: str | None = field(default=None, repr=False)
    """The unified diff, for ``fix --diff`` when the input would change."""


def process(
    source: Source,
    *,
    options: Options,
    mode: Mode,
    output: Path | None,
    emit: Callable[[bytes], None],
) -> Outcome:
    """Evaluate one input and carry out ``mode``.

    ``emit`` writes repaired bytes to stdout (for stdin, or ``-o -``); a diff is left in the
    outcome for the caller to print.
    """
    outcome = Outcome(source)
    try:
        data = source.read()
    except OSError as exc:
        outcome.error = exc.strerror or str(exc)
        return outcome
    filename = source.name if source.path is not None or source.name != "-" else None
    try:
        report = run(data, filename=filename, options=options, fix=mode.fixes)
    except patchcore.NoHistoryError as exc:
        if source.explicit:
            outcome.error = exc.located()
        else:
            outcome.skipped = exc.reason
        return outcome
    except patchcore.PatchcoreError as exc:
        outcome.error = exc.located()
        return outcome
    outcome.report = report

    if mode is Mode.FIX_DIFF and report.output is not None:
        outcome.diff = unified_diff(data, report.output, name=source.name)
    elif mode is Mode.FIX:
        result = report.output if report.output is not None else data
        if output is not None:
            if str(output) == "-":
                emit(result)
            else:
                _write(outcome, output, result)
        elif source.is_stdin:
            emit(result)
        elif report.output is not None:
            assert source.path is not None
            _write(outcome, source.path, report.output)
    return outcome


def _write(outcome: Outcome, path: Path, data: bytes) -> None:
    try:
        write_atomically(path, data)
    except OSError as exc:
        outcome.error = f"cannot write {path}: {exc.strerror or exc}"


def emit_stdout(data: bytes) -> None:
    """Write product bytes to stdout."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
