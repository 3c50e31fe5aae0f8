"""Builders shared by the tests of toolpatch's LangChain agent middleware
(`patchcore.langchain.PatchToolCallsMiddleware`, docs/langchain.md) and of its conformance with
deepagents' middleware: the seed history, the hook called as ``create_agent`` calls it, the
update it returns, a fake chat model that refuses an unanswered call, and random histories of
the domain where both middlewares must agree (docs/pairing.md#no-global-set-of-answered-ids).

A module of its own, apart from `tests.builders`, because it needs the ``langchain`` extra.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from pydantic import Field

from patchcore.langchain import PatchToolCallsMiddleware

#: deepagents' own test case of its middleware (docs/langchain.md#texts): a call that a later
#: message interrupted.
SEED: list[BaseMessage] = [
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


def before_agent(middleware: PatchToolCallsMiddleware, messages: Sequence[BaseMessage]) -> Any:
    """``before_agent`` on a state holding ``messages`` (the runtime is not read)."""
    state: Any = {"messages": list(messages)}
    return middleware.before_agent(state, None)  # type: ignore[arg-type]


def patched(update: Any) -> list[BaseMessage]:
    """The message list an update replaces the state's with: it must clear the list first."""
    assert update is not None, "the middleware left the history as it is"
    remove, *messages = update["messages"]
    assert isinstance(remove, RemoveMessage), f"the update starts with {remove!r}"
    assert remove.id == REMOVE_ALL_MESSAGES
    assert all(isinstance(m, BaseMessage) for m in messages)
    return messages


class UnansweredToolUse(ValueError):
    """What the fake provider raises for a history with an unanswered call."""


def refuse_unanswered(messages: Sequence[BaseMessage]) -> None:
    """Anthropic's rule: the results of an assistant turn's calls come right after it.

    Raises:
        UnansweredToolUse: In Anthropic's words, naming the message and the ids.
    """
    for index, message in enumerate(messages):
        if not isinstance(message, AIMessage) or not message.tool_calls:
            continue
        answered = set()
        for after in messages[index + 1 :]:
            if not isinstance(after, ToolMessage):
                break
            answered.add(after.tool_call_id)
        missing = [c["id"] for c in message.tool_calls if c["id"] not in answered]
        if missing:
            msg = (
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(map(str, missing))}. Each `tool_use` block must "
                "have a corresponding `tool_result` block in the next message."
            )
            raise UnansweredToolUse(msg)


class RefusingChatModel(BaseChatModel):
    """Answers with ``replies`` in turn, after refusing histories a provider would refuse."""

    replies: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "refusing-fake"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> RefusingChatModel:  # type: ignore[override]
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        refuse_unanswered(messages)
        reply = self.replies[len(self.seen)]
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=reply)])


#: deepagents' text for an unanswered call (copied from the installed middleware's source).
DEEPAGENTS_CANCELLED = (
    "Tool call {name} with id {id} did not complete - no result was recorded. "
    "It may have been cancelled or interrupted."
)


#: deepagents' text for an unanswered invalid call (copied from the installed middleware's source).
DEEPAGENTS_MALFORMED = (
    "Tool call {name} with id {id} could not be executed - arguments were malformed or truncated."
)


#: toolpatch's templates set to deepagents' wording: it has one text for TP001 and TP002.
TEXTS = {
    "TP001": DEEPAGENTS_CANCELLED,
    "TP002": DEEPAGENTS_CANCELLED,
    "TP003": DEEPAGENTS_MALFORMED,
}


EXAMPLES = 400


CONFORMANCE = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


ID_STYLES = ("call_{}", "toolu_01A{}", "call-{}-ü", "{}")


TOOL_NAMES = ("get_weather", "search", "book_flight", "ツール", "")


INVALID_NAMES = ("get_weather", "search", "", None)


TEXT = st.text(alphabet="abc xyz éü\n{}\"'", max_size=12)


AI_TYPES = ("ai", "AIMessageChunk")


@st.composite
def histories(draw: st.DrawFn) -> list[BaseMessage]:
    """A LangChain history inside the conformance domain (see the module docstring)."""
    counter = itertools.count()

    def fresh_id() -> str:
        return draw(st.sampled_from(ID_STYLES)).format(next(counter))

    messages: list[BaseMessage] = []
    open_calls: list[tuple[str, str | None]] = []

    def tool_result(call_id: str, name: str | None) -> ToolMessage:
        return ToolMessage(
            content=draw(TEXT),
            tool_call_id=call_id,
            name=draw(st.sampled_from([name, None])),
            status=draw(st.sampled_from(["success", "error"])),
        )

    def ai_turn() -> None:
        calls = [
            tool_call(name=draw(st.sampled_from(TOOL_NAMES)), args={"q": draw(TEXT)}, id=fresh_id())
            for _ in range(draw(st.integers(0, 3)))
        ]
        invalid = [
            invalid_tool_call(
                name=draw(st.sampled_from(INVALID_NAMES)),
                args='{"q": "trunc',
                id=fresh_id(),
                error=draw(st.sampled_from([None, "JSONDecodeError"])),
            )
            for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0)
        ]
        contents: list[str | list[str | dict[Any, Any]]] = [
            "",
            "Let me check.",
            [{"type": "text", "text": "hm"}],
        ]
        content = draw(st.sampled_from(contents))
        cls = AIMessageChunk if draw(st.integers(0, 4)) == 0 else AIMessage
        message = cls(content=content, tool_calls=calls, invalid_tool_calls=invalid)
        messages.append(message)
        issued = [
            (str(c["id"]), c["name"]) for c in (*message.tool_calls, *message.invalid_tool_calls)
        ]
        # Answer some of them right away, in any order (parallel calls partly answered).
        answered_now = draw(st.lists(st.booleans(), min_size=len(issued), max_size=len(issued)))
        now = [call for call, yes in zip(issued, answered_now, strict=True) if yes]
        for call_id, name in draw(st.permutations(now)):
            messages.append(tool_result(call_id, name))
        open_calls.extend(call for call, yes in zip(issued, answered_now, strict=True) if not yes)

    if draw(st.booleans()):
        messages.append(SystemMessage(content="You are helpful."))
    for _ in range(draw(st.integers(1, 8))):
        action = draw(st.sampled_from(["human", "ai", "ai", "ai", "late_result", "orphan"]))
        if action == "human":
            messages.append(HumanMessage(content=draw(TEXT)))
        elif action == "ai":
            ai_turn()
        elif action == "late_result" and open_calls:
            call_id, name = open_calls.pop(draw(st.integers(0, len(open_calls) - 1)))
            messages.append(tool_result(call_id, name))
        elif action == "orphan":
            messages.append(tool_result(fresh_id(), "search"))
    if draw(st.booleans()) or not messages:
        ai_turn()  # the history often ends in an AI call, answered or not
    return messages


def deepagents_patch(messages: list[BaseMessage]) -> list[BaseMessage] | None:
    """Run deepagents' real middleware; ``None`` when it changes nothing, else the patched
    list."""
    from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware as Deepagents

    state: Any = {"messages": messages}
    runtime: Any = None  # the middleware does not use it
    update = Deepagents().before_agent(state, runtime)
    if update is None:
        return None
    return patched(update)


def tool_fields(message: BaseMessage) -> tuple[object, ...]:
    """The fields a synthetic ToolMessage is compared on."""
    assert isinstance(message, ToolMessage), (
        f"inserted a {type(message).__name__}, not a ToolMessage"
    )
    return (message.type, message.content, message.name, message.tool_call_id, message.status)
