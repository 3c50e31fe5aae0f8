"""Composing the provider fixes that rewrite values in place (TP301's signature, TP302's ids,
TP307's text) with the pairing fixes of the same run, which delete, move and copy whole results
(docs/cli.md#provider-fixes-beside-the-pairing-fixes).

Edits address the original record, so the two kinds do not compose by themselves: a rewrite
inside a result that a pairing fix deletes would edit a place that is gone (the repair would not
be valid JSON), and a result a pairing fix moves or copies (a `Verbatim` of the original) would
keep the value the rewrite replaces, leaving a call and its result that no longer pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from patchcore.dialects.base import ListContext
from patchcore.engine.apply import apply_edits, container_of, value_at
from patchcore.model import Delete, Edit, Insert, Pointer, Replace, Verbatim, distinct_edits


def _inside(pointer: Pointer, outer: Pointer) -> bool:
    """Whether ``pointer`` is ``outer`` or a place inside it."""
    return pointer[: len(outer)] == outer


def _original(messages: Sequence[Any], context: ListContext, pointer: Pointer) -> Any:
    """The original value at ``pointer``, a place inside one of the list's messages."""
    for index, message in enumerate(messages):
        at = context.message_pointer(index)
        if _inside(pointer, at):
            return value_at(message, pointer[len(at) :])
    msg = f"{pointer} is in no message of the list"  # Verbatims copy the list's own messages
    raise AssertionError(msg)


def _carried(
    value: Any, rewrites: Mapping[Pointer, Any], messages: Sequence[Any], context: ListContext
) -> Any:
    """``value``, a new value of a pairing fix, with each copy of an original place that holds a
    rewritten one opened down to it: the rewritten place takes its new value, everything else
    stays a `Verbatim` of the original (its bytes kept)."""
    if isinstance(value, Verbatim):
        source = value.pointer
        if source in rewrites:
            return rewrites[source]
        if not any(_inside(place, source) for place in rewrites):
            return value
        original = _original(messages, context, source)
        if isinstance(original, dict):
            return {
                key: _carried(Verbatim((*source, key)), rewrites, messages, context)
                for key in original
            }
        return [
            _carried(Verbatim((*source, k)), rewrites, messages, context)
            for k in range(len(original))
        ]
    if isinstance(value, list):
        return [_carried(v, rewrites, messages, context) for v in value]
    if isinstance(value, dict):
        return {k: _carried(v, rewrites, messages, context) for k, v in value.items()}
    return value


def composed(
    plans: dict[int, tuple[Edit, ...]],
    providers: Sequence[int],
    messages: Sequence[Any],
    context: ListContext,
) -> dict[int, tuple[Edit, ...]]:
    """``plans`` (each fix's edits, by its defect's ``id()``) with the fixes of the provider
    rules (``providers``) composed with the pairing fixes: an edit of a provider fix at or
    inside a place a pairing fix deletes, or inside one it replaces whole (TP106's reordered
    blocks), is left out (the place is gone, or written anew), and a pairing fix's
    copy of a place a provider fix rewrites (a `Replace`: a moved or copied result) carries the
    new value (`_carried`), even when the original is deleted. The provider fix holds that
    copying edit too, so one is never applied without the other
    (`patchcore.layouts.base.held_back` holds fixes that share an edit together)."""
    chosen = set(providers) & plans.keys()
    others = [e for k, edits in plans.items() if k not in chosen for e in edits]
    deleted = [e.pointer for e in others if isinstance(e, Delete)]
    replaced = [e.pointer for e in others if isinstance(e, Replace)]
    places = {k: [e.pointer for e in plans[k] if isinstance(e, Replace)] for k in chosen}
    rewrites = {e.pointer: e.value for k in chosen for e in plans[k] if isinstance(e, Replace)}
    changed: dict[int, Edit] = {}
    for edit in others:
        new = _with_carried(edit, rewrites, messages, context)
        if new is not edit:
            changed[id(edit)] = new
    result = {k: tuple(changed.get(id(e), e) for e in edits) for k, edits in plans.items()}
    for k in chosen:
        kept = (
            e
            for e in plans[k]
            if not any(_inside(_place(e), d) for d in deleted)
            and not any(_inside(_place(e), r) and _place(e) != r for r in replaced)
        )
        reached = (
            changed[id(e)]
            for e in others
            if id(e) in changed and any(_reaches(e, place) for place in places[k])
        )
        result[k] = tuple(distinct_edits((*kept, *reached)))
    return result


def _place(edit: Edit) -> Pointer:
    """Where ``edit`` changes the record: the place it replaces or deletes, or the array it
    inserts into."""
    return edit.array if isinstance(edit, Insert) else edit.pointer


def _reaches(edit: Edit, place: Pointer) -> bool:
    """Whether ``edit``'s new value copies a place that holds ``place``."""
    value = edit.values if isinstance(edit, Insert) else getattr(edit, "value", None)
    return _copies(value, place)


def _copies(value: Any, place: Pointer) -> bool:
    if isinstance(value, Verbatim):
        return _inside(place, value.pointer)
    if isinstance(value, (list, tuple)):
        return any(_copies(v, place) for v in value)
    if isinstance(value, dict):
        return any(_copies(v, place) for v in value.values())
    return False


def _with_carried(
    edit: Edit, rewrites: Mapping[Pointer, Any], messages: Sequence[Any], context: ListContext
) -> Edit:
    """``edit`` whose new value carries the rewrites (itself when it copies none of them)."""
    if isinstance(edit, Insert):
        if not any(_copies(edit.values, place) for place in rewrites):
            return edit
        values = tuple(_carried(v, rewrites, messages, context) for v in edit.values)
        return Insert(edit.array, edit.index, values)
    if isinstance(edit, Replace) and any(_copies(edit.value, p) for p in rewrites):
        return Replace(edit.pointer, _carried(edit.value, rewrites, messages, context))
    return edit


def left_by(
    messages: Sequence[Any], context: ListContext, edits: Sequence[Edit]
) -> list[Any | None]:
    """Each message of the list as the pairing fixes' ``edits`` leave it, by its original
    index (``None``: removed): what a provider rule that reads the whole list must judge, or the
    repair would hold what it refuses (a user content that gains a function response is no
    longer where Gemini's current turn starts). Messages the fixes insert are not among them."""
    if context.single or not edits:
        return list(messages)
    depth = len(context.pointer) + 1
    gone = {e.pointer for e in edits if isinstance(e, Delete) and len(e.pointer) == depth}
    inner = [
        e
        for e in edits
        if len(container_of(e)) > len(context.pointer) and _inside(container_of(e), context.pointer)
    ]
    member = context.member
    root: Any = [m if member is None else {member: m} for m in messages]
    for part in reversed(context.pointer):
        root = {part: root}
    after = value_at(apply_edits(root, inner), context.pointer)
    return [
        None
        if (*context.pointer, index) in gone
        else (element if member is None else element[member])
        for index, element in enumerate(after)
    ]
