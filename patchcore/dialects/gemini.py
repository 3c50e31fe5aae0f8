"""Google Gemini ``contents``: ``functionCall`` parts answered by ``functionResponse`` parts.

* Both the REST spelling (``functionCall``, camelCase) and the Python SDK's ``model_dump()``
  spelling (``function_call``) are read; synthetic parts are written in the caller's spelling.
* Ids are optional. A call and a response pair on ``id`` when they have one; without, they pair
  by tool name and position within their turns (the first unanswered ``get_weather`` call of a
  turn with the first ``get_weather`` response of the answering turn).
* A synthetic part is ``{"functionResponse": {"id"?, "name", "response": {"error": "<text>"}}}``
  (the id only when the call has one), added to the user turn that follows the call turn, after
  its responses and before its text, or to a new ``user`` turn when the model speaks next: the
  response turn then has as many parts as the call turn has calls. Model turns, and their
  ``thoughtSignature`` parts, are never touched.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    NO_MESSAGE,
    BlockDialect,
    ListContext,
    Recognition,
    call_id,
    entry,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult, format_pointer

ROLES = frozenset({"user", "model", "function"})
CALL_KEYS = ("functionCall", "function_call")
RESPONSE_KEYS = ("functionResponse", "function_response")
#: A response to match: its id, its tool name, and where it sits in its message.
Response = tuple[str | None, str | None, Pointer]


def _payload(part: Any, keys: tuple[str, str]) -> tuple[str, Any] | None:
    """``(key, value)`` of a call or response part, in whichever spelling it uses."""
    if not isinstance(part, dict):
        return None
    for key in keys:
        if key in part:
            return key, part[key]
    return None


def read_parts(
    parts: Sequence[Any], pointer: Pointer, field: str
) -> tuple[list[ToolCall], list[Response], list[Response]]:
    """The calls of a list of parts (at ``field`` of the message at ``pointer``), the responses
    before its first call (answering an earlier turn) and those after it (answering its own
    calls, in a message that holds both). A call is keyed by its id, or by its name and
    position in the turn: unique to the turn, so a response to another turn's call of the same
    name and position never pairs with it."""
    calls: list[ToolCall] = []
    early: list[Response] = []
    late: list[Response] = []
    names: Counter[str] = Counter()
    for k, part in enumerate(parts):
        called = _payload(part, CALL_KEYS)
        responded = _payload(part, RESPONSE_KEYS)
        if called is not None:
            key, raw = called
            fields = entry(raw, (*pointer, field, k, key))
            ident = call_id(fields.get("id"), (*pointer, field, k, key, "id"))
            name = optional_name(fields.get("name"))
            positional = f"{format_pointer(pointer)}:{name or ''}#{names[name or '']}"
            names[name or ""] += 1
            calls.append(ToolCall(id=ident, name=name, path=(field, k), key=ident or positional))
        elif responded is not None:
            key, raw = responded
            fields = entry(raw, (*pointer, field, k, key))
            ident = call_id(fields.get("id"), (*pointer, field, k, key, "id"))
            (late if calls else early).append(
                (ident, optional_name(fields.get("name")), (field, k))
            )
    return calls, early, late


class Gemini(BlockDialect):
    """Google Gemini ``contents`` (REST and SDK spellings)."""

    name = "gemini"
    text_keys = ("text", "parts", "output", "response", "error", "message")
    argument_keys = ("args",)
    call_wrappers = ("functionCall", "function_call")
    title = "Google Gemini"
    recognised_by = (
        "`role` user/model with a `parts` list; `functionCall`/`functionResponse` parts "
        "(REST) or `function_call`/`function_response` (SDK dumps)"
    )
    containers = "`contents` of a request body; a list; ADK session files (`events[].content`)"
    provider_errors: ClassVar[Mapping[str, str]] = {
        **dict.fromkeys(
            ("TP001", "TP002", "TP003", "TP101", "TP103"),
            "Please ensure that the number of function response parts is equal to the number of "
            "function call parts of the function call turn.",
        ),
        "TP102": "Please ensure that function response turn comes immediately after a function "
        "call turn.",
        "TP104": "Please ensure that the number of function response parts is equal to the "
        "number of function call parts of the function call turn.",
    }
    blocks_key = "parts"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        parts = message.get("parts")
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            return Recognition.NO
        if any(_payload(p, CALL_KEYS) or _payload(p, RESPONSE_KEYS) for p in parts):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        return self._view(message, pointer, answering=())

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Responses are matched against the calls of the call turn they answer (the nearest
        turn with calls before them), so that an id is only compared when both sides have one."""
        views: list[MessageView] = []
        answering: tuple[ToolCall, ...] = ()
        taken: set[int] = set()
        for index, message in enumerate(messages):
            if message is None:
                views.append(NO_MESSAGE)
                continue
            pointer = context.message_pointer(index)
            view = self._view(message, pointer, answering=answering, taken=taken)
            views.append(view)
            if view.calls:
                answering, taken = view.calls, set()
        return views

    def _view(
        self,
        message: Any,
        pointer: Pointer,
        *,
        answering: Sequence[ToolCall],
        taken: set[int] | None = None,
    ) -> MessageView:
        parts = message.get("parts")
        if not isinstance(parts, list):
            return MessageView(Role.OTHER)
        calls, early, late = read_parts(parts, pointer, "parts")
        results = match_responses(early, answering, set() if taken is None else taken)
        if calls:
            inner = match_responses(late, calls, set())
            return MessageView(Role.CALLER, tuple(calls), results, inner)
        only_results = bool(parts) and all(_payload(p, RESPONSE_KEYS) for p in parts)
        return MessageView(Role.RESULTS if only_results else Role.OTHER, (), results)

    def is_reasoning(self, block: Any) -> bool:
        return isinstance(block, dict) and block.get("thought") is True

    def drop_breaks(self, previous: Any, kept: Any, following: Any) -> bool:
        """A model turn of calls must follow a user turn or a turn of responses: a drop must
        not leave one right after another model turn."""
        turns = [previous, following] if kept is None else [previous, kept, following]
        return any(
            _calls(after) and tag(before, "role") == "model" and not _responses(before)
            for before, after in itertools.pairwise(turns)
        )

    def takes_results(self, message: Any) -> bool:
        """The next turn takes the responses when it is a user (or legacy function) turn: the
        responses go first, before its text: a separate response turn followed by the user's
        own turn has been rejected (docs/pairing.md#placement)."""
        return message.get("role") in ("user", "function") and isinstance(
            message.get("parts"), list
        )

    def is_result_block(self, block: Any) -> bool:
        return _payload(block, RESPONSE_KEYS) is not None

    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        response: dict[str, Any] = {} if call.id is None else {"id": call.id}
        if call.name is not None:  # a nameless call gets a nameless response: it pairs by name
            response["name"] = call.name
        response["response"] = {"error": text}
        snake = any(isinstance(p, dict) and "function_call" in p for p in caller.get("parts", ()))
        return {"function_response" if snake else "functionResponse": response}

    def new_turn(self, caller: Any, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        turn = {"role": "user", "parts": blocks}
        # Keep the caller's key order (SDK dumps write "parts" before "role").
        return {key: turn[key] for key in caller if key in turn} | turn


def match_responses(
    responses: Sequence[Response],
    calls: Sequence[ToolCall],
    taken: set[int],
) -> tuple[ToolResult, ...]:
    """Responses as results, each keyed like the call it answers.

    A response answers the call with its id when both have one; otherwise the first call with
    its name that no response has answered yet (where either side lacks an id): ``taken`` holds
    the calls answered so far, across every turn that answers the same call turn, so a response
    moved to a later turn answers the call its position leaves open. A response for a call that
    is already answered keeps that call's key (a duplicate); one that answers none keeps its own
    id, or a key no call has: it is an orphan.
    """
    results = []
    for ident, name, path in responses:
        by_id = [k for k, c in enumerate(calls) if ident and c.id == ident]
        by_name = [k for k, c in enumerate(calls) if c.name == name and not (ident and c.id)]
        candidates = by_id + by_name
        match = next((k for k in candidates if k not in taken), None)
        if match is not None:
            taken.add(match)
            key = calls[match].key or ""
        elif candidates:
            key = calls[candidates[0]].key or ""  # its call is answered already: a duplicate
        else:
            key = ident or f"unanswered:{name or ''}"
        results.append(ToolResult(key, path, keyed=key == ident, name=name))
    return tuple(results)


def _calls(turn: Any) -> bool:
    """Whether ``turn`` is a Gemini turn with a function call part."""
    parts = turn.get("parts") if isinstance(turn, dict) else None
    return isinstance(parts, list) and any(
        isinstance(part, dict) and any(key in part for key in CALL_KEYS) for part in parts
    )


def _responses(turn: Any) -> bool:
    """Whether ``turn`` is a Gemini turn with a function response part."""
    parts = turn.get("parts") if isinstance(turn, dict) else None
    return isinstance(parts, list) and any(
        isinstance(part, dict) and any(key in part for key in RESPONSE_KEYS) for part in parts
    )
