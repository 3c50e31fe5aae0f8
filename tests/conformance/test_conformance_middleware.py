"""toolpatch's agent middleware against deepagents' on the same states (docs/langchain.md).

On the histories of `tests.langchain_builders.histories` (no reused ids, no result
before its call), both middlewares return an update exactly when the other does, and where
deepagents answers a call, toolpatch answers the same id in the same place: the same result
block, right after the AI message or after the block's existing results. With deepagents'
texts, the synthetic messages are equal field by field. Outside that domain toolpatch answers
what deepagents leaves open (a reused id).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage

from patchcore.langchain import PatchToolCallsMiddleware
from tests.langchain_builders import (
    CONFORMANCE,
    SEED,
    TEXTS,
    before_agent,
    deepagents_patch,
    histories,
    patched,
    tool_fields,
)


def ours(messages: list[BaseMessage], **settings: Any) -> list[BaseMessage] | None:
    """toolpatch's middleware on a state; ``None`` when it returns no update."""
    update = before_agent(PatchToolCallsMiddleware(**settings), messages)
    return None if update is None else patched(update)


def placed(
    patched: Sequence[BaseMessage], original: Sequence[BaseMessage]
) -> list[tuple[int, tuple[object, ...]]]:
    """Each inserted message, with the index (in ``original``) of the AI message whose result
    block it is in (``-1`` outside every block)."""
    known = {id(m): index for index, m in enumerate(original)}
    caller = -1
    out = []
    for message in patched:
        if id(message) in known:
            if isinstance(message, AIMessage):
                caller = known[id(message)]
            elif not isinstance(message, ToolMessage):
                caller = -1  # a block ends at the first message that is no ToolMessage
            continue
        out.append((caller, tool_fields(message)))
    return out


def at_bare_calls(
    patched: Sequence[BaseMessage], original: Sequence[BaseMessage]
) -> list[tuple[int, tuple[object, ...]]]:
    """The inserted messages (index in ``patched``, fields) in the blocks of AI messages that
    no ToolMessage follows in ``original``."""
    bare = {
        index
        for index, message in enumerate(original)
        if isinstance(message, AIMessage)
        and not (index + 1 < len(original) and isinstance(original[index + 1], ToolMessage))
    }
    known = {id(m) for m in original}
    inserted = [i for i, m in enumerate(patched) if id(m) not in known]
    return [
        (i, fields)
        for i, (caller, fields) in zip(inserted, placed(patched, original), strict=True)
        if caller in bare
    ]


@CONFORMANCE
@given(histories())
def test_answers_what_deepagents_answers_where_it_answers(history: list[BaseMessage]) -> None:
    theirs = deepagents_patch(history)
    mine = ours(history, texts=TEXTS)
    if theirs is None:
        assert mine is None, "deepagents returns no update, toolpatch does"
        return
    assert mine is not None, "deepagents patches this state, toolpatch returns no update"
    originals = {id(m) for m in history}
    kept = [m for m in mine if id(m) in originals]
    assert len(kept) == len(history) and all(a is b for a, b in zip(kept, history, strict=True))
    assert Counter(placed(mine, history)) == Counter(placed(theirs, history))
    assert all(caller >= 0 for caller, _ in placed(mine, history)), "a result outside a block"
    # Where the call's block holds no result yet: the very same positions, in the same order.
    assert at_bare_calls(mine, history) == at_bare_calls(theirs, history)


def test_deepagents_seed_case_at_the_same_position() -> None:
    theirs = deepagents_patch(SEED)
    mine = ours(SEED)
    assert theirs is not None and mine is not None
    assert [m.type for m in mine] == [m.type for m in theirs]
    assert tool_fields(mine[3])[2:] == tool_fields(theirs[3])[2:]  # name, id, status


def test_a_reused_id_that_deepagents_leaves_open() -> None:
    history: list[BaseMessage] = [
        HumanMessage("Events today?"),
        AIMessage("", tool_calls=[ToolCall(id="call_1", name="get_events_for_days", args={})]),
        ToolMessage("No events.", tool_call_id="call_1"),
        HumanMessage("And tomorrow?"),
        AIMessage("", tool_calls=[ToolCall(id="call_1", name="get_events_for_days", args={})]),
        HumanMessage("Never mind."),
    ]
    assert deepagents_patch(history) is None  # call_1 is in its set of answered ids
    mine = ours(history)
    assert mine is not None
    assert [m.type for m in mine] == ["human", "ai", "tool", "human", "ai", "tool", "human"]
    assert mine[5].tool_call_id == "call_1"  # type: ignore[attr-defined]
