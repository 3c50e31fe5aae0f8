"""Anthropic conversations spread over session entries: what Claude Code sessions and the Claude
Agent SDK's message stream share.

Both write each API message of a conversation as entries ``{"type": "user" | "assistant",
"message": {...}}``, often one content block an entry, with the conversations of subagents
interleaved with the main one. This module reads the message entries of each conversation into
the turns the API receives, checks them with the Anthropic dialect, and answers each turn's
unanswered calls with one new user entry right after the turn's last entry, holding their
``tool_result`` blocks (``is_error: true``, the rule's text). A layout says which conversation an
entry belongs to, which entries make one turn, and what the new entry looks like
(`AnthropicSession`, `TurnRepair.answer`).

Turns: consecutive user entries are one user turn, as the API merges them. Assistant entries are
one turn when they are one response (the same ``message.id``), or, for a layout that says so,
whenever they follow each other. Entries of a response that come after results of its first
calls (Claude Code runs a call as soon as its block is complete, and writes its result before
the next block) still belong to that response: the API receives one assistant message with every
call, then one user message with every result.

A new entry's ``uuid``, where it has one, is a UUIDv5 of the session id and the first call id,
so fixing the same file twice writes the same bytes. Findings of the strict rules are reported
without a fix, but where a layout writes one into its entries (`TurnRepair.strict_fixes`). TP307's
text (under ``--target anthropic``) is written into the empty content of the error result where
its entry holds it: no entry is added or moved.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.anthropic import Anthropic
from patchcore.dialects.base import SESSION_LOG, ListContext
from patchcore.engine.check import (
    RECORDED_DESCRIPTION,
    STRIP_DESCRIPTION,
    answer_text,
    check_list,
)
from patchcore.errors import ShapeError, json_kind
from patchcore.layouts.base import MESSAGE_TYPES, Analysis
from patchcore.layouts.sessions.entries import Entry, place, relocated
from patchcore.layouts.sessions.layout import SessionLayout, odd_entry, unread
from patchcore.model import (
    ANSWERED,
    NAMESPACE,
    Delete,
    Edit,
    Finding,
    Fix,
    Insert,
    Pointer,
    Replace,
    ToolCall,
)
from patchcore.options import Options
from patchcore.result import Conversation
from patchcore.rules import RULES, Applicability, Origin

ANTHROPIC = Anthropic()


@dataclass(frozen=True, slots=True)
class _MessageEntry:
    """A ``user`` / ``assistant`` entry whose message can be read."""

    entry: Entry
    role: str
    message_id: object
    content: str | list[Any]


@dataclass
class Turn:
    """One API message: the message entries it is made of and its merged content.

    ``parts[k]`` says where block ``k`` of the merged content comes from: the entry, and the
    pointer inside its message (``("content", j)``, or ``("content",)`` for a plain string, which
    becomes a text block when entries are merged).
    """

    role: str
    message_id: object
    entries: list[Entry]
    content: str | list[Any]
    parts: list[tuple[Entry, Pointer]] = field(default_factory=list)

    @classmethod
    def of(cls, message: _MessageEntry) -> Turn:
        turn = cls(message.role, message.message_id, [message.entry], message.content)
        turn.parts = _pieces(message.entry, message.content)[1]
        return turn

    def same_response(self, message: _MessageEntry) -> bool:
        """Whether ``message`` is more of this turn's API response (one ``message.id``)."""
        return (
            message.role == self.role == "assistant"
            and self.message_id is not None
            and message.message_id == self.message_id
        )

    def add(self, message: _MessageEntry) -> None:
        """Append an entry's blocks (into a new list: the parsed entries are never changed)."""
        content = self.content
        current = _pieces(self.entries[0], content)[0] if isinstance(content, str) else content
        blocks, parts = _pieces(message.entry, message.content)
        self.content = [*current, *blocks]
        self.parts += parts
        self.entries.append(message.entry)

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

    def locate(self, path: Pointer) -> tuple[Entry, Pointer]:
        """The entry and the pointer inside its message of ``path`` inside the merged message."""
        if len(path) >= 2 and path[0] == "content" and self.parts:
            index = path[1]
            assert isinstance(index, int)
            entry, where = self.parts[index]
            return entry, (*where, *path[2:])
        return self.entries[0], path


def _pieces(
    entry: Entry, content: str | list[Any]
) -> tuple[list[Any], list[tuple[Entry, Pointer]]]:
    """An entry's content as blocks (a plain string as a text block), and where each comes from."""
    if isinstance(content, str):
        return [ANTHROPIC.text_block(content)], [(entry, ("content",))]
    return content, [(entry, ("content", k)) for k in range(len(content))]


