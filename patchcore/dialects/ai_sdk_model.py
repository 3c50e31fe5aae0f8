"""Vercel AI SDK ``ModelMessage`` lists: ``tool-call`` parts answered by ``tool-result`` parts
of a ``tool`` message.

What ``streamText`` / ``generateText`` take as ``messages``, what ``convertToModelMessages``
makes of ``UIMessage`` lists and what ``response.messages`` returns, so what apps save after a
run (``packages/provider-utils/src/types/``): ``{role: "system" | "user" | "assistant" |
"tool", content, providerOptions?}``. An assistant message's content may hold ``tool-call``
parts ``{type, toolCallId, toolName, input, providerExecuted?}`` (AI SDK 4's ``CoreMessage``:
``args`` for ``input``) and ``tool-approval-request`` parts; a ``tool`` message holds
``tool-result`` parts ``{type, toolCallId, toolName, output}`` (AI SDK 4: ``result``,
``isError?``) and ``tool-approval-response`` parts.

The SDK's prompt check (``convertToLanguageModelPrompt``, run before every request) refuses a
call that is not ``providerExecuted`` and has no ``tool-result`` before the next user or system
message (``MissingToolResultsError``), unless a ``tool-approval-response`` answers the
``tool-approval-request`` that names it: the SDK runs an approved call, and answers a denied
one, itself. A call whose approval was requested and not yet answered awaits the user's
decision: it is reported and never answered. A provider-executed call is the provider's: its
result, when the provider sent one, is a ``tool-result`` in the same assistant message, and the
SDK checks nothing of it.

Repair: a ``tool-result`` part in the ``tool`` message after the call (after its results), or
in a new ``tool`` message, as ``convertToModelMessages`` writes a failed tool's result:
``output: {"type": "error-text", "value": <text>}``; in AI SDK 4 spelling (the call has
``args``), ``result`` the text and ``isError: true``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    BlockDialect,
    ListContext,
    Recognition,
    call_id,
    entry,
    idless_result,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

ROLES = frozenset({"system", "user", "assistant", "tool"})
#: The content part types of ``content-part.ts`` and the approval parts (AI SDK 4 also wrote
#: ``redacted-reasoning``).
PART_TYPES = frozenset(
    {
        "text",
        "image",
        "file",
        "reasoning",
        "redacted-reasoning",
        "reasoning-file",
        "custom",
        "tool-call",
        "tool-result",
        "tool-approval-request",
        "tool-approval-response",
    }
)
#: Parts only this dialect writes: their presence settles detection.
MARKERS = frozenset({"tool-call", "tool-result", "tool-approval-request", "tool-approval-response"})

#: Why a call whose approval was requested and not answered gets no result.
AWAITS_APPROVAL = (
    "it awaits the user's approval (a tool-approval-request no tool-approval-response answers): "
    "the decision, not a made-up result, answers it"
)


def _parts(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _approvals(messages: Sequence[Any]) -> tuple[set[str], set[str]]:
    """The calls whose approval was requested and is not decided, and those a decision answers
    (decided, with no ``tool-result`` of their own), by call id: ``convertToLanguageModelPrompt``
    maps each response's ``approvalId`` to its request's call, and the SDK runs an approved
    call (or denies it) itself."""
    requested: dict[str, str] = {}
    decided: set[str] = set()
    results: set[str] = set()
    for message in messages:
        for part in _parts(message) if isinstance(message, dict) else ():
            kind = tag(part, "type")
            if kind == "tool-approval-request" and isinstance(part.get("toolCallId"), str):
                requested[str(part.get("approvalId"))] = part["toolCallId"]
            elif kind == "tool-approval-response" and str(part.get("approvalId")) in requested:
                decided.add(requested[str(part.get("approvalId"))])
            elif kind == "tool-result":
                results.add(str(part.get("toolCallId")))
    return set(requested.values()) - decided, decided - results


class AISdkModel(BlockDialect):
    """Vercel AI SDK ``ModelMessage`` (AI SDK 4: ``CoreMessage``) lists."""

    name = "ai-sdk-model"
    role_keys = ("role", "type")
    text_keys = ("text", "content", "output", "result")
    argument_keys = ("args", "input")
    title = "Vercel AI SDK ModelMessage"
    recognised_by = (
        "`role` system / user / assistant / tool with `content` a string or a list of typed parts; "
        "`tool-call` parts of assistant messages, `tool-result` and `tool-approval-response` "
        "parts of `tool` messages"
    )
    containers = (
        "a list; `messages` of a saved `streamText` / `generateText` run (`response.messages`, "
        "the output of `convertToModelMessages`)"
    )
    provider_errors: ClassVar[Mapping[str, str]] = dict.fromkeys(
        ("TP001", "TP002"), "AI_MissingToolResultsError: Tool result is missing for tool call {id}."
    )
    spelling_of = "openai-chat"  # its plain messages, `{role, content}`, are Chat's
    blocks_key = "content"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        if "tool_calls" in message or "tool_call_id" in message or "parts" in message:
            return Recognition.NO
        content = message.get("content")
        if isinstance(content, str) and message["role"] != "tool":
            return Recognition.COMPATIBLE
        if not isinstance(content, list) or not all(
            tag(part, "type") in PART_TYPES for part in content
        ):
            return Recognition.NO
        if any(part["type"] in MARKERS for part in content):
            return Recognition.DISTINCT
        return Recognition.NO if message["role"] == "tool" else Recognition.COMPATIBLE

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Each message's view, with the calls that await an approval marked: which calls do
        is said by the whole list (a request in one message, its response in a later one)."""
        awaiting, decided = _approvals(messages)
        views = super().views(messages, context)
        return [_with_approvals(view, awaiting, decided) if view.calls else view for view in views]

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        inner: list[ToolResult] = []
        assistant = message.get("role") == "assistant"
        for k, part in enumerate(_parts(message)):
            kind = tag(part, "type")
            where = (*pointer, "content", k)
            if kind == "tool-call" and assistant:
                fields = entry(part, where)
                calls.append(
                    ToolCall(
                        id=call_id(fields.get("toolCallId"), (*where, "toolCallId")),
                        name=optional_name(fields.get("toolName")),
                        path=("content", k),
                        kind="v4" if "args" in fields and "input" not in fields else kind,
                        id_at=("content", k, "toolCallId"),
                    )
                )
                if fields.get("providerExecuted") is True and not _answered_within(message, k):
                    # the provider's own call, which the SDK sends as it is: its result is the
                    # provider's, so no result of the client's is missing
                    inner.append(ToolResult(calls[-1].id or "", ("content", k)))
            elif kind == "tool-result":
                answered = call_id(part.get("toolCallId"), (*where, "toolCallId"))
                at = ("content", k, "toolCallId")
                (inner if assistant else results).append(
                    idless_result(answered, pointer, ("content", k), id_at=at, kind=kind)
                )
        if assistant:
            return MessageView(Role.CALLER, tuple(calls), tuple(results), tuple(inner))
        role = Role.RESULTS if message.get("role") == "tool" else Role.OTHER
        # an approval's decision answers its call through the request it names (`views`)
        decides = any(tag(part, "type") == "tool-approval-response" for part in _parts(message))
        return MessageView(role, (), tuple(results), understood=decides)

    def is_reasoning(self, block: Any) -> bool:
        return tag(block, "type") in ("reasoning", "redacted-reasoning")

    def takes_results(self, message: Any) -> bool:
        return message.get("role") == "tool" and isinstance(message.get("content"), list)

    def is_result_block(self, block: Any) -> bool:
        return tag(block, "type") in ("tool-result", "tool-approval-response")

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool-result", "toolCallId": call.id}
        block["toolName"] = call.name
        if call.kind == "v4":
            return {**block, "result": text, "isError": True}
        return {**block, "output": {"type": "error-text", "value": text}}

    def new_turn(self, caller: Any, blocks: list[Any]) -> dict[str, Any]:
        return {"role": "tool", "content": blocks}


def _answered_within(message: Mapping[str, Any], index: int) -> bool:
    """Whether the provider's result for the call at ``index`` is in the same message."""
    ident = _parts(message)[index].get("toolCallId")
    return any(
        tag(part, "type") == "tool-result" and part.get("toolCallId") == ident
        for part in _parts(message)
    )


def _with_approvals(view: MessageView, awaiting: set[str], decided: set[str]) -> MessageView:
    """``view`` with its calls that await an approval marked unanswerable, and those a decision
    answers answered in place."""
    calls = tuple(
        replace(c, unanswerable=AWAITS_APPROVAL) if c.id in awaiting else c for c in view.calls
    )
    inner = view.inner_results + tuple(
        ToolResult(c.id, c.path) for c in view.calls if c.id is not None and c.id in decided
    )
    return replace(view, calls=calls, inner_results=inner)
