"""The quick lane (`patchcore.quick`) only ever skips work: when it calls a record clean, the
full path finds no TP0xx finding and lists the same message list.

Records are generated in the two shapes the lane reads (LangChain ``messages_to_dict`` and
OpenAI Chat, at ``messages`` or as a bare list) with everything that could make them differ:
reused and missing ids, results before their calls, invalid calls, calls kept only in
``additional_kwargs`` or in content blocks, chunks, other keys beside ``messages`` (some holding
another history), odd content types.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from patchcore.document import check_lists, dialects_for
from patchcore.locate import find_message_lists
from patchcore.model import format_pointer
from patchcore.options import make_options
from patchcore.quick import clean

IDS = st.sampled_from(["call_1", "call_2", "call_3", "", None, 7])
TEXT = st.sampled_from(["hi", "", "\\u00e9t\\u00e9", '"quoted"'])


@st.composite
def langchain_message(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["human", "ai", "ai", "tool", "system", "AIMessageChunk", "chat"]))
    data: dict[str, Any] = {"content": draw(TEXT), "additional_kwargs": {}, "type": kind}
    if kind in ("ai", "AIMessageChunk"):
        calls = draw(st.lists(IDS, max_size=3))
        data["tool_calls"] = [
            {"name": "f", "args": {}, "id": c, "type": "tool_call"} for c in calls
        ]
        if draw(st.booleans()):
            data["invalid_tool_calls"] = draw(
                st.sampled_from([[], [{"name": "f", "args": "{", "id": "call_9"}]])
            )
        if draw(st.integers(0, 5)) == 0:
            data["additional_kwargs"] = {"tool_calls": [{"id": "call_1"}]}
        if draw(st.integers(0, 5)) == 0:
            data["content"] = [{"type": draw(st.sampled_from(["text", "tool_use"])), "id": "x"}]
    if kind == "tool":
        data["tool_call_id"] = draw(IDS)
    return {"type": kind, "data": data}


@st.composite
def chat_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "assistant", "tool", "system", "function"]))
    message: dict[str, Any] = {"role": role, "content": draw(TEXT)}
    if role == "assistant" and draw(st.booleans()):
        calls = draw(st.lists(IDS, max_size=3))
        message["tool_calls"] = [
            {"id": c, "type": "function", "function": {"name": "f", "arguments": "{}"}}
            for c in calls
        ]
        message["content"] = draw(st.sampled_from([None, "", [{"type": "text", "text": "x"}]]))
    if role == "tool":
        key = draw(st.sampled_from(["tool_call_id", "tool_call_ids", "id", None]))
        if key == "tool_call_ids":
            message[key] = draw(st.lists(IDS.filter(lambda i: isinstance(i, str)), max_size=2))
        elif key is not None:
            message[key] = draw(IDS)
    if draw(st.integers(0, 8)) == 0:
        message["content"] = draw(st.sampled_from([7, {"a": 1}, [{"type": "tool_result"}]]))
    return message


@st.composite
def record(draw: st.DrawFn) -> bytes:
    shape = draw(st.sampled_from([langchain_message, chat_message]))
    messages = draw(st.lists(shape(), max_size=8))
    if draw(st.booleans()):
        return orjson.dumps(messages)
    body: dict[str, Any] = {"messages": messages}
    extra = draw(
        st.sampled_from(
            [None, {"id": "s-1"}, {"meta": {"content": "x"}}, {"other": [{"role": "user"}]}]
        )
    )
    if extra:
        body = {**extra, **body} if draw(st.booleans()) else {**body, **extra}
    return orjson.dumps(body)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(raw=record())
# Found by this test: a bare "tool_result" block (Anthropic's) was read as OpenAI Chat content.
@example(raw=b'{"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}')
def test_a_record_proven_clean_has_no_tp0_finding(raw: bytes) -> None:
    proven = clean(raw)
    if proven is None:
        return
    options = make_options()
    found = find_message_lists(orjson.loads(raw), dialects=dialects_for(options))
    assert check_lists(found, options, fixing=False) == []
    assert [
        (format_pointer(f.pointer), f.dialect and f.dialect.name, len(f.messages)) for f in found
    ] == [(proven.pointer, proven.dialect, proven.messages)]


def test_the_lane_runs_only_for_the_tp0_rules_and_detected_dialects() -> None:
    assert make_options().quick
    assert not make_options(select=["ALL"]).quick
    assert not make_options(dialect="anthropic").quick


def test_the_lane_says_dont_know_rather_than_guess() -> None:
    dangling = (
        b'{"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": '
        b'"function", "function": {"name": "f", "arguments": "{}"}}]}]}'
    )
    assert clean(dangling) is None
    beside = b'{"messages": [], "history": [{"role": "user", "content": "x"}]}'
    assert clean(beside) is None
    assert clean(b"[" * 5000) is None  # deeper than msgspec recurses: the full path locates it
