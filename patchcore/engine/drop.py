"""The ``drop`` repair policy's plan: the edits that remove unanswered calls instead of answering
them (docs/pairing.md#repair-policies).

This is engine policy, the same for every format; what it asks a dialect is only what its
messages look like without some of their calls (`Dialect.call_deletions`), whether a message so
left breaks a rule of the provider about the order of turns (`Dialect.drop_breaks`), and which
messages lose the message they belong with when others go (`Dialect.orphaned_by`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from patchcore.engine.apply import apply_edits
from patchcore.model import Delete, Edit, Pointer

if TYPE_CHECKING:
    from patchcore.dialects.base import Dialect, ListContext
    from patchcore.model import Defect


def plan_drops(
    dialect: Dialect, messages: Sequence[Any], context: ListContext, drops: Sequence[Defect]
) -> list[tuple[Edit, ...]]:
    """The edits that remove the call of each of ``drops``, one entry per defect. The drops of
    one message are planned together and share their edits; a message left with neither content
    nor calls goes too, and so do the messages its removal leaves alone
    (`Dialect.orphaned_by`). A call without a truthful result (a server tool's, one awaiting
    approval) is left, as it is unanswered; so is a call whose removal would break the order of
    turns (`Dialect.drop_breaks`), and every call of a stored model response. Asked only when
    there is something to drop (the default policy answers every call)."""
    plan: list[list[Edit]] = [[] for _ in drops]
    by_message: dict[int, list[int]] = {}
    paths: dict[int, list[Pointer]] = {}
    for k, defect in enumerate(drops):
        if defect.call is not None and defect.call.answerable:
            by_message.setdefault(defect.message_index, []).append(k)
            paths.setdefault(defect.message_index, []).append(defect.path)
    outcome: dict[int, tuple[list[Pointer] | None, Any]] = {}  # removed paths, kept message
    for index in by_message:
        message = messages[index]
        removed = dialect.call_deletions(message, paths[index])
        kept = None if removed is None else apply_edits(message, [*map(Delete, removed)])
        outcome[index] = (removed, kept)
    refused = _refused(dialect, messages, {i: kept for i, (_, kept) in outcome.items()})
    removed_whole: dict[int, list[int]] = {}  # removed message -> the defects removing it
    for index, owners in by_message.items():
        removed, kept = outcome[index]
        edits: tuple[Edit, ...]
        if index in refused:
            edits = ()  # the history would break another of the provider's rules
        elif removed is None or kept is None:
            deletion = context.delete_message(index)
            edits = (deletion,) if deletion is not None else ()
            if edits:
                removed_whole[index] = owners
        elif context.single or context.sealed_reason is not None:
            edits = ()  # a stored model response: what the model returned stays
        else:
            pointer = context.message_pointer(index)
            edits = tuple(Delete((*pointer, *path)) for path in removed)
        for k in owners:
            plan[k] += edits
    while orphans := {
        orphan: removed_whole[index]
        for orphan, index in dialect.orphaned_by(messages, set(removed_whole)).items()
        if orphan not in removed_whole
    }:
        for orphan, owners in orphans.items():
            removed_whole[orphan] = owners  # whole messages can be removed: the drops were
            deletion = context.delete_message(orphan)
            for k in owners:
                plan[k] += (deletion,) if deletion is not None else ()
    return [tuple(edits) for edits in plan]


def _refused(dialect: Dialect, messages: Sequence[Any], kept: dict[int, Any]) -> set[int]:
    """The messages whose drops `Dialect.drop_breaks` refuses, ``kept`` being what each message
    with drops becomes (``None``: removed): refusing one puts it back, which may refuse others,
    until none changes."""
    refused: set[int] = set()

    def now(index: int) -> Any:
        return messages[index] if index in refused or index not in kept else kept[index]

    def neighbour(index: int, step: int) -> Any:
        index += step
        while 0 <= index < len(messages) and (messages[index] is None or now(index) is None):
            index += step
        return now(index) if 0 <= index < len(messages) else None

    while more := {
        index
        for index in kept
        if index not in refused
        and dialect.drop_breaks(neighbour(index, -1), kept[index], neighbour(index, 1))
    }:
        refused |= more
    return refused
