"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``): one event a line.

How the file is read (formats.md §6.5; the real sessions of corpus/claude-code, versions 1.0-2.1):

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
  merges them before sending. The Anthropic dialect checks these turns.

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

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from patchcore.analyze import Options, check_list
from patchcore.defects import ANSWERED
from patchcore.dialects.anthropic import Anthropic
from patchcore.dialects.base import ListContext, tag
from patchcore.document import ListReport
from patchcore.errors import ShapeError, json_kind
from patchcore.model import Applicability, Edit, Finding, Fix, Insert, Pointer, Replace, ToolCall
from patchcore.rules import RULES, render_text
from patchcore.sessions.layout import (
    Analysis,
    SessionFormat,
    SessionLine,
    odd_line,
    place,
    relocated,
    unread,
)

ANTHROPIC = Anthropic()
MESSAGE_TYPES = frozenset({"user", "assistant"})
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
#: Namespace of the UUIDv5 of new lines (fixed: it makes a repair reproducible).
NAMESPACE = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")


@dataclass(frozen=True, slots=True)
class _MessageLine:
    """A ``user`` / ``assistant`` line whose message can be read."""

    line: SessionLine
    role: str
    message_id: object
    content: str | list[Any]


@dataclass
class _Turn:
    """One API message: the message lines it is made of and its merged content.

    ``parts[k]`` says where block ``k`` of the merged content comes from: the line, and the
    pointer inside its message (``("content", j)``, or ``("content",)`` for a plain string, which
    becomes a text block when lines are merged).
    """

    role: str
    message_id: object
    lines: list[SessionLine]
    content: str | list[Any]
    parts: list[tuple[SessionLine, Pointer]] = field(default_factory=list)

    @classmethod
    def of(cls, message: _MessageLine) -> _Turn:
        turn = cls(message.role, message.message_id, [message.line], message.content)
        turn.parts = _pieces(message.line, message.content)[1]
        return turn

    def joins(self, message: _MessageLine) -> bool:
        """Whether ``message`` continues this turn."""
        if message.role != self.role:
            return False
        return self.role == "user" or (
            self.message_id is not None and message.message_id == self.message_id
        )

    def add(self, message: _MessageLine) -> None:
        """Append a line's blocks (into a new list: the parsed lines are never changed)."""
        content = self.content
        current = _pieces(self.lines[0], content)[0] if isinstance(content, str) else content
        blocks, parts = _pieces(message.line, message.content)
        self.content = [*current, *blocks]
        self.parts += parts
        self.lines.append(message.line)

    def only_results(self) -> bool:
        """Whether the turn holds tool results and nothing else."""
        blocks = self.content
        return (
            isinstance(blocks, list)
            and bool(blocks)
            and all(map(ANTHROPIC.is_result_block, blocks))
        )

    def message(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content}

    def locate(self, path: Pointer) -> tuple[SessionLine, Pointer]:
        """The line and the pointer inside its message of ``path`` inside the merged message."""
        if len(path) >= 2 and path[0] == "content" and self.parts:
            index = path[1]
            assert isinstance(index, int)
            line, where = self.parts[index]
            return line, (*where, *path[2:])
        return self.lines[0], path


def _pieces(
    line: SessionLine, content: str | list[Any]
) -> tuple[list[Any], list[tuple[SessionLine, Pointer]]]:
    """A line's content as blocks (a plain string as a text block), and where each comes from."""
    if isinstance(content, str):
        return [ANTHROPIC.text_block(content)], [(line, ("content",))]
    return content, [(line, ("content", k)) for k in range(len(content))]