def _readable(entry: Entry) -> tuple[dict[str, Any], str | list[Any]] | str:
    """The message and content of a message entry, or why it cannot be read as one."""
    value = entry.value
    what = f"an assistant {entry.noun}" if value["type"] == "assistant" else f"a user {entry.noun}"
    message = value.get("message")
    if not isinstance(message, dict):
        return f"{what} whose 'message' is {json_kind(message)}"
    content = message.get("content")
    if isinstance(content, str):
        return message, content
    if not isinstance(content, list):
        return f"{what} whose message has no 'content' list or text"
    odd = [block for block in content if not isinstance(block, dict)]
    if odd:
        return f"{what} whose 'content' holds {json_kind(odd[0])}"
    return message, content


def _group_turns(
    messages: Sequence[_MessageEntry], *, runs: bool, results_first: bool
) -> list[Turn]:
    """The API messages a conversation's entries make (``runs``: consecutive assistant entries
    are one turn whatever their ``message.id``; ``results_first``: a user turn's entries that
    hold tool results come before its other entries, `_results_first`)."""
    turns: list[Turn] = []
    for message in messages:
        last = turns[-1] if turns else None
        if (
            last is not None
            and last.role == message.role
            and (message.role == "user" or runs or last.same_response(message))
        ):
            last.add(message)
        elif len(turns) >= 2 and turns[-2].same_response(message) and turns[-1].only_results():
            turns[-2].add(message)
        else:
            turns.append(Turn.of(message))
    return [_results_first(turn) for turn in turns] if results_first else turns


def _results_first(turn: Turn) -> Turn:
    """A user turn of several entries with the blocks of those that hold tool results first,
    each entry's blocks in their own order (its entries stay in the file's order): what a client
    that sends results first when it merges a turn's entries sends of it (Claude Code: a prompt
    or an ``isMeta`` line written between a call and its result,
    docs/proxy.md#what-claude-code-sends-of-a-broken-session)."""
    if turn.role != "user" or len(turn.entries) < 2 or not isinstance(turn.content, list):
        return turn
    holding = {
        entry.position
        for (entry, _), block in zip(turn.parts, turn.content, strict=True)
        if ANTHROPIC.is_result_block(block)
    }
    order = sorted(range(len(turn.parts)), key=lambda k: turn.parts[k][0].position not in holding)
    content = [turn.content[k] for k in order]
    parts = [turn.parts[k] for k in order]
    return Turn(turn.role, turn.message_id, turn.entries, content, parts)


