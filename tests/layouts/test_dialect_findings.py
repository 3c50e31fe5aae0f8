"""What each dialect's findings say: the tool's name, why a finding has no fix, and the provider
error it quotes.

A finding is read by people deciding what to do with a history, so it must not mislead: the name of
a call is the tool's name or ``unknown`` (docs/pairing.md#synthetic-results), never the item type
that carries it; a finding without a fix says why; a quoted provider error names the block the
provider actually wants.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

import patchcore
from tests.conftest import SAMPLES
from tests.helpers import TP001_TEXT, TP002_TEXT, text

ASK = {"role": "user", "content": "Go on."}


def only(findings: list[patchcore.Finding]) -> patchcore.Finding:
    (finding,) = findings
    return finding


# -- names: the tool's own name, else `unknown` -------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        {"type": "custom_tool_call", "call_id": "call_1", "input": "x"},
        {"type": "computer_call", "call_id": "call_1", "action": {"type": "screenshot"}},
        {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_1", "action": {}},
        {"type": "shell_call", "call_id": "call_1", "action": {"commands": ["ls"]}},
        {"type": "apply_patch_call", "call_id": "call_1", "operation": {}},
        {"type": "mcp_approval_request", "id": "call_1", "server_label": "deepwiki"},
    ],
    ids=lambda item: item["type"],
)
def test_a_responses_call_without_a_name_is_of_unknown_tool(item: dict[str, Any]) -> None:
    """The item type (or an MCP server's label) is not the tool's name."""
    finding = only(patchcore.check_messages([ASK, item, ASK]))
    assert finding.tool_name is None
    assert "tool call of unknown tool (id call_1)" in finding.message


def test_a_nameless_custom_tool_call_is_answered_as_unknown() -> None:
    fixed = patchcore.fix_messages([ASK, {"type": "custom_tool_call", "call_id": "c1"}])
    assert fixed.value[-1] == {
        "type": "custom_tool_call_output",
        "call_id": "c1",
        "output": text(TP002_TEXT, "unknown", "c1"),
    }


#: A call without a name in each dialect, then the user moves on.
NAMELESS = {
    "openai-chat": [
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {}}]},
        ASK,
    ],
    "anthropic": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "Go on."}]},
    ],
    "bedrock": [
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c1", "input": {}}}]},
        {"role": "user", "content": [{"text": "Go on."}]},
    ],
    "pydantic-ai": [
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Go on."}]},
    ],
    "langchain": [
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "c1", "args": {}}]}},
        {"type": "human", "data": {"content": "Go on."}},
    ],
}


@pytest.mark.parametrize("dialect", sorted(NAMELESS))
def test_a_nameless_call_is_named_unknown_in_every_dialect(dialect: str) -> None:
    messages = NAMELESS[dialect]
    finding = only(patchcore.check_messages(messages))
    assert (finding.dialect, finding.tool_name) == (dialect, None)
    fixed = patchcore.fix_messages(messages).value
    assert text(TP001_TEXT, "unknown", "c1") in str(fixed)


# -- why a finding has no fix --------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ({"type": "computer_call", "call_id": "c1"}, "a computer_call's result is a screenshot"),
        ({"type": "local_shell_call", "call_id": "c1"}, "the command's output"),
        ({"type": "mcp_approval_request", "id": "c1", "name": "ask"}, "decision that nobody made"),
    ],
)
def test_a_responses_call_without_a_truthful_result_says_why(
    item: dict[str, Any], reason: str
) -> None:
    finding = only(patchcore.check_messages([ASK, item, ASK]))
    assert finding.fix is None
    assert reason in finding.message


# -- the provider errors quoted for server-executed calls -----------------------------------


def anthropic_server_call(kind: str, name: str) -> list[dict[str, Any]]:
    """An assistant message whose server call has no result block (paused mid-turn)."""
    call = {"type": kind, "id": "srvtoolu_1", "name": name, "input": {}}
    if kind == "mcp_tool_use":
        call["server_name"] = "docs"
    return [{"role": "user", "content": "Look it up."}, {"role": "assistant", "content": [call]}]


@pytest.mark.parametrize(
    ("kind", "name", "result"),
    [
        ("mcp_tool_use", "f", "mcp_tool_result"),
        ("mcp_tool_use", "web_search", "mcp_tool_result"),
        ("server_tool_use", "web_search", "web_search_tool_result"),
        ("server_tool_use", "web_fetch", "web_fetch_tool_result"),
        ("server_tool_use", "code_execution", "code_execution_tool_result"),
        ("server_tool_use", "bash_code_execution", "bash_code_execution_tool_result"),
        (
            "server_tool_use",
            "text_editor_code_execution",
            "text_editor_code_execution_tool_result",
        ),
        ("server_tool_use", "tool_search_tool_regex", "tool_search_tool_result"),
        ("server_tool_use", "tool_search_tool_bm25", "tool_search_tool_result"),
        ("server_tool_use", "advisor", "advisor_tool_result"),
    ],
)
def test_anthropic_quotes_the_result_block_the_server_call_needs(
    kind: str, name: str, result: str
) -> None:
    """docs/formats.md#anthropic-server-tools: an MCP call is answered by ``mcp_tool_result``
    whatever tool it names; a server tool by a block named after it, except the tool-search tools,
    which share one."""
    finding = only(patchcore.check_messages(anthropic_server_call(kind, name)))
    assert finding.provider_error == (
        f"`{name}` tool use with id `srvtoolu_1` was found without a corresponding `{result}` block"
    )


def test_a_nameless_anthropic_server_call_quotes_no_made_up_block() -> None:
    messages = anthropic_server_call("server_tool_use", "x")
    del messages[1]["content"][0]["name"]
    assert only(patchcore.check_messages(messages)).provider_error is None


def test_a_bedrock_server_tool_quotes_no_next_message_error() -> None:
    """Bedrock's error for a client toolUse names the next message; a server tool's result
    belongs in its own message, and Bedrock's wording for that is not known: none is quoted."""
    use = {"toolUse": {"toolUseId": "t1", "name": "web_grounding", "type": "server_tool_use"}}
    messages = [
        {"role": "user", "content": [{"text": "News?"}]},
        {"role": "assistant", "content": [use]},
    ]
    finding = only(patchcore.check_messages(messages))
    assert finding.fix is None
    assert finding.provider_error is None


def pydantic_builtin_call(name: str) -> list[dict[str, Any]]:
    part = {"part_kind": "builtin-tool-call", "tool_name": name, "tool_call_id": "b1", "args": {}}
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "News?"}]},
        {"kind": "response", "parts": [part]},
    ]


