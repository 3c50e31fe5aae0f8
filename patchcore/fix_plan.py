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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from patchcore.errors import DecodeError, SelfCheckError
from patchcore.layouts.base import Layout, WholeLayout, unique_edits
from patchcore.layouts.encoded import EncodedDocument
from patchcore.pipeline import read_input
from patchcore.raw.codec import Decoded, Framing, Record

if TYPE_CHECKING:
    from patchcore.model import Finding, Pointer
    from patchcore.options import Options
    from patchcore.raw.hunks import Extent
    from patchcore.raw.splice import Patch
    from patchcore.result import Result


#: What tells a finding of the check from another: the same finding of the ``fix`` run over the
#: same bytes has the same (code, pointer, call id, line, column).
FindingKey = tuple[str, "Pointer", "str | None", "int | None", "int | None"]


def finding_key(finding: Finding) -> FindingKey:
    """The identity a finding has in a check and in the ``fix`` run of the same bytes."""
    return (finding.code, finding.pointer, finding.call_id, finding.line, finding.column)


@dataclass(frozen=True, slots=True)
class FixPlan:
    """The repair of an input, patch by patch, each with the findings whose fix writes it.

    It holds the patches and, for each fixed finding, its own (by `finding_key`): not the
    ``fix`` run's result, whose findings a report of the check already holds, so that a plan
    costs a few hundred bytes a fix, not a second copy of every finding.

    Attributes:
        patches: The repair as patches of the whole input (byte-order mark included), sorted
            and disjoint: applied to the input together, they give what ``fix`` writes.
        owned: For each fixed finding's key, the patches its fix writes (at least one).
    """

    patches: tuple[Patch, ...] = ()
    owned: Mapping[FindingKey, tuple[Patch, ...]] = field(default_factory=dict)

    def of(self, finding: Finding) -> tuple[Patch, ...]:
        """The patches of ``finding``'s fix (none when ``fix`` does not apply it): the finding
        of a check of the same bytes, or of the ``fix`` run itself."""
        return self.owned.get(finding_key(finding), ())


def plan_fixes(data: bytes, *, filename: str | None, options: Options) -> FixPlan:
    """What `fix_document` writes for ``data``, as patches owned by the findings they fix.

    A layout of records (a JSON document, conversation lines) is planned record by record, as
    ``fix`` repairs it: each record's result is let go once its patches are owned, so the plan
    of a corpus of many findings holds its patches only. A whole layout (an agent session) is
    planned from its one repair.

    Raises:
        DecodeError, NoHistoryError, ShapeError, SelfCheckError: As `fix_document` (a record
            that is not JSON, kept by ``keep_invalid_lines``, has nothing to plan).
    """
    decoded, layout, options = read_input(data, filename=filename, options=options)
    patches: list[Patch] = []
    owned: dict[FindingKey, tuple[Patch, ...]] = {}
    shift = len(decoded.bom)
    for fixed, combined, owners in _groups(layout, decoded, options):
        placed = [(start + shift, end + shift, new) for (start, end, new), _ in combined]
        patches += placed
        for patch, found in zip(placed, owners, strict=True):
            for k in found:
                key = finding_key(fixed[k])
                owned[key] = (*owned.get(key, ()), patch)
    return FixPlan(tuple(patches), owned)


def _groups(layout: Layout, decoded: Decoded, options: Options) -> Iterator[_Group]:
    """The fixed findings and patches of each part of the input ``fix`` repairs on its own."""
    if isinstance(layout, WholeLayout):
        result = layout.process(decoded, options=options, fix=True)
        if result.output is not None:
            yield _whole_patches(layout, decoded, result)
        return
    if isinstance(layout, EncodedDocument):  # one string, written again whole: every fix's
        result = layout.process(decoded, options=options, fix=True)
        if result.patches:
            yield result.fixed, _placed(result.patches, 0), [set(range(len(result.fixed)))]
        return
    from patchcore.layouts.records import process_record

    jsonl = decoded.framing is Framing.JSONL
    for record in decoded.records:
        try:
            result = process_record(
                record, layout=layout.name, options=options, fix=True, jsonl=jsonl
            )
        except DecodeError:  # a line kept as it is (the check said so): nothing to fix there
            continue
        if result.patches:
            yield _record_patches(record, result)


