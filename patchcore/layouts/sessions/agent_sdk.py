"""The Claude Agent SDK's message stream: what ``claude -p --output-format stream-json`` prints and
the SDK's ``query()`` yields, one message an entry.

How it is read (the SDK's ``SDKMessage`` types; corpus/claude-code, the vercel/ai fixture):

* Entries are ``{"type", "message", "parent_tool_use_id", "session_id", "uuid", ...}``. ``user``
  and ``assistant`` entries carry an Anthropic message in ``message``: the CLI writes the API
  message with its ``role``, hand-written streams leave it out (the entry's ``type`` is the
  role). Every other type (``system``, ``result``, ``stream_event``, ``tool_progress``, ...) is an
  event: kept, never paired.
* Conversations: entries whose ``parent_tool_use_id`` is null are the main thread; entries whose
  ``parent_tool_use_id`` is a call's id are the conversation of the subagent that call started.
  The SDK interleaves them (the ``Agent`` call's result comes after the subagent's own calls), and
  a call is only ever answered within its own conversation.
* Turns: the SDK emits one entry per content block, and the API merges consecutive messages of a
  role, so consecutive assistant entries are one turn whatever their ``message.id``, and
  consecutive user entries one user turn (`patchcore.layouts.sessions.turns`).
* Framing: JSON Lines (the CLI's output), or one JSON array of the entries (a stream saved
  whole). The first entry tells: its ``type`` is one the SDK emits, it has ``parent_tool_use_id``
  or ``session_id`` (keys of the SDK, which Claude Code's session lines spell ``parentUuid`` and
  ``sessionId``), and a message entry's ``message`` is an object whose ``role``, if any, is its
  ``type``.

Repair: one new ``user`` entry per assistant turn with unanswered calls, right after the turn's
last entry, in its conversation (the ``parent_tool_use_id`` of the call's entry). It has the keys
of the call's entry among ``type``, ``message``, ``parent_tool_use_id``, ``session_id`` and
``uuid``, in that entry's order: ``session_id`` copied, a ``uuid`` (a UUIDv5 of the session id
and the first call id) only where the entries carry one, and a ``role`` in the message only where
the call's message has one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from patchcore.layouts.base import AGENT_SDK_EVENT_TYPES, agent_sdk_entry
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.turns import AnthropicSession, Turn, TurnRepair
from patchcore.model import Edit, Insert
from patchcore.options import Options

#: The keys a new entry may have (those the call's entry has, in its order).
ENTRY_KEYS = frozenset({"type", "message", "parent_tool_use_id", "session_id", "uuid"})


class AgentSdk(AnthropicSession):
    """Claude Agent SDK message stream (stream-json)."""

    short_name = "claude-agent-sdk"
    title = "Claude Agent SDK message stream"
    recognised_by = (
        "JSON Lines, or one JSON array, of messages with `type` user / assistant / system / "
        "result / stream_event / ... and `parent_tool_use_id` or `session_id`; Anthropic "
        "messages in `message` (one content block an entry), a subagent's conversation marked "
        "by the `parent_tool_use_id` of the call that started it"
    )
    containers = (
        "`claude -p --output-format stream-json` output, the Agent SDK's `query()` messages "
        "saved as JSON Lines or as a JSON array"
    )
    name = "claude-agent-sdk-stream"
    arrays = True
    events = AGENT_SDK_EVENT_TYPES
    runs = True

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return agent_sdk_entry(value)

    def conversations(self, entries: Sequence[Entry]) -> Callable[[dict[str, Any]], object]:
        return _conversation

    def repair(self, entries: Sequence[Entry], options: Options) -> TurnRepair:
        return _Repair(entries, options)


def _conversation(value: dict[str, Any]) -> object:
    """The call whose subagent wrote the entry, or ``None`` for the main thread."""
    parent = value.get("parent_tool_use_id")
    return parent if isinstance(parent, str) else None


class _Repair(TurnRepair):
    """Writes each new entry in the shape of the entry holding the call."""

    def answer(self, turn: Turn, message: dict[str, Any], call_id: str) -> tuple[Edit, ...]:
        last = turn.entries[-1]
        call = last.value
        if "role" not in call["message"]:
            message = {"content": message["content"]}
        fresh: dict[str, Any] = {"type": "user", "message": message}
        for key in ("parent_tool_use_id", "session_id"):
            if key in call:
                fresh[key] = call[key]
        if "uuid" in call:
            fresh["uuid"] = self.new_uuid(call.get("session_id"), call_id)
        order = [key for key in call if key in ENTRY_KEYS]
        value = {key: fresh[key] for key in [*order, *fresh] if key in fresh}
        return (Insert((), last.position + 1, (value,)),)
