"""Apply edits to parsed values, copying only what changes (the input is never mutated)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from patchcore.model import Delete, Edit, Insert, Pointer, Replace, Verbatim


def value_at(root: Any, pointer: Pointer) -> Any:
    """The value at ``pointer``."""
    node = root
    for part in pointer:
        node = node[part]
    return node


def _replace(root: Any, pointer: Pointer, new: Any) -> Any:
    """Return a copy of ``root`` in which the value at ``pointer`` is ``new``.

    Only the containers on the path are copied; everything else is shared. A member the last
    object lacks is added at its end.
    """
    if not pointer:
        return new
    head, rest = pointer[0], pointer[1:]
    copy: Any = list(root) if isinstance(root, list) else dict(root)
    copy[head] = _replace(root[head], rest, new) if rest else new
    return copy


def resolve(value: Any, original: Any) -> Any:
    """``value`` with every `Verbatim` replaced by the original value it stands for."""
    if isinstance(value, Verbatim):
        return value_at(original, value.pointer)
    if isinstance(value, list):
        return [resolve(v, original) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, original) for k, v in value.items()}
    return value


def container_of(edit: Edit) -> Pointer:
    """The container an edit changes: the array inserted into, the parent of a deleted element
    or member, or the replaced value itself."""
    if isinstance(edit, Insert):
        return edit.array
    if isinstance(edit, Delete):
        return edit.pointer[:-1]
    return edit.pointer


def apply_edits(root: Any, edits: Sequence[Edit]) -> Any:
    """Return ``root`` with ``edits`` applied.

    Edit pointers and indexes refer to the original ``root``. Deeper containers are edited
    first: changing a container never moves its parents' elements, so every pointer still holds.
    """
    by_container: dict[Pointer, list[Edit]] = {}
    for edit in edits:
        by_container.setdefault(container_of(edit), []).append(edit)
    result = root
    for pointer in sorted(by_container, key=len, reverse=True):
        edits_here = by_container[pointer]
        # A replaced value is not read: it may be a member its object does not have yet.
        replaced = all(isinstance(edit, Replace) for edit in edits_here)
        current: Any = None if replaced else value_at(result, pointer)
        inserts: dict[int, list[Any]] = {}
        deleted: set[Any] = set()
        for edit in edits_here:
            if isinstance(edit, Replace):
                current = resolve(edit.value, root)
            elif isinstance(edit, Delete):
                deleted.add(edit.pointer[-1])
            else:
                inserts.setdefault(edit.index, []).extend(resolve(v, root) for v in edit.values)
        if isinstance(current, dict) and deleted:
            current = {k: v for k, v in current.items() if k not in deleted}
        elif inserts or deleted:
            updated: list[Any] = []
            for index in range(len(current) + 1):
                updated.extend(inserts.get(index, ()))
                if index < len(current) and index not in deleted:
                    updated.append(current[index])
            current = updated
        result = _replace(result, pointer, current)
    return result
