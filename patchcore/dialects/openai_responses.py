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

Items of a type this module does not know (``program`` and ``program_output`` of programmatic
tool calling, whatever the API adds next) are read only beside items it knows, kept as they are
and never answered (the list's report warns of them): an unknown item with a ``call_id`` whose
type ends in ``_output`` answers that call; any other with a ``call_id`` is a call of an unknown
kind, paired with its output, reported when it has none, never given a made-up one.

`OpenAIAgentsJS` reads the same items in the JavaScript Agents SDK's own spelling
(``callId``, ``function_call_result``, ``computer_call_result``, ``hosted_tool_call``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from patchcore.chat_names import RESPONSES_PARTS, tag
from patchcore.dialects.base import (
    ListContext,
    ListNote,
    Recognition,
    ResultMessageDialect,
    call_id,
    idless_result,
    optional_name,
)
from patchcore.dialects.openai_chat import arguments_malformed
from patchcore.engine.pairing import Answer
from patchcore.model import Defect, MessageView, Pointer, Role, ToolCall, derived_id

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
#: What an item type of the Responses family looks like (``program``, ``tool_search_call``).
_ITEM_TYPE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
#: Message types of other formats (LangChain's), never an unknown Responses item even where
#: their other fields are too broken for their own dialect to read them.
_FOREIGN_TYPES = frozenset(
    {"human", "ai", "system", "tool", "function", "chat", "developer", "remove", "generic"}
)
#: Content parts an EasyInputMessage may hold.
PART_TYPES = RESPONSES_PARTS


def _kind(item: Any) -> str | None:
    kind = item.get("type") if isinstance(item, dict) else None
    return kind if isinstance(kind, str) else None


class OpenAIResponses(ResultMessageDialect):
    """OpenAI Responses API input items."""

    name = "openai-responses"
    role_keys = ("role", "type")
    text_keys = ("text", "content", "output", "result")
    argument_keys = ("arguments", "input")
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
    #: The spelling of this family: its call items, their outputs, its other item types, the
    #: key that pairs them, and the suffixes that make an unknown item type an output.
    calls: ClassVar[Mapping[str, tuple[str, str | None]]] = CALLS
    outputs: ClassVar[frozenset[str]] = OUTPUTS
    other_items: ClassVar[frozenset[str]] = OTHER_ITEMS
    #: Calls the provider runs itself: part of the model's turn, never answered here.
    server_calls: ClassVar[frozenset[str]] = SERVER_CALLS
    key: ClassVar[str] = "call_id"
    output_suffixes: ClassVar[tuple[str, ...]] = ("_output",)
    part_types: ClassVar[frozenset[str]] = PART_TYPES

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        """The Responses API accepts an output anywhere after its call, but not between a
        reasoning item and the item it precedes."""
        reasoning = self._splitting(messages, answer.result.message_index)
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
        if kind in self.calls or kind in self.outputs or kind in self.other_items:
            return Recognition.DISTINCT
        if self.unknown(message):
            return Recognition.TOLERATED
        return Recognition.NO

    def unknown(self, item: Any) -> bool:
        """Whether ``item`` is an item of this family whose type this module does not know: a
        lowercase ``snake_case`` type and no ``role`` (a message of some other format)."""
        kind = _kind(item)
        return (
            kind is not None
            and kind not in self.calls
            and kind not in self.outputs
            and kind not in self.other_items
            and kind != "message"
            and kind not in _FOREIGN_TYPES
            and "role" not in item
            and _ITEM_TYPE.fullmatch(kind) is not None
        )

    def note(self, messages: Sequence[Any]) -> ListNote | None:
        kinds: dict[str, int] = {}
        for message in messages:
            if message is not None and self.unknown(message):
                kind = _kind(message)
                assert kind is not None
                kinds[kind] = kinds.get(kind, 0) + 1
        if not kinds:
            return None
        count = sum(kinds.values())
        what, kept = ("item", "it is") if count == 1 else ("items", "they are")
        return ListNote(
            f"{count} {what} of a type toolpatch does not know ({', '.join(kinds)}) kept as "
            f"{kept}: never answered, read for their {self.key} only"
        )

    def _recognize_message(self, message: Mapping[str, Any], *, typed: bool) -> Recognition:
        """A message item (``type: "message"``) or an EasyInputMessage (no type): content is a
        string or Responses content parts (``input_text``, ``output_text``, ...), which tell it
        apart from an Anthropic message (``text``, ``tool_use`` blocks)."""
        if tag(message, "role") not in ROLES:
            return Recognition.NO
        content = message.get("content")
        if isinstance(content, str):
            return Recognition.DISTINCT if typed else Recognition.COMPATIBLE
        if isinstance(content, list) and all(_kind(p) in self.part_types for p in content):
            return Recognition.DISTINCT if content or typed else Recognition.COMPATIBLE
        return Recognition.NO

    def client_search(self, item: Any) -> bool:
        """Whether ``item`` is a tool search item the client runs (``"execution": "client"``):
        a ``tool_search_call`` the client answers with a ``tool_search_output``, or that output.
        A tool search the server runs is part of its response and answered there."""
        return (
            _kind(item) in ("tool_search_call", "tool_search_output")
            and item.get("execution") == "client"
        )

    def call_key(self, item: Mapping[str, Any], kind: str) -> str:
        """Where a call or output item keeps the pairing id."""
        if kind == "mcp_approval_request":
            return "id"
        if kind == "mcp_approval_response":
            return "approval_request_id"
        if kind == "local_shell_call_output" and "call_id" not in item:
            return "id"  # the SDK documents the call's id under the output's "id"
        return self.key

    def _unknown_call(self, item: Any) -> str | None:
        """The type of an unknown item that is a call (it has a pairing id and is no output)."""
        kind = _kind(item)
        if kind is None or not self.unknown(item) or not isinstance(item.get(self.key), str):
            return None
        return None if kind.endswith(self.output_suffixes) else kind

    def _in_turn(self, item: Any) -> bool:
        """Whether an item is part of a model response (so the next one continues its turn)."""
        kind = _kind(item)
        return (
            kind in self.calls
            or kind in self.server_calls
            or kind == "reasoning"
            or self._unknown_call(item) is not None
            or (
                isinstance(item, dict)
                and item.get("role") == "assistant"
                and kind in (None, "message")
            )
        )

    def _splitting(self, messages: Sequence[Any], index: int) -> int | None:
        """The reasoning item that output ``index`` separates from the model item it precedes,
        or ``None``: walking back over outputs reaches a reasoning item, and walking on over
        outputs reaches an item of the model's turn (a reasoning item with no such item after it
        is alone wherever its outputs go)."""
        if _kind(messages[index]) not in self.outputs:
            return None
        before = index - 1
        while before >= 0 and _kind(messages[before]) in self.outputs:
            before -= 1
        if before < 0 or _kind(messages[before]) != "reasoning":
            return None
        after = index + 1
        while after < len(messages) and _kind(messages[after]) in self.outputs:
            after += 1
        return before if after < len(messages) and self._in_turn(messages[after]) else None

    def _splits(self, messages: Sequence[Any]) -> set[int]:
        """The outputs that split a reasoning item from the model item it precedes."""
        return {i for i in range(len(messages)) if self._splitting(messages, i) is not None}

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        kind = _kind(message)
        if kind is None:
            return MessageView(Role.OTHER)
        client_search = self.client_search(message)
        if client_search and kind == "tool_search_output":
            answered = call_id(message.get(self.key), (*pointer, self.key))
            result = idless_result(answered, pointer, id_at=(self.key,))
            return MessageView(Role.RESULTS, results=(result,))
        if kind in self.calls or self._unknown_call(message) is not None or client_search:
            key = self.call_key(message, kind)
            unanswerable = (
                self.calls[kind][1]
                if kind in self.calls
                else None
                if client_search
                else f"a {kind} item is of a type toolpatch does not know, so its result "
                "cannot be truthfully made up"
            )
            call = ToolCall(
                id=call_id(message.get(key), (*pointer, key)),
                # Only the tool's own name: the item type is no name (the text says `unknown`).
                name=optional_name(message.get("name")),
                invalid=kind == "function_call" and arguments_malformed(message.get("arguments")),
                unanswerable=unanswerable,
                id_at=(key,),
            )
            return MessageView(Role.CALLER, calls=(call,))
        if kind in self.outputs or (
            self.unknown(message) and isinstance(message.get(self.key), str)
        ):
            key = self.call_key(message, kind)
            answered = call_id(message.get(key), (*pointer, key))
            result = idless_result(answered, pointer, id_at=(key,))
            return MessageView(Role.RESULTS, results=(result,))
        # a call the server ran holds its own output: read so on purpose (no client result)
        return MessageView(Role.OTHER, understood=kind in self.server_calls)

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Items after a call, a reasoning item or an assistant message continue its turn; so do
        outputs that split a reasoning item from the model item after it, and that item (the
        turn ends after it, where such an output belongs)."""
        views = super().views(messages, context)
        splits = self._splits(messages)
        for index in range(1, len(views)):
            joins = self._in_turn(messages[index]) and (
                self._in_turn(messages[index - 1]) or index - 1 in splits
            )
            if joins or index in splits:
                views[index] = replace(views[index], joins_previous=True)
        return views

    def orphaned_by(self, messages: Sequence[Any], deleted: Collection[int]) -> dict[int, int]:
        """A reasoning item left without the model item it preceded (the API rejects it)."""
        orphans = {}
        for index in deleted:
            before = index - 1
            while before in deleted:
                before -= 1
            if before < 0 or _kind(messages[before]) != "reasoning":
                continue
            after = index + 1
            while after in deleted:
                after += 1
            if after >= len(messages) or not self._in_turn(messages[after]):
                orphans[before] = index
        return orphans

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        """Whether the list's outputs carry item ids (a stored conversation's do): then so does
        a synthetic output, derived from its call (`with_id`)."""
        return {"ids": any(self._output_with_id(m) for m in messages if m is not None)}

    def _output_with_id(self, item: Any) -> bool:
        kind = _kind(item)
        return (
            kind is not None
            and (kind in self.outputs or kind == "tool_search_output")
            and isinstance(item.get("id"), str)
        )

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        output = self._result_item(caller, call, text)
        if output is None or not style.get("ids"):
            return output
        return with_id(output, caller, call)

    def _result_item(self, caller: Any, call: ToolCall, text: str) -> dict[str, Any] | None:
        kind = _kind(caller)
        if self.client_search(caller):
            # Codex's answer to a search that never returned (codex-rs normalize.rs): no tools
            # found, the search not completed; the output has no room for a text.
            return {
                "type": "tool_search_output",
                self.key: call.id,
                "status": "incomplete",
                "execution": "client",
                "tools": [],
            }
        if kind is None or kind not in self.calls:
            return None  # a call of an unknown kind: no output is known to be truthful
        output, unanswerable = self.calls[kind]
        if unanswerable is not None:
            return None
        if kind == "apply_patch_call":
            return {"type": output, self.key: call.id, "status": "failed", "output": text}
        return self.output_item(output, caller, call, text)

    def output_item(self, output: str, caller: Any, call: ToolCall, text: str) -> dict[str, Any]:
        """The output item of type ``output`` that answers ``call`` with ``text``."""
        return {"type": output, "call_id": call.id, "output": text}


def with_id(output: dict[str, Any], caller: Any, call: ToolCall) -> dict[str, Any]:
    """``output`` with an item id derived from its call, as Codex derives one (``fco_`` and a
    UUIDv5 of the call's item id): the initials of the output's type, ``_``, and the UUIDv5 of
    the call item's id (its ``call_id`` where it has none), so that two runs write the same id."""
    kind = str(output["type"])
    source = caller.get("id") if isinstance(caller.get("id"), str) else call.id
    prefix = "".join(word[:1] for word in kind.split("_"))
    own = derived_id(f"responses/{prefix}/{source}").replace("-", "")
    return {
        "type": kind,
        "id": f"{prefix}_{own}",
        **{k: v for k, v in output.items() if k != "type"},
    }


#: How the reason of an output that splits a reasoning item begins (its id follows).
_SPLITS = "it separates reasoning item"


_SHELL_OUTPUT = "a shell_call" + _COMMAND_OUTPUT
#: The JavaScript Agents SDK's call items (docs/formats.md#openai-agents-sdk-javascript), their
#: results, and why no truthful result exists (``None``: one does).
JS_CALLS: Mapping[str, tuple[str, str | None]] = {
    "function_call": ("function_call_result", None),
    "apply_patch_call": ("apply_patch_call_output", None),
    "computer_call": ("computer_call_result", CALLS["computer_call"][1]),
    "shell_call": ("shell_call_output", _SHELL_OUTPUT),
    "program": (
        "program_output",
        "a program's result is what the program returned, which cannot be truthfully made up",
    ),
}
#: Result types only the JavaScript SDK spells so (the API's are ``*_output``).
_JS_ONLY = frozenset({"function_call_result", "computer_call_result", "hosted_tool_call"})


class OpenAIAgentsJS(OpenAIResponses):
    """The JavaScript Agents SDK's items (docs/formats.md#openai-agents-sdk-javascript): the
    Responses items in camelCase, answered by ``function_call_result``.

    Its messages and reasoning items are the Responses API's own, so they are no marker of this
    spelling; its call and result items are, by ``callId`` or their type."""

    name = "openai-agents-js"
    title = "OpenAI Agents SDK (JavaScript)"
    recognised_by = (
        "items with `callId`: function_call / function_call_result / computer_call_result / "
        "shell_call / apply_patch_call / program ..., and `hosted_tool_call` items"
    )
    containers = (
        "a list of input items (`result.history`, a session's items); "
        "`generatedItems[].rawItem` of a RunState.toJSON (checked, nothing added; its other "
        "lists are copies)"
    )
    calls = JS_CALLS
    outputs = frozenset(output for output, _ in JS_CALLS.values())
    other_items = frozenset(
        {"reasoning", "hosted_tool_call", "tool_search_call", "tool_search_output", "compaction"}
    )
    server_calls = frozenset({"hosted_tool_call", "tool_search_call"})
    key = "callId"
    output_suffixes = ("_output", "_result")
    #: Its user and assistant content parts (docs/formats.md#openai-agents-sdk-javascript).
    part_types = PART_TYPES | {"audio", "image"}
    spelling_of = "openai-responses"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict):
            return Recognition.NO
        kind = _kind(message)
        if kind in (None, "message"):
            found = self._recognize_message(message, typed=False)
            return Recognition.COMPATIBLE if found is not Recognition.NO else found
        if kind in _JS_ONLY or (
            (kind in self.calls or kind in self.outputs) and "callId" in message
        ):
            return Recognition.DISTINCT
        if kind in self.other_items:
            return Recognition.COMPATIBLE
        if kind in self.calls or kind in self.outputs:
            return Recognition.NO  # the API's own spelling (`call_id`)
        return Recognition.TOLERATED if self.unknown(message) else Recognition.NO

    def call_key(self, item: Mapping[str, Any], kind: str) -> str:
        return self.key

    def output_item(self, output: str, caller: Any, call: ToolCall, text: str) -> dict[str, Any]:
        """A ``function_call_result`` as the SDK writes one (``getToolCallOutputItem``)."""
        name = caller.get("name")
        result: dict[str, Any] = {"type": output, "name": name if isinstance(name, str) else ""}
        if isinstance(caller.get("namespace"), str):
            result["namespace"] = caller["namespace"]
        result |= {
            "callId": call.id,
            "status": "completed",
            "output": {"type": "text", "text": text},
        }
        return result