class TurnRepair(ABC):
    """Checks the turns of a session's conversations and plans the new entries that answer
    their calls (what such an entry looks like is the layout's `answer`)."""

    def __init__(self, entries: Sequence[Entry], options: Options) -> None:
        self.entries = entries
        self.options = options
        self._taken = {
            entry.value["uuid"]
            for entry in entries
            if isinstance(entry.value, dict) and isinstance(entry.value.get("uuid"), str)
        }

    @abstractmethod
    def answer(self, turn: Turn, message: dict[str, Any], call_id: str) -> tuple[Edit, ...] | None:
        """The edits that add ``message`` (a user message holding the results of ``turn``'s
        unanswered calls, the first of them ``call_id``) to the file right after ``turn``, or
        ``None`` when no entry written there would join ``turn``'s conversation (its calls are
        then reported without a fix)."""

    def check(self, turns: Sequence[Turn]) -> tuple[list[Finding], list[tuple[Edit, ...]]]:
        """The conversation's findings, located in the file, with entry fixes where safe (the
        dialect's own fixes edit merged messages: only the calls' results are carried over, as
        new entries); and for each, what its fix does to the turns (a new user turn after the
        turn it answers), for whoever shows the conversation.
        """
        messages = [turn.message() for turn in turns]
        try:
            found = check_list(
                messages,
                dialect=ANTHROPIC,
                # toolpatch strip reads the entries toolpatch added, as one list would hold them
                context=ListContext((), kept_calls=None if self.options.strip else SESSION_LOG),
                options=self.options,
                # the dialect says which strict findings have a fix; `strict_fixes` writes it
                plan_unsafe=True,
            )
        except ShapeError as error:
            turn = turns[int(error.path[0])]
            entry, path = turn.locate(error.path[1:])
            raise relocated(error, entry, ("message", *path)) from None
        if self.options.strip:
            return self._stripped(turns, found)
        answered: dict[int, list[Finding]] = {}
        for finding in found:
            if finding.code in ANSWERED and finding.fix is not None:
                answered.setdefault(finding.message_index, []).append(finding)
        fixes: dict[int, tuple[Fix, tuple[Edit, ...]]] = {}
        for index, group in answered.items():
            planned_fixes = self._fixes(turns[index], group)
            if planned_fixes is None:
                continue
            planned, new_turn = planned_fixes
            shown: tuple[Edit, ...] = (Insert((), index + 1, (new_turn,)),)
            fixes.update((id(f), (fix, shown)) for f, fix in zip(group, planned, strict=True))
        strict = self.strict_fixes(
            turns, [f for f in found if f.code not in ANSWERED and f.fix is not None]
        )
        located = []
        edits: list[tuple[Edit, ...]] = []
        for finding in found:
            entry, path = turns[finding.message_index].locate(finding.call_path)
            fix, planned_edits = fixes.get(id(finding), (None, ()))
            if id(finding) in strict:
                entry, path, fix = strict[id(finding)]
                planned_edits = finding.fix.edits if finding.fix is not None else ()
            elif finding.code == "TP307":
                fix, planned_edits = _content_in_entry(finding, entry, path)
            located.append(_located(finding, entry, path, fix))
            edits.append(planned_edits)
        return located, edits

    def strict_fixes(
        self, turns: Sequence[Turn], found: Sequence[Finding]
    ) -> dict[int, tuple[Entry, Pointer, Fix]]:
        """For the strict findings ``found`` whose fix the dialect plans on the merged turns, the
        fixes a layout writes into its entries, by ``id`` of the finding, each with the entry
        and pointer the finding is then located at. None by default: dropping or moving
        entries of a session is not offered."""
        return {}

    def _stripped(
        self, turns: Sequence[Turn], found: Sequence[Finding]
    ) -> tuple[list[Finding], list[tuple[Edit, ...]]]:
        """``toolpatch strip``: the synthetic results ``found`` in the merged turns, each fixed
        by removing the entry holding it, where that entry is one toolpatch added (`added`):
        every block of it is a synthetic result, and it is written as `answer` writes one; and
        the texts TP307's fix wrote, each taken out of its block (`_content_in_entry`)."""
        where = [turns[f.message_index].locate(f.call_path) for f in found]
        blocks: dict[int, int] = {}
        for finding, (entry, _) in zip(found, where, strict=True):
            if finding.code != "TP307":  # a text in a result the session wrote: no entry goes
                blocks[entry.position] = blocks.get(entry.position, 0) + 1
        doomed = {
            entry.position: entry
            for entry, _ in where
            if blocks.get(entry.position) == len(_content_of(entry)) and self.added(entry)
        }
        shared = self.unadded(list(doomed.values()))
        located: list[Finding] = []
        edits: list[tuple[Edit, ...]] = []
        for finding, (entry, path) in zip(found, where, strict=True):
            if finding.code == "TP307":
                located.append(
                    _located(finding, entry, path, _content_in_entry(finding, entry, path)[0])
                )
                edits.append(())
                continue
            removal = (Delete(entry.root or (entry.position,)),)
            fixed = entry.position in doomed
            fix = Fix(Applicability.SAFE, STRIP_DESCRIPTION, (*removal, *shared)) if fixed else None
            located.append(_located(finding, entry, path, fix))
            edits.append(())
        return located, edits

    def added(self, entry: Entry) -> bool:
        """Whether ``entry``, whose blocks are all synthetic results, is one `answer` wrote (its
        keys, its ``uuid``); by default, whether it has a ``uuid`` toolpatch derives."""
        own = entry.value.get("uuid")
        return own is None or own in self._derived(entry)

    def _derived(self, entry: Entry) -> set[str]:
        """The uuids `new_uuid` gives the calls ``entry`` answers (and the numbered series a
        clash moves to)."""
        session = entry.value.get("sessionId", entry.value.get("session_id"))
        prefix = session if isinstance(session, str) else ""
        calls = [b.get("tool_use_id") for b in _content_of(entry) if isinstance(b, dict)]
        names = [f"{prefix}/{c}" for c in calls if isinstance(c, str)]
        return {
            str(uuid.uuid5(NAMESPACE, name if number == 0 else f"{name}/{number}"))
            for name in names
            for number in range(8)
        }

    def unadded(self, doomed: Sequence[Entry]) -> tuple[Edit, ...]:
        """The edits besides removing the entries ``doomed`` that undo their `answer` (none by
        default)."""
        return ()

    def _fixes(
        self, turn: Turn, group: Sequence[Finding]
    ) -> tuple[list[Fix], dict[str, Any]] | None:
        """One new entry after ``turn`` answering every call of ``group`` (in call order): the
        fix of each, and the new user message the entry holds (``None`` where `answer` has no
        entry to add)."""
        texts = [
            answer_text(
                finding.code, ToolCall(finding.call_id, finding.tool_name), self.options, {}
            )
            for finding in group
        ]
        blocks = [
            ANTHROPIC.result_block(
                turn.message(), ToolCall(finding.call_id, finding.tool_name), text, {}
            )
            for finding, (text, _) in zip(group, texts, strict=True)
        ]
        message = ANTHROPIC.new_turn(turn.message(), blocks)
        edits = self.answer(turn, message, group[0].call_id or "")
        if edits is None:
            return None
        fixes = [
            Fix(
                Applicability.SAFE,
                (RULES[finding.code].fix_description or "")
                if origin is Origin.SYNTHESIZED
                else RECORDED_DESCRIPTION,
                edits,
                origin,
            )
            for finding, (_, origin) in zip(group, texts, strict=True)
        ]
        return fixes, message

    def new_uuid(self, session: object, call_id: str) -> str:
        """A UUIDv5 of the session and the call, unique in the file (a clash, which only a
        hand-edited file can have, moves to the next of a numbered series)."""
        name = f"{session if isinstance(session, str) else ''}/{call_id}"
        candidate = str(uuid.uuid5(NAMESPACE, name))
        number = 0
        while candidate in self._taken:
            number += 1
            candidate = str(uuid.uuid5(NAMESPACE, f"{name}/{number}"))
        self._taken.add(candidate)
        return candidate


