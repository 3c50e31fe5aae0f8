"""pi and openclaw session files (``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``).

One entry a line (pi-mono ``packages/coding-agent/src/core/session-manager.ts``; openclaw keeps
its agents' sessions with the same session manager). The first line is the header
``{"type": "session", "id", "timestamp", "cwd", "version"?}``; every other entry has a ``type``
(``message``, ``compaction``, ``branch_summary``, ``custom_message``, ``model_change``,
``thinking_level_change``, ``custom``, ``label``, ``session_info``) and, from version 2 on, an
``id`` and a ``parentId``: the entries form a tree, and a session is resumed from its *leaf*.

What is read is what pi sends when it resumes (``SessionManager.setSessionFile``,
``buildSessionContext``):

* the leaf is the file's last entry; the conversation is the path from the root to it, walked
  back through ``parentId``. A version 1 file (no ``version``, no ids) is one line, in file
  order, as pi's migration links it. Entries on other branches are not resumed, and not read;
  a note says how many there are.
* on that path, when a ``compaction`` entry is on it (the last one), pi sends its summary, then
  the entries from its ``firstKeptEntryId`` (version 1: ``firstKeptEntryIndex``) up to it, then
  those after it: a call summarised away is not sent, so it cannot dangle.
* ``message`` entries carry an ``AgentMessage`` (`patchcore.dialects.pi`); ``custom_message``
  and ``branch_summary`` entries and the compaction's summary are sent as user messages; the
  other known types are settings and bookkeeping, never sent.

Repair: what pi's agent loop writes for a tool call it could not run, a ``message`` entry
holding a ``toolResult`` (`patchcore.dialects.pi`), put where the dialect puts it: after the
calling message and its results. It is linked into the tree as pi links an entry it appends
(``_appendEntry``: the ``parentId`` of a new entry is the entry before it on the branch), a
turn's new entries one after the other, and the entry that hung off the last of them on the
resumed branch, if any, now hangs off the last new one (only its ``parentId`` changes). A call
pending at the leaf is answered by entries appended after the last line, which become the leaf.
No other branch is touched. Each new entry's ``id`` is 8 hex digits, as pi's
``generateId``: here those of a UUIDv5 of the session id and the call id, so that fixing twice
writes the same bytes; its ``timestamp`` is the calling entry's.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.pi import Pi
from patchcore.layouts.base import PI_ENTRY_TYPES, Analysis, pi_header
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    EntryEdits,
    SessionLayout,
    checked_entries,
    in_order,
    odd_entry,
    unread,
)
from patchcore.model import NAMESPACE, Delete, Edit, Insert, Replace
from patchcore.options import Options
from patchcore.result import Conversation

PI = Pi()

#: Entries pi sends as a message of their own (``appendMessage`` of ``buildSessionContext``).
_SENT = frozenset({"message", "custom_message", "branch_summary"})


class _Branch:
    """The resumed branch of a session file: its entries from the root to the leaf, and of
    them the ones pi sends, in the order it sends them."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        objects = [e for e in entries if isinstance(e.value, dict)]
        self.header = objects[0]
        version = self.header.value.get("version")
        self.tree = isinstance(version, int) and version >= 2
        body = [e for e in objects[1:] if tag(e.value, "type") != "session"]
        self.path = self._path(body) if self.tree else body
        self.sent = self._sent(entries)
        self.off_branch = len(body) - len(self.path)

    @staticmethod
    def _path(body: Sequence[Entry]) -> list[Entry]:
        """From the last entry back to the root through ``parentId`` (a cycle, which only a
        hand-edited file can have, ends the walk)."""
        if not body:
            return []
        by_id = {e.value["id"]: e for e in body if isinstance(e.value.get("id"), str)}
        path = [body[-1]]
        seen = {id(body[-1])}
        while isinstance(link := path[-1].value.get("parentId"), str):
            parent = by_id.get(link)
            if parent is None or id(parent) in seen:
                break
            path.append(parent)
            seen.add(id(parent))
        return path[::-1]

    def _sent(self, entries: Sequence[Entry]) -> list[Entry]:
        """The entries pi sends, in its order: with a compaction on the path, the compaction
        (its summary) first, then the kept entries before it, then those after it."""
        compactions = [k for k, e in enumerate(self.path) if tag(e.value, "type") == "compaction"]
        if not compactions:
            return [e for e in self.path if _is_sent(e)]
        at = compactions[-1]
        compaction = self.path[at]
        first = self._first_kept(compaction, entries)
        start = next((k for k, e in enumerate(self.path[:at]) if e is first), at)
        kept = [e for e in self.path[start:at] if _is_sent(e)]
        after = [e for e in self.path[at + 1 :] if _is_sent(e)]
        return [compaction, *kept, *after]

    def _first_kept(self, compaction: Entry, entries: Sequence[Entry]) -> Entry | None:
        """The first entry a compaction keeps: by ``firstKeptEntryId``, or in version 1 by
        ``firstKeptEntryIndex`` (an index among the file's entries, the header's 0)."""
        if self.tree:
            kept = compaction.value.get("firstKeptEntryId")
            return next((e for e in self.path if e.value.get("id") == kept), None)
        index = compaction.value.get("firstKeptEntryIndex")
        objects = [e for e in entries if isinstance(e.value, dict)]
        if isinstance(index, int) and 0 < index < len(objects):
            return objects[index]
        return None

    def child(self, entry: Entry) -> Entry | None:
        """The entry after ``entry`` on the branch (``None`` at the leaf)."""
        at = next(k for k, e in enumerate(self.path) if e is entry)
        return self.path[at + 1] if at + 1 < len(self.path) else None


