"""``toolpatch show FILE``: a history as people read it, one Rich panel per message.

Each panel names the message's position and role and shows its text (cut to a readable length
unless ``--full``), the tool calls it makes (name, id, arguments) and the results it holds. A
message with a finding has a red border and the finding under its text; what ``toolpatch fix``
would do is shown in place, with the fix applied in memory only: synthetic results appear as
green panels (or green lines inside the message they go into) marked as inserted, and content an
unsafe fix drops or rewrites is marked too. Nothing is written.

Everything taken from the data (names, ids, arguments, texts, pointers) is shown through
`cli.visible`, and titles are `Text`, never Rich markup: a history cannot style or drive the
terminal it is shown on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from patchcore.model import (
    Delete,
    Edit,
    Finding,
    Insert,
    Pointer,
    Replace,
    Verbatim,
    distinct_edits,
    format_pointer,
)

from . import message_text
from .console import Printer
from .text_report import MARKS, fixability
from .visible import visible, visible_lines

if TYPE_CHECKING:
    from patchcore import Conversation, Options
    from patchcore.dialects.base import ListContext

#: How much of a message's text is shown without ``--full``.
TEXT_LIMIT = 600
#: How much of a call's arguments or a result is shown without ``--full``.
DETAIL_LIMIT = 160


@dataclass(frozen=True)
class Shown:
    """One conversation as the engine checked it, and which of its findings ``fix`` fixes.

    Attributes:
        conversation: The conversation, with its messages (``with_messages``).
        fixed: Which of its findings (by index) the fix applies.
    """

    conversation: Conversation
    fixed: frozenset[int]

    def edits(self) -> list[Edit]:
        """The edits the fix makes in the conversation's messages, each once, in order."""
        planned = self.conversation.edits
        return distinct_edits(
            e for k, edits in enumerate(planned) if k in self.fixed for e in edits
        )


@dataclass
class MessageChanges:
    """What the fix does to one message of a list."""

    inserted_before: list[Any] = field(default_factory=list)
    """Whole messages inserted before it."""
    inserted_inside: list[Any] = field(default_factory=list)
    """Blocks (results) added inside it."""
    rewritten: bool = False
    """Part of it is replaced (its content wrapped into blocks, results moved first)."""
    written: list[tuple[Pointer, Any]] = field(default_factory=list)
    """Fields set to a new value (the status of a call whose result the fix records)."""
    removed: list[Pointer] = field(default_factory=list)
    """Paths inside it that are dropped (``()``: the whole message)."""

    @property
    def touched(self) -> bool:
        """Whether the fix does anything here."""
        return bool(
            self.inserted_before
            or self.inserted_inside
            or self.written
            or self.rewritten
            or self.removed
        )


def conversations(data: bytes, *, name: str | None, options: Options) -> list[Shown]:
    """Every conversation of ``data`` as the engine checked it (one ``fix`` run, with the
    messages kept), with the findings its fix applies.

    Raises:
        PatchcoreError: As `patchcore.fix_document` (located where possible).
    """
    import patchcore

    result = patchcore.fix_document(
        data, filename=name, options=replace(options, with_messages=True)
    )
    fixed = {id(f) for f in result.fixed}
    return [
        Shown(c, frozenset(k for k, f in enumerate(c.findings) if id(f) in fixed))
        for c in result.conversations
    ]


def _message_index(context: ListContext, pointer: Pointer) -> int | None:
    """Which message of the list ``pointer`` (inside the record) is in, if any."""
    if context.single:
        return 0
    prefix = context.pointer
    if pointer[: len(prefix)] != prefix or len(pointer) <= len(prefix):
        return None
    index = pointer[len(prefix)]
    return index if isinstance(index, int) else None


