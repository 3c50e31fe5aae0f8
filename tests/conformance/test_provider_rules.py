"""Repaired histories pass the providers' own rules.

``tests/provider_rules.py`` is a validator written from the providers' documented errors
(docs/formats.md, docs/rules.md), independently of toolpatch. This file pins three things:

(a) the validator itself: each rule catches a small broken history, and the clean version of
    it passes (a validator that accepts everything would make (b) and (c) worthless);
(b) every repaired sample (``samples/**/*.fixed.*``, discovered on disk, so samples added later
    are covered too) passes the validator of each message list's dialect, and its defective
    input does not (except for the one blind spot of LangGraph's global id set: reused ids);
    a sample toolpatch reads as an agent session is validated conversation by conversation in
    tests/layouts/test_sessions_samples.py instead;
(c) generated histories in each block / item dialect (Anthropic, OpenAI Responses, Gemini,
    Bedrock), holding only the defects the TP0xx rules repair (dangling, pending and invalid
    calls: no orphans, no duplicates, no misplaced results, no reused ids), serialised as JSON
    (a list, a request body or a list of request bodies; one line, compact or indented, LF or
    CRLF) or JSON Lines (one request per line or one message per line). The input breaks only
    the rules a missing result breaks, and exactly when the generator left a call unanswered;
    with every call answered, toolpatch finds nothing and rewrites nothing.
    After ``patchcore.fix_document``: the validator passes on every list; a second fix
    changes nothing; ``check`` finds nothing; removing the synthetic results gives back the
    input exactly (an Anthropic string content that became a block list keeps its string in a
    text block); one synthetic result per fixed finding, for exactly the unanswered calls, with
    the default texts and error flags (compared by tool name where a Gemini turn mixes calls
    with and without ids of one name, since an id-less response may answer either); thinking
    blocks, ``thoughtSignature`` parts and reasoning
    items are unchanged and in place, and no synthetic output lands between a reasoning item and
    its call.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict
from langchain_core.messages.tool import invalid_tool_call, tool_call

import patchcore
from patchcore.dialects import DIALECTS
from patchcore.engine.locate import find_message_lists
from patchcore.layouts.sessions import SESSION_LAYOUTS
from tests.builders import json_value as parsed_records
from tests.builders import openai_call as call
from tests.builders import openai_tool as tool
from tests.conftest import SAMPLES
from tests.helpers import TP001_TEXT, TP002_TEXT, TP003_TEXT, canonical, split_inserted
from tests.provider_rules import VALIDATORS, Violation, load_langchain, validate

# =============================================================================================
# (a) the validator catches each rule
# =============================================================================================


def rules(violations: list[Violation]) -> list[tuple[str, int]]:
    """``(rule, message index)`` of each violation, for comparisons."""
    return [(v.rule, v.index) for v in violations]


def show(violations: list[Violation]) -> str:
    return "\n".join(str(v) for v in violations) or "(none)"


USER = {"role": "user", "content": "Weather and time in Paris?"}
OPENAI_CLEAN = [
    USER,
    {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2", "get_time")]},
    tool("c2"),
    tool("c1"),
    {"role": "assistant", "content": "18C at 10:00."},
]


def tool_use(call_id: str, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"city": "Paris"}}


def tool_result(call_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "18C", **extra}


THINKING = {"type": "thinking", "thinking": "Two tools.", "signature": "EqQBCgIYAhIM"}
SERVER_PAIR = [
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
]
ANTHROPIC_CLEAN = [
    {"role": "user", "content": "Weather and time in Paris?"},
    {
        "role": "assistant",
        "content": [THINKING, *SERVER_PAIR, tool_use("toolu_A"), tool_use("toolu_B", "get_time")],
    },
    {
        "role": "user",
        "content": [
            tool_result("toolu_B"),
            tool_result("toolu_A", is_error=True),
            {"type": "text", "text": "thanks"},
        ],
    },
    {"role": "assistant", "content": "18C at 10:00."},
]


def item_call(call_id: str, kind: str = "function_call") -> dict[str, Any]:
    return {"type": kind, "id": f"fc_{call_id}", "call_id": call_id, "name": "f", "arguments": "{}"}


def item_output(call_id: str, kind: str = "function_call_output") -> dict[str, Any]:
    return {"type": kind, "call_id": call_id, "output": "ok"}


def reasoning(item_id: str) -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": []}


ASSISTANT_ITEM = {
    "type": "message",
    "role": "assistant",
    "id": "msg_1",
    "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
}
RESPONSES_CLEAN = [
    {"role": "user", "content": "Weather in Paris?"},
    reasoning("rs_1"),
    item_call("call_1"),
    reasoning("rs_2"),
    {"type": "custom_tool_call", "id": "ctc_2", "call_id": "call_2", "name": "g", "input": "x"},
    {"type": "apply_patch_call", "id": "apc_3", "call_id": "call_3", "operation": {}},
    item_output("call_2", "custom_tool_call_output"),
    item_output("call_1"),
    {"type": "apply_patch_call_output", "call_id": "call_3", "status": "completed"},
    reasoning("rs_3"),
    ASSISTANT_ITEM,
]


def fcall(name: str, call_id: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {} if call_id is None else {"id": call_id}
    return {"functionCall": {**fields, "name": name, "args": {}}}


def fresponse(name: str, call_id: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {} if call_id is None else {"id": call_id}
    return {"functionResponse": {**fields, "name": name, "response": {"output": 1}}}


def turn(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


GEMINI_CLEAN = [
    turn("user", {"text": "Weather?"}),
    turn("model", {**fcall("get_weather", "a"), "thoughtSignature": "c2ln"}, fcall("get_time")),
    turn("user", fresponse("get_time"), fresponse("get_weather", "a")),
    turn("model", fcall("search"), fcall("search")),
    turn("user", fresponse("search"), fresponse("search")),
    turn("model", {"text": "18C."}),
]
GEMINI_SNAKE_CLEAN = [
    {"parts": [{"text": "Weather?"}], "role": "user"},
    {"parts": [{"function_call": {"name": "f", "args": {}}}], "role": "model"},
    {"parts": [{"function_response": {"name": "f", "response": {"output": 1}}}], "role": "user"},
]


def tool_use_block(call_id: str) -> dict[str, Any]:
    return {"toolUse": {"toolUseId": call_id, "name": "get_weather", "input": {}}}


def tool_result_block(call_id: str, **extra: Any) -> dict[str, Any]:
    return {"toolResult": {"toolUseId": call_id, "content": [{"text": "18C"}], **extra}}


BEDROCK_CLEAN = [
    {"role": "user", "content": [{"text": "Weather?"}]},
    {
        "role": "assistant",
        "content": [
            {"reasoningContent": {"reasoningText": {"text": "hm", "signature": "s"}}},
            {"text": "Checking."},
            tool_use_block("tu_a"),
            tool_use_block("tu_b"),
        ],
    },
    {
        "role": "user",
        "content": [
            tool_result_block("tu_b", status="error"),
            tool_result_block("tu_a"),
            {"text": "thanks"},
        ],
    },
    {"role": "assistant", "content": [{"text": "18C."}]},
]


def pa_request(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"parts": list(parts), "kind": "request"}


def pa_return(call_id: str) -> dict[str, Any]:
    return {"part_kind": "tool-return", "tool_name": "f", "content": "ok", "tool_call_id": call_id}


PA_USER = {"part_kind": "user-prompt", "content": "Weather?"}
PA_CALLS = {
    "parts": [
        {"part_kind": "thinking", "content": "hm"},
        {"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": "t1"},
        {"part_kind": "tool-call", "tool_name": "g", "args": "{", "tool_call_id": "t2"},
    ],
    "kind": "response",
}
PYDANTIC_AI_CLEAN = [
    pa_request(PA_USER),
    PA_CALLS,
    pa_request(
        pa_return("t2"),
        {"part_kind": "retry-prompt", "content": "bad", "tool_name": "f", "tool_call_id": "t1"},
        PA_USER,
    ),
    {"parts": [{"part_kind": "text", "content": "18C"}], "kind": "response"},
]


def lc_history() -> list[Any]:
    """A LangChain conversation as langchain-core writes it (messages_to_dict)."""
    return messages_to_dict(
        [
            HumanMessage("Weather?"),
            AIMessage("", tool_calls=[tool_call(name="get_weather", args={}, id="c1")]),
            ToolMessage("18C", tool_call_id="c1"),
        ]
    )


def oc_message(role: str, *parts: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    """An opencode message as ``opencode export`` prints it (its ``info`` cut to the keys read)."""
    info: dict[str, Any] = {"role": role}
    if error is not None:
        info["error"] = {"name": error, "data": {"message": "stopped"}}
    return {"info": info, "parts": list(parts)}


def oc_tool(call_id: str, status: str) -> dict[str, Any]:
    """A tool part of an opencode message in a ``status`` state."""
    return {"type": "tool", "callID": call_id, "tool": "bash", "state": {"status": status}}


OC_TEXT = {"type": "text", "text": "Run the tests."}
OC_STEP = {"type": "step-start"}
OPENCODE_CLEAN = [
    oc_message("user", OC_TEXT),
    oc_message("assistant", OC_STEP, oc_tool("c1", "completed"), oc_tool("c2", "error")),
    # an API error: opencode leaves the message out, so its pending part is not sent
    oc_message("assistant", OC_STEP, oc_tool("c3", "pending"), error="APIError"),
    # an abort holding only a step-start: left out too
    oc_message("assistant", OC_STEP, error="MessageAbortedError"),
    oc_message("assistant"),  # no parts: not sent
    oc_message("user", OC_TEXT),
]


#: A traced run (OpenTelemetry GenAI input messages): a call and its response.
OTEL_CLEAN = [
    {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
    {"role": "assistant", "parts": [{"type": "tool_call", "id": "t1", "name": "get_weather"}]},
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "t1", "response": "18C"}]},
]

CLEAN = {
    "otel-genai": OTEL_CLEAN,
    "openai-chat": OPENAI_CLEAN,
    "anthropic": ANTHROPIC_CLEAN,
    "openai-responses": RESPONSES_CLEAN,
    "gemini": GEMINI_CLEAN,
    "bedrock": BEDROCK_CLEAN,
    "pydantic-ai": PYDANTIC_AI_CLEAN,
    "opencode": OPENCODE_CLEAN,
}


@pytest.mark.parametrize("dialect", sorted(CLEAN))
def test_clean_histories_pass(dialect: str) -> None:
    violations = validate(dialect, CLEAN[dialect])
    assert not violations, show(violations)


def test_openai_variants_of_real_data_pass() -> None:
    """SWE-agent answers with ``tool_call_ids``, tau2 puts the call id in ``id``."""
    history = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call("c1")]},
        {"role": "tool", "content": "ok", "tool_call_ids": ["c1"]},
        {"role": "assistant", "content": None, "tool_calls": [call("c2")]},
        {"role": "tool", "content": "ok", "id": "c2"},
    ]
    assert validate("openai-chat", history) == []


def test_openai_legacy_functions_pass_when_answered_right_after() -> None:
    """docs/formats.md#legacy-function_call: the function message right after the call, past the
    tool messages of the same message's tool_calls; a nameless reply answers by place."""
    mixed = {**LEGACY_CALL, "tool_calls": [call("c1")]}
    history = [USER, mixed, tool("c1"), LEGACY_REPLY, LEGACY_CALL, {"role": "function"}]
    assert validate("openai-chat", history) == []