def _is_sent(entry: Entry) -> bool:
    return tag(entry.value, "type") in _SENT


def _message(entry: Entry) -> Any:
    """What the list holds for a sent entry: a message entry's ``message``; the entry itself
    for the others pi turns into a user message (a summary, an extension's message)."""
    return entry.value.get("message") if tag(entry.value, "type") == "message" else entry.value


class PiSession(SessionLayout):
    """pi / openclaw session JSONL."""

    short_name = "pi"
    title = "pi / openclaw session"
    recognised_by = (
        'a first line `{"type": "session", "id", "timestamp", "cwd"}`, then entries with '
        "`type` message / compaction / branch_summary / ..., `id` and `parentId` (a tree); "
        "pi's `AgentMessage`s in `message`"
    )
    containers = (
        "`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, openclaw's "
        "`~/.openclaw/agents/<agent>/sessions/*.jsonl`"
    )
    name = "pi-session"
    dialect = PI

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return pi_header(value)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        for entry in entries:
            odd = odd_entry(entry)
            kind = tag(entry.value, "type") if odd is None else None
            if odd is not None:
                notes.append(odd)
            elif kind not in PI_ENTRY_TYPES:
                what = f"an entry of unknown type {kind!r}" if kind else "an object without 'type'"
                notes.append(unread(entry, what))
            elif kind == "message" and not isinstance(entry.value.get("message"), dict):
                notes.append(unread(entry, "a message entry without a message object"))
        branch = _Branch(entries)
        items = [e for e in branch.sent if isinstance(_message(e), dict)]
        messages = [_message(e) for e in items]
        edits = _EntryEdits(branch, items, entries)
        listed = checked_entries(
            items,
            messages,
            inside=("message",),
            dialect=PI,
            options=options,
            fixing=fixing,
            fix=edits.fix,
        )
        if branch.off_branch:
            notes.append(
                Conversation(
                    "",
                    branch.header.record.line,
                    None,
                    0,
                    f"{branch.off_branch} entries are on branches pi does not resume (it "
                    "resumes the last entry's); not read",
                )
            )
        return in_order(listed, notes)


class _EntryEdits(EntryEdits):
    """Turns edits of the sent list into edits of the file's entries: a new result is a new
    entry linked into the resumed branch; a removed result (``strip``, an orphan with unsafe
    fixes) is an entry unlinked from it. Moves, which would re-link entries across the tree,
    are not offered."""

    def __init__(self, branch: _Branch, items: Sequence[Entry], entries: Sequence[Entry]) -> None:
        super().__init__()
        self.branch = branch
        self.items = items
        self.session = branch.header.value.get("id")
        objects = [e for e in entries if isinstance(e.value, dict)]
        self.taken = {e.value["id"] for e in objects if isinstance(e.value.get("id"), str)}
        self.last, self.previous = objects[-1], objects[-2] if len(objects) > 1 else None

    def translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        if isinstance(edit, Insert) and all(isinstance(v, dict) for v in edit.values):
            return self._inserted(edit.index, edit.values)
        if isinstance(edit, Delete) and len(edit.pointer) == 1:
            return self._unlinked(self.items[int(edit.pointer[0])])
        return None

    def _inserted(self, index: int, messages: Sequence[dict[str, Any]]) -> tuple[Edit, ...] | None:
        """New message entries where the list gets them at ``index``: right after the entry of
        the message before, on its branch, with the timestamp of the calling entry (none in a
        tree whose entry there has no id to hang them off)."""
        after = self.items[index - 1]
        caller = next((e for e in reversed(self.items[:index]) if _calls(e)), after)
        parent = after.value.get("id")
        if self.branch.tree and not isinstance(parent, str):
            return None
        values = []
        for message in messages:
            value: dict[str, Any] = {"type": "message"}
            if self.branch.tree:
                own = self._new_id(message.get("toolCallId"))
                value.update(id=own, parentId=parent)
                parent = own
            if "timestamp" in caller.value:
                value["timestamp"] = caller.value["timestamp"]
            value["message"] = message
            values.append(value)
        edits: list[Edit] = [Insert((), after.position + 1, tuple(values))]
        child = self.branch.child(after) if self.branch.tree else None
        if child is not None:
            edits.append(Replace((child.position, "parentId"), parent))
        return tuple(edits)

    def _unlinked(self, doomed: Entry) -> tuple[Edit, ...] | None:
        """``doomed`` removed, the entry after it on the branch hanging off its parent. The
        file's last entry goes only where the entry before it is its parent, which is then the
        leaf pi resumes from."""
        if doomed is self.last and self.branch.path[-2:-1] != [self.previous]:
            return None
        edits: list[Edit] = [Delete((doomed.position,))]
        child = self.branch.child(doomed) if self.branch.tree else None
        if child is not None:
            edits.append(Replace((child.position, "parentId"), doomed.value.get("parentId")))
        return tuple(edits)

    def _new_id(self, call: object) -> str:
        """8 hex digits of a UUIDv5 of the session and the call, unique in the file (pi's own
        ids are 8 hex digits of a UUID; a clash moves to the whole UUID, as pi's does)."""
        whole = str(uuid.uuid5(NAMESPACE, f"pi/{self.session}/{call}"))
        own = whole[:8] if whole[:8] not in self.taken else whole
        self.taken.add(own)
        return own


def _calls(entry: Entry) -> bool:
    """Whether a sent entry is an assistant message (the calling entry of a result)."""
    message = _message(entry)
    return isinstance(message, dict) and message.get("role") == "assistant"
