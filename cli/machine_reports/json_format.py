"""``--output-format json`` (one array) and ``jsonl`` (one object per line), both written as
each input is done, an object at a time (docs/cli.md#reports).

Both hold the same objects (`patchcore.finding_record`, `cli.machine_reports.records`), in input
order: for each input its warnings (parts not checked) and findings, or its error entry when it
could not be evaluated.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from patchcore import finding_record

from ..input_run import Outcome
from .base import InputWarning, Reporter
from .records import StreamedArray, error_record, json_text, warning_record


def outcome_records(outcome: Outcome) -> Iterator[dict[str, Any]]:
    """The report objects of one input, one at a time: its error, or its warnings and findings."""
    if outcome.error is not None:
        yield error_record(outcome.error)
    elif outcome.result is not None:
        yield from map(warning_record, InputWarning.all_of(outcome))
        for finding in outcome.result.findings:
            yield finding_record(finding, file=outcome.source.name)


class JsonReporter(Reporter):
    """One JSON array, written an object at a time: its ``[`` with the first input, its ``]``
    when the run is over (a run that ends before its first input writes nothing)."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(stream)
        self.array = StreamedArray([StreamedArray.PLACE])
        self.opened = False
        self.empty = True

    def add(self, outcome: Outcome) -> None:
        self._open()
        for record in outcome_records(outcome):
            self.write(self.array.item(record, first=self.empty), flush=False)
            self.empty = False
        self.stream.flush()

    def _open(self) -> None:
        if not self.opened:
            self.write(self.array.head(), flush=False)
            self.opened = True

    def finish(self) -> None:
        self._open()
        self.write(self.array.tail(empty=self.empty) + "\n")


class JsonLinesReporter(Reporter):
    """One JSON object per line, written as each input is done."""

    def add(self, outcome: Outcome) -> None:
        for record in outcome_records(outcome):
            self.write(json_text(record) + "\n")