def test_a_pydantic_ai_built_in_call_quotes_the_server_tool_error() -> None:
    finding = only(patchcore.check_messages(pydantic_builtin_call("web_search")))
    assert finding.provider_error == (
        "the request would reach the provider with built-in tool call b1 unanswered (e.g. "
        "Anthropic: `web_search` tool use with id `b1` was found without a corresponding "
        "`web_search_tool_result` block)"
    )


def test_a_pydantic_ai_mcp_call_quotes_no_made_up_tool_name() -> None:
    finding = only(patchcore.check_messages(pydantic_builtin_call("mcp_server:docs")))
    assert finding.provider_error == (
        "the request would reach the provider with built-in tool call b1 unanswered"
    )


# -- why a list refuses a result ------------------------------------------------------------


def test_an_adk_call_followed_by_a_model_event_says_why_it_is_not_fixed() -> None:
    """The response would need a new event: its ids, author and timestamp cannot be made up."""
    data = (SAMPLES / "gemini/adk-call-then-model-event.json").read_bytes()
    (unfixable,) = patchcore.check_document(data).findings
    assert unfixable.fix is None
    assert unfixable.message == (
        "tool call 'get_weather' (no id) has no result, and the history goes on after it; its "
        "result needs a message of its own here, and each message of this list is the "
        "`content` of an element whose other fields cannot be made up"
    )


def test_a_stored_response_says_why_its_pending_calls_are_not_fixed() -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {}}],
        "stop_reason": "tool_use",
    }
    finding = only(list(patchcore.check_data(response)))
    assert finding.fix is None
    assert finding.message.endswith(
        "in the last turn has no result; the document is one message, so nothing can be added "
        "beside it"
    )


