"""The quick lane (`patchcore.engine.quick`, `patchcore.engine.check`) only ever skips
work: it reads, and the engine pairs and checks what it read, so a record it
reads gets exactly what the full path gives it (the same list, findings, fixes, located the
same, and the same repaired bytes), and a record it is unsure of goes down the full path.

Records are generated in the three shapes the lane reads (LangChain ``messages_to_dict``,
OpenAI Chat and Anthropic Messages, at ``messages`` or as a bare list) with everything that
could make them differ:
reused and missing ids, results before their calls, invalid calls and malformed arguments,
calls kept only in ``additional_kwargs`` or in content blocks, chunks, legacy ``function_call``
messages (and their ``function`` answers, with and without names), result messages with
and without names and with each answering key, Anthropic's client and server calls and
results (web search, MCP), reasoning and other blocks, blocks of other dialects and nested in
results, ``cache_control``, text content, a request's settings (tools with their JSON Schemas,
system blocks, thinking, tool choice, context management: `tests.request_settings`, some
holding a history, a call or a result), other keys beside ``messages`` (known and unknown to
the lane, some holding another history), odd content types, non-ASCII text and both JSON
layouts (compact and spaced).
"""

from __future__ import annotations

import json
from typing import Any, get_args
from unittest import mock

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import patchcore
from patchcore.chat_names import FOREIGN_PARTS
from patchcore.engine import quick
from patchcore.engine.quick import Role, clean, read
from patchcore.layouts.records import process_record
from patchcore.options import Options, make_options
from patchcore.raw.codec import Record
from patchcore.result import Result
from tests.request_settings import SETTINGS

# Mostly what the lane reads; now and then what sends a record down the full path.
IDS = st.sampled_from(["call_1", "call_2", "call_3"] * 6 + ["", None, 7])
TEXT = st.sampled_from(["hi", "", "\\u00e9t\\u00e9", '"quoted"', "été ☃"])
NAMES = st.sampled_from(["get_time", "", None, "{id}"])
ARGUMENTS = st.sampled_from(["{}", '{"city": "Paris"}', "{", "", None, {"a": 1}, 7])


@st.composite
def langchain_message(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["human", "ai", "ai", "tool", "tool", "system", "chat"] * 3 + ["AIMessageChunk"]
        )
    )
    data: dict[str, Any] = {"content": draw(TEXT), "additional_kwargs": {}, "type": kind}
    if kind in ("ai", "AIMessageChunk"):
        calls = draw(st.lists(IDS, max_size=3))
        data["tool_calls"] = [
            {"name": draw(NAMES), "args": {}, "id": c, "type": "tool_call"} for c in calls
        ]
        if draw(st.integers(0, 4)) == 4:
            data["invalid_tool_calls"] = draw(
                st.sampled_from([[], [{"name": "f", "args": "{", "id": "call_9"}]])
            )
        if draw(st.integers(0, 10)) == 10:
            data["additional_kwargs"] = {"tool_calls": [{"id": "call_1"}]}
        if draw(st.integers(0, 10)) == 10:
            data["content"] = [{"type": draw(st.sampled_from(["text", "tool_use"])), "id": "x"}]
    if kind == "tool":
        data["tool_call_id"] = draw(IDS)
        data["status"] = "success"
    if draw(st.integers(0, 30)) == 30:
        return {"type": kind, "data": draw(st.sampled_from([7, "x", None]))}
    return {"type": kind, "data": data}


