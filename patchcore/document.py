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

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from patchcore.engine.quick import Lane, clean
from patchcore.engine.quick import read as read_quickly
from patchcore.errors import NoHistoryError, SelfCheckError, ShapeError, json_kind
from patchcore.raw.codec import Decoded, Framing, Record, decode, parse
from patchcore.raw.positions import line_and_column, skip_whitespace

# The engine (locating lists, the adapters, pairing, splicing) is imported where it is used: a
# record proven clean by `patchcore.engine.quick` needs none of it, and a small clean file (what a
# pre-commit hook or a CI check mostly sees) pays for every import at start-up.
if TYPE_CHECKING:
    from patchcore.dialects import Dialect
    from patchcore.engine.locate import MessageList
    from patchcore.model import Edit, Finding, Pointer
    from patchcore.options import Options
    from patchcore.raw.jsonspan import Spans
    from patchcore.raw.splice import Patch


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
        framing: ``"json"``, ``"jsonl"`` (histories inside lines), ``"jsonl-messages"`` (one
            message per line), or an agent session's layout (``"claude-code-session"``,
            ``"claude-agent-sdk-stream"``, ``"codex-rollout"``: `patchcore.layouts.sessions`).
        lists: Every message list found.
        findings: Every selected finding of the input (before any fix).
        output: The repaired bytes when ``fix`` changed something, else ``None``.
        fixed: Findings whose fix was applied to ``output``.
        remaining: Findings still there after the fix (all of them for a check), as located in
            the input; a finding the other fixes made go away is not among them.
    """

    framing: str
    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...]
    output: bytes | None = None
    fixed: tuple[Finding, ...] = ()
    remaining: tuple[Finding, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the fix produced new bytes."""
        return self.output is not None


def dialects_for(options: Options) -> Sequence[Dialect]:
    """The adapters detection may choose from: all of them, or the one the caller forced."""
    from patchcore.dialects import DIALECTS

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
    from patchcore.engine.check import check_list

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


def _locate(findings: list[Finding], spans: Spans, first_line: int) -> list[Finding]:
    """Give each finding the line and column of its calling message in ``spans.buf``."""
    raw = spans.buf
    located = []
    for finding in findings:
        line, column = line_and_column(raw, spans.span(finding.message_path)[0])
        located.append(replace(finding, line=line + first_line - 1, column=column))
    return located


