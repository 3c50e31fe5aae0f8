"""`patchcore.safe_cut` on random histories and random cuts (docs/trimming.md#nearest): the cut
keeps every call with its results and every model turn whole, differs from the asked cut by the
fewest messages (checked against every subset of small histories), keeps the most among the cuts
as near, and breaks nothing the engine finds when it reads the cut history again
(`patchcore.broken_by`), for generated histories and for every sample of every dialect (each
list as the engine read it, an agent session's too)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import patchcore
from patchcore.api import dialect_of
from patchcore.dialects.base import ListContext
from patchcore.engine.pairing import pair
from patchcore.rules import RuleSelection
from tests.helpers import SAMPLES
from tests.sample_cases import all_cases

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: The longest history whose every subset is tried (2 ** 11 cuts).
BRUTE_FORCE = 11
DEFAULTS = patchcore.Options()


def bonds(messages: Sequence[Any], options: patchcore.Options) -> list[tuple[int, int]]:
    """What a safe cut must keep together, read straight from the engine's pairing and the
    dialect's views, not from `patchcore.bonded_groups`: each call's message with its result's,
    each message that continues a model turn with the one before it."""
    views = dialect_of(messages, options).views(list(messages), ListContext(()))
    answers = pair(views).answers
    joined = [(i - 1, i) for i in range(1, len(views)) if views[i].joins_previous]
    return [(a.call.message_index, a.result.message_index) for a in answers] + joined


def keeps_bonds(kept: set[int], bonded: list[tuple[int, int]]) -> bool:
    return all((one in kept) == (other in kept) for one, other in bonded)


def assert_nearest(
    messages: Sequence[Any], asked: set[int], options: patchcore.Options = DEFAULTS
) -> None:
    """The cut keeps every bond, and no cut that keeps them is nearer; among those as near,
    it keeps a superset of each (a tie keeps). Every subset for a small history."""
    cut = patchcore.safe_cut(messages, asked, options=options)
    kept = set(cut.kept)
    bonded = bonds(messages, options)
    assert keeps_bonds(kept, bonded), (asked, cut.kept, bonded)
    distance = len(kept ^ asked)
    assert distance == len(cut.added) + len(cut.removed)
    assert cut.messages == [messages[i] for i in cut.kept]
    if len(messages) > BRUTE_FORCE:
        return
    for size in range(len(messages) + 1):
        for other in map(set, itertools.combinations(range(len(messages)), size)):
            if keeps_bonds(other, bonded):
                assert len(other ^ asked) >= distance, (asked, cut.kept, sorted(other))
                if len(other ^ asked) == distance:
                    assert other <= kept, (asked, cut.kept, sorted(other))


def assert_nothing_broken(
    messages: Sequence[Any], asked: set[int], options: patchcore.Options = DEFAULTS
) -> None:
    """What the engine finds in the cut history, with every rule selected, the history had."""
    cut = patchcore.safe_cut(messages, asked, options=options)
    strict = replace(options, selection=RuleSelection.build(select=["ALL"]))
    if cut.messages:
        assert patchcore.broken_by(messages, cut.messages, options=strict) == [], (asked, cut.kept)


# --- generated histories -------------------------------------------------------------------

IDS = st.sampled_from(["c1", "c2", "c3", "c4"])


@st.composite
def chat_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """OpenAI Chat histories of up to about a dozen messages: parallel calls (ids reused across
    turns), results in any order, some missing, a user who speaks before a result comes, stray
    results."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for _ in range(draw(st.integers(1, 4))):
        ids = draw(st.lists(IDS, min_size=0, max_size=3, unique=True))
        calls = [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ]
        messages.append(
            {"role": "assistant", "content": "", **({"tool_calls": calls} if calls else {})}
        )
        answered = draw(st.permutations(ids))[: draw(st.integers(0, len(ids)))]
        for call_id in answered:
            if draw(st.integers(0, 5)) == 0:
                messages.append({"role": "user", "content": "meanwhile"})
            messages.append({"role": "tool", "tool_call_id": call_id, "content": "r"})
        if draw(st.integers(0, 6)) == 0:
            messages.append({"role": "tool", "tool_call_id": draw(IDS), "content": "stray"})
        if draw(st.booleans()):
            messages.append({"role": "user", "content": "next"})
    return messages


