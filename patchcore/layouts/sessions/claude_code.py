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

Repair: for each unanswered call, a new ``user`` line holding its ``tool_result`` block
(``is_error: true``, the rule's text), written as Claude Code writes the result line of a tool
that failed: one result a line, the block's keys in the order of the session's own error
results, and, where the session's own result lines carry them, ``toolUseResult`` (for an error,
``"Error: "`` and the text) and ``sourceToolAssistantUUID`` (the ``uuid`` of the assistant line
holding the call). The lines of one turn go right after its last line, one after the other:
that line's ``uuid`` becomes the first new line's ``parentUuid``, each new line hangs off the one
before, and the lines that hung off the turn's last line now hang off the last new line (only
their ``parentUuid`` value changes): the new lines are inserted into the tree, so every chain
through the calls passes through their results. Each new ``uuid`` is a UUIDv5 of the session id
and the call id, so fixing the same file twice writes the same bytes. A turn of an inline
sidechain whose last line has no ``uuid`` (a damaged file) has nothing to hang a new line off: a
line with a null ``parentUuid`` would start a sidechain of its own, so its calls are reported
without a fix.

Strict findings (docs/formats.md#claude-code): a user turn's lines that hold results are read
before its other lines (a prompt or an ``isMeta`` line written between a call and its result),
as Claude Code sends them, so TP106 is not reported for those. TP106 in one line (text before
its results) and TP101 (an orphan result, a web search's whose ``server_tool_use`` line is gone)
are sent as they are and refused: their unsafe fixes move the line's results first, and drop the
orphan block, or its line with the lines after it re-pointed to its parent. Other strict
findings are reported without a fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from patchcore.chat_names import tag
from patchcore.layouts.base import (
    CLAUDE_CODE_EVENT_TYPES,
    claude_code_entry,
)
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.turns import ANTHROPIC, AnthropicSession, Turn, TurnRepair
from patchcore.model import Delete, Edit, Finding, Fix, Insert, Pointer, Replace, Verbatim
from patchcore.options import Options
from patchcore.rules import Applicability

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
        if not _inline_sidechain(value):
            return ("agent", value["agentId"])
        return ("sidechain", self.root(value))

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
    events = CLAUDE_CODE_EVENT_TYPES
    runs = False
    results_first = True

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return claude_code_entry(value)

    def conversations(self, entries: Sequence[Entry]) -> Callable[[dict[str, Any]], object]:
        return _Roots(entries).thread_of

    def repair(self, entries: Sequence[Entry], options: Options) -> TurnRepair:
        return _Repair(entries, options)


#: The keys of a failed tool's result block, in the order Claude Code writes them from 2.0 on
#: (every error result of the real sessions, 2.0.76 to 2.1.39).
_ERROR_BLOCK_KEYS = ("type", "content", "is_error", "tool_use_id")
#: The result fields of Claude Code's own tool-result lines (1.0 on; 2.1 on) that a new line
#: carries where the session's result lines do.
_RESULT_FIELDS = ("toolUseResult", "sourceToolAssistantUUID")
#: What the strict fixes of a session log do (`_Repair.strict_fixes`).
DROP_BLOCK = "drop the result from its line"
DROP_LINE = "drop the result's line (the lines that hung off it hang off its parent)"
RESULTS_FIRST = "move the results first in their line"


class _Repair(TurnRepair):
    """Chains the new lines into the ``parentUuid`` tree, one result a line, each written as
    the session's own result lines are."""

    def __init__(self, entries: Sequence[Entry], options: Options) -> None:
        super().__init__(entries, options)
        self._fields: set[str] = set()
        self._block_keys: tuple[str, ...] | None = None
        # Which lines hang off each uuid, found once: looking through the later lines for
        # each repaired turn made a session of N unanswered turns cost N passes over it.
        self._hanging: dict[str, list[int]] = {}
        for line in entries:
            value = line.value
            parent = value.get("parentUuid") if isinstance(value, dict) else None
            if isinstance(parent, str):
                self._hanging.setdefault(parent, []).append(line.position)
            if not isinstance(value, dict) or value.get("type") != "user":
                continue
            blocks = [b for b in _content(value) if tag(b, "type") == "tool_result"]
            if not blocks:
                continue
            self._fields.update(key for key in _RESULT_FIELDS if key in value)
            errors = [b for b in blocks if b.get("is_error") is True]
            if self._block_keys is None and errors and set(errors[0]) == set(_ERROR_BLOCK_KEYS):
                self._block_keys = tuple(errors[0])

    def answer(self, turn: Turn, message: dict[str, Any], call_id: str) -> tuple[Edit, ...] | None:
        last = turn.entries[-1]
        session = last.value.get("sessionId")
        parent = last.value.get("uuid")
        if not isinstance(parent, str):
            # Nothing can hang off a line without a uuid: a new line would start a chain of its
            # own (in an inline sidechain, a sidechain of its own, leaving the calls unanswered
            # in theirs; on the main thread, a conversation that a resume from its leaf would
            # read as one lone result), so the calls are reported and left.
            return None
        lines = []
        for k, block in enumerate(message["content"]):
            answered = block["tool_use_id"]
            new_uuid = self.new_uuid(session, call_id if k == 0 else answered)
            result = self._block(block, last.value.get("version"))
            value = _result_line(last.value, {**message, "content": [result]})
            value.update(parentUuid=parent, uuid=new_uuid)
            if "timestamp" in last.value:
                value["timestamp"] = last.value["timestamp"]
            if "toolUseResult" in self._fields:
                value["toolUseResult"] = f"Error: {block['content']}"
            source = _source(turn, answered)
            if "sourceToolAssistantUUID" in self._fields and source is not None:
                value["sourceToolAssistantUUID"] = source
            lines.append(value)
            parent = new_uuid
        return (
            Insert((), last.position + 1, tuple(lines)),
            *(Replace((child, "parentUuid"), parent) for child in self._children(last)),
        )

    def strict_fixes(
        self, turns: Sequence[Turn], found: Sequence[Finding]
    ) -> dict[int, tuple[Entry, Pointer, Fix]]:
        """TP101: the orphan result dropped from its line, or, when it is all the line holds,
        the line dropped and the lines that hung off it re-pointed to its parent (`unadded`), so
        that the ``parentUuid`` chain Claude Code walks on ``--resume`` still reaches them.
        TP106: each line's results moved first in its content, where that makes the turn
        Claude Code sends begin with its results (it sends one line's blocks in their order,
        docs/proxy.md#what-claude-code-sends-of-a-broken-session). Both unsafe."""
        fixes: dict[int, tuple[Entry, Pointer, Fix]] = {}
        orphans: dict[int, list[tuple[Finding, Pointer]]] = {}
        reorders: list[tuple[Finding, Entry, tuple[Edit, ...]]] = []
        lines: dict[int, Entry] = {}
        for finding in found:
            turn = turns[finding.message_index]
            if finding.code == "TP101":
                entry, path = turn.locate(finding.call_path)
                if len(path) == 2 and path[0] == "content":
                    orphans.setdefault(entry.position, []).append((finding, path))
                    lines[entry.position] = entry
            elif finding.code == "TP106":
                moved = _results_first_in_lines(turn)
                if moved is not None:
                    reorders.append((finding, *moved))
        for finding, entry, edits in reorders:
            # a line that loses an orphan result is settled by that drop (what is left of it
            # holds no result to put first), and both would rewrite its content: no reorder
            if any(isinstance(edit, Replace) and edit.pointer[0] in orphans for edit in edits):
                continue
            fixes[id(finding)] = (
                entry,
                ("content",),
                Fix(Applicability.UNSAFE, RESULTS_FIRST, edits),
            )
        emptied = [
            lines[at]
            for at, items in orphans.items()
            if len({path[1] for _, path in items}) == len(_content(lines[at].value))
        ]
        shared = self.unadded(emptied)
        for at, items in orphans.items():
            line_fix = None
            if lines[at] in emptied:
                line_fix = Fix(Applicability.UNSAFE, DROP_LINE, (Delete((at,)), *shared))
            for finding, path in items:
                fix = line_fix or Fix(
                    Applicability.UNSAFE, DROP_BLOCK, (Delete((at, "message", *path)),)
                )
                fixes[id(finding)] = (lines[at], path, fix)
        return fixes

    def unadded(self, doomed: Sequence[Entry]) -> tuple[Edit, ...]:
        """The lines that hang off a removed line hang off its parent again (the first one
        kept, up a chain of removed lines), as before `answer` re-pointed them."""
        parents = {
            line.value.get("uuid"): line.value.get("parentUuid")
            for line in doomed
            if isinstance(line.value.get("uuid"), str)
        }
        edits: list[Edit] = []
        for line in self.entries:
            value = line.value
            if not isinstance(value, dict) or line in doomed:
                continue
            parent = value.get("parentUuid")
            if parent not in parents:
                continue
            passed = set()
            while parent in parents:
                if parent in passed:  # removed lines that hang off each other: no kept parent
                    parent = None
                    break
                passed.add(parent)
                parent = parents[parent]
            edits.append(Replace((line.position, "parentUuid"), parent))
        return tuple(edits)

    def _block(self, block: dict[str, Any], version: object) -> dict[str, Any]:
        """``block`` with its keys in the order of the session's own error results, or, in a
        session that has none, of Claude Code 2's (from version 2 on)."""
        keys = self._block_keys
        if keys is None and isinstance(version, str) and version.split(".")[0].isdigit():
            keys = _ERROR_BLOCK_KEYS if int(version.split(".")[0]) >= 2 else None
        return block if keys is None else {key: block[key] for key in keys}

    def _children(self, parent: Entry) -> list[int]:
        """Positions of the later lines that hang off ``parent``."""
        own = parent.value.get("uuid")
        if not isinstance(own, str):
            return []
        return [at for at in self._hanging.get(own, ()) if at > parent.position]


def _results_first_in_lines(turn: Turn) -> tuple[Entry, tuple[Edit, ...]] | None:
    """The first line of ``turn`` whose blocks change and the edits that move each line's
    results before its other blocks, or ``None`` where that leaves the turn Claude Code sends
    still not beginning with all its results (text of one line before results of the next:
    what the client sends of it is not known)."""
    if not isinstance(turn.content, list):
        return None
    order: dict[int, Entry] = {}
    by_line: dict[int, list[bool]] = {}
    for (entry, _), block in zip(turn.parts, turn.content, strict=True):
        order.setdefault(entry.position, entry)
        by_line.setdefault(entry.position, []).append(ANTHROPIC.is_result_block(block))
    edits: list[Edit] = []
    first: Entry | None = None
    for at, entry in order.items():
        blocks = _content(entry.value)
        results = [k for k, block in enumerate(blocks) if ANTHROPIC.is_result_block(block)]
        others = [k for k, block in enumerate(blocks) if not ANTHROPIC.is_result_block(block)]
        if results + others == list(range(len(blocks))):
            continue
        pointer = (at, "message", "content")
        edits.append(Replace(pointer, [Verbatim((*pointer, k)) for k in results + others]))
        first = first or entry
    # the turn as Claude Code would send it then: each line's results first, lines in turn order
    flags = [flag for at in order for flag in sorted(by_line[at], reverse=True)]
    if first is None or True not in flags:
        return None
    if False in flags[: len(flags) - flags[::-1].index(True)]:
        return None
    return first, tuple(edits)


def _inline_sidechain(value: Mapping[str, Any]) -> bool:
    """Whether a line is of a sidechain kept inline (no ``agentId``), whose conversation is the
    root of its ``parentUuid`` chain."""
    return value.get("isSidechain") is True and not isinstance(value.get("agentId"), str)


def _result_line(last: Mapping[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """A new user line with ``last``'s session keys, in Claude Code's order (its
    ``parentUuid``, ``uuid`` and ``timestamp`` are the caller's to fill in)."""
    value: dict[str, Any] = {"parentUuid": None}
    value.update({key: last[key] for key in SESSION_KEYS if key in last})
    value.update(type="user", message=message, uuid=None)
    return value


def _content(line: Mapping[str, Any]) -> list[Any]:
    """The block list of a message line (empty for a plain-string or odd message)."""
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _source(turn: Turn, call_id: str) -> str | None:
    """The ``uuid`` of the line of ``turn`` that holds the ``tool_use`` block ``call_id``."""
    for entry, _ in turn.parts:
        value = entry.value
        for block in _content(value):
            if tag(block, "type") == "tool_use" and block.get("id") == call_id:
                own = value.get("uuid")
                return own if isinstance(own, str) else None
    return None
