"""Find the message lists inside a parsed record, wherever they sit.

Real files keep histories at many places (``messages``, ``values.messages``, ``inputs.messages``
as a list of lists, ``history``, ``[*].traj``, ``simulations[*].messages``, ...). Rather than a
list of known keys, the locator walks the whole value: a list is a message list when every
element is an object that some dialect recognises. It does not descend into a message list (a
message's own content is not a history), and it reports, without repairing, lists that only copy
a history (LangGraph ``metadata.writes``) or mix dialects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from patchcore.dialects import Dialect, Recognition
from patchcore.model import Pointer

#: Keys under which an empty list still counts as an (empty) history (so does a bare ``[]``).
HISTORY_KEYS = frozenset({"messages", "history", "traj", "conversations", "chat_history"})
#: Keys whose lists are deltas or copies of a history held elsewhere in the same record.
COPY_KEYS = {"writes": "a LangGraph write delta, copied from the thread's values.messages"}


@dataclass(frozen=True, slots=True)
class MessageList:
    """One message list found in a record.

    Attributes:
        pointer: Where the list is in the record.
        messages: The list itself.
        dialect: The adapter that reads it; ``None`` when it cannot be read (see ``note``) or is
            empty.
        note: Why the list is reported but not checked or repaired, if it is not.
    """

    pointer: Pointer
    messages: list[Any]
    dialect: Dialect | None
    note: str | None = None


def classify(messages: list[Any], dialects: Sequence[Dialect]) -> MessageList | None:
    """Decide whether ``messages`` is a message list and in which dialect.

    Every element must be recognised by some adapter. The list's dialect is the first adapter
    (in detection order) that recognises *every* element, preferring one that sees a marker of
    its own (tool calls, results, an envelope) over one that is merely compatible. When no
    adapter covers all elements, the list mixes dialects and is reported, not repaired.
    """
    if not messages or not all(isinstance(m, dict) for m in messages):
        return None
    covering: list[tuple[Dialect, bool]] = []
    seen = [False] * len(messages)
    for dialect in dialects:
        marks = [dialect.recognize(m) for m in messages]
        for k, mark in enumerate(marks):
            seen[k] = seen[k] or mark is not Recognition.NO
        if Recognition.NO not in marks:
            covering.append((dialect, Recognition.DISTINCT in marks))
    if not all(seen):
        return None
    if not covering:
        names = sorted(
            {d.name for d in dialects for m in messages if d.recognize(m) is not Recognition.NO}
        )
        note = f"mixes dialects ({', '.join(names)}); not checked"
        return MessageList((), messages, None, note)
    chosen = next((d for d, distinct in covering if distinct), covering[0][0])
    return MessageList((), messages, chosen, chosen.refusal(messages))


def find_message_lists(value: Any, *, dialects: Sequence[Dialect]) -> list[MessageList]:
    """Return every message list in ``value``, in document order, with its pointer."""
    found: list[MessageList] = []
    # An explicit stack (not recursion): nesting depth is bounded by the parser, not by Python.
    stack: list[tuple[Any, Pointer, str | None]] = [(value, (), None)]
    while stack:
        node, pointer, copy_note = stack.pop()
        if isinstance(node, list):
            listed = classify(node, dialects)
            if listed is None and not node and (not pointer or pointer[-1] in HISTORY_KEYS):
                listed = MessageList((), node, None)
            if listed is not None:
                note = copy_note if copy_note is not None else listed.note
                found.append(MessageList(pointer, node, listed.dialect, note))
                continue
            children: list[tuple[Any, Pointer, str | None]] = [
                (child, (*pointer, index), copy_note)
                for index, child in enumerate(node)
                if isinstance(child, (list, dict))
            ]
        elif isinstance(node, dict):
            children = [
                (child, (*pointer, key), COPY_KEYS.get(key, copy_note))
                for key, child in node.items()
                if isinstance(child, (list, dict))
            ]
        else:
            continue
        stack.extend(reversed(children))
    return found