def _summaries(found: Sequence[MessageList], line: int | None) -> list[ListReport]:
    from patchcore.model import format_pointer

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
        DecodeError: The input is not readable JSON / JSON Lines (the first bad record).
        NoHistoryError: It holds no message list.
        ShapeError: A message has a tool-related field of the wrong shape.
        SelfCheckError: The repaired output did not check clean (a bug: nothing is written).
    """
    decoded = decode(data, filename=filename)
    if decoded.framing is Framing.JSONL or _is_array(decoded.records[0].raw):
        # Imported here: the session layouts build on this module (and only JSON Lines or an
        # array can be a session log, so other JSON documents never load them).
        from patchcore.layouts.sessions import read_session

        session = read_session(decoded, options=options, fix=fix)
        if session is not None:
            return session
    if decoded.framing is Framing.JSONL:
        lines_mode = _message_lines(decoded, options)
        if lines_mode is not None:
            return _run_message_lines(decoded, lines_mode, options=options, fix=fix)
    return _run_records(decoded, options=options, fix=fix)


def _is_array(raw: bytes) -> bool:
    """Whether a JSON document is an array (it may be an agent session's entries)."""
    return raw.startswith(b"[", skip_whitespace(raw, 0))


def _message_lines(decoded: Decoded, options: Options) -> MessageList | None:
    """The whole file as one conversation, when its lines are messages (the first line tells
    whether to look: only then is every line parsed up front)."""
    from patchcore.dialects.base import ListContext
    from patchcore.engine.locate import MessageList, classify

    first = decoded.records[0]
    if classify([first.parse()], dialects_for(options)) is None:
        return None
    values = [record.parse() for record in decoded.records]
    try:
        kind = classify(values, dialects_for(options))
    except ShapeError as error:
        raise _located_on_its_line(error, decoded.records) from None
    if kind is None:
        return None
    return MessageList(ListContext(()), values, kind.dialect, kind.note, kind.warning)


def _located_on_its_line(error: ShapeError, records: Sequence[Record]) -> ShapeError:
    """``error`` about a message of a message-per-line file (its path starts with the message's
    index), located on that message's line."""
    return _located(error, records[int(error.path[0])], error.path[1:])


def _located(error: ShapeError, record: Record, path: Pointer) -> ShapeError:
    """``error`` with the line and column of the value it is about."""
    from patchcore.raw.jsonspan import Spans

    try:
        offset = Spans(record.raw).span(path)[0]
    except KeyError:
        offset = 0
    line, column = line_and_column(record.raw, offset)
    return ShapeError(error.reason, path=error.path, line=line + record.line - 1, column=column)


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What one record yields.

    Attributes:
        lists: The message lists found in it.
        findings: Its selected findings, located in the file.
        patches: The repair (with ``fix``), as patches of its bytes; none when unchanged.
        fixed: The findings the repair resolved.
        remaining: The findings still there after the repair (all of them without one).
    """

    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...] = ()
    patches: tuple[Patch, ...] = ()
    fixed: tuple[Finding, ...] = ()
    remaining: tuple[Finding, ...] = ()


def process_record(
    record: Record, *, options: Options, fix: bool, jsonl: bool = True
) -> RecordResult:
    """Check (and with ``fix``, repair) one record: a JSON document, or one line of JSON Lines
    that holds a conversation. The unit a parallel or distributed run maps over.

    Raises:
        DecodeError, ShapeError, SelfCheckError: as `run`.
    """
    line = record.line if jsonl else None
    lane = read_quickly(record.raw) if options.quick else None
    if lane is not None and lane.clean:
        return RecordResult((ListReport(lane.where, line, lane.dialect, lane.messages, None),))
    from patchcore.raw.jsonspan import Spans
    from patchcore.raw.splice import apply_patches, splice_patches

    spans = Spans(record.raw)
    quick = _quick(lane, spans, options, line) if lane is not None else None
    if quick is not None:
        lists, findings = quick
    else:
        from patchcore.engine.locate import find_message_lists

        try:
            found = find_message_lists(record.parse(), dialects=dialects_for(options))
            findings = check_lists(found, options, fixing=fix)
        except ShapeError as error:
            raise _located(error, record, error.path) from None
        lists = tuple(_summaries(found, line))
    if not findings:
        return RecordResult(lists)
    located = tuple(_locate(findings, spans, record.line))
    to_fix = tuple(_applied(located, options)) if fix else ()
    if not to_fix:
        return RecordResult(lists, located, remaining=located)
    patches = tuple(splice_patches(record.raw, unique_edits(to_fix), spans=spans))
    after = _self_check(apply_patches(record.raw, patches), record, options)
    return RecordResult(lists, located, patches, to_fix, _still_there(located, to_fix, after))


def _quick(
    lane: Lane, spans: Spans, options: Options, line: int | None
) -> tuple[tuple[ListReport, ...], list[Finding]] | None:
    """The list and findings of a record whose lane (`patchcore.engine.quick`) has open calls,
    made without parsing it whole (`patchcore.engine.quickfix`); ``None`` if the full path must
    decide."""
    from patchcore.engine import quickfix

    findings = quickfix.findings(lane, spans, options=options)
    if findings is None:
        return None
    return (ListReport(lane.where, line, lane.dialect, lane.messages, None),), findings


@dataclass(frozen=True, slots=True)
class RecordsResult:
    """What a run of records yields (a whole input, or one batch of a streamed corpus).

    Attributes:
        lists: Every message list found, in order.
        findings: Every selected finding, in order.
        patches: The repair, as patches of the records' text (the input's body, or the batch):
            the repaired records' changes; none when nothing changed.
        fixed: Findings whose fix is in ``patches``.
        remaining: Findings still there after the fix (all of them for a check).
        lines: How many physical lines the records' text has.
    """

    lists: tuple[ListReport, ...]
    findings: tuple[Finding, ...]
    patches: tuple[Patch, ...]
    fixed: tuple[Finding, ...]
    remaining: tuple[Finding, ...]
    lines: int = 1

    def output(self, data: bytes) -> bytes | None:
        """The repaired text of the records ``data`` (as processed), or ``None`` when nothing
        changed."""
        from patchcore.raw.splice import apply_patches

        return apply_patches(data, self.patches) if self.patches else None


def process_records(decoded: Decoded, *, options: Options, fix: bool) -> RecordsResult:
    """`process_record` over every record of ``decoded``, joined into one result.

    Raises:
        DecodeError, ShapeError, SelfCheckError: as `run`, for the first record that has one.
    """
    lists: list[ListReport] = []
    findings: list[Finding] = []
    fixed: list[Finding] = []
    remaining: list[Finding] = []
    patches: list[Patch] = []
    jsonl = decoded.framing is Framing.JSONL
    for record in decoded.records:
        result = process_record(record, options=options, fix=fix, jsonl=jsonl)
        lists += result.lists
        findings += result.findings
        remaining += result.remaining
        if result.patches:
            at = record.offset
            patches += [(at + start, at + end, new) for start, end, new in result.patches]
            fixed += result.fixed
    return RecordsResult(
        tuple(lists),
        tuple(findings),
        tuple(patches),
        tuple(fixed),
        tuple(remaining),
        len(decoded.lines),
    )


def _run_records(decoded: Decoded, *, options: Options, fix: bool) -> Report:
    result = process_records(decoded, options=options, fix=fix)
    if not result.lists:
        document = decoded.records[0] if decoded.framing is Framing.JSON else None
        raise no_history(document)
    output = result.output(decoded.body) if result.patches else None
    return Report(
        decoded.framing.value,
        result.lists,
        result.findings,
        None if output is None else decoded.bom + output,
        result.fixed,
        result.remaining,
    )


def _still_there(
    before: Sequence[Finding], fixed: Sequence[Finding], after: Sequence[Finding]
) -> tuple[Finding, ...]:
    """The findings not fixed that the re-check of the repaired data still reports (matched
    on rule and id: positions move when results are added)."""
    left = Counter((f.code, f.call_id) for f in after)
    done = {id(f) for f in fixed}
    kept = []
    for finding in before:
        key = (finding.code, finding.call_id)
        if id(finding) not in done and left[key]:
            left[key] -= 1
            kept.append(finding)
    return tuple(kept)


def no_history(document: Record | None) -> NoHistoryError:
    """Say why nothing was found: a bare scalar (``document``: the record of a JSON document),
    or no list that reads as messages."""
    value = document.parse() if document is not None else None
    if document is not None and not isinstance(value, (dict, list)):
        msg = f"the document is {json_kind(value)}, not a message history"
        return NoHistoryError(msg, line=document.line, column=1)
    msg = "no message history found (no list of chat messages in a known format)"
    return NoHistoryError(msg, line=1, column=1)


def _self_check(new_raw: bytes, record: Record, options: Options) -> list[Finding]:
    """Black's stability check: the repaired record must parse and have nothing left to fix.

    Returns:
        The findings the repaired record still has (none of them fixable).
    """
    if options.quick and clean(new_raw):
        return []
    from patchcore.engine.locate import find_message_lists

    value = parse(new_raw, first_line=record.line)
    found = find_message_lists(value, dialects=dialects_for(options))
    after = check_lists(found, options, fixing=True)
    if _applied(after, options):
        msg = "internal error: the repaired record still has fixable findings; nothing written"
        raise SelfCheckError(msg, line=record.line, column=1)
    return after


def _run_message_lines(
    decoded: Decoded, listed: MessageList, *, options: Options, fix: bool
) -> Report:
    from patchcore.engine.check import check_list

    records = decoded.records
    summary = _summaries([listed], records[0].line)[0]
    findings: list[Finding] = []
    if listed.dialect is not None and listed.note is None:
        try:
            checked = check_list(
                listed.messages,
                dialect=listed.dialect,
                context=listed.context,
                options=options,
                plan_unsafe=options.unsafe_fixes or not fix,
            )
        except ShapeError as error:
            raise _located_on_its_line(error, records) from None
        findings = [
            replace(f, line=records[f.message_index].line, column=_indent(records[f.message_index]))
            for f in checked
        ]
    to_fix = _applied(findings, options) if fix else []
    output = None
    remaining = tuple(findings)
    if to_fix:
        edits = unique_edits(to_fix)
        output = decoded.join(_edit_lines(decoded, edits))
        remaining = _still_there(findings, to_fix, _self_check_lines(listed, edits, options))
    summaries = (summary,)
    return Report("jsonl-messages", summaries, tuple(findings), output, tuple(to_fix), remaining)


def _indent(record: Record) -> int:
    return len(record.raw) - len(record.raw.lstrip()) + 1


def _edit_lines(decoded: Decoded, edits: Sequence[Edit]) -> list[bytes]:
    """Physical lines after the edits: new messages become new lines, removed messages drop
    their line, and edits inside a message are spliced into its own line.

    New lines end like the file's lines (CRLF files keep CRLF). Inserting after a last line
    that has no line terminator gives that line the file's terminator and leaves the new last
    line without one, so the file still ends as it did.
    """
    from patchcore.model import Delete, Insert
    from patchcore.raw.jsonspan import Spans
    from patchcore.raw.splice import element_style, rebased, splice

    records = decoded.records
    ensure_ascii = all(line.isascii() for line in decoded.lines)
    eol = b"\r" if any(line.endswith(b"\r") for line in decoded.lines) else b""
    lines: list[bytes | None] = list(decoded.lines)

    def raw(pointer: Pointer) -> bytes:
        return Spans(records[int(pointer[0])].raw).raw(pointer[1:])

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
            inside.setdefault(_message_of(edit), []).append(rebased(edit, 1))
    for message_index, message_edits in inside.items():
        record = records[message_index]
        lines[record.index] = splice(record.raw, message_edits, raw=raw, ensure_ascii=ensure_ascii)

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
    if decoded.lines[-1] and lines[-1] is None:
        # The file had no final newline and its last line went: the new last line loses its
        # terminator too (a CRLF's CR included), so the file still ends without one.
        while len(out) > 1 and not out[-1].strip():
            out.pop()
        out[-1] = out[-1].removesuffix(b"\r")
    return out


def _message_of(edit: Edit) -> int:
    """The message (line) an edit inside a message belongs to."""
    from patchcore.model import Insert

    place = edit.array if isinstance(edit, Insert) else edit.pointer
    first = place[0]
    assert isinstance(first, int)
    return first


def _self_check_lines(
    listed: MessageList, edits: Sequence[Edit], options: Options
) -> list[Finding]:
    from patchcore.engine.apply import apply_edits
    from patchcore.engine.check import check_list

    assert listed.dialect is not None
    repaired = apply_edits(listed.messages, edits)
    context = listed.context
    recheck = check_list(repaired, dialect=listed.dialect, context=context, options=options)
    if _applied(recheck, options):
        msg = "internal error: the repaired history still has fixable findings; nothing written"
        raise SelfCheckError(msg, line=1, column=1)
    return recheck
