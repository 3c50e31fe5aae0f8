"""`patchcore.langchain.PatchToolCallsMiddleware` called as ``create_agent`` calls it: its
``before_agent`` hook on a state, returning deepagents' kind of update (docs/langchain.md)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call

import patchcore
from patchcore.extras import MissingExtra
from patchcore.langchain import PatchToolCallsMiddleware
from tests.helpers import (
    DEEPAGENTS_TP001_TEXT,
    TP001_TEXT,
    TP002_TEXT,
    TP003_TEXT,
    langchain_result_id,
    text,
)
from tests.langchain_builders import SEED, before_agent, patched

#: The sentence deepagents' test case inserts (its middleware's text when the test was written).
SEED_TEXT = (
    "Tool call get_events_for_days with id 123 was cancelled - another message came in before "
    "it could be completed."
)


def ai(*calls: tuple[str, str], content: str = "") -> AIMessage:
    """An AI message calling ``(id, name)`` each."""
    return AIMessage(
        content=content, tool_calls=[ToolCall(id=i, name=n, args={}) for i, n in calls]
    )


def inserted(messages: Sequence[BaseMessage], original: Sequence[BaseMessage]) -> list[int]:
    """The positions of the messages that are not original objects."""
    known = {id(m) for m in original}
    return [i for i, m in enumerate(messages) if id(m) not in known]


@pytest.mark.parametrize("texts", [None, "deepagents"])
def test_deepagents_seed_case(texts: str | None) -> None:
    """deepagents' seed case: the default text claims no outcome; the ``deepagents`` preset
    writes the very sentence deepagents' test expects (docs/pairing.md#synthetic-results)."""
    before = [m.model_copy() for m in SEED]
    middleware = (
        PatchToolCallsMiddleware() if texts is None else PatchToolCallsMiddleware(texts=texts)
    )
    messages = patched(before_agent(middleware, SEED))
    assert [m.type for m in messages] == ["system", "human", "ai", "tool", "human"]
    assert [messages[i] for i in (0, 1, 2, 4)] == SEED  # the original objects, untouched
    assert all(messages[i] is SEED[j] for i, j in ((0, 0), (1, 1), (2, 2), (4, 3)))
    assert before == SEED
    tool = messages[3]
    assert isinstance(tool, ToolMessage)
    assert (tool.tool_call_id, tool.name, tool.status) == ("123", "get_events_for_days", "error")
    template = TP001_TEXT if texts is None else DEEPAGENTS_TP001_TEXT
    assert tool.content == text(template, "get_events_for_days", "123")
    assert text(DEEPAGENTS_TP001_TEXT, "get_events_for_days", "123") == SEED_TEXT
    assert "cancelled" not in text(TP001_TEXT, "get_events_for_days", "123")


def test_the_drop_repair_is_an_option_too() -> None:
    """``repair="drop"`` (docs/pairing.md#repair-policies) removes the unanswered call instead:
    a message left with nothing goes, one with text keeps it without the call. Dropping is an
    unsafe fix: without ``unsafe_fixes`` nothing is applied, and there is no update."""
    assert before_agent(PatchToolCallsMiddleware(repair="drop"), SEED) is None
    dropping = PatchToolCallsMiddleware(repair="drop", unsafe_fixes=True)
    kept = patched(before_agent(dropping, SEED))
    assert [m.type for m in kept] == ["system", "human", "ai", "human"]
    assert isinstance(kept[2], AIMessage)
    assert (kept[2].content, kept[2].tool_calls) == ("I'm doing well, thank you!", [])
    assert SEED[2].tool_calls  # a copy was changed, not the state's object
    silent = [*SEED[:2], ai(("123", "get_events_for_days")), SEED[3]]
    assert [m.type for m in patched(before_agent(dropping, silent))] == ["system", "human", "human"]


def test_a_clean_history_returns_no_update() -> None:
    middleware = PatchToolCallsMiddleware()
    assert before_agent(middleware, []) is None
    assert before_agent(middleware, SEED[:2]) is None
    answered = [*SEED[:3], ToolMessage("No events.", tool_call_id="123"), SEED[3]]
    assert before_agent(middleware, answered) is None


