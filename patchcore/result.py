"""What a run yields: `Result`, the one outcome of checking (and fixing) bytes, whatever their
layout and however they were read (a whole document, a batch of lines, a streamed corpus).

A result carries what was checked, not only what was found: every `Conversation` of the input
(its place, dialect and size, and with ``with_messages`` the messages as the engine read them
and the edits the fix plans in them), so that whoever shows a history (``toolpatch show``)
draws what the engine checked instead of reading the input a second time.

Only typing imports at run time: a run whose records are all proven clean by the quick lane
builds results without loading the engine.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from patchcore.fast_fields import replacer, sent_as_fields

if TYPE_CHECKING:
    from patchcore.dialects.base import Dialect, ListContext
    from patchcore.errors import DecodeError
    from patchcore.message_changes import MessageChanges
    from patchcore.model import Edit, Finding, MessageView, ToolCall
    from patchcore.raw.splice import Patch


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Conversation:
    """One message list of the input, as the engine checked it.

    Attributes:
        pointer: JSON pointer of the list in its record (``""`` for a list that is the record,
            or is spread over lines: one message per line, an agent session's events).
        line: The line of its record, or of its first message, in JSON Lines; ``None`` in a
            JSON document.
        dialect: Dialect name, or ``None`` when it was not read.
        message_count: Number of messages.
        note: Why it was not checked, if it was not.
        warning: The note is a problem worth showing (mixed dialects, an entry kept unread),
            not routine.
        findings: Its selected findings, located in the file, in order.
        messages: With ``with_messages``: the messages as the engine read them (for an agent
            session, one merged message per turn), else ``None``.
        context: With ``with_messages``: where the list sits in its record, which is what the
            planned edits are relative to.
        edits: With ``with_messages``: for each finding, the edits of its fix in terms of
            ``messages`` and ``context`` (for a session, what the entries it writes amount to).
    """

    pointer: str
    line: int | None
    dialect: str | None
    message_count: int
    note: str | None
    warning: bool = False
    findings: tuple[Finding, ...] = ()
    messages: tuple[Any, ...] | None = None
    context: ListContext | None = None
    edits: tuple[tuple[Edit, ...], ...] = ()

    def with_messages(
        self, messages: Sequence[Any], context: ListContext, edits: Sequence[tuple[Edit, ...]]
    ) -> Conversation:
        """The same conversation carrying what ``with_messages`` keeps: the messages the engine
        checked, where their list sits, and for each finding the edits of its fix in terms of
        those messages (`fix_edits` where the findings' own fixes are such edits)."""
        return replace(self, messages=tuple(messages), context=context, edits=tuple(edits))

    def message_changes(self, fixed: Collection[int]) -> tuple[MessageChanges, ...]:
        """What the fixes of the findings ``fixed`` (their indexes in ``findings``) do at each
        message: one `MessageChanges` per message of ``messages``, and one more for the end of
        the list; none when the messages were not kept (``with_messages``)."""
        if self.messages is None or self.context is None:
            return ()
        from patchcore.message_changes import changes
        from patchcore.model import distinct_edits

        edits = distinct_edits(
            e for k, planned in enumerate(self.edits) if k in fixed for e in planned
        )
        return changes(self.context, edits, len(self.messages))

    def view(self, index: int) -> MessageView | None:
        """The calls and results of message ``index`` as its dialect reads them, or ``None``
        where it was not read (a list kept unread, an element without a message, a message
        whose tool fields do not read, messages not kept)."""
        if self.messages is None or self.context is None or self.dialect is None:
            return None
        message = self.messages[index]
        if message is None or self.note is not None:
            return None
        from patchcore.dialects import dialect_named
        from patchcore.errors import ShapeError

        try:
            return dialect_named(self.dialect).view(message, self.context.message_pointer(index))
        except ShapeError:
            return None

    def role_of(self, message: Any) -> str:
        """A message's kind as people read it (``toolpatch show``), as its dialect says it
        (`patchcore.dialects.base.Dialect.role_of`): ``assistant``, ``ai``, ``AIMessage``,
        ``function_call``, ..., or ``message``."""
        return self._reading(message).role_of(message)

    def text_of(self, value: Any) -> str:
        """The words of a message of the list, or of a value a fix writes into it, as its
        dialect reads them (`patchcore.dialects.base.Dialect.text_of`); calls and data left
        out."""
        return self._reading(value).text_of(value)

    def written_words(self, value: Any) -> str:
        """What people read of a value a fix writes into the list (a result, a field): its
        words (`text_of`), or where it has none, the value as one line of JSON."""
        from patchcore.dialects.base import compact

        return self.text_of(value) or compact(value)

    def arguments_of(self, index: int, call: ToolCall) -> str:
        """The arguments of ``call``, a call of message ``index`` (`view`), as one line of JSON
        (a string, such as OpenAI's, as written), as its dialect reads them; empty where there
        are none or the messages were not kept."""
        if self.messages is None:
            return ""
        value = self.messages[index]
        for part in call.path:
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError):
                return ""
        return self._reading(self.messages[index]).arguments_of(value)

    def _reading(self, value: Any) -> Dialect:
        """The dialect that reads ``value`` for people: the list's, or in a list no one dialect
        reads (mixed), the first that recognises it best."""
        from patchcore.dialects import DIALECTS, dialect_named

        if self.dialect is not None:
            return dialect_named(self.dialect)
        return max(DIALECTS, key=lambda dialect: dialect.recognize(value))

    def moved(self, lines: int, findings: Mapping[int, Finding]) -> Conversation:
        """The same conversation ``lines`` lines further down (found in a piece of the input
        numbered from its own first line). ``findings``: its findings already moved, by the
        ``id`` of each unmoved one: the piece's result holds the same findings, and moving
        them once for both keeps the conversations' findings the result's, as in the first
        piece."""
        line = None if self.line is None else self.line + lines
        return _moved(self, line, tuple(findings[id(f)] for f in self.findings))


_moved = replacer(Conversation, "line", "findings")


@sent_as_fields
@dataclass(frozen=True, slots=True)
class LineCount:
    """How the lines of a corpus of conversation lines went: how many hold a message list, how
    many hold none (passed over, written back as they are) and the first of those.

    Attributes:
        read: Lines that hold at least one message list.
        unread: JSON lines that hold none.
        first_unread: The line number of the first of them.
    """

    read: int = 0
    unread: int = 0
    first_unread: int | None = None

    def __add__(self, later: LineCount) -> LineCount:
        """The counts of this piece and of a ``later`` one (numbered on the same lines)."""
        first = self.first_unread if self.first_unread is not None else later.first_unread
        return LineCount(self.read + later.read, self.unread + later.unread, first)

    def moved(self, lines: int) -> LineCount:
        """The same counts, ``lines`` lines further down."""
        first = self.first_unread
        return replace(self, first_unread=None if first is None else first + lines)


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Result:
    """The outcome for one input, or one piece of it.

    Attributes:
        layout: How the input holds its conversations (`patchcore.layouts`): ``"json"``,
            ``"jsonl"`` (histories inside lines), ``"jsonl-messages"`` (one message per line),
            ``"otlp-traces"`` (an OpenTelemetry trace export, checked only), or an agent
            session's layout (``"claude-code-session"``, ...).
        conversations: Every message list found, in input order (and a warning for each part
            of the input kept unread).
        findings: Every selected finding (before any fix), in input order.
        fixed: Findings whose fix is in the repair.
        remaining: Findings still there after the fix (all of them for a check), as located in
            the input; a finding the other fixes made go away is not among them.
        patches: The repair as patches of the input's body (after a byte-order mark; for a
            batch, of the batch): byte ranges and their new bytes. None when nothing changed.
        output: The repaired bytes of a whole input (byte-order mark included), or ``None`` when
            nothing changed or the input was streamed (its output is what the stream yielded).
        lines: How many physical lines the input (or batch) has.
        invalid_lines: With ``keep_invalid_lines``: why each line of conversation lines that is not
            JSON was kept as it is (in input order, located: line and column in the input);
            nothing was checked in them, and the output holds them byte for byte.
        live: The input is an agent session that may still be running (`patchcore.Options.live`,
            ``live_since``): its pending calls were held back, and whoever writes the repair
            should not put a new file in place of the log its agent may still append to.
        last_entry: The newest time the session log records for its entries (seconds since
            the epoch), when it is a session log that records one: what decided ``live``
            where ``live_since`` was given.
        line_count: For conversation lines, how many lines hold a message list and how many
            hold none (`LineCount`); ``None`` for other layouts.
        clean_lists: For a streamed input (`patchcore.Stream`), how many checked message lists
            without findings, note or warning were counted but are not in ``conversations``:
            a corpus has millions of them, and memory must not grow with its lines. 0 when
            every list is there.
    """

    layout: str
    conversations: tuple[Conversation, ...]
    findings: tuple[Finding, ...]
    fixed: tuple[Finding, ...] = ()
    remaining: tuple[Finding, ...] = ()
    patches: tuple[Patch, ...] = ()
    output: bytes | None = None
    lines: int = 1
    invalid_lines: tuple[DecodeError, ...] = ()
    live: bool = False
    last_entry: float | None = None
    line_count: LineCount | None = None
    clean_lists: int = 0

    def without_messages(self) -> Result:
        """The same result without what ``with_messages`` (or ``finding_messages``) keeps:
        for a caller done with the messages, which would otherwise be held to the end."""
        if all(c.messages is None for c in self.conversations):
            return self
        bare = tuple(replace(c, messages=None, context=None, edits=()) for c in self.conversations)
        return replace(self, conversations=bare)

    def message_changes(self, conversation: Conversation) -> tuple[MessageChanges, ...]:
        """What this result's fix does at each message of ``conversation`` (one of its own):
        `Conversation.message_changes` of the findings in ``fixed``."""
        fixed = {id(f) for f in self.fixed}
        return conversation.message_changes(
            {k for k, f in enumerate(conversation.findings) if id(f) in fixed}
        )

    @property
    def changed(self) -> bool:
        """Whether the fix changed anything (every fix applied edits the bytes)."""
        return bool(self.fixed)

    @property
    def holds_input(self) -> bool:
        """Whether the repair must not be put in place of the input (docs/cli.md#live-sessions):
        it changes a session log whose agent may still be running (``live``), and a new file
        in its place would lose what the agent appends next. Written elsewhere, it may be;
        then `unwritten` is what was done to the input."""
        return self.live and self.changed

    def unwritten(self) -> Result:
        """This result as it stands when its repair is not written: nothing fixed, every
        finding left (as located in the input)."""
        return replace(self, fixed=(), remaining=self.findings, patches=(), output=None)


def fix_edits(findings: Sequence[Finding]) -> tuple[tuple[Edit, ...], ...]:
    """For each finding, the edits of its fix (none without one)."""
    return tuple(f.fix.edits if f.fix is not None else () for f in findings)


def moved(finding: Finding, lines: int) -> Finding:
    """``finding`` ``lines`` lines further down."""
    return (
        finding.placed(finding.line + lines, finding.column)
        if finding.line is not None
        else finding
    )
