"""Calls and results without ids pair by name and order within their turn, and no fix drops a
result a call could own (docs/pairing.md#calls-and-results-without-ids).

The peer cases are deer-flow's (its ``DanglingToolCallMiddleware`` tests of calls and results
without ids), written as OpenAI Chat and LangChain histories: where deer-flow pairs a result with
a call, toolpatch pairs the same two (and TP105's unsafe fix gives both one id); where deer-flow
drops a result, toolpatch drops it only when no call could own it, and keeps it otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest

import patchcore
from tests.builders import openai_assistant, openai_call
from tests.provider_rules import validate

#: Everything reported, every unsafe fix applied.
ALL_UNSAFE = patchcore.make_options(select=["ALL"], unsafe_fixes=True)

Call = tuple[str | None, str | None]  # id, tool name


@dataclass(frozen=True)
class Turn:
    """An assistant message's calls."""

    calls: tuple[Call, ...]


class Answer(NamedTuple):
    """A tool message: the id it answers, its tool name and its content."""

    id: str | None
    name: str | None
    content: str


@dataclass(frozen=True)
class Said:
    """A user message."""

    text: str


@dataclass(frozen=True)
class Peer:
    """A history, and what deer-flow makes of it.

    Attributes:
        history: The messages.
        pairs: For each result deer-flow pairs: its content and the (message, call) it answers.
        dropped: The contents deer-flow drops as answering no call.
        owned: Of those, the ones a call could own: toolpatch keeps them.
    """

    history: tuple[Turn | Answer | Said, ...]
    pairs: dict[str, tuple[int, int]] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    owned: tuple[str, ...] = ()


PEERS = {
    "an empty id keeps its paired result": Peer(
        (Turn((("", "bash"),)), Answer("", "bash", "REAL RESULT")),
        pairs={"REAL RESULT": (0, 0)},
    ),
    "several empty ids pair in order": Peer(
        (Turn((("", "bash"), ("", "ls"))), Answer("", "bash", "first"), Answer("", "ls", "second")),
        pairs={"first": (0, 0), "second": (0, 1)},
    ),
    "a null id call reclaims its null id result": Peer(
        (Turn(((None, "bash"),)), Answer(None, None, "REAL RESULT")),
        pairs={"REAL RESULT": (0, 0)},
    ),
    "a dangling call does not take a later turn's result": Peer(
        (Turn((("", "bash"),)), Turn((("", "bash"),)), Answer("", "bash", "REAL RESULT")),
        pairs={"REAL RESULT": (1, 0)},
    ),
    "an orphan is not adopted by a later call": Peer(
        (Answer("", "search", "STALE ORPHAN"), Said("continue"), Turn((("", "write_file"),))),
        dropped=("STALE ORPHAN",),
    ),
    "a sibling does not take its neighbour's result": Peer(
        (Turn((("", "search"), ("", "write_file"))), Answer("", "write_file", "REAL RESULT")),
        pairs={"REAL RESULT": (0, 1)},
    ),
    "a nameless result with several siblings that fit": Peer(
        (Turn((("", "search"), ("", "write_file"))), Answer("", None, "REAL RESULT")),
        dropped=("REAL RESULT",),
        owned=("REAL RESULT",),
    ),
    "identical parallel calls pair with their results in order": Peer(
        (Turn((("", "bash"), ("", "bash"))), Answer("", "bash", "A"), Answer("", "bash", "B")),
        pairs={"A": (0, 0), "B": (0, 1)},
    ),
    "identical parallel calls and one result": Peer(
        (Turn((("", "bash"), ("", "bash"))), Answer("", "bash", "LONE RESULT")),
        dropped=("LONE RESULT",),
        owned=("LONE RESULT",),
    ),
    "a result naming no call": Peer(
        (Turn((("", "search"), ("", "write_file"))), Answer("", "grep", "RESULT OF NEITHER")),
        dropped=("RESULT OF NEITHER",),
    ),
}


