"""Apply edits to parsed values, copying only what changes (the input is never mutated)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from patchcore.model import Edit, Pointer


def _get(root: Any, pointer: Pointer) -> Any:
    node = root
    for part in pointer:
        node = node[part]
    return node


def _replace(root: Any, pointer: Pointer, new: Any) -> Any:
    """Return a copy of ``root`` in which the value at ``pointer`` is ``new``.

    Only the containers on the path are copied; everything else is shared.
    """
    if not pointer:
        return new
    head, rest = pointer[0], pointer[1:]
    copy: Any = list(root) if isinstance(root, list) else dict(root)
    copy[head] = _replace(root[head], rest, new)
    return copy


def apply_edits(root: Any, edits: Sequence[Edit]) -> Any:
    """Return ``root`` with ``edits`` applied.

    Edit pointers and indexes refer to the original ``root``. Deeper arrays are edited first:
    inserting into an array never moves its parents' elements, so every pointer still holds.
    """
    by_array: dict[Pointer, list[Edit]] = {}
    for edit in edits:
        by_array.setdefault(edit.array, []).append(edit)
    result = root
    for pointer in sorted(by_array, key=len, reverse=True):
        original = _get(result, pointer)
        pending: dict[int, list[Any]] = {}
        for edit in by_array[pointer]:
            pending.setdefault(edit.index, []).extend(edit.values)
        updated: list[Any] = []
        for index in range(len(original) + 1):
            updated.extend(pending.get(index, ()))
            if index < len(original):
                updated.append(original[index])
        result = _replace(result, pointer, updated)
    return result