class AnthropicSession(SessionLayout):
    """A layout whose conversations are Anthropic messages in ``user`` / ``assistant`` entries."""

    dialect = ANTHROPIC
    events: ClassVar[frozenset[str]]
    """The types of the entries that are no messages: kept, never paired."""
    runs: ClassVar[bool]
    """Whether consecutive assistant entries are one turn whatever their ``message.id``."""
    results_first: ClassVar[bool] = False
    """Whether the client sends a user turn's entries that hold tool results before its other
    entries (`_results_first`)."""

    @abstractmethod
    def conversations(self, entries: Sequence[Entry]) -> Callable[[dict[str, Any]], object]:
        """Which conversation a message entry of ``entries`` belongs to (a key)."""

    @abstractmethod
    def repair(self, entries: Sequence[Entry], options: Options) -> TurnRepair:
        """The repair of a session made of ``entries``."""

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        threads: dict[object, list[_MessageEntry]] = {}
        conversation_of = self.conversations(entries)
        for entry in entries:
            odd = odd_entry(entry)
            kind = tag(entry.value, "type")
            if odd is not None:
                notes.append(odd)
            elif kind in MESSAGE_TYPES:
                read = _readable(entry)
                if isinstance(read, str):
                    notes.append(unread(entry, read))
                    continue
                message, content = read
                thread = threads.setdefault(conversation_of(entry.value), [])
                thread.append(_MessageEntry(entry, kind, message.get("id"), content))
            elif kind not in self.events:
                what = f"an event of unknown type {kind!r}" if kind else "an object without 'type'"
                notes.append(unread(entry, what))
        lists: list[Conversation] = []
        findings: list[Finding] = []
        repair = self.repair(entries, options)
        for messages in threads.values():
            turns = _group_turns(messages, runs=self.runs, results_first=self.results_first)
            first = turns[0].entries[0].record.line
            found, edits = repair.check(turns)
            listed = Conversation("", first, ANTHROPIC.name, len(turns), None, False, tuple(found))
            if options.keeps_messages(found):
                merged = [turn.message() for turn in turns]
                listed = listed.with_messages(merged, ListContext(()), edits)
            lists.append(listed)
            findings += found
        findings.sort(key=lambda f: (f.line or 0, f.column or 0))
        reports = sorted(lists + notes, key=lambda r: r.line or 0)
        return Analysis(tuple(reports), tuple(findings))


def _content_of(entry: Entry) -> list[Any]:
    """The blocks of a message entry (none for a plain-string message)."""
    message = entry.value.get("message") if isinstance(entry.value, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _content_in_entry(
    finding: Finding, entry: Entry, path: Pointer
) -> tuple[Fix | None, tuple[Edit, ...]]:
    """TP307's fix of a result block of the merged turns (its text in place of the empty
    content, docs/rules.md#empty-error-tool-result-tp307, or for ``toolpatch strip`` the empty
    content back), written where the block is: ``path`` in ``entry``'s message; and the fix's
    edit of the turns, for whoever shows them. No entry is added or moved. ``(None, ())`` when
    the finding has no fix."""
    own = (finding.message_index, *finding.call_path, "content")
    fix = finding.fix
    edits = fix.edits if fix is not None else ()
    edit = next((e for e in edits if isinstance(e, Replace) and e.pointer == own), None)
    if fix is None or edit is None:  # a pairing fix writes the block anew (TP106): none here
        return None, ()
    entry_edit = Replace(
        (*(entry.root or (entry.position,)), "message", *path, "content"), edit.value
    )
    return replace(fix, edits=(entry_edit,)), (edit,)


def _located(finding: Finding, entry: Entry, path: Pointer, fix: Fix | None) -> Finding:
    """``finding`` of the merged turns, moved to ``path`` in ``entry``'s message, with ``fix``."""
    row, column = place(entry, ("message", *path))
    return replace(
        finding,
        message_path=(*entry.root, "message"),
        call_path=path,
        line=row,
        column=column,
        fix=fix,
    )
