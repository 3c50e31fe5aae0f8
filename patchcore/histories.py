"""A history held outside a document (a thread of an agent store), checked or repaired into
the library's own `Result`, as a document's is: the one place that says what such a history's
result holds, so that a store's integration only reads and writes it (docs/stores.md).

Its conversation is the whole list (no pointer, no line); what resuming it as it is would run
again is a warning of its own beside it; a history waiting for a human, or one of an agent
that may still be running with something to repair, is reported as such, with no finding. A
store that can only add messages at the end (an Agents SDK session) gets the repair's new
messages after its own, and what is left is checked on that list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from patchcore.result import Conversation, Result

if TYPE_CHECKING:
    from patchcore.api import Repair
    from patchcore.model import Finding
    from patchcore.options import Options


@dataclass(frozen=True, slots=True)
class HistoryResult:
    """A history checked (or repaired).

    Attributes:
        result: Its result: its findings, those the repair fixed and those it left.
        repaired: The repaired history, when a fix changed it (with ``appended``: the history
            and the repair's new messages after it).
    """

    result: Result
    repaired: list[Any] | None = None


def history_result(
    messages: Sequence[Any],
    *,
    check: Callable[..., list[Finding]],
    fix: Callable[..., Repair[list[Any]]],
    options: Options,
    fixing: bool,
    layout: str,
    dialect: str,
    appended: bool = False,
    waiting: str | None = None,
    live: str | None = None,
    reruns: str | None = None,
) -> HistoryResult:
    """Check ``messages`` (and with ``fixing``, repair them) into a `Result` of ``layout``
    whose conversation is of ``dialect``.

    Args:
        check: How its messages are checked (`patchcore.check_messages`,
            `patchcore.check_base_messages`, or one of them with the store's options).
        fix: How they are repaired (the matching ``fix_`` function).
        appended: The store can only add messages at the end: the repair's new messages go
            after the history's own (in their order), and what is left is checked there.
        waiting: Why the history is left as it is though a call is open (it waits for a
            human): its conversation's note, and nothing is checked.
        live: Why the history may belong to an agent that is still running (the caller's
            clock judged it, as `patchcore.Options.live_since` says): with anything to
            repair, it is left as it is, with this note and no finding.
        reruns: What resuming it as it is would run again, a warning beside its conversation
            (a check's only).

    Raises:
        PatchcoreError: Its messages could not be read.
    """
    size = len(messages)
    if waiting is not None:
        return HistoryResult(_result(layout, dialect, size, (), (), (), note=waiting))
    if live is not None and check(messages, options=options):
        return HistoryResult(_result(layout, dialect, size, (), (), (), note=live))
    if not fixing:
        findings = check(messages, options=options)
        return HistoryResult(_result(layout, dialect, size, findings, (), findings, reruns=reruns))
    repair = fix(messages, options=options)
    if not repair.fixed:
        left = repair.findings
        return HistoryResult(_result(layout, dialect, size, left, (), left))
    repaired = list(repair.value)
    if appended:
        repaired = [*messages, *_new(repaired, messages)]
    remaining = check(repaired, options=options)
    result = _result(layout, dialect, size, repair.findings, repair.fixed, remaining)
    return HistoryResult(result, repaired)


def _result(
    layout: str,
    dialect: str,
    size: int,
    findings: Sequence[Finding],
    fixed: Sequence[Finding],
    remaining: Sequence[Finding],
    *,
    note: str | None = None,
    reruns: str | None = None,
) -> Result:
    listed = Conversation(
        pointer="",
        line=None,
        dialect=dialect,
        message_count=size,
        note=note,
        warning=note is not None,
        findings=tuple(findings),
    )
    # what resuming would run again: a warning of its own, beside the history's findings
    warned = Conversation("", None, None, 0, note=reruns, warning=True)
    return Result(
        layout=layout,
        conversations=(listed, warned) if reruns is not None else (listed,),
        findings=tuple(findings),
        fixed=tuple(fixed),
        remaining=tuple(remaining),
    )


def _new(repaired: Sequence[Any], original: Sequence[Any]) -> list[Any]:
    """The messages of ``repaired`` that are not in ``original`` (the repair's new ones), in
    order; ``original``'s own are the same objects or equal values."""
    kept = list(original)
    new = []
    for message in repaired:
        if kept and (message is kept[0] or message == kept[0]):
            kept.pop(0)
        else:
            new.append(message)
    return new
