"""Records that hold histories: a JSON document, or JSON Lines with a conversation per line.

Each record is checked on its own and repaired by splicing into its own bytes, so an untouched
line of a corpus is written back byte for byte, and a corpus can be cut into batches of lines
(`patchcore.Batch`; `Layout.batches`) that are checked each on its own. A record in one of the
two commonest shapes is read by the quick lane (`patchcore.engine.quick`) first: a clean one is
never parsed whole, and one with open calls is planned from its calling messages only.

**Fine-tuning data**: which calls are training targets, held back from every fix (by default).

A fine-tuning file is JSON Lines with one training example per line; in OpenAI's chat format
(the API reference's ``FineTuneChatRequestInput``, "the per-line training example of a
fine-tuning input file") a line is an object of ``messages`` and, optionally, ``tools``,
``functions`` and ``parallel_tool_calls``, and its messages hold only the keys that format
knows (an assistant message may carry ``weight``, 0 or 1: whether it is trained on). An example
that teaches the model to call a tool ends on the assistant message that makes the call: that
call is what the model learns to produce (docs/cli.md#fine-tuning-data cites the sources). It
has no result, by design; a made-up result after it, or its removal, would change what is
taught, and the original is data nobody can get back.

The judgement rests on positive evidence only, one example at a time:

* the input is conversation lines (`ConversationLines`), never a JSON
  document, a file of one message per line or an agent session log;
* the line is a fine-tuning record: an object with ``messages``, no key outside
  `FINE_TUNING_KEYS`, and messages with no key outside `FINE_TUNING_MESSAGE_KEYS` (a run that
  an agent, a proxy or an SDK recorded carries more: ``model``, ``id``, ``usage``, timestamps,
  metadata, a message's ``annotations``);
* its conversation (the list at ``/messages``, read as OpenAI Chat) ends on the assistant
  message whose calls are left open: those calls, and only those, are the example's target.

A call left open anywhere else in an example (one the conversation went on past, an answer
missing from a parallel turn that a tool message follows) is no target: a provider refuses such
an example, and it is fixed as usual. Each line is judged on its own, so a corpus cut into
batches (`patchcore.Stream`, worker processes) is judged exactly as one read whole; the file's
judgement is what its examples add up to (`training_data`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from patchcore.engine.quick import clean
from patchcore.engine.quick import read as read_quickly
from patchcore.errors import (
    DecodeError,
    InvalidLineError,
    NoHistoryError,
    PatchcoreError,
    SelfCheckError,
    ShapeError,
    json_kind,
)
from patchcore.layouts.base import (
    Head,
    Layout,
    applied,
    dialects_for,
    held_back,
    self_checked,
    still_there,
)
from patchcore.raw.codec import (
    Decoded,
    Framing,
    Locator,
    Record,
    decode_batch,
    line_and_column,
    nul_error,
    parse,
)
from patchcore.result import Conversation, LineCount, Result, fix_edits

# The engine (locating lists, the adapters, pairing, splicing) is imported where it is used: a
# record proven clean by the quick lane needs none of it, and a small clean file (what a
# pre-commit hook or a CI check mostly sees) pays for every import at start-up.
if TYPE_CHECKING:
    from patchcore.engine.locate import MessageList
    from patchcore.engine.quick import Lane
    from patchcore.model import Finding, Pointer, TrainingData
    from patchcore.options import Options
    from patchcore.raw.splice import Patch, Spans


class JsonDocument(Layout):
    """One JSON document holding histories anywhere inside it (the fallback layout)."""

    name = Framing.JSON.value

    def recognises(self, head: Head, options: Options) -> bool:
        return head.framing is Framing.JSON

    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        return _whole(self.name, decoded, options=options, fix=fix)


class ConversationLines(Layout):
    """JSON Lines whose lines each hold their own histories (training and evaluation sets)."""

    name = Framing.JSONL.value
    batches = True

    def recognises(self, head: Head, options: Options) -> bool:
        return head.framing is Framing.JSONL

    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        return _whole(self.name, decoded, options=options, fix=fix)

    def process_batch(
        self, data: bytes, *, first_line: int, options: Options, fix: bool, every_list: bool = True
    ) -> Result:
        """Check (and with ``fix``, repair) a run of whole lines cut from a larger input at a
        line break, numbered from ``first_line``; its patches are of ``data``. Without
        ``every_list``, the lists the quick lane proves clean are counted, not kept
        (`process_records`).

        Raises:
            DecodeError, ShapeError, SelfCheckError: As `Layout.process`, for the first line
                that has one.
        """
        decoded = decode_batch(
            data,
            first_line=first_line,
            lenient=options.keep_invalid_lines,
            max_record=options.max_record_bytes,
        )
        return process_records(self.name, decoded, options=options, fix=fix, every_list=every_list)


def _whole(layout: str, decoded: Decoded, *, options: Options, fix: bool) -> Result:
    """`process_records` over a whole input: it must hold a history, and its output is the
    repaired input (byte-order mark included)."""
    result = weighed(process_records(layout, decoded, options=options, fix=fix))
    if not result.conversations:
        document = decoded.records[0] if decoded.framing is Framing.JSON else None
        raise no_history(document, kept=result.invalid_lines)
    if not result.patches:
        return result
    from patchcore.raw.splice import apply_patches

    return replace(result, output=decoded.bom + apply_patches(decoded.body, result.patches))


def weighed(result: Result) -> Result:
    """``result`` of a whole input of conversation lines, with what it passed over said: a line
    that holds no message list is written back as it is, but never in silence. Where most of
    the lines hold one, the others are one warning with their count; where they do not, the
    file is no corpus of conversations at all (another tool's log, say, a few of whose records
    happen to read as messages), and is refused as holding no message history rather than
    reported clean on the strength of those few. Unless some of those few hold objects that
    look like tool calls or results no reading pairs (TP004): refusing would pass them over in
    silence (a walk skips an input without a history), so they are reported, as a JSON
    document's are, and the verdict is not clean
    (docs/formats.md#what-is-read-and-what-is-said-unread).

    Raises:
        NoHistoryError: Most of its lines hold no message list, and none holds what looks like
            an unread call.
    """
    count = result.line_count
    if count is None or not count.unread or not count.read:
        return result  # none holds one: `no_history` says so
    first = count.first_unread
    total = count.read + count.unread
    if count.read <= count.unread and not _unread_calls(result):
        msg = (
            f"no message history: {count.unread} of {total} lines hold no list of chat messages "
            "(a log of another kind?); the few that do are not read as a corpus"
        )
        raise NoHistoryError(msg, line=first, column=1)
    lines, kept = (
        ("1 line holds", "it is")
        if count.unread == 1
        else (f"{count.unread} lines hold", "they are")
    )
    note = f"{lines} no message history (the first: line {first}); passed over, kept as {kept}"
    warning = Conversation("", first, None, 0, note, warning=True)
    return replace(result, conversations=(*result.conversations, warning))


def _unread_calls(result: Result) -> bool:
    """Whether ``result`` reports objects that look like calls or results no reading pairs
    (TP004; the engine is imported only for a result with findings)."""
    if not result.findings:
        return False
    from patchcore.engine.unread import UNREAD

    return any(f.code == UNREAD for f in result.findings)


def no_history(document: Record | None, *, kept: Sequence[DecodeError] = ()) -> PatchcoreError:
    """Say why nothing was found: no line is JSON (the error of the first of the lines ``kept``
    as they are: nothing was checked at all), a bare scalar (``document``: the record of a JSON
    document), or no list that reads as messages."""
    if kept:
        return kept[0]
    value = document.parse() if document is not None else None
    if document is not None and not isinstance(value, (dict, list)):
        msg = f"the document is {json_kind(value)}, not a message history"
        return NoHistoryError(msg, line=document.line, column=1)
    msg = "no message history found (no list of chat messages in a known format)"
    return NoHistoryError(msg, line=1, column=1)


def process_records(
    layout: str, decoded: Decoded, *, options: Options, fix: bool, every_list: bool = True
) -> Result:
    """`process_record` over every record of ``decoded``, joined into one result whose patches
    are of ``decoded.body``.

    With ``keep_invalid_lines``, a line of JSON Lines that is not JSON is kept as it is (no
    patch touches it) and its error is in the result's ``invalid_lines``. Without
    ``every_list``, a list the quick lane proves clean is counted (``clean_lists``), not kept
    (a streamed corpus keeps only its lists with something to say: `patchcore.Stream`).

    A record the lane proves clean, most of a corpus, costs no result of its own: it is the
    list's count or its conversation here, and the lines' counts are summed as numbers.

    Raises:
        DecodeError, ShapeError, SelfCheckError: As `Layout.process`, for the first record
            that has one.
    """
    conversations: list[Conversation] = []
    findings: list[Finding] = []
    fixed: list[Finding] = []
    remaining: list[Finding] = []
    patches: list[Patch] = []
    kept: list[DecodeError] = []
    jsonl = decoded.framing is Framing.JSONL
    keeping = jsonl and options.keep_invalid_lines
    read = unread = clean = 0
    first_unread: int | None = None
    for record in decoded.records:
        try:
            outcome = _processed(record, layout=layout, options=options, fix=fix, jsonl=jsonl)
        except DecodeError as error:
            if jsonl and not keeping:
                raise InvalidLineError(
                    error.reason, line=error.line, column=error.column, pointer=error.pointer
                ) from None
            if not keeping:
                raise
            kept.append(nul_error(record.raw, first_line=record.line) or error)
            continue
        if not isinstance(outcome, Result):  # a clean list, read by the lane
            read += 1
            if every_list:
                conversations.append(_listed(outcome, record, jsonl=jsonl))
            else:
                clean += 1
            continue
        result = outcome
        if result.conversations:
            read += 1
        else:
            unread += 1
            first_unread = record.line if first_unread is None else first_unread
        conversations += result.conversations
        findings += result.findings
        remaining += result.remaining
        if result.patches:
            at = record.offset
            patches += [(at + start, at + end, new) for start, end, new in result.patches]
            fixed += result.fixed
    return Result(
        layout,
        tuple(conversations),
        tuple(findings),
        tuple(fixed),
        tuple(remaining),
        tuple(patches),
        lines=len(decoded.lines),
        invalid_lines=tuple(kept),
        line_count=LineCount(read, unread, first_unread) if jsonl else None,
        clean_lists=clean,
    )


def process_record(
    record: Record, *, layout: str, options: Options, fix: bool, jsonl: bool
) -> Result:
    """Check (and with ``fix``, repair) one record of an input of ``layout``; the result's
    patches are of the record's bytes.

    Raises:
        DecodeError, ShapeError, SelfCheckError: As `Layout.process`.
    """
    outcome = _processed(record, layout=layout, options=options, fix=fix, jsonl=jsonl)
    if isinstance(outcome, Result):
        return outcome
    return Result(layout, (_listed(outcome, record, jsonl=jsonl),), ())


def _listed(lane: Lane, record: Record, *, jsonl: bool) -> Conversation:
    """The conversation of a list the lane proves clean."""
    line = record.line if jsonl else None
    return Conversation(lane.where, line, lane.dialect, lane.messages, None)


def _processed(
    record: Record, *, layout: str, options: Options, fix: bool, jsonl: bool
) -> Result | Lane:
    """`process_record`'s result, or the record's `Lane` where the lane proves it clean."""
    line = record.line if jsonl else None
    # Both the lane and the splice ask whether the record is ASCII: asked once for both.
    ascii_only = record.raw.isascii()
    lane = read_quickly(record.raw, ascii_only=ascii_only) if options.quick else None
    if lane is not None and lane.clean:
        return lane
    from patchcore.raw.splice import Spans

    spans = Spans(record.raw)
    # A record with open calls whose messages are wanted: the lane reads no message whole.
    conversations = None
    if lane is not None and not options.finding_messages:
        conversations = _quick(lane, spans, record, options, line, ascii_only=ascii_only)
    if conversations is None:
        conversations = _checked(
            record, spans, options=options, fixing=fix, line=line, ascii_only=ascii_only
        )
    if jsonl and not options.fix_training_targets:
        listed = [f for c in conversations for f in c.findings]
        conversations = held_targets(conversations, listed, record.parse)[0]
    findings = tuple(f for c in conversations for f in c.findings)
    to_fix = tuple(applied(findings, options)) if fix else ()
    if not to_fix:
        return Result(layout, conversations, findings, remaining=findings)
    from patchcore.layouts.base import unique_edits
    from patchcore.raw.splice import apply_patches, splice_patches

    patches = tuple(
        splice_patches(record.raw, unique_edits(to_fix), spans=spans, ensure_ascii=ascii_only)
    )
    after = _self_check(apply_patches(record.raw, patches), record, options, jsonl=jsonl)
    remaining = still_there(findings, to_fix, after)
    return Result(layout, conversations, findings, to_fix, remaining, patches)


def _checked(
    record: Record,
    spans: Spans,
    *,
    options: Options,
    fixing: bool,
    line: int | None,
    ascii_only: bool,
) -> tuple[Conversation, ...]:
    """Every message list of the record, checked, its findings located in the file."""
    from patchcore.engine.locate import find_message_lists

    try:
        found = find_message_lists(record.parse(), dialects=dialects_for(options))
        if line is not None:
            _refuse_split(found)
        place = _places(spans, record.line, ascii_only=ascii_only)
        return tuple(
            conversation(listed, findings, options=options, line=line)
            for listed, findings in check_lists(found, options, fixing=fixing, place=place)
        )
    except ShapeError as error:
        raise located(error, record, error.path) from None


def _refuse_split(found: Sequence[MessageList]) -> None:
    """Refuse a line of conversation lines that is one message answering a call: its call is on
    another line, so the file's lines are the messages of one conversation, and yet its first
    line is no message (or the message-per-line layout would read it). Its lines would need two
    readings (a conversation per line, and one spread over lines), and toolpatch splits no
    conversation into lines of one message each: each call would be reported pending, each
    result an orphan (docs/formats.md#json-lines-one-conversation-per-line).

    Raises:
        ShapeError: The line is such a message.
    """
    listed = found[0] if len(found) == 1 else None
    dialect = listed.dialect if listed is not None and listed.context.single else None
    if listed is None or dialect is None:
        return
    if dialect.view(listed.messages[0], listed.pointer).results:
        msg = (
            f"this line is one {dialect.name} message that answers a call made on another "
            "line, so the file's lines are one conversation's messages, but its first line is no "
            "message: its lines would need two readings; not split (a log of a format toolpatch "
            "does not read?)"
        )
        raise ShapeError(msg, path=listed.pointer)


def check_lists(
    found: Sequence[MessageList],
    options: Options,
    *,
    fixing: bool,
    place: Callable[[Pointer], tuple[int, int]] | None = None,
) -> list[tuple[MessageList, list[Finding]]]:
    """Each list with its findings (a list with a note is reported, not checked), each at its
    ``place`` where given (`patchcore.engine.check.check_list`); the record's unread call-like
    objects (`MessageList.unread`) are one TP004 finding (`patchcore.engine.unread`).

    A check plans every fix (to report what it would do); a fix plans the unsafe ones only
    when they are allowed, so that the safe ones are planned on their own.
    """
    from patchcore.engine.check import check_list
    from patchcore.engine.unread import UNREAD
    from patchcore.engine.unread import finding as unread_finding

    checked = []
    for listed in found:
        findings: list[Finding] = []
        if listed.unread:
            if UNREAD in options.selection and not options.strip:
                line, column = place(listed.unread[0][0]) if place is not None else (None, None)
                findings = [unread_finding(listed.unread, line=line, column=column)]
                if options.against is not None:  # as `check_list` judges its own findings
                    findings = options.against.broken(findings)
        elif listed.dialect is not None and listed.note is None:
            findings = check_list(
                listed.messages,
                dialect=listed.dialect,
                context=listed.context,
                options=options,
                plan_unsafe=options.unsafe_fixes or not fixing,
                place=place,
            )
        checked.append((listed, findings))
    return checked


def conversation(
    listed: MessageList, findings: Sequence[Finding], *, options: Options, line: int | None
) -> Conversation:
    """The conversation of a list with its findings (with ``with_messages``, its messages and
    the edits of the findings' fixes too)."""
    from patchcore.model import format_pointer

    summary = Conversation(
        format_pointer(listed.pointer),
        line,
        listed.dialect.name if listed.dialect else None,
        sum(1 for m in listed.messages if m is not None),
        listed.note,
        listed.warning,
        tuple(findings),
    )
    if not options.keeps_messages(findings):
        return summary
    return summary.with_messages(listed.messages, listed.context, fix_edits(findings))


def _quick(
    lane: Lane,
    spans: Spans,
    record: Record,
    options: Options,
    line: int | None,
    *,
    ascii_only: bool,
) -> tuple[Conversation, ...] | None:
    """The conversation of a record whose lane has open calls, made without parsing it whole
    (`patchcore.engine.check`); ``None`` if the full path must decide."""
    from patchcore.engine.check import lane_findings

    place = _places(spans, record.line, ascii_only=ascii_only)
    findings = lane_findings(lane, spans, options=options, place=place)
    if findings is None:
        return None
    found = tuple(findings)
    return (Conversation(lane.where, line, lane.dialect, lane.messages, None, False, found),)


def _places(
    spans: Spans, first_line: int, *, ascii_only: bool
) -> Callable[[Pointer], tuple[int, int]]:
    """The line and column in the file of a value of the record ``spans.buf`` (which starts at
    line ``first_line``), by its pointer: counted on from the last one asked, so that a list's
    findings, made in order, are located in one pass over the record (a list of thousands of
    unanswered calls stays linear). ``ascii_only``: the record is ASCII."""
    locator = Locator(spans.buf, ascii_only=ascii_only)

    def place(pointer: Pointer) -> tuple[int, int]:
        line, column = locator.at(spans.span(pointer)[0])
        return line + first_line - 1, column

    return place


def located(error: ShapeError, record: Record, path: Pointer) -> ShapeError:
    """``error`` with the line and column of the value it is about."""
    from patchcore.raw.splice import Spans

    try:
        offset = Spans(record.raw).span(path)[0]
    except KeyError:
        offset = 0
    line, column = line_and_column(record.raw, offset)
    return ShapeError(error.reason, path=error.path, line=line + record.line - 1, column=column)


def _self_check(new_raw: bytes, record: Record, options: Options, *, jsonl: bool) -> list[Finding]:
    """The stability check of a repaired record: it must parse and have nothing left to fix.

    Returns:
        The findings the repaired record still has (none of them fixable).
    """
    if options.quick and clean(new_raw):
        return []
    from patchcore.engine.locate import find_message_lists
    from patchcore.errors import DecodeError

    try:
        value = parse(new_raw, first_line=record.line)
    except DecodeError as error:
        msg = f"internal error: the repair is not readable ({error.reason}); nothing written"
        raise SelfCheckError(msg, line=error.line, column=error.column) from None
    found = find_message_lists(value, dialects=dialects_for(options))
    after = [f for _, findings in check_lists(found, options, fixing=True) for f in findings]
    if jsonl and not options.fix_training_targets:  # `_processed` held the same targets
        after = list(held_targets((), after, lambda: value)[1])
    return self_checked(after, options)


JSON_DOCUMENT = JsonDocument()
CONVERSATION_LINES = ConversationLines()


#: The keys of a line of an OpenAI chat fine-tuning file (``FineTuneChatRequestInput``).
FINE_TUNING_KEYS = frozenset({"messages", "tools", "functions", "parallel_tool_calls"})
#: The keys its messages may have: the fine-tuning input's system, user, assistant and tool
#: messages (``weight`` only exists there).
FINE_TUNING_MESSAGE_KEYS = frozenset(
    {
        "role",
        "content",
        "name",
        "weight",
        "refusal",
        "audio",
        "tool_calls",
        "function_call",
        "tool_call_id",
    }
)
#: Where a fine-tuning record holds its conversation.
_MESSAGES = ("messages",)

#: Why the fix of a training target is held back (after the finding's own sentence): what
#: `patchcore.model.Finding.held` says of it, which `is_training_target` recognises.
TRAINING_TARGET = "the fine-tuning example ends on this call, its training target: left as it is"


def is_training_example(value: Any) -> bool:
    """Whether a line's parsed ``value`` is a fine-tuning record: an object of
    `FINE_TUNING_KEYS` with a ``messages`` list whose messages are objects of
    `FINE_TUNING_MESSAGE_KEYS`."""
    if not isinstance(value, dict) or not value.keys() <= FINE_TUNING_KEYS:
        return False
    messages = value.get("messages")
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(m, dict) and m.keys() <= FINE_TUNING_MESSAGE_KEYS for m in messages)
    )


def held_targets(
    conversations: Sequence[Conversation], findings: Sequence[Finding], value: Callable[[], Any]
) -> tuple[tuple[Conversation, ...], tuple[Finding, ...]]:
    """The checked lists of one line of conversation lines and their ``findings``, with the fix
    of each call its example ends on held back (`TRAINING_TARGET`), when the line (its parsed
    ``value``, asked only where a finding could be one) is a fine-tuning example
    (`is_training_example`). Both the check of a line and the self-check of its repair judge
    it so: the targets a repair leaves are not left to fix."""
    ending = [f for f in findings if f.pending and f.list_pointer == _MESSAGES]
    if not ending:
        return tuple(conversations), tuple(findings)
    parsed = value()
    if not is_training_example(parsed):
        return tuple(conversations), tuple(findings)
    last = len(parsed["messages"]) - 1
    targets = [f for f in ending if f.message_index == last and f.dialect == "openai-chat"]
    return held_back(conversations, findings, targets, TRAINING_TARGET)


def is_training_target(finding: Finding) -> bool:
    """Whether ``finding`` is a call a fine-tuning example ends on, its fix held back."""
    return finding.held == TRAINING_TARGET


def training_data(result: Result) -> TrainingData | None:
    """The judgement of ``result`` (a whole input's, or a stream's), or ``None`` when no example
    of it ends on its call (nothing was held back as a target)."""
    targets = [f for f in result.findings if is_training_target(f)]
    if not targets:
        return None
    # Made only here: its class is among the engine's values (`patchcore.model`), which a run
    # without training targets never loads.
    from patchcore.model import TrainingData

    checked = [c for c in result.conversations if c.dialect is not None and c.note is None]
    return TrainingData(
        examples=len({f.line for f in targets}),
        targets=len(targets),
        conversations=len(checked) + result.clean_lists,
    )
