"""``--output-format html``: one self-contained page to look at a corpus (docs/cli.md#html-report).

The page holds everything it shows: its style, its script and its charts inline, no link to
load anything (a Content-Security-Policy of ``default-src 'none'`` forbids it, and lets only the
page's own script and style run, by their hashes). Jinja2 (the ``html`` extra) writes it with
autoescaping, so every text from the histories is escaped in the markup.

What is drawn on the server: the totals (counted as the JSON report counts its records), and
the charts as inline SVG bars (findings by rule, by tool name, by where in its conversation the
call is). A chart library would add a script larger than the page's own for three bar charts,
and the popular ones load from a CDN by default, which the page must never do.

What the page's script draws: the findings, as data in a ``<script type="application/json">``
(escaped by Jinja's ``tojson``, which writes ``<``, ``>`` and ``&`` as ``\\u003c``...: no
``</script>`` can end it), shown a page of rows at a time, sorted and filtered in the browser,
with text always set as ``textContent``; and each finding's excerpt (`cli.machine_reports.
html_excerpt`), in a second data block parsed only when the first excerpt is opened.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from pathlib import Path
from typing import IO, Any, ClassVar, NamedTuple

import patchcore
from patchcore import extra_module, format_pointer

from ..input_run import Outcome
from ..text_report import fixability
from .base import InputWarning, Reporter
from .html_excerpt import excerpt

#: The page's template, style and script.
PAGE = Path(__file__).with_name("html_page")
#: How many tool names the chart shows; the others are one bar.
TOP_TOOLS = 15
#: The turn position chart's buckets: tenths of a conversation.
POSITIONS = 10
#: How many warnings and errors the page lists (all are counted).
MOST_PROBLEMS = 500


class Bar(NamedTuple):
    """One bar of a chart."""

    label: str
    value: int
    share: float
    """The bar's length, as a fraction of the longest."""
    title: str


def bars(counts: list[tuple[str, int]]) -> list[Bar]:
    """Bars for ``(label, count)`` rows, scaled to the largest count."""
    top = max((count for _, count in counts), default=0) or 1
    return [Bar(label, count, count / top, f"{label}: {count}") for label, count in counts]


def position(message_index: int, messages: int) -> int:
    """Which tenth of its conversation a calling message is in: the tenth that holds the share
    of the messages up to it and itself (0: the first tenth, 9: the last, where the last
    message always is)."""
    if messages <= 0:
        return 0
    return min(POSITIONS - 1, max(0, ((message_index + 1) * POSITIONS - 1) // messages))


def _hash(text: str) -> str:
    """A Content-Security-Policy source for an inline script or style: its SHA-256."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


class HtmlReporter(Reporter):
    """The page, written when the run is over.

    A finding is a row of the page's data (the script reads them by position, to keep a
    large page small): the index of its file among the files with findings, line, column,
    code, tool name, call id, pointer, fixability (``safe``, ``unsafe``, ``none``), the calling
    message's index, its conversation's size, the tenth of it the call is in (`position`) and
    the finding's sentence, and where the result its fix writes comes from (``recovered``,
    ``synthesized``, or ``None``: no fix, or one that writes no result). Its excerpt is at the
    same index in `excerpts`.
    """

    needs_messages: ClassVar[bool] = True

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(stream)
        self.jinja: Any = extra_module("jinja2", extra="html", part="--output-format html")
        self.files: list[str] = []
        self.rows: list[list[Any]] = []
        self.excerpts: list[list[list[str]] | None] = []
        self.problems: list[dict[str, Any]] = []
        self.totals: Counter[str] = Counter()

    def add(self, outcome: Outcome) -> None:
        name = outcome.source.name
        if outcome.error is not None:
            self.totals["errors"] += 1
            error = outcome.error
            self.problems.append(
                {"kind": "error", "file": name, "line": error.line, "message": error.message}
            )
            return
        result = outcome.result
        if result is None:
            return
        self.totals["files"] += 1
        for warning in InputWarning.all_of(outcome):
            self.totals["warnings"] += 1
            self.problems.append(
                {"kind": "warning", "file": name, "line": warning.line, "message": warning.message}
            )
        file_index = len(self.files)
        if result.findings:  # only these are listed: the page grows with the findings
            self.files.append(name)
            self.totals["files_with_findings"] += 1
        for conversation in result.conversations:
            if conversation.note is None:
                self.totals["conversations"] += 1
            for k, finding in enumerate(conversation.findings):
                fix = fixability(finding)
                self.totals["findings"] += 1
                self.totals[fix] += 1
                self.rows.append(
                    [
                        file_index,
                        finding.line,
                        finding.column,
                        finding.code,
                        finding.tool_name,
                        finding.call_id,
                        format_pointer(finding.pointer),
                        fix,
                        finding.message_index,
                        conversation.message_count,
                        position(finding.message_index, conversation.message_count),
                        finding.message,
                        None
                        if finding.fix is None or finding.fix.origin is None
                        else finding.fix.origin.value,
                    ]
                )
                self.excerpts.append(excerpt(conversation, k))

    def charts(self) -> dict[str, list[Bar]]:
        """The bars of each chart."""
        rules = sorted(Counter(row[3] for row in self.rows).items(), key=lambda r: (-r[1], r[0]))
        named = [(f"{code} {patchcore.RULES[code].name}", count) for code, count in rules]
        tools = Counter(row[4] if row[4] is not None else "(no name)" for row in self.rows)
        ranked = tools.most_common()
        top, rest = ranked[:TOP_TOOLS], ranked[TOP_TOOLS:]
        if rest:
            top.append((f"{len(rest)} other tools", sum(count for _, count in rest)))
        places = Counter(row[10] for row in self.rows)
        tenths = [(f"{10 * k}-{10 * (k + 1)}%", places[k]) for k in range(POSITIONS)]
        return {
            "rule": bars(named),
            "tool": bars(top),
            "position": bars(tenths) if self.rows else [],
        }

    def page(self) -> str:
        """The whole page."""
        jinja = self.jinja
        environment = jinja.Environment(
            loader=jinja.FileSystemLoader(PAGE),
            autoescape=True,
            undefined=jinja.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        # Compact, and UTF-8 as it is (lone surrogates: `Reporter.write`); tojson still
        # escapes <, >, & and ' as \u escapes.
        compact = {"ensure_ascii": False, "separators": (",", ":")}
        environment.policies["json.dumps_kwargs"] = compact
        style = (PAGE / "report.css").read_text(encoding="utf-8")
        script = (PAGE / "report.js").read_text(encoding="utf-8")
        totals = {
            key: self.totals[key]
            for key in (
                "files",
                "files_with_findings",
                "conversations",
                "findings",
                "safe",
                "unsafe",
                "none",
                "warnings",
                "errors",
            )
        }
        data = {
            "files": self.files,
            "rules": {code: rule.name for code, rule in patchcore.RULES.items()},
            "rows": self.rows,
        }
        return str(
            environment.get_template("report.html.j2").render(
                version=patchcore.__version__,
                totals=totals,
                charts=self.charts(),
                problems=self.problems[:MOST_PROBLEMS],
                problems_left=max(0, len(self.problems) - MOST_PROBLEMS),
                data=data,
                excerpts=self.excerpts,
                style=style,
                script=script,
                policy=(
                    "default-src 'none'; img-src data:; "
                    f"style-src {_hash(style)}; script-src {_hash(script)}"
                ),
            )
        )

    def finish(self) -> None:
        self.write(self.page())
