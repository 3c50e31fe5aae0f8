"""The pairing engine: which calls are answered, which dangle. Knows no dialect.

Pairing rule (DESIGN.md): walk the messages in order; a result answers the *nearest earlier call
with the same key that is still unanswered*. A call is dangling when no later result answers it.
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


def turn_starts(views: Sequence[MessageView]) -> list[int]:
    """For each message, the index of the first message of its turn."""
    starts: list[int] = []
    for index, view in enumerate(views):
        starts.append(starts[-1] if view.joins_previous and starts else index)
    return starts


def pair(views: Sequence[MessageView]) -> Pairing:
    """Pair results with calls in one O(n) pass and classify the calls left open.

    In each message, results for earlier messages are matched first, then its calls open, then
    its inner results (a server tool's result after its call) are matched; a message never
    answers itself otherwise. Calls without a key cannot be answered and are not reported here
    (TP105 reports them). An open call is:

    * TP003 when its arguments are malformed,
    * TP002 when its turn is the last one: nothing but tool results follows it,
    * TP001 otherwise (another message came in).
    """
    open_calls: dict[str, list[tuple[int, int]]] = {}

    def answer(key: str) -> None:
        stack = open_calls.get(key)
        if stack:
            stack.pop()

    for index, view in enumerate(views):
        for key in view.results:
            answer(key)
        for call_index, call in enumerate(view.calls):
            opened = call.pairing_key
            if opened:
                open_calls.setdefault(opened, []).append((index, call_index))
        for key in view.inner_results:
            answer(key)

    last = len(views) - 1
    while last >= 0 and views[last].role is Role.RESULTS:
        last -= 1
    # Calls in the turn of the last message that is not a result are pending, not dangling.
    frontier = turn_starts(views)[last] if last >= 0 else 0

    left_open = sorted(position for stack in open_calls.values() for position in stack)
    dangling = []
    for index, call_index in left_open:
        call = views[index].calls[call_index]
        if call.invalid:
            code = "TP003"
        elif index >= frontier:
            code = "TP002"
        else:
            code = "TP001"
        dangling.append(Dangling(index, call_index, call, code))
    return Pairing(tuple(dangling))


def insertion_point(views: Sequence[MessageView], message_index: int) -> int:
    """Where result messages for a message's calls go: after the rest of its turn, then after
    the run of result messages that follows."""
    position = message_index + 1
    while position < len(views) and views[position].joins_previous:
        position += 1
    while position < len(views) and views[position].role is Role.RESULTS:
        position += 1
    return position