def test_gemini_snake_case_and_name_pairing_pass() -> None:
    assert validate("gemini", GEMINI_SNAKE_CLEAN) == []
    # a response without an id answers a call with one by name
    assert validate("gemini", [turn("model", fcall("f", "a")), turn("user", fresponse("f"))]) == []


def test_langgraph_accepts_every_langchain_shape() -> None:
    messages = [
        HumanMessage("Weather?"),
        AIMessage("", tool_calls=[tool_call(name="get_weather", args={}, id="c1")]),
        ToolMessage("18C", tool_call_id="c1"),
    ]
    shapes = {
        "messages_to_dict": messages_to_dict(messages),
        "dumpd": [dumpd(m) for m in messages],
        "model_dump": [m.model_dump() for m in messages],
    }
    for shape, history in shapes.items():
        assert validate("langchain", history) == [], shape


def broken(base: list[Any], index: int, value: Any) -> list[Any]:
    """``base`` with message ``index`` replaced (or removed when ``value`` is None)."""
    changed = list(base)
    if value is None:
        del changed[index]
    else:
        changed[index] = value
    return changed


@dataclass(frozen=True)
class Broken:
    """A history that breaks rules: the violations expected, and ids the error must quote."""

    name: str
    dialect: str
    messages: list[Any]
    expected: list[tuple[str, int]]
    quoted: tuple[str, ...] = ()


TWO_CALLS = {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]}
A_AND_B = {"role": "assistant", "content": [tool_use("toolu_A"), tool_use("toolu_B")]}
LC_LEGACY_BAD_ARGS = {
    "type": "ai",
    "data": {
        "content": "",
        "additional_kwargs": {
            "tool_calls": [
                {"id": "c9", "type": "function", "function": {"name": "f", "arguments": '{"a'}}
            ]
        },
    },
}

LEGACY_CALL = {"role": "assistant", "content": None, "function_call": {"name": "f"}}
LEGACY_REPLY = {"role": "function", "name": "f", "content": "ok"}

