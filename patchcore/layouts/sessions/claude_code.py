"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``): one event a line.

How the file is read (docs/formats.md#claude-code; the real sessions of the shared corpus,
Claude Code versions 1.0-2.1):

* ``user`` and ``assistant`` lines carry an Anthropic message in ``message``. Every other known
  type (``summary``, ``system``, ``progress``, ``file-history-snapshot``, ...) is an event: kept,
  never paired. Messages nested in ``progress`` lines are a subagent's own traffic (its
  transcript has a file of its own) and are not read.
* Conversations: the main thread, and each sidechain (a subagent, ``isSidechain: true``): one per
  ``agentId``, or, in older files that keep subagents inline, one per root of the ``parentUuid``
  chain. A call is only ever answered within its own conversation.
* Order: within a conversation, the order of the file. The ``parentUuid`` links form a tree, not
  a line: Claude Code hangs each result of a parallel call off the assistant line that holds the
  call, so walking back from the last line skips sibling results; the file keeps the events in
  the order they happened (and, hand-written files, with every ``parentUuid`` null, have only it).
* Turns: consecutive assistant lines with one ``message.id`` are one API response (Claude Code
  writes one content block a line); consecutive user lines are one user turn, as Claude Code
  merges them before sending. The Anthropic dialect checks these turns
  (`patchcore.layouts.sessions.turns`, shared with the Claude Agent SDK's stream).

Repair: one new ``user`` line per assistant turn with unanswered calls, holding their
``tool_result`` blocks (``is_error: true``, the rule's text), right after the turn's last line.
That line's ``uuid`` becomes the new line's ``parentUuid``, and the lines that hung off it now
hang off the new line (only their ``parentUuid`` value changes): the new line is inserted into
the tree, so every chain through the call passes through its results. The new ``uuid`` is a
UUIDv5 of the session id and the first call id, so fixing the same file twice writes the same
bytes. Findings of the strict rules are reported without a fix: dropping or moving lines of a
session is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from patchcore.dialects.base import tag
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.turns import MESSAGE_TYPES, AnthropicSession, Turn, TurnRepair
from patchcore.model import Edit, Insert, Replace
from patchcore.options import Options

#: Event lines Claude Code writes besides messages.
EVENT_TYPES = frozenset(
    {"summary", "system", "progress", "file-history-snapshot", "queue-operation", "custom-title"}
)
#: Keys only Claude Code lines carry: one of them (with a known type) makes a file a session.
MARKERS = frozenset({"sessionId", "uuid", "parentUuid", "leafUuid", "messageId"})
#: Keys a new line copies from the assistant line before it, in Claude Code's own order.
SESSION_KEYS = (
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
)


class _Roots:
    """The first line of each line's ``parentUuid`` chain (sidechains kept inline start at a
    line whose parent is null)."""

    def __init__(self, lines: Iterable[Entry]) -> None:
        self._by_uuid: dict[str, dict[str, Any]] = {}
        for line in lines:
            if isinstance(line.value, dict) and isinstance(line.value.get("uuid"), str):
                self._by_uuid.setdefault(line.value["uuid"], line.value)
        self._found: dict[str, str | None] = {}

    def thread_of(self, value: dict[str, Any]) -> object:
        """The conversation a message line belongs to."""
        if value.get("isSidechain") is not True:
            return "main"
        agent = value.get("agentId")
        return ("agent", agent) if isinstance(agent, str) else ("sidechain", self.root(value))

    def root(self, value: dict[str, Any]) -> str | None:
        """The uuid of the topmost line of ``value``'s chain within the file."""
        path: list[str] = []
        seen: set[str] = set()
        node = value
        while True:
            own = node.get("uuid")
            if isinstance(own, str):
                if own in self._found:
                    top = self._found[own]
                    break
                if own in seen:  # a cycle (a hand-edited file): its first line stands for it
                    top = own
                    break
                path.append(own)
                seen.add(own)
            parent = node.get("parentUuid")
            above = self._by_uuid.get(parent) if isinstance(parent, str) else None
            if above is None:
                top = path[-1] if path else None
                break
            node = above
        self._found.update(dict.fromkeys(path, top))
        return top


class ClaudeCode(AnthropicSession):
    """Claude Code session JSONL."""

    short_name = "claude-code"
    title = "Claude Code session log"
    recognised_by = (
        "JSON Lines of events with `type` user / assistant / summary / system / progress / ... "
        "and `sessionId`, `uuid`, `parentUuid`; Anthropic messages in `message`, blocks of one "
        "response spread over lines sharing `message.id`"
    )
    containers = (
        "`~/.claude/projects/<project>/<session>.jsonl`, subagent files "
        "`<session>/subagents/agent-*.jsonl`"
    )
    name = "claude-code-session"
    events = EVENT_TYPES
    runs = False

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        kind = tag(value, "type")
        return kind in MESSAGE_TYPES | EVENT_TYPES and not MARKERS.isdisjoint(value)

    def conversations(self, entries: Sequence[Entry]) -> Callable[[dict[str, Any]], object]:
        return _Roots(entries).thread_of

    def repair(self, entries: Sequence[Entry], options: Options) -> TurnRepair:
        return _Repair(entries, options)


class _Repair(TurnRepair):
    """Chains each new line into the ``parentUuid`` tree."""

    def answer(self, turn: Turn, message: dict[str, Any], call_id: str) -> tuple[Edit, ...]:
        last = turn.entries[-1]
        new_uuid = self.new_uuid(last.value.get("sessionId"), call_id)
        value = _result_line(last.value, message, new_uuid)
        return (
            Insert((), last.position + 1, (value,)),
            *(Replace((child, "parentUuid"), new_uuid) for child in self._children(last)),
        )

    def _children(self, parent: Entry) -> list[int]:
        """Positions of the later lines that hang off ``parent``."""
        own = parent.value.get("uuid")
        if not isinstance(own, str):
            return []
        return [
            line.position
            for line in self.entries[parent.position + 1 :]
            if isinstance(line.value, dict) and line.value.get("parentUuid") == own
        ]


def _result_line(last: Mapping[str, Any], message: dict[str, Any], new_uuid: str) -> dict[str, Any]:
    """The new user line: chained to ``last``, with its session keys and timestamp."""
    value: dict[str, Any] = {"parentUuid": last.get("uuid")}
    value.update({key: last[key] for key in SESSION_KEYS if key in last})
    value.update(type="user", message=message, uuid=new_uuid)
    if "timestamp" in last:
        value["timestamp"] = last["timestamp"]
    return value
