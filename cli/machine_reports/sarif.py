"""``--output-format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run: the tool with a rule entry per toolpatch rule (results point at them by id and index),
one result per finding located by file, line and column plus the JSON pointer as a logical
location, and one invocation whose tool execution notifications are the inputs that could not be
evaluated (``executionSuccessful`` is false when there is any), located the same way as far as
known. A part of an input that was not checked (a list mixing dialects, a session entry kept
unread) is a result too, of level ``warning`` under the extra rule ``unchecked``: code scanning
shows results as alerts, where a notification would go unseen, and the run still succeeded.
Files are named relative to the working directory (``%SRCROOT%``) or by their ``file://`` URI
(`cli.machine_reports.sarif_artifacts`). toolpatch's own details (dialect, call id, tool name,
the fix and its edits) ride in the results' property bags, in the JSON report's words. Columns
count Unicode code points, as toolpatch's do.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

import patchcore
from patchcore.model import Finding, format_pointer

from ..input_errors import InputError
from ..input_run import Outcome
from .base import InputWarning, Reporter
from .records import fix_record, json_text
from .sarif_artifacts import SRCROOT, artifact_location, directory_uri

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION = "2.1.0"
_RULE_INDEX = {code: index for index, code in enumerate(patchcore.RULES)}
#: The rule of the warnings, after toolpatch's own rules.
UNCHECKED = "unchecked"
_UNCHECKED_TEXT = (
    "Part of an input was reported but not checked: a message list that mixes dialects (which "
    "toolpatch will not guess how to repair), or an agent session entry that is not JSON, not "
    "an object or of an unknown type (kept as it is). Nothing is fixed there; look at it, or "
    "force a dialect with --dialect."
)
UNCHECKED_RULE = {
    "id": UNCHECKED,
    "name": "unchecked-content",
    "shortDescription": {"text": "content that was reported but not checked"},
    "fullDescription": {"text": _UNCHECKED_TEXT},
    "help": {"text": _UNCHECKED_TEXT},
    "defaultConfiguration": {"level": "warning"},
    "properties": {"fix": "none"},
}


#: An ``artifactLocation``: the file a result is in.
Artifact = dict[str, str]


def physical_location(artifact: Artifact, line: int | None, column: int | None) -> dict[str, Any]:
    """Where in which file, as far as known."""
    location: dict[str, Any] = {"artifactLocation": artifact}
    if line is not None:
        region = {"startLine": line}
        if column is not None:
            region["startColumn"] = column
        location["region"] = region
    return {"physicalLocation": location}


def pointed_location(
    artifact: Artifact, line: int | None, column: int | None, pointer: str
) -> dict[str, Any]:
    """Where a result (or an error) is: the file and line, and its JSON pointer as a logical
    location."""
    location = physical_location(artifact, line, column)
    location["logicalLocations"] = [{"fullyQualifiedName": pointer or "/", "kind": "value"}]
    return location


def rule_descriptor(rule: patchcore.Rule) -> dict[str, Any]:
    """A rule's ``reportingDescriptor``."""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": rule.explanation},
        "defaultConfiguration": {"level": "error"},
        "properties": {"fix": rule.fix.value if rule.fix else "none"},
    }


def result(artifact: Artifact, finding: Finding) -> dict[str, Any]:
    """One finding as a SARIF ``result``."""
    pointer = format_pointer(finding.pointer)
    location = pointed_location(artifact, finding.line or 1, finding.column or 1, pointer)
    text = finding.message
    if finding.provider_error:
        text += f"\nprovider error: {finding.provider_error}"
    return {
        "ruleId": finding.code,
        "ruleIndex": _RULE_INDEX[finding.code],
        "level": "error",
        "message": {"text": text},
        "locations": [location],
        "properties": {
            "name": finding.rule,
            "dialect": finding.dialect,
            "callId": finding.call_id,
            "toolName": finding.tool_name,
            "pointer": pointer,
            "fix": fix_record(finding.fix),
        },
    }


def warning_result(artifact: Artifact, warning: InputWarning) -> dict[str, Any]:
    """A part of an input that was not checked, as a ``warning`` result (line 1 of a JSON
    document, whose lists have no line of their own in the report)."""
    location = pointed_location(artifact, warning.line or 1, warning.column, warning.pointer)
    return {
        "ruleId": UNCHECKED,
        "ruleIndex": len(patchcore.RULES),
        "level": "warning",
        "message": {"text": warning.message},
        "locations": [location],
        "properties": {"pointer": warning.pointer},
    }


def notification(artifact: Artifact, error: InputError) -> dict[str, Any]:
    """An input that could not be evaluated, as a tool execution notification: located by line
    and column and by the offending value's JSON pointer (a logical location, as in a result),
    each as far as known."""
    if error.pointer is None:
        location = physical_location(artifact, error.line, error.column)
    else:
        location = pointed_location(artifact, error.line, error.column, error.pointer)
    return {"level": "error", "message": {"text": error.message}, "locations": [location]}


class SarifReporter(Reporter):
    """One SARIF log, written when the run is over (files named from the directory it ran in)."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(stream)
        self.root = Path.cwd()
        self.results: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []

    def add(self, outcome: Outcome) -> None:
        artifact = artifact_location(outcome.source.name, self.root)
        if outcome.error is not None:
            self.notifications.append(notification(artifact, outcome.error))
        elif outcome.result is not None:
            self.results += [warning_result(artifact, w) for w in InputWarning.all_of(outcome)]
            self.results += [result(artifact, f) for f in outcome.result.findings]

    def log(self) -> dict[str, Any]:
        """The whole SARIF log."""
        driver = {
            "name": "toolpatch",
            "version": patchcore.__version__,
            "semanticVersion": patchcore.__version__,
            "rules": [*map(rule_descriptor, patchcore.RULES.values()), UNCHECKED_RULE],
        }
        root = {"uri": directory_uri(self.root)}
        invocation = {
            "executionSuccessful": not self.notifications,
            "toolExecutionNotifications": self.notifications,
            "workingDirectory": root,
        }
        run = {
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: root},
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": self.results,
        }
        return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}

    def finish(self) -> None:
        self.write(json_text(self.log(), indent=2) + "\n")
