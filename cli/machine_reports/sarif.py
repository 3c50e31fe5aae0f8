"""``--output-format sarif``: a SARIF 2.1.0 log for code-scanning services.

One run: the tool with a rule entry per toolpatch rule (results point at them by id and index,
each links its section of ``docs/rules.md`` as ``helpUri``), one result per finding located by
file, line and column plus the JSON pointer as a logical location, and one invocation whose
tool execution notifications are the inputs that could not be evaluated
(``executionSuccessful`` is false when there is any), located the same way as far as known. A
part of an input that was not checked (a list mixing dialects, a session entry kept unread) is
a result too, of level ``warning`` under the extra rule ``unchecked``: code scanning shows
results as alerts, where a notification would go unseen, and the run still succeeded.
Files are named relative to the working directory (``%SRCROOT%``) or by their ``file://`` URI
(`cli.machine_reports.sarif_artifacts`). toolpatch's own details (dialect, call id, tool name,
the fix and its edits) ride in the results' property bags, in the JSON report's words.

Columns count UTF-16 code units (``columnKind`` ``utf16CodeUnits``, SARIF's default and what
code scanning reads; `cli.machine_reports.sarif_regions`), not the characters of the other
reports. A finding that ``toolpatch fix`` repairs carries the repair as a SARIF ``fix``: text
replacements of the file's bytes, as `patchcore.plan_fixes` cuts the very repair ``fix`` writes
(under the same configuration: safe fixes, and unsafe ones only where ``unsafe-fixes`` is on),
so that the replacements of all the results, each applied once, give the bytes ``fix`` writes.
"""

from __future__ import annotations

import base64
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

import patchcore
from patchcore import Finding, format_pointer

from ..input_errors import InputError
from ..input_run import Outcome
from ..output_sinks import SPOOL_MEMORY
from ..project import REPOSITORY, docs_url, rule_url
from ..stores import is_store_url
from .base import InputWarning, Reporter
from .records import StreamedArray
from .sarif_artifacts import SRCROOT, artifact_location, directory_uri
from .sarif_regions import TextPositions

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
    "helpUri": docs_url("formats.md", "detection"),
    "defaultConfiguration": {"level": "warning"},
    "properties": {"fix": "none"},
}


#: An ``artifactLocation``: the file a result is in.
Artifact = dict[str, str]
#: One of a `patchcore.FixPlan`'s patches: the input's bytes ``start`` to ``end`` (offsets of the
#: whole input) replaced by ``new``.
Patch = tuple[int, int, bytes]


class Place:
    """One input as the log names it: its ``artifactLocation``, and its bytes' lines for
    UTF-16 columns (without them, a location has its line only). A thread of a store
    (``thread``) has the store's URL as its artifact and no lines: the thread is a logical
    location (docs/stores.md)."""

    def __init__(self, artifact: Artifact, data: bytes | None, thread: str | None = None) -> None:
        self.artifact = artifact
        self.positions = TextPositions(data) if data is not None else None
        self.thread = thread

    def physical(self, line: int | None, column: int | None) -> dict[str, Any]:
        """Where in the file, as far as known (the column counted in UTF-16 code units)."""
        location: dict[str, Any] = {"artifactLocation": self.artifact}
        if line is not None and self.thread is None:
            region = {"startLine": line}
            if column is not None and self.positions is not None:
                region["startColumn"] = self.positions.column(line, column)
            location["region"] = region
        placed: dict[str, Any] = {"physicalLocation": location}
        if self.thread is not None:
            placed["logicalLocations"] = [_thread_location(self.thread)]
        return placed

    def pointed(self, line: int | None, column: int | None, pointer: str) -> dict[str, Any]:
        """Where a result (or an error) is: the file and line, and its JSON pointer as a
        logical location (after its thread's, in a store)."""
        location = self.physical(line, column)
        location["logicalLocations"] = [
            *location.get("logicalLocations", []),
            {"fullyQualifiedName": pointer or "/", "kind": "value"},
        ]
        return location

    def replacement(self, patch: Patch) -> dict[str, Any]:
        """A patch of the file as a SARIF ``replacement``: a text region (an insertion point
        when nothing is deleted) and the text put there; bytes that are not UTF-8 text (which
        toolpatch does not write) would go as a binary region and Base64."""
        start, end, new = patch
        assert self.positions is not None, "a fix is planned from the input's bytes"
        try:
            text = new.decode("utf-8")
        except UnicodeDecodeError:
            binary = base64.b64encode(new).decode("ascii")
            deleted = {"byteOffset": start, "byteLength": end - start}
            return {"deletedRegion": deleted, "insertedContent": {"binary": binary}}
        replacement: dict[str, Any] = {"deletedRegion": self.positions.region(start, end)}
        if text:
            replacement["insertedContent"] = {"text": text}
        return replacement

    def fixes(self, finding: Finding, patches: tuple[Patch, ...]) -> list[dict[str, Any]]:
        """The SARIF ``fixes`` of a finding whose fix is ``patches`` (none without patches)."""
        if not patches or finding.fix is None:
            return []
        change = {
            "artifactLocation": self.artifact,
            "replacements": [self.replacement(patch) for patch in patches],
        }
        return [
            {
                "description": {"text": finding.fix.description},
                "artifactChanges": [change],
                "properties": {
                    "applicability": finding.fix.applicability.value,
                    "origin": None if finding.fix.origin is None else finding.fix.origin.value,
                },
            }
        ]


def _thread_location(thread: str) -> dict[str, str]:
    """A store's thread as a SARIF logical location."""
    return {"name": thread, "fullyQualifiedName": thread, "kind": "resource"}


