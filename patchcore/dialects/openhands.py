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
from typing import Any

from patchcore.chat_names import openhands_event, tag
from patchcore.dialects.base import Recognition, ResultMessageDialect, call_id, optional_name
from patchcore.model import MessageView, Pointer, Role, ToolCall, ToolResult

#: The action OpenHands never answers: it ends the run and is sent as text.
FINISH = "finish"


def _metadata(value: Mapping[str, Any]) -> Mapping[str, Any] | None:
    metadata = value.get("tool_call_metadata")
    return metadata if isinstance(metadata, dict) else None


class OpenHands(ResultMessageDialect):
    """OpenHands actions and observations."""

    name = "openhands"
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
        if tag(message, "action") == FINISH or ident is None:
            return MessageView(Role.OTHER)
        if "action" in message:
            call = ToolCall(id=ident, name=name, path=("tool_call_metadata",))
            return MessageView(Role.CALLER, calls=(call,))
        return MessageView(Role.RESULTS, results=(ToolResult(ident, name=name),))

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        result: dict[str, Any] = {}
        if "timestamp" in caller:
            result["timestamp"] = caller["timestamp"]
        result.update(source="agent", message=text, cause=caller.get("id"), observation="error")
        result.update(tool_call_metadata=caller["tool_call_metadata"], content=text)
        result["extras"] = {"error_id": ""}
        return result

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The observation ``fix`` writes, with the ``id`` the layout gave it: that of the
        observation of the list caused by ``caller`` (``toolpatch strip`` compares them)."""
        given = next(
            (
                m.get("id")
                for m in messages
                if isinstance(m, dict) and "observation" in m and m.get("cause") == caller.get("id")
            ),
            None,
        )
        return {"id": given, **self.result_message(caller, call, text, style)}
