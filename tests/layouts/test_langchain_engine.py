"""The message-list API (`patchcore.fix_messages`, `patchcore.fix_base_messages`) over the
LangChain shapes langchain-core writes (docs/formats.md#langchain): the seed case in each shape,
the base-message objects, the last turn's call, a malformed call, clean histories, and that no
input is mutated. The same cases over OpenAI Chat dicts are unit tests
(``tests/unit/test_engine.py``); these need the ``langchain`` extra.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

import patchcore
from tests.builders import (
    assert_clean_history_is_not_changed,
    assert_fix_is_idempotent,
    assert_input_is_never_mutated,
    assert_invalid_call_is_tp003,
    fields_of,
)
from tests.helpers import TP001_TEXT, TP002_TEXT, text

SEED_TEXT = text(TP001_TEXT, "get_events_for_days", "123")


SEED_BASE_MESSAGES: list[BaseMessage] = [
    SystemMessage(content="You are a helpful assistant."),
    HumanMessage(content="What are my events for the next three days?"),
    AIMessage(
        content="",
        tool_calls=[
            {
                "id": "123",
                "name": "get_events_for_days",
                "args": {"date_str": "2024-01-01"},
            }
        ],
    ),
    HumanMessage(content="Never mind, what is the weather?"),
]


def _messages_to_dict(messages: list[BaseMessage]) -> list[dict]:
    return messages_to_dict(messages)


def _model_dump(messages: list[BaseMessage]) -> list[dict]:
    return [m.model_dump() for m in messages]


def _dumpd(messages: list[BaseMessage]) -> list[dict]:
    return [dumpd(m) for m in messages]


LANGCHAIN_SHAPES: dict[str, Callable[[list[BaseMessage]], list[dict]]] = {
    "messages_to_dict": _messages_to_dict,
    "model_dump": _model_dump,
    "dumpd": _dumpd,
}


@pytest.mark.parametrize("shape", list(LANGCHAIN_SHAPES))
def test_seed_langchain(shape: str) -> None:
    history = LANGCHAIN_SHAPES[shape](SEED_BASE_MESSAGES)
    before = copy.deepcopy(history)

    repair = patchcore.fix_messages(history)

    assert history == before, "fix_messages mutated its input"
    assert repair.changed is True
    assert len(repair.value) == 5
    assert [f.code for f in repair.findings] == ["TP001"]
    inserted = fields_of(repair.value[3])
    assert inserted["type"] == "tool"
    assert inserted["tool_call_id"] == "123"
    assert inserted["name"] == "get_events_for_days"
    assert inserted["content"] == SEED_TEXT
    assert inserted["status"] == "error"
    # untouched messages are the very same objects / values
    assert repair.value[:3] == history[:3]
    assert repair.value[4] == history[3]


def test_seed_messages_to_dict_round_trips_through_langchain() -> None:
    repair = patchcore.fix_messages(messages_to_dict(SEED_BASE_MESSAGES))
    loaded = messages_from_dict(repair.value)
    assert isinstance(loaded[3], ToolMessage)
    assert loaded[3].tool_call_id == "123"
    assert loaded[3].name == "get_events_for_days"
    assert loaded[3].content == SEED_TEXT
    assert loaded[3].status == "error"
    assert loaded[4] == SEED_BASE_MESSAGES[3]


def test_seed_base_messages() -> None:
    messages = list(SEED_BASE_MESSAGES)
    repair = patchcore.fix_base_messages(messages)
    assert messages == SEED_BASE_MESSAGES
    assert len(repair.value) == 5
    tool = repair.value[3]
    assert isinstance(tool, ToolMessage)
    assert (tool.tool_call_id, tool.name, tool.content) == ("123", "get_events_for_days", SEED_TEXT)


def test_a_recorded_error_is_the_result_of_its_call() -> None:
    """``recorded_results`` (docs/stores.md#the-stored-error): a call whose error was recorded
    gets it as its result, before any made-up text or callback; the other calls get theirs."""
    calls = [
        ToolCall(id="c1", name="charge_card", args={"amount": 40}),
        ToolCall(id="c2", name="book_hotel", args={"city": "Oslo"}),
    ]
    history = [HumanMessage("Pay and book"), AIMessage("", tool_calls=calls)]
    recorded = {"c1": "RuntimeError('card processor timed out')"}

    def built(call: Any) -> ToolMessage:
        return ToolMessage("built", tool_call_id=call["id"], status="error")

    for callback in (None, built):
        options = patchcore.make_options(recorded_results=recorded)
        repair = patchcore.fix_base_messages(history, options=options, repair_callback=callback)
        card, hotel = repair.value[2:]
        assert isinstance(card, ToolMessage) and isinstance(hotel, ToolMessage)
        assert (card.tool_call_id, card.name, card.status) == ("c1", "charge_card", "error")
        assert card.content == recorded["c1"]
        assert hotel.tool_call_id == "c2"
        assert hotel.content == ("built" if callback else text(TP002_TEXT, "book_hotel", "c2"))


@pytest.mark.parametrize("function", ["fix_base_messages", "check_base_messages"])
def test_base_messages_refuse_plain_dicts(function: str) -> None:
    history = [HumanMessage("hi"), {"role": "user", "content": "hello"}]
    with pytest.raises(TypeError, match=rf"{function} expects .*BaseMessage.*item 1 is a dict"):
        getattr(patchcore, function)(history)


def test_langchain_history_ending_in_an_ai_call_is_tp002() -> None:
    history = _messages_to_dict(
        [HumanMessage("hi"), AIMessage("", tool_calls=[{"id": "c1", "name": "f", "args": {}}])]
    )
    repair = patchcore.fix_messages(history)
    assert [f.code for f in repair.findings] == ["TP002"]
    assert fields_of(repair.value[2])["content"] == text(TP002_TEXT, "f", "c1")


@pytest.mark.parametrize(
    "history",
    [
        pytest.param(
            _messages_to_dict([HumanMessage("hi"), AIMessage("hello")]), id="lc-tool-free"
        ),
        pytest.param(
            _model_dump(
                [
                    AIMessage("", tool_calls=[{"id": "x", "name": "t", "args": {}}]),
                    ToolMessage("ok", tool_call_id="x"),
                ]
            ),
            id="lc-answered",
        ),
    ],
)
def test_clean_history_is_not_changed(history: list[dict]) -> None:
    assert_clean_history_is_not_changed(history)


def test_invalid_call_is_tp003() -> None:
    assert_invalid_call_is_tp003(
        _messages_to_dict(
            [
                HumanMessage("hi"),
                AIMessage(
                    "",
                    invalid_tool_calls=[
                        {"id": "c1", "name": "lookup", "args": '{"q": ', "error": "bad"}
                    ],
                ),
                HumanMessage("?"),
            ]
        )
    )


MUTATION_CASES: dict[str, list[dict]] = {
    "lc-dict": _messages_to_dict(SEED_BASE_MESSAGES),
    "lc-model_dump": _model_dump(SEED_BASE_MESSAGES),
    "lc-dumpd": _dumpd(SEED_BASE_MESSAGES),
}


@pytest.mark.parametrize("name", list(MUTATION_CASES))
def test_input_is_never_mutated_and_fix_is_idempotent(name: str) -> None:
    assert_input_is_never_mutated(MUTATION_CASES[name])
    assert_fix_is_idempotent(MUTATION_CASES[name])


def test_a_stored_error_answers_a_base_message_call_and_no_callback_rebuilds_it() -> None:
    """docs/pairing.md#evidence-first: the error a store kept for the failed task
    (`Options.recorded_results`) becomes the ToolMessage, an error, marked recovered; the
    callback builds only the results that are made up."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    history = [
        HumanMessage("Book the hotel and charge the card."),
        AIMessage(
            "",
            tool_calls=[
                {"name": "charge_card", "args": {}, "id": "c_card"},
                {"name": "book_hotel", "args": {}, "id": "c_hotel"},
            ],
        ),
        HumanMessage("Done?"),
    ]
    built: list[str] = []

    def build(call: dict) -> ToolMessage:
        built.append(call["id"])
        return ToolMessage("made up", tool_call_id=call["id"], status="error")

    options = patchcore.make_options(recorded_results={"c_card": "card processor timed out"})
    repair = patchcore.fix_base_messages(history, options=options, repair_callback=build)
    assert [f.fix.origin for f in repair.fixed if f.fix] == [
        patchcore.Origin.RECOVERED,
        patchcore.Origin.SYNTHESIZED,
    ]
    card, hotel = repair.value[2:4]
    assert isinstance(card, ToolMessage) and isinstance(hotel, ToolMessage)
    assert (card.tool_call_id, card.content, card.status) == (
        "c_card",
        "card processor timed out",
        "error",
    )
    assert (hotel.tool_call_id, hotel.content) == ("c_hotel", "made up")
    assert built == ["c_hotel"]


@pytest.mark.parametrize(("own_id", "copied"), [(None, True), ("msg-77", False)])
def test_a_tool_message_before_its_call_is_copied_only_without_an_id(
    own_id: str | None, copied: bool
) -> None:
    """docs/pairing.md#evidence-first: LangGraph's add_messages merges messages by id, so a
    copy that kept the ToolMessage's id would replace it where it stands instead of answering
    the call; such a call gets a synthetic result."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    booked = ToolMessage("booked TGV-6611", tool_call_id="c_bk", id=own_id)
    history = [
        HumanMessage("Book the train."),
        booked,
        AIMessage("", tool_calls=[{"name": "book_train", "args": {}, "id": "c_bk"}]),
        HumanMessage("And a hotel?"),
    ]
    repair = patchcore.fix_base_messages(history)
    (finding,) = repair.fixed
    assert finding.fix is not None
    expected = patchcore.Origin.RECOVERED if copied else patchcore.Origin.SYNTHESIZED
    assert finding.fix.origin is expected
    answer = repair.value[3]
    assert isinstance(answer, ToolMessage) and answer.tool_call_id == "c_bk"
    assert (answer is booked) is copied