#: A patch and the range of the input it is about (for a hunk of a line diff, its whole lines).
_Placed = tuple["Patch", "Extent"]
#: The fixed findings of a part of the input, the repair's patches there (of the input's body)
#: and, for each patch, the indexes of the findings whose fix writes it.
_Group = tuple[Sequence["Finding"], list[_Placed], list[set[int]]]


def _record_patches(record: Record, result: Result) -> _Group:
    """A record's repair, the very patches ``fix`` splices into it (`process_record`), and each
    of its fixes alone, spliced the same way."""
    from patchcore.raw.codec import LineStarts
    from patchcore.raw.splice import Spans, splice_patches

    # One reading of the record for every splice: each fix alone is spliced into the same
    # bytes, and reading them again for each would make a record of N fixes cost N times its
    # size (5,000 results into one list took 91 s).
    raw = record.raw
    splice = partial(
        splice_patches, raw, spans=Spans(raw), lines=LineStarts(raw), ensure_ascii=raw.isascii()
    )
    fixed = result.fixed
    alone = [_placed(splice(unique_edits([f])), record.offset) for f in fixed]
    placed = _placed(result.patches, record.offset)
    return fixed, placed, attributed(placed, alone)


def _whole_patches(layout: WholeLayout, decoded: Decoded, result: Result) -> _Group:
    """The hunks of the whole layout's repair, each owned by the fixes whose edits land in it
    (`WholeLayout.reach`: the entries they change, the points where new ones go), found in
    one pass over the hunks (writing each fix alone, as records are planned, made a session of
    N fixes cost N writes of the whole file: 1,000 unanswered calls took 7.5 s); the hunks
    are checked against the repair (a bug: never offer a wrong fix)."""
    from patchcore.raw.hunks import hunks
    from patchcore.raw.splice import Spans, apply_patches

    bom = len(decoded.bom)
    assert result.output is not None
    combined = hunks(decoded.body, result.output[bom:])
    if apply_patches(decoded.body, [patch for patch, _ in combined]) != result.output[bom:]:
        raise _wrong_patches(line=1)
    spans = Spans(decoded.records[0].raw) if decoded.framing is Framing.JSON else None
    reaches = [
        (fix, layout.reach(decoded, edit, spans))
        for fix, finding in enumerate(result.fixed)
        for edit in unique_edits([finding])
    ]
    return result.fixed, combined, reached(combined, reaches, fixes=len(result.fixed))


def reached(
    combined: Sequence[_Placed], reaches: Sequence[tuple[int, Extent]], *, fixes: int
) -> list[set[int]]:
    """For each of the ``combined`` patches (sorted, disjoint), the fixes one of whose
    ``reaches`` lands in its range: a range that overlaps it, or a point inside it (its ends
    included). A patch no fix reaches is all of theirs."""
    starts = [start for _, (start, _) in combined]
    owners: list[set[int]] = [set() for _ in combined]
    for fix, (start, end) in reaches:
        for k in _touching(combined, starts, start, end):
            first, last = combined[k][1]
            if start == end or (start < last and first < end):
                owners[k].add(fix)
    return _or_every(owners, fixes)


def _wrong_patches(*, line: int) -> SelfCheckError:
    return SelfCheckError(
        "internal error: the repair's patches do not give the repair", line=line, column=1
    )


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
            for k in _touching(combined, starts, start, end):
                owners[k].add(fix)
    return _or_every(owners, len(alone))


def _touching(
    combined: Sequence[_Placed], starts: Sequence[int], start: int, end: int
) -> Iterator[int]:
    """The indexes of the ``combined`` patches (sorted, disjoint; ``starts`` their starts) whose
    range touches or overlaps ``start`` to ``end``, last first."""
    k = bisect_right(starts, end) - 1
    while k >= 0 and combined[k][1][1] >= start:
        yield k
        k -= 1


def _or_every(owners: list[set[int]], fixes: int) -> list[set[int]]:
    """``owners``, a patch that no fix was found to own given to all ``fixes`` of them."""
    every = set(range(fixes))
    return [found or every for found in owners]