@st.composite
def responses_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """OpenAI Responses items: model turns of a reasoning item, calls and a message, their
    outputs (some missing), MCP approval requests and their responses, user messages."""
    items: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    serial = itertools.count()
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            items.append({"type": "reasoning", "id": f"rs_{next(serial)}", "summary": []})
        calls = [f"fc_{next(serial)}" for _ in range(draw(st.integers(0, 2)))]
        items += [
            {"type": "function_call", "call_id": c, "name": "f", "arguments": "{}"} for c in calls
        ]
        if draw(st.booleans()) or not calls:
            items.append({"type": "message", "role": "assistant", "content": "ok"})
        answered = draw(st.permutations(calls))[: draw(st.integers(0, len(calls)))]
        items += [{"type": "function_call_output", "call_id": c, "output": "r"} for c in answered]
        if draw(st.integers(0, 3)) == 0:
            request = f"mcpr_{next(serial)}"
            items.append(
                {
                    "type": "mcp_approval_request",
                    "id": request,
                    "name": "refund",
                    "arguments": "{}",
                    "server_label": "shop",
                }
            )
            if draw(st.booleans()):
                items.append(
                    {
                        "type": "mcp_approval_response",
                        "approval_request_id": request,
                        "approve": True,
                    }
                )
        if draw(st.booleans()):
            items.append({"role": "user", "content": "next"})
    return items


def cuts(histories: st.SearchStrategy[list[dict[str, Any]]]) -> st.SearchStrategy[Any]:
    """A history and a cut asked of it: a random subset, or a window of its last messages (what
    a trimmer asks most)."""
    return histories.flatmap(
        lambda h: st.tuples(
            st.just(h),
            st.one_of(
                st.sets(st.integers(0, len(h) - 1)),
                st.integers(0, len(h)).map(lambda start: set(range(start, len(h)))),
            ),
        )
    )


@PROPERTY
@given(cuts(chat_histories()))
def test_chat_cuts_are_the_nearest_that_keep_every_bond(case: Any) -> None:
    messages, asked = case
    assert_nearest(messages, asked)
    assert_nothing_broken(messages, asked)


@PROPERTY
@given(cuts(responses_histories()))
def test_responses_cuts_are_the_nearest_that_keep_every_bond(case: Any) -> None:
    messages, asked = case
    assert_nearest(messages, asked)
    assert_nothing_broken(messages, asked)


# --- every sample of every dialect ----------------------------------------------------------


@cache
def sample_lists() -> list[tuple[str, list[Any], patchcore.Options]]:
    """The message lists of every sample, input and expected repair, of every layout, as the
    engine read them (an agent session's: one message per turn), each with the options that
    read it as its dialect, by file and dialect."""
    found = []
    for case in all_cases():
        for path in (SAMPLES / case.path, case.expected):
            if path is None or not path.is_file():
                continue
            options = patchcore.make_options(dialect=case.dialect, with_messages=True)
            result = patchcore.check_document(
                path.read_bytes(), filename=path.name, options=options
            )
            for conversation in result.conversations:
                if conversation.dialect is None or not conversation.messages:
                    continue
                messages = [m for m in conversation.messages if m is not None]
                if not messages:  # a list of wrappers that hold none
                    continue
                read = patchcore.make_options(dialect=conversation.dialect)
                try:
                    patchcore.check_messages(messages, options=read)
                except patchcore.NoHistoryError:  # a list its dialect refuses (a stream of updates)
                    continue
                name = f"{path.relative_to(SAMPLES)}{conversation.pointer} ({conversation.dialect})"
                found.append((name, messages, read))
    return found


def test_the_samples_cover_the_dialects() -> None:
    dialects = {options.dialect.name for _, _, options in sample_lists() if options.dialect}
    assert dialects == {dialect.name for dialect in patchcore.NAMED}  # every dialect read


@pytest.mark.parametrize(
    "index", range(len(sample_lists())), ids=[name for name, _, _ in sample_lists()]
)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_sample_cuts_are_the_nearest_and_break_nothing(index: int, data: st.DataObject) -> None:
    _, messages, options = sample_lists()[index]
    asked = data.draw(st.sets(st.integers(0, len(messages) - 1)))
    assert_nearest(messages, asked, options)
    assert_nothing_broken(messages, asked, options)


def test_a_naive_window_breaks_what_the_guard_keeps() -> None:
    """The property is not empty: cutting the samples by position alone breaks pairs that
    `broken_by` finds, in many of them."""
    broken = 0
    for _, messages, options in sample_lists():
        for start in range(1, len(messages)):
            try:
                window = patchcore.broken_by(messages, messages[start:], options=options)
            except patchcore.NoHistoryError:  # a window of plain text in no dialect's marks
                continue
            if window:
                broken += 1
                break
    assert broken >= 20