BROKEN = [
    # --- OpenAI Chat
    Broken("oc-function-unanswered", "openai-chat", [USER, LEGACY_CALL, USER], [("unanswered", 1)]),
    Broken(
        "oc-function-other-name",
        "openai-chat",
        [USER, LEGACY_CALL, {**LEGACY_REPLY, "name": "g"}],
        [("unanswered", 1), ("orphan", 2)],
    ),
    Broken(
        "oc-function-twice",
        "openai-chat",
        [USER, LEGACY_CALL, LEGACY_REPLY, LEGACY_REPLY],
        [("orphan", 3)],
    ),
    Broken(
        "oc-unanswered",
        "openai-chat",
        [USER, TWO_CALLS, tool("c1"), USER],
        [("unanswered", 1)],
        ("c2",),
    ),
    Broken("oc-trailing", "openai-chat", [USER, TWO_CALLS], [("unanswered", 1)], ("c1, c2",)),
    Broken(
        "oc-not-contiguous",
        "openai-chat",
        [USER, TWO_CALLS, tool("c1"), USER, tool("c2")],
        [("unanswered", 1), ("orphan", 4)],
        ("c2",),
    ),
    Broken("oc-orphan", "openai-chat", [USER, tool("c9")], [("orphan", 1)], ("preceeding",)),
    Broken(
        "oc-wrong-id",
        "openai-chat",
        [USER, TWO_CALLS, tool("c1"), tool("c3")],
        [("orphan", 3), ("unanswered", 1)],
    ),
    Broken(
        "oc-duplicate",
        "openai-chat",
        [USER, TWO_CALLS, tool("c1"), tool("c2"), tool("c1")],
        [("duplicate", 4)],
        ("'c1' in messages[2] and messages[4]",),
    ),
    Broken(
        "oc-empty-tool-calls",
        "openai-chat",
        [USER, {"role": "assistant", "content": "hi", "tool_calls": []}],
        [("empty-tool-calls", 1)],
        ("messages[1].tool_calls",),
    ),
    # --- Anthropic
    Broken(
        "an-partial-with-text",
        "anthropic",
        [
            USER,
            A_AND_B,
            {"role": "user", "content": [tool_result("toolu_A"), {"type": "text", "text": "x"}]},
        ],
        [("not-first", 2), ("unanswered", 1)],
        ("messages.1: `tool_use` ids", "toolu_B", "Did not find 2"),
    ),
    Broken(
        "an-next-is-assistant",
        "anthropic",
        [USER, A_AND_B, {"role": "assistant", "content": "Never mind."}],
        [("unanswered", 1)],
        ("toolu_A, toolu_B",),
    ),
    Broken(
        "an-next-is-string",
        "anthropic",
        [USER, A_AND_B, {"role": "user", "content": "skip it"}],
        [("not-first", 2), ("unanswered", 1)],
    ),
    Broken("an-trailing", "anthropic", [USER, A_AND_B], [("unanswered", 1)], ("toolu_A, toolu_B",)),
    Broken(
        "an-results-not-first",
        "anthropic",
        [
            USER,
            {"role": "assistant", "content": [tool_use("toolu_A")]},
            {"role": "user", "content": [{"type": "text", "text": "x"}, tool_result("toolu_A")]},
        ],
        [("not-first", 2)],
        ("Did not find 1 `tool_result`",),
    ),
    Broken(
        "an-result-two-messages-later",
        "anthropic",
        [
            USER,
            {"role": "assistant", "content": [tool_use("toolu_A")]},
            {"role": "user", "content": "wait"},
            {"role": "user", "content": [tool_result("toolu_A")]},
        ],
        [("not-first", 2), ("unanswered", 1), ("orphan", 3)],
        ("messages.3.content.0: unexpected `tool_use_id`",),
    ),
    Broken(
        "an-orphan",
        "anthropic",
        [
            USER,
            {"role": "assistant", "content": "hi"},
            {"role": "user", "content": [tool_result("toolu_X")]},
        ],
        [("orphan", 2)],
        ("toolu_X",),
    ),
    Broken(
        "an-duplicate",
        "anthropic",
        [
            USER,
            {"role": "assistant", "content": [tool_use("toolu_A")]},
            {"role": "user", "content": [tool_result("toolu_A"), tool_result("toolu_A")]},
        ],
        [("duplicate", 2)],
        ("multiple tool_result blocks with id: toolu_A",),
    ),
    Broken(
        "an-server-unanswered",
        "anthropic",
        [USER, {"role": "assistant", "content": [SERVER_PAIR[0], {"type": "text", "text": "x"}]}],
        [("server-unanswered", 1)],
        ("`web_search` tool use with id `srvtoolu_1`",),
    ),
    Broken(
        "an-server-orphan",
        "anthropic",
        [USER, {"role": "assistant", "content": [SERVER_PAIR[1]]}],
        [("server-orphan", 1)],
        ("`web_search_tool_result` blocks: srvtoolu_1",),
    ),
    Broken(
        "an-server-result-before-use",
        "anthropic",
        [USER, {"role": "assistant", "content": [SERVER_PAIR[1], SERVER_PAIR[0]]}],
        [("server-orphan", 1), ("server-unanswered", 1)],
    ),
    Broken(
        "an-empty-error",
        "anthropic",
        [
            USER,
            {"role": "assistant", "content": [tool_use("toolu_A")]},
            {"role": "user", "content": [tool_result("toolu_A", is_error=True, content="")]},
        ],
        [("empty-error", 2)],
    ),
    # --- OpenAI Responses
    Broken(
        "re-unanswered",
        "openai-responses",
        [USER, item_call("call_1"), item_call("call_2"), item_output("call_1"), USER],
        [("unanswered", 2)],
        ("No tool output found for function call call_2.",),
    ),
    Broken(
        "re-custom-unanswered",
        "openai-responses",
        [USER, item_call("call_1", "custom_tool_call")],
        [("unanswered", 1)],
    ),
    Broken(
        "re-wrong-output-type",
        "openai-responses",
        [USER, item_call("call_1"), item_output("call_1", "custom_tool_call_output")],
        [("unanswered", 1), ("orphan", 2)],
    ),
    Broken(
        "re-orphan",
        "openai-responses",
        [USER, item_output("call_9")],
        [("orphan", 1)],
        ("No tool call found for function call output with call_id call_9.",),
    ),
    Broken(
        "re-output-before-call",
        "openai-responses",
        [USER, item_output("call_1"), item_call("call_1")],
        [("orphan", 1), ("unanswered", 2)],
    ),
    Broken(
        "re-duplicate-output",
        "openai-responses",
        [USER, item_call("call_1"), item_output("call_1"), item_output("call_1")],
        [("duplicate", 3)],
        ("Duplicate item found with id call_1.",),
    ),
    Broken(
        "re-duplicate-item-id",
        "openai-responses",
        [
            USER,
            item_call("c"),
            item_output("c"),
            {**item_call("d"), "id": "fc_c"},
            item_output("d"),
        ],
        [("duplicate", 3)],
        ("fc_c",),
    ),
    Broken(
        "re-output-after-reasoning",
        "openai-responses",
        [
            USER,
            reasoning("rs_1"),
            item_call("call_1"),
            reasoning("rs_2"),
            item_output("call_1"),
            ASSISTANT_ITEM,
        ],
        [("reasoning-alone", 3)],
        ("Item 'rs_2' of type 'reasoning' was provided without its required following item",),
    ),
    Broken(
        "re-reasoning-last",
        "openai-responses",
        [USER, reasoning("rs_1")],
        [("reasoning-alone", 1)],
    ),
    Broken(
        "re-reasoning-then-user",
        "openai-responses",
        [USER, reasoning("rs_1"), USER],
        [("reasoning-alone", 1)],
    ),
    # --- Gemini
    Broken(
        "ge-partial",
        "gemini",
        [
            turn("model", fcall("f"), fcall("g")),
            turn("user", fresponse("f")),
            turn("user", {"text": "x"}),
        ],
        [("count", 0)],
        ("number of function response parts",),
    ),
    Broken(
        "ge-text-turn-after-call",
        "gemini",
        [turn("user", {"text": "x"}), turn("model", fcall("f")), turn("user", {"text": "skip"})],
        [("count", 1)],
    ),
    Broken(
        "ge-model-after-call",
        "gemini",
        [turn("user", {"text": "x"}), turn("model", fcall("f")), turn("model", {"text": "hm"})],
        [("count", 1)],
    ),
    Broken(
        "ge-trailing",
        "gemini",
        [turn("user", {"text": "x"}), turn("model", fcall("f"))],
        [("count", 1)],
    ),
    Broken(
        "ge-wrong-id",
        "gemini",
        [
            turn("user", {"text": "x"}),
            turn("model", fcall("f", "a")),
            turn("user", fresponse("f", "b")),
        ],
        [("unmatched", 2)],
        ("f/b",),
    ),
    Broken(
        "ge-wrong-name",
        "gemini",
        [
            turn("user", {"text": "x"}),
            turn("model", fcall("f"), fcall("f")),
            turn("user", fresponse("f"), fresponse("g")),
        ],
        [("unmatched", 2)],
        ("g/None",),
    ),
    Broken(
        "ge-too-many-responses",
        "gemini",
        [
            turn("user", {"text": "x"}),
            turn("model", fcall("f")),
            turn("user", fresponse("f"), fresponse("f")),
        ],
        [("count", 1)],
    ),
    Broken(
        "ge-orphan-response-turn",
        "gemini",
        [turn("user", {"text": "x"}), turn("user", fresponse("f"))],
        [("orphan", 1)],
        ("function response turn comes immediately after a function call turn",),
    ),
    Broken(
        "ge-response-two-turns-later",
        "gemini",
        [
            turn("user", {"text": "x"}),
            turn("model", fcall("f")),
            turn("user", {"text": "y"}),
            turn("user", fresponse("f")),
        ],
        [("count", 1), ("orphan", 3)],
    ),
    Broken(
        "ge-empty-parts",
        "gemini",
        [turn("user", {"text": "x"}), turn("model")],
        [("empty-parts", 1)],
        ("contents[1].parts",),
    ),
    Broken(
        "ge-call-after-model-text",
        "gemini",
        [
            turn("user", {"text": "x"}),
            turn("model", {"text": "a"}),
            turn("model", fcall("f")),
            turn("user", fresponse("f")),
        ],
        [("call-place", 2)],
        ("function call turn comes immediately after a user turn",),
    ),
    # --- Bedrock
    Broken(
        "be-partial-with-text",
        "bedrock",
        [
            BEDROCK_CLEAN[0],
            BEDROCK_CLEAN[1],
            {"role": "user", "content": [tool_result_block("tu_a"), {"text": "x"}]},
        ],
        [("unanswered", 1)],
        ("Expected toolResult blocks at messages.2.content for the following Ids: tu_b",),
    ),
    Broken(
        "be-trailing",
        "bedrock",
        BEDROCK_CLEAN[:2],
        [("unanswered", 1)],
        ("messages.2.content for the following Ids: tu_a, tu_b",),
    ),
    Broken(
        "be-two-user-turns",
        "bedrock",
        [*BEDROCK_CLEAN, {"role": "user", "content": [{"text": "x"}]}, BEDROCK_CLEAN[0]],
        [("alternation", len(BEDROCK_CLEAN) + 1)],
        ("A conversation must alternate between user and assistant roles",),
    ),
    Broken(
        "be-split-results",
        "bedrock",
        [
            *BEDROCK_CLEAN[:2],
            {"role": "user", "content": [tool_result_block("tu_a")]},
            {"role": "user", "content": [tool_result_block("tu_b")]},
        ],
        [("alternation", 3), ("unanswered", 1), ("orphan", 3)],
        ("exceeds the number of toolUse blocks",),
    ),
    Broken(
        "be-not-first",
        "bedrock",
        [
            *BEDROCK_CLEAN[:2],
            {
                "role": "user",
                "content": [{"text": "x"}, tool_result_block("tu_a"), tool_result_block("tu_b")],
            },
        ],
        [("not-first", 2)],
    ),
    Broken(
        "be-duplicate",
        "bedrock",
        [
            *BEDROCK_CLEAN[:2],
            {
                "role": "user",
                "content": [
                    tool_result_block("tu_a"),
                    tool_result_block("tu_a"),
                    tool_result_block("tu_b"),
                ],
            },
        ],
        [("duplicate", 2)],
        ("contain duplicate Ids: tu_a",),
    ),
    Broken(
        "be-empty-error-content",
        "bedrock",
        [
            *BEDROCK_CLEAN[:2],
            {
                "role": "user",
                "content": [
                    tool_result_block("tu_a"),
                    {"toolResult": {"toolUseId": "tu_b", "content": [], "status": "error"}},
                ],
            },
        ],
        [("empty-error", 2)],
        ("messages.2.content.1.toolResult cannot be empty",),
    ),
    Broken(
        "be-empty-error-text",
        "bedrock",
        [
            *BEDROCK_CLEAN[:2],
            {
                "role": "user",
                "content": [
                    tool_result_block("tu_a"),
                    {
                        "toolResult": {
                            "toolUseId": "tu_b",
                            "content": [{"text": ""}],
                            "status": "error",
                        }
                    },
                ],
            },
        ],
        [("empty-text", 2)],
    ),
    # --- pydantic-ai
    Broken(
        "pa-partial-with-user-text",
        "pydantic-ai",
        [PA_CALLS, pa_request(pa_return("t1"), PA_USER)],
        [("unanswered", 0), ("not-first", 1)],
        ("t2",),
    ),
    Broken(
        "pa-next-is-response",
        "pydantic-ai",
        [PA_CALLS, {"parts": [{"part_kind": "text", "content": "hm"}], "kind": "response"}],
        [("unanswered", 0)],
        ("t1, t2",),
    ),
    Broken("pa-trailing", "pydantic-ai", [pa_request(PA_USER), PA_CALLS], [("unanswered", 1)]),
    Broken(
        "pa-orphan-and-duplicate",
        "pydantic-ai",
        [PA_CALLS, pa_request(pa_return("t1"), pa_return("t1"), pa_return("t2"), pa_return("t9"))],
        [("duplicate", 1), ("orphan", 1)],
        ("t9",),
    ),
    Broken(
        "pa-builtin-unanswered",
        "pydantic-ai",
        [
            {
                "parts": [
                    {
                        "part_kind": "builtin-tool-call",
                        "tool_name": "web_search",
                        "tool_call_id": "b1",
                    }
                ],
                "kind": "response",
            }
        ],
        [("server-unanswered", 0)],
    ),
    # --- opencode
    Broken(
        "opencode-running-and-pending",
        "opencode",
        [
            oc_message("user", OC_TEXT),
            oc_message("assistant", oc_tool("c1", "completed"), oc_tool("c2", "running")),
            oc_message("assistant", oc_tool("c3", "pending")),
        ],
        [("unanswered", 1), ("unanswered", 2)],
        ("Tool result is missing for tool call c2", "c3"),
    ),
    Broken(
        "opencode-aborted-with-a-call",
        "opencode",
        [oc_message("assistant", OC_STEP, oc_tool("c4", "running"), error="MessageAbortedError")],
        [("unanswered", 0)],
        ("c4",),
    ),
    # --- OpenTelemetry GenAI
    Broken(
        "otel-unanswered",
        "otel-genai",
        [*OTEL_CLEAN[:2], {"role": "user", "parts": [{"type": "text", "content": "and?"}]}],
        [("unanswered", 1)],
        ("tool_call t1 has no later tool_call_response",),
    ),
    # --- LangGraph
    Broken(
        "lg-unanswered",
        "langchain",
        lc_history()[:2] + messages_to_dict([HumanMessage("never mind")]),
        [("unanswered", 1)],
        ("Found AIMessages with tool_calls that do not have a corresponding ToolMessage", '"c1"'),
    ),
    Broken(
        "lg-legacy-invalid-call",
        "langchain",
        [lc_history()[0], LC_LEGACY_BAD_ARGS],
        [("unanswered-invalid", 1)],
        ("c9",),
    ),
    Broken(
        "lg-invalid-tool-calls",
        "langchain",
        messages_to_dict(
            [
                AIMessage(
                    "",
                    invalid_tool_calls=[invalid_tool_call(name="f", args="{", id="c7", error=None)],
                )
            ]
        ),
        [("unanswered-invalid", 0)],
        ("c7",),
    ),
]


