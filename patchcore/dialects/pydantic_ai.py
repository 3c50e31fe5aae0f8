"""pydantic-ai message histories (``ModelMessagesTypeAdapter`` JSON).

A history alternates ``{"kind": "response", "parts": [...]}`` and ``{"kind": "request",
"parts": [...]}``. Calls are ``tool-call`` parts of a response; results are ``tool-return`` (or
tool ``retry-prompt``) parts of the next request, matched on ``tool_call_id``. Built-in (server)
tools are ``builtin-tool-call`` parts answered by ``builtin-tool-return`` parts in the same
response; an unanswered one is reported, never answered.

The part layout changes between pydantic-ai versions, so a synthetic ``tool-return`` part copies
the keys its neighbours use (``tool_kind``, ``retry`` appear in newer releases); its timestamp is
the calling response's, so repairing is deterministic. It always carries its ``tool_call_id``,
even where the file's own tool-return parts lack one, and says what it is as pydantic-ai's own
repair (``_clean_message_history``) does: ``metadata`` holds its synthesized mark, and
``outcome`` is ``interrupted`` where the file shows a release that accepts the value (2.10 and
later), else ``failed`` (never the default ``success``); a release without the field ignores it.

A tool-return (or tool retry-prompt) without ``tool_call_id`` answers nothing: pydantic-ai
loads it with a made-up id (``ToolReturnPart.tool_call_id``'s default factory, ``pyd_ai_`` and a
random hex), so the provider gets a result for a call that was never made (TP101), and the call
it was meant for stays unanswered.

pydantic-ai maps a request's parts in order: a ``user-prompt`` (or ``system-prompt``) part before
its tool-return parts becomes a user (or system) message between the tool calls and their tool
messages for OpenAI, and text before the ``tool_result`` blocks for Anthropic; both reject it
(TP106).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.anthropic import server_tool_error
from patchcore.dialects.base import (
    SERVER_EXECUTED,
    BlockDialect,
    Recognition,
    call_id,
    idless_result,
    optional_name,
    server_call,
)
from patchcore.dialects.openai_chat import arguments_malformed
from patchcore.model import Defect, MessageView, Pointer, Role, ToolCall, ToolResult

KINDS = frozenset({"request", "response"})
#: Call parts, with why a part of that kind gets no synthetic result (``None``: it may get one).
CALL_PARTS = {"tool-call": None, "builtin-tool-call": SERVER_EXECUTED}
RESULT_PARTS = frozenset({"tool-return", "builtin-tool-return"})
#: Keys of a ``ToolReturnPart``, in pydantic-ai's order, with the synthetic part's values.
_RETURN_KEYS = (
    "tool_name",
    "content",
    "tool_call_id",
    "tool_kind",
    "metadata",
    "timestamp",
    "outcome",
    "retry",
    "part_kind",
)
#: The keys every pydantic-ai release writes (used when the file has no tool-return to copy).
_CLASSIC_RETURN_KEYS = frozenset(
    {"tool_name", "content", "tool_call_id", "metadata", "timestamp", "part_kind"}
)
#: The keys a synthetic tool-return always has, whatever its neighbours lack: ``outcome`` and
#: ``metadata`` say what it is (a release without the field ignores the key).
_REQUIRED_RETURN_KEYS = frozenset(
    {"tool_name", "content", "tool_call_id", "metadata", "outcome", "part_kind"}
)
#: pydantic-ai's mark of a tool-return it synthesized for a call that never got a result
#: (``SYNTHESIZED_TOOL_RETURN_METADATA_KEY``), written in the synthetic part's ``metadata``.
SYNTHESIZED = "pydantic_ai_synthesized_tool_return"
#: The outcome pydantic-ai's own repair writes for an unanswered call; releases before 2.10
#: refuse the value (their outcome is success, failed or denied), and a file does not say which
#: release wrote it, unless it holds something only later releases write (`_LATER_MARKS`).
INTERRUPTED = "interrupted"
#: Part keys and response keys that releases after 2.40 write, and outcomes that only releases
#: accepting ``interrupted`` know: a file holding one is read by a release that accepts it.
_LATER_PART_KEYS = frozenset({"retry", "ui_visibility"})
_LATER_RESPONSE_KEYS = frozenset({"model_id", "request_timestamp", "history_digest"})
_LATER_OUTCOMES = frozenset({INTERRUPTED, "retried"})


def _part_kind(part: Any) -> str | None:
    kind = part.get("part_kind") if isinstance(part, dict) else None
    return kind if isinstance(kind, str) else None


def _is_result(part: Any) -> bool:
    kind = _part_kind(part)
    return kind in RESULT_PARTS or (kind == "retry-prompt" and bool(part.get("tool_name")))


class PydanticAI(BlockDialect):
    """pydantic-ai ``ModelRequest`` / ``ModelResponse`` lists."""

    name = "pydantic-ai"
    role_keys = ("kind", "part_kind")
    text_keys = ("content", "parts")
    argument_keys = ("args",)
    title = "pydantic-ai messages"
    recognised_by = (
        "`kind` request/response with `parts` carrying `part_kind` (`tool-call`, `tool-return`, "
        "`user-prompt`, ...)"
    )
    containers = "a list (ModelMessagesTypeAdapter JSON); `messages` of a stored run"
    provider_errors: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(
            ("TP001", "TP002", "TP003"),
            "the request would reach the provider with tool call {id} unanswered (e.g. "
            "Anthropic: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: {id})",
        ),
        "TP106": "the request would reach the provider with other content before its tool "
        "results (e.g. Anthropic: Did not find 1 `tool_result` block(s) at the beginning of "
        "this message. Messages following `tool_use` blocks must begin with a matching number "
        "of `tool_result` blocks.; OpenAI: An assistant message with 'tool_calls' must be "
        "followed by tool messages responding to each 'tool_call_id'.)",
    }
    blocks_key = "parts"
    results_first = True

    def provider_error(self, defect: Defect) -> str | None:
        """Built-in tools run at the provider: sent to Anthropic, an unanswered one is a server
        tool use without its result block. An MCP server's tool (``mcp_server:<id>``) reaches
        Anthropic under the tool's own name, which the part does not keep: no example for it."""
        call = server_call(defect)
        if call is None:
            return super().provider_error(defect)
        error = f"the request would reach the provider with built-in tool call {call.id} unanswered"
        mcp = (call.name or "").startswith("mcp_server:")
        example = None if mcp else server_tool_error(call.name, call.id, mcp=False)
        return f"{error} (e.g. Anthropic: {example})" if example else error

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "kind") not in KINDS:
            return Recognition.NO
        parts = message.get("parts")
        if isinstance(parts, list) and all(_part_kind(p) for p in parts):
            return Recognition.DISTINCT
        return Recognition.NO

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        inner: list[ToolResult] = []
        parts = message.get("parts")
        for k, part in enumerate(parts if isinstance(parts, list) else ()):
            kind = _part_kind(part)
            if kind in CALL_PARTS:
                calls.append(
                    ToolCall(
                        id=call_id(part.get("tool_call_id"), (*pointer, "parts", k)),
                        name=optional_name(part.get("tool_name")),
                        invalid=arguments_malformed(part.get("args")),
                        path=("parts", k),
                        unanswerable=CALL_PARTS[kind],
                        id_at=("parts", k, "tool_call_id"),
                    )
                )
            elif _is_result(part):
                answered = call_id(part.get("tool_call_id"), (*pointer, "parts", k))
                # without one, pydantic-ai loads it with a made-up id: a key no call has
                name = optional_name(part.get("tool_name"))
                at = ("parts", k, "tool_call_id")
                result = idless_result(answered, pointer, ("parts", k), id_at=at, name=name)
                (inner if calls else results).append(result)
        if message.get("kind") == "response":
            return MessageView(Role.CALLER, tuple(calls), tuple(results), tuple(inner))
        only_results = bool(parts) and all(_is_result(p) for p in parts or ())
        return MessageView(Role.RESULTS if only_results else Role.OTHER, (), tuple(results))

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        return {"keys": _neighbour_keys(messages), "outcome": _outcome(messages)}

    def is_reasoning(self, block: Any) -> bool:
        return isinstance(block, dict) and block.get("part_kind") == "thinking"

    def takes_results(self, message: Any) -> bool:
        return message.get("kind") == "request" and isinstance(message.get("parts"), list)

    def is_result_block(self, block: Any) -> bool:
        return _is_result(block)

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        values = {
            "tool_name": call.name or "unknown",
            "content": text,
            "tool_call_id": call.id,
            "tool_kind": None,
            "metadata": {SYNTHESIZED: True},
            "timestamp": caller.get("timestamp"),
            "outcome": style["outcome"],
            "retry": None,
            "part_kind": "tool-return",
        }
        return {key: values[key] for key in _RETURN_KEYS if key in style["keys"]}

    def new_turn(self, caller: Any, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        turn: dict[str, Any] = {"parts": blocks, "timestamp": caller.get("timestamp")}
        turn["instructions"] = None
        turn["kind"] = "request"
        if "run_id" in caller:
            turn["run_id"] = caller["run_id"]
        return turn


def _neighbour_keys(messages: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The keys the file's own tool-return parts have (the classic set if it has none), with
    the keys no tool-return can lack."""
    for message in messages:
        for part in message.get("parts") or ():
            if _part_kind(part) == "tool-return":
                return frozenset(part) | _REQUIRED_RETURN_KEYS
    return _CLASSIC_RETURN_KEYS | _REQUIRED_RETURN_KEYS


def _outcome(messages: Sequence[Mapping[str, Any]]) -> str:
    """``interrupted`` (what pydantic-ai's own repair writes) where the file shows a release
    that accepts it; else ``failed``, which every release with an ``outcome`` accepts."""
    for message in messages:
        if message.get("kind") == "response" and not _LATER_RESPONSE_KEYS.isdisjoint(message):
            return INTERRUPTED
        for part in message.get("parts") or ():
            if isinstance(part, dict) and (
                not _LATER_PART_KEYS.isdisjoint(part) or part.get("outcome") in _LATER_OUTCOMES
            ):
                return INTERRUPTED
    return "failed"
