"""``toolpatch show FILE``: a history as people read it, one Rich panel per message.

Each panel names the message's position and role and shows its text (cut to a readable length
unless ``--full``), the tool calls it makes (name, id, arguments) and the results it holds. A
message with a finding has a red border and the finding under its text; what ``toolpatch fix``
would do is shown in place, with the fix applied in memory only: synthetic results appear as
green panels (or green lines inside the message they go into) marked as inserted, and content an
unsafe fix drops or rewrites is marked too. Nothing is written.

Everything taken from the data (names, ids, arguments, texts, pointers) is shown through
`cli.console`, and titles are `Text`, never Rich markup: a history cannot style or drive the
terminal it is shown on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from patchcore import Verbatim, format_pointer

from .console import Printer, visible, visible_lines
from .text_report import MARKS, fixability

if TYPE_CHECKING:
    from patchcore import Conversation, Finding, MessageChanges, Options

#: How much of a message's text is shown without ``--full``.
TEXT_LIMIT = 600
#: How much of a call's arguments or a result is shown without ``--full``.
DETAIL_LIMIT = 160


@dataclass(frozen=True)
class Shown:
    """One conversation as the engine checked it, and what ``fix`` does at each of its messages.

    Attributes:
        conversation: The conversation, with its messages (``with_messages``).
        changes: What the fix does at each message, and at the end of the list
            (`patchcore.Result.message_changes`).
    """

    conversation: Conversation
    changes: tuple[MessageChanges, ...]


def conversations(data: bytes, *, name: str | None, options: Options) -> list[Shown]:
    """Every conversation of ``data`` as the engine checked it (one ``fix`` run, with the
    messages kept), with what its fix does.

    Raises:
        PatchcoreError: As `patchcore.fix_document` (located where possible).
    """
    import patchcore

    result = patchcore.fix_document(
        data, filename=name, options=replace(options, with_messages=True)
    )
    return [Shown(c, result.message_changes(c)) for c in result.conversations]


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
        slots = self.shown.changes
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
        words = self.conversation.text_of(message)
        if words:
            body.append(visible_lines(shorten(words, self.text_limit)) + "\n")
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
        title = Text(visible(f"#{index} {self.conversation.role_of(message)}"))
        border = "red" if findings else "blue"
        return Panel(body, title=title, title_align="left", border_style=border)

    def _calls_and_results(self, body: Any, message: Any, index: int) -> None:
        """A line per tool call (name, id, arguments) and per result (the call it answers)."""
        for line in tool_lines(self.conversation, message, index):
            style = "cyan" if line.call else "magenta"
            body.append(line.label, style=f"bold {style}")
            body.append(visible(line.what), style=style)
            if line.detail:
                body.append(" " + visible(shorten(line.detail, self.detail_limit)))
            body.append("\n")

    def _inserted(self, value: Any) -> Any:
        from rich.panel import Panel
        from rich.text import Text

        # a message: a message's limit
        body = Text(detail(self.conversation, value, self.text_limit), style="green")
        if isinstance(value, Verbatim):
            title = "+ moved here by fix"
        else:
            title = visible(f"+ {self.conversation.role_of(value)} (inserted by fix)")
        return Panel(body, title=Text(title), title_align="left", border_style="green")

    def _detail(self, value: Any) -> str:
        return detail(self.conversation, value, self.detail_limit)


def detail(conversation: Conversation, value: Any, limit: int | None) -> str:
    """The words of a value inserted into ``conversation`` (or where a moved one comes from),
    on one line, cut to ``limit`` characters."""
    if isinstance(value, Verbatim):
        return visible(f"from {format_pointer(value.pointer)}")
    return visible(shorten(conversation.written_words(value), limit))


def shorten(words: str, limit: int | None) -> str:
    """``words`` cut to ``limit`` characters (``None``: no limit), saying how much was left."""
    if limit is None or len(words) <= limit:
        return words
    return f"{words[:limit].rstrip()}… ({len(words) - limit} more characters)"


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
    reads them (`patchcore.Conversation.view`; none when it was not read)."""
    view = conversation.view(index)
    if view is None:
        return []
    lines = [
        ToolLine(
            True,
            "→ call ",
            f"{call.name or 'unknown'} (id {call.id or '-'})",
            conversation.arguments_of(index, call),
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
