"""Anthropic Messages: ``tool_use`` blocks answered by ``tool_result`` blocks in the next user turn.

* Client calls are ``tool_use`` blocks of an assistant message, matched on ``id`` by the
  ``tool_use_id`` of ``tool_result`` blocks in the next user message.
* Server tools (``server_tool_use``, MCP ``mcp_tool_use``) are answered inside the same
  assistant message by a ``*_tool_result`` block; an unanswered one is reported, never answered
  with a made-up result.
* A synthetic result is ``{"type": "tool_result", "tool_use_id", "content", "is_error": true}``,
  placed in the next user message after its existing results and before anything else, or in
  a new user message when the next message is not a user message. ``thinking`` and
  ``redacted_thinking`` blocks (and their signatures) are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from patchcore.chat_names import ANTHROPIC_BLOCKS as BLOCK_TYPES
from patchcore.chat_names import ANTHROPIC_MARKERS as MARKERS
from patchcore.chat_names import ANTHROPIC_SERVER_CALLS as SERVER_CALLS
from patchcore.chat_names import tag
from patchcore.dialects.base import (
    SERVER_EXECUTED,
    BlockDialect,
    Recognition,
    call_id,
    entry,
    idless_result,
    optional_name,
    server_call,
)
from patchcore.model import Defect, MessageView, Pointer, Role, ToolCall, ToolResult

ROLES = frozenset({"user", "assistant", "system"})
#: Server tools whose result block is not named after the tool
#: (docs/formats.md#anthropic-server-tools).
SHARED_RESULTS = {
    "tool_search_tool_regex": "tool_search_tool_result",
    "tool_search_tool_bm25": "tool_search_tool_result",
}


def server_tool_error(name: str | None, ident: str | None, *, mcp: bool) -> str | None:
    """Anthropic's error for a server-executed call sent without its result block, or ``None``
    for a call without a name (no error can be quoted for it).

    The block that must answer it is ``mcp_tool_result`` for an MCP call, whatever tool it
    names; for a server tool it is named after the tool (``web_search_tool_result``,
    ``advisor_tool_result``), except for the tool-search tools, which share one.
    """
    if name is None:
        return None
    result = "mcp_tool_result" if mcp else SHARED_RESULTS.get(name, f"{name}_tool_result")
    return f"`{name}` tool use with id `{ident}` was found without a corresponding `{result}` block"


def is_block(block: object) -> bool:
    """Whether ``block`` is an Anthropic content block."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    return isinstance(kind, str) and (kind in BLOCK_TYPES or kind.endswith("_tool_result"))


def is_result(block: Any) -> bool:
    """Whether ``block`` is a client or server tool result."""
    kind = block.get("type") if isinstance(block, dict) else None
    return isinstance(kind, str) and kind.endswith("tool_result")


class Anthropic(BlockDialect):
    """Anthropic Messages API ``messages``."""

    name = "anthropic"
    role_keys = ("role", "type")
    argument_keys = ("input",)
    title = "Anthropic Messages"
    recognised_by = (
        "`role` user/assistant with `content` a string or a list of typed blocks (`text`, "
        "`tool_use`, `tool_result`, `thinking`, `server_tool_use`, `*_tool_result`, ...); no "
        '`tool_calls`, no `role: "tool"`'
    )
    containers = (
        "a list; `messages` of a request body (beside `system`, `model`, `tools`); JSONL of "
        "request bodies; a stored response (one assistant message)"
    )
    provider_errors: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(
            ("TP001", "TP002", "TP003"),
            "messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            "immediately after: {id}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message.",
        ),
        **dict.fromkeys(
            ("TP101", "TP102"),
            "messages.{index}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
            "message.",
        ),
        "TP103": "each tool_use must have a single result. Found multiple tool_result blocks "
        "with id: {id}",
        "TP104": "messages.{index}: `tool_use` ids must be unique",
        "TP105": "messages.{index}.content: tool_use.id: Field required",
        "TP106": "messages.{index}: Did not find 1 `tool_result` block(s) at the beginning of "
        "this message. Messages following `tool_use` blocks must begin with a matching number "
        "of `tool_result` blocks.",
    }
    blocks_key = "content"
    results_first = True

    def provider_error(self, defect: Defect) -> str | None:
        """The errors about results speak of ``tool_result`` blocks; what Anthropic says of a
        server tool's stray or second result block is not known, so none is quoted. A server
        tool's call left without its result has Anthropic's own error."""
        if defect.result is not None and defect.result.kind != "tool_result":
            return None
        call = server_call(defect)
        if call is not None:
            return server_tool_error(call.name, call.id, mcp=call.kind == "mcp_tool_use")
        return super().provider_error(defect)

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        if "tool_calls" in message:
            return Recognition.NO
        content = message.get("content")
        if isinstance(content, str):
            return Recognition.COMPATIBLE
        if not isinstance(content, list) or not all(is_block(b) for b in content):
            return Recognition.NO
        if any(b["type"] in MARKERS or b["type"].endswith("_tool_result") for b in content):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        content = message.get("content")
        if not isinstance(content, list):
            return MessageView(Role.OTHER)
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        inner: list[ToolResult] = []
        for k, block in enumerate(content):
            kind = tag(block, "type")  # a session's entries are read without recognition
            if kind == "tool_use" or kind in SERVER_CALLS:
                fields = entry(block, (*pointer, "content", k))
                calls.append(
                    ToolCall(
                        id=call_id(fields.get("id"), (*pointer, "content", k, "id")),
                        name=optional_name(fields.get("name")),
                        path=("content", k),
                        unanswerable=None if kind == "tool_use" else SERVER_EXECUTED,
                        kind=kind,
                        id_at=("content", k, "id"),
                    )
                )
            elif is_result(block):
                answered = call_id(block.get("tool_use_id"), (*pointer, "content", k))
                at = ("content", k, "tool_use_id")
                result = idless_result(answered, pointer, ("content", k), id_at=at, kind=kind)
                (inner if calls else results).append(result)
        if message.get("role") == "assistant":
            return MessageView(Role.CALLER, tuple(calls), tuple(results), tuple(inner))
        only_results = bool(content) and all(is_result(b) for b in content)
        role = Role.RESULTS if only_results else Role.OTHER
        return MessageView(role, tuple(calls), tuple(results), tuple(inner))

    def is_reasoning(self, block: Any) -> bool:
        return tag(block, "type") in ("thinking", "redacted_thinking")

    def takes_results(self, message: Any) -> bool:
        return message.get("role") == "user" and isinstance(message.get("content"), (str, list))

    def is_result_block(self, block: Any) -> bool:
        return isinstance(block, dict) and block.get("type") == "tool_result"

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": call.id, "content": text, "is_error": True}

    def new_turn(self, caller: Any, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": "user", "content": blocks}

    def text_block(self, text: Any) -> dict[str, Any]:
        return {"type": "text", "text": text}
