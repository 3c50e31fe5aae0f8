"""A repaired LangGraph thread goes on right, whatever the user does next
(docs/stores.md#what-fix-writes-and-how-a-thread-goes-on): on real graphs (``create_agent``,
and a ``StateGraph`` ReAct loop with one ``Send`` per call), on SQLite and PostgreSQL, with a
strict model that refuses an unanswered call and a call answered twice, a tool step that raised
is fixed, and then ``invoke(None)``, new input and ``Command(resume=...)`` each go on with no
tool run again (the tools count their runs) and one result per call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command

from tests.helpers import TP002_TEXT, run, text
from tests.stores import (
    CAR_CALL,
    CAR_ERROR,
    CARD_CALL,
    CARD_ERROR,
    EARLIER_CALL,
    HOTEL_CALL,
    TRIP_KINDS,
    Saver,
    Trip,
    agent,
    config,
    earlier_round,
    failed_trip,
    postgres_url,
    refusing_model,
    store,
    stuck_thread,
    trip_tools,
    waiting_thread,
)

__all__ = ["postgres_url", "store"]  # the fixtures, used by name

#: LangGraph's ways to go on with a thread.
WAYS: dict[str, Any] = {
    "invoke(None)": None,
    "new input": {"messages": [HumanMessage("So, is it booked?")]},
    "Command(resume=...)": Command(resume="go on"),
}

#: The calls of the tool step that raised: both in parallel, or the failing one alone.
STEPS = {
    "parallel": [HOTEL_CALL, CARD_CALL],
    "single": [CARD_CALL],
    "two failed": [HOTEL_CALL, CARD_CALL, CAR_CALL],
}

#: What LangGraph stores as a failed task's error (its error write: the exception's repr), by
#: the call the task ran.
STORED_ERRORS = {
    "call_card": repr(RuntimeError(CARD_ERROR)),
    "call_car": repr(RuntimeError(CAR_ERROR)),
}

REPLY = AIMessage("The hotel is booked; the card payment failed.")


#: LangGraph's channel of a failed task's error write.
ERROR = "__error__"


def unknown(call_id: str) -> str:
    """The made-up result of an open call of the step (the last turn's: TP002's text)."""
    (call,) = [c for c in STEPS["two failed"] if c["id"] == call_id]
    return text(TP002_TEXT, call["name"], call_id)


def results(messages: list[Any]) -> dict[str, list[ToolMessage]]:
    """The ToolMessages of ``messages``, by the call they answer."""
    found: dict[str, list[ToolMessage]] = {}
    for message in messages:
        if isinstance(message, ToolMessage):
            found.setdefault(message.tool_call_id, []).append(message)
    return found


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("kind", TRIP_KINDS)
def test_no_tool_runs_again_after_fix(
    store: tuple[str, Saver], tmp_path: Path, kind: str, step: str, way: str
) -> None:
    url, saver = store
    calls = STEPS[step]
    with saver() as checkpointer:
        failed_trip(kind, checkpointer, "trip", calls)
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        trip = Trip(kind, checkpointer, [REPLY])
        state = trip.invoke(WAYS[way], "trip")
        assert trip.runs == []  # neither the finished booking nor the failed payment again
        answered = results(state["messages"])
        assert {c: len(answered[c]) for c in answered} == {c["id"]: 1 for c in calls}
        if step == "parallel":
            assert answered["call_hotel"][0].content == "booked Oslo: H-1"
        for call, error in STORED_ERRORS.items():  # each failed call: its stored error ...
            if call in answered:
                (content,) = [m.content for m in answered[call]]
                # ... as LangGraph's ToolNode words it, or, where a busy machine had LangGraph
                # cancel the task when its sibling raised, the outcome is unknown
                assert content in (f"Error: {error}", unknown(call)), content
        assert "call_card" in answered
        for seen in trip.seen:  # what the model was sent: one result per call
            assert {c: len(r) for c, r in results(seen).items()} == {c["id"]: 1 for c in calls}
        if way == "new input" or step != "single":  # the model goes on
            assert len(trip.seen) == 1
            assert state["messages"][-1].content == REPLY.content
        else:  # no finished task says where the step leads: the thread waits for input
            assert trip.seen == []
            assert state["messages"][-1].tool_call_id == "call_card"
    run(["check", "--select", "ALL", url], cwd=tmp_path, expect=0)


@pytest.mark.parametrize("way", WAYS)
def test_a_tool_node_step_is_completed(store: tuple[str, Saver], tmp_path: Path, way: str) -> None:
    """LangGraph's ``ToolNode`` runs both calls in one task, scheduled by an edge
    (``branch:to:tools``), and the task fails whole: no result is stored, and nothing says
    where the step leads. After the fix no tool runs again, each call has one result, and
    the thread goes on with new input."""
    url, saver = store
    calls = STEPS["parallel"]
    with saver() as checkpointer:
        failed_trip("tool_node", checkpointer, "trip", calls)
        values = checkpointer.get_tuple(config("trip")).checkpoint["channel_values"]
        assert "branch:to:tools" in values
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        trip = Trip("tool_node", checkpointer, [REPLY])
        assert trip.graph.get_state(config("trip")).next == ()
        state = trip.invoke(WAYS[way], "trip")
        assert trip.runs == []
        answered = results(state["messages"])
        assert {c: len(answered[c]) for c in answered} == {c["id"]: 1 for c in calls}
        assert len(trip.seen) == (1 if way == "new input" else 0)
    run(["check", "--select", "ALL", url], cwd=tmp_path, expect=0)


@pytest.mark.parametrize("way", ["invoke(None)", "Command(resume=...)"])
@pytest.mark.parametrize("kind", [*TRIP_KINDS, "tool_node"])
def test_an_earlier_tool_round_says_where_the_step_leads(
    store: tuple[str, Saver], tmp_path: Path, kind: str, way: str
) -> None:
    """No task of the failed step finished (one call that raised; a ``ToolNode``'s one task),
    so the step itself does not say where the tool node leads; the thread's earlier tool
    round does (its task wrote the edge to the model), and the repair leads there: the model
    is called once, with one result per call, and no tool runs again."""
    url, saver = store
    calls = [HOTEL_CALL, CARD_CALL] if kind == "tool_node" else [CARD_CALL]
    with saver() as checkpointer:
        earlier_round(kind, checkpointer, "trip")
        failed_trip(kind, checkpointer, "trip", calls)
    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert "invoke(None) runs again" in checked.said
    assert "does not say where" not in checked.said
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        trip = Trip(kind, checkpointer, [REPLY])
        assert trip.graph.get_state(config("trip")).next == ("model",)
        state = trip.invoke(WAYS[way], "trip")
        assert trip.runs == []
        assert len(trip.seen) == 1
        every = [EARLIER_CALL, *calls]
        assert {c: len(r) for c, r in results(trip.seen[0]).items()} == {c["id"]: 1 for c in every}
        assert state["messages"][-1].content == REPLY.content
    run(["check", "--select", "ALL", url], cwd=tmp_path, expect=0)


@pytest.mark.parametrize("kind", [*TRIP_KINDS, "tool_node"])
def test_without_an_earlier_round_check_says_the_repair_waits(
    store: tuple[str, Saver], tmp_path: Path, kind: str
) -> None:
    """A thread whose only tool step failed whole: nothing in the store says where the tool
    node leads, which check's warning says; after the fix ``invoke(None)`` runs nothing."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip(kind, checkpointer, "trip", [CARD_CALL])
    checked = run(["check", url], cwd=tmp_path, expect=1)
    unled = "the store does not say where tools leads: no earlier step of the thread ran tools"
    assert unled in checked.said, checked.show()
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        trip = Trip(kind, checkpointer, [REPLY])
        state = trip.invoke(None, "trip")
        assert trip.runs == []
        assert trip.seen == []
        assert state["messages"][-1].tool_call_id == "call_card"


def test_an_earlier_round_that_ended_the_run_leaves_the_way_on_open(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """A ``create_agent`` tool node leads to the model, or ends the run after a tool that
    returns directly: the thread's history shows both, so nothing is guessed (check says
    so), and after the fix ``invoke(None)`` runs nothing, as without history."""
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    url, saver = store
    runs: list[str] = []

    @tool(return_direct=True)
    def look_up(city: str) -> str:
        """Look ``city`` up; the answer goes to the user as it is."""
        runs.append("look_up")
        return f"{city}: sunny"

    look = {"name": "look_up", "args": {"city": "Oslo"}, "id": "call_look"}
    replies = [
        AIMessage("", tool_calls=[look]),
        AIMessage("", tool_calls=[EARLIER_CALL]),
        AIMessage("Booked."),
        AIMessage("", tool_calls=[CARD_CALL]),
    ]
    tools = [look_up, *trip_tools(runs)[:2]]  # book_hotel, charge_card
    with saver() as checkpointer:
        graph = create_agent(refusing_model(replies, []), tools=tools, checkpointer=checkpointer)
        for said in ("Weather?", "Book Bergen"):
            graph.invoke({"messages": [HumanMessage(said)]}, config("trip"))
        with pytest.raises(RuntimeError, match=CARD_ERROR):
            graph.invoke({"messages": [HumanMessage("Pay")]}, config("trip"))
    checked = run(["check", url], cwd=tmp_path, expect=1)
    led = "the store does not say where tools leads: its earlier steps led to model or the end"
    assert led in checked.said, checked.show()
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        seen: list[list[Any]] = []
        graph = create_agent(refusing_model([REPLY], seen), tools=tools, checkpointer=checkpointer)
        runs.clear()
        state = graph.invoke(None, config("trip"))
        assert runs == []
        assert seen == []
        assert state["messages"][-1].tool_call_id == "call_card"


@pytest.mark.parametrize("kind", TRIP_KINDS)
def test_the_unfixed_thread_retries_only_the_failed_call(
    store: tuple[str, Saver], tmp_path: Path, kind: str
) -> None:
    """What LangGraph's own retry does before a fix (the baseline), and what check says of it:
    the thread is re-run by ``invoke(None)``, which repeats the failed call."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip(kind, checkpointer, "trip", STEPS["parallel"])
    checked = run(["check", url], cwd=tmp_path, expect=1)
    stored = STORED_ERRORS["call_card"]
    again = f"invoke(None) runs again: charge_card (call_card), which raised {stored}"
    assert f"{url}#trip: /: warning: {again}" in checked.said, checked.show()
    machine = run(["check", "--output-format", "json", url], cwd=tmp_path, expect=1)
    warnings = [r for r in json.loads(machine.stdout) if r["kind"] == "warning"]
    assert [w["file"] for w in warnings] == [f"{url}#trip"]
    assert f"warning: {warnings[0]['message']}\n" in checked.said  # the same words
    assert again in warnings[0]["message"]
    with saver() as checkpointer:
        trip = Trip(kind, checkpointer, [REPLY])
        with pytest.raises(RuntimeError, match=CARD_ERROR):
            trip.invoke(None, "trip")
        assert trip.runs == ["charge_card"]


@pytest.mark.parametrize("kind", TRIP_KINDS)
def test_update_state_as_the_tool_node_is_the_reference(
    store: tuple[str, Saver], tmp_path: Path, kind: str
) -> None:
    """The repair checkpoint is what LangGraph's own ``update_state(..., as_node="tools")``
    with the same results records, in what decides the next step: the same next node, the
    same messages, the same values in the channels that schedule tasks, and the same channels
    moved to a new version."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip(kind, checkpointer, "ours", STEPS["parallel"])
        failed_trip(kind, checkpointer, "theirs", STEPS["parallel"])
        before = [
            checkpointer.get_tuple(config(t)).checkpoint["channel_versions"]
            for t in ("ours", "theirs")
        ]
    run(["fix", url, "--thread", "ours"], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        graph = Trip(kind, checkpointer, []).graph
        ours = graph.get_state(config("ours"))
        answers = [m for m in ours.values["messages"] if isinstance(m, ToolMessage)]
        graph.update_state(config("theirs"), {"messages": answers}, as_node="tools")
        theirs = graph.get_state(config("theirs"))
        assert ours.next == theirs.next == ("model",)
        assert [t.name for t in ours.tasks] == [t.name for t in theirs.tasks] == ["model"]
        shapes = [
            [
                (m.type, getattr(m, "tool_call_id", None), m.content)
                for m in state.values["messages"]
            ]
            for state in (ours, theirs)
        ]
        assert shapes[0] == shapes[1]
        mine, reference = (checkpointer.get_tuple(config(t)).checkpoint for t in ("ours", "theirs"))
        for checkpoint in (mine, reference):
            del checkpoint["channel_values"]["messages"]
        assert mine["channel_values"] == reference["channel_values"]
        moved = [
            {c for c, v in checkpoint["channel_versions"].items() if v != earlier.get(c)}
            for checkpoint, earlier in zip((mine, reference), before, strict=True)
        ]
        assert moved[0] == moved[1]


def test_a_stuck_thread_goes_on_with_invoke_none(store: tuple[str, Saver], tmp_path: Path) -> None:
    """A thread refused after new input (its call cut off earlier): after the fix,
    ``invoke(None)`` retries the model's failed turn with the answered history."""
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        seen: list[list[Any]] = []
        graph = agent(checkpointer, [AIMessage("Oslo could not be booked.")], seen)
        state = graph.invoke(None, config("stuck"))
        assert state["messages"][-1].content == "Oslo could not be booked."
        assert len(seen) == 1
    run(["check", "--select", "ALL", url], cwd=tmp_path, expect=0)


def test_an_abandoned_approval_answered_then_resumed(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """``fix --force`` answers a call waiting for a human; the human's late
    ``Command(resume=...)`` then runs nothing (the tool would pay a second time) and no
    second result reaches the model."""
    url, saver = store
    with saver() as checkpointer:
        waiting_thread(checkpointer, "abandoned")
    run(["fix", "--force", url, "--thread", "abandoned"], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        graph = waiting_thread(checkpointer, "other")
        state = graph.invoke(Command(resume="yes"), config("abandoned"))
        assert [m.content for m in state["messages"] if isinstance(m, ToolMessage)] != ["paid 40"]
        assert len(results(state["messages"])["call_pay"]) == 1
    run(["check", "--select", "ALL", url, "--thread", "abandoned"], cwd=tmp_path, expect=0)


def test_the_stored_error_is_reported_as_recovered(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """docs/pairing.md#evidence-first: the failed payment's result is the error the checkpoint
    stored, so ``check`` and ``fix`` say its fix is recovered, in the text and JSON reports."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip(TRIP_KINDS[0], checkpointer, "trip", STEPS["parallel"])
    checked = run(["check", url], cwd=tmp_path, expect=1)
    (line,) = [line for line in checked.stdout_lines if "TP002 [*]" in line]
    assert "(id call_card)" in line and line.endswith(" (fix: recovered) [/1/tool_calls/1]")
    records = json.loads(run(["check", "--output-format", "json", url], cwd=tmp_path).stdout)
    (card,) = [r for r in records if r["kind"] == "finding" and r["call_id"] == "call_card"]
    assert card["fix"]["origin"] == "recovered"
    fixed = run(["fix", url], cwd=tmp_path, expect=0)
    assert "(1 recovered)" in fixed.stderr, fixed.show()


def test_a_cancelled_task_is_no_evidence(store: tuple[str, Saver], tmp_path: Path) -> None:
    """When one task of a step raises, LangGraph cancels the others and records a
    ``CancelledError()`` for each: what LangGraph did, not what the tool did, so its call gets
    the result that says the outcome is unknown, and the fix says it is made up
    (docs/stores.md#the-stored-error). Here the payment's task is the step's one failed task
    and its call the one left open, the case where an error write answers its call."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip(TRIP_KINDS[0], checkpointer, "trip", STEPS["parallel"])
        saved = checkpointer.get_tuple(config("trip"))
        assert saved is not None
        (card_task,) = [t for t, channel, _ in saved.pending_writes or [] if channel == ERROR]
        # the error write LangGraph makes for a task it cancelled (it replaces the task's own)
        checkpointer.put_writes(saved.config, [(ERROR, "CancelledError()")], card_task)
    records = json.loads(run(["check", "--output-format", "json", url], cwd=tmp_path).stdout)
    origins = {r["call_id"]: r["fix"]["origin"] for r in records if r["kind"] == "finding"}
    assert origins == {"call_card": "synthesized"}
    run(["fix", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        state = Trip(TRIP_KINDS[0], checkpointer, [REPLY]).graph.get_state(config("trip"))
    answered = results(state.values["messages"])
    assert [m.content for m in answered["call_card"]] == [unknown("call_card")]
    assert [m.content for m in answered["call_hotel"]] == ["booked Oslo: H-1"]