@pytest.mark.parametrize("twice", [False, True], ids=["stray", "second"])
def test_a_server_tool_result_quotes_no_client_tool_result_error(twice: bool) -> None:
    """Anthropic's errors for a stray (TP101) or second (TP103) result name ``tool_result``
    blocks; a ``web_search_tool_result`` is not one, and the wording for it is not known."""
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    content = [call, result, result] if twice else [{"type": "text", "text": "Hm."}, result]
    messages = [{"role": "user", "content": "News?"}, {"role": "assistant", "content": content}]
    finding = only(
        patchcore.check_messages(messages, options=patchcore.make_options(select=["TP1"]))
    )
    assert (finding.code, finding.provider_error) == ("TP103" if twice else "TP101", None)


def test_a_pydantic_ai_retry_prompt_without_an_id_answers_nothing() -> None:
    """pydantic-ai loads a tool retry-prompt without ``tool_call_id`` with a made-up id: its
    call stays unanswered, and the synthetic result always carries the call's id."""
    call = {"part_kind": "tool-call", "tool_name": "lookup", "tool_call_id": "c1", "args": "{}"}
    retry = {"part_kind": "retry-prompt", "tool_name": "lookup", "content": "bad args"}
    messages = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Look it up."}]},
        {"kind": "response", "parts": [call]},
        {"kind": "request", "parts": [retry]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "Done."}]},
    ]
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    findings = patchcore.check_messages(messages, options=options)
    assert [(f.code, f.call_id, f.tool_name) for f in findings] == [
        ("TP001", "c1", "lookup"),
        ("TP101", None, None),
    ]
    assert "tool result for 'lookup' (no id) answers no earlier call" in findings[1].message
    repaired = patchcore.fix_messages(messages, options=options).value
    assert [p.get("tool_call_id") for p in repaired[2]["parts"]] == ["c1"]
    assert patchcore.check_messages(repaired, options=options) == []


def test_a_pydantic_ai_prompt_before_tool_returns_quotes_both_providers() -> None:
    call = {"part_kind": "tool-call", "tool_name": "lookup", "tool_call_id": "c1", "args": "{}"}
    answer = {"part_kind": "tool-return", "tool_name": "lookup", "tool_call_id": "c1"}
    messages = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Look it up."}]},
        {"kind": "response", "parts": [call]},
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Hurry."}, answer]},
    ]
    finding = only(
        patchcore.check_messages(messages, options=patchcore.make_options(select=["ALL"]))
    )
    assert finding.code == "TP106"
    assert finding.provider_error is not None
    assert "Anthropic: Did not find 1 `tool_result` block(s)" in finding.provider_error
    assert (
        "OpenAI: An assistant message with 'tool_calls' must be followed" in finding.provider_error
    )


# -- LangChain calls that are only a provider's block in `content` -------------------------

#: A call that is only a block of an AIMessage's content (`tool_calls` empty), by block type:
#: the block, and the provider the synthetic ToolMessage fits.
CONTENT_ONLY_CALLS = {
    "tool_use": (
        {"type": "tool_use", "id": "toolu_1", "name": "run", "input": {}},
        "the ToolMessage answers it as langchain-anthropic sends it; langchain-openai drops the "
        "block and would send the ToolMessage without its call",
        "Anthropic (via langchain-anthropic): `tool_use` ids were found without `tool_result` "
        "blocks immediately after: toolu_1",
    ),
    "function_call": (
        {"type": "function_call", "call_id": "toolu_1", "name": "run", "arguments": "{}"},
        "the ToolMessage answers it as langchain-openai sends it to the Responses API",
        "OpenAI Responses (via langchain-openai): No tool output found for function call toolu_1.",
    ),
    "tool_call": (
        {"type": "tool_call", "id": "toolu_1", "name": "run", "args": {}},
        "langchain-openai drops the block for Chat Completions and langchain-anthropic passes it "
        "on unconverted, so through either the ToolMessage has no call",
        "Found AIMessages with tool_calls that do not have a corresponding ToolMessage "
        "(LangGraph INVALID_CHAT_HISTORY; the provider then rejects the call toolu_1 too)",
    ),
}