def _readable(value: dict[str, Any]) -> tuple[dict[str, Any], str | list[Any]] | str:
    """The message and content of a message line, or why it cannot be read as one."""
    line = "an assistant line" if value["type"] == "assistant" else "a user line"
    message = value.get("message")
    if not isinstance(message, dict):
        return f"{line} whose 'message' is {json_kind(message)}"
    content = message.get("content")
    if isinstance(content, str):
        return message, content
    if not isinstance(content, list):
        return f"{line} whose message has no 'content' list or text"
    odd = [block for block in content if not isinstance(block, dict)]
    if odd:
        return f"{line} whose 'content' holds {json_kind(odd[0])}"
    return message, content


def _thread_of(value: dict[str, Any], roots: _Roots) -> object:
    """The conversation a message line belongs to."""
    if value.get("isSidechain") is not True:
        return "main"
    agent = value.get("agentId")
    return ("agent", agent) if isinstance(agent, str) else ("sidechain", roots.root(value))


class _Roots:
    """The first line of each line's ``parentUuid`` chain (sidechains kept inline start at a
    line whose parent is null)."""

    def __init__(self, lines: Iterable[SessionLine]) -> None:
        self._by_uuid: dict[str, dict[str, Any]] = {}
        for line in lines:
            if isinstance(line.value, dict) and isinstance(line.value.get("uuid"), str):
                self._by_uuid.setdefault(line.value["uuid"], line.value)
        self._found: dict[str, str | None] = {}

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


def _turns(messages: Sequence[_MessageLine]) -> list[_Turn]:
    """The API messages Claude Code makes of a conversation's lines.

    Lines of one response that come after results of its first calls (Claude Code runs a call
    as soon as its block is complete, and writes its result before the next block) still belong
    to that response: Claude Code sends one assistant message with every call, then one user
    message with every result.
    """
    turns: list[_Turn] = []
    for message in messages:
        if turns and turns[-1].joins(message):
            turns[-1].add(message)
        elif len(turns) >= 2 and turns[-1].only_results() and turns[-2].joins(message):
            turns[-2].add(message)
        else:
            turns.append(_Turn.of(message))
    return turns


class ClaudeCode(SessionFormat):
    """Claude Code session JSONL."""

    name = "claude-code"
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
    framing = "claude-code-session"
    dialect = ANTHROPIC

    def recognises(self, value: dict[str, Any]) -> bool:
        kind = tag(value, "type")
        return kind in MESSAGE_TYPES | EVENT_TYPES and not MARKERS.isdisjoint(value)

    def analyse(self, lines: Sequence[SessionLine], options: Options, *, fixing: bool) -> Analysis:
        notes: list[ListReport] = []
        threads: dict[object, list[_MessageLine]] = {}
        roots = _Roots(lines)
        for line in lines:
            odd = odd_line(line)
            kind = tag(line.value, "type")
            if odd is not None:
                notes.append(odd)
            elif kind in MESSAGE_TYPES:
                read = _readable(line.value)
                if isinstance(read, str):
                    notes.append(unread(line, read))
                    continue
                message, content = read
                thread = threads.setdefault(_thread_of(line.value, roots), [])
                thread.append(_MessageLine(line, line.value["type"], message.get("id"), content))
            elif kind not in EVENT_TYPES:
                what = f"an event of unknown type {kind!r}" if kind else "an object without 'type'"
                notes.append(unread(line, what))
        lists: list[ListReport] = []
        findings: list[Finding] = []
        repair = _Repair(lines, options)
        for messages in threads.values():
            turns = _turns(messages)
            first = turns[0].lines[0].record.line
            lists.append(ListReport("", first, ANTHROPIC.name, len(turns), None))
            findings += repair.check(turns)
        findings.sort(key=lambda f: (f.line or 0, f.column or 0))
        reports = sorted(lists + notes, key=lambda r: r.line or 0)
        return Analysis(tuple(reports), tuple(findings))


