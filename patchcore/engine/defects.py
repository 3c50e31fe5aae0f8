"""A defect found in one message list, before it becomes a reported `Finding`.

The engine and the dialect adapters produce defects; the adapter plans the edits that fix the
selected ones (jointly, so that fixes touching the same message make one coherent change); the
analysis turns each into a finding.
"""

from __future__ import annotations

import msgspec

from patchcore.model import Pointer, ToolCall, ToolResult
from patchcore.rules import Origin

#: Rules whose fix inserts a synthetic result for an unanswered call.
ANSWERED = frozenset({"TP001", "TP002", "TP003"})
#: Rules whose fix drops a result.
DROPPED = frozenset({"TP101", "TP103"})


class Defect(msgspec.Struct, frozen=True):
    """One defect.

    Attributes:
        code: Rule code.
        message_index: The message it is in.
        path: Where inside that message (the call, the result, or ``()`` for the message).
        call: The call concerned (the unanswered one; for TP102 the call the result answers).
        call_index: That call's index among its message's calls.
        result: The result concerned (TP101, TP102, TP103).
        target: For TP102, the index of the calling message the result belongs after.
        text: For TP001-TP003, the synthetic result's text.
        reason: Why it is a defect, where the rule needs saying more (TP102).
        drop: For TP001-TP003, the fix removes the call instead of answering it (the ``drop``
            repair policy, `patchcore.rules.RepairPolicy`).
        strip: The result is one toolpatch wrote for the call (the synthetic result of the
            rule ``code``), found by ``toolpatch strip``; its fix removes it.
        pending: For TP001-TP003, the call is in the last turn (`Finding.pending`).
        origin: For TP001-TP003 answered, whether ``text`` is what the data recorded of the
            call (`Origin.RECOVERED`) or the rule's synthetic text.
        copied: For TP001-TP003, the call's own result, found out of place before it (its
            message and its path there, a TP101 orphan with the call's id): the fix copies it
            into place instead of writing ``text`` (docs/pairing.md#evidence-first).
    """

    code: str
    message_index: int
    path: Pointer = ()
    call: ToolCall | None = None
    call_index: int = 0
    result: ToolResult | None = None
    target: int | None = None
    text: str | None = None
    reason: str | None = None
    drop: bool = False
    strip: bool = False
    pending: bool = False
    origin: Origin = Origin.SYNTHESIZED
    copied: tuple[int, Pointer] | None = None

    @property
    def ident(self) -> str | None:
        """The id the defect is about (the call's id, or the result's key)."""
        if self.call is not None and self.call.id is not None:
            return self.call.id
        if self.result is not None and self.result.keyed:
            return self.result.key
        return None