def openai_chat(history: tuple[Turn | Answer | Said, ...]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for item in history:
        if isinstance(item, Turn):
            messages.append(openai_assistant(*(openai_call(i, n) for i, n in item.calls)))
        elif isinstance(item, Answer):
            answer = {"role": "tool", "tool_call_id": item.id, "content": item.content}
            messages.append(answer | ({"name": item.name} if item.name is not None else {}))
        else:
            messages.append({"role": "user", "content": item.text})
    return messages


def langchain(history: tuple[Turn | Answer | Said, ...]) -> list[dict[str, Any]]:
    """``messages_to_dict`` entries, as deer-flow's own tests build their messages."""
    messages: list[dict[str, Any]] = [{"type": "human", "data": {"content": "go"}}]
    for item in history:
        if isinstance(item, Turn):
            calls = [{"name": n, "args": {}, "id": i, "type": "tool_call"} for i, n in item.calls]
            messages.append({"type": "ai", "data": {"content": "", "tool_calls": calls}})
        elif isinstance(item, Answer):
            data = {"content": item.content, "tool_call_id": item.id, "name": item.name}
            messages.append({"type": "tool", "data": data})
        else:
            messages.append({"type": "human", "data": {"content": item.text}})
    return messages


def call_ids(message: dict[str, Any]) -> list[str | None]:
    body = message.get("data", message)
    return [call["id"] for call in body.get("tool_calls") or ()]


def answered(message: dict[str, Any]) -> tuple[str | None, Any] | None:
    """A tool message's id and content."""
    body = message.get("data", message)
    if message.get("role") == "tool" or message.get("type") == "tool":
        return body.get("tool_call_id"), body["content"]
    return None


SHAPES = {"openai-chat": openai_chat, "langchain": langchain}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("case", sorted(PEERS))
def test_peer_cases_give_deer_flows_result_or_keep_both(case: str, shape: str) -> None:
    peer = PEERS[case]
    before = SHAPES[shape](peer.history)
    data = json.dumps(before)
    result = patchcore.fix_document(data, options=ALL_UNSAFE)
    after = json.loads(result.output) if result.output is not None else before
    results = {answer[1]: answer[0] for m in after if (answer := answered(m)) is not None}
    for content, (turn, k) in peer.pairs.items():  # each message is one later (the question)
        given = call_ids(after[turn + 1])[k]
        assert given and results[content] == given, (content, after)
    assert len({results[c] for c in peer.pairs}) == len(peer.pairs), "each pair has its own id"
    for content in peer.dropped:
        assert (content in results) == (content in peer.owned), (content, after)
    orphans = [f for f in result.findings if f.code == "TP101"]
    assert [f.fix is None for f in orphans] == [c in peer.owned for c in peer.dropped]
    again = patchcore.fix_document(data, options=ALL_UNSAFE)
    assert again.output == result.output, "the ids are derived from the input"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_keyless_pair_is_not_refused_after_the_fix(shape: str) -> None:
    """The issue's case: a call with an empty id and its result right after it. TP101 does not
    drop the result; TP105's fix gives both one id, and nothing is left to report."""
    before = SHAPES[shape](PEERS["an empty id keeps its paired result"].history)
    checked = patchcore.check_document(json.dumps(before), options=ALL_UNSAFE)
    assert [(f.code, f.fix is not None) for f in checked.findings] == [("TP105", True)]
    fixed = patchcore.fix_document(json.dumps(before), options=ALL_UNSAFE)
    assert fixed.output is not None
    after = json.loads(fixed.output)
    assert patchcore.check_document(fixed.output, options=ALL_UNSAFE).findings == ()
    assert validate(shape, after) == []
    assert answered(after[2]) == (call_ids(after[1])[0], "REAL RESULT")


def test_a_call_without_a_result_gets_no_id() -> None:
    """Its result would have to be made up for an id made up too: TP105 has no fix there."""
    before = openai_chat((Turn((("", "bash"),)), Said("next")))
    checked = patchcore.check_document(json.dumps(before), options=ALL_UNSAFE)
    assert [(f.code, f.fix) for f in checked.findings] == [("TP105", None)]


#: A call without an id and its result without one, in the other dialects whose results name
#: their call by id (OpenAI Chat, LangChain and Anthropic are above and in samples/strict/).
KEYLESS_PAIRS: dict[str, tuple[Any, Callable[[Any], list[Any]]]] = {
    "openai-responses": (
        {
            "input": [
                {"role": "user", "content": "time?"},
                {"type": "function_call", "call_id": "", "name": "get_time", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "", "output": "14:05"},
            ]
        },
        lambda value: value["input"],
    ),
    "bedrock": (
        {
            "messages": [
                {"role": "user", "content": [{"text": "time?"}]},
                {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "", "name": "get_time", "input": {}}}],
                },
                {
                    "role": "user",
                    "content": [{"toolResult": {"toolUseId": "", "content": [{"text": "14:05"}]}}],
                },
            ]
        },
        lambda value: value["messages"],
    ),
    "pydantic-ai": (
        [
            {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "time?"}]},
            {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "get_time"}]},
            {
                "kind": "request",
                "parts": [
                    {"part_kind": "tool-return", "tool_name": "get_time", "content": "14:05"}
                ],
            },
        ],
        lambda value: value,
    ),
}


@pytest.mark.parametrize("dialect", sorted(KEYLESS_PAIRS))
def test_every_dialect_with_ids_gives_the_pair_one_id(dialect: str) -> None:
    """The ids are written where each format keeps them (``ToolCall.id_at``, ``ToolResult.id_at``,
    a member added where the call or result has none): the provider then takes the history."""
    value, history = KEYLESS_PAIRS[dialect]
    data = json.dumps(value)
    checked = patchcore.check_document(data, options=ALL_UNSAFE)
    assert [(f.code, f.fix is not None) for f in checked.findings] == [("TP105", True)]
    fixed = patchcore.fix_document(data, options=ALL_UNSAFE)
    assert fixed.output is not None
    assert patchcore.check_document(fixed.output, options=ALL_UNSAFE).findings == ()
    assert validate(dialect, history(json.loads(fixed.output))) == []
    assert fixed.output.count(b"-") == data.count("-") + 2 * 4, "one UUID, written twice"
