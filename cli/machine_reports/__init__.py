"""Machine-readable reports for ``check --output-format``: one module per format.

Each format is a `Reporter` that receives every input's outcome and writes bytes to stdout or
``-o FILE``, never through Rich and never in colour. The ``text`` format is the human report of
`cli.text_report` (on stderr) and has no reporter here.
"""

from __future__ import annotations

from ..options import OutputFormat
from .base import Reporter
from .github import GithubReporter
from .html_report import HtmlReporter
from .json_format import JsonLinesReporter, JsonReporter
from .sarif import SarifReporter

#: The reporter class of every machine format (check-jsonschema's ``REPORTER_BY_NAME``).
REPORTERS: dict[OutputFormat, type[Reporter]] = {
    OutputFormat.JSON: JsonReporter,
    OutputFormat.JSONL: JsonLinesReporter,
    OutputFormat.GITHUB: GithubReporter,
    OutputFormat.SARIF: SarifReporter,
    OutputFormat.HTML: HtmlReporter,
}

__all__ = ["REPORTERS", "OutputFormat", "Reporter"]