@pytest.mark.parametrize("case", BROKEN, ids=lambda c: c.name)
def test_each_rule_is_caught(case: Broken) -> None:
    violations = validate(case.dialect, case.messages)
    assert sorted(rules(violations)) == sorted(case.expected), show(violations)
    text = "\n".join(v.error for v in violations)
    for quoted in case.quoted:
        assert quoted in text, f"{quoted!r} not in the errors:\n{show(violations)}"
    assert all(v.provider == case.dialect for v in violations)


def test_langgraph_pairs_globally_like_langgraph() -> None:
    """LangGraph keeps one global set of answered ids: a ToolMessage before the call counts."""
    history = lc_history()
    moved = [history[0], history[2], history[1]]
    assert validate("langchain", moved) == []


def test_validate_dispatches_on_toolpatch_dialect_names() -> None:
    assert {d.name for d in DIALECTS} <= set(VALIDATORS), "a dialect has no validator"
    with pytest.raises(KeyError):
        validate("sharegpt", [])


# =============================================================================================
# (b) every repaired sample passes its provider's rules
# =============================================================================================

#: The names of the agent-session layouts (docs/formats.md, "Agent-session layouts").
SESSION_NAMES = frozenset(layout.name for layout in SESSION_LAYOUTS)


def is_session(path: Path) -> bool:
    """Whether toolpatch reads ``path`` as an agent session log. A session holds its
    conversations across event entries (Claude Code, the Claude Agent SDK stream, Codex rollouts,
    Gemini CLI's session log, ...), not in message lists:
    tests/layouts/test_sessions_samples.py rebuilds and validates them conversation by
    conversation. Asking the layout, rather than naming folders, keeps a new session folder from
    being held to the list validators here."""
    layout = patchcore.check_document(path.read_bytes(), filename=path.name).layout
    return layout in SESSION_NAMES


FIXED_SAMPLES = sorted(
    p.relative_to(SAMPLES).as_posix()
    for p in SAMPLES.rglob("*.fixed.*")
    if p.is_file()
    # samples/strict/ keeps TP1xx defects in its safe-only *.fixed.* outputs on purpose (a safe
    # fix never deletes or moves); its *.unsafe.* outputs are validated in test_samples.py.
    # Cline rewrites its stored history before it sends it (docs/formats.md, Cline): its files
    # are not requests; tests/layouts/test_cline.py reads them by Cline's convention.
    and p.relative_to(SAMPLES).parts[0] not in ("strict", "cline")
    and not is_session(p)
)


def test_there_are_repaired_samples_of_every_dialect() -> None:
    folders = {Path(p).parts[0] for p in FIXED_SAMPLES}
    wanted = {"langchain", "openai-chat", "anthropic", "openai-responses", "gemini", "bedrock"}
    present = {d for d in wanted if (SAMPLES / d).is_dir()}
    assert {"langchain", "openai-chat"} <= folders
    assert present <= folders, f"sample folders without a repaired sample: {present - folders}"


@pytest.mark.parametrize("relative", FIXED_SAMPLES)
def test_repaired_sample_passes_the_provider_rules(relative: str) -> None:
    value = parsed_records(SAMPLES / relative)
    found = find_message_lists(value, dialects=DIALECTS)
    checked = 0
    for listed in found:
        if listed.dialect is None or listed.note is not None:
            continue  # empty lists and copies of a history held elsewhere are not checked
        messages = [m for m in listed.messages if m is not None]
        violations = validate(listed.dialect.name, messages)
        where = "/" + "/".join(map(str, listed.pointer))
        assert not violations, f"{relative} {where} ({listed.dialect.name}):\n{show(violations)}"
        checked += 1
    assert checked, f"{relative}: no message list was checked ({found})"


def input_of(relative: str) -> str:
    """The defective sample a ``.fixed.`` sample repairs."""
    return relative.replace(".fixed.", ".", 1)


@pytest.mark.parametrize("relative", FIXED_SAMPLES)
def test_defective_sample_breaks_the_provider_rules(relative: str) -> None:
    """The validator is not blind to the samples' defects: the input of each repaired sample
    breaks a rule. The one exception is LangGraph's own check, which keeps a single global set
    of answered ids and so cannot see a call whose reused id was answered in an earlier turn."""
    source = SAMPLES / input_of(relative)
    found = find_message_lists(parsed_records(source), dialects=DIALECTS)
    checked = [ml for ml in found if ml.dialect is not None and ml.note is None]
    violations = [
        v
        for ml in checked
        if ml.dialect is not None
        for v in validate(ml.dialect.name, [m for m in ml.messages if m is not None])
    ]
    if violations:
        return
    findings = patchcore.check_document(source.read_bytes(), filename=source.name).findings
    assert findings, f"{source.name} has nothing to repair, yet {relative} exists"
    answered = {
        load_langchain(m).tool_call_id
        for ml in checked
        if ml.dialect is not None and ml.dialect.name == "langchain"
        for m in ml.messages
        if m is not None and isinstance(load_langchain(m), ToolMessage)
    }
    blind = [f for f in findings if f.dialect == "langchain" and f.call_id in answered]
    assert blind == list(findings), (
        f"the validator finds nothing wrong in {source.name}, which has {findings}"
    )


# =============================================================================================
# (c) generated histories of each dialect, repaired, pass the provider's rules
# =============================================================================================

PROPERTY = settings(
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

TEXTS = {"TP001": TP001_TEXT, "TP002": TP002_TEXT, "TP003": TP003_TEXT}
#: Tool names: repeated (Gemini pairs id-less calls by name), non-ASCII, a placeholder.
NAMES = ["get_weather", "get_weather", "search", "ツール", "run_{id}"]
#: Suffixes that make ids need escaping in JSON (formats where ids are free strings).
ODD = st.sampled_from(["", "", "", "é", '"', "\\", "😀", "{id}"])
#: JSON's structural characters and escapes, non-ASCII, a surrogate pair; never empty.
TEXT = st.text(alphabet='ab é😀"\\/\n{}', min_size=1, max_size=5)


def expected_text(code: str, name: str | None, call_id: str | None) -> str:
    """The default text, substituted literally in one pass; without an id (Gemini) the
    ``with id {id}`` words are left out (docs/pairing.md#synthetic-results)."""
    template = TEXTS[code]
    if call_id is None:
        template = template.replace(" with id {id}", "")
    values = {"{name}": name or "unknown", "{id}": call_id or ""}
    return re.sub(r"\{name\}|\{id\}", lambda m: values[m.group()], template)


@dataclass(frozen=True)
class Dangling:
    """A call the generator left unanswered, and the rule that must report it."""

    id: str | None
    name: str | None
    code: str


@dataclass
class History:
    """One generated message list and its unanswered calls.

    Attributes:
        loose: Which calls are the unanswered ones is only known by name: a Gemini turn has
            calls of one name with and without ids, and a response without an id may answer
            either (by name, in order). The repair is then compared by tool name.
    """

    messages: list[dict[str, Any]] = field(default_factory=list)
    dangling: list[Dangling] = field(default_factory=list)
    loose: bool = False


@dataclass(frozen=True)
class Case:
    """A generated document.

    Attributes:
        container: ``list`` (a bare JSON list), ``body`` (a request body holding the list at
            ``key``), ``list-of-bodies`` (a JSON list of request bodies), ``jsonl-bodies`` (one
            request body per line) or ``jsonl-messages`` (one message per line).
    """

    dialect: str
    histories: tuple[History, ...]
    container: str
    key: str
    data: bytes
    filename: str

    def lists(self, data: bytes) -> list[list[Any]]:
        """The message lists of ``data`` (this case's input or its repair), in order."""
        if self.container in ("list", "body", "list-of-bodies"):
            value = json.loads(data)
            if self.container == "list-of-bodies":
                return [body[self.key] for body in value]
            return [value if self.container == "list" else value[self.key]]
        values = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        if self.container == "jsonl-messages":
            return [values]
        return [v[self.key] for v in values]

    def describe(self) -> str:
        return f"{self.dialect} in {self.container} ({self.filename}):\n{self.data.decode()}"


def code_for(
    messages: list[dict[str, Any]], index: int, results_only: Callable[[Any], bool]
) -> str:
    """TP002 when nothing but results follows the calling message, else TP001."""
    return "TP002" if all(results_only(m) for m in messages[index + 1 :]) else "TP001"


# --- Anthropic ------------------------------------------------------------------------------


def anthropic_results_only(message: Any) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, list)
        and bool(content)
        and all(b.get("type") == "tool_result" for b in content)
    )