def content_only_call(block: dict[str, Any]) -> list[dict[str, Any]]:
    def data(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "data": {"additional_kwargs": {}, "response_metadata": {}, **fields}}

    return [
        data("human", content="Run it.", type="human"),
        data("ai", content=[block], type="ai", tool_calls=[], invalid_tool_calls=[]),
        data("human", content="Never mind.", type="human"),
    ]


@pytest.mark.parametrize("kind", CONTENT_ONLY_CALLS)
def test_a_langchain_call_only_in_content_says_which_provider_its_answer_fits(kind: str) -> None:
    block, fits, error = CONTENT_ONLY_CALLS[kind]
    messages = content_only_call(block)
    finding = only(patchcore.check_messages(messages))
    assert (finding.code, finding.call_id) == ("TP001", "toolu_1")
    assert f"the call is only a{'n' if kind != 'tool_call' else ''}" in finding.message
    assert fits in finding.message
    assert finding.provider_error == error
    repaired = patchcore.fix_messages(messages).value
    assert repaired[2]["type"] == "tool" and repaired[2]["data"]["tool_call_id"] == "toolu_1"


def test_the_tool_message_for_a_tool_use_block_fits_langchain_anthropic() -> None:
    """langchain-anthropic sends the block as a `tool_use` and the synthetic ToolMessage as its
    `tool_result`: the repair is what Anthropic wants."""
    formatting = pytest.importorskip("langchain_anthropic.chat_models")
    from langchain_core.messages import messages_from_dict

    block = CONTENT_ONLY_CALLS["tool_use"][0]
    repaired = patchcore.fix_messages(content_only_call(block)).value
    _, sent = formatting._format_messages(messages_from_dict(repaired), model="claude-sonnet-4-5")
    assert [m["content"][0]["type"] for m in sent[1:3]] == ["tool_use", "tool_result"]
    assert sent[2]["content"][0]["tool_use_id"] == "toolu_1"


#: In each dialect whose result names its call by an id: a call, a result whose id is ``null``
#: (it answers nothing), then the call's real result, then the user goes on.
NULL_ID_RESULT: dict[str, list[dict[str, Any]]] = {
    "langchain": [
        {"type": "ai", "data": {"content": "", "tool_calls": [
            {"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]}},
        {"type": "tool", "data": {"content": "?", "tool_call_id": None, "name": "f"}},
        {"type": "tool", "data": {"content": "ok", "tool_call_id": "c1"}},
        {"type": "human", "data": {"content": "Go on."}},
    ],
    "openai-chat": [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": None, "content": "?"},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ASK,
    ],
    "openai-responses": [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": None, "output": "?"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        ASK,
    ],
    "anthropic": [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "ok"},
            {"type": "tool_result", "tool_use_id": None, "content": "?"}]},
        {"role": "assistant", "content": "Done."},
    ],
    "bedrock": [
        {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "c1", "content": [{"text": "ok"}]}},
            {"toolResult": {"toolUseId": None, "content": [{"text": "?"}]}}]},
        {"role": "assistant", "content": [{"text": "Done."}]},
    ],
}  # fmt: skip


@pytest.mark.parametrize("dialect", list(NULL_ID_RESULT))
def test_a_result_with_a_null_id_is_an_orphan(dialect: str) -> None:
    """A result whose id is ``null`` answers no call (docs/pairing.md#the-pairing-rule): TP101,
    which the unsafe fix drops (deer-flow drops it too); the call keeps its real result."""
    messages = NULL_ID_RESULT[dialect]
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    finding = only(patchcore.check_messages(messages, options=options))
    assert (finding.code, finding.dialect, finding.call_id) == ("TP101", dialect, None)
    assert "(no id" in finding.message and "answers no earlier call" in finding.message
    repaired = patchcore.fix_messages(messages, options=options).value
    assert patchcore.check_messages(repaired, options=options) == []
    assert "?" not in str(repaired) and "ok" in str(repaired)


