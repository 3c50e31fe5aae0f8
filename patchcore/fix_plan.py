"""What `fix_document` writes, finding by finding: the repair as patches of the input's bytes,
each with the findings whose fix it writes.

A report that offers each finding's fix as a change to the file (SARIF's ``fixes``) needs the
fix as bytes, not as JSON edits, and it must be the repair ``fix`` writes: the edits of one
message list are planned together (safe ones on their own unless unsafe fixes run), and fixes
that meet are written as one (two insertions at one place, an array that gains and loses
elements). So the repair is taken as it is, in patches (those of each record, or the hunks of a
whole layout's output, `patchcore.raw.hunks`), and each patch is given to the findings whose
own fix, written alone, makes that same patch or one that meets it. Every patch has at least
one owner, so the patches of all the fixed findings, each applied once, give exactly the
repaired bytes; a patch two fixes share is in both.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from patchcore.errors import SelfCheckError
from patchcore.layouts import layout_of
from patchcore.layouts.base import WholeLayout, unique_edits
from patchcore.raw.codec import Decoded, Framing, Record, decode

if TYPE_CHECKING:
    from patchcore.model import Finding
    from patchcore.options import Options
    from patchcore.raw.hunks import Extent
    from patchcore.raw.splice import Patch
    from patchcore.result import Result


@dataclass(frozen=True, slots=True)
class FixPlan:
    """The repair of an input, patch by patch, with the findings each patch fixes.

    Attributes:
        result: What `fix_document` returns for the input (``result.output``: the repair).
        patches: The repair as patches of the whole input (byte-order mark included), sorted
            and disjoint: applied to the input together, they give ``result.output``.
        owners: For each patch, the indexes in ``result.findings`` of the findings whose fix
            writes it (at least one).
    """

    result: Result
    patches: tuple[Patch, ...] = ()
    owners: tuple[frozenset[int], ...] = ()
    _owned: dict[int, tuple[Patch, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owned: dict[int, list[Patch]] = {}
        for patch, owners in zip(self.patches, self.owners, strict=True):
            for index in owners:
                owned.setdefault(index, []).append(patch)
        object.__setattr__(self, "_owned", {k: tuple(v) for k, v in owned.items()})

    def of(self, index: int) -> tuple[Patch, ...]:
        """The patches of the fix of ``result.findings[index]`` (none when it is not fixed)."""
        return self._owned.get(index, ())


def plan_fixes(data: bytes, *, filename: str | None, options: Options) -> FixPlan:
    """`fix_document` of ``data``, with its repair as patches owned by findings.

    Raises:
        DecodeError, NoHistoryError, ShapeError, SelfCheckError: As `fix_document`.
    """
    decoded = decode(
        data,
        filename=filename,
        lenient=options.keep_invalid_lines,
        max_record=options.max_record_bytes,
    )
    layout = layout_of(decoded, options)
    result = layout.process(decoded, options=options, fix=True)
    if result.output is None:
        return FixPlan(result)
    index = {id(finding): k for k, finding in enumerate(result.findings)}
    if isinstance(layout, WholeLayout):
        groups = [_whole_patches(layout, decoded, result)]
    else:
        groups = _record_patches(decoded, result.fixed)
    patches: list[Patch] = []
    owners: list[frozenset[int]] = []
    shift = len(decoded.bom)
    for fixed, combined, alone in groups:
        patches += [(start + shift, end + shift, new) for (start, end, new), _ in combined]
        owners += [
            frozenset(index[id(fixed[k])] for k in found) for found in attributed(combined, alone)
        ]
    from patchcore.raw.splice import apply_patches

    if apply_patches(data, patches) != result.output:  # a bug: never offer a wrong fix
        msg = "internal error: the repair's patches do not give the repair"
        raise SelfCheckError(msg, line=1, column=1)
    return FixPlan(result, tuple(patches), tuple(owners))


#: A patch and the range of the input it is about (for a hunk of a line diff, its whole lines).
_Placed = tuple["Patch", "Extent"]
#: The fixed findings of a part of the input, the repair's patches there (of the input's body)
#: and each finding's own patches, as its fix alone would write them.
_Group = tuple[Sequence["Finding"], list[_Placed], list[list[_Placed]]]


def _record_patches(decoded: Decoded, fixed: Sequence[Finding]) -> list[_Group]:
    """Record by record, as `patchcore.layouts.records.process_record` splices them."""
    from patchcore.raw.jsonspan import Spans
    from patchcore.raw.splice import splice_patches

    by_record: dict[int, list[Finding]] = {}
    records = decoded.records
    at_line = {record.line: k for k, record in enumerate(records)}
    for finding in fixed:
        place = 0 if decoded.framing is Framing.JSON else at_line[finding.line or 0]
        by_record.setdefault(place, []).append(finding)
    groups: list[_Group] = []
    for place, findings in by_record.items():
        record: Record = records[place]
        spans = Spans(record.raw)
        combined = splice_patches(record.raw, unique_edits(findings), spans=spans)
        alone = [splice_patches(record.raw, unique_edits([f]), spans=spans) for f in findings]
        groups.append(
            (findings, _placed(combined, record.offset), [_placed(a, record.offset) for a in alone])
        )
    return groups


def _whole_patches(layout: WholeLayout, decoded: Decoded, result: Result) -> _Group:
    """The hunks of the whole layout's repair, and of each fix written alone."""
    from patchcore.raw.hunks import hunks

    bom = len(decoded.bom)
    assert result.output is not None
    combined = hunks(decoded.body, result.output[bom:])
    alone = [
        hunks(decoded.body, layout.write(decoded, unique_edits([f]))[bom:]) for f in result.fixed
    ]
    return result.fixed, combined, alone


def _placed(patches: Sequence[Patch], offset: int) -> list[_Placed]:
    """Patches of a record as patches of the body, each about its own range."""
    return [((a + offset, b + offset, new), (a + offset, b + offset)) for a, b, new in patches]


def attributed(combined: Sequence[_Placed], alone: Sequence[Sequence[_Placed]]) -> list[set[int]]:
    """For each of the ``combined`` patches (sorted, disjoint), which of the fixes it writes:
    those whose own patches (``alone[k]``: the fix written alone) hold the very same patch, or
    else one whose range meets its range (touches or overlaps it). A patch no fix meets is all
    of theirs."""
    exact = {patch: k for k, (patch, _) in enumerate(combined)}
    starts = [start for _, (start, _) in combined]
    owners: list[set[int]] = [set() for _ in combined]
    for fix, patches in enumerate(alone):
        for patch, (start, end) in patches:
            same = exact.get(patch)
            if same is not None:
                owners[same].add(fix)
                continue
            k = bisect_right(starts, end) - 1
            while k >= 0 and combined[k][1][1] >= start:
                owners[k].add(fix)
                k -= 1
    every = set(range(len(alone)))
    return [found or every for found in owners]
