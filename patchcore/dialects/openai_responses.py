"""OpenAI Responses input items: ``function_call`` items answered by ``function_call_output``.

Calls and outputs are sibling items of one flat list, matched on ``call_id`` (never ``id``, the
item's own id). The items of one model response (``reasoning``, assistant ``message``, calls,
and the calls the server ran itself: ``web_search_call``, ``file_search_call``, ...) form one
turn; a synthetic output goes after the turn and its existing outputs, so it never lands between
a ``reasoning`` item and the item it precedes, which the API rejects ("Item 'rs_…' of type
'reasoning' was provided without its required following item").

An output is accepted anywhere after its call, but one that already sits between a ``reasoning``
item and the model item after it is misplaced (TP102): it splits the turn, and moving it after
the turn is its fix.

Only calls whose format admits a truthful failure are answered:

* ``function_call`` / ``custom_tool_call``: an output with the rule's text;
* ``apply_patch_call``: an output with ``status: "failed"``.

``computer_call`` (its output is a screenshot), ``local_shell_call``, ``shell_call`` and
``mcp_approval_request`` (a decision nobody made) are reported, never answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.dialects.base import (
    ListContext,
    Recognition,
    ResultMessageDialect,
    call_id,
    optional_name,
    tag,
)
from patchcore.dialects.openai_chat import arguments_malformed
from patchcore.engine.defects import Defect
from patchcore.engine.pairing import Answer
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

_COMMAND_OUTPUT = "'s result is the command's output, which cannot be truthfully made up"
#: Client-executed call items: the output item type, and why no truthful output exists (``None``:
#: one does). The reason names the item type, since these calls usually carry no tool name.
CALLS: Mapping[str, tuple[str, str | None]] = {
    "function_call": ("function_call_output", None),
    "custom_tool_call": ("custom_tool_call_output", None),
    "apply_patch_call": ("apply_patch_call_output", None),
    "computer_call": (
        "computer_call_output",
        "a computer_call's result is a screenshot, which cannot be truthfully made up",
    ),
    "local_shell_call": ("local_shell_call_output", "a local_shell_call" + _COMMAND_OUTPUT),
    "shell_call": ("shell_call_output", "a shell_call" + _COMMAND_OUTPUT),
    "mcp_approval_request": (
        "mcp_approval_response",
        "an mcp_approval_request asks for an approval decision that nobody made",
    ),
}
OUTPUTS = frozenset(output for output, _ in CALLS.values())
#: Items of a model response that the server itself ran (no output of the client answers them).
SERVER_CALLS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "tool_search_call",
    }
)
#: Other item types of the Responses input union (self-contained or structural).
OTHER_ITEMS = SERVER_CALLS | {
    "message",
    "reasoning",
    "item_reference",
    "tool_search_output",
    "compaction",
}
ROLES = frozenset({"user", "assistant", "system", "developer"})
#: Content parts an EasyInputMessage may hold.
PART_TYPES = frozenset(
    {"input_text", "input_image", "input_file", "input_audio", "output_text", "refusal"}
)


def _kind(item: Any) -> str | None:
    kind = item.get("type") if isinstance(item, dict) else None
    return kind if isinstance(kind, str) else None


def _call_key(item: Mapping[str, Any], kind: str) -> str:
    """Where a call or output item keeps the pairing id."""
    if kind == "mcp_approval_request":
        return "id"
    if kind == "mcp_approval_response":
        return "approval_request_id"
    if kind == "local_shell_call_output" and "call_id" not in item:
        return "id"  # the SDK documents the call's id under the output's "id"
    return "call_id"


def _in_turn(item: Any) -> bool:
    """Whether an item is part of a model response (so the next one continues its turn)."""
    kind = _kind(item)
    return (
        kind in CALLS
        or kind in SERVER_CALLS
        or kind == "reasoning"
        or (
            isinstance(item, dict) and item.get("role") == "assistant" and kind in (None, "message")
        )
    )


class OpenAIResponses(ResultMessageDialect):
    """OpenAI Responses API input items."""

    name = "openai-responses"
    title = "OpenAI Responses"
    recognised_by = (
        "items with `type` function_call / function_call_output / reasoning / message / "
        "custom_tool_call / computer_call / ..., and messages whose parts are `input_text` / "
        "`output_text`"
    )
    containers = (
        "a list; `input` of a request body; JSONL of items; a stored response's `output` "
        "(checked, nothing added); `generated_items[].raw_item` of an Agents SDK run state "
        "(its other lists are copies)"
    )
    provider_errors: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(
            ("TP001", "TP002", "TP003"), "No tool output found for function call {id}."
        ),
        "TP101": "No tool call found for function call output with call_id {id}.",
        "TP103": "Duplicate item found with id {id}. Remove duplicate items from your input and "
        "try again.",
        "TP104": "Duplicate 'call_id': {id}",
        "TP105": "Missing required parameter: 'input[{index}].call_id'.",
    }

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        """The Responses API accepts an output anywhere after its call, but not between a
        reasoning item and the item it precedes."""
        reasoning = _splitting(messages, answer.result.message_index)
        if reasoning is None:
            return None
        item_id = messages[reasoning].get("id")
        named = f" {item_id}" if isinstance(item_id, str) and item_id else ""
        return f"{_SPLITS}{named} from the item it precedes"

    def provider_error(self, defect: Defect) -> str | None:
        """A split reasoning item is refused by its own id, which the TP102 reason names."""
        if defect.code == "TP102" and defect.reason is not None:
            _, _, rest = defect.reason.partition(_SPLITS)
            item_id, _, _ = rest.strip().partition(" from ")
            if rest.startswith(" ") and item_id:
                return (
                    f"Item '{item_id}' of type 'reasoning' was provided without its required "
                    "following item"
                )
            return None
        return super().provider_error(defect)

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict):
            return Recognition.NO
        kind = _kind(message)
        if kind in (None, "message"):
            return self._recognize_message(message, typed=kind is not None)
        if kind in CALLS or kind in OUTPUTS or kind in OTHER_ITEMS:
            return Recognition.DISTINCT
        return Recognition.NO

    @staticmethod
    def _recognize_message(message: Mapping[str, Any], *, typed: bool) -> Recognition:
        """A message item (``type: "message"``) or an EasyInputMessage (no type): content is a
        string or Responses content parts (``input_text``, ``output_text``, ...), which tell it
        apart from an Anthropic message (``text``, ``tool_use`` blocks)."""
        if tag(message, "role") not in ROLES:
            return Recognition.NO
        content = message.get("content")
        if isinstance(content, str):
            return Recognition.DISTINCT if typed else Recognition.COMPATIBLE
        if isinstance(content, list) and all(_kind(p) in PART_TYPES for p in content):
            return Recognition.DISTINCT if content or typed else Recognition.COMPATIBLE
        return Recognition.NO

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        kind = _kind(message)
        if kind is None:
            return MessageView(Role.OTHER)
        if kind in CALLS:
            key = _call_key(message, kind)
            _, unanswerable = CALLS[kind]
            call = ToolCall(
                id=call_id(message.get(key), (*pointer, key)),
                # Only the tool's own name: the item type is no name (the text says `unknown`).
                name=optional_name(message.get("name")),
                invalid=kind == "function_call" and arguments_malformed(message.get("arguments")),
                unanswerable=unanswerable,
            )
            return MessageView(Role.CALLER, calls=(call,))
        if kind in OUTPUTS:
            key = _call_key(message, kind)
            answered = call_id(message.get(key), (*pointer, key))
            return MessageView(Role.RESULTS, results=(ToolResult(answered),) if answered else ())
        return MessageView(Role.OTHER)

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Items after a call, a reasoning item or an assistant message continue its turn; so do
        outputs that split a reasoning item from the model item after it, and that item (the
        turn ends after it, where such an output belongs)."""
        views = super().views(messages, context)
        splits = _splits(messages)
        for index in range(1, len(views)):
            joins = _in_turn(messages[index]) and (
                _in_turn(messages[index - 1]) or index - 1 in splits
            )
            if joins or index in splits:
                view = views[index]
                views[index] = MessageView(
                    view.role, view.calls, view.results, view.inner_results, joins_previous=True
                )
        return views

    def result_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        return {}

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        kind = _kind(caller)
        assert kind is not None
        output, unanswerable = CALLS[kind]
        if unanswerable is not None:
            return None
        if kind == "apply_patch_call":
            return {"type": output, "call_id": call.id, "status": "failed", "output": text}
        return {"type": output, "call_id": call.id, "output": text}


#: How the reason of an output that splits a reasoning item begins (its id follows).
_SPLITS = "it separates reasoning item"


def _splitting(messages: Sequence[Any], index: int) -> int | None:
    """The reasoning item that output ``index`` separates from the model item it precedes, or
    ``None``: walking back over outputs reaches a reasoning item, and walking on over outputs
    reaches an item of the model's turn (a reasoning item with no such item after it is alone
    wherever its outputs go)."""
    if _kind(messages[index]) not in OUTPUTS:
        return None
    before = index - 1
    while before >= 0 and _kind(messages[before]) in OUTPUTS:
        before -= 1
    if before < 0 or _kind(messages[before]) != "reasoning":
        return None
    after = index + 1
    while after < len(messages) and _kind(messages[after]) in OUTPUTS:
        after += 1
    return before if after < len(messages) and _in_turn(messages[after]) else None


def _splits(messages: Sequence[Any]) -> set[int]:
    """The outputs that split a reasoning item from the model item it precedes."""
    return {index for index in range(len(messages)) if _splitting(messages, index) is not None}