@st.composite
def anthropic_history(draw: st.DrawFn, *, tidy: bool = False) -> History:
    """A system message or not; user turns as strings or blocks; assistant turns (some as SDK
    response dumps) with thinking, text, server tool pairs and parallel ``tool_use``; answers
    for some calls, with text after them; a string reply, another assistant turn, or the end of
    the history after unanswered calls."""
    numbers = itertools.count(1)
    history = History()
    messages = history.messages
    pending: list[tuple[int, str, str]] = []

    def user_text() -> dict[str, Any]:
        if draw(st.booleans()):
            return {"role": "user", "content": draw(TEXT)}
        return {"role": "user", "content": [{"type": "text", "text": draw(TEXT)}]}

    if draw(st.integers(0, 3)) == 0:
        messages.append({"role": "system", "content": draw(TEXT)})  # LangSmith's wrap_anthropic
    messages.append(user_text())
    turns = draw(st.integers(1, 4))
    for number in range(turns):
        last = number == turns - 1
        content: list[dict[str, Any]] = []
        thinking = draw(st.sampled_from(["none", "none", "thinking", "redacted"]))
        if thinking == "thinking":
            content.append(
                {"type": "thinking", "thinking": draw(TEXT), "signature": f"Eq{next(numbers)}=="}
            )
        elif thinking == "redacted":
            content.append({"type": "redacted_thinking", "data": f"EmwK{next(numbers)}"})
        if draw(st.booleans()):
            content.append({"type": "text", "text": draw(TEXT)})
        if draw(st.integers(0, 4)) == 0:
            server = f"srvtoolu_{next(numbers)}"
            content += [
                {
                    "type": "server_tool_use",
                    "id": server,
                    "name": "web_search",
                    "input": {"q": "x"},
                },
                {"type": "web_search_tool_result", "tool_use_id": server, "content": []},
            ]
        calls = [
            (f"toolu_{next(numbers):02d}", draw(st.sampled_from(NAMES)))
            for _ in range(draw(st.integers(0, 3)))
        ]
        content += [
            {"type": "tool_use", "id": i, "name": n, "input": {"q": draw(TEXT)}} for i, n in calls
        ]
        if not content or (not calls and draw(st.booleans())):
            messages.append({"role": "assistant", "content": draw(TEXT)})
        elif draw(st.integers(0, 3)) == 0:
            # a stored response (Message.model_dump()): extra keys, nulls, "type": "message"
            messages.append(
                {
                    "id": f"msg_{next(numbers)}",
                    "content": content,
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "stop_reason": "tool_use" if calls else "end_turn",
                    "stop_sequence": None,
                    "type": "message",
                    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation": None},
                }
            )
        else:
            messages.append({"role": "assistant", "content": content})
        at = len(messages) - 1
        answered = calls if tidy else [c for c in calls if draw(st.booleans())]
        pending += [(at, i, n) for i, n in calls if (i, n) not in answered]
        if answered:
            results: list[dict[str, Any]] = []
            for call_id, _ in draw(st.permutations(answered)):
                result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
                body = draw(st.sampled_from(["string", "blocks", "none"]))
                if body == "string":
                    result["content"] = draw(TEXT)
                elif body == "blocks":
                    result["content"] = [{"type": "text", "text": draw(TEXT)}]
                flag = draw(st.sampled_from([None, None, False, True]))
                if flag is not None and (flag is False or "content" in result):
                    result["is_error"] = flag  # a real error result has content
                results.append(result)
            if draw(st.booleans()):
                results.append({"type": "text", "text": draw(TEXT)})  # text after the results
            messages.append({"role": "user", "content": results})
            continue
        # nothing answered: a user reply, the next assistant turn, or the end
        options = ["user", "user", "assistant", *(["end"] if last else [])]
        follow = draw(st.sampled_from(options))
        if follow == "user":
            messages.append(user_text())
    for at, call_id, name in pending:
        history.dangling.append(
            Dangling(call_id, name, code_for(messages, at, anthropic_results_only))
        )
    return history


def strip_blocks(
    after: list[Any],
    before: list[Any],
    key: str,
    is_synthetic: Callable[[Any], bool],
    *,
    new_turn_keys: Callable[[Any], list[str]],
) -> tuple[list[Any], list[Any]]:
    """Remove the synthetic result blocks from ``after``: blocks inserted into existing turns,
    and new turns made of nothing else. Returns ``(synthetic blocks, what is left)``."""
    synthetic: list[Any] = []
    left: list[Any] = []
    for message in after:
        blocks = message.get(key)
        if not isinstance(blocks, list):
            left.append(message)
            continue
        found = [b for b in blocks if is_synthetic(b)]
        kept = [b for b in blocks if not is_synthetic(b)]
        synthetic += found
        if found and not kept:
            event("a new user turn holds the results")
            assert list(message) == new_turn_keys(message), f"new turn {message}"
            assert message.get("role") == "user", f"a new turn must be a user turn: {message}"
            continue
        left.append({**message, key: kept} if found else message)
    return synthetic, left


def anthropic_synthetic(block: Any) -> bool:
    return block.get("type") == "tool_result" and str(block.get("content", "")).startswith(
        "Tool call "
    )


def strip_anthropic(after: list[Any], before: list[Any]) -> tuple[list[Any], list[Any]]:
    synthetic, left = strip_blocks(
        after, before, "content", anthropic_synthetic, new_turn_keys=lambda m: ["role", "content"]
    )
    if len(left) == len(before):
        for k, (old, new) in enumerate(zip(before, left, strict=True)):
            if isinstance(old.get("content"), str) and isinstance(new.get("content"), list):
                assert new["content"] == [{"type": "text", "text": old["content"]}], (
                    f"a string content turned into a list must keep it as a text block: {new}"
                )
                left[k] = {**new, "content": old["content"]}
                event("a string content became a block list")
    for block in synthetic:
        assert list(block) == ["type", "tool_use_id", "content", "is_error"], block
        assert block["is_error"] is True, f"a synthetic tool_result is an error: {block}"
    return synthetic, left


def anthropic_answer(block: Any) -> tuple[str | None, str | None, str]:
    return block["tool_use_id"], None, block["content"]


def anthropic_untouched(before: list[Any], after: list[Any]) -> None:
    def assistants(messages: list[Any]) -> list[str]:
        return [canonical(m) for m in messages if m.get("role") == "assistant"]

    def thinking(messages: list[Any]) -> list[tuple[int, int, str]]:
        return [
            (n, k, canonical(b))
            for n, m in enumerate(x for x in messages if x.get("role") == "assistant")
            if isinstance(m["content"], list)
            for k, b in enumerate(m["content"])
            if b.get("type") in ("thinking", "redacted_thinking")
        ]

    assert assistants(after) == assistants(before), "an assistant message changed"
    assert thinking(after) == thinking(before), "a thinking block changed or moved"


# --- OpenAI Responses -----------------------------------------------------------------------

RESPONSES_OUTPUT = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "apply_patch_call": "apply_patch_call_output",
}


def responses_results_only(item: Any) -> bool:
    return item.get("type") in RESPONSES_OUTPUT.values()