class _Repair:
    """Checks the turns of a conversation and plans the new lines that answer its calls."""

    def __init__(self, lines: Sequence[SessionLine], options: Options) -> None:
        self.lines = lines
        self.options = options
        self.taken = {
            line.value["uuid"]
            for line in lines
            if isinstance(line.value, dict) and isinstance(line.value.get("uuid"), str)
        }

    def check(self, turns: Sequence[_Turn]) -> list[Finding]:
        """The conversation's findings, located in the file, with line fixes where safe (the
        dialect's own fixes edit merged messages: only the calls' results are carried over, as
        new lines)."""
        messages = [turn.message() for turn in turns]
        try:
            found = check_list(
                messages,
                dialect=ANTHROPIC,
                context=ListContext(()),
                options=self.options,
                plan_unsafe=False,
            )
        except ShapeError as error:
            turn = turns[int(error.path[0])]
            line, path = turn.locate(error.path[1:])
            raise relocated(error, line.record, ("message", *path)) from None
        answered: dict[int, list[Finding]] = {}
        for finding in found:
            if finding.code in ANSWERED and finding.fix is not None:
                answered.setdefault(finding.message_index, []).append(finding)
        fixes = {
            id(finding): fix
            for index, group in answered.items()
            for finding, fix in zip(group, self._fixes(turns[index], group), strict=True)
        }
        located = []
        for finding in found:
            line, path = turns[finding.message_index].locate(finding.call_path)
            row, column = place(line.record, ("message", *path))
            located.append(
                replace(
                    finding,
                    message_path=("message",),
                    call_path=path,
                    line=row,
                    column=column,
                    fix=fixes.get(id(finding)),
                )
            )
        return located

    def _fixes(self, turn: _Turn, group: Sequence[Finding]) -> list[Fix]:
        """One new line after ``turn`` answering every call of ``group`` (in call order)."""
        last = turn.lines[-1]
        blocks = [
            ANTHROPIC.result_block(
                turn.message(),
                ToolCall(finding.call_id, finding.tool_name),
                render_text(
                    self.options.text(finding.code),
                    name=finding.tool_name,
                    call_id=finding.call_id,
                ),
                {},
            )
            for finding in group
        ]
        new_uuid = self._new_uuid(last.value.get("sessionId"), group[0].call_id or "")
        value = _result_line(last.value, ANTHROPIC.new_turn(turn.message(), blocks), new_uuid)
        edits: tuple[Edit, ...] = (
            Insert((), last.position + 1, (value,)),
            *(Replace((child, "parentUuid"), new_uuid) for child in self._children(last)),
        )
        return [
            Fix(Applicability.SAFE, RULES[finding.code].fix_description or "", edits)
            for finding in group
        ]

    def _children(self, parent: SessionLine) -> list[int]:
        """Positions of the later lines that hang off ``parent``."""
        own = parent.value.get("uuid")
        if not isinstance(own, str):
            return []
        return [
            line.position
            for line in self.lines[parent.position + 1 :]
            if isinstance(line.value, dict) and line.value.get("parentUuid") == own
        ]

    def _new_uuid(self, session: object, call_id: str) -> str:
        """A UUIDv5 of the session and the call, unique in the file (a clash, which only a
        hand-edited file can have, moves to the next of a numbered series)."""
        name = f"{session if isinstance(session, str) else ''}/{call_id}"
        candidate = str(uuid.uuid5(NAMESPACE, name))
        number = 0
        while candidate in self.taken:
            number += 1
            candidate = str(uuid.uuid5(NAMESPACE, f"{name}/{number}"))
        self.taken.add(candidate)
        return candidate


def _result_line(last: Mapping[str, Any], message: dict[str, Any], new_uuid: str) -> dict[str, Any]:
    """The new user line: chained to ``last``, with its session keys and timestamp."""
    value: dict[str, Any] = {"parentUuid": last.get("uuid")}
    value.update({key: last[key] for key in SESSION_KEYS if key in last})
    value.update(type="user", message=message, uuid=new_uuid)
    if "timestamp" in last:
        value["timestamp"] = last["timestamp"]
    return value
