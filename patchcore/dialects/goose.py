"""Goose messages (block/goose ``crates/goose/src/conversation/message.rs``), as its session
files keep them: ``{"id"?, "role", "created", "content": [...], "metadata"?}``, each item of
``content`` tagged by ``type`` (camelCase).

A call is a ``{"type": "toolRequest", "id", "toolCall": {"status": "success", "value": {"name",
"arguments"}}}`` item of an assistant message (``"status": "error"`` when the model's call did
not parse); its result a ``{"type": "toolResponse", "id", "toolResult": {"status", "value" |
"error"}}`` item of a later user message. What goose sends is what its ``fix_conversation``
leaves (``conversation/mod.rs``): only messages whose ``metadata.agentVisible`` is not false; a
request in a user message, a response in an assistant message and a ``frontendToolRequest`` are
removed, so they are neither calls nor results here; and a request no response answers is
removed too, silently: the model never sees the call it made.

A synthetic result is what goose writes for the calls of a turn it interrupted
(``goose-cli`` ``handle_interrupted_messages``): one user message right after the calling
message, holding a ``toolResponse`` for each call, ``{"status": "error", "error": <text>}``. It
has the calling message's ``created`` and, where the calling message has them, ``"id": null``
and ``metadata`` visible to both user and agent, as goose writes a new message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    SESSION_LOG,
    BlockDialect,
    Recognition,
    call_id,
    idless_result,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall

#: The item types of goose's ``MessageContent`` (and ``conversationCompacted``, which goose
#: reads past in old files).
GOOSE_ITEMS = frozenset(
    {
        "text",
        "image",
        "toolRequest",
        "toolResponse",
        "toolConfirmationRequest",
        "actionRequired",
        "frontendToolRequest",
        "thinking",
        "redactedThinking",
        "systemNotification",
        "contextLengthExceeded",
        "summarizationRequested",
        "conversationCompacted",
    }
)
REQUEST = "toolRequest"
RESPONSE = "toolResponse"


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _sent(message: Mapping[str, Any]) -> bool:
    """Whether goose sends the message to the model (``metadata.agentVisible``, true when the
    message has no metadata, as in files before it existed)."""
    metadata = message.get("metadata")
    return not isinstance(metadata, dict) or metadata.get("agentVisible") is not False


class Goose(BlockDialect):
    """Goose's ``Message`` list (a session file's lines after its metadata)."""

    name = "goose"
    role_keys = ("role", "type")
    title = "Goose messages"
    kept_calls = SESSION_LOG
    blocks_key = "content"
    recognised_by = (
        "`role` user / assistant, `created`, `content` items with `type` text / toolRequest / "
        "toolResponse / ...; calls are `toolRequest` items, answered by `toolResponse` items "
        "with the same `id`"
    )
    containers = "the lines of a Goose session file after its metadata line"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ("user", "assistant"):
            return Recognition.NO
        items = message.get("content")
        if not isinstance(items, list) or not all(tag(i, "type") in GOOSE_ITEMS for i in items):
            return Recognition.NO
        if any(tag(i, "type") in (REQUEST, RESPONSE) for i in items):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        # What goose removes before it sends (a message the agent is not shown, a request in a
        # user message, a response in an assistant one) is read so on purpose: no call, no
        # result, and nothing left unread (docs/rules.md#unread-tool-call-tp004).
        if not isinstance(message, dict):
            return MessageView(Role.OTHER)
        if not _sent(message):
            return MessageView(Role.OTHER, understood=True)
        items = _items(message)
        if message.get("role") == "assistant":
            calls = tuple(
                _call(item, (*pointer, "content", k))
                for k, item in enumerate(items)
                if tag(item, "type") == REQUEST
            )
            stray = any(tag(item, "type") == RESPONSE for item in items)
            return MessageView(Role.CALLER, calls=calls, understood=stray)
        results = tuple(
            idless_result(
                call_id(item.get("id"), (*pointer, "content", k, "id")),
                pointer,
                ("content", k),
                id_at=("content", k, "id"),
            )
            for k, item in enumerate(items)
            if tag(item, "type") == RESPONSE
        )
        stray = any(tag(item, "type") == REQUEST for item in items)
        role = Role.RESULTS if results else Role.OTHER
        return MessageView(role, results=results, understood=stray)

    def takes_results(self, message: Any) -> bool:
        """A user message that already holds responses (goose's tool turn)."""
        return tag(message, "role") == "user" and any(
            tag(item, "type") == RESPONSE for item in _items(message)
        )

    def is_result_block(self, block: Any) -> bool:
        return tag(block, "type") == RESPONSE

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "type": RESPONSE,
            "id": call.id,
            "toolResult": {"status": "error", "error": text},
        }

    def new_turn(self, caller: Any, blocks: list[Any]) -> dict[str, Any]:
        turn: dict[str, Any] = {"id": None} if "id" in caller else {}
        turn.update(role="user", created=caller.get("created", 0), content=blocks)
        if "metadata" in caller:
            turn["metadata"] = {"userVisible": True, "agentVisible": True}
        return turn


def _call(raw: dict[str, Any], pointer: Pointer) -> ToolCall:
    """A ``toolRequest`` item: its ``toolCall`` names the tool, or says the model's call did
    not parse (``"status": "error"``: malformed, TP003 when unanswered)."""
    value = _object(raw.get("toolCall"))
    called = _object(value.get("value"))
    return ToolCall(
        id=call_id(raw.get("id"), (*pointer, "id")),
        name=optional_name(called.get("name")),
        invalid=value.get("status") == "error",
        path=pointer[-2:],
        id_at=(*pointer[-2:], "id"),
    )