@pytest.mark.parametrize(
    "unknown",
    [
        {"type": "x", "call_id": "C", "output": "zzz"},
        {"type": "x", "call_id": "C"},
        {"type": "future_tool_call", "call_id": "C", "status": "in_progress"},
    ],
    ids=["with-output", "bare", "call-like"],
)
@pytest.mark.parametrize("select", [None, ["ALL"]])
def test_an_unknown_item_reusing_a_calls_id_gives_a_repair_that_converges(
    unknown: dict[str, Any], select: list[str] | None
) -> None:
    """An item of a type toolpatch does not know, with the ``call_id`` of the open
    ``function_call`` before it, is read as an unknown call of the same turn: a result
    written for the function call would answer that item instead, so none is written, and
    check and fix agree (docs/pairing.md#calls-that-cannot-be-answered); never an internal
    error."""
    call = {"type": "function_call", "call_id": "C", "name": "f", "arguments": "{}"}
    items = [{"role": "user", "content": "hi"}, call, unknown, ASK]
    data = json.dumps(items).encode()
    for unsafe in (False, True):
        options = patchcore.make_options(select=select, unsafe_fixes=unsafe)
        report = patchcore.fix_document(data, options=options)
        assert report.output is None
        assert report.fixed == ()
        first = report.findings[0]
        assert (first.code, first.call_id, first.fix) == ("TP001", "C", None)
        assert "a result written for this call would answer that one instead" in first.message
        checked = patchcore.check_document(data, options=options).findings
        assert [(f.code, f.fix) for f in checked] == [(f.code, f.fix) for f in report.findings]


def pydantic_ai_history(**response_keys: Any) -> list[dict[str, Any]]:
    """A pydantic-ai history whose call a later prompt left unanswered; ``response_keys`` are
    what the writing release adds to a response."""
    call = {"part_kind": "tool-call", "tool_name": "lookup", "tool_call_id": "c1", "args": "{}"}
    stamp = "2026-02-16T23:49:05Z"
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Look it up."}]},
        {"kind": "response", "parts": [call], "timestamp": stamp, **response_keys},
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Skip it."}]},
    ]


@pytest.mark.parametrize(
    ("response_keys", "outcome"),
    [({}, "failed"), ({"model_id": "gpt-5", "request_timestamp": None}, "interrupted")],
    ids=["release-unknown", "release-2.40-or-later"],
)
def test_a_pydantic_ai_synthetic_return_says_what_it_is(
    response_keys: dict[str, Any], outcome: str
) -> None:
    """docs/formats.md#pydantic-ai: pydantic-ai loads a tool-return without ``outcome`` as a
    success. The synthetic part is marked as pydantic-ai's own repair marks one (its
    ``metadata`` mark, ``outcome: "interrupted"``) where the file shows a release that takes
    that outcome (2.10 and later; 2.0-2.5 and 1.x take only success, failed, denied); else
    ``failed``, which every release with the field takes (and one without ignores). ``strip``
    removes the part again."""
    history = pydantic_ai_history(**response_keys)
    repaired = patchcore.fix_messages(history).value
    (part,) = repaired[2]["parts"][:1]
    assert part["outcome"] == outcome
    assert part["metadata"] == {"pydantic_ai_synthesized_tool_return": True}
    assert (part["part_kind"], part["tool_call_id"], part["timestamp"]) == (
        "tool-return",
        "c1",
        "2026-02-16T23:49:05Z",
    )
    fixed = patchcore.fix_document(json.dumps(history, indent=2)).output
    assert fixed is not None
    assert patchcore.fix_document(fixed).output is None  # the same outcome when read again
    assert patchcore.strip_document(fixed).output == json.dumps(history, indent=2).encode()


