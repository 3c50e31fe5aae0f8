"""LlamaIndex ``ChatMessage`` lists, as its chat stores persist them.

``SimpleChatStore.persist()`` (``llama_index/core/storage/chat_store/simple_chat_store.py``)
writes ``{"store": {KEY: [ChatMessage, ...], ...}, "class_name": "SimpleChatStore"}``, each
message pydantic's dump of ``ChatMessage`` (``llama_index/core/base/llms/types.py``):
``{"role", "additional_kwargs", "blocks"}`` since the message took content blocks
(``{"role", "content", "additional_kwargs"}`` before). The locator finds each key's list as it
finds any list.

* **Calls** are the entries of an assistant message's ``additional_kwargs.tool_calls`` (what
  the LLM integrations keep of the provider's message: OpenAI's ``{id, type: "function",
  function: {name, arguments}}``, Anthropic's ``{id, type: "tool_use", name, input}``; the
  OpenAI integration sends the member back as it is) and its ``ToolCallBlock`` blocks
  ``{"block_type": "tool_call", "tool_call_id", "tool_name", "tool_kwargs"}``, one call per id.
* **Results** are ``role: "tool"`` messages whose ``additional_kwargs.tool_call_id`` names the
  call (``FunctionAgent.handle_tool_call_results``; an assistant message holding a
  ``tool_call_id``, which a ``return_direct`` tool adds after its result, is no result).

Repair: the message ``FunctionAgent`` writes for a tool's output, ``{"role": "tool",
"additional_kwargs": {"tool_call_id"}, "blocks": [{"block_type": "text", "text"}]}`` (with
``content`` for ``blocks`` where the list's messages have no blocks, and ``name`` in
``additional_kwargs`` where its tool messages carry one, as the older ``OpenAIAgent`` wrote),
after the calling message's tool messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    Recognition,
    ResultMessageDialect,
    call_id,
    deletions,
    entry,
    list_field,
    optional_name,
    unless_emptied,
)
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.engine.apply import value_at
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

#: ``MessageRole``'s values.
ROLES = frozenset(
    {"system", "developer", "user", "assistant", "function", "tool", "chatbot", "model"}
)
#: The roles of messages that may call tools.
CALLERS = frozenset({"assistant", "chatbot", "model"})
#: The key of the member that holds what the message's provider wrote beside its content.
EXTRAS = "additional_kwargs"


def _extras(message: Mapping[str, Any]) -> Mapping[str, Any]:
    extras = message.get(EXTRAS)
    return extras if isinstance(extras, dict) else {}


def _kwargs_call(raw: object, pointer: Pointer, k: int) -> ToolCall:
    """A call of ``additional_kwargs.tool_calls`` (OpenAI's or Anthropic's shape)."""
    where = (*pointer, EXTRAS, "tool_calls", k)
    fields = entry(raw, where)
    function = fields.get("function")
    name = function.get("name") if isinstance(function, dict) else fields.get("name")
    return ToolCall(
        id=call_id(fields.get("id"), (*where, "id")),
        name=optional_name(name),
        path=(EXTRAS, "tool_calls", k),
        id_at=(EXTRAS, "tool_calls", k, "id"),
    )


def _ident(call: object) -> object:
    """The id of a call entry or ``tool_call`` block."""
    if not isinstance(call, dict):
        return None
    return call.get("tool_call_id") if "block_type" in call else call.get("id")


def _emptied(message: Mapping[str, Any]) -> bool:
    """Whether a message is left with neither text nor calls."""
    if _extras(message).get("tool_calls"):
        return False
    blocks = message.get("blocks")
    if isinstance(blocks, list):
        return not any(b.get("text") or b.get("block_type") != "text" for b in blocks)
    return not message.get("content")


class LlamaIndex(ResultMessageDialect):
    """LlamaIndex ``ChatMessage`` dumps (chat stores, agent memory)."""

    name = "llama-index"
    text_keys = ("text", "content", "blocks")
    call_wrappers = ("function",)
    title = "LlamaIndex ChatMessage"
    recognised_by = (
        "`role` with `additional_kwargs` and `blocks` (`block_type` text / tool_call / ...) or "
        "`content`; calls in `additional_kwargs.tool_calls` or `tool_call` blocks, results "
        "`role: tool` with `additional_kwargs.tool_call_id`"
    )
    containers = (
        '`store.<key>` of a `SimpleChatStore` persisted by `persist()` (`{"store": ..., '
        '"class_name": "SimpleChatStore"}`, or that JSON written as a string); a list of '
        "`ChatMessage` dumps"
    )
    #: LlamaIndex's OpenAI integration sends the messages as OpenAI Chat messages.
    provider_errors: ClassVar[Mapping[str, str]] = {
        code: OpenAIChat.provider_errors[code] for code in ("TP001", "TP002")
    }

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        if not isinstance(message.get(EXTRAS), dict) or "tool_calls" in message:
            return Recognition.NO
        blocks = message.get("blocks")
        if blocks is not None and not (
            isinstance(blocks, list) and all(tag(b, "block_type") for b in blocks)
        ):
            return Recognition.NO
        extras = message[EXTRAS]
        if "tool_calls" in extras or "tool_call_id" in extras:
            return Recognition.DISTINCT
        if blocks is not None:
            return Recognition.DISTINCT  # typed ``block_type`` blocks are LlamaIndex's alone
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        role = message.get("role")
        extras = _extras(message)
        if role == "tool":
            answered = call_id(extras.get("tool_call_id"), (*pointer, EXTRAS, "tool_call_id"))
            if answered is None:
                return MessageView(Role.OTHER)
            return MessageView(Role.RESULTS, results=(ToolResult(answered),))
        if role not in CALLERS:
            return MessageView(Role.OTHER)
        # a return_direct tool's answer names its call, and answers nothing a second time
        direct = isinstance(extras.get("tool_call_id"), str)
        calls: list[ToolCall] = []
        raw_calls = extras.get("tool_calls")
        if raw_calls is not None:
            raw = list_field(extras, "tool_calls", (*pointer, EXTRAS))
            calls += [_kwargs_call(c, pointer, k) for k, c in enumerate(raw)]
        seen = {c.id for c in calls if c.id is not None}
        for k, block in enumerate(list_field(message, "blocks", pointer)):
            if tag(block, "block_type") != "tool_call":
                continue
            ident = call_id(block.get("tool_call_id"), (*pointer, "blocks", k, "tool_call_id"))
            if ident is not None and ident in seen:
                continue  # the same call, kept in both places
            calls.append(
                ToolCall(
                    id=ident,
                    name=optional_name(block.get("tool_name")),
                    path=("blocks", k),
                    id_at=("blocks", k, "tool_call_id"),
                )
            )
        return MessageView(Role.CALLER, tuple(calls), understood=direct and not calls)

    def call_deletions(self, message: Any, paths: Sequence[Pointer]) -> list[Pointer] | None:
        """The calls, with the ``tool_call`` blocks that repeat them (by id), so that none is
        left to be read again; the whole message when nothing else is left of it."""
        ids = {_ident(value_at(message, path)) for path in paths} - {None}
        repeats = [
            ("blocks", k)
            for k, block in enumerate(list_field(message, "blocks", ()))
            if tag(block, "block_type") == "tool_call"
            and block.get("tool_call_id") in ids
            and ("blocks", k) not in paths
        ]
        return unless_emptied(message, deletions(message, [*paths, *repeats]), _emptied)

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        tools = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
        return {
            "blocks": any("blocks" in m for m in messages if isinstance(m, dict)),
            "named": any("name" in _extras(m) for m in tools),
        }

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        extras: dict[str, Any] = {"tool_call_id": call.id}
        if style["named"]:  # as ``OpenAIAgent`` wrote it: the name first
            extras = {"name": call.name or "unknown", **extras}
        if not style["blocks"]:
            return {"role": "tool", "content": text, EXTRAS: extras}
        return {"role": "tool", EXTRAS: extras, "blocks": [{"block_type": "text", "text": text}]}
