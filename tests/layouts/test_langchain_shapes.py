"""The LangChain adapter against langchain-core itself: synthetic shapes and call parsing.

docs/formats.md#langchain: in LangChain shapes the synthetic message has exactly the keys that
langchain-core itself writes for a ``ToolMessage`` in that shape (``messages_to_dict``, ``dumpd``,
``model_dump``), and the id namespace of its neighbours; langchain-core is the reference for
LangChain semantics. This file pins both, with langchain-core (not hand-written dicts) as the
oracle:

* the inserted dict equals, key order included, what langchain-core writes for
  ``ToolMessage(content=..., name=..., tool_call_id=..., status="error")`` in the shape of its
  neighbours: ``messages_to_dict``, ``dumpd`` (Python and JS id namespaces), ``model_dump`` with
  nulls and ``model_dump(exclude_none=True)`` (LangSmith);
* the repaired file loads back through langchain-core;
* the calls toolpatch answers are the calls langchain-core parses from the same dict (an
  ``AIMessageChunk`` is an AI message; ``additional_kwargs.tool_calls`` only counts when
  ``tool_calls`` and ``invalid_tool_calls`` are both empty);
* the three shapes of one history give the same findings.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core._api import LangChainBetaWarning
from langchain_core.load import dumpd, load
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.messages.tool import tool_call

import patchcore
from tests.builders import DROP
from tests.helpers import TP001_TEXT as CANCELLED
from tests.helpers import TP002_TEXT as PENDING
from tests.helpers import TP003_TEXT as MALFORMED
from tests.helpers import langchain_result_id

JS_NAMESPACE = ["langchain_core", "messages"]


def _js(envelope: dict[str, Any]) -> dict[str, Any]:
    """A ``dumpd`` envelope as LangChain JS writes it: ``["langchain_core", "messages", X]``."""
    return {**envelope, "id": [*JS_NAMESPACE, envelope["id"][-1]]}


#: Each shape: how langchain-core (or LangChain JS) writes one message.
SHAPES: dict[str, Callable[[BaseMessage], dict[str, Any]]] = {
    "messages_to_dict": lambda m: messages_to_dict([m])[0],
    "dumpd": dumpd,
    "dumpd-js": lambda m: _js(dumpd(m)),
    "model_dump": lambda m: m.model_dump(),
    "model_dump-exclude_none": lambda m: m.model_dump(exclude_none=True),
}
#: Where the message fields sit inside one message of each shape.
FIELDS_AT: dict[str, tuple[str, ...]] = {
    "messages_to_dict": ("data",),
    "dumpd": ("kwargs",),
    "dumpd-js": ("kwargs",),
    "model_dump": (),
    "model_dump-exclude_none": (),
}


def serialize(messages: Sequence[BaseMessage], shape: str) -> list[dict[str, Any]]:
    """``messages`` written by langchain-core in ``shape``."""
    return [SHAPES[shape](m) for m in messages]


def fields_of(message: dict[str, Any], shape: str) -> dict[str, Any]:
    """The message's own fields (``data`` / ``kwargs`` / the dict itself)."""
    for key in FIELDS_AT[shape]:
        message = message[key]
    return message


def expected_tool_message(
    shape: str, *, content: str, name: str, call_id: str, caller: str | None = None
) -> dict[str, Any]:
    """What langchain-core writes in ``shape`` for the synthetic result of a call of the AI
    message whose id is ``caller``."""
    return SHAPES[shape](synthetic_message(content, name, call_id, caller))


def synthetic_message(content: str, name: str, call_id: str, caller: str | None) -> ToolMessage:
    """The synthetic ToolMessage, with the id derived from its AI message's and its call's."""
    message_id = langchain_result_id(caller, call_id)
    return ToolMessage(
        content=content, name=name, tool_call_id=call_id, status="error", id=message_id
    )


