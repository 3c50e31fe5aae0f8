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
from dataclasses import dataclass, field
from typing import Any

from cli import message_text
from cli.console import Printer
from cli.text_report import MARKS, fixability
from cli.visible import visible, visible_lines
from patchcore.dialects.base import ListContext
from patchcore.document import Report, dialects_for, run, unique_edits
from patchcore.engine.locate import MessageList, classify, find_message_lists
from patchcore.errors import ShapeError
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
from patchcore.options import Options
from patchcore.raw.codec import Framing, decode

#: How much of a message's text is shown without ``--full``.
TEXT_LIMIT = 600
#: How much of a call's arguments or a result is shown without ``--full``.
DETAIL_LIMIT = 160


@dataclass(frozen=True)
class Conversation:
    """One message list of the input, with its findings and the edits ``fix`` would make.

    Attributes:
        listed: The list (its messages, dialect and place).
        line: The line of its JSON Lines record, or ``None`` in a JSON document.
        findings: Its findings.
        fixed: The findings whose fix ``fix`` applies.
    """

    listed: MessageList
    line: int | None
    findings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)


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


def conversations(data: bytes, *, name: str | None, options: Options) -> list[Conversation]:
    """Every message list of ``data`` with its findings and fixes.

    Raises:
        PatchcoreError: As `patchcore.document.run` (located where possible).
    """
    report = run(data, filename=name, options=options, fix=True)
    decoded = decode(data, filename=name)
    dialects = dialects_for(options)
    if report.framing == "jsonl-messages":
        values = [record.parse() for record in decoded.records]
        kind = classify(values, dialects)
        assert kind is not None
        listed = MessageList(ListContext(()), values, kind.dialect, kind.note, kind.warning)
        found = [Conversation(listed, decoded.records[0].line)]
    else:
        jsonl = decoded.framing is Framing.JSONL
        found = [
            Conversation(listed, record.line if jsonl else None)
            for record in decoded.records
            for listed in find_message_lists(record.parse(), dialects=dialects)
        ]
    _attach(found, report)
    return found


def _attach(found: Sequence[Conversation], report: Report) -> None:
    """Give each conversation its findings, matched on list pointer and, for JSON Lines of
    conversations, on the line of the record (a finding's line is its record's there)."""
    fixed = {id(f) for f in report.fixed}
    per_line = report.framing == Framing.JSONL.value
    for conversation in found:
        for finding in report.findings:
            same_record = not per_line or finding.line == conversation.line
            if same_record and finding.list_pointer == conversation.listed.pointer:
                conversation.findings.append(finding)
                if id(finding) in fixed:
                    conversation.fixed.append(finding)


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

    def __init__(self, conversation: Conversation, *, full: bool) -> None:
        self.conversation = conversation
        self.text_limit = None if full else TEXT_LIMIT
        self.detail_limit = None if full else DETAIL_LIMIT

    def heading(self, name: str) -> Any:
        """The rule above the panels: where the list is, its dialect and size."""
        from rich.rule import Rule
        from rich.text import Text

        listed = self.conversation.listed
        where = name if self.conversation.line is None else f"{name}:{self.conversation.line}"
        pointer = format_pointer(listed.pointer) or "/"
        dialect = listed.dialect.name if listed.dialect else "not read"
        title = f"{where} {pointer} · {dialect} · {len(listed.messages)} messages"
        if listed.note:
            title += f" · {listed.note}"
        return Rule(Text(visible(title)), align="left", style="bold")

    def panels(self) -> list[Any]:
        """A panel per message, with the inserted ones in their place."""
        listed = self.conversation.listed
        slots = changes(listed.context, unique_edits(self.conversation.fixed), len(listed.messages))
        by_message: dict[int, list[Finding]] = {}
        for finding in self.conversation.findings:
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

        listed = self.conversation.listed
        message = listed.messages[index]
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
        listed = self.conversation.listed
        if message is None or listed.dialect is None or listed.note is not None:
            return
        try:
            view = listed.dialect.view(message, listed.context.message_pointer(index))
        except ShapeError:
            return
        for call in view.calls:
            args = message_text.arguments(message_text.at(message, call.path))
            body.append("→ call ", style="bold cyan")
            body.append(visible(f"{call.name or 'unknown'} (id {call.id or '-'})"), style="cyan")
            if args:
                body.append(" " + visible(message_text.shorten(args, self.detail_limit)))
            body.append("\n")
        for answer in view.results:
            body.append("← result", style="bold magenta")
            paired = f" for {answer.key}" if answer.keyed else " (paired by name and position)"
            body.append(visible(paired) + "\n", style="magenta")

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
        """The words of an inserted value (or where a moved one comes from), on one line."""
        if isinstance(value, Verbatim):
            return visible(f"from {format_pointer(value.pointer)}")
        words = message_text.text(value) or message_text.compact(value)
        return visible(message_text.shorten(words, self.detail_limit))


def render(found: Sequence[Conversation], printer: Printer, *, name: str, full: bool) -> None:
    """Print every conversation: a heading, then its panels."""
    for conversation in found:
        view = ConversationView(conversation, full=full)
        printer.render(view.heading(name))
        for panel in view.panels():
            printer.render(panel)