def rule_descriptor(rule: patchcore.Rule) -> dict[str, Any]:
    """A rule's ``reportingDescriptor``."""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": rule.explanation},
        "helpUri": rule_url(rule),
        "defaultConfiguration": {"level": "error"},
        "properties": {"fix": rule.fix.value if rule.fix else "none"},
    }


def result(place: Place, finding: Finding, patches: tuple[Patch, ...] = ()) -> dict[str, Any]:
    """One finding as a SARIF ``result``, with its fix as ``patches`` of the file if ``fix``
    applies one; a training target, left as it is, is a ``note``."""
    pointer = format_pointer(finding.pointer)
    location = place.pointed(finding.line or 1, finding.column or 1, pointer)
    text = finding.message
    if finding.provider_error:
        text += f"\nprovider error: {finding.provider_error}"
    sarif_result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": _RULE_INDEX[finding.code],
        "level": "note" if patchcore.is_training_target(finding) else "error",
        "message": {"text": text},
        "locations": [location],
    }
    fixes = place.fixes(finding, patches)
    if fixes:
        sarif_result["fixes"] = fixes
    sarif_result["properties"] = {
        "name": finding.rule,
        "dialect": finding.dialect,
        "callId": finding.call_id,
        "toolName": finding.tool_name,
        "pointer": pointer,
        "fix": patchcore.fix_record(finding.fix),
    }
    return sarif_result


def warning_result(place: Place, warning: InputWarning) -> dict[str, Any]:
    """A part of an input that was not checked, as a ``warning`` result (line 1 of a JSON
    document, whose lists have no line of their own in the report)."""
    location = place.pointed(warning.line or 1, warning.column, warning.pointer)
    return {
        "ruleId": UNCHECKED,
        "ruleIndex": len(patchcore.RULES),
        "level": "warning",
        "message": {"text": warning.message},
        "locations": [location],
        "properties": {"pointer": warning.pointer},
    }


def notification(place: Place, error: InputError) -> dict[str, Any]:
    """An input that could not be evaluated, as a tool execution notification: located by line
    and column and by the offending value's JSON pointer (a logical location, as in a result),
    each as far as known."""
    if error.pointer is None:
        location = place.physical(error.line, error.column)
    else:
        location = place.pointed(error.line, error.column, error.pointer)
    return {"level": "error", "message": {"text": error.message}, "locations": [location]}


def unplanned(place: Place, reason: str) -> dict[str, Any]:
    """A warning notification: the input was checked, but its fixes could not be planned (an
    internal error that ``fix`` would report as well), so its results carry none."""
    message = {"text": f"no fixes given: {reason}"}
    return {"level": "warning", "message": message, "locations": [place.physical(None, None)]}


class SarifReporter(Reporter):
    """One SARIF log (files named from the directory it ran in), its results written as each
    input is done (docs/cli.md#reports). The log says before its results
    whether the run succeeded (its invocation), which only the last input decides: the results
    go to a temporary file (in memory while small) and follow the log's head when the run is
    over. A temporary file that cannot be written is the report's `failure`."""

    needs_bytes = True

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__(stream)
        self.root = Path.cwd()
        self.notifications: list[dict[str, Any]] = []
        self.results = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115
        self.empty = True
        # Where the results go in the log: the same place (so the same indent) whatever the
        # notifications before them say.
        self.layout = StreamedArray(self.log())

    def add(self, outcome: Outcome) -> None:
        source = outcome.source
        if source.store is not None:
            place = Place({"uri": source.store}, None, thread=source.thread)
        elif is_store_url(source.name):  # a store that could not be read
            place = Place({"uri": source.name}, None)
        else:
            place = Place(artifact_location(source.name, self.root), outcome.data)
        if outcome.error is not None:
            self.notifications.append(notification(place, outcome.error))
        elif outcome.result is not None:
            for warning in InputWarning.all_of(outcome):
                self._result(warning_result(place, warning))
            plan = outcome.plan
            for finding in outcome.result.findings:
                self._result(result(place, finding, () if plan is None else plan.of(finding)))
            if outcome.unplanned is not None:
                self.notifications.append(unplanned(place, outcome.unplanned))

    def _result(self, sarif_result: dict[str, Any]) -> None:
        """Write one result to the temporary file (as the log holds it)."""
        if self.failure is None:
            text = self.layout.item(sarif_result, first=self.empty)
            try:
                self.results.write(text.encode("utf-8", errors="backslashreplace"))
            except OSError as exc:
                self.failure = exc
        self.empty = False

    def log(self) -> dict[str, Any]:
        """The SARIF log, its results as `StreamedArray.PLACE`."""
        driver = {
            "name": "toolpatch",
            "informationUri": REPOSITORY,
            "version": patchcore.__version__,
            "semanticVersion": patchcore.__version__,
            "rules": [*map(rule_descriptor, patchcore.RULES.values()), UNCHECKED_RULE],
        }
        root = {"uri": directory_uri(self.root)}
        invocation = {
            "executionSuccessful": not any(n["level"] == "error" for n in self.notifications),
            "toolExecutionNotifications": self.notifications,
            "workingDirectory": root,
        }
        run = {
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: root},
            "invocations": [invocation],
            "columnKind": "utf16CodeUnits",
            "results": [StreamedArray.PLACE],
        }
        return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}

    def finish(self) -> None:
        with self.results:
            if self.failure is not None:
                return
            log = StreamedArray(self.log())
            self.write(log.head(), flush=False)
            self.results.seek(0)
            shutil.copyfileobj(self.results, self.stream)
            self.write(log.tail(empty=self.empty) + "\n")