def keeps_original(value: Any) -> bool:
    """Whether ``value`` holds original content (a `Verbatim` anywhere inside)."""
    if isinstance(value, Verbatim):
        return True
    if isinstance(value, dict):
        return any(keeps_original(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(keeps_original(v) for v in value)
    return False


def changes(context: ListContext, edits: Sequence[Edit], size: int) -> list[MessageChanges]:
    """What ``edits`` do to each message of a list of ``size`` (one more slot: the end)."""
    slots = [MessageChanges() for _ in range(size + 1)]
    for edit in edits:
        if isinstance(edit, Insert) and edit.array == context.pointer and not context.single:
            slots[min(edit.index, size)].inserted_before += edit.values
            continue
        pointer = edit.array if isinstance(edit, Insert) else edit.pointer
        index = _message_index(context, pointer)
        if index is None or index >= size:
            continue
        inside = pointer[len(context.message_pointer(index)) :]
        if isinstance(edit, Insert):
            slots[index].inserted_inside += edit.values
        elif isinstance(edit, Replace) and not keeps_original(edit.value):
            # A value written in place: blocks (results) added, or a field set (a status).
            if isinstance(edit.value, list):
                slots[index].inserted_inside += edit.value
            else:
                slots[index].written.append((inside, edit.value))
        elif isinstance(edit, Replace):
            # The new value re-wraps original content (`Verbatim` parts) around added blocks.
            slots[index].rewritten = True
            new = edit.value if isinstance(edit.value, list) else [edit.value]
            slots[index].inserted_inside += [v for v in new if not keeps_original(v)]
        else:
            assert isinstance(edit, Delete)
            slots[index].removed.append(inside)
    return slots


class ConversationView:
    """Renders one conversation as Rich panels."""

    def __init__(self, shown: Shown, *, full: bool) -> None:
        self.shown = shown
        self.conversation = shown.conversation
        self.text_limit = None if full else TEXT_LIMIT
        self.detail_limit = None if full else DETAIL_LIMIT

    def heading(self, name: str) -> Any:
        """The rule above the panels: where the list is, its dialect and size."""
        from rich.rule import Rule
        from rich.text import Text

        listed = self.conversation
        where = name if listed.line is None else f"{name}:{listed.line}"
        pointer = listed.pointer or "/"
        dialect = listed.dialect or "not read"
        title = f"{where} {pointer} · {dialect} · {listed.message_count} messages"
        if listed.note:
            title += f" · {listed.note}"
        return Rule(Text(visible(title)), align="left", style="bold")

    def panels(self) -> list[Any]:
        """A panel per message, with the inserted ones in their place."""
        listed = self.conversation
        if listed.messages is None or listed.context is None:
            return []  # a part of the input kept unread: its heading says why
        slots = changes(listed.context, self.shown.edits(), len(listed.messages))
        by_message: dict[int, list[Finding]] = {}
        for finding in listed.findings:
            by_message.setdefault(finding.message_index, []).append(finding)
        rendered = []
        for index, slot in enumerate(slots):
            rendered += [self._inserted(value) for value in slot.inserted_before]
            if index < len(listed.messages):
                rendered.append(self._message(index, slot, by_message.get(index, [])))
        return rendered

    def _message(self, index: int, slot: MessageChanges, findings: list[Finding]) -> Any:
        from rich.panel import Panel
        from rich.text import Text

        assert self.conversation.messages is not None
        message = self.conversation.messages[index]
        body = Text()
        words = message_text.text(message)
        if words:
            body.append(visible_lines(message_text.shorten(words, self.text_limit)) + "\n")
        self._calls_and_results(body, message, index)
        for value in slot.inserted_inside:
            body.append("+ inserted by fix: ", style="bold green")
            body.append(self._detail(value) + "\n", style="green")
        for path, value in slot.written:
            body.append(f"~ set by fix: {format_pointer(path)} = ", style="yellow")
            body.append(self._detail(value) + "\n", style="yellow")
        if slot.rewritten:
            body.append("~ rewritten by fix (results first)\n", style="yellow")
        for path in slot.removed:
            what = "the whole message" if not path else visible(format_pointer(path))
            body.append(f"- dropped by fix: {what}\n", style="bold yellow")
        for finding in findings:
            mark = MARKS[fixability(finding)]
            body.append(f"✗ {finding.code}{mark} {finding.rule}: ", style="bold red")
            body.append(visible(finding.message) + "\n", style="red")
        body.rstrip()
        title = Text(visible(f"#{index} {message_text.role(message)}"))
        border = "red" if findings else "blue"
        return Panel(body, title=title, title_align="left", border_style=border)

    def _calls_and_results(self, body: Any, message: Any, index: int) -> None:
        """A line per tool call (name, id, arguments) and per result (the call it answers)."""
        for line in tool_lines(self.conversation, message, index):
            style = "cyan" if line.call else "magenta"
            body.append(line.label, style=f"bold {style}")
            body.append(visible(line.what), style=style)
            if line.detail:
                body.append(" " + visible(message_text.shorten(line.detail, self.detail_limit)))
            body.append("\n")

    def _inserted(self, value: Any) -> Any:
        from rich.panel import Panel
        from rich.text import Text

        body = Text(self._detail(value), style="green")
        if isinstance(value, Verbatim):
            title = "+ moved here by fix"
        else:
            title = visible(f"+ {message_text.role(value)} (inserted by fix)")
        return Panel(body, title=Text(title), title_align="left", border_style="green")

    def _detail(self, value: Any) -> str:
        return detail(value, self.detail_limit)


def detail(value: Any, limit: int | None) -> str:
    """The words of an inserted value (or where a moved one comes from), on one line, cut to
    ``limit`` characters."""
    if isinstance(value, Verbatim):
        return visible(f"from {format_pointer(value.pointer)}")
    words = message_text.text(value) or message_text.compact(value)
    return visible(message_text.shorten(words, limit))


@dataclass(frozen=True)
class ToolLine:
    """One tool call or result of a message, as a line of a view.

    Attributes:
        call: A call (else a result).
        label: ``→ call `` or ``← result``.
        what: The call's name and id, or which call the result answers.
        detail: A call's arguments, as written (uncut); empty for a result.
    """

    call: bool
    label: str
    what: str
    detail: str = ""


def tool_lines(conversation: Conversation, message: Any, index: int) -> list[ToolLine]:
    """The calls and results of the ``index``-th message of ``conversation``, as its dialect
    reads them (none when the list was not read, or the message does not read)."""
    from patchcore import ShapeError
    from patchcore.dialects import dialect_named

    if message is None or conversation.dialect is None or conversation.note is not None:
        return []
    assert conversation.context is not None
    try:
        view = dialect_named(conversation.dialect).view(
            message, conversation.context.message_pointer(index)
        )
    except ShapeError:
        return []
    lines = [
        ToolLine(
            True,
            "→ call ",
            f"{call.name or 'unknown'} (id {call.id or '-'})",
            message_text.arguments(message_text.at(message, call.path)),
        )
        for call in view.calls
    ]
    for answer in view.results:
        paired = f" for {answer.key}" if answer.keyed else " (paired by name and position)"
        lines.append(ToolLine(False, "← result", paired))
    return lines


def render(found: Sequence[Shown], printer: Printer, *, name: str, full: bool) -> None:
    """Print every conversation: a heading, then its panels."""
    for shown in found:
        view = ConversationView(shown, full=full)
        printer.render(view.heading(name))
        for panel in view.panels():
            printer.render(panel)
