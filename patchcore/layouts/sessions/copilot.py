"""GitHub Copilot CLI session logs (``~/.copilot/session-state/<session>/events.jsonl``).

One event a line, ``{"type", "agentId"?, "data", "id", "timestamp", "parentId"}``: ``parentId``
is the ``id`` of the event before it, a linked chain, ``null`` for the first, which is always
``session.start`` (``data.sessionId``). The event types and their data are the Copilot SDK's
``SessionEvent`` (``@github/copilot-sdk``, ``dist/generated/session-events.d.ts``); the CLI
rebuilds the model's conversation from three of them, and its own resume fails with the
provider's "``tool_use`` ids were found without ``tool_result`` blocks" when a call has no
result (github/copilot-cli issues "Orphan tool_use in events.jsonl wedges sessions
permanently"):

* ``user.message``: ``data.content``, a user message;
* ``assistant.message``: ``data.content``, and the calls in ``data.toolRequests``
  (``{toolCallId, name, arguments}``);
* ``tool.execution_complete``: the result of ``data.toolCallId``, ``data.result.content``
  when ``data.success``, else ``data.error.message`` (one the user asked for himself,
  ``data.isUserRequested``, answers no call of the model's).

Events of a sub-agent carry its ``agentId``: each agent's events are a conversation of their
own. Every other event (``tool.execution_start``, ``permission.*``, ``session.*``, ...) is kept
as it is. A ``session.snapshot_rewind`` removed ``data.upToEventId`` and every event after it
from the session: the messages of those events are no part of it.

The conversation is read as the OpenAI Chat messages it stands for and paired with that
dialect. A repair is what the CLI itself records for a call it finds without a result when it
resumes (``tool.execution_complete`` with ``success: false`` and ``error: {message, code:
"interrupted"}``; Copilot CLI 1.0.102 appends one after its ``session.resume`` event): one new
event per unanswered call, here after the last event of the call's turn that
names it, its ``id`` a UUIDv5 of the session and the call, its ``parentId`` the event before
it, and the event that followed it re-chained onto the new one.

The counters of a compaction (``session.compaction_complete``: ``preCompactionMessagesLength``,
``messagesRemoved``), a truncation (``session.truncation``) and a cleared context
(``session.context_cleared``) count the conversation's messages when they happened, and the CLI
replays them on resume: a result added before such an event would make its counts wrong, and
which messages the replay removes is the CLI's own (not public) logic. A call before one is
reported without a fix, saying so; every count stays as the CLI wrote it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.base import SESSION_LOG, ListContext
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.engine.check import check_list
from patchcore.engine.unread import held
from patchcore.errors import ShapeError
from patchcore.layouts.base import Analysis, copilot_start
from patchcore.layouts.sessions.entries import Entry, place, relocated
from patchcore.layouts.sessions.layout import SessionLayout, listed, odd_entry, unread
from patchcore.model import NAMESPACE, Delete, Edit, Finding, Fix, Insert, Replace
from patchcore.options import Options
from patchcore.result import Conversation

CHAT = OpenAIChat()

#: The events whose data count the conversation's messages (when they succeeded: `_counted`).
COUNTING = frozenset(
    {"session.compaction_complete", "session.truncation", "session.context_cleared"}
)
#: Why a call before such an event has no fix.
COUNTED = (
    "a compaction, truncation or cleared context after the call counted the conversation's "
    "messages, and Copilot CLI replays those counts on resume: a result added before it would "
    "make them wrong, so none is"
)


def _message(value: dict[str, Any]) -> dict[str, Any] | str | None:
    """The OpenAI Chat message an event stands for, ``None`` for an event that is none, or why
    an event that should be one cannot be read."""
    kind = tag(value, "type")
    data = value.get("data")
    if kind not in ("user.message", "assistant.message", "tool.execution_complete"):
        return None
    if not isinstance(data, dict):
        return f"a {kind} event without a 'data' object"
    content = data.get("content")
    if kind == "user.message":
        return {"role": "user", "content": content if isinstance(content, str) else ""}
    if kind == "assistant.message":
        message: dict[str, Any] = {"role": "assistant", "content": content or ""}
        others = {key: member for key, member in data.items() if key != "toolRequests"}
        stray = next(held(others, ()), None)
        if stray is not None:  # a call under a key Copilot CLI does not write: never passed over
            return f"an assistant.message whose data holds what looks like a call ({stray[1]})"
        requests = data.get("toolRequests")
        if requests:
            if not isinstance(requests, list) or not all(isinstance(r, dict) for r in requests):
                return "an assistant.message whose 'toolRequests' is no list of objects"
            message["tool_calls"] = [_call(request) for request in requests]
        return message
    if data.get("isUserRequested") is True:
        return None
    result, error = data.get("result"), data.get("error")
    text = result.get("content") if isinstance(result, dict) else None
    if not isinstance(text, str) and isinstance(error, dict):
        text = error.get("message")
    return {
        "role": "tool",
        "tool_call_id": data.get("toolCallId"),
        "content": text if isinstance(text, str) else "",
    }


def _call(request: dict[str, Any]) -> dict[str, Any]:
    arguments = request.get("arguments")
    function = {
        "name": request.get("name"),
        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
    }
    return {"id": request.get("toolCallId"), "type": "function", "function": function}


def _named(entry: Entry) -> object:
    """The call an event names in ``data.toolCallId`` (``None`` for none)."""
    data = entry.value.get("data") if isinstance(entry.value, dict) else None
    return data.get("toolCallId") if isinstance(data, dict) else None


class _Thread:
    """One agent's conversation: its message events and their messages, in file order."""

    def __init__(self) -> None:
        self.lines: list[Entry] = []
        self.messages: list[dict[str, Any]] = []
        self.counted: list[int] = []  # positions of its counting events