def assert_same_json(actual: object, expected: object, where: str = "$") -> None:
    """Equal values, and equal key order in every object."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        assert list(actual) == list(expected), (
            f"{where}: keys {list(actual)} != langchain-core's {list(expected)}"
        )
        for key in expected:
            assert_same_json(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: {actual!r} is not a list"
        assert len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for k, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_same_json(a, e, f"{where}[{k}]")
    else:
        assert type(actual) is type(expected) and actual == expected, (
            f"{where}: {actual!r} != {expected!r}"
        )


def fix(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fix a JSON list of messages and return the parsed output (it must change)."""
    report = patchcore.fix_document(json.dumps(messages).encode())
    assert report.output is not None, f"nothing fixed in {messages}"
    output = json.loads(report.output)
    assert isinstance(output, list)
    return output


def load_messages(messages: list[dict[str, Any]], shape: str) -> list[BaseMessage]:
    """Load a list in ``shape`` with langchain-core's own reader for that shape."""
    if shape == "messages_to_dict":
        return messages_from_dict(messages)
    if shape.startswith("dumpd"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainBetaWarning)  # "load is in beta"
            loaded = load(messages, allowed_objects="messages")
        assert isinstance(loaded, list)
        return loaded
    classes: dict[str, type[BaseMessage]] = {
        "human": HumanMessage,
        "system": SystemMessage,
        "ai": AIMessage,
        "AIMessageChunk": AIMessageChunk,
        "tool": ToolMessage,
    }
    return [classes[m["type"]].model_validate(m) for m in messages]


# --- the synthetic ToolMessage ----------------------------------------------------------------

CALLER_CLASSES = [AIMessage, AIMessageChunk]


def _history(caller: type[AIMessage]) -> list[BaseMessage]:
    """Parallel calls, one answered, one not, then the user moves on; then a pending call."""
    return [
        SystemMessage(content="Be brief.", id="s1"),
        HumanMessage(content="Weather and time in Paris?", id="h1"),
        caller(
            content="",
            id="a1",
            tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
                {"name": "get_time", "args": {"tz": "Europe/Paris"}, "id": "call_2"},
            ],
        ),
        ToolMessage(content="18C, sunny", name="get_weather", tool_call_id="call_1", id="t1"),
        HumanMessage(content="Actually, skip that.", id="h2"),
        caller(
            content="",
            id="a2",
            tool_calls=[],
            invalid_tool_calls=[
                {"name": None, "args": '{"q": "tru', "id": "call_3", "error": None},
            ],
        ),
        AIMessage(content="", id="a3", tool_calls=[{"name": "search", "args": {}, "id": "call_4"}]),
    ]


#: (index in the repaired list, content, name, call id, AI message id) of each synthetic result
#: of `_history`.
EXPECTED_INSERTS = [
    (4, CANCELLED.format(name="get_time", id="call_2"), "get_time", "call_2", "a1"),
    (7, MALFORMED.format(name="unknown", id="call_3"), "unknown", "call_3", "a2"),
    (9, PENDING.format(name="search", id="call_4"), "search", "call_4", "a3"),
]


