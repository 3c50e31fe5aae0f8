"""deepagents' own tests of its ``PatchToolCallsMiddleware``, run against toolpatch's.

docs/langchain.md promises a drop-in: the same hook, the same kind of update, ``None`` where
deepagents returns ``None``. These tests are deepagents' own, ported as they are
(docs/langchain.md#deepagents-own-tests says which); the only change is the middleware class,
which is toolpatch's (`patchcore.langchain.PatchToolCallsMiddleware`) with deepagents' wording
(the ``deepagents`` preset of texts, docs/pairing.md#synthetic-results), and, in the end-to-end
test, the fake chat model that records its calls: `tests.langchain_builders.RefusingChatModel`.
"""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from patchcore.langchain import PatchToolCallsMiddleware as ToolpatchMiddleware
from tests.langchain_builders import RefusingChatModel


def PatchToolCallsMiddleware() -> ToolpatchMiddleware:
    """toolpatch's middleware as a drop-in for deepagents': its preset of deepagents' texts."""
    return ToolpatchMiddleware(texts="deepagents")


# --- TestPatchToolCallsMiddleware -------------------------------------------------------------


class TestPatchToolCallsMiddleware:
    def test_first_message(self) -> None:
        input_messages = [
            SystemMessage(content="You are a helpful assistant.", id="1"),
            HumanMessage(content="Hello, how are you?", id="2"),
        ]
        middleware = PatchToolCallsMiddleware()
        state_update = middleware.before_agent({"messages": input_messages}, None)
        assert state_update is None

    def test_missing_tool_call(self) -> None:
        input_messages = [
            SystemMessage(content="You are a helpful assistant.", id="1"),
            HumanMessage(content="Hello, how are you?", id="2"),
            AIMessage(
                content="I'm doing well, thank you!",
                tool_calls=[
                    ToolCall(id="123", name="get_events_for_days", args={"date_str": "2025-01-01"})
                ],
                id="3",
            ),
            HumanMessage(content="What is the weather in Tokyo?", id="4"),
        ]
        middleware = PatchToolCallsMiddleware()
        state_update = middleware.before_agent({"messages": input_messages}, None)
        assert state_update is not None
        messages = state_update["messages"]
        assert isinstance(messages, list)
        assert isinstance(messages[0], RemoveMessage)
        assert messages[0].id == REMOVE_ALL_MESSAGES
        patched_messages = messages[1:]
        assert len(patched_messages) == 5
        assert patched_messages[0].type == "system"
        assert patched_messages[0].content == "You are a helpful assistant."
        assert patched_messages[1].type == "human"
        assert patched_messages[1].content == "Hello, how are you?"
        assert patched_messages[2].type == "ai"
        assert len(patched_messages[2].tool_calls) == 1
        assert patched_messages[2].tool_calls[0]["id"] == "123"
        assert patched_messages[2].tool_calls[0]["name"] == "get_events_for_days"
        assert patched_messages[2].tool_calls[0]["args"] == {"date_str": "2025-01-01"}
        assert patched_messages[3].type == "tool"
        assert patched_messages[3].name == "get_events_for_days"
        assert patched_messages[3].tool_call_id == "123"
        assert patched_messages[4].type == "human"
        assert patched_messages[4].content == "What is the weather in Tokyo?"

    def test_no_missing_tool_calls(self) -> None:
        input_messages = [
            SystemMessage(content="You are a helpful assistant.", id="1"),
            HumanMessage(content="Hello, how are you?", id="2"),
            AIMessage(
                content="I'm doing well, thank you!",
                tool_calls=[
                    ToolCall(id="123", name="get_events_for_days", args={"date_str": "2025-01-01"})
                ],
                id="3",
            ),
            ToolMessage(content="I have no events for that date.", tool_call_id="123", id="4"),
            HumanMessage(content="What is the weather in Tokyo?", id="5"),
        ]
        middleware = PatchToolCallsMiddleware()
        state_update = middleware.before_agent({"messages": input_messages}, None)
        assert state_update is None

    def test_two_missing_tool_calls(self) -> None:
        input_messages = [
            SystemMessage(content="You are a helpful assistant.", id="1"),
            HumanMessage(content="Hello, how are you?", id="2"),
            AIMessage(
                content="I'm doing well, thank you!",
                tool_calls=[
                    ToolCall(id="123", name="get_events_for_days", args={"date_str": "2025-01-01"})
                ],
                id="3",
            ),
            HumanMessage(content="What is the weather in Tokyo?", id="4"),
            AIMessage(
                content="I'm doing well, thank you!",
                tool_calls=[
                    ToolCall(id="456", name="get_events_for_days", args={"date_str": "2025-01-01"})
                ],
                id="5",
            ),
            HumanMessage(content="What is the weather in Tokyo?", id="6"),
        ]
        middleware = PatchToolCallsMiddleware()
        state_update = middleware.before_agent({"messages": input_messages}, None)
        assert state_update is not None
        messages = state_update["messages"]
        assert isinstance(messages, list)
        assert isinstance(messages[0], RemoveMessage)
        assert messages[0].id == REMOVE_ALL_MESSAGES
        patched_messages = messages[1:]
        assert len(patched_messages) == 8
        assert patched_messages[0].type == "system"
        assert patched_messages[0].content == "You are a helpful assistant."
        assert patched_messages[1].type == "human"
        assert patched_messages[1].content == "Hello, how are you?"
        assert patched_messages[2].type == "ai"
        assert len(patched_messages[2].tool_calls) == 1
        assert patched_messages[2].tool_calls[0]["id"] == "123"
        assert patched_messages[2].tool_calls[0]["name"] == "get_events_for_days"
        assert patched_messages[2].tool_calls[0]["args"] == {"date_str": "2025-01-01"}
        assert patched_messages[3].type == "tool"
        assert patched_messages[3].name == "get_events_for_days"
        assert patched_messages[3].tool_call_id == "123"
        assert patched_messages[4].type == "human"
        assert patched_messages[4].content == "What is the weather in Tokyo?"
        assert patched_messages[5].type == "ai"
        assert len(patched_messages[5].tool_calls) == 1
        assert patched_messages[5].tool_calls[0]["id"] == "456"
        assert patched_messages[5].tool_calls[0]["name"] == "get_events_for_days"
        assert patched_messages[5].tool_calls[0]["args"] == {"date_str": "2025-01-01"}
        assert patched_messages[6].type == "tool"
        assert patched_messages[6].name == "get_events_for_days"
        assert patched_messages[6].tool_call_id == "456"
        assert patched_messages[7].type == "human"
        assert patched_messages[7].content == "What is the weather in Tokyo?"


