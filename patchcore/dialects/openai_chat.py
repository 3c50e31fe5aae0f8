"""OpenAI Chat Completions messages (and the OpenAI-like variants real data uses).

Calls are the assistant's ``tool_calls`` entries; a result is a ``role: "tool"`` message. Beside
the API's own shape (``{"id", "type": "function", "function": {"name", "arguments": "<json>"}}``)
this reads the variants found in real files:

* ``arguments`` as an object (Hugging Face / TRL chat templates, tau2),
* flat entries ``{"id", "name", "arguments"}`` (tau2) and ``{"id", "function": "<name>"}``
  (inspect_ai), custom tools ``{"type": "custom", "custom": {"name", "input"}}``,
* results keyed by ``tool_call_id`` (the API), ``tool_call_ids`` (SWE-agent) or ``id`` (tau2),
* the legacy ``function_call`` (one call an assistant message, no id:
  docs/formats.md#legacy-function_call),
  answered by the ``{"role": "function", "name"}`` message right after its message (ToolBench).

A synthetic result uses whichever answering key, and ``name`` if present, its neighbours use; a
legacy call gets ``{"role": "function", "name", "content"}`` right after its message.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import orjson

from patchcore.chat_names import FOREIGN_PARTS, ROLES, tag
from patchcore.dialects.base import (
    ListContext,
    Recognition,
    ResultMessageDialect,
    call_id,
    deletions,
    entry,
    idless_result,
    list_field,
    optional_name,
    unless_emptied,
)
from patchcore.model import Defect, MessageView, Pointer, Role, ToolCall, ToolResult, format_pointer

_RESULT_KEYS = ("tool_call_id", "tool_call_ids", "id")
#: Where a legacy ``function_call`` sits in its message (its call path).
LEGACY_CALL: Pointer = ("function_call",)


def arguments_malformed(arguments: object) -> bool:
    """Whether tool-call arguments could not be parsed, the way langchain-openai decides it.

    A JSON string must parse (non-strict, as ``parse_tool_call`` does); an empty string or a
    missing value means "no arguments"; an object is already parsed. Anything else is malformed.
    """
    if arguments is None or isinstance(arguments, dict):
        return False
    if not isinstance(arguments, str):
        return True
    if not arguments.strip():
        return False
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        try:
            json.loads(arguments, strict=False)
        except ValueError:
            return True
    return False


#: OpenAI's errors by rule (LangChain quotes them too: langchain-openai forwards its messages).
OPENAI_ERRORS: Mapping[str, str] = {
    **dict.fromkeys(
        ("TP001", "TP002", "TP003", "TP102"),
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "{id}",
    ),
    "TP101": "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
    "message with 'tool_calls'.",
    **dict.fromkeys(
        ("TP103", "TP104"), "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}'."
    ),
    "TP105": "Missing required parameter: 'messages[{index}].tool_calls[].id'.",
    "TP107": "Invalid 'messages[{index}].tool_calls': empty array. Expected an array with "
    "minimum length 1, but got an empty array instead.",
}


def _content_part(part: object) -> bool:
    """Whether ``part`` can be a content part of a chat message.

    Parts are typed objects (``text``, ``image_url``, ``input_audio``, ``file``, ``refusal``,
    and the extra kinds eval logs write); the tool blocks of other dialects are not, so a list
    that puts an Anthropic ``tool_use`` or a Bedrock ``toolUse`` beside a ``role: "tool"``
    message is seen as mixing dialects rather than read without its calls.
    """
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    return isinstance(kind, str) and kind not in FOREIGN_PARTS and not kind.endswith("tool_result")


class OpenAIChat(ResultMessageDialect):
    """OpenAI Chat Completions ``messages``."""

    name = "openai-chat"
    call_wrappers = ("function",)
    title = "OpenAI Chat Completions"
    recognised_by = (
        "`role` in system/developer/user/assistant/tool/function; assistant `tool_calls`, "
        '`role: "tool"` results; the legacy assistant `function_call`, answered by the '
        '`role: "function"` message right after it'
    )
    containers = (
        "a list; `messages` (request bodies, fine-tuning JSONL), `body.messages` (Batch API), "
        "`history` (SWE-agent), `[*].traj` (tau-bench), `simulations[*].messages` (tau2), "
        "`samples[*].messages` (inspect)"
    )
    provider_errors = OPENAI_ERRORS

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        if "parts" in message or "toolInvocations" in message:
            return Recognition.NO  # an AI SDK UIMessage's: its calls are there, never read here
        content = message.get("content")
        if isinstance(content, list):
            if not all(_content_part(p) for p in content):
                return Recognition.NO
        elif content is not None and not isinstance(content, str):
            return Recognition.NO
        if (
            message.get("tool_calls")
            or message.get("role") == "tool"
            or isinstance(message.get("function_call"), dict)
        ):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        role = message.get("role")
        if role == "assistant":
            entries = list_field(message, "tool_calls", pointer)
            calls = [
                self._call(entry(raw, (*pointer, "tool_calls", k)), (*pointer, "tool_calls", k))
                for k, raw in enumerate(entries)
            ]
            if message.get("function_call") is not None:  # null in SDK dumps: no call
                calls.append(_legacy_call(message["function_call"], pointer))
            return MessageView(Role.CALLER, calls=tuple(calls))
        if role == "tool":
            return MessageView(Role.RESULTS, results=self._answered(message, pointer))
        if role == "function":
            # Answers nothing unless it follows a legacy call (`views`): a key no call has.
            orphan = ToolResult(
                f"{format_pointer(pointer)}:function",
                keyed=False,
                name=optional_name(message.get("name")),
            )
            return MessageView(Role.OTHER, results=(orphan,))
        return MessageView(Role.OTHER)

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """A legacy call is answered by the function messages right after its message (past
        the tool messages of its ``tool_calls``, if it has both), whose ``name`` is the call's
        where both have one: the first answers it, a later one is a second result."""
        views = super().views(messages, context)
        for index, view in enumerate(views):
            legacy = next((c for c in view.calls if c.path == LEGACY_CALL), None)
            if legacy is None or legacy.key is None:
                continue
            for follower in range(index + 1, len(messages)):
                message = messages[follower]
                if tag(message, "role") == "tool":
                    continue
                if not _answers(message, legacy):
                    break
                name = optional_name(message.get("name"))
                result = ToolResult(legacy.key, keyed=False, name=name)
                views[follower] = MessageView(Role.RESULTS, results=(result,))
        return views

    def provider_error(self, defect: Defect) -> str | None:
        """OpenAI's errors name ``tool_call_id``s; a legacy function call has no id, and the
        API's wording for it is not known, so none is quoted."""
        legacy = (defect.call is not None and defect.call.path == LEGACY_CALL) or (
            defect.result is not None and not defect.result.keyed
        )
        return None if legacy else super().provider_error(defect)

    @staticmethod
    def _call(raw: Mapping[str, Any], pointer: Pointer) -> ToolCall:
        function = raw.get("function")
        custom = raw.get("custom")
        if isinstance(function, dict):
            name, invalid = function.get("name"), arguments_malformed(function.get("arguments"))
        elif isinstance(function, str):
            name, invalid = function, arguments_malformed(raw.get("arguments"))
        elif isinstance(custom, dict):
            # Custom tools take free-form text input: there is nothing to be malformed.
            name, invalid = custom.get("name"), False
        else:
            name, invalid = raw.get("name"), arguments_malformed(raw.get("arguments"))
        return ToolCall(
            id=call_id(raw.get("id"), (*pointer, "id")),
            name=optional_name(name),
            invalid=invalid,
            path=pointer[-2:],
            id_at=(*pointer[-2:], "id"),
        )

    @staticmethod
    def _answered(message: Mapping[str, Any], pointer: Pointer) -> tuple[ToolResult, ...]:
        name = optional_name(message.get("name"))
        if message.get("tool_call_id") is not None:
            answered = call_id(message["tool_call_id"], (*pointer, "tool_call_id"))
            return (idless_result(answered, pointer, id_at=("tool_call_id",), name=name),)
        if message.get("tool_call_ids") is not None:
            ids = list_field(message, "tool_call_ids", pointer)
            normalised = [call_id(v, (*pointer, "tool_call_ids", k)) for k, v in enumerate(ids)]
            if len(normalised) == 1:  # the message is the result
                return (ToolResult(normalised[0]),) if normalised[0] else ()
            return tuple(ToolResult(v, ("tool_call_ids", k)) for k, v in enumerate(normalised) if v)
        answered = call_id(message.get("id"), (*pointer, "id"))
        return (idless_result(answered, pointer, id_at=("tool_call_id",), name=name),)

    def shape_defects(self, messages: Sequence[Any], views: Sequence[MessageView]) -> list[Defect]:
        """TP107: an assistant message with ``tool_calls: []``."""
        return [
            Defect("TP107", index, ("tool_calls",))
            for index, message in enumerate(messages)
            if message is not None
            and message.get("role") == "assistant"
            and message.get("tool_calls") == []
        ]

    def call_deletions(self, message: Any, paths: Sequence[Pointer]) -> list[Pointer] | None:
        """The calls; the whole message when it is left with neither content nor calls."""
        return unless_emptied(message, deletions(message, paths), _emptied)

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        results = [m for m in messages if m.get("role") == "tool"]
        return self.style(
            answer_keys={k for k in _RESULT_KEYS if any(m.get(k) is not None for m in results)},
            named=any("name" in m for m in results),
        )

    @staticmethod
    def style(*, answer_keys: Collection[str], named: bool) -> Mapping[str, Any]:
        """How a list whose result messages answer with ``answer_keys`` (and have a ``name``,
        if ``named``) writes a new one: with the first of the keys the API knows."""
        key = next((k for k in _RESULT_KEYS if k in answer_keys), "tool_call_id")
        return {"key": key, "name": named}

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        if call.path == LEGACY_CALL:
            return {"role": "function", "name": call.name or "unknown", "content": text}
        key = style["key"]
        message: dict[str, Any] = {
            "role": "tool",
            key: [call.id] if key == "tool_call_ids" else call.id,
        }
        if style["name"]:
            message["name"] = call.name or "unknown"
        message["content"] = text
        return message


def _legacy_call(raw: object, pointer: Pointer) -> ToolCall:
    """A legacy ``function_call``: no id, so it pairs on a key of its own message's place.

    Raises:
        ShapeError: It is not an object.
    """
    fields = entry(raw, (*pointer, *LEGACY_CALL))
    return ToolCall(
        id=None,
        name=optional_name(fields.get("name")),
        invalid=arguments_malformed(fields.get("arguments")),
        path=LEGACY_CALL,
        key=f"{format_pointer(pointer)}:function_call",
    )


def _answers(message: Any, call: ToolCall) -> bool:
    """Whether ``message`` is a function message that may answer the legacy ``call``: its name
    is the call's, where both have one."""
    if tag(message, "role") != "function":
        return False
    name = optional_name(message.get("name"))
    return name is None or call.name is None or name == call.name


def _emptied(message: Any) -> bool:
    """Whether an assistant message whose calls were dropped holds nothing left to send."""
    return (
        message.get("content") in (None, "", [])
        and not message.get("tool_calls")
        and message.get("function_call") is None
        and not message.get("refusal")
        and not message.get("audio")
    )
