"""What the agent-session layouts share: the check-and-fix pipeline, and the warnings about the
entries they keep unread.

A session log is a sequence of *events* (its entries: `patchcore.layouts.sessions.entries`); the
conversations are spread over them, between events that are no messages. Each layout (Claude
Code, the Claude Agent SDK, Codex) reads its entries into message lists for the existing engine
(`patchcore.engine.check.check_list` with a dialect), then turns each finding back into a place in
the file (line, column, pointer inside the entry) and its fix into edits of entries. Entries
that are not JSON, not objects, or events of a type the layout does not know are kept as they
are and reported as warnings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from patchcore.dialects import Dialect
from patchcore.document import ListReport, Report, _still_there, unique_edits
from patchcore.errors import SelfCheckError, json_kind
from patchcore.layouts.sessions.entries import Entry, read_entries, reread, write_entries
from patchcore.model import Finding, format_pointer
from patchcore.options import Options
from patchcore.raw.codec import Decoded


def unread(entry: Entry, why: str) -> ListReport:
    """The warning for an entry that is kept as it is without being read."""
    where = format_pointer(entry.root)
    return ListReport(where, entry.record.line, None, 0, f"{why}; kept as it is", warning=True)


def odd_entry(entry: Entry) -> ListReport | None:
    """The warning for an entry that is no JSON object at all, or ``None`` for an object."""
    if entry.problem is not None:
        return unread(entry, f"not JSON ({entry.problem})")
    if not isinstance(entry.value, dict):
        return unread(entry, f"{entry.one} that is {json_kind(entry.value)}, not an event")
    return None


@dataclass(frozen=True, slots=True)
class Analysis:
    """What reading and checking a session found.

    Attributes:
        lists: One entry per conversation checked, and one warning per entry kept unread.
        findings: The selected findings, located in the file, in file order; their fixes hold
            edits of entries.
    """

    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...]


class SessionFormat(ABC):
    """One agent-session layout: how to recognise its entries and check its conversations."""

    name: ClassVar[str]
    """Short name, for ``toolpatch formats``."""
    title: ClassVar[str]
    """Human name, for ``toolpatch formats``."""
    recognised_by: ClassVar[str]
    """How a file is recognised, for ``toolpatch formats``."""
    containers: ClassVar[str]
    """Where such files are found, for ``toolpatch formats``."""
    framing: ClassVar[str]
    """What `Report.framing` says for such a file."""
    dialect: ClassVar[Dialect]
    """The dialect of its messages (``--dialect`` may name it, or nothing)."""
    arrays: ClassVar[bool] = False
    """Whether a JSON document that is an array of its entries is such a file too (else only
    JSON Lines are)."""

    @abstractmethod
    def recognises(self, value: dict[str, Any]) -> bool:
        """Whether a JSON object is an entry of this layout."""

    @abstractmethod
    def analyse(self, entries: Sequence[Entry], options: Options, *, fixing: bool) -> Analysis:
        """Read the conversations out of the entries and check them.

        Raises:
            ShapeError: A message has a tool-related field of the wrong shape (located).
        """

    def claims(self, first: dict[str, Any], options: Options) -> bool:
        """Whether a file whose first JSON object is ``first`` is a session of this layout
        (and ``--dialect``, if given, names its messages' dialect)."""
        forced = options.dialect
        return (forced is None or forced.name == self.dialect.name) and self.recognises(first)

    def report(self, decoded: Decoded, *, options: Options, fix: bool) -> Report:
        """Check (and with ``fix``, repair) the session.

        Raises:
            DecodeError: The session is a JSON document that does not parse.
            ShapeError: A message has a tool-related field of the wrong shape.
            SelfCheckError: The repaired session did not check clean (a bug: nothing is written).
        """
        analysis = self.analyse(read_entries(decoded), options, fixing=fix)
        findings = analysis.findings
        to_fix = tuple(f for f in findings if options.applies(f.fix)) if fix else ()
        if not to_fix:
            return Report(self.framing, analysis.lists, findings, remaining=findings)
        output = write_entries(decoded, unique_edits(to_fix))
        after = self._self_check(reread(output, decoded.framing), options)
        remaining = _still_there(findings, to_fix, after)
        return Report(self.framing, analysis.lists, findings, output, to_fix, remaining)

    def _self_check(self, entries: Sequence[Entry], options: Options) -> list[Finding]:
        """Black's stability check: the repaired session must have nothing left to fix.

        Returns:
            The findings it still has (none of them fixable).
        """
        again = self.analyse(entries, options, fixing=True)
        left = [f for f in again.findings if options.applies(f.fix)]
        if left:
            msg = "internal error: the repaired session still has fixable findings; nothing written"
            raise SelfCheckError(msg, line=left[0].line, column=left[0].column)
        return list(again.findings)