@st.composite
def responses_history(draw: st.DrawFn, *, tidy: bool = False) -> History:
    """Turns of reasoning items, assistant messages and parallel function / custom tool /
    apply_patch calls (some with truncated ``arguments``); outputs for some calls after the
    turn; user messages (easy or typed) in between, or the next turn right away."""
    numbers = itertools.count(1)
    history = History()
    items = history.messages
    pending: list[tuple[int, str, str, str, bool]] = []

    def user() -> dict[str, Any]:
        if draw(st.booleans()):
            return {"role": "user", "content": draw(TEXT)}
        return {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": draw(TEXT)}],
        }

    items.append(user())
    turns = draw(st.integers(1, 4))
    for number in range(turns):
        last = number == turns - 1
        calls: list[tuple[int, str, str, str, bool]] = []
        for _ in range(draw(st.integers(1, 4))):
            if draw(st.booleans()):
                items.append(
                    {
                        "type": "reasoning",
                        "id": f"rs_{next(numbers)}",
                        "summary": [{"type": "summary_text", "text": draw(TEXT)}],
                        "encrypted_content": "gAAAA",
                    }
                )
            kind = draw(
                st.sampled_from(
                    [
                        "function_call",
                        "function_call",
                        "custom_tool_call",
                        "apply_patch_call",
                        "message",
                    ]
                )
            )
            n = next(numbers)
            call_id, name = f"call_{n}{draw(ODD)}", draw(st.sampled_from(NAMES))
            malformed = False
            if kind == "message":
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "id": f"msg_{n}",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": draw(TEXT), "annotations": []}],
                    }
                )
                continue
            if kind == "function_call":
                malformed = draw(st.integers(0, 4)) == 0
                arguments = '{"city": "Par' if malformed else json.dumps({"q": draw(TEXT)})
                items.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{n}",
                        "call_id": call_id,
                        "name": name,
                        "arguments": arguments,
                        "status": "completed",
                    }
                )
            elif kind == "custom_tool_call":
                items.append(
                    {
                        "type": "custom_tool_call",
                        "id": f"ctc_{n}",
                        "call_id": call_id,
                        "name": name,
                        "input": draw(TEXT),
                    }
                )
            else:
                name = None  # the item has no name: the tool is `unknown`, not the item type
                items.append(
                    {
                        "type": "apply_patch_call",
                        "id": f"apc_{n}",
                        "call_id": call_id,
                        "operation": {"type": "update_file", "path": "a.py", "diff": "@@"},
                        "status": "completed",
                    }
                )
            calls.append((len(items) - 1, kind, call_id, name, malformed))
        answered = calls if tidy else [c for c in calls if draw(st.booleans())]
        for _, kind, call_id, _, _ in draw(st.permutations(answered)):
            output: dict[str, Any] = {"type": RESPONSES_OUTPUT[kind], "call_id": call_id}
            if kind == "apply_patch_call":
                output["status"] = "completed"
            output["output"] = draw(TEXT)
            items.append(output)
        pending += [c for c in calls if c not in answered]
        follow = draw(st.sampled_from(["user", "next", *(["end"] if last else [])]))
        if follow == "user":
            items.append(user())
    for at, _, call_id, name, malformed in pending:
        code = "TP003" if malformed else responses_code(items, at)
        history.dangling.append(Dangling(call_id, name, code))
    return history


def responses_code(items: list[Any], at: int) -> str:
    """TP002 when only outputs follow the call's turn (the run of model items around it:
    reasoning, calls, assistant messages), else TP001."""
    end = at + 1
    while end < len(items) and (
        items[end].get("type") in (*RESPONSES_OUTPUT, "reasoning")
        or items[end].get("role") == "assistant"
    ):
        end += 1
    return "TP002" if all(responses_results_only(i) for i in items[end:]) else "TP001"


def responses_synthetic(item: Any) -> bool:
    return item.get("type") in RESPONSES_OUTPUT.values() and str(item.get("output")).startswith(
        "Tool call "
    )


def strip_responses(after: list[Any], before: list[Any]) -> tuple[list[Any], list[Any]]:
    inserted = split_inserted(after, before)
    for item in inserted:
        assert responses_synthetic(item), f"inserted an item that is not a synthetic output: {item}"
        wanted = ["type", "call_id", "output"]
        if item["type"] == "apply_patch_call_output":
            wanted = ["type", "call_id", "status", "output"]
            assert item["status"] == "failed", f"a synthetic apply_patch output fails: {item}"
        assert list(item) == wanted, item
    kinds = {i["call_id"]: i["type"] for i in before if i.get("type") in RESPONSES_OUTPUT}
    for item in inserted:
        assert item["type"] == RESPONSES_OUTPUT[kinds[item["call_id"]]], f"wrong output type {item}"
    return inserted, before


def responses_answer(item: Any) -> tuple[str | None, str | None, str]:
    return item["call_id"], None, item["output"]


def responses_untouched(before: list[Any], after: list[Any]) -> None:
    def reasoning_pairs(items: list[Any]) -> list[tuple[str, str]]:
        return [
            (canonical(item), canonical(items[k + 1]) if k + 1 < len(items) else "<end>")
            for k, item in enumerate(items)
            if item.get("type") == "reasoning"
        ]

    assert reasoning_pairs(after) == reasoning_pairs(before), (
        "a reasoning item changed, moved, or no longer precedes its item"
    )


# --- Gemini ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeminiSpelling:
    call: str
    response: str
    signature: str
    snake: bool


CAMEL = GeminiSpelling("functionCall", "functionResponse", "thoughtSignature", snake=False)
SNAKE = GeminiSpelling("function_call", "function_response", "thought_signature", snake=True)


def gemini_turn(spelling: GeminiSpelling, role: str, parts: list[Any]) -> dict[str, Any]:
    """A turn in the file's key order (SDK dumps write ``parts`` before ``role``)."""
    return {"parts": parts, "role": role} if spelling.snake else {"role": role, "parts": parts}


def gemini_results_only(content: Any) -> bool:
    """A turn of function responses only (text after them makes it a new message)."""
    parts = content.get("parts") or []
    return bool(parts) and all("functionResponse" in p or "function_response" in p for p in parts)


@st.composite
def gemini_history(draw: st.DrawFn, *, tidy: bool = False) -> History:
    """camelCase or snake_case; model turns with thought text and parallel calls (repeated
    names, with and without ids, a signature on the first call); response turns for some
    calls in any order; text-only user turns or the next model turn after a call turn."""
    spelling = draw(st.sampled_from([CAMEL, SNAKE]))
    numbers = itertools.count(1)
    history = History()
    contents = history.messages
    pending: list[tuple[int, str | None, str]] = []

    def user_text() -> dict[str, Any]:
        return gemini_turn(spelling, "user", [{"text": draw(TEXT)}])

    contents.append(user_text())
    turns = draw(st.integers(1, 4))
    for number in range(turns):
        last = number == turns - 1
        parts: list[dict[str, Any]] = []
        if draw(st.integers(0, 2)) == 0:
            parts.append({"text": draw(TEXT), "thought": True})
        if draw(st.booleans()):
            parts.append({"text": draw(TEXT)})
        calls: list[tuple[str | None, str]] = []
        for k in range(draw(st.integers(0, 3))):
            call_id = f"fc-{next(numbers)}{draw(ODD)}" if draw(st.booleans()) else None
            name = draw(st.sampled_from(NAMES))
            payload: dict[str, Any] = {} if call_id is None else {"id": call_id}
            payload |= {"name": name, "args": {"q": draw(TEXT)}}
            part: dict[str, Any] = {spelling.call: payload}
            if k == 0 and draw(st.booleans()):
                part[spelling.signature] = f"CiQB{next(numbers)}x=="
            parts.append(part)
            calls.append((call_id, name))
        if not parts:
            parts.append({"text": draw(TEXT)})
        with_id = {n for i, n in calls if i is not None}
        history.loose |= any(i is None and n in with_id for i, n in calls)
        contents.append(gemini_turn(spelling, "model", parts))
        at = len(contents) - 1
        if not calls:
            if not last or draw(st.booleans()):
                contents.append(user_text())  # a model turn is followed by a user turn
            continue
        flags = [True] * len(calls) if tidy else [draw(st.booleans()) for _ in calls]
        answered = [c for c, f in zip(calls, flags, strict=True) if f]
        pending += [(at, *c) for c, f in zip(calls, flags, strict=True) if not f]
        if answered:
            responses = []
            for call_id, name in draw(st.permutations(answered)):
                payload = {} if call_id is None else {"id": call_id}
                key = draw(st.sampled_from(["output", "output", "error"]))
                payload |= {"name": name, "response": {key: draw(TEXT)}}
                responses.append({spelling.response: payload})
            if draw(st.integers(0, 3)) == 0:
                responses.append({"text": draw(TEXT)})  # text after the responses
            contents.append(gemini_turn(spelling, "user", responses))
        follow = draw(st.sampled_from(["user", "model", *(["end"] if last else [])]))
        if follow == "user":
            contents.append(user_text())
    for at, call_id, name in pending:
        history.dangling.append(
            Dangling(call_id, name, code_for(contents, at, gemini_results_only))
        )
    return history


def gemini_response_payload(part: Any) -> Any:
    return part.get("functionResponse", part.get("function_response"))


def gemini_synthetic(part: Any) -> bool:
    payload = gemini_response_payload(part)
    response = payload.get("response") if isinstance(payload, dict) else None
    return isinstance(response, dict) and str(response.get("error")).startswith("Tool call ")


def strip_gemini(after: list[Any], before: list[Any]) -> tuple[list[Any], list[Any]]:
    snake = any("function_call" in p for c in before for p in c["parts"])
    synthetic, left = strip_blocks(
        after,
        before,
        "parts",
        gemini_synthetic,
        new_turn_keys=lambda m: ["parts", "role"] if snake else ["role", "parts"],
    )
    for part in synthetic:
        assert list(part) == ["function_response" if snake else "functionResponse"], (
            f"a synthetic part must use the file's spelling: {part}"
        )
        payload = gemini_response_payload(part)
        assert list(payload) in (["id", "name", "response"], ["name", "response"]), payload
        assert list(payload["response"]) == ["error"], payload
    return synthetic, left