class _Edits:
    """Turns edits of one conversation's message list into edits of the file's events (each
    once, so that the fixes sharing an edit still share it)."""

    def __init__(self, entries: Sequence[Entry], thread: _Thread, agent: object) -> None:
        self.entries = entries
        self.thread = thread
        self.agent = agent
        start = next(e.value for e in entries if isinstance(e.value, dict))
        data = start.get("data")
        session = data.get("sessionId") if isinstance(data, dict) else None
        self.session = session if isinstance(session, str) else ""
        self.done: dict[int, tuple[Edit, ...] | None] = {}

    def fix(self, fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        edits: list[Edit] = []
        for edit in fix.edits:
            if id(edit) not in self.done:
                self.done[id(edit)] = self._translated(edit)
            translated = self.done[id(edit)]
            if translated is None:
                return None
            edits += translated
        return replace(fix, edits=tuple(edits))

    def _translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        """New results are new events after the last event of the turn naming their calls;
        ``toolpatch strip`` removes whole events. Anything else is not offered."""
        if isinstance(edit, Insert) and edit.array == ():
            return self._inserted(edit)
        if isinstance(edit, Delete) and len(edit.pointer) == 1:
            line = self.thread.lines[int(edit.pointer[0])]
            return (Delete((line.position,)), *self._rechained(line, line.value.get("parentId")))
        return None

    def _inserted(self, edit: Insert) -> tuple[Edit, ...]:
        lines = self.thread.lines
        before = lines[edit.index - 1]
        limit = lines[edit.index].position if edit.index < len(lines) else len(self.entries)
        calls = {value.get("tool_call_id") for value in edit.values}
        anchor = max(
            [before.position]
            + [e.position for e in self.entries[before.position : limit] if _named(e) in calls]
        )
        last = self.entries[anchor]
        parent = last.value.get("id")
        events = []
        for value in edit.values:
            event = self._event(value, last.value, parent)
            events.append(event)
            parent = event["id"]
        return (Insert((), anchor + 1, tuple(events)), *self._rechained(last, parent))

    def _event(self, value: dict[str, Any], before: dict[str, Any], parent: object) -> Any:
        """A ``tool.execution_complete`` of an interrupted call, as the CLI records one when it
        resumes a session whose call has none (``success: false``, ``error.code:
        "interrupted"``), holding the rule's text."""
        call = value["tool_call_id"]
        event: dict[str, Any] = {"type": "tool.execution_complete"}
        if self.agent is not None:
            event["agentId"] = self.agent
        event["data"] = {
            "toolCallId": call,
            "success": False,
            "error": {"message": value["content"], "code": "interrupted"},
        }
        event["id"] = str(uuid.uuid5(NAMESPACE, f"{self.session}/{call}"))
        if "timestamp" in before:
            event["timestamp"] = before["timestamp"]
        event["parentId"] = parent
        return event

    def _rechained(self, line: Entry, parent: object) -> tuple[Edit, ...]:
        """The event after ``line``, when it hung off it, hangs off ``parent`` instead."""
        following = line.position + 1
        if following >= len(self.entries):
            return ()
        after = self.entries[following].value
        if not isinstance(after, dict) or after.get("parentId") != line.value.get("id"):
            return ()
        return (Replace((following, "parentId"), parent),)


class Copilot(SessionLayout):
    """GitHub Copilot CLI ``events.jsonl``."""

    short_name = "copilot"
    title = "GitHub Copilot CLI session events"
    recognised_by = (
        'JSON Lines of `{type, data, id, timestamp, parentId}` events, the first `"type": '
        '"session.start"` with `data.sessionId`; user.message / assistant.message '
        "(`toolRequests`) / tool.execution_complete read as messages"
    )
    containers = "`~/.copilot/session-state/<session>/events.jsonl`"
    name = "copilot-events"
    dialect = CHAT

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return copilot_start(value)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        threads: dict[object, _Thread] = {}
        for entry in entries:
            odd = odd_entry(entry)
            if odd is not None:
                notes.append(odd)
                continue
            value = entry.value
            thread = threads.setdefault(value.get("agentId"), _Thread())
            kind = tag(value, "type")
            if kind == "session.snapshot_rewind":
                _rewind(threads, value, entries)
            elif kind in COUNTING and _counted(value):
                thread.counted.append(entry.position)
            read = _message(value)
            if isinstance(read, str):
                notes.append(unread(entry, read))
            elif read is not None:
                thread.lines.append(entry)
                thread.messages.append(read)
        reports: list[Conversation] = list(notes)
        findings: list[Finding] = []
        for agent, thread in threads.items():
            if thread.lines:
                listed, found = self._checked(entries, agent, thread, options)
                reports.append(listed)
                findings += found
        findings.sort(key=lambda f: (f.line or 0, f.column or 0))
        reports.sort(key=lambda r: r.line or 0)
        return Analysis(tuple(reports), tuple(findings))

    def _checked(
        self, entries: Sequence[Entry], agent: object, thread: _Thread, options: Options
    ) -> tuple[Conversation, list[Finding]]:
        context = ListContext((), kept_calls=None if options.strip else SESSION_LOG)
        try:
            found = check_list(
                thread.messages, dialect=CHAT, context=context, options=options, plan_unsafe=False
            )
        except ShapeError as error:
            raise relocated(error, thread.lines[int(error.path[0])], ()) from None
        edits = _Edits(entries, thread, agent)
        located: list[Finding] = []
        shown: list[tuple[Edit, ...]] = []
        for finding in found:
            line = thread.lines[finding.message_index]
            pointer = _pointer(finding)
            row, column = place(line, pointer)
            fix = edits.fix(finding.fix)
            message = finding.message
            if fix is not None and any(line.position < at for at in thread.counted):
                fix, message = None, f"{message}; {COUNTED}"
            located.append(
                replace(
                    finding,
                    message=message,
                    message_path=(),
                    call_path=pointer,
                    line=row,
                    column=column,
                    fix=fix,
                )
            )
            shown.append(finding.fix.edits if fix is not None and finding.fix else ())
        first = thread.lines[0].record.line
        read = listed(first, CHAT.name, thread.messages, context, found, located, options, shown)
        return read, located


def _pointer(finding: Finding) -> tuple[str | int, ...]:
    """Where a call or result sits in its event: a call is ``data.toolRequests[k]``."""
    path = finding.call_path
    if len(path) >= 2 and path[0] == "tool_calls":
        return ("data", "toolRequests", path[1])
    return ("data",)


def _counted(value: dict[str, Any]) -> bool:
    """Whether a counting event changed the conversation (a failed compaction removed
    nothing)."""
    data = value.get("data")
    return isinstance(data, dict) and data.get("success") is not False


def _rewind(
    threads: dict[object, _Thread], value: dict[str, Any], entries: Sequence[Entry]
) -> None:
    """A rewind removed the event it names and every later one: their messages leave every
    conversation (nothing, when the file does not hold that event)."""
    data = value.get("data")
    target = data.get("upToEventId") if isinstance(data, dict) else None
    start = next(
        (e.position for e in entries if isinstance(e.value, dict) and e.value.get("id") == target),
        None,
    )
    if start is None:
        return
    for thread in threads.values():
        kept = [k for k, line in enumerate(thread.lines) if line.position < start]
        thread.lines = [thread.lines[k] for k in kept]
        thread.messages = [thread.messages[k] for k in kept]
        thread.counted = [at for at in thread.counted if at < start]
