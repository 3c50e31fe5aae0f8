"""What the providers answer, said once per rule after the findings of a concise report.

Each finding of a rule would draw the same error from its provider, only its call id (or
message index) differing: the concise report lists the findings one line each, then for each rule
they broke the error once per dialect, with ``ID``, ``NAME``, ``N``, ``N+1`` and ``M`` (a block
of message N) standing for what differs, as ``toolpatch rule CODE`` (`cli.rule_docs`) writes them
too. ``--output-format
full`` quotes each finding's own error under it instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from .console import Printer

if TYPE_CHECKING:
    from patchcore import Finding

#: What stands for a finding's own values in an error said once for all of them (plain words,
#: not ``<id>``: docs/rules.md is Markdown, where that would read as an HTML tag).
GENERIC = {"id": "ID", "name": "NAME", "index": "N", "next": "N+1", "block": "M"}


def generic_error(finding: Finding) -> str | None:
    """The finding's provider error with what is its own written as placeholders, or ``None``
    when its provider's answer is not known.

    An error that is its dialect's template filled with the finding's values becomes the template
    itself; any other (a server tool's call, a reasoning item split from its item) keeps its
    words, the call id alone replaced.
    """
    error = finding.provider_error
    if error is None:
        return None
    from patchcore import fill  # loaded with the findings: clean runs skip it

    template = _template(finding.dialect, finding.code)
    if template is not None:
        own = {
            "id": finding.call_id or "",
            "name": finding.tool_name or "unknown",
            "index": str(finding.message_index),
            "next": str(finding.message_index + 1),
        }
        if fill(template, own) == error:
            return _generic(template)
    if finding.call_id:
        # Only the id as a whole word: a short id (``x``) must not eat into the error's words.
        own_id = re.compile(rf"(?<![\w-]){re.escape(finding.call_id)}(?![\w-])")
        return own_id.sub(GENERIC["id"], error)
    return error


@cache
def _template(dialect: str, code: str) -> str | None:
    """The error template of ``dialect`` for the rule ``code``, if it has one (looked up once
    for all the findings of a report)."""
    from patchcore import NAMED

    templates = next((d.provider_errors for d in NAMED if d.name == dialect), {})
    return templates.get(code)


@cache
def _generic(template: str) -> str:
    """``template`` with placeholders for a finding's own values."""
    from patchcore import fill

    return fill(template, GENERIC)


def by_rule(findings: Iterable[Finding]) -> dict[tuple[str, str], dict[str, list[str]]]:
    """(code, rule name) → dialect → its distinct generic errors, codes and dialects sorted,
    errors in the order first met."""
    found: dict[tuple[str, str], dict[str, list[str]]] = {}
    for finding in findings:
        error = generic_error(finding)
        if error is None:
            continue
        errors = found.setdefault((finding.code, finding.rule), {}).setdefault(finding.dialect, [])
        if error not in errors:
            errors.append(error)
    return {rule: dict(sorted(dialects.items())) for rule, dialects in sorted(found.items())}


def render_provider_errors(findings: Iterable[Finding], printer: Printer) -> None:
    """For each rule among ``findings``, once: what each dialect's provider answers."""
    for (code, name), dialects in by_rule(findings).items():
        printer.line(
            ((code, "bold red"), (f" ({name})", "bold"), (" is refused by the provider:", ""))
        )
        for dialect, errors in dialects.items():
            for error in errors:
                printer.line(((f"  {dialect}: ", "bold"), (error, "dim")))
