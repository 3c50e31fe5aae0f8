"""A whole input, end to end: bytes → records → message lists → findings → repaired bytes.

Two layouts need different handling:

* records that *contain* histories (a JSON document, or JSON Lines with one conversation per
  line): each record is checked on its own and repaired by splicing into its own bytes, so an
  untouched JSON Lines line is written back byte for byte;
* JSON Lines with *one message per line*: the file is one conversation; new messages become new
  lines written in the style of their neighbours, and edits inside a message are spliced into
  its own line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from patchcore.analyze import Options, check_list
from patchcore.apply import apply_edits
from patchcore.codec import Decoded, Framing, Record, decode, parse
from patchcore.dialects import DIALECTS, Dialect
from patchcore.dialects.base import ListContext
from patchcore.errors import NoHistoryError, SelfCheckError, ShapeError, json_kind
from patchcore.jsonspan import array_span, line_and_column, value_end, value_start
from patchcore.locate import MessageList, classify, find_message_lists
from patchcore.model import (
    Delete,
    Edit,
    Finding,
    Insert,
    Pointer,
    Replace,
    Verbatim,
    format_pointer,
)
from patchcore.splice import element_style, splice


@dataclass(frozen=True, slots=True)
class ListReport:
    """A message list found in the input.

    Attributes:
        pointer: JSON pointer of the list in its record (``""`` for JSON Lines messages).
        line: For JSON Lines, the line of its record (of its first message); ``None`` for a
            JSON document.
        dialect: Dialect name, or ``None`` when it was not read.
        messages: Number of messages.
        note: Why it was not checked, if it was not.
        warning: The note is a problem worth showing (mixed dialects), not routine.
    """

    pointer: str
    line: int | None
    dialect: str | None
    messages: int
    note: str | None
    warning: bool = False


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome for one input.

    Attributes:
        framing: ``"json"``, ``"jsonl"`` (histories inside lines) or ``"jsonl-messages"`` (one
            message per line).
        lists: Every message list found.
        findings: Every selected finding of the input (before any fix).
        output: The repaired bytes when ``fix`` changed something, else ``None``.
        fixed: Findings whose fix was applied to ``output``.
    """

    framing: str
    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...]
    output: bytes | None = None
    fixed: tuple[Finding, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the fix produced new bytes."""
        return self.output is not None

    @property
    def remaining(self) -> tuple[Finding, ...]:
        """Findings not resolved by the fix (all of them for a check)."""
        done = {id(f) for f in self.fixed}
        return tuple(f for f in self.findings if id(f) not in done)


def dialects_for(options: Options) -> Sequence[Dialect]:
    """The adapters detection may choose from: all of them, or the one the caller forced."""
    return DIALECTS if options.dialect is None else (options.dialect,)


def _applied(findings: Iterable[Finding], options: Options) -> list[Finding]:
    """The findings whose fix runs under ``options``."""
    return [f for f in findings if options.applies(f.fix)]


def unique_edits(findings: Iterable[Finding]) -> list[Edit]:
    """The edits of the findings' fixes, each once (fixes may share an edit), in order."""
    seen: set[int] = set()
    edits = []
    for finding in findings:
        assert finding.fix is not None
        for edit in finding.fix.edits:
            if id(edit) not in seen:
                seen.add(id(edit))
                edits.append(edit)
    return edits


def check_lists(found: Sequence[MessageList], options: Options, *, fixing: bool) -> list[Finding]:
    """Findings of every readable list (lists with a note are reported, not checked).

    A check plans every fix (to report what it would do); a fix plans the unsafe ones only
    when they are allowed, so that the safe ones are planned on their own.
    """
    findings: list[Finding] = []
    for listed in found:
        if listed.dialect is not None and listed.note is None:
            findings += check_list(
                listed.messages,
                dialect=listed.dialect,
                context=listed.context,
                options=options,
                plan_unsafe=options.unsafe_fixes or not fixing,
            )
    return findings


def _locate(findings: list[Finding], raw: bytes, first_line: int) -> list[Finding]:
    """Give each finding the line and column of its calling message in ``raw``."""
    elements: dict[Pointer, tuple[tuple[int, int], ...]] = {}
    located = []
    for finding in findings:
        path = finding.message_path
        list_pointer = finding.list_pointer
        if path[: len(list_pointer) + 1] == (*list_pointer, finding.message_index):
            if list_pointer not in elements:
                elements[list_pointer] = array_span(raw, value_start(raw, list_pointer)).elements
            element = elements[list_pointer][finding.message_index][0]
            offset = value_start(raw, path[len(list_pointer) + 1 :], base=element)
        else:  # a single-message document
            offset = value_start(raw, path)
        line, column = line_and_column(raw, offset)
        located.append(replace(finding, line=line + first_line - 1, column=column))
    return located


def _summaries(found: Sequence[MessageList], line: int | None) -> list[ListReport]:
    return [
        ListReport(
            format_pointer(listed.pointer),
            line,
            listed.dialect.name if listed.dialect else None,
            sum(1 for m in listed.messages if m is not None),
            listed.note,
            listed.warning,
        )
        for listed in found
    ]


def run(data: bytes, *, filename: str | None, options: Options, fix: bool) -> Report:
    """Check (and with ``fix``, repair) one input.

    Raises:
        DecodeError: The input is not readable JSON / JSON Lines.
        NoHistoryError: It holds no message list.
        ShapeError: A message has a tool-related field of the wrong shape.
        SelfCheckError: The repaired output did not check clean (a bug: nothing is written).
    """
    decoded = decode(data, filename=filename)
    if decoded.framing is Framing.JSONL:
        values = [r.value for r in decoded.records]
        try:
            as_messages = classify(values, dialects_for(options))
            if as_messages is not None:
                listed = MessageList(
                    ListContext(()),
                    values,
                    as_messages.dialect,
                    as_messages.note,
                    as_messages.warning,
                )
                return _run_message_lines(decoded, listed, options=options, fix=fix)
        except ShapeError as error:  # the path starts with the message's index: its line
            record = decoded.records[int(error.path[0])]
            raise _located(error, record, error.path[1:]) from None
    return _run_records(decoded, options=options, fix=fix)


def _located(error: ShapeError, record: Record, path: Pointer) -> ShapeError:
    """``error`` with the line and column of the value it is about."""
    try:
        offset = value_start(record.raw, path)
    except KeyError:
        offset = 0
    line, column = line_and_column(record.raw, offset)
    return ShapeError(error.reason, path=error.path, line=line + record.line - 1, column=column)


def _run_records(decoded: Decoded, *, options: Options, fix: bool) -> Report:
    lists: list[ListReport] = []
    findings: list[Finding] = []
    fixed: list[Finding] = []
    new_lines = list(decoded.lines)
    jsonl = decoded.framing is Framing.JSONL
    for record in decoded.records:
        try:
            found = find_message_lists(record.value, dialects=dialects_for(options))
            record_findings = check_lists(found, options, fixing=fix)
        except ShapeError as error:
            raise _located(error, record, error.path) from None
        lists += _summaries(found, record.line if jsonl else None)
        if not record_findings:
            continue
        record_findings = _locate(record_findings, record.raw, record.line)
        findings += record_findings
        to_fix = _applied(record_findings, options)
        if fix and to_fix:
            new_raw = splice(record.raw, unique_edits(to_fix))
            _self_check(new_raw, record, options)
            new_lines[record.index] = new_raw
            fixed += to_fix
    if not lists:
        raise _no_history(decoded)
    output = decoded.join(new_lines) if fixed else None
    framing = decoded.framing.value
    return Report(framing, tuple(lists), tuple(findings), output, tuple(fixed))


def _no_history(decoded: Decoded) -> NoHistoryError:
    """Say why nothing was found: a bare scalar, or no list that reads as messages."""
    record = decoded.records[0]
    if decoded.framing is Framing.JSON and not isinstance(record.value, (dict, list)):
        msg = f"the document is {json_kind(record.value)}, not a message history"
        return NoHistoryError(msg, line=record.line, column=1)
    msg = "no message history found (no list of chat messages in a known format)"
    return NoHistoryError(msg, line=1, column=1)


def _self_check(new_raw: bytes, record: Record, options: Options) -> None:
    """Black's stability check: the repaired record must parse and have nothing left to fix."""
    value = parse(new_raw, first_line=record.line)
    found = find_message_lists(value, dialects=dialects_for(options))
    if _applied(check_lists(found, options, fixing=True), options):
        msg = "internal error: the repaired record still has fixable findings; nothing written"
        raise SelfCheckError(msg, line=record.line, column=1)


def _run_message_lines(
    decoded: Decoded, listed: MessageList, *, options: Options, fix: bool
) -> Report:
    records = decoded.records
    summary = _summaries([listed], records[0].line)[0]
    findings: list[Finding] = []
    if listed.dialect is not None and listed.note is None:
        findings = [
            replace(f, line=records[f.message_index].line, column=_indent(records[f.message_index]))
            for f in check_list(
                listed.messages,
                dialect=listed.dialect,
                context=listed.context,
                options=options,
                plan_unsafe=options.unsafe_fixes or not fix,
            )
        ]
    to_fix = _applied(findings, options) if fix else []
    output = None
    if to_fix:
        edits = unique_edits(to_fix)
        output = decoded.join(_edit_lines(decoded, edits))
        _self_check_lines(listed, edits, options)
    return Report("jsonl-messages", (summary,), tuple(findings), output, tuple(to_fix))


def _indent(record: Record) -> int:
    return len(record.raw) - len(record.raw.lstrip()) + 1


def _edit_lines(decoded: Decoded, edits: Sequence[Edit]) -> list[bytes]:
    """Physical lines after the edits: new messages become new lines, removed messages drop
    their line, and edits inside a message are spliced into its own line.

    New lines end like the file's lines (CRLF files keep CRLF). Inserting after a last line
    that has no line terminator gives that line the file's terminator and leaves the new last
    line without one, so the file still ends as it did.
    """
    records = decoded.records
    ensure_ascii = all(line.isascii() for line in decoded.lines)
    eol = b"\r" if any(line.endswith(b"\r") for line in decoded.lines) else b""
    lines: list[bytes | None] = list(decoded.lines)

    def raw(pointer: Pointer) -> bytes:
        record = records[int(pointer[0])]
        start = value_start(record.raw, pointer[1:])
        return record.raw[start : value_end(record.raw, start)]

    inside: dict[int, list[Edit]] = {}
    after_line: dict[int, list[bytes]] = {}
    for edit in edits:
        if isinstance(edit, Insert) and not edit.array:
            neighbour = records[max(edit.index - 1, 0)]
            style = element_style(
                neighbour.raw, 0, len(neighbour.raw.rstrip()), ensure_ascii=ensure_ascii
            )
            # Index 0 never happens for results (they follow a call); keep it at the top if so.
            slot = records[edit.index - 1].index if edit.index > 0 else -1
            after_line.setdefault(slot, []).extend(style.render(v, raw) for v in edit.values)
        elif isinstance(edit, Delete) and len(edit.pointer) == 1:
            lines[records[int(edit.pointer[0])].index] = None
        else:
            inside.setdefault(_message_of(edit), []).append(_rebased(edit))
    for message_index, message_edits in inside.items():
        record = records[message_index]
        lines[record.index] = splice(record.raw, message_edits)

    out: list[bytes] = [line + eol for line in after_line.get(-1, [])]
    last = len(lines) - 1
    for index, line in enumerate(lines):
        new = after_line.get(index, [])
        if line is None:  # a removed message: its new neighbours still end like the file's lines
            out += [n + eol for n in new]
        elif new and index == last:  # no terminator after this line: it moves to the last one
            out.append(line + eol)
            out += [n + eol for n in new[:-1]]
            out.append(new[-1])
        else:
            out.append(line)
            out += [n + eol for n in new]
    return out


def _message_of(edit: Edit) -> int:
    """The message (line) an edit inside a message belongs to."""
    place = edit.array if isinstance(edit, Insert) else edit.pointer
    first = place[0]
    assert isinstance(first, int)
    return first


def _rebased(edit: Edit) -> Edit:
    """The edit with pointers relative to its own line."""
    if isinstance(edit, Insert):
        return Insert(edit.array[1:], edit.index, tuple(_rebase_value(v) for v in edit.values))
    if isinstance(edit, Delete):
        return Delete(edit.pointer[1:])
    return Replace(edit.pointer[1:], _rebase_value(edit.value))


def _rebase_value(value: Any) -> Any:
    if isinstance(value, Verbatim):
        return Verbatim(value.pointer[1:])
    if isinstance(value, list):
        return [_rebase_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _rebase_value(v) for k, v in value.items()}
    return value


def _self_check_lines(listed: MessageList, edits: Sequence[Edit], options: Options) -> None:
    assert listed.dialect is not None
    repaired = apply_edits(listed.messages, edits)
    context = listed.context
    recheck = check_list(repaired, dialect=listed.dialect, context=context, options=options)
    if _applied(recheck, options):
        msg = "internal error: the repaired history still has fixable findings; nothing written"
        raise SelfCheckError(msg, line=1, column=1)