@pytest.mark.parametrize("caller", CALLER_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_synthetic_message_is_langchain_cores_tool_message(
    shape: str, caller: type[AIMessage]
) -> None:
    original = serialize(_history(caller), shape)
    output = fix(original)

    assert len(output) == len(original) + len(EXPECTED_INSERTS)
    inserted_at = {index for index, *_ in EXPECTED_INSERTS}
    assert [m for k, m in enumerate(output) if k not in inserted_at] == original
    for index, content, name, call_id, caller_id in EXPECTED_INSERTS:
        expected = expected_tool_message(
            shape, content=content, name=name, call_id=call_id, caller=caller_id
        )
        assert_same_json(output[index], expected, f"{shape}[{index}]")


def test_js_namespace_is_kept() -> None:
    """Neighbours in LangChain JS's namespace get a ToolMessage in that namespace, not Python's."""
    output = fix(serialize(_history(AIMessage), "dumpd-js"))
    for index, *_ in EXPECTED_INSERTS:
        assert output[index]["id"] == ["langchain_core", "messages", "ToolMessage"]


def test_flat_nulls_follow_the_list() -> None:
    """A flat list that keeps nulls gets an ``artifact`` null; one that omits them does not.
    Both get the id derived from the AI message's (docs/formats.md#langchain)."""
    kept = fix(serialize(_history(AIMessage), "model_dump"))[4]
    omitted = fix(serialize(_history(AIMessage), "model_dump-exclude_none"))[4]
    assert kept["artifact"] is None and "artifact" not in omitted
    assert kept["id"] == omitted["id"] == langchain_result_id("a1", "call_2")
    assert None not in omitted.values()


def test_a_synthetic_message_of_an_ai_message_without_id_has_none() -> None:
    history = serialize(_history(AIMessage), "model_dump")
    history[2]["id"] = None
    assert fix(history)[4]["id"] is None


@pytest.mark.parametrize("caller", CALLER_CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_repaired_list_loads_through_langchain_core(shape: str, caller: type[AIMessage]) -> None:
    original = serialize(_history(caller), shape)
    output = fix(original)
    loaded = load_messages(output, shape)

    # Compared with langchain-core's own load of the input: a chunk's invalid call does not
    # survive langchain-core's round trip (it re-parses tool_call_chunks as partial JSON).
    before = load_messages(original, shape)
    assert len(loaded) == len(before) + len(EXPECTED_INSERTS)
    inserted_at = {index for index, *_ in EXPECTED_INSERTS}
    assert [m for k, m in enumerate(loaded) if k not in inserted_at] == before
    for index, content, name, call_id, caller_id in EXPECTED_INSERTS:
        assert loaded[index] == synthetic_message(content, name, call_id, caller_id), (
            f"{shape}[{index}] loads as {loaded[index]!r}"
        )
        if shape != "dumpd-js":  # re-dumping writes Python's namespace, as documented
            assert_same_json(SHAPES[shape](loaded[index]), output[index], f"re-dumped [{index}]")


# --- which calls need a result: as langchain-core parses them ---------------------------------

RAW_OPENAI_CALLS = [
    {"id": "raw_ok", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
    {"id": "raw_bad", "type": "function", "function": {"name": "g", "arguments": '{"a": '}},
]
PARSED_CALL = {"name": "h", "args": {}, "id": "parsed", "type": "tool_call"}
INVALID_CALL = {
    "name": "i",
    "args": "{",
    "id": "invalid",
    "error": None,
    "type": "invalid_tool_call",
}


def _ai_data(kind: str, **fields: Any) -> dict[str, Any]:
    """The ``data`` of an AI message of ``kind`` with raw OpenAI calls in ``additional_kwargs``."""
    return {
        "content": "",
        "additional_kwargs": {"tool_calls": RAW_OPENAI_CALLS},
        "response_metadata": {},
        "type": kind,
        "name": None,
        "id": None,
        **fields,
    }


#: AI message data: where the calls are, as langchain-core decides (see `_parsed_calls`).
AI_VARIANTS: dict[str, dict[str, Any]] = {
    # additional_kwargs.tool_calls is used: no parsed lists at all (an old file)...
    "ai-only-additional_kwargs": _ai_data("ai"),
    # ... or both parsed lists empty.
    "ai-empty-lists": _ai_data("ai", tool_calls=[], invalid_tool_calls=[]),
    "ai-empty-lists-null-id": {
        **_ai_data("ai", tool_calls=[], invalid_tool_calls=[]),
        "additional_kwargs": {
            "tool_calls": [{"id": None, "function": {"name": "f", "arguments": "{}"}}]
        },
    },
    # additional_kwargs.tool_calls is ignored: tool_calls ...
    "ai-tool_calls": _ai_data("ai", tool_calls=[PARSED_CALL], invalid_tool_calls=[]),
    # ... or invalid_tool_calls is not empty.
    "ai-invalid_tool_calls": _ai_data("ai", tool_calls=[], invalid_tool_calls=[INVALID_CALL]),
    "ai-both": _ai_data("ai", tool_calls=[PARSED_CALL], invalid_tool_calls=[INVALID_CALL]),
    "chunk-only-additional_kwargs": _ai_data("AIMessageChunk"),
    # A chunk as langchain-core writes it: tool_calls, and tool_call_chunks made from them.
    "chunk-tool_calls": AIMessageChunk(
        content="",
        tool_calls=[tool_call(name="h", args={}, id="parsed")],
        additional_kwargs={"tool_calls": RAW_OPENAI_CALLS},
    ).model_dump(),
    "chunk-tool_call_chunks": _ai_data(
        "AIMessageChunk",
        tool_calls=[],
        invalid_tool_calls=[],
        tool_call_chunks=[
            {"name": "h", "args": "{}", "id": "chunked", "index": 0, "type": "tool_call_chunk"}
        ],
    ),
}


def _wrap(data: dict[str, Any], shape: str) -> dict[str, Any]:
    kind = data["type"]
    if shape == "messages_to_dict":
        return {"type": kind, "data": data}
    if shape == "dumpd":
        cls = {"ai": "AIMessage", "AIMessageChunk": "AIMessageChunk", "human": "HumanMessage"}
        ident = ["langchain", "schema", "messages", cls[kind]]
        return {"lc": 1, "type": "constructor", "id": ident, "kwargs": data}
    return data


def _ai_between_humans(data: dict[str, Any], shape: str) -> list[dict[str, Any]]:
    human = {"content": "go on", "type": "human"}
    return [_wrap(human, shape), _wrap(data, shape), _wrap(human, shape)]


@pytest.mark.parametrize("variant", list(AI_VARIANTS))
@pytest.mark.parametrize("shape", ["messages_to_dict", "dumpd", "model_dump"])
def test_calls_are_the_calls_langchain_core_parses(variant: str, shape: str) -> None:
    data = AI_VARIANTS[variant]
    parsed = messages_from_dict([{"type": data["type"], "data": json.loads(json.dumps(data))}])[0]
    assert isinstance(parsed, AIMessage)
    langchain_ids = [c["id"] for c in (*parsed.tool_calls, *parsed.invalid_tool_calls)]
    assert langchain_ids, f"{variant}: langchain-core sees no call; the variant tests nothing"

    findings = patchcore.check_document(json.dumps(_ai_between_humans(data, shape))).findings

    reported = sorted(f.call_id for f in findings if f.call_id is not None)
    assert reported == sorted(i for i in langchain_ids if i), (
        f"{variant} ({shape}): toolpatch answers {reported}, langchain-core parses "
        f"tool_calls={parsed.tool_calls} invalid_tool_calls={parsed.invalid_tool_calls}"
    )
    assert all(f.message_index == 1 for f in findings)
    if not isinstance(parsed, AIMessageChunk):
        # A chunk re-parses its calls from tool_call_chunks (partial JSON): only ids compare.
        invalid = sorted(c["id"] for c in parsed.invalid_tool_calls if c["id"])
        assert sorted(f.call_id for f in findings if f.code == "TP003" and f.call_id) == invalid, (
            f"{variant} ({shape}): TP003 must be exactly langchain-core's invalid_tool_calls"
        )


@pytest.mark.parametrize("shape", ["messages_to_dict", "dumpd", "model_dump"])
def test_additional_kwargs_calls_get_a_result(shape: str) -> None:
    """Both directions end in a history langchain-core sees as fully answered."""
    for variant, data in AI_VARIANTS.items():
        history = _ai_between_humans(data, shape)
        output = patchcore.fix_document(json.dumps(history)).output
        loaded = load_messages(history if output is None else json.loads(output), shape)
        caller = loaded[1]
        assert isinstance(caller, AIMessage)
        needed = {c["id"] for c in (*caller.tool_calls, *caller.invalid_tool_calls) if c["id"]}
        answered = {m.tool_call_id for m in loaded if isinstance(m, ToolMessage)}
        assert answered == needed, f"{variant} ({shape}): answered {answered}, needed {needed}"


# --- one history, three shapes ----------------------------------------------------------------


def _rich_history() -> list[BaseMessage]:
    """Orphan result, late result, chunk, invalid call, legacy additional_kwargs call, pending."""
    return [
        SystemMessage(content="sys"),
        ToolMessage(content="orphan", tool_call_id="nobody"),
        HumanMessage(content="hi"),
        AIMessage(
            content="",
            tool_calls=[
                {"name": "a", "args": {}, "id": "c1"},
                {"name": "", "args": {}, "id": "c2"},
                {"name": "b", "args": {}, "id": None},
            ],
            invalid_tool_calls=[{"name": "bad", "args": "{", "id": "c3", "error": "x"}],
        ),
        ToolMessage(content="r", tool_call_id="c2"),
        HumanMessage(content="interrupt"),
        ToolMessage(content="late", tool_call_id="c1"),
        AIMessageChunk(content="", tool_calls=[{"name": "d", "args": {"x": 1}, "id": "c4"}]),
        AIMessage(content="", additional_kwargs={"tool_calls": RAW_OPENAI_CALLS}),
        HumanMessage(content="again"),
        AIMessage(
            content="",
            tool_calls=[
                {"name": "e", "args": {}, "id": "c5"},
                {"name": "f", "args": {}, "id": "c6"},
            ],
        ),
        ToolMessage(content="r6", tool_call_id="c6"),
    ]


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "messages_to_dict"])
def test_every_shape_gives_the_same_findings(shape: str) -> None:
    history = _rich_history()

    def summary(shape: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        messages = serialize(history, shape)
        report = patchcore.fix_document(json.dumps(messages).encode())
        prefix = FIELDS_AT[shape]
        found = []
        for f in report.findings:
            if f.code == "TP004":  # the orphan result, the whole ToolMessage in every shape
                assert f.call_path == (), f.call_path
            else:
                assert f.call_path[: len(prefix)] == prefix, f"{f.call_path} is not under {prefix}"
            relative = f.call_path[len(prefix) :] if f.call_path else ()
            found.append((f.code, f.message_index, f.call_id, f.tool_name, relative))
        assert report.output is not None
        output = json.loads(report.output)
        extra = [fields_of(m, shape) for m in output if m not in messages]
        inserted = [(m["content"], m["name"], m["tool_call_id"], m["status"]) for m in extra]
        return found, inserted

    reference = summary("messages_to_dict")
    assert [(code, index, call_id) for code, index, call_id, *_ in reference[0]] == [
        ("TP004", 1, "nobody"),  # the orphan, said by default as a result no call answers
        ("TP003", 3, "c3"),
        ("TP001", 7, "c4"),
        ("TP001", 8, "raw_ok"),
        ("TP003", 8, "raw_bad"),
        ("TP002", 10, "c5"),
    ], f"unexpected findings {reference[0]}"
    assert summary(shape) == reference


# --- raw calls whose arguments are not text ----------------------------------------------------

#: Raw OpenAI-shaped calls whose ``arguments`` are ``null`` or an object: langchain-core's parser
#: gives up on them (they stay in ``additional_kwargs`` only), and the OpenAI-style integrations
#: send ``additional_kwargs["tool_calls"]`` as they are when the parsed lists are empty.
RAW_NOT_TEXT = [
    {"id": "raw_null", "type": "function", "function": {"name": "f", "arguments": None}},
    {"id": "raw_object", "type": "function", "function": {"name": "g", "arguments": {"a": 1}}},
]


@pytest.mark.parametrize("shape", ["messages_to_dict", "dumpd", "model_dump"])
def test_raw_calls_whose_arguments_are_not_text_are_calls(shape: str) -> None:
    """docs/formats.md#langchain: the provider gets these raw calls, so each needs a result:
    ``null`` arguments are malformed (TP003), an object is a call's arguments (TP001 here)."""
    data = _ai_data("ai", tool_calls=[], invalid_tool_calls=[])
    data["additional_kwargs"] = {"tool_calls": RAW_NOT_TEXT}
    history = _ai_between_humans(data, shape)
    report = patchcore.fix_document(json.dumps(history))
    assert [(f.code, f.call_id) for f in report.findings] == [
        ("TP003", "raw_null"),
        ("TP001", "raw_object"),
    ]
    assert report.output is not None
    loaded = load_messages(json.loads(report.output), shape)
    assert [m.type for m in loaded] == ["human", "ai", "tool", "tool", "human"]
    assert [m.tool_call_id for m in loaded[2:4]] == ["raw_null", "raw_object"]  # type: ignore[attr-defined]
    assert loaded[1].additional_kwargs["tool_calls"] == RAW_NOT_TEXT  # sent as they are


def test_raw_calls_whose_arguments_are_not_text_in_message_objects() -> None:
    """The same calls on ``BaseMessage`` objects: langchain-core leaves them in
    ``additional_kwargs`` with empty parsed lists, and `fix_base_messages` answers them."""
    history = [
        HumanMessage("go on"),
        AIMessage(content="", additional_kwargs={"tool_calls": RAW_NOT_TEXT}),
        HumanMessage("and?"),
    ]
    assert not history[1].tool_calls and not history[1].invalid_tool_calls  # type: ignore[attr-defined]
    repair = patchcore.fix_base_messages(history)
    assert [(f.code, f.call_id) for f in repair.fixed] == [
        ("TP003", "raw_null"),
        ("TP001", "raw_object"),
    ]
    assert [m.type for m in repair.value] == ["human", "ai", "tool", "tool", "human"]


def test_dropping_one_raw_call_keeps_the_other() -> None:
    """The ``drop`` repair policy removes only the unanswered raw call from
    ``additional_kwargs``; the answered one and the other keys stay."""
    history = [
        HumanMessage("go on"),
        AIMessage(content="", additional_kwargs={"tool_calls": RAW_NOT_TEXT, "refusal": None}),
        ToolMessage("done", tool_call_id="raw_object"),
        HumanMessage("and?"),
    ]
    options = patchcore.make_options(repair="drop", unsafe_fixes=True)
    repair = patchcore.fix_base_messages(history, options=options)
    assert [f.call_id for f in repair.fixed] == ["raw_null"]
    assert repair.value[1].additional_kwargs == {"tool_calls": RAW_NOT_TEXT[1:], "refusal": None}
    assert history[1].additional_kwargs["tool_calls"] == RAW_NOT_TEXT  # a copy was changed


def test_fix_base_messages_drops_calls_from_langchain_objects() -> None:
    """The LangChain objects lose the call wherever langchain-core or a provider would read it:
    ``tool_calls`` and the raw calls of ``additional_kwargs``; a message left empty goes."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    raw = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, n in (("c1", "get_weather"), ("c2", "get_time"))
    ]
    history = [
        HumanMessage("Weather and time?"),
        AIMessage(
            "Looking.",
            tool_calls=[
                {"name": "get_weather", "args": {}, "id": "c1"},
                {"name": "get_time", "args": {}, "id": "c2"},
            ],
            additional_kwargs={"tool_calls": raw},
        ),
        ToolMessage("18C", tool_call_id="c1"),
        AIMessage("", tool_calls=[{"name": "book", "args": {}, "id": "c3"}]),
        HumanMessage("Never mind."),
    ]
    repair = patchcore.fix_base_messages(history, options=DROP)
    assert [f.call_id for f in repair.fixed] == ["c2", "c3"]
    value = repair.value
    assert len(value) == 4, "the AI message of c3 alone goes"
    kept = value[1]
    assert isinstance(kept, AIMessage)
    assert [c["id"] for c in kept.tool_calls] == ["c1"]
    assert [c["id"] for c in kept.additional_kwargs["tool_calls"]] == ["c1"]
    assert kept.content == "Looking."
    assert len(history[1].tool_calls) == 2, "the input objects are not changed"
    assert not patchcore.check_base_messages(value)
