"""pi's agent messages (``AgentMessage``, badlogic/pi-mono), as its session files keep them.

A call is a ``{"type": "toolCall", "id", "name", "arguments"}`` block in an assistant message's
``content``; a result is a message of its own, ``{"role": "toolResult", "toolCallId",
"toolName", "content", "isError", ...}``. Other roles (``user``, ``bashExecution``, ``custom``,
``branchSummary``, ``compactionSummary``, v2's ``hookMessage``) hold neither.

An assistant message whose ``stopReason`` is ``error`` or ``aborted`` issues no call: pi never
runs its tools (the agent loop stops on it) and never sends it again (pi-ai
``transformMessages`` skips such a message whole when it builds a request; openclaw's transcript
repair passes over its calls for the same reason, since answering them makes the provider refuse
the result). Its calls are read as kept, unsent content, not as calls awaiting a result.

A synthetic result is what pi's agent loop writes for a tool call it could not run
(``createErrorToolResult``, ``emitToolCallOutcome``): ``{"role": "toolResult", "toolCallId",
"toolName", "content": [{"type": "text", "text"}], "details": {}, "isError": true,
"timestamp"}``, ``timestamp`` (milliseconds) being the calling message's, so that fixing twice
writes the same bytes (docs/formats.md#pi-and-openclaw-sessions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    Recognition,
    ResultMessageDialect,
    call_id,
    entry,
    idless_result,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall

#: The roles of pi's ``AgentMessage`` union (``hookMessage``: v2 sessions, renamed ``custom``).
PI_ROLES = frozenset(
    {
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "hookMessage",
        "branchSummary",
        "compactionSummary",
    }
)
#: The stop reasons of an assistant message pi neither runs nor sends again.
UNSENT = frozenset({"error", "aborted"})
#: The block type of a call.
CALL_BLOCK = "toolCall"


def unsent(message: Mapping[str, Any]) -> bool:
    """Whether an assistant message ended in an error or an abort: pi runs none of its calls
    and never sends it again."""
    return message.get("role") == "assistant" and message.get("stopReason") in UNSENT


class Pi(ResultMessageDialect):
    """pi's ``AgentMessage`` list (its session files' ``message`` entries)."""

    name = "pi"
    role_keys = ("role", "type")
    title = "pi agent messages"
    recognised_by = (
        '`role` user / assistant / toolResult / ...; `{"type": "toolCall", "id", "name", '
        '"arguments"}` blocks in assistant `content`, `role: "toolResult"` messages with '
        "`toolCallId`"
    )
    containers = "the `message` of a pi or openclaw session file's `message` entries"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in PI_ROLES:
            return Recognition.NO
        if message["role"] == "toolResult":
            return Recognition.DISTINCT
        content = message.get("content")
        if isinstance(content, list) and any(tag(b, "type") == CALL_BLOCK for b in content):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        if not isinstance(message, dict):
            return MessageView(Role.OTHER)
        role = message.get("role")
        if role == "assistant" and not unsent(message):
            content = message.get("content")
            blocks = content if isinstance(content, list) else []
            calls = tuple(
                _call(block, (*pointer, "content", k))
                for k, block in enumerate(blocks)
                if tag(block, "type") == CALL_BLOCK
            )
            return MessageView(Role.CALLER, calls=calls)
        if role == "toolResult":
            answered = call_id(message.get("toolCallId"), (*pointer, "toolCallId"))
            name = optional_name(message.get("toolName"))
            result = idless_result(answered, pointer, id_at=("toolCallId",), name=name)
            return MessageView(Role.RESULTS, results=(result,))
        return MessageView(Role.OTHER)

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "role": "toolResult",
            "toolCallId": call.id,
            "toolName": call.name or "unknown",
            "content": [{"type": "text", "text": text}],
            "details": {},
            "isError": True,
            "timestamp": caller.get("timestamp", 0) if isinstance(caller, dict) else 0,
        }


def _call(raw: object, pointer: Pointer) -> ToolCall:
    """A ``toolCall`` block.

    Raises:
        ShapeError: Its id is of the wrong type.
    """
    block = entry(raw, pointer)
    return ToolCall(
        id=call_id(block.get("id"), (*pointer, "id")),
        name=optional_name(block.get("name")),
        invalid=not isinstance(block.get("arguments", {}), dict),
        path=pointer[-2:],
        id_at=(*pointer[-2:], "id"),
    )