def test_every_unanswered_call_of_deepagents_second_case() -> None:
    """deepagents' ``test_two_missing_tool_calls``: two interrupted calls, two results."""
    history = [*SEED, ai(("456", "get_events_for_days")), HumanMessage("And in Paris?")]
    messages = patched(before_agent(PatchToolCallsMiddleware(), history))
    assert inserted(messages, history) == [3, 6]
    assert [messages[i].tool_call_id for i in (3, 6)] == ["123", "456"]  # type: ignore[attr-defined]


def test_a_reused_ids_second_unanswered_call_is_answered() -> None:
    """deepagents answers an id once for the whole history (a set of answered ids): a call
    that reuses an answered call's id is left open, and the provider refuses the history."""
    history = [
        HumanMessage("Events today?"),
        ai(("call_1", "get_events_for_days")),
        ToolMessage("No events.", tool_call_id="call_1"),
        HumanMessage("And tomorrow?"),
        ai(("call_1", "get_events_for_days")),  # some providers restart their ids per turn
        HumanMessage("Never mind."),
    ]
    messages = patched(before_agent(PatchToolCallsMiddleware(), history))
    assert inserted(messages, history) == [5]
    assert messages[5].content == text(TP001_TEXT, "get_events_for_days", "call_1")
    assert messages[6] is history[5]


def test_pending_and_invalid_calls_have_their_own_texts() -> None:
    """TP002 (the last turn's pending call) and TP003 (malformed arguments) keep toolpatch's
    texts; deepagents says "cancelled" for the first and has the same text for the second."""
    history = [
        HumanMessage("Plan my week"),
        AIMessage(
            content="",
            tool_calls=[ToolCall(id="c1", name="get_events_for_days", args={})],
            invalid_tool_calls=[
                invalid_tool_call(name="book", args='{"day": "Mon', id="c2", error=None)
            ],
        ),
    ]
    messages = patched(before_agent(PatchToolCallsMiddleware(), history))
    assert [m.type for m in messages] == ["human", "ai", "tool", "tool"]
    assert [(m.tool_call_id, m.content, m.status) for m in messages[2:]] == [  # type: ignore[attr-defined]
        ("c1", text(TP002_TEXT, "get_events_for_days", "c1"), "error"),
        ("c2", text(TP003_TEXT, "book", "c2"), "error"),
    ]


def test_configured_texts() -> None:
    middleware = PatchToolCallsMiddleware(texts={"TP001": "{name} ({id}) was interrupted."})
    messages = patched(before_agent(middleware, SEED))
    assert messages[3].content == "get_events_for_days (123) was interrupted."


def test_an_options_object() -> None:
    options = patchcore.make_options(texts={"TP001": "Stopped: {id}."})
    messages = patched(before_agent(PatchToolCallsMiddleware(options=options), SEED))
    assert messages[3].content == "Stopped: 123."


def test_strict_rules_are_options() -> None:
    """An orphan result is refused by providers too; the strict rules and their unsafe fixes
    run when selected, as with ``toolpatch fix --select ALL --unsafe-fixes``."""
    history = [
        HumanMessage("Hi"),
        ToolMessage("stale", tool_call_id="gone"),
        AIMessage("Hello!"),
    ]
    assert before_agent(PatchToolCallsMiddleware(), history) is None
    assert (
        before_agent(PatchToolCallsMiddleware(select=["ALL"]), history) is None
    )  # reported, unsafe
    strict = PatchToolCallsMiddleware(select=["ALL"], unsafe_fixes=True)
    messages = patched(before_agent(strict, history))
    assert messages == [history[0], history[2]]


def test_ignored_rules_are_left_alone() -> None:
    assert before_agent(PatchToolCallsMiddleware(ignore=["TP001"]), SEED) is None


