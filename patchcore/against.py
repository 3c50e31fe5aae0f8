"""What a context trimmer broke: the findings of its output that its input did not have
(docs/trimming.md#check-against). `Options.against` holds one `Against`, and the engine's
`check_list` keeps only what it blames; `patchcore.cuts` builds it from the trimmer's input.

A module of its own, apart from `patchcore.cuts`, since the options hold it: it needs nothing
but the findings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patchcore.model import Finding

#: The rules that say the same defect in different words, by the defect: a call no result
#: answers, whatever its place says of it (a trimmer that cuts the end of a history turns an
#: earlier TP001 into a TP002, which it did not break); a result that answers no open call,
#: whether no call has its key (an orphan), or every call with it is answered (a duplicate)
#: (a result left before its call stays an orphan when the cut drops that call).
_DEFECTS = {
    **dict.fromkeys(("TP001", "TP002", "TP003"), "unanswered call"),
    **dict.fromkeys(("TP004", "TP101", "TP103"), "result that answers no open call"),
}


@dataclass(frozen=True, slots=True)
class Against:
    """The findings of a history before a cut, by what each is about (`subject`): what
    `patchcore.broken_by` holds the findings of the cut history against (``toolpatch check
    --against``, `Options.against`)."""

    counts: tuple[tuple[tuple[Any, ...], int], ...]

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Against:
        """The findings of the history before the cut, found with every rule selected
        (`patchcore.cuts.every_rule`): a defect it had is then known whichever rule finds it
        after the cut."""
        return cls(tuple(Counter(map(subject, findings)).items()))

    def broken(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings among ``findings`` (of the cut history) that the cut broke: for each
        subject, those beyond the number the history had before it, the later ones (the
        earlier ones stand for the defects it had already)."""
        left = dict(self.counts)
        broken = []
        for finding in findings:
            about = subject(finding)
            if left.get(about, 0) > 0:
                left[about] -= 1
            else:
                broken.append(finding)
        return broken


def subject(finding: Finding) -> tuple[Any, ...]:
    """What a finding is about, whatever the cut moved: its list, its defect (`_DEFECTS`: rules
    that say one defect count as one), and the call id or result key it names (``None``:
    none)."""
    return (finding.list_pointer, _DEFECTS.get(finding.code, finding.code), finding.call_id)
