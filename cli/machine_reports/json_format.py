"""``--output-format json`` (one array) and ``jsonl`` (one object per line, as it comes).

Both hold the same objects (`patchcore.finding_record`, `cli.machine_reports.records`), in input
order: for each input its warnings (parts not checked) and findings, or its error entry when it
could not be evaluated.
"""

from __future__ import annotations

from typing import IO, Any

from patchcore import finding_record

from ..input_run import Outcome
from .base import InputWarning, Reporter
from .records import error_record, json_text, warning_record


def outcome_records(outcome: Outcome) -> list[dict[str, Any]]:
    """The report objects of one input: its error, or its warnings and findings."""
    if outcome.error is not None:
        return [error_record(outcome.error)]
    if outcome.result is None:
        return []
    warnings = [warning_record(w) for w in InputWarning.all_of(outcome)]
    return warnings + [finding_record(f, file=outcome.source.name) for f in outcome.result.findings]


class JsonReporter(Reporter):
    """One JSON array, written when the run is over."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(stream)
        self.records: list[dict[str, Any]] = []

    def add(self, outcome: Outcome) -> None:
        self.records += outcome_records(outcome)

    def finish(self) -> None:
        self.write(json_text(self.records, indent=2) + "\n")


class JsonLinesReporter(Reporter):
    """One JSON object per line, written as each input is done."""

    def add(self, outcome: Outcome) -> None:
        for record in outcome_records(outcome):
            self.write(json_text(record) + "\n")
