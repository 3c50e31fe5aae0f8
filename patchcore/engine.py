"""The pairing engine: which calls are answered, which dangle. Knows no dialect.

Pairing rule (DESIGN.md): walk the messages in order; a result answers the *nearest earlier call
with the same id that is still unanswered*. A call is dangling when no later result answers it.
There is deliberately no global set of answered ids: real histories reuse ids across turns
(tau-bench, tau2), and a global set would let a later turn's result hide an earlier dangling call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from patchcore.model import MessageView, Role, ToolCall


@dataclass(frozen=True, slots=True)
class Dangling:
    """A call that no result answers, with the rule code it falls under."""

    message_index: int
    call_index: int
    call: ToolCall
    code: str


@dataclass(frozen=True, slots=True)
class Pairing:
    """The outcome of one walk over a message list."""

    dangling: tuple[Dangling, ...]


def pair(views: Sequence[MessageView]) -> Pairing:
    """Pair results with calls in one O(n) pass and classify the calls left open.

    Results of a message are matched before its own calls, so a message can never answer
    itself. Calls without an id cannot be answered and are not reported here (TP105 reports
    them). An open call is:

    * TP003 when its arguments are malformed,
    * TP002 when nothing but tool results follows its message (the run stopped there),
    * TP001 otherwise (another message came in).
    """
    open_calls: dict[str, list[tuple[int, int]]] = {}
    for index, view in enumerate(views):
        for result_id in view.results:
            stack = open_calls.get(result_id)
            if stack:
                stack.pop()
        for call_index, call in enumerate(view.calls):
            if call.id:
                open_calls.setdefault(call.id, []).append((index, call_index))

    frontier = len(views)
    while frontier > 0 and views[frontier - 1].role is Role.RESULTS:
        frontier -= 1
    # Messages at or after `last_caller` are followed by nothing but results.
    last_caller = frontier - 1

    left_open = sorted(position for stack in open_calls.values() for position in stack)
    dangling = []
    for index, call_index in left_open:
        call = views[index].calls[call_index]
        if call.invalid:
            code = "TP003"
        elif index >= last_caller:
            code = "TP002"
        else:
            code = "TP001"
        dangling.append(Dangling(index, call_index, call, code))
    return Pairing(tuple(dangling))


def insertion_point(views: Sequence[MessageView], message_index: int) -> int:
    """Where results for a message's calls go: after the run of result messages that follows it."""
    position = message_index + 1
    while position < len(views) and views[position].role is Role.RESULTS:
        position += 1
    return position