@st.composite
def chat_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(
        st.sampled_from(["user", "assistant", "assistant", "tool", "tool", "system", "function"])
    )
    message: dict[str, Any] = {"role": role, "content": draw(TEXT)}
    if role == "assistant" and draw(st.booleans()):
        calls = draw(st.lists(IDS, max_size=3))
        message["tool_calls"] = [
            {
                "id": c,
                "type": "function",
                "function": {"name": draw(NAMES), "arguments": draw(ARGUMENTS)},
            }
            for c in calls
        ]
        message["content"] = draw(st.sampled_from([None, "", [{"type": "text", "text": "x"}]]))
    if role == "assistant" and draw(st.integers(0, 3)) == 3:
        # The legacy form (docs/formats.md#legacy-function_call): one call, no id, answered by the
        # next function message of its name; null in SDK dumps (no call); beside tool_calls now and
        # then.
        message["function_call"] = draw(
            st.sampled_from(
                [None, {"name": draw(NAMES), "arguments": draw(ARGUMENTS)}, {"name": "get_time"}]
            )
        )
    if role == "function" and draw(st.booleans()):
        message["name"] = draw(NAMES)
    if role == "tool":
        key = draw(st.sampled_from(["tool_call_id", "tool_call_ids", "id", None]))
        if key == "tool_call_ids":
            message[key] = draw(st.lists(IDS.filter(lambda i: isinstance(i, str)), max_size=2))
        elif key is not None:
            message[key] = draw(IDS)
        if draw(st.booleans()):
            message["name"] = draw(NAMES)
    if draw(st.integers(0, 20)) == 20:
        message["content"] = draw(st.sampled_from([7, {"a": 1}, [{"type": "tool_result"}]]))
    return message


ANTHROPIC_IDS = st.sampled_from(["toolu_1", "toolu_2", "srvtoolu_1"] * 6 + ["", None, 7])


@st.composite
def anthropic_block(draw: st.DrawFn) -> Any:
    kind = draw(
        st.sampled_from(
            ["text", "tool_use", "tool_use", "tool_result", "tool_result", "thinking"] * 2
            + ["redacted_thinking", "image", "document", "search_result", "server_tool_use"]
            + ["web_search_tool_result", "mcp_tool_use", "mcp_tool_result", "tool_reference"]
            + ["container_upload", "code_execution_tool_result", "input_text", "tool-call"]
        )
    )
    block: dict[str, Any] = {"type": kind}
    if kind == "text":
        block["text"] = draw(TEXT)
    elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        block.update(id=draw(ANTHROPIC_IDS), name=draw(NAMES), input={})
    elif kind.endswith("tool_result"):
        block.update(tool_use_id=draw(ANTHROPIC_IDS), content=draw(TEXT))
        if draw(st.integers(0, 4)) == 4:
            block["content"] = [{"type": "tool_use", "id": "toolu_1"}]  # not read as a call
    elif kind in ("thinking", "redacted_thinking"):
        block.update(thinking="hm", signature="s")
    if draw(st.integers(0, 4)) == 4:
        block["cache_control"] = {"type": "ephemeral"}
    if draw(st.integers(0, 12)) == 12:  # keys that name a call (`patchcore.engine.unread`)
        block.update(draw(st.sampled_from([{"call_id": "c"}, {"toolUseId": "c"}, {"note": 1}])))
    if kind == "text" and draw(st.integers(0, 12)) == 12:
        block["tool_use_id"] = draw(ANTHROPIC_IDS)
    if draw(st.integers(0, 40)) == 40:
        return draw(st.sampled_from(["bare text", 7, None]))
    return block


@st.composite
def anthropic_message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant"] * 4 + ["system", "tool"]))
    content: Any = draw(st.one_of(TEXT, st.lists(anthropic_block(), max_size=4)))
    message: dict[str, Any] = {"role": role, "content": content}
    odd = draw(st.integers(0, 30))
    if odd == 30:
        message["tool_calls"] = []
    elif odd == 29:
        message["type"] = "message"
    elif odd == 28:
        del message["content"]
    elif odd == 27:
        message[draw(st.sampled_from(["id", "meta", "tool_call_id"]))] = {"type": "tool_use"}
    return message


