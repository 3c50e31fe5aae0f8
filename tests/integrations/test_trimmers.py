"""`patchcore.safe_cut` inside the trimmers of real frameworks (docs/trimming.md#in-a-framework):
LangChain's ``SummarizationMiddleware`` (its one partition of the history overridden) and its
``trim_messages`` in a ``create_agent`` run, and the OpenAI Agents SDK's
``RunConfig.call_model_input_filter``. Each model here refuses what its provider refuses
(`tests.provider_rules`, written apart from toolpatch), so a cut that breaks a pair stops the
run, and the guarded one goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware, wrap_model_call
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    ToolCall,
    ToolMessage,
    convert_to_openai_messages,
    trim_messages,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from pydantic import Field

import patchcore
from tests import provider_rules
from tests.langchain_builders import patched
from tests.stores import assistant_message, function_call


class GuardedSummarization(SummarizationMiddleware):
    """LangChain's summarization with the guard: the history is split where the middleware
    chose, then moved to the nearest cut that keeps every call with its results. The summary
    takes what the cut drops, in order; the rest is kept as it was."""

    @staticmethod
    def _partition_messages(
        conversation_messages: list[AnyMessage], cutoff_index: int
    ) -> tuple[list[AnyMessage], list[AnyMessage]]:
        cut = patchcore.safe_cut(
            conversation_messages, range(cutoff_index, len(conversation_messages))
        )
        summarized = [m for i, m in enumerate(conversation_messages) if i not in cut.kept]
        return summarized, cut.messages


def call(call_id: str, name: str = "book") -> AIMessage:
    return AIMessage("", tool_calls=[ToolCall(id=call_id, name=name, args={})], id=f"ai-{call_id}")


def result(call_id: str) -> ToolMessage:
    return ToolMessage(f"done: {call_id}", tool_call_id=call_id, id=f"tool-{call_id}")


#: The user spoke while the hotel's tool ran (a steering message, as agents queue them): the
#: result comes after it.
STEERED: list[BaseMessage] = [
    HumanMessage("Book the 9:40 train to Lyon.", id="h0"),
    call("c_train"),
    result("c_train"),
    call("c_hotel"),
    HumanMessage("A quiet room, please.", id="h4"),
    result("c_hotel"),
    AIMessage("Train and hotel booked.", id="ai6"),
    HumanMessage("Thanks!", id="h7"),
]


def summarized(middleware: SummarizationMiddleware, messages: Sequence[BaseMessage]) -> Any:
    """``before_model`` on a state holding ``messages``, as ``create_agent`` calls it, and the
    history it leaves (the summary first)."""
    state: Any = {"messages": list(messages)}
    return patched(middleware.before_model(state, None))  # type: ignore[arg-type]


def summarizer(
    cls: type[SummarizationMiddleware], *, trigger: int = 6, keep: int = 4
) -> SummarizationMiddleware:
    """The middleware, summarizing at ``trigger`` messages down to the last ``keep``."""
    return cls(
        FakeListChatModel(responses=["The user booked a train."]),
        trigger=("messages", trigger),
        keep=("messages", keep),
    )


def test_langchains_own_cut_leaves_a_result_without_its_call() -> None:
    kept = summarized(summarizer(SummarizationMiddleware), STEERED)
    assert kept[1:] == STEERED[4:]  # the cut fell on the steering message
    broken = patchcore.broken_by(STEERED, kept)
    assert [(f.code, f.call_id) for f in broken] == [("TP004", "c_hotel")]


def test_the_guarded_summarization_keeps_the_call_with_its_result() -> None:
    kept = summarized(summarizer(GuardedSummarization), STEERED)
    assert kept[1:] == STEERED[3:]  # the hotel's call stays, the summary takes the rest
    assert "summary" in str(kept[0].content)
    assert patchcore.broken_by(STEERED, kept) == []


@pytest.mark.parametrize("keep", range(1, 9))
def test_where_langchains_cut_is_safe_the_guard_cuts_the_same(keep: int) -> None:
    # every result right after its call: LangChain's own cutoff keeps pairs, and so the guard
    # changes nothing it chose
    history = [STEERED[0], call("c1"), result("c1"), call("c2"), result("c2"), *STEERED[6:]]
    history += [call("c3"), result("c3"), AIMessage("ok", id="ai9")]
    plain = summarized(summarizer(SummarizationMiddleware, trigger=2, keep=keep), history)
    assert summarized(summarizer(GuardedSummarization, trigger=2, keep=keep), history) == plain


# --- trim_messages in a create_agent run -----------------------------------------------------


class ChatCompletionsModel(BaseChatModel):
    """Answers with ``replies`` in turn, after refusing what OpenAI's Chat Completions API
    refuses of the history it is sent (`provider_rules.openai_chat`); ``seen``: each history."""

    replies: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "chat-completions-fake"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ChatCompletionsModel:  # type: ignore[override]
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        violations = provider_rules.openai_chat(convert_to_openai_messages(messages))
        if violations:
            raise ValueError(violations[0].error)
        reply = self.replies[len(self.seen)]
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def book(city: str) -> str:
    """Book a hotel in ``city``."""
    return f"booked {city}"


def windowed(*, guarded: bool) -> Any:
    """A middleware that sends the model the last two messages only (``trim_messages``),
    moved to the nearest safe cut when ``guarded``."""

    @wrap_model_call
    def window(request: Any, handler: Any) -> Any:
        messages = request.messages
        trimmed = trim_messages(messages, max_tokens=2, token_counter=len, strategy="last")
        if guarded:
            ids = {m.id for m in trimmed}
            trimmed = patchcore.safe_cut(messages, lambda _, m: m.id in ids).messages
        return handler(request.override(messages=trimmed))

    return window


def run_windowed(*, guarded: bool) -> ChatCompletionsModel:
    model = ChatCompletionsModel(
        replies=[
            AIMessage("", tool_calls=[ToolCall(id="c_lyon", name="book", args={"city": "Lyon"})]),
            AIMessage(
                "",
                tool_calls=[
                    ToolCall(id="c_nice", name="book", args={"city": "Nice"}),
                    ToolCall(id="c_metz", name="book", args={"city": "Metz"}),
                ],
            ),
            AIMessage("Lyon, Nice and Metz are booked."),
        ]
    )
    agent = create_agent(model=model, tools=[book], middleware=[windowed(guarded=guarded)])
    agent.invoke({"messages": [HumanMessage("Book Lyon, then Nice and Metz.")]})
    return model


@pytest.mark.slow  # a create_agent graph run
def test_a_trimmed_window_sends_a_result_without_its_call() -> None:
    with pytest.raises(ValueError, match="role 'tool' must be a response to a preceeding message"):
        run_windowed(guarded=False)


@pytest.mark.slow  # a create_agent graph run
def test_the_guarded_window_sends_whole_pairs() -> None:
    model = run_windowed(guarded=True)
    last = model.seen[-1]
    assert len(model.seen) == 3
    assert [type(m).__name__ for m in last] == ["AIMessage", "ToolMessage", "ToolMessage"]


# --- the OpenAI Agents SDK's call_model_input_filter ------------------------------------------


def responses_model(replies: list[list[Any]], seen: list[list[Any]]) -> Any:
    """An Agents SDK ``Model`` that refuses an input the Responses API refuses
    (`provider_rules.responses`: an output without its call, a reasoning item alone, ...)."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage

    class ResponsesModel(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            items = list(kwargs.get("input", args[1] if len(args) > 1 else None) or [])
            violations = provider_rules.responses(items)
            if violations:
                raise ValueError(violations[0].error)
            seen.append(items)
            return ModelResponse(output=replies.pop(0), usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return ResponsesModel()


#: A stored conversation: reasoning that led to two parallel calls, their outputs, the answer.
EARLIER: list[dict[str, Any]] = [
    {"role": "user", "content": "Hotels in Nice and Metz?"},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "call_id": "c_nice", "name": "find", "arguments": "{}"},
    {"type": "function_call", "call_id": "c_metz", "name": "find", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "c_nice", "output": "Hotel Negresco"},
    {"type": "function_call_output", "call_id": "c_metz", "output": "Hotel de la Cathedrale"},
    {"role": "assistant", "content": "Negresco in Nice, the Cathedrale in Metz."},
]


def last_items(count: int, *, guarded: bool) -> Any:
    """A ``call_model_input_filter`` that sends the model the last ``count`` items, moved to
    the nearest safe cut when ``guarded``."""
    from agents.run import ModelInputData

    def window(data: Any) -> ModelInputData:
        items = data.model_data.input
        keep = range(max(len(items) - count, 0), len(items))
        kept = patchcore.safe_cut(items, keep).messages if guarded else [items[i] for i in keep]
        return ModelInputData(input=kept, instructions=data.model_data.instructions)

    return window


QUESTION = {"role": "user", "content": "Book the quieter one."}


def run_filtered(*, guarded: bool) -> list[list[Any]]:
    """A run of an agent with one tool, ``book``, on the stored conversation and a question:
    the model calls the tool, the SDK runs it, the model answers; every input it is sent
    passes the filter first. Returns those inputs."""
    from agents import Agent, RunConfig, Runner, function_tool

    @function_tool
    def book(city: str) -> str:
        """Book a hotel in ``city``."""
        return f"booked {city}"

    seen: list[list[Any]] = []
    replies = [[function_call("call_oslo")], [assistant_message("Booked.")]]
    agent = Agent(name="travel", tools=[book], model=responses_model(replies, seen))
    config = RunConfig(
        call_model_input_filter=last_items(5, guarded=guarded), tracing_disabled=True
    )
    asyncio.run(Runner.run(agent, [*EARLIER, QUESTION], run_config=config))
    return seen


def test_an_input_filter_that_windows_by_position_is_refused() -> None:
    with pytest.raises(ValueError, match="No tool call found for function call output"):
        run_filtered(guarded=False)


def test_the_guarded_input_filter_sends_the_reasoning_and_its_calls_whole() -> None:
    first, second = run_filtered(guarded=True)
    # three of the turn's five items were in the window: the turn is kept whole
    assert first == [*EARLIER[1:], QUESTION]
    # one of five: dropped whole; the new call goes with its output
    assert [item.get("type", item.get("role")) for item in second] == [
        "assistant",
        "user",
        "function_call",
        "function_call_output",
    ]
    assert second[2]["call_id"] == second[3]["call_id"] == "call_oslo"
