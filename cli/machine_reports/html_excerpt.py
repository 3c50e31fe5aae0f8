"""The messages around one finding, and what its fix writes there, for the HTML report.

Drawn from the conversation as the engine checked it (`patchcore.Options.finding_messages`),
with the finding's own fix laid over it as ``toolpatch show`` lays it
(`patchcore.Conversation.message_changes`): never a second reading of the input. An excerpt is
small whatever the history: a few messages on each side of the calling message and of each
place the fix writes to, each cut short, the messages left out in between counted, so the page
grows with the findings, not the corpus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..console import visible, visible_lines
from ..show import detail, shorten, tool_lines

if TYPE_CHECKING:
    from patchcore import Conversation

#: How much of a message's text (and of a call's arguments, an inserted result) an excerpt keeps.
TEXT_LIMIT = 240
#: How many messages are shown before the calling message, and around a place the fix writes to.
CONTEXT = 2
#: The most messages (inserted ones included) an excerpt holds.
MOST_ITEMS = 16

#: One line of an excerpt: ``[kind, title, text]``. Kinds: ``message`` (a message of the
#: history), ``call`` (the message with the finding's call), ``insert`` (what the fix inserts,
#: the highlight), ``change`` (content the fix sets, rewrites or drops), ``gap`` (messages left
#: out: the title counts them).
Item = list[str]


def _message(conversation: Conversation, index: int, *, kind: str) -> Item:
    """The ``index``-th message: its position and role, its words, and its calls and results.
    Its position counts from 1, as the findings table's "6 of 8" does (it said "#5" there)."""
    assert conversation.messages is not None
    value = conversation.messages[index]
    words = [visible_lines(shorten(conversation.text_of(value), TEXT_LIMIT))]
    for line in tool_lines(conversation, value, index):
        shown = shorten(line.detail, TEXT_LIMIT)
        words.append(visible(f"{line.label.strip()} {line.what.strip()} {shown}".rstrip()))
    title = visible(f"#{index + 1} {conversation.role_of(value)}")  # counted as the table counts
    return [kind, title, "\n".join(w for w in words if w)]


def excerpt(conversation: Conversation, finding_index: int) -> list[Item] | None:
    """The excerpt of the conversation's ``finding_index``-th finding, or ``None`` when its
    messages were not kept (a part of the input kept unread)."""
    values, context = conversation.messages, conversation.context
    if values is None or context is None:
        return None
    size = len(values)
    finding = conversation.findings[finding_index]
    slots = conversation.message_changes({finding_index})
    touched = [k for k, slot in enumerate(slots) if slot.touched]
    calling = finding.message_index
    wanted = set(range(calling - CONTEXT, calling + 2))
    for k in touched:
        wanted |= set(range(k - 1, k + 2))
    items: list[Item] = []
    last = -1
    for k in sorted(i for i in wanted if 0 <= i <= size):
        if k > last + 1:
            items.append(["gap", f"{k - last - 1} messages left out", ""])
        last = k
        slot = slots[k]
        items += [
            ["insert", _inserted_title(conversation, v), _words(conversation, v)]
            for v in slot.inserted_before
        ]
        if k == size:
            continue
        items.append(_message(conversation, k, kind="call" if k == calling else "message"))
        items += [
            ["insert", "inserted by fix", _words(conversation, v)] for v in slot.inserted_inside
        ]
        items += [
            ["change", "set by fix", f"{visible(_pointer(path))} = {_words(conversation, v)}"]
            for path, v in slot.written
        ]
        if slot.rewritten:
            items.append(["change", "rewritten by fix", "results first"])
        items += [
            ["change", "dropped by fix", visible(_pointer(path)) or "the whole message"]
            for path in slot.removed
        ]
    if last < size - 1:
        items.append(["gap", f"{size - 1 - last} messages left out", ""])
    return items[:MOST_ITEMS]


def _words(conversation: Conversation, value: Any) -> str:
    """What the fix writes (or where it moves content from), cut short."""
    return detail(conversation, value, TEXT_LIMIT)


def _inserted_title(conversation: Conversation, value: Any) -> str:
    """The title of a whole message the fix inserts (or moves)."""
    from patchcore import Verbatim

    if isinstance(value, Verbatim):
        return "moved here by fix"
    return visible(f"{conversation.role_of(value)} inserted by fix")


def _pointer(path: Any) -> str:
    from patchcore import format_pointer

    return str(format_pointer(path))
