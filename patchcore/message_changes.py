"""What a fix does to each message of a conversation, for whoever draws it (``toolpatch show``,
the HTML report's excerpts): the edits of the findings it fixes read back onto the messages the
engine checked (`changes`, for `patchcore.result.Conversation.message_changes`), so that no
caller interprets edits itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from patchcore.model import Delete, Edit, Insert, Pointer, Replace, Verbatim

if TYPE_CHECKING:
    from patchcore.dialects.base import ListContext


@dataclass(frozen=True, slots=True)
class MessageChanges:
    """What the fix does at one message of a list (or at its end, after the last message).

    Attributes:
        inserted_before: Whole messages inserted before it (a `Verbatim`: one moved here).
        inserted_inside: Blocks (results) added inside it.
        rewritten: Part of it is replaced (its content wrapped into blocks, results moved first).
        written: Fields set to a new value (the status of a call whose result the fix records),
            each with its path inside the message.
        removed: Paths inside it that are dropped (``()``: the whole message).
    """

    inserted_before: tuple[Any, ...] = ()
    inserted_inside: tuple[Any, ...] = ()
    rewritten: bool = False
    written: tuple[tuple[Pointer, Any], ...] = ()
    removed: tuple[Pointer, ...] = ()

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


@dataclass
class _Slot:
    """`MessageChanges` while the edits are read."""

    inserted_before: list[Any] = field(default_factory=list)
    inserted_inside: list[Any] = field(default_factory=list)
    rewritten: bool = False
    written: list[tuple[Pointer, Any]] = field(default_factory=list)
    removed: list[Pointer] = field(default_factory=list)

    def done(self) -> MessageChanges:
        return MessageChanges(
            tuple(self.inserted_before),
            tuple(self.inserted_inside),
            self.rewritten,
            tuple(self.written),
            tuple(self.removed),
        )


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


def changes(context: ListContext, edits: Sequence[Edit], size: int) -> tuple[MessageChanges, ...]:
    """What ``edits`` do to each message of a list of ``size`` (one more slot: the end)."""
    slots = [_Slot() for _ in range(size + 1)]
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
    return tuple(slot.done() for slot in slots)
