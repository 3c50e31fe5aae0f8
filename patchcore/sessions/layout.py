"""What the agent-session layouts share: reading the lines, and the check-and-fix pipeline.

A session log is one JSON Lines file of *events*; the conversations are spread over its lines,
between events that are no messages. Each layout (Claude Code, Codex) reads its lines into message
lists for the existing engine (`patchcore.analyze.check_list` with a dialect), then turns each
finding back into a place in the file (line, column, pointer inside the line) and its fix into
*line edits* addressed by the position of a line among the file's records:

* ``Insert((), k, (value,))``: a new line after record ``k - 1``, in the style of that line;
* ``Replace((k, *pointer), value)`` / ``Delete((k, *pointer))``: spliced into record ``k``;
* ``Delete((k,))``: record ``k`` removed.

These are the edits the message-per-line writer of `patchcore.document` applies, so every line
that needs no change is written back byte for byte. Lines that are not JSON, not objects, or
events of a type the layout does not know are kept as they are and reported as warnings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from patchcore.analyze import Options
from patchcore.codec import Decoded, Record, decode
from patchcore.dialects import Dialect
from patchcore.document import ListReport, Report, _edit_lines, _still_there, unique_edits
from patchcore.errors import DecodeError, SelfCheckError, ShapeError, json_kind
from patchcore.jsonspan import Spans, line_and_column
from patchcore.model import Finding, Pointer

#: A name that makes `decode` read the repaired bytes as JSON Lines, as the input was.
_JSONL_NAME = "session.jsonl"


@dataclass(frozen=True, slots=True)
class SessionLine:
    """One non-blank line of a session log.

    Attributes:
        position: Its index among the file's records (what line edits address).
        record: Its bytes and line number.
        value: Its parsed value; ``None`` when it is not JSON.
        problem: Why it is not JSON, when it is not.
    """

    position: int
    record: Record
    value: Any
    problem: str | None = None


def read_lines(decoded: Decoded) -> list[SessionLine]:
    """Every record of the file, parsed; a line that is not JSON is kept with the reason."""
    lines = []
    for position, record in enumerate(decoded.records):
        try:
            lines.append(SessionLine(position, record, record.parse()))
        except DecodeError as error:
            lines.append(SessionLine(position, record, None, error.reason))
    return lines


def unread(line: SessionLine, why: str) -> ListReport:
    """The warning for a line that is kept as it is without being read."""
    return ListReport("", line.record.line, None, 0, f"{why}; kept as it is", warning=True)


def odd_line(line: SessionLine) -> ListReport | None:
    """The warning for a line that is no JSON object at all, or ``None`` for an object."""
    if line.problem is not None:
        return unread(line, f"not JSON ({line.problem})")
    if not isinstance(line.value, dict):
        return unread(line, f"a line that is {json_kind(line.value)}, not an event")
    return None


def place(record: Record, pointer: Pointer) -> tuple[int, int]:
    """Line and column in the file of the value at ``pointer`` inside ``record`` (the start of
    the line if the pointer leads nowhere)."""
    try:
        offset = Spans(record.raw).span(pointer)[0]
    except KeyError:
        offset = len(record.raw) - len(record.raw.lstrip())
    line, column = line_and_column(record.raw, offset)
    return line + record.line - 1, column


def relocated(error: ShapeError, record: Record, pointer: Pointer) -> ShapeError:
    """``error``, raised about a value of a message list, moved to where that value sits in the
    file: ``pointer`` inside ``record``."""
    line, column = place(record, pointer)
    return ShapeError(error.reason, path=pointer, line=line, column=column)


@dataclass(frozen=True, slots=True)
class Analysis:
    """What reading and checking a session found.

    Attributes:
        lists: One entry per conversation checked, and one warning per line kept unread.
        findings: The selected findings, located in the file, in file order; their fixes hold
            line edits.
    """

    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...]


class SessionFormat(ABC):
    """One agent-session layout: how to recognise its lines and check its conversations."""

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

    @abstractmethod
    def recognises(self, value: dict[str, Any]) -> bool:
        """Whether a JSON object is a line of this layout."""

    @abstractmethod
    def analyse(self, lines: Sequence[SessionLine], options: Options, *, fixing: bool) -> Analysis:
        """Read the conversations out of the lines and check them.

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
            ShapeError: A message has a tool-related field of the wrong shape.
            SelfCheckError: The repaired session did not check clean (a bug: nothing is written).
        """
        analysis = self.analyse(read_lines(decoded), options, fixing=fix)
        findings = analysis.findings
        to_fix = tuple(f for f in findings if options.applies(f.fix)) if fix else ()
        if not to_fix:
            return Report(self.framing, analysis.lists, findings, remaining=findings)
        output = decoded.join(_edit_lines(decoded, unique_edits(to_fix)))
        remaining = _still_there(findings, to_fix, self._self_check(output, options))
        return Report(self.framing, analysis.lists, findings, output, to_fix, remaining)

    def _self_check(self, output: bytes, options: Options) -> list[Finding]:
        """Black's stability check: the repaired session must have nothing left to fix.

        Returns:
            The findings it still has (none of them fixable).
        """
        again = self.analyse(read_lines(decode(output, filename=_JSONL_NAME)), options, fixing=True)
        left = [f for f in again.findings if options.applies(f.fix)]
        if left:
            msg = "internal error: the repaired session still has fixable findings; nothing written"
            raise SelfCheckError(msg, line=left[0].line, column=left[0].column)
        return list(again.findings)