def synthetic_then_real(dialect: str) -> list[dict[str, Any]]:
    """A call answered first by the result toolpatch writes, then by the real one (a tool that
    finished after the history was repaired, a human approval that came after all)."""
    ask = {"role": "user", "content": "Book it."}
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}
        ],
    }
    if dialect == "openai-chat":
        repaired = patchcore.fix_messages([ask, call, ask]).value
        real = {"role": "tool", "tool_call_id": "c1", "content": "Booked: seat 12A."}
        return [*repaired[:3], real, repaired[3]]
    lc_call = {
        "type": "ai",
        "data": {
            "content": "",
            "tool_calls": [{"name": "book", "args": {}, "id": "c1", "type": "tool_call"}],
        },
    }
    lc_ask = {"type": "human", "data": {"content": "Book it."}}
    repaired = patchcore.fix_messages([lc_ask, lc_call, lc_ask]).value
    real = {"type": "tool", "data": {"content": "Booked: seat 12A.", "tool_call_id": "c1"}}
    return [*repaired[:3], real, repaired[3]]  # fmt: skip


@pytest.mark.parametrize("dialect", ["openai-chat", "langchain"])
def test_a_duplicate_result_keeps_the_real_one(dialect: str) -> None:
    """TP103 (docs/rules.md#duplicate-tool-result-tp103): when the first of two results is the
    synthetic one toolpatch wrote and the second is real, the fix removes the synthetic one;
    removing the second would lose what the tool returned."""
    messages = synthetic_then_real(dialect)
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    finding = only(patchcore.check_messages(messages, options=options))
    assert (finding.code, finding.message_index) == ("TP103", 2)
    assert "the fix removes this one and keeps the real one" in finding.message
    repaired = patchcore.fix_messages(messages, options=options).value
    assert repaired == [*messages[:2], *messages[3:]]
    # The other way round (real first), the second, synthetic result goes, as before.
    swapped = [*messages[:2], messages[3], messages[2], messages[4]]
    assert patchcore.fix_messages(swapped, options=options).value == [*messages[:2], *messages[3:]]


def test_a_duplicate_result_is_left_when_the_real_one_would_be_out_of_place() -> None:
    messages = synthetic_then_real("openai-chat")
    late = [*messages[:3], messages[4], messages[3]]  # the real result after the next prompt
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    findings = patchcore.check_messages(late, options=options)
    duplicate = next(f for f in findings if f.code == "TP103")
    assert (duplicate.message_index, duplicate.fix) == (2, None)
    assert "neither is removed" in duplicate.message
    repaired = patchcore.fix_messages(late, options=options).value
    assert messages[3] in repaired


def test_a_duplicate_result_keeps_the_real_one_in_message_objects() -> None:
    """The same in a LangChain ``BaseMessage`` list, as the middleware sees a thread whose
    approval came after toolpatch answered the call (docs/langchain.md)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    history = [
        HumanMessage("Book it."),
        AIMessage("", tool_calls=[{"name": "book", "args": {}, "id": "c1"}]),
        HumanMessage("Well?"),
    ]
    repaired = patchcore.fix_base_messages(history).value
    real = ToolMessage("Booked: seat 12A.", tool_call_id="c1")
    both = [*repaired[:3], real, repaired[3]]
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    kept = patchcore.fix_base_messages(both, options=options).value
    assert kept == [*history[:2], real, history[2]]


def test_a_responses_output_gets_a_derived_id_where_outputs_carry_ids() -> None:
    """docs/formats.md#openai-responses: in a list whose outputs carry item ids (a stored
    conversation's), the synthetic output has one too, derived from the call's item id as
    Codex derives ``fco_`` ids; two runs write the same id, and ``strip`` removes it. Where
    outputs carry no id, it has none."""
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "id": "fco_0", "call_id": "c1", "output": "ok"},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "f", "arguments": "{}"},
        {"type": "message", "role": "user", "content": "go"},
    ]
    namespace = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")
    expected = "fco_" + uuid.uuid5(namespace, "responses/fco/fc_2").hex
    first, second = (patchcore.fix_messages(items).value[4] for _ in range(2))
    assert first == second
    assert first["id"] == expected
    assert list(first) == ["type", "id", "call_id", "output"]
    fixed = patchcore.fix_document(json.dumps(items)).output
    assert fixed is not None
    assert patchcore.strip_document(fixed).output == json.dumps(items).encode()
    without = [{k: v for k, v in item.items() if k != "id"} for item in items]
    assert "id" not in patchcore.fix_messages(without).value[4]
