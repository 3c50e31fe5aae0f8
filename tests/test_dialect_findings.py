"""What each dialect's findings say: the tool's name, why a finding has no fix, and the provider
error it quotes.

A finding is read by people deciding what to do with a history, so it must not mislead: the
name of a call is the tool's name or ``unknown`` (DESIGN.md), never the item type that carries
it; a finding without a fix says why; a quoted provider error names the block the provider
actually wants.
"""

from __future__ import annotations

from typing import Any

import pytest

import patchcore
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
