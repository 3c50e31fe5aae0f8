"""A real ``create_agent`` graph with a checkpointer, left mid-tool, resumed with a new message.

The chat model is a fake that refuses a history with an unanswered call as the providers do
(Anthropic's wording), so a thread whose tool never answered cannot go on without the
middleware, and goes on with it. Every test here builds and runs graphs: ``slow``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolCall
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from patchcore.langchain import PatchToolCallsMiddleware
from tests.helpers import TP001_TEXT, text
from tests.langchain_builders import RefusingChatModel, UnansweredToolUse

pytestmark = pytest.mark.slow


class ToolCrashed(RuntimeError):
    """The process running the tool died (the graph run stops; the checkpoint stays)."""


@tool
def get_events_for_days(date_str: str) -> str:
    """The calendar's events of a day."""
    raise ToolCrashed(date_str)


CALL = ToolCall(id="123", name="get_events_for_days", args={"date_str": "2025-01-01"})
THREAD: Any = {"configurable": {"thread_id": "thread-1"}}


def agent(
    *, patched: bool, approval: bool = False, keep_state: bool = False
) -> tuple[Any, RefusingChatModel]:
    """The agent (with the middleware when ``patched``, given ``keep_state``; with the tool's
    calls held for a person's approval when ``approval``) and its model."""
    model = RefusingChatModel(
        replies=[
            AIMessage(content="Let me look.", tool_calls=[CALL]),
            AIMessage(content="It is sunny in Tokyo."),
        ]
    )
    graph = create_agent(
        model=model,
        tools=[get_events_for_days],
        middleware=[
            *([PatchToolCallsMiddleware(keep_state=keep_state)] if patched else []),
            *([HumanInTheLoopMiddleware({"get_events_for_days": True})] if approval else []),
        ],
        checkpointer=InMemorySaver(),
    )
    return graph, model


def crash_mid_tool(graph: Any, model: RefusingChatModel) -> None:
    """The first turn: the model calls the tool, whose run dies; the call stays unanswered."""
    with pytest.raises(ToolCrashed):
        graph.invoke({"messages": [HumanMessage("What are my events?")]}, THREAD)


def stored_mid_tool(graph: Any, model: RefusingChatModel) -> None:
    """A thread written by another process: the model's call is stored, its result is not."""
    del model.replies[0]  # that process's model made the call
    graph.update_state(
        THREAD,
        {"messages": [HumanMessage("What are my events?"), AIMessage("", tool_calls=[CALL])]},
        as_node="model",
    )


#: How a thread is left with the model's call stored and no result.
Leave = Callable[[Any, RefusingChatModel], None]
LEFT_MID_TOOL = pytest.mark.parametrize("leave", [crash_mid_tool, stored_mid_tool])
NEXT = {"messages": [HumanMessage("What is the weather in Tokyo?")]}


def assert_left_mid_tool(graph: Any) -> None:
    messages = graph.get_state(THREAD).values["messages"]
    assert [m.type for m in messages] == ["human", "ai"]
    assert messages[-1].tool_calls[0]["id"] == "123"


def assert_resumed(graph: Any, model: RefusingChatModel, result: dict[str, Any]) -> None:
    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "human", "ai"]
    tool_message = messages[2]
    assert (tool_message.tool_call_id, tool_message.status) == ("123", "error")
    assert tool_message.content == text(TP001_TEXT, "get_events_for_days", "123")
    assert messages[-1].content == "It is sunny in Tokyo."
    assert model.seen[-1] == messages[:4]  # the model saw the repaired history
    stored = graph.get_state(THREAD).values["messages"]
    assert stored == messages  # the checkpoint holds the repair: no second patch next time
    assert len({m.id for m in stored}) == len(stored)


@LEFT_MID_TOOL
def test_a_thread_left_mid_tool_resumes_with_the_middleware_only(leave: Leave) -> None:
    graph, model = agent(patched=False)
    leave(graph, model)
    assert_left_mid_tool(graph)
    with pytest.raises(UnansweredToolUse, match=r"messages\.1: `tool_use` ids .*: 123\."):
        graph.invoke(NEXT, THREAD)
    with pytest.raises(UnansweredToolUse):  # and every later message too
        graph.invoke({"messages": [HumanMessage("Hello?")]}, THREAD)

    graph, model = agent(patched=True)
    leave(graph, model)
    assert_left_mid_tool(graph)
    assert_resumed(graph, model, graph.invoke(NEXT, THREAD))
    # The next message finds a clean history: the middleware returns no update.
    state = graph.get_state(THREAD).values
    assert PatchToolCallsMiddleware().before_agent(state, None) is None  # type: ignore[arg-type]


def test_a_call_never_approved_is_answered_when_a_new_message_comes() -> None:
    """The thread waits for a person's decision on the call; they write instead."""
    for patched in (False, True):
        graph, model = agent(patched=patched, approval=True)
        first = graph.invoke({"messages": [HumanMessage("What are my events?")]}, THREAD)
        assert "__interrupt__" in first
        assert_left_mid_tool(graph)
        if not patched:
            with pytest.raises(UnansweredToolUse):
                graph.invoke(NEXT, THREAD)
            continue
        assert_resumed(graph, model, graph.invoke(NEXT, THREAD))


def test_async_agent_resumes() -> None:
    graph, model = agent(patched=True)
    stored_mid_tool(graph, model)
    assert_resumed(graph, model, asyncio.run(graph.ainvoke(NEXT, THREAD)))


def test_replaces_deepagents_middleware_in_create_deep_agent() -> None:
    """``create_deep_agent`` swaps a built-in middleware for a caller's of the same name."""
    from deepagents import create_deep_agent

    model = RefusingChatModel(replies=[AIMessage(content="It is sunny in Tokyo.")])
    ours = PatchToolCallsMiddleware()
    graph = create_deep_agent(model=model, middleware=[ours], checkpointer=InMemorySaver())
    assert "PatchToolCallsMiddleware.before_agent" in graph.nodes
    graph.update_state(
        THREAD,
        {"messages": [HumanMessage("What are my events?"), AIMessage("", tool_calls=[CALL])]},
        as_node="model",
    )
    result = graph.invoke(NEXT, THREAD)
    tool_message = result["messages"][2]
    assert tool_message.content == text(TP001_TEXT, "get_events_for_days", "123")
    assert tool_message.status == "error"


def test_keep_state_resumes_and_leaves_the_checkpoint_as_written() -> None:
    """``keep_state`` (docs/langchain.md#keeping-the-state-as-written): the model is sent a
    repaired history at each call, and the thread's messages stay as they were written."""
    graph, model = agent(patched=True, keep_state=True)
    stored_mid_tool(graph, model)
    result = graph.invoke(NEXT, THREAD)
    assert [m.type for m in result["messages"]] == ["human", "ai", "human", "ai"]
    assert result["messages"][-1].content == "It is sunny in Tokyo."
    sent = model.seen[-1]
    assert [m.type for m in sent] == ["human", "ai", "tool", "human"]
    assert sent[2].content == text(TP001_TEXT, "get_events_for_days", "123")
    stored = graph.get_state(THREAD).values["messages"]
    assert not any(m.type == "tool" for m in stored)
