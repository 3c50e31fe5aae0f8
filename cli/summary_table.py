"""``--statistics``: counts by rule and by file (Rich tables), in place of the finding lines.

They are for people scanning a run over many files, as ruff's ``--statistics`` counts per rule;
the one-line summary stays the last line (scripts and tests read it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import patchcore

from .console import SILENT, Printer, visible
from .input_run import Mode
from .text_report import Summary

if TYPE_CHECKING:
    from patchcore import Finding, Result

#: A column: its heading and which findings of a report it counts.
Column: TypeAlias = "tuple[str, Callable[[Result], Sequence[Finding]]]"


def columns(mode: Mode) -> list[Column]:
    """What a run of ``mode`` counts: findings for a check; fixed and left for a fix."""
    if mode is Mode.CHECK:
        return [("findings", lambda result: result.findings)]
    fixed = "fixed" if mode is Mode.FIX else "would fix"
    return [(fixed, lambda result: result.fixed), ("left", lambda result: result.remaining)]


def _table(title: str, labels: Sequence[str], counts: Sequence[str], rows: list[list[str]]) -> Any:
    """A table whose ``labels`` columns are text and whose ``counts`` columns are numbers.

    Cells are `Text`, never Rich markup (a file may be named ``[red]x.json``), and their
    control characters are shown as escapes (`cli.console`).
    """
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", title_style="bold")
    for head in labels:
        table.add_column(head)
    for head in counts:
        table.add_column(head, justify="right")
    for row in rows:
        table.add_row(*(Text(visible(cell)) for cell in row))
    return table


def by_rule(summary: Summary) -> Any:
    """Counts per rule code."""
    counted = columns(summary.mode)
    counts = [Counter[str]() for _ in counted]
    for outcome in summary.evaluated:
        assert outcome.result is not None
        for counter, (_, pick) in zip(counts, counted, strict=True):
            counter.update(f.code for f in pick(outcome.result))
    codes = sorted(set().union(*counts))
    rows = [
        [code, patchcore.RULES[code].name, *(str(counter[code]) for counter in counts)]
        for code in codes
    ]
    return _table("By rule", ["rule", "name"], [head for head, _ in counted], rows)


def by_file(summary: Summary) -> Any:
    """Counts per input that has any."""
    counted = columns(summary.mode)
    rows = []
    for outcome in summary.evaluated:
        assert outcome.result is not None
        numbers = [len(pick(outcome.result)) for _, pick in counted]
        if any(numbers):
            rows.append([outcome.source.name, *(str(n) for n in numbers)])
    return _table("By file", ["file"], [head for head, _ in counted], rows)


def wanted(summary: Summary, *, verbosity: int) -> bool:
    """Tables have something to count: a finding (of a check), or something fixed or left (of a
    fix); and the run is not silent (``-q`` keeps them, as ruff's ``--statistics`` does)."""
    reports = [o.result for o in summary.evaluated if o.result is not None]
    has_findings = any(pick(r) for r in reports for _, pick in columns(summary.mode))
    return has_findings and verbosity > SILENT


def render_tables(summary: Summary, printer: Printer, *, verbosity: int) -> None:
    """Print both tables (``--statistics``) when `wanted`."""
    if wanted(summary, verbosity=verbosity):
        printer.render(by_rule(summary))
        printer.render(by_file(summary))
