"""The pairing engine: which result answers which call, which calls dangle. Knows no dialect.

Pairing rule (docs/pairing.md#the-pairing-rule): walk the messages in order; a result answers the
*nearest earlier call with the same key that is still unanswered*. A call is dangling when no later
result answers it. There is deliberately no global set of answered ids: real histories reuse ids
across turns (tau-bench, tau2), and a global set would let a later turn's result hide an earlier
dangling call. Reusing an id after the earlier call was answered is therefore legal; reusing it
while that call is still open is not (TP104).

The engine pairs views (`patchcore.engine.quick.View`): the adapters' `MessageView`s, or the
quick lane's structs (`patchcore.engine.quick`), which read the two commonest shapes without
parsing message bodies. Either way the pairing, the rule of an open call (the turn frontier),
and where its result goes are decided here, by the same code.

Calls and results without ids (where the format wants them) have no key; `pair_idless` pairs
them by name and order within their turn, after the walk
(docs/pairing.md#calls-and-results-without-ids).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import msgspec

from patchcore.engine.quick import open_keys
from patchcore.model import MessageView, Role, ToolCall, ToolResult


class Dangling(msgspec.Struct, frozen=True):
    """A call that no result answers, with the rule code it falls under; ``pending``: it is in
    the last turn (nothing but results follows it), where a running agent may still answer it
    (every TP002, and a TP003 there)."""

    message_index: int
    call_index: int
    call: ToolCall
    code: str
    pending: bool = False


class CallRef(msgspec.Struct, frozen=True):
    """A call, by position."""

    message_index: int
    call_index: int
    call: ToolCall


class ResultRef(msgspec.Struct, frozen=True):
    """A result, by position."""

    message_index: int
    result: ToolResult
    inner: bool = False


class Answer(msgspec.Struct, frozen=True):
    """A call and the result that answers it."""

    call: CallRef
    result: ResultRef


class Pairing(msgspec.Struct, frozen=True):
    """Everything one walk over a message list learns.

    Attributes:
        dangling: Calls no result answers (TP001, TP002, TP003).
        answers: Calls with the result that answers them.
        orphans: Results whose key no earlier call had (TP101).
        duplicates: Results whose key's calls were all answered already (TP103).
        reused: Calls opened while an earlier call with the same key was still open (TP104).
        keyless: Calls with no key (TP105): only a result with no id can answer one
            (`pair_idless`), and those it answers are among ``answers``.
        owned: The orphans that a call could still be the one they answer, so that no fix may
            drop them (docs/pairing.md#calls-and-results-without-ids).
    """

    dangling: tuple[Dangling, ...]
    answers: tuple[Answer, ...] = ()
    orphans: tuple[ResultRef, ...] = ()
    duplicates: tuple[ResultRef, ...] = ()
    reused: tuple[CallRef, ...] = ()
    keyless: tuple[CallRef, ...] = ()
    owned: tuple[ResultRef, ...] = ()


def pair(
    views: Sequence[MessageView],
    *,
    dangling_only: bool = False,
    left_open: Collection[str] | None = None,
    first_caller: int = 0,
) -> Pairing:
    """Pair results with calls in O(n) and classify what is left over.

    In each message, results for earlier messages are matched first, then its calls open, then
    its inner results (a server tool's result after its call) are matched; a message never
    answers itself otherwise. An open call is:

    * TP003 when its arguments are malformed,
    * TP002 when its turn is the last one: nothing but tool results follows it,
    * TP001 otherwise (another message came in).

    With ``dangling_only`` (only the counted rules are selected, `patchcore.rules.COUNTED`) the
    pairing learns the dangling calls alone, and faster: `open_keys` counts first, and only the
    keys it leaves open (most lists have none) are walked with stacks; a list where a result
    closed no open call (a duplicate or an orphan, rare) is walked whole instead. ``left_open``
    is that count where the caller has made it already (the quick lane, which hands on no list
    with such a result),
    and ``first_caller`` the first message that issues a call with such a key, if the caller
    knows it (the walk starts there).
    """
    if dangling_only:
        walked, unmatched = (left_open, False) if left_open is not None else open_keys(views)
        if not unmatched:
            return Pairing(_left_open(views, walked, first_caller) if walked else ())
    open_calls: dict[str, list[CallRef]] = {}
    seen_keys: set[str] = set()
    answers: list[Answer] = []
    orphans: list[ResultRef] = []
    duplicates: list[ResultRef] = []
    reused: list[CallRef] = []
    keyless: list[CallRef] = []

    def answer(index: int, result: ToolResult, inner: bool = False) -> None:
        stack = open_calls.get(result.key)
        if stack:
            answers.append(Answer(stack.pop(), ResultRef(index, result, inner)))
        else:
            ref = ResultRef(index, result, inner)
            (duplicates if result.key in seen_keys else orphans).append(ref)

    for index, view in enumerate(views):
        results = view.results
        if results:
            for result in results:
                answer(index, result)
        calls = view.calls
        if calls:
            for call_index, call in enumerate(calls):
                key = call.pairing_key
                ref = CallRef(index, call_index, call)
                if not key:
                    keyless.append(ref)
                    continue
                stack = open_calls.setdefault(key, [])
                if stack and key == call.id:  # a name-and-position key (Gemini) repeats by design
                    reused.append(ref)
                stack.append(ref)
                seen_keys.add(key)
        inner = view.inner_results
        if inner:
            for result in inner:
                answer(index, result, inner=True)

    owned: list[ResultRef] = []
    if orphans:
        idless, orphans, owned = pair_idless(views, keyless, orphans)
        if idless:  # in result order, as the others (a stable sort: the same message keeps it)
            answers = sorted([*answers, *idless], key=lambda a: a.result.message_index)
    return Pairing(
        _classified(views, open_calls),
        tuple(answers),
        tuple(orphans),
        tuple(duplicates),
        tuple(reused),
        tuple(keyless),
        tuple(owned),
    )


def pair_idless(
    views: Sequence[MessageView], keyless: Sequence[CallRef], orphans: Sequence[ResultRef]
) -> tuple[list[Answer], list[ResultRef], list[ResultRef]]:
    """Pair the results with no id (``ToolResult.id_at``) among ``orphans`` with the calls with
    no id (``keyless``), as Gemini pairs its calls without ids and as peers do
    (docs/pairing.md#calls-and-results-without-ids): a result answers a call of the turn it
    follows (the last model turn before it), never an earlier or a later one; within the turn,
    a call whose name does not contradict the result's (a missing name contradicts nothing),
    when only one such call is open, or, when the turn has as many results without an id that
    may answer one of its calls as calls without one, the first such call (their order is the
    calls' order).

    Returns:
        The answers, the orphans left, and those of them that a call without an id before them
        (of a compatible name) could still be the one they answer: nothing says which, so they
        are reported and kept, never dropped.
    """
    if not keyless:
        return [], list(orphans), []
    idless = [r for r in orphans if r.result.id_at is not None and not r.inner]
    if not idless:
        return [], list(orphans), []
    turn_of: list[int] = []  # the model turn each message's results answer
    turn = start = -1
    calls_of: dict[int, list[CallRef]] = {}
    keyless_at: dict[int, list[CallRef]] = {}
    for call in keyless:
        keyless_at.setdefault(call.message_index, []).append(call)
    for index, view in enumerate(views):
        turn_of.append(turn)
        if not view.joins_previous:
            start = index
        if view.role is Role.CALLER or view.calls:
            turn = start
            calls_of.setdefault(turn, []).extend(keyless_at.get(index, ()))
    results_of: dict[int, list[ResultRef]] = {}
    for result in idless:
        results_of.setdefault(turn_of[result.message_index], []).append(result)
    answers: list[Answer] = []
    answered: set[int] = set()
    for turn, results in results_of.items():
        left = list(calls_of.get(turn, ()))
        # Only a result that may answer one of the turn's calls counts: one whose name
        # contradicts every one of them is none of their answers (and the only one a fix may
        # drop, so that the repair pairs as the input did).
        results = [r for r in results if any(_names_fit(c.call.name, r.result.name) for c in left)]
        in_order = len(results) == len(left)
        for ref in results:
            fits = [c for c in left if _names_fit(c.call.name, ref.result.name)]
            if len(fits) == 1 or (fits and in_order):
                left.remove(fits[0])
                answers.append(Answer(fits[0], ref))
                answered.add(id(ref))
    still = [r for r in orphans if id(r) not in answered]
    owned = [r for r in still if r.result.id_at is not None and any(may_own(c, r) for c in keyless)]
    return answers, still, owned


def _names_fit(call: str | None, result: str | None) -> bool:
    """Whether a result's tool name allows it to answer a call: only two names that differ
    rule it out (a result often has none)."""
    return call is None or result is None or call == result


def may_own(call: CallRef, result: ResultRef) -> bool:
    """Whether a call without an id could be the one a result without an id answers: it came
    before it, and their tool names do not contradict each other."""
    return call.message_index < result.message_index and _names_fit(
        call.call.name, result.result.name
    )


def _left_open(
    views: Sequence[MessageView], walked: Collection[str], start: int
) -> tuple[Dangling, ...]:
    """The open calls of the keys ``walked`` (all others are answered), walked with stacks from
    message ``start`` on: no result before the first call of such a key can answer one, and
    nothing but these calls is learned."""
    open_calls: dict[str, list[CallRef]] = {key: [] for key in walked}
    stack_of = open_calls.get
    for index in range(start, len(views)):
        view = views[index]
        results = view.results
        if results:
            _close(open_calls, results)
        calls = view.calls
        if calls:
            for call_index, call in enumerate(calls):
                stack = stack_of(call.pairing_key)  # type: ignore[arg-type]
                if stack is not None:
                    stack.append(CallRef(index, call_index, call))
        inner = view.inner_results
        if inner:
            _close(open_calls, inner)
    return _classified(views, open_calls)


def _close(open_calls: dict[str, list[CallRef]], results: Sequence[ToolResult]) -> None:
    """Each result closes the latest open call with its key, if there is one."""
    for result in results:
        stack = open_calls.get(result.key)
        if stack:
            stack.pop()


def _classified(
    views: Sequence[MessageView], open_calls: dict[str, list[CallRef]]
) -> tuple[Dangling, ...]:
    """The calls left on the stacks, in message and call order, each with its rule."""
    frontier = last_turn(views)
    unanswered = sorted(
        (ref for stack in open_calls.values() for ref in stack),
        key=lambda ref: (ref.message_index, ref.call_index),
    )
    return tuple(
        Dangling(
            ref.message_index,
            ref.call_index,
            ref.call,
            open_code(ref, frontier),
            pending=ref.message_index >= frontier,
        )
        for ref in unanswered
    )


def last_turn(views: Sequence[MessageView]) -> int:
    """The first message of the last turn that is not only results: its calls are pending, not
    dangling."""
    last = len(views) - 1
    while last >= 0 and views[last].role is Role.RESULTS:
        last -= 1
    while last > 0 and views[last].joins_previous:  # back to the start of its turn
        last -= 1
    return max(last, 0)


def open_code(ref: CallRef, frontier: int) -> str:
    """The rule an open call falls under, given the first message of the last turn."""
    if ref.call.invalid:
        return "TP003"
    if ref.message_index >= frontier:
        return "TP002"
    return "TP001"


def result_region(views: Sequence[MessageView], message_index: int) -> range:
    """The messages where results for a message's calls belong: right after the rest of its
    turn, the run of result messages that follows."""
    position = message_index + 1
    while position < len(views) and views[position].joins_previous:
        position += 1
    start = position
    while position < len(views) and views[position].role is Role.RESULTS:
        position += 1
    return range(start, position)


def insertion_point(views: Sequence[MessageView], message_index: int) -> int:
    """Where new result messages for a message's calls go: at the end of its result region."""
    return result_region(views, message_index).stop