def test_options_come_one_way() -> None:
    with pytest.raises(TypeError, match=r"options= or make_options' keywords, not both \(texts\)"):
        PatchToolCallsMiddleware(options=patchcore.make_options(), texts={"TP001": "x {id}"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        PatchToolCallsMiddleware(colour="red")
    with pytest.raises(patchcore.UnknownRuleError, match="TP999"):
        PatchToolCallsMiddleware(select=["TP999"])
    with pytest.raises(TypeError):
        PatchToolCallsMiddleware(patchcore.make_options())  # type: ignore[misc]


def test_every_keyword_of_make_options_is_taken() -> None:
    """The keywords are forwarded as they are: one that make_options gains later works here."""
    parameters = inspect.signature(patchcore.make_options).parameters.values()
    settings = {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}
    assert {"select", "texts", "unsafe_fixes"} <= settings.keys()
    for name, default in settings.items():
        middleware = PatchToolCallsMiddleware(**{name: default})
        assert middleware.options == patchcore.make_options(**{name: default}), name
    assert PatchToolCallsMiddleware(**settings).options == patchcore.make_options()


def test_async_hook_returns_the_same_update() -> None:
    middleware = PatchToolCallsMiddleware()
    state: Any = {"messages": list(SEED)}
    update = asyncio.run(middleware.abefore_agent(state, None))  # type: ignore[arg-type]
    assert patched(update) == patched(before_agent(middleware, SEED))


def test_the_same_node_as_deepagents_middleware() -> None:
    """create_agent names its graph node after the middleware, and deepagents'
    ``create_deep_agent`` replaces its own middleware by one of the same name."""
    from deepagents.middleware.patch_tool_calls import (
        PatchToolCallsMiddleware as DeepagentsMiddleware,
    )

    assert PatchToolCallsMiddleware().name == DeepagentsMiddleware().name
    # and the hook's input, the whole history, is left out of traces as deepagents leaves it
    assert PatchToolCallsMiddleware.trace_policy == DeepagentsMiddleware.trace_policy
    assert PatchToolCallsMiddleware.trace_policy is not None


def test_without_langchain_the_import_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.agents.middleware", None)
    monkeypatch.delitem(sys.modules, "patchcore.langchain")
    with pytest.raises(MissingExtra, match=r"pip install 'toolpatch-cli\[langchain\]'") as caught:
        importlib.import_module("patchcore.langchain")
    assert caught.value.extra == "langchain"
    assert "PatchToolCallsMiddleware" in str(caught.value)


def test_an_older_langchain_without_trace_policies(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain.agents.middleware

    monkeypatch.delattr(langchain.agents.middleware, "TracePolicy")
    monkeypatch.setattr(patchcore, "langchain", sys.modules["patchcore.langchain"])
    monkeypatch.delitem(sys.modules, "patchcore.langchain")
    older = importlib.import_module("patchcore.langchain")
    assert older.PatchToolCallsMiddleware.trace_policy is None
    seed = patched(before_agent(older.PatchToolCallsMiddleware(texts="deepagents"), SEED))
    assert seed[3].content == SEED_TEXT


def test_a_state_without_messages_returns_no_update() -> None:
    """deepagents' middleware returns ``None`` for ``{"messages": None}`` and an empty list;
    a drop-in does too (docs/langchain.md#adding-it), and for a state with no messages key."""
    middleware = PatchToolCallsMiddleware()
    for state in ({"messages": None}, {"messages": []}, {}):
        assert middleware.before_agent(state, None) is None  # type: ignore[arg-type]
        assert asyncio.run(middleware.abefore_agent(state, None)) is None  # type: ignore[arg-type]


def answered_by(call: Any) -> ToolMessage:
    """A team's own synthetic result: what the callback receives, written into the result."""
    return ToolMessage(
        f"{call['type']} {call['name']} {call['args']!r}: no result recorded",
        tool_call_id=call["id"],
        name=call["name"],
        status="error",
        artifact={"synthetic": True},
    )


def test_a_repair_callback_builds_each_result() -> None:
    """``repair_callback`` (docs/langchain.md#building-the-results) is given each unanswered
    call as the AI message holds it, valid or not, and its ToolMessage goes where toolpatch's
    own would."""
    history = [
        *SEED,
        AIMessage(
            content="",
            tool_calls=[ToolCall(id="c1", name="search", args={"q": "x"})],
            invalid_tool_calls=[invalid_tool_call(name="book", args='{"d', id="c2", error=None)],
        ),
    ]
    middleware = PatchToolCallsMiddleware(repair_callback=answered_by)
    messages = patched(before_agent(middleware, history))
    assert inserted(messages, history) == [3, 6, 7]
    assert [m.content for m in messages[3:4] + messages[6:]] == [
        "tool_call get_events_for_days {'date_str': '2025-01-01'}: no result recorded",
        "tool_call search {'q': 'x'}: no result recorded",
        "invalid_tool_call book '{\"d': no result recorded",
    ]
    assert all(m.artifact == {"synthetic": True} for m in messages[3:4] + messages[6:])  # type: ignore[attr-defined]
    repair = patchcore.fix_base_messages(history, repair_callback=answered_by)
    assert [m.content for m in repair.value] == [m.content for m in messages]
    assert len(repair.fixed) == 3
    # with options= too, and the strict rules' fixes still apply around the callback's results
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    strict = PatchToolCallsMiddleware(options=options, repair_callback=answered_by)
    orphan = ToolMessage("stale", tool_call_id="gone")
    assert patched(before_agent(strict, [orphan, *SEED]))[3].content == messages[3].content


def test_a_repair_callback_must_answer_the_call_it_is_given() -> None:
    def wrong_id(call: Any) -> ToolMessage:
        return ToolMessage("x", tool_call_id="other")

    def no_message(call: Any) -> Any:
        return {"content": "x", "tool_call_id": call["id"]}

    for callback, got in ((wrong_id, "ToolMessage for id 'other'"), (no_message, "dict")):
        middleware = PatchToolCallsMiddleware(repair_callback=callback)
        with pytest.raises(TypeError, match=f"a ToolMessage for id '123', not {got}"):
            before_agent(middleware, SEED)


def test_keep_state_repairs_only_what_the_model_is_sent() -> None:
    """``keep_state`` (docs/langchain.md#keeping-the-state-as-written): ``before_agent``
    leaves the state alone, and ``wrap_model_call`` hands the model a repaired copy."""
    from langchain.agents.middleware import ModelRequest, ModelResponse

    middleware = PatchToolCallsMiddleware(keep_state=True, repair_callback=answered_by)
    assert before_agent(middleware, SEED) is None
    sent: list[list[BaseMessage]] = []

    def handler(request: ModelRequest) -> ModelResponse:
        sent.append(request.messages)
        return ModelResponse(result=[AIMessage("ok")])

    request = ModelRequest(model=None, messages=list(SEED))  # type: ignore[arg-type]
    assert middleware.wrap_model_call(request, handler).result[0].content == "ok"
    assert request.messages == SEED  # the request (and the state it came from) as it was
    assert [m.type for m in sent[0]] == ["system", "human", "ai", "tool", "human"]
    assert sent[0][3].content.endswith("no result recorded")

    async def ahandler(request: ModelRequest) -> ModelResponse:
        return handler(request)

    asyncio.run(middleware.awrap_model_call(request, ahandler))
    assert sent[1] == sent[0]
    # by default the request goes as it is: before_agent has repaired the state already
    PatchToolCallsMiddleware().wrap_model_call(request, handler)
    assert sent[2] is request.messages


def test_two_runs_write_the_same_ids() -> None:
    """The synthetic ToolMessage's id is derived from its AI message's and its call's
    (docs/formats.md#langchain), where LangGraph would give an id-less message a random one:
    repairing the same state twice gives the same messages, ids included."""
    first, second = (patched(before_agent(PatchToolCallsMiddleware(), SEED)) for _ in range(2))
    assert first[3].id is not None
    assert [m.id for m in first] == [m.id for m in second]
    assert first[3].id == langchain_result_id("3", "123")