@st.composite
def anthropic_rounds(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An Anthropic conversation mostly as clients send it (each call answered in the next
    turn), with now and then a block or message from `anthropic_message` in between."""
    history: list[dict[str, Any]] = [{"role": "user", "content": draw(TEXT)}]
    for k in range(draw(st.integers(0, 4))):
        ident = draw(st.sampled_from([f"toolu_{k}", "toolu_0"]))
        said: list[Any] = draw(st.lists(anthropic_block(), max_size=1))
        call = {"type": "tool_use", "id": ident, "name": "f", "input": {}}
        served = [
            {"type": "server_tool_use", "id": f"srvtoolu_{k}", "name": "web_search", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{k}", "content": []},
        ]
        thought = [{"type": "thinking", "thinking": "hm", "signature": "s"}]
        blocks = draw(st.sampled_from([[], thought])) + draw(st.sampled_from([[], served]))
        history.append({"role": "assistant", "content": [*blocks, *said, call]})
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident, "content": "ok"}
        if draw(st.booleans()):
            result["cache_control"] = {"type": "ephemeral"}
        answer = draw(st.sampled_from([[result], [result, {"type": "text", "text": "go"}], []]))
        history.append({"role": "user", "content": answer or draw(TEXT)})
        if draw(st.integers(0, 5)) == 5:
            history.append(draw(anthropic_message()))
    return history


#: Keys beside the history: ones the lane reads in its first pass (`quick._Extras`), others it
#: does not know, and some that hold a history of their own.
EXTRAS = st.sampled_from(
    [
        None,
        {"id": "s-1"},
        {"session_id": "s-1", "tools": [{"type": "function", "function": {"name": "f"}}]},
        {"metadata": {"content": "x"}},
        {"meta": {"content": "x"}},
        {"label": 1, "notes": "fine"},
        {"other": [{"role": "user"}]},
        {"metadata": {"messages": [{"role": "assistant", "tool_calls": []}]}},
        # an Anthropic request's: system prompts (text, blocks), tools, thinking
        {"model": "m", "max_tokens": 64, "system": "Be brief.", "stream": True},
        {"system": [{"type": "text", "text": "Be.", "cache_control": {"type": "ephemeral"}}]},
        {"tools": [{"name": "f", "input_schema": {"type": "object"}}], "tool_choice": {"a": 1}},
        {"tools": [{"type": "web_search_20250305", "name": "web_search"}]},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}, "temperature": 1},
        {"mcp_servers": [{"type": "url", "url": "https://x", "name": "m"}]},
    ]
)


def dump(value: Any, spaced: bool) -> bytes:
    if spaced:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    return orjson.dumps(value)


@st.composite
def record(draw: st.DrawFn) -> bytes:
    shape = draw(st.sampled_from([langchain_message, chat_message, anthropic_message, None]))
    messages = draw(anthropic_rounds() if shape is None else st.lists(shape(), max_size=8))
    spaced = draw(st.booleans())
    if draw(st.booleans()):
        return dump(messages, spaced)
    body: dict[str, Any] = {"messages": messages}
    extra = draw(st.one_of(EXTRAS, SETTINGS))
    if extra:
        body = {**extra, **body} if draw(st.booleans()) else {**body, **extra}
    return dump(body, spaced)


def outcome(raw: bytes, options: Options, *, fix: bool, lane: bool) -> Result | str:
    """What `process_record` gives a record (at line 3), with or without the lane."""
    record = Record(raw, 3, 2)
    try:
        if lane:
            return process_record(record, layout="jsonl", options=options, fix=fix, jsonl=True)
        with mock.patch("patchcore.layouts.records.read_quickly", return_value=None):
            return process_record(record, layout="jsonl", options=options, fix=fix, jsonl=True)
    except Exception as error:  # the same error either way
        return f"{type(error).__name__}: {error}"


OPTIONS = {
    "default": make_options(),
    "ignore TP002": make_options(ignore=["TP002"]),
    "own texts": make_options(texts={"TP001": "{name} ({id}) cut off.", "TP002": "{id}?"}),
}


@pytest.mark.slow
@settings(max_examples=2500, deadline=None, derandomize=True)
@given(raw=record(), options=st.sampled_from(sorted(OPTIONS)), fix=st.booleans())
# Found by the first version of this test: a bare "tool_result" block (Anthropic's) was read
# as OpenAI Chat content.
@example(
    raw=b'{"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}',
    options="default",
    fix=False,
)
# A request with settings the lane proves hold no history (`patchcore.engine.request_keys`), and
# a call left open that the lane's repair answers.
@example(
    raw=b'{"model": "m", "tools": [{"type": "function", "function": {"name": "f", "parameters": '
    b'{"type": "object", "properties": {"content": {"type": "string"}}}}}], "tool_choice": '
    b'"auto", "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": '
    b'"function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "user", '
    b'"content": "next"}]}',
    options="default",
    fix=True,
)
def test_the_lane_gives_what_the_full_path_gives(raw: bytes, options: str, fix: bool) -> None:
    chosen = OPTIONS[options]
    assert outcome(raw, chosen, fix=fix, lane=True) == outcome(raw, chosen, fix=fix, lane=False)


def test_the_lane_runs_only_for_the_counted_rules_and_detected_dialects() -> None:
    assert make_options().quick  # the default selection: TP0xx and TP103
    assert make_options(select=["TP103"]).quick
    assert not make_options(select=["TP0", "TP101"]).quick
    assert not make_options(select=["ALL"]).quick
    assert not make_options(dialect="anthropic").quick


DANGLING = (
    b'{"session_id": "s", "messages": [{"role": "assistant", "tool_calls": [{"id": "c1", '
    b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}, '
    b'{"role": "user", "content": "next"}]}'
)


def test_the_lane_reads_the_views_the_engine_pairs() -> None:
    lane = read(DANGLING)
    assert lane is not None
    assert (lane.pointer, lane.dialect, lane.messages) == (("messages",), "openai-chat", 2)
    assert [view.role for view in lane.views] == [Role.CALLER, Role.OTHER]
    assert [[call.pairing_key for call in view.calls] for view in lane.views] == [["c1"], []]
    assert lane.open_keys == {"c1"}  # the engine's count of the calls left open
    assert not clean(DANGLING)


LANGCHAIN_DANGLING = (
    b'{"messages": [{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", '
    b'"args": {}, "id": "c1", "type": "tool_call"}]}}, {"type": "human", "data": '
    b'{"content": "next"}}]}'
)


def test_the_lane_reads_each_shape_whatever_the_last_record_was() -> None:
    # The lane tries the shape that read the last record first: the order saves a failed
    # decoding per record of a corpus, and must change nothing else.
    records = [DANGLING, LANGCHAIN_DANGLING, LANGCHAIN_DANGLING, DANGLING, DANGLING]
    records += [b'{"messages": []}', LANGCHAIN_DANGLING, DANGLING[DANGLING.index(b"[") : -1]]
    lanes = [read(raw) for raw in records]
    assert [None if lane is None else lane.dialect for lane in lanes] == [
        "openai-chat",
        "langchain",
        "langchain",
        "openai-chat",
        "openai-chat",
        None,
        "langchain",
        "openai-chat",
    ]
    assert all(lane is None or lane.open_keys == {"c1"} for lane in lanes)


ANSWERED_TWICE = (
    b'{"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", '
    b'"function": {"name": "f", "arguments": "{}"}}]}, '
    b'{"role": "tool", "tool_call_id": "c1", "content": "a"}, '
    b'{"role": "tool", "tool_call_id": "c1", "content": "a"}]}'
)


def test_the_lane_proves_no_result_came_twice() -> None:
    """A duplicate result is a default finding (TP103): a record with one is never proven
    clean by the lane, which hands it to the full path; the engine's count says so."""
    assert read(ANSWERED_TWICE) is None
    assert not clean(ANSWERED_TWICE)
    answered_once = ANSWERED_TWICE[: ANSWERED_TWICE.rindex(b", {")] + b"]}"
    assert clean(answered_once)
    result = outcome(ANSWERED_TWICE, make_options(), fix=False, lane=True)
    assert isinstance(result, Result)
    assert [(f.code, f.call_id, f.message_index) for f in result.findings] == [("TP103", "c1", 2)]


def test_the_lane_repairs_what_it_reads() -> None:
    with mock.patch("patchcore.engine.locate.find_message_lists") as full_path:
        result = process_record(
            Record(DANGLING, 1), layout="json", options=make_options(), fix=True, jsonl=False
        )
    full_path.assert_not_called()
    assert [f.code for f in result.findings] == ["TP001"]
    ((start, end, new),) = result.patches
    assert start == end == DANGLING.index(b'{"role": "user"')
    assert new.startswith(b'{"role": "tool", "tool_call_id": "c1", "content": "Tool call f')
    assert new.endswith(b"}, ")


@pytest.mark.parametrize(
    "raw",
    [
        # another history beside the one at "messages"
        b'{"messages": [], "history": [{"role": "user", "content": "x"}]}',
        # deeper than msgspec recurses: the full path locates the error
        b"[" * 5000,
        # invalid UTF-8 in text msgspec skips: the full path refuses the record
        b'{"messages": [{"role": "user", "content": "h\xffi"}]}',
        # an id that is a number: the full path reads it as its decimal text
        b'{"messages": [{"role": "tool", "tool_call_id": 7, "content": "x"}]}',
        # a list of no messages
        b'{"messages": []}',
        # content blocks that carry calls or results, or that the lane does not know
        b'{"messages": [{"role": "user", "content": [{"type": "tool_result", "x": 1}]}]}',
        b'{"messages": [{"role": "assistant", "content": [{"type": "tool_use"}]}]}',
        b'{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": ""}]}'
        b"]}",
        # an Anthropic request whose other keys hold what the full path reads (a server tool
        # whose type reads as a call's; a property named like a call, escaped), or whose shape
        # the lane does not know (a system block with citations)
        b'{"tools": [{"type": "tool_search_tool_regex_20251119", "name": "s"}], "messages": '
        b'[{"role": "user", "content": "hi"}]}',
        b'{"tools": [{"name": "f", "input_schema": {"properties": {"tool\\u0043all": '
        b'{"type": "string"}}}}], "messages": [{"role": "user", "content": "hi"}]}',
        b'{"system": [{"type": "text", "text": "x", "citations": []}], "messages": [{"role": '
        b'"user", "content": "hi"}]}',
        # Responses parts: the full path reads the list as OpenAI Responses
        b'{"messages": [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}]}',
        b'{"messages": [{"role": "user", "content": [{"type": "web_search_tool_result"}]}]}',
        b'{"messages": [{"role": "user", "content": [{"type": "non_standard", "value": {}}]}]}',
        b'{"messages": [{"type": "ai", "data": {"content": [{"type": "tool_use", "id": "c"}]}}]}',
    ],
)
def test_the_lane_says_dont_know_rather_than_guess(raw: bytes) -> None:
    assert read(raw) is None


def test_the_lane_reads_content_lists_of_plain_blocks() -> None:
    """Text, media and reasoning blocks carry no call and no result: the lane reads them."""
    parts = b'[{"type": "text", "text": "a"}, {"type": "image_url"}]'
    lane = read(b'{"messages": [{"role": "user", "content": ' + parts + b"}]}")
    assert lane is not None and lane.clean
    lane = read(b'{"messages": [{"type": "ai", "data": {"content": ' + parts + b"}}]}")
    assert lane is not None and lane.clean


def test_no_plain_block_carries_a_call_or_a_result() -> None:
    """The blocks the lane reads are none of those the adapters read calls or results from."""
    plain = set(get_args(quick._PlainPart))
    assert plain.isdisjoint(FOREIGN_PARTS)
    assert not any("tool" in kind or kind.startswith("function") for kind in plain)


def test_a_call_whose_own_result_stands_before_it_is_copied_from_the_lanes_views() -> None:
    """The lane's calls answer pairing's full walk too (their ``id``): a message that repeats a
    call's id, whose result comes before a later call of that id, crashed the copy of the
    call's own result with an AttributeError (found by the minimal-diff property)."""

    def call(ident: str, arguments: str) -> dict[str, object]:
        return {"id": ident, "type": "function", "function": {"name": "f", "arguments": arguments}}

    def tool(ident: str) -> dict[str, object]:
        return {"role": "tool", "tool_call_id": ident, "content": ""}

    def calling(*calls: dict[str, object]) -> dict[str, object]:
        return {"role": "assistant", "content": None, "tool_calls": list(calls)}

    raw = orjson.dumps(
        [
            calling(call("c2", "{}"), call("c2", "{}")),
            tool("c2"),
            calling(call("c1", "{")),
            tool("c2"),
            tool("c1"),
            calling(call("c1", "{")),
        ]
    ).decode()
    lane = patchcore.fix_document(raw.encode(), filename="history.json")
    full = patchcore.fix_document(
        raw.encode(), filename="history.json", options=make_options(dialect="openai-chat")
    )
    assert [f.code for f in lane.findings] == [f.code for f in full.findings] == ["TP003"]


ANTHROPIC_REQUEST = (
    b'{"model": "claude", "max_tokens": 64, "system": "Be brief.", "stream": true, "messages": ['
    b'{"role": "user", "content": "Weather?"}, '
    b'{"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, '
    b'{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}, '
    b'{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}, '
    b'{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}, '
    b'{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", '
    b'"content": "ok", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "go"}]}]}'
)


def test_the_lane_proves_a_clean_anthropic_request_without_the_full_path() -> None:
    lane = read(ANTHROPIC_REQUEST)
    assert lane is not None and lane.clean and lane.dialect == "anthropic"
    assert [view.role for view in lane.views] == [Role.OTHER, Role.CALLER, Role.OTHER]
    assert [[c.pairing_key for c in v.calls] for v in lane.views] == [
        [],
        ["srvtoolu_1", "toolu_1"],
        [],
    ]
    assert [[r.key for r in v.inner_results] for v in lane.views][1] == ["srvtoolu_1"]
    with mock.patch("patchcore.engine.locate.find_message_lists") as full_path:
        result = process_record(
            Record(ANTHROPIC_REQUEST, 1), layout="json", options=make_options(), fix=True,
            jsonl=False,
        )  # fmt: skip
    full_path.assert_not_called()
    assert result.findings == () and result.conversations[0].dialect == "anthropic"


def test_an_anthropic_list_with_open_calls_takes_the_full_path() -> None:
    """Its new results go into the next user turn's blocks, which the lane does not read."""
    dangling = ANTHROPIC_REQUEST.replace(b'"tool_use_id": "toolu_1"', b'"tool_use_id": "toolu_9"')
    assert read(dangling) is None  # a result for no call: the full path reports it
    answer = b'"tool_result", "tool_use_id": "toolu_1", '
    unanswered = ANTHROPIC_REQUEST.replace(answer, b'"text", ')
    lane = read(unanswered)
    assert lane is not None and lane.open_keys == {"toolu_1"}
    result = outcome(unanswered, make_options(), fix=True, lane=True)
    assert isinstance(result, Result) and [f.code for f in result.findings] == ["TP001"]
    assert result == outcome(unanswered, make_options(), fix=True, lane=False)


def test_reasoning_blocks_make_a_list_anthropic_as_on_the_full_path() -> None:
    """The lane read a list of text and thinking blocks as OpenAI Chat, which the full path
    reads as Anthropic's (its marker): the conversation was named after the wrong dialect."""
    raw = (
        b'{"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "x", '
        b'"signature": "s"}]}, {"role": "user", "content": "hi"}]}'
    )
    lane = read(raw)
    assert lane is not None and lane.dialect == "anthropic"
    assert outcome(raw, make_options(), fix=False, lane=True) == outcome(
        raw, make_options(), fix=False, lane=False
    )
