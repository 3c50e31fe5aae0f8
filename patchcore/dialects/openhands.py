"""OpenHands events (All-Hands-AI/OpenHands ``openhands/events/serialization/event.py``), as its
trajectories and event stores keep them.

An *action* the model called as a tool carries ``tool_call_metadata`` (``function_name``,
``tool_call_id``, the whole ``model_response``); the *observation* that answers it carries the
same metadata and ``cause``, the action's event id. OpenHands builds what it sends from these
(``openhands/memory/conversation_memory.py``): an action's assistant message is held back until
an observation answers each of its calls, so a call without one is never sent, nor anything the
model said with it. The ``finish`` action is sent as a plain assistant message, its metadata
removed: never a call, never answered (`AgentFinishAction`).

A synthetic result is what the agent controller writes for an action left pending when the
agent stops or fails (``AgentController._reset``): an ``ErrorObservation`` with the action's
``tool_call_metadata`` and ``cause``, serialized as ``event_to_dict`` writes it
(docs/formats.md#openhands-trajectories).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import openhands_event, tag
from patchcore.dialects.base import (
    ListContext,
    Recognition,
    ResultMessageDialect,
    call_id,
    optional_name,
)
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

#: The action OpenHands never answers: it ends the run and is sent as text.
FINISH = "finish"


#: Where a model response keeps its calls, inside an event's ``tool_call_metadata``.
RESPONSE_CALLS = ("model_response", "choices", 0, "message", "tool_calls")


def _metadata(value: Mapping[str, Any]) -> Mapping[str, Any] | None:
    metadata = value.get("tool_call_metadata")
    return metadata if isinstance(metadata, dict) else None


def _response_calls(metadata: Mapping[str, Any]) -> tuple[object, list[Any]]:
    """The id of the model response an action came from, and the calls that response made
    (``[]`` where the metadata does not hold them)."""
    value: Any = metadata
    for key in RESPONSE_CALLS:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and len(value) > key else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
        if key == "model_response":
            response = value.get("id") if isinstance(value, dict) else None
    return response, value if isinstance(value, list) else []


class OpenHands(ResultMessageDialect):
    """OpenHands actions and observations."""

    name = "openhands"
    role_keys = ("source",)
    text_keys = ("content", "message")
    title = "OpenHands events"
    recognised_by = (
        "events with `id`, `timestamp`, `source` and `action` or `observation`; calls are "
        "actions with `tool_call_metadata`, answered by the observation with the same "
        "`tool_call_id` (and `cause`); `finish` is no call"
    )
    containers = "an OpenHands trajectory (a JSON array of events)"

    def recognize(self, message: object) -> Recognition:
        if not openhands_event(message):
            return Recognition.NO
        assert isinstance(message, dict)
        return Recognition.DISTINCT if _metadata(message) else Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        metadata = _metadata(message)
        if metadata is None:
            return MessageView(Role.OTHER)
        at = (*pointer, "tool_call_metadata", "tool_call_id")
        ident = call_id(metadata.get("tool_call_id"), at)
        name = optional_name(metadata.get("function_name"))
        if tag(message, "action") == FINISH:  # sent as text, no call: read so on purpose
            return MessageView(Role.OTHER, understood=True)
        if ident is None:
            return MessageView(Role.OTHER)
        if "action" in message:
            call = ToolCall(id=ident, name=name, path=("tool_call_metadata",))
            return MessageView(Role.CALLER, calls=(call,))
        return MessageView(Role.RESULTS, results=(ToolResult(ident, name=name),))

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Each action's own call, and, on the first action of a model response, the calls of
        that response that no action of the list carries: OpenHands queues one action per
        call and writes each as it runs it, so a run stopped in between leaves calls that only
        the response names. Its conversation memory holds the response's message back until
        every one of its calls is answered, so they are calls like the others (a response
        whose only call is ``finish`` holds nothing back)."""
        views = super().views(messages, context)
        carried = {call.id for view in views for call in view.calls}
        seen: set[str] = set()
        for index, (message, view) in enumerate(zip(messages, views, strict=True)):
            if view.role is not Role.CALLER:
                continue
            response, calls = _response_calls(message["tool_call_metadata"])
            if not isinstance(response, str) or response in seen:
                continue
            seen.add(response)
            pointer = context.message_pointer(index)
            extra = [
                _response_call(raw, (*pointer, "tool_call_metadata", *RESPONSE_CALLS, k))
                for k, raw in enumerate(calls)
                if isinstance(raw, dict)
                and isinstance(raw.get("id"), str)
                and raw["id"] not in carried
            ]
            views[index] = replace(view, calls=(*view.calls, *extra))
        return views

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        """An ``ErrorObservation`` with the calling action's metadata, named for ``call``; its
        ``cause`` is the action's id where the call is the action's own (a call only its
        response names has no action to be caused by)."""
        metadata = dict(caller["tool_call_metadata"])
        own = metadata.get("tool_call_id") == call.id
        metadata.update(function_name=call.name or "unknown", tool_call_id=call.id)
        result: dict[str, Any] = {}
        if "timestamp" in caller:
            result["timestamp"] = caller["timestamp"]
        result.update(source="agent", message=text)
        if own and caller.get("id") is not None:
            result["cause"] = caller["id"]
        result.update(observation="error", tool_call_metadata=metadata, content=text)
        result["extras"] = {"error_id": ""}
        return result

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The observation ``fix`` writes, with the ``id`` the layout gave it: that of the error
        observation of the list that answers ``call`` (``toolpatch strip`` compares them)."""
        given = next(
            (
                m.get("id")
                for m in messages
                if tag(m, "observation") == "error"
                and (_metadata(m) or {}).get("tool_call_id") == call.id
            ),
            None,
        )
        return {"id": given, **self.result_message(caller, call, text, style)}


def _response_call(raw: Mapping[str, Any], pointer: Pointer) -> ToolCall:
    """A call of a model response (OpenAI Chat's shape, as litellm returns it)."""
    function = raw.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return ToolCall(
        id=call_id(raw.get("id"), (*pointer, "id")),
        name=optional_name(name),
        path=tuple(pointer[-len(RESPONSE_CALLS) - 2 :]),
    )
