"""Mastra's stored messages: AI SDK ``UIMessage`` parts kept under ``content``, checked only.

Mastra keeps a thread's messages as ``MastraDBMessage`` rows (``packages/core/src/agent/
message-list/state/types.ts``): ``{id, role, createdAt, threadId?, resourceId?, type?,
content: {format: 2, parts, toolInvocations?, content?, metadata?}}``, an AI SDK 4
``UIMessage`` nested under ``content`` whose parts may also be AI SDK 5 tool parts. Its calls
and results are the AI SDK's, so they are read by the AI SDK ``UIMessage`` reading
(`patchcore.dialects.ai_sdk_ui`) of ``{role, parts, toolInvocations}`` taken from ``content``:
one judgement of a part's state, not two.

What Mastra does with them before every request decides the rest (``sanitizeAIV4UIMessages``
and ``sanitizeV5UIMessages``, ``agent/message-list/conversion/output-converter.ts``): it
drops every AI SDK 4 invocation in state ``call`` or ``partial-call`` and every AI SDK 5 part
still in ``input-streaming`` or ``input-available``, so such a call never reaches the model
without its result. These are read as Mastra's to settle (`MessageView.understood`), not as
calls: no finding, and nothing written, since a result added by toolpatch would be a second,
different record of what Mastra already handles. Every other call is judged as the AI SDK
reading judges it, and reported; nothing is ever written into a Mastra row (`SANITIZED`).
A call-like object the AI SDK reading does not pair stays unread (TP004).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.ai_sdk_ui import OPEN_V4_STATES, STREAMING, WAITING, AISdkUI
from patchcore.dialects.base import Dialect, ListContext, Plan, Recognition
from patchcore.engine.apply import value_at
from patchcore.model import Defect, MessageView, Pointer, ToolCall, ToolResult

#: The roles of a ``MastraDBMessage``.
ROLES = frozenset({"user", "assistant", "system"})
#: The ``content.format`` of a ``MastraDBMessage`` (an AI SDK 4 ``UIMessage``).
FORMAT = 2
#: Where a ``MastraDBMessage`` keeps its ``UIMessage``.
CONTENT = "content"
#: The AI SDK 5 states of a part Mastra's sanitizer drops before a request.
DROPPED_V5_STATES = frozenset({STREAMING, WAITING})

#: Why nothing is written into a Mastra row, said in the findings left without a fix.
SANITIZED = (
    "Mastra sanitizes its stored messages itself before every request: toolpatch checks them "
    "and writes nothing into them"
)

#: The reading Mastra's ``UIMessage`` parts are delegated to.
_UI = AISdkUI()


def _ui_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """The AI SDK ``UIMessage`` a ``MastraDBMessage`` holds: its ``id`` and ``role``, and the
    ``parts`` and ``toolInvocations`` of its ``content`` (the same objects, so a path read in
    one is the path in ``content``)."""
    content = message[CONTENT]
    ui = {"id": message.get("id"), "role": message.get("role"), "parts": content.get("parts")}
    if "toolInvocations" in content:
        ui["toolInvocations"] = content["toolInvocations"]
    return ui


def _dropped(content: Mapping[str, Any], call: ToolCall) -> bool:
    """Whether Mastra's sanitizer drops ``call`` before a request: an AI SDK 4 invocation in
    ``call`` or ``partial-call``, an AI SDK 5 part in ``input-streaming`` or
    ``input-available``."""
    state = tag(value_at(content, call.path), "state")
    return state in (OPEN_V4_STATES if call.kind is None else DROPPED_V5_STATES)


def _inside(path: Pointer) -> Pointer:
    """A path read in the ``UIMessage``, as a path in the ``MastraDBMessage``."""
    return (CONTENT, *path)


def _moved_call(call: ToolCall) -> ToolCall:
    """A call read in the ``UIMessage``, placed in the ``MastraDBMessage``; one the AI SDK
    reading would answer gets no result here either (`SANITIZED`), and its finding says so."""
    id_at = None if call.id_at is None else _inside(call.id_at)
    unanswerable = call.unanswerable or SANITIZED
    return replace(call, path=_inside(call.path), id_at=id_at, unanswerable=unanswerable)


def _moved_result(result: ToolResult) -> ToolResult:
    id_at = None if result.id_at is None else _inside(result.id_at)
    return replace(result, path=_inside(result.path), id_at=id_at)


class Mastra(Dialect):
    """Mastra's ``MastraDBMessage`` rows (``content.format`` 2), checked only."""

    name = "mastra"
    text_keys = AISdkUI.text_keys
    argument_keys = AISdkUI.argument_keys
    title = "Mastra stored messages (check only)"
    kept_calls = SANITIZED
    recognised_by = (
        "`id`, `role`, `createdAt` and a `content` object with `format: 2` and a `parts` list "
        "of AI SDK `UIMessage` parts (`tool-invocation` parts, `toolInvocations`, AI SDK 5 "
        "tool parts), read as the AI SDK reading reads them; calls Mastra drops before a "
        "request are its own to settle (checked, never repaired)"
    )
    containers = (
        "a list of a thread's messages as Mastra's storage returns them (`MastraDBMessage`), "
        "or `messages` of an object that holds them"
    )

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        content = message.get(CONTENT)
        if not isinstance(content, dict) or content.get("format") != FORMAT:
            return Recognition.NO
        if "id" not in message or "createdAt" not in message or "parts" not in content:
            return Recognition.NO
        if _UI.recognize(_ui_message(message)) is Recognition.NO:
            return Recognition.NO  # a part the AI SDK does not write: read by nothing
        return Recognition.DISTINCT

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        """The AI SDK reading's view of the ``UIMessage`` under ``content``, without the calls
        Mastra drops before a request (read, on purpose, as nothing to pair)."""
        content = message[CONTENT]
        view = _UI.view(_ui_message(message), (*pointer, CONTENT))
        dropped = {call.key for call in view.calls if _dropped(content, call)}
        calls = tuple(_moved_call(c) for c in view.calls if c.key not in dropped)
        results = tuple(_moved_result(r) for r in view.inner_results if r.key not in dropped)
        return replace(
            view,
            calls=calls,
            inner_results=results,
            understood=view.understood or bool(dropped),
        )

    #: A result is part of its call's own part: the AI SDK reading's judgement, not a copy.
    misplaced = AISdkUI.misplaced

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        return [() for _ in defects]  # nothing is written into a Mastra row (`SANITIZED`)


__all__ = ["SANITIZED", "Mastra"]
