"""AWS Bedrock Converse: ``toolUse`` blocks answered by ``toolResult`` blocks on ``toolUseId``.

Content blocks are single-key union objects (``{"text": ...}``, ``{"toolUse": {...}}``) with no
``type`` key. A synthetic result is
``{"toolResult": {"toolUseId", "content": [{"text": "<text>"}], "status": "error"}}``: never an
empty text or empty content (Bedrock rejects both for error results). It goes into the next user
message with the turn's other results, results first, or into a new user message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    SERVER_EXECUTED,
    BlockDialect,
    Recognition,
    call_id,
    entry,
    idless_result,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

ROLES = frozenset({"user", "assistant", "system"})
#: Members of the ``ContentBlock`` union (botocore's bedrock-runtime service model).
UNION_KEYS = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
        "searchResult",
        "toolAddition",
        "toolRemoval",
    }
)


def _member(block: object) -> str | None:
    """The union member a block holds, if it is a Converse content block.

    A ``{"type": "text", "text": ...}`` block is read as text too: SDK mocks (vercel/ai) write
    it, although the service itself never does.
    """
    if not isinstance(block, dict):
        return None
    if len(block) == 1:
        (key,) = block
        return key if key in UNION_KEYS else None
    if block.get("type") == "text" and set(block) == {"type", "text"}:
        return "text"
    return None


class Bedrock(BlockDialect):
    """AWS Bedrock Converse ``messages``."""

    name = "bedrock"
    argument_keys = ("input",)
    call_wrappers = ("toolUse",)
    title = "AWS Bedrock Converse"
    recognised_by = (
        "`role` + `content` list of typeless single-key blocks (`text`, `toolUse`, "
        "`toolResult`, `reasoningContent`, ...)"
    )
    containers = "a list; `messages` of a Converse request; `output.message` of a response"
    provider_errors: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(
            ("TP001", "TP002", "TP003"),
            "Expected toolResult blocks at messages.{next}.content for the following Ids: {id}",
        ),
        "TP101": "The number of toolResult blocks at messages.{index}.content exceeds the number "
        "of toolUse blocks of previous turn.",
        "TP102": "Expected toolResult blocks at messages.N.content for the following Ids: {id} "
        "(the result sits at messages.{index})",
        "TP103": "The toolResult blocks at messages.{index}.content contain duplicate Ids: {id}",
        "TP104": "The toolUse blocks at messages.{index}.content contain duplicate Ids: {id}",
        "TP105": "messages.{index}.content: toolUse.toolUseId is required",
        "TP106": "messages.{index}: Did not find 1 `tool_result` block(s) at the beginning of "
        "this message. Messages following `tool_use` blocks must begin with a matching number "
        "of `tool_result` blocks.",
    }
    blocks_key = "content"
    results_first = True

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        content = message.get("content")
        if not isinstance(content, list) or not content:
            return Recognition.NO
        members = [_member(block) for block in content]
        if None in members:
            return Recognition.NO
        if "toolUse" in members or "toolResult" in members:
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
            member = _member(block)
            if member == "toolUse":
                use = entry(block["toolUse"], (*pointer, "content", k, "toolUse"))
                calls.append(
                    ToolCall(
                        id=call_id(use.get("toolUseId"), (*pointer, "content", k, "toolUse")),
                        name=optional_name(use.get("name")),
                        path=("content", k),
                        unanswerable=SERVER_EXECUTED
                        if use.get("type") == "server_tool_use"
                        else None,
                        id_at=("content", k, "toolUse", "toolUseId"),
                    )
                )
            elif member == "toolResult":
                result = entry(block["toolResult"], (*pointer, "content", k, "toolResult"))
                answered = call_id(result.get("toolUseId"), (*pointer, "content", k))
                at = ("content", k, "toolResult", "toolUseId")
                result_ref = idless_result(answered, pointer, ("content", k), id_at=at)
                (inner if calls else results).append(result_ref)
        if message.get("role") == "assistant":
            return MessageView(Role.CALLER, tuple(calls), tuple(results), tuple(inner))
        only_results = all(_member(b) == "toolResult" for b in content)
        role = Role.RESULTS if only_results else Role.OTHER
        return MessageView(role, tuple(calls), tuple(results), tuple(inner))

    def is_reasoning(self, block: Any) -> bool:
        return isinstance(block, dict) and "reasoningContent" in block

    def drop_breaks(self, previous: Any, kept: Any, following: Any) -> bool:
        """Converse requires user and assistant turns to alternate: a drop must not remove a
        turn from between two turns of one role."""
        return (
            kept is None
            and previous is not None
            and following is not None
            and tag(previous, "role") == tag(following, "role")
        )

    def takes_results(self, message: Any) -> bool:
        return message.get("role") == "user" and isinstance(message.get("content"), list)

    def is_result_block(self, block: Any) -> bool:
        return _member(block) == "toolResult"

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "toolResult": {"toolUseId": call.id, "content": [{"text": text}], "status": "error"}
        }

    def new_turn(self, caller: Any, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": "user", "content": blocks}
