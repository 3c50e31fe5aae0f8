"""Machine-readable reports for ``check --output-format``: one module per format.

Each format is a `Reporter` that receives every input's outcome and writes bytes to stdout or
``-o FILE``, never through Rich and never in colour. The ``text`` format is the human report of
`cli.report` (on stderr) and has no reporter here.
"""

from __future__ import annotations

from cli.output_format import OutputFormat
from cli.reporters.base import Reporter
from cli.reporters.github import GithubReporter
from cli.reporters.json_format import JsonLinesReporter, JsonReporter
from cli.reporters.sarif import SarifReporter

#: The reporter class of every machine format (check-jsonschema's ``REPORTER_BY_NAME``).
REPORTERS: dict[OutputFormat, type[Reporter]] = {
    OutputFormat.JSON: JsonReporter,
    OutputFormat.JSONL: JsonLinesReporter,
    OutputFormat.GITHUB: GithubReporter,
    OutputFormat.SARIF: SarifReporter,
}

__all__ = ["REPORTERS", "OutputFormat", "Reporter"]