# --- TestPatchToolCallsMiddlewareNoPatchingNeeded ---------------------------------------------


class TestPatchToolCallsMiddlewareNoPatchingNeeded:
    """Tests for scenarios where no patching is needed (should return None)."""

    def test_returns_none_when_messages_is_empty(self) -> None:
        """Test that empty messages list returns None."""
        middleware = PatchToolCallsMiddleware()
        result = middleware.before_agent({"messages": []}, None)  # type: ignore

        assert result is None

    def test_returns_none_when_messages_is_none(self) -> None:
        """Test that None messages returns None."""
        middleware = PatchToolCallsMiddleware()
        result = middleware.before_agent({"messages": None}, None)  # type: ignore

        assert result is None

    def test_returns_none_when_no_ai_messages_with_tool_calls(self) -> None:
        """Test that messages without tool calls return None."""
        middleware = PatchToolCallsMiddleware()
        messages = [
            HumanMessage(content="Hello"),
            AIMessage(content="Hi there!"),
            HumanMessage(content="How are you?"),
        ]

        result = middleware.before_agent({"messages": messages}, None)  # type: ignore

        assert result is None

    def test_returns_none_when_all_tool_calls_have_responses(self) -> None:
        """Test that complete tool call chains return None."""
        middleware = PatchToolCallsMiddleware()
        messages = [
            HumanMessage(content="Read a file"),
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "id": "call_123",
                        "name": "read_file",
                        "args": {"path": "/test.txt"},
                    }
                ],
            ),
            ToolMessage(
                content="File contents here",
                name="read_file",
                tool_call_id="call_123",
            ),
            AIMessage(content="Here's the file content"),
        ]

        result = middleware.before_agent({"messages": messages}, None)  # type: ignore

        assert result is None

    def test_returns_none_when_ai_message_has_empty_tool_calls(self) -> None:
        """Test that AI messages with empty tool_calls list return None."""
        middleware = PatchToolCallsMiddleware()
        messages = [
            AIMessage(content="No tools", tool_calls=[]),
        ]

        result = middleware.before_agent({"messages": messages}, None)  # type: ignore

        assert result is None

    def test_returns_none_when_ai_message_has_no_tool_calls_attribute(self) -> None:
        """Test that AI messages without tool_calls attribute return None."""
        middleware = PatchToolCallsMiddleware()
        messages = [
            AIMessage(content="Just a regular response"),
        ]

        result = middleware.before_agent({"messages": messages}, None)  # type: ignore

        assert result is None


# --- test_invalid_tool_call_patched_on_next_turn ----------------------------------------------


def test_invalid_tool_call_patched_on_next_turn() -> None:
    from deepagents import create_deep_agent

    # Turn 1: model truncates and emits an invalid tool call (no matching ToolMessage
    # will be produced because agents only route on `tool_calls`).
    # Turn 2: the middleware must patch the dangling call before the model is re-invoked.
    fake_model = RefusingChatModel(
        replies=[
            AIMessage(
                content="",
                invalid_tool_calls=[
                    {
                        "id": "call_truncated",
                        "name": "search",
                        "args": '{"query": "weath',
                        "error": "Unterminated string at line 1 column 17",
                        "type": "invalid_tool_call",
                    }
                ],
            ),
            AIMessage(content="Recovered."),
        ]
    )
    checkpointer = InMemorySaver()
    agent = create_deep_agent(
        model=fake_model, checkpointer=checkpointer, middleware=[PatchToolCallsMiddleware()]
    )
    config: dict = {"configurable": {"thread_id": "patch-invalid-tool-calls"}}

    agent.invoke({"messages": [HumanMessage(content="Run a tool")]}, config)
    result = agent.invoke({"messages": [HumanMessage(content="Try again")]}, config)

    # The second model call must see the dangling invalid_tool_call paired with a ToolMessage.
    second_call_inputs = fake_model.seen[1]
    synthetic = next(
        (
            m
            for m in second_call_inputs
            if isinstance(m, ToolMessage) and m.tool_call_id == "call_truncated"
        ),
        None,
    )
    assert synthetic is not None, (
        "PatchToolCallsMiddleware did not inject a ToolMessage for invalid_tool_calls"
    )
    assert "could not be executed" in synthetic.content
    assert "malformed or truncated" in synthetic.content
    assert synthetic.name == "search"

    # Final state must also expose the patched ToolMessage.
    assert any(
        isinstance(m, ToolMessage) and m.tool_call_id == "call_truncated"
        for m in result["messages"]
    )