def gemini_answer(part: Any) -> tuple[str | None, str | None, str]:
    payload = gemini_response_payload(part)
    return payload.get("id"), payload["name"], payload["response"]["error"]


def gemini_untouched(before: list[Any], after: list[Any]) -> None:
    def model_turns(contents: list[Any]) -> list[str]:
        return [canonical(c) for c in contents if c.get("role") == "model"]

    def signatures(contents: list[Any]) -> list[tuple[int, int, str]]:
        return [
            (n, k, part.get("thoughtSignature", part.get("thought_signature")))
            for n, c in enumerate(x for x in contents if x.get("role") == "model")
            for k, part in enumerate(c["parts"])
            if "thoughtSignature" in part or "thought_signature" in part
        ]

    assert model_turns(after) == model_turns(before), "a model turn changed"
    assert signatures(after) == signatures(before), "a thoughtSignature was added, dropped or moved"


# --- Bedrock --------------------------------------------------------------------------------


def bedrock_results_only(message: Any) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, list)
        and bool(content)
        and all("toolResult" in b for b in content)
    )


@st.composite
def bedrock_history(draw: st.DrawFn, *, tidy: bool = False) -> History:
    """Assistant turns with reasoning, text and parallel ``toolUse``; results for some calls
    (text or json content, with or without status) and text after them; a user text message or
    the end of the history after unanswered calls."""
    numbers = itertools.count(1)
    history = History()
    messages = history.messages
    pending: list[tuple[int, str, str]] = []

    def user_text() -> dict[str, Any]:
        return {"role": "user", "content": [{"text": draw(TEXT)}]}

    messages.append(user_text())
    turns = draw(st.integers(1, 4))
    for number in range(turns):
        last = number == turns - 1
        content: list[dict[str, Any]] = []
        if draw(st.integers(0, 2)) == 0:
            text = {"text": draw(TEXT), "signature": f"sig{next(numbers)}"}
            content.append({"reasoningContent": {"reasoningText": text}})
        if draw(st.booleans()):
            content.append({"text": draw(TEXT)})
        calls = [
            (
                f"tooluse_{next(numbers)}{draw(st.sampled_from(['', '.a', ':0', '-x']))}",
                draw(st.sampled_from(NAMES)),
            )
            for _ in range(draw(st.integers(0, 3)))
        ]
        content += [
            {"toolUse": {"toolUseId": i, "name": n, "input": {"q": draw(TEXT)}}} for i, n in calls
        ]
        if not content:
            content.append({"text": draw(TEXT)})
        messages.append({"role": "assistant", "content": content})
        at = len(messages) - 1
        answered = calls if tidy else [c for c in calls if draw(st.booleans())]
        pending += [(at, i, n) for i, n in calls if (i, n) not in answered]
        if answered:
            results: list[dict[str, Any]] = []
            for call_id, _ in draw(st.permutations(answered)):
                body = (
                    [{"text": draw(TEXT)}] if draw(st.booleans()) else [{"json": {"t": draw(TEXT)}}]
                )
                result: dict[str, Any] = {"toolUseId": call_id, "content": body}
                status = draw(st.sampled_from([None, "success", "error"]))
                if status is not None:
                    result["status"] = status
                results.append({"toolResult": result})
            if draw(st.booleans()):
                results.append({"text": draw(TEXT)})
            messages.append({"role": "user", "content": results})
        elif not last or draw(st.booleans()):
            messages.append(user_text())  # Converse alternates roles: a user reply, or the end
    for at, call_id, name in pending:
        history.dangling.append(
            Dangling(call_id, name, code_for(messages, at, bedrock_results_only))
        )
    return history


def bedrock_synthetic(block: Any) -> bool:
    result = block.get("toolResult")
    content = result.get("content") if isinstance(result, dict) else None
    return (
        isinstance(content, list)
        and len(content) == 1
        and str(content[0].get("text")).startswith("Tool call ")
    )


def strip_bedrock(after: list[Any], before: list[Any]) -> tuple[list[Any], list[Any]]:
    synthetic, left = strip_blocks(
        after, before, "content", bedrock_synthetic, new_turn_keys=lambda m: ["role", "content"]
    )
    for block in synthetic:
        result = block["toolResult"]
        assert list(block) == ["toolResult"], block
        assert list(result) == ["toolUseId", "content", "status"], block
        assert list(result["content"][0]) == ["text"], block
        assert result["status"] == "error", f"a synthetic toolResult is an error: {block}"
    return synthetic, left


def bedrock_answer(block: Any) -> tuple[str | None, str | None, str]:
    result = block["toolResult"]
    return result["toolUseId"], None, result["content"][0]["text"]


def bedrock_untouched(before: list[Any], after: list[Any]) -> None:
    def assistants(messages: list[Any]) -> list[str]:
        return [canonical(m) for m in messages if m.get("role") == "assistant"]

    assert assistants(after) == assistants(before), "an assistant message changed"


