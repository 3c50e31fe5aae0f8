"""Where two versions of a text differ, as patches of the first: the hunks of a line diff, each
cut down to the bytes that change, with the run of whole lines it was cut from.

For a layout that writes its repair line by line (`patchcore.raw.splice.splice_lines`) the
repair has no patches of its own; these are its patches, found from the bytes. Applied to the
old text (`patchcore.raw.splice.apply_patches`) they always give the new one. A hunk never cuts
a UTF-8 character or a CRLF in two, so each one's old and new bytes are text on their own.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence

from patchcore.raw.splice import Patch

#: A range of the old text: ``(start, end)`` offsets.
Extent = tuple[int, int]

#: A run of lines that changed: ``old[i1:i2]`` became ``new[j1:j2]``, as ``(i1, i2, j1, j2)``.
_Run = tuple[int, int, int, int]

#: How many bytes are compared at a time while looking for the first (or last) difference.
_BLOCK = 1 << 16


def hunks(old: bytes, new: bytes) -> list[tuple[Patch, Extent]]:
    """The patches that turn ``old`` into ``new`` (sorted, disjoint, in ``old``'s offsets), each
    with the run of whole lines of ``old`` it changes (where a deleted line and an inserted one
    were diffed as one changed line, the patch may be smaller than either).

    The identical start and end are skipped at C speed (an edit of a large file is a few lines);
    what is left is diffed line by line, and each changed run of lines is trimmed to the bytes
    that differ.
    """
    if old == new:
        return []
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, limit=min(len(old), len(new)) - prefix)
    start = old.rfind(b"\n", 0, prefix) + 1  # the middle starts and ends at line starts
    tail = old[len(old) - suffix :] if suffix else b""
    first_break = tail.find(b"\n")
    suffix = len(tail) - first_break - 1 if first_break >= 0 else 0
    old_middle, new_middle = old[start : len(old) - suffix], new[start : len(new) - suffix]
    old_lines = old_middle.splitlines(keepends=True)
    new_lines = new_middle.splitlines(keepends=True)
    old_starts = _starts(old_lines, start)
    new_starts = _starts(new_lines, start)
    patches: list[tuple[Patch, Extent]] = []
    for i1, i2, j1, j2 in _changed_runs(old_lines, new_lines):
        patch = _trimmed(old[old_starts[i1] : old_starts[i2]], new[new_starts[j1] : new_starts[j2]])
        at, end, text = patch
        base = old_starts[i1]
        patches.append(((base + at, base + end, text), (base, old_starts[i2])))
    return patches


def _changed_runs(
    old: Sequence[bytes], new: Sequence[bytes]
) -> Iterator[tuple[int, int, int, int]]:
    """The runs of lines that differ, ``old[i1:i2]`` becoming ``new[j1:j2]``, in order, between
    runs the two share. Found in one walk over both (a repair inserts and edits lines here and
    there: a general diff, difflib's, took time quadratic in a session of thousands of
    repaired turns): where the lines differ, the next of ``old``'s lines to come back in ``new``
    or the next of ``new``'s to come back in ``old``, whichever is nearer, ends the run; a line
    that never comes back is changed."""
    at_new: dict[bytes, list[int]] = {}
    for index, line in enumerate(new):
        at_new.setdefault(line, []).append(index)
    at_old: dict[bytes, list[int]] = {}
    for index, line in enumerate(old):
        at_old.setdefault(line, []).append(index)

    def next_at(places: dict[bytes, list[int]], line: bytes, start: int) -> int | None:
        found = places.get(line, ())
        k = bisect_left(found, start)
        return found[k] if k < len(found) else None

    i = j = 0
    run: tuple[int, int] | None = None  # where the current changed run started
    while i < len(old) and j < len(new):
        if old[i] == new[j]:
            if run is not None:
                yield run[0], i, run[1], j
                run = None
            i += 1
            j += 1
            continue
        if run is None:
            run = (i, j)
        inserted = next_at(at_new, old[i], j)  # new[j:inserted] came in before old[i]
        deleted = next_at(at_old, new[j], i)  # old[i:deleted] went before new[j]
        if inserted is not None and (deleted is None or inserted - j <= deleted - i):
            j = inserted
        elif deleted is not None:
            i = deleted
        else:
            i += 1
            j += 1
    if run is not None or i < len(old) or j < len(new):
        start = run if run is not None else (i, j)
        yield start[0], len(old), start[1], len(new)


def _starts(lines: list[bytes], start: int) -> list[int]:
    """The offset of each line, and of the end of the last."""
    starts = [start]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many bytes ``a`` and ``b`` share at their start."""
    limit = min(len(a), len(b))
    at = 0
    while at < limit and a[at : at + _BLOCK] == b[at : at + _BLOCK]:
        at += _BLOCK
    while at < limit and a[at] == b[at]:
        at += 1
    return min(at, limit)


def _common_suffix(a: bytes, b: bytes, *, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at their end, at most ``limit``."""
    size = 0
    while size < limit:
        step = min(_BLOCK, limit - size)
        if a[len(a) - size - step : len(a) - size] != b[len(b) - size - step : len(b) - size]:
            break
        size += step
    while size < limit and a[len(a) - size - 1] == b[len(b) - size - 1]:
        size += 1
    return size


def _trimmed(old: bytes, new: bytes) -> Patch:
    """The patch of ``old`` (a changed run of lines) that gives ``new``, without the bytes they
    share at either end, and never inside a character or a CRLF."""
    prefix = _common_prefix(old, new)
    while prefix and not (_boundary(old, prefix) and _boundary(new, prefix)):
        prefix -= 1
    limit = min(len(old), len(new)) - prefix
    suffix = _common_suffix(old, new, limit=limit)
    while suffix and not (_boundary(old, len(old) - suffix) and _boundary(new, len(new) - suffix)):
        suffix -= 1
    return prefix, len(old) - suffix, new[prefix : len(new) - suffix]


def _boundary(text: bytes, at: int) -> bool:
    """Whether ``at`` is between two characters of ``text`` and not inside a CRLF."""
    if at <= 0 or at >= len(text):
        return True
    if 0x80 <= text[at] < 0xC0:  # a continuation byte: inside a UTF-8 character
        return False
    return text[at - 1 : at + 1] != b"\r\n"