# --- the containers and the shared properties ----------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What the shared property check needs to know about a dialect.

    Attributes:
        strip: ``(after, before) -> (synthetic results, after without them)``; also asserts
            their exact shape.
        answer: ``(id, name or None, text)`` of a synthetic result.
        untouched: Asserts that thinking / signatures / reasoning did not change or move.
        input_rules: The validator rules an input with dangling calls may break (all of them
            consequences of a missing result).
    """

    dialect: str
    history: Callable[..., st.SearchStrategy[History]]
    key: str
    body: Callable[[list[Any]], dict[str, Any]]
    strip: Callable[[list[Any], list[Any]], tuple[list[Any], list[Any]]]
    answer: Callable[[Any], tuple[str | None, str | None, str]]
    untouched: Callable[[list[Any], list[Any]], None]
    input_rules: frozenset[str]


SPECS = {
    "anthropic": Spec(
        "anthropic",
        anthropic_history,
        "messages",
        lambda messages: {
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "system": "Be brief.",
            "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
            "messages": messages,
        },
        strip_anthropic,
        anthropic_answer,
        anthropic_untouched,
        frozenset({"unanswered", "not-first"}),
    ),
    "openai-responses": Spec(
        "openai-responses",
        responses_history,
        "input",
        lambda items: {
            "model": "gpt-5",
            "input": items,
            "tools": [{"type": "function", "name": "get_weather", "parameters": {}}],
            "store": False,
        },
        strip_responses,
        responses_answer,
        responses_untouched,
        frozenset({"unanswered"}),
    ),
    "gemini": Spec(
        "gemini",
        gemini_history,
        "contents",
        lambda contents: {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": contents,
            "generationConfig": {"temperature": 0},
        },
        strip_gemini,
        gemini_answer,
        gemini_untouched,
        frozenset({"count", "call-place"}),
    ),
    "bedrock": Spec(
        "bedrock",
        bedrock_history,
        "messages",
        lambda messages: {
            "modelId": "anthropic.claude-3-5-sonnet",
            "system": [{"text": "Be brief."}],
            "messages": messages,
            "inferenceConfig": {"maxTokens": 512},
        },
        strip_bedrock,
        bedrock_answer,
        bedrock_untouched,
        frozenset({"unanswered"}),
    ),
}


@st.composite
def cases(draw: st.DrawFn, spec: Spec, *, tidy: bool = False) -> Case:
    container = draw(
        st.sampled_from(["list", "body", "list-of-bodies", "jsonl-bodies", "jsonl-messages"])
    )
    count = draw(st.integers(1, 3)) if container in ("jsonl-bodies", "list-of-bodies") else 1
    histories = tuple(draw(spec.history(tidy=tidy)) for _ in range(count))
    ascii_only = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    if container in ("list", "body", "list-of-bodies"):
        value: Any = histories[0].messages
        if container == "body":
            value = spec.body(value)
        elif container == "list-of-bodies":
            value = [spec.body(h.messages) for h in histories]
        layout = draw(st.sampled_from(["one-line", "compact", "pretty"]))
        if layout == "pretty":
            indent = draw(st.sampled_from([2, 4, "\t"]))
            text = json.dumps(value, indent=indent, ensure_ascii=ascii_only) + "\n"
            text = text.replace("\n", newline)
        elif layout == "compact":
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)
        else:
            text = json.dumps(value, ensure_ascii=ascii_only)
        return Case(spec.dialect, histories, container, spec.key, text.encode(), "history.json")
    separators = draw(st.sampled_from([(", ", ": "), (",", ":")]))
    if container == "jsonl-messages":
        records: list[Any] = list(histories[0].messages)
    else:
        records = [spec.body(h.messages) for h in histories]
    lines = [json.dumps(r, separators=separators, ensure_ascii=ascii_only) for r in records]
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return Case(spec.dialect, histories, container, spec.key, text.encode(), "history.jsonl")


def plain_strings(messages: list[Any]) -> list[Any]:
    """Anthropic ``messages`` with each content of one text block written as its string."""
    return [
        {**m, "content": m["content"][0]["text"]}
        if isinstance(m, dict)
        and isinstance(m.get("content"), list)
        and len(m["content"]) == 1
        and m["content"][0] == {"type": "text", "text": m["content"][0].get("text")}
        and isinstance(m["content"][0]["text"], str)
        else m
        for m in messages
    ]


def check_repair(case: Case, spec: Spec) -> None:
    """Every property of (c), on one generated document."""
    dangling = [d for h in case.histories for d in h.dangling]
    for history in case.histories:
        before = validate(case.dialect, history.messages)
        assert {v.rule for v in before} <= spec.input_rules, (
            f"the generator made a defect TP0xx does not repair:\n{show(before)}\n{case.describe()}"
        )
        assert bool(before) == bool(history.dangling), (
            f"validator and generator disagree on the input:\n{show(before)}\n{case.describe()}"
        )

    event(f"container: {case.container}")
    event(f"unanswered calls: {min(len(dangling), 3)}{'+' if len(dangling) > 2 else ''}")
    for code in sorted({d.code for d in dangling}):
        event(f"rule: {code}")
    report = patchcore.fix_document(case.data, filename=case.filename)
    if not dangling:
        assert report.output is None, f"rewrote a clean {case.describe()}"
        assert not report.findings, f"findings {report.findings} on a clean {case.describe()}"
        return
    assert report.output is not None, f"nothing fixed in {case.describe()}"
    output = report.output
    after_lists = case.lists(output)
    assert len(after_lists) == len(case.histories), "the number of message lists changed"

    synthetic: list[Any] = []
    for history, after in zip(case.histories, after_lists, strict=True):
        violations = validate(case.dialect, after)
        assert not violations, (
            f"the repair breaks {case.dialect}'s rules:\n{show(violations)}\n"
            f"input: {case.describe()}\noutput:\n{output.decode()}"
        )
        found, left = spec.strip(after, history.messages)
        assert canonical(left) == canonical(history.messages), (
            f"removing the synthetic results does not give back the input:\n{case.describe()}\n"
            f"output:\n{output.decode()}"
        )
        spec.untouched(history.messages, after)
        answered = Counter(spec.answer(block)[1 if history.loose else 0] for block in found)
        wanted = Counter(d.name if history.loose else d.id for d in history.dangling)
        assert answered == wanted, (
            f"synthetic results for {sorted(answered.elements(), key=str)}, unanswered calls "
            f"{sorted(wanted.elements(), key=str)} in {case.describe()}"
        )
        synthetic += found

    assert len(synthetic) == len(report.fixed) == len(report.findings) == len(dangling), (
        f"{len(synthetic)} synthetic results, {len(report.fixed)} fixed findings, "
        f"{len(report.findings)} findings, {len(dangling)} unanswered calls in {case.describe()}"
    )
    assert {f.dialect for f in report.findings} == {case.dialect}
    loose = any(h.loose for h in case.histories)
    assert Counter((f.code, None if loose else f.call_id, f.tool_name) for f in report.fixed) == (
        Counter((d.code, None if loose else d.id, d.name) for d in dangling)
    ), f"findings {[(f.code, f.call_id) for f in report.fixed]} in {case.describe()}"
    texts = Counter(spec.answer(block)[2] for block in synthetic)
    assert texts == Counter(expected_text(f.code, f.tool_name, f.call_id) for f in report.fixed), (
        f"synthetic texts {texts} in {case.describe()}"
    )
    again = patchcore.fix_document(output, filename=case.filename)
    assert again.output is None, f"a second fix changed {output.decode()}"
    stripped = patchcore.strip_document(output, filename=case.filename)
    assert stripped.output is not None
    if stripped.output != case.data:
        # A turn of one text block that got results reads as toolpatch's rewrite of a plain
        # string turn, which strip gives back as the string (docs/cli.md#strip): the same value.
        assert case.dialect == "anthropic", "toolpatch strip does not give back the input"
        assert [plain_strings(h) for h in case.lists(stripped.output)] == [
            plain_strings(h.messages) for h in case.histories
        ]
    after_check = patchcore.check_document(output, filename=case.filename)
    assert not after_check.findings, f"check after fix finds {after_check.findings}"


@PROPERTY
@given(cases(SPECS["anthropic"]))
def test_anthropic_repairs_pass_the_provider_rules(case: Case) -> None:
    check_repair(case, SPECS["anthropic"])


@PROPERTY
@given(cases(SPECS["openai-responses"]))
def test_responses_repairs_pass_the_provider_rules(case: Case) -> None:
    check_repair(case, SPECS["openai-responses"])


@PROPERTY
@given(cases(SPECS["gemini"]))
def test_gemini_repairs_pass_the_provider_rules(case: Case) -> None:
    check_repair(case, SPECS["gemini"])


@PROPERTY
@given(cases(SPECS["bedrock"]))
def test_bedrock_repairs_pass_the_provider_rules(case: Case) -> None:
    check_repair(case, SPECS["bedrock"])


@settings(PROPERTY, max_examples=200)
@given(st.sampled_from(sorted(SPECS)).flatmap(lambda d: cases(SPECS[d], tidy=True)))
def test_answered_histories_pass_and_are_left_alone(case: Case) -> None:
    """The generators' tidy histories (every call answered) pass the validator as they are,
    and toolpatch leaves them alone: validator and toolpatch agree on clean input."""
    assert not any(h.dangling for h in case.histories)
    check_repair(case, SPECS[case.dialect])


# The drop repair policy (docs/pairing.md#repair-policies) on the same generated histories.
DROP = patchcore.make_options(repair="drop", unsafe_fixes=True)


def check_drop(case: Case) -> None:
    """After the drop repair: each unanswered call is dropped or, where the provider's order of
    turns forbids it, left with a finding that says so; the validator passes on every list whose
    drops all happened; no list gains a message; a second run changes nothing and ``check``
    finds only the calls left."""
    dangling = [d for h in case.histories for d in h.dangling]
    report = patchcore.fix_document(case.data, filename=case.filename, options=DROP)
    if not dangling:
        assert report.output is None, f"rewrote a clean {case.describe()}"
        return
    assert len(report.findings) == len(dangling), f"{report.findings} in {case.describe()}"
    assert all(
        f.fix is not None and f.fix.description == "drop the unanswered call" for f in report.fixed
    )
    refused = [f for f in report.findings if f.fix is None]
    assert all("in an order the provider rejects" in f.message for f in refused)
    event(f"drops refused: {bool(refused)}")
    if not report.fixed:
        assert report.output is None
        return
    assert report.output is not None, f"nothing dropped in {case.describe()}"
    after_lists = case.lists(report.output)
    assert len(after_lists) == len(case.histories), "the number of message lists changed"
    for history, after in zip(case.histories, after_lists, strict=True):
        violations = validate(case.dialect, after) if not refused else []
        assert not violations, (
            f"the drop breaks {case.dialect}'s rules:\n{show(violations)}\n"
            f"input: {case.describe()}\noutput:\n{report.output.decode()}"
        )
        assert len(after) <= len(history.messages)
    again = patchcore.fix_document(report.output, filename=case.filename, options=DROP)
    assert again.output is None, f"a second drop changed {report.output.decode()}"
    left = patchcore.check_document(report.output, filename=case.filename).findings
    assert len(left) == len(refused)


@PROPERTY
@given(st.sampled_from(sorted(SPECS)).flatmap(lambda d: cases(SPECS[d])))
def test_drop_repairs_pass_the_provider_rules(case: Case) -> None:
    check_drop(case)


# =============================================================================================
# a Responses reasoning item is never separated from the item it precedes
# =============================================================================================

SERVER_ITEMS = [
    {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
    {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["q"]},
    {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": None},
    {"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "code": "1+1"},
    {"type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "find", "arguments": "{}"},
]


def reasoning_then(server_item: dict[str, Any]) -> list[dict[str, Any]]:
    """A function call, then a reasoning item and the server-side call it precedes, then the
    user moves on."""
    return [
        {"role": "user", "content": "Check my calendar and the news."},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "calendar", "arguments": "{}"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
        server_item,
        {"role": "user", "content": "Go on."},
    ]


@pytest.mark.parametrize("server_item", SERVER_ITEMS, ids=lambda item: item["type"])
def test_a_synthetic_output_never_separates_a_reasoning_item(server_item: dict[str, Any]) -> None:
    messages = reasoning_then(server_item)
    repaired = patchcore.fix_messages(messages).value
    assert [item.get("type") for item in repaired[3:6]] == [
        "reasoning",
        server_item["type"],
        "function_call_output",
    ]
    assert validate("openai-responses", repaired) == []


@pytest.mark.parametrize("server_item", SERVER_ITEMS, ids=lambda item: item["type"])
def test_an_output_that_separates_a_reasoning_item_is_moved_after_its_item(
    server_item: dict[str, Any],
) -> None:
    """An output already between the reasoning item and its item (as an older repair wrote
    it) is misplaced: the unsafe fix moves it after the turn, never between the two again."""
    messages = reasoning_then(server_item)
    output = {"type": "function_call_output", "call_id": "c1", "output": "free"}
    messages.insert(4, output)
    assert [v.rule for v in validate("openai-responses", messages)] == ["reasoning-alone"]
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    (finding,) = patchcore.check_messages(messages, options=options)
    assert (finding.code, finding.call_id) == ("TP102", "c1")
    assert finding.provider_error == (
        "Item 'rs_2' of type 'reasoning' was provided without its required following item"
    )
    repaired = patchcore.fix_messages(messages, options=options).value
    assert repaired == [*messages[:4], server_item, output, messages[-1]]
    assert validate("openai-responses", repaired) == []
