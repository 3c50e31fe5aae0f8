"""Gemini CLI session logs (``session-*.jsonl``): the JSON Lines record Gemini CLI appends to.

Newer releases of gemini-cli keep a session as JSON Lines instead of one document, and move a
``session-*.json`` to ``session-*.jsonl`` when they resume it. ``loadConversationRecord``
(``chatRecordingService.ts``) reads it back line by line:

* the first line is the metadata, ``{sessionId, projectHash, startTime, lastUpdated, kind?,
  directories?}``;
* a line with a string ``id`` is a message, as in the document (`patchcore.dialects.gemini_cli`).
  The recorder appends a message again whenever it changes (its tool calls are added, then
  completed; its tokens arrive), and the last line with an id is that message, in the place of
  its first line;
* ``{"$rewindTo": id}`` drops that message and every later one (all of them if no message has
  the id);
* ``{"$set": {...}}`` updates the metadata. One whose ``messages`` is a list is a checkpoint
  (``/compress`` writes one): the messages read so far are dropped, the list's messages (those
  with a string ``id``) take their place, and the message lines after it go on from them, as
  after any line.

Lines that do not parse are passed over, as the CLI passes them over. The conversation the CLI
would resume is checked with the Gemini CLI dialect, and a repair is spliced into the line that
holds the message it reads (its last version, in a message line or a checkpoint's list): only
that line changes,
the same members as in a document. No line is added: an appended copy of the message would do
as well for the CLI, but would leave the unanswered version in the file for every other reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from patchcore.dialects.base import SESSION_LOG, ListContext, Recognition
from patchcore.dialects.gemini_cli import GeminiCli
from patchcore.engine.check import check_list
from patchcore.errors import ShapeError
from patchcore.layouts.base import Analysis, gemini_cli_metadata
from patchcore.layouts.sessions.entries import Entry, place, relocated
from patchcore.layouts.sessions.layout import SessionLayout, odd_entry, unread
from patchcore.model import (
    Delete,
    Edit,
    Finding,
    Fix,
    Insert,
    Pointer,
    Replace,
    format_pointer,
)
from patchcore.options import Options
from patchcore.result import Conversation, fix_edits

GEMINI_CLI = GeminiCli()
#: Where a message of the conversation is: the line, and the pointer inside it.
Place = tuple[Entry, Pointer]


def _conversation(lines: Sequence[Entry], notes: list[Conversation]) -> list[Place]:
    """Where each message of the conversation the CLI resumes is, in order, as
    ``loadConversationRecord`` reads the lines into one map of messages by id (a new id goes
    last, a known one keeps its place); ``notes`` gets a warning for each line that is no
    record of the log."""
    latest: dict[str, Place] = {}  # id -> where its last version is, in first-seen order
    for line in lines:
        odd = odd_entry(line)
        value = line.value
        if odd is not None:
            notes.append(odd)
        elif isinstance(value.get("$rewindTo"), str):
            ids = list(latest)
            target = value["$rewindTo"]
            for gone in ids[ids.index(target) if target in latest else 0 :]:
                del latest[gone]
        elif isinstance(value.get("id"), str):
            latest[value["id"]] = (line, ())
        elif isinstance(value.get("$set"), dict):
            messages = value["$set"].get("messages")
            if isinstance(messages, list):  # a checkpoint: the list replaces the messages
                latest = {
                    message["id"]: (line, ("$set", "messages", index))
                    for index, message in enumerate(messages)
                    if isinstance(message, dict) and isinstance(message.get("id"), str)
                }
        elif not gemini_cli_metadata(value):
            notes.append(unread(line, "a record of no kind Gemini CLI writes"))
    return list(latest.values())


def _moved(fix: Fix | None, places: Sequence[Place]) -> Fix | None:
    """``fix`` with its edits (of the conversation's list) addressed to the lines; ``None``
    where a message would have to be added beside one that is a line of its own (no line is
    added)."""
    if fix is None:
        return None
    edits: list[Edit] = []
    for edit in fix.edits:
        if isinstance(edit, Insert):
            # A response message, after the message before it in a checkpoint's list.
            line, prefix = places[edit.index - 1]
            if not prefix:
                return None
            *array, at = prefix
            edits.append(Insert((line.position, *array), int(at) + 1, edit.values))
            continue
        # The dialect records a result in the call's entry, and strip removes it from there.
        assert isinstance(edit, (Replace, Delete))
        index, *inside = edit.pointer
        line, prefix = places[int(index)]
        pointer = (line.position, *prefix, *inside)
        edits.append(Replace(pointer, edit.value) if isinstance(edit, Replace) else Delete(pointer))
    return replace(fix, edits=tuple(edits))


class GeminiCliLog(SessionLayout):
    """Gemini CLI session JSON Lines."""

    short_name = "gemini-cli-log"
    title = "Gemini CLI session log"
    recognised_by = (
        "JSON Lines whose first record is `{sessionId, projectHash, ...}`, then message records "
        "(`id`, `type`, `content`, `toolCalls`; the last version of an id wins), `$set` (a "
        "list of messages: a checkpoint) and `$rewindTo` records"
    )
    containers = "`~/.gemini/tmp/<project>/chats/session-*.jsonl`"
    name = "gemini-cli-log"
    dialect = GEMINI_CLI

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return gemini_cli_metadata(value)

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """A message's ``timestamp`` is when it was made (a message appended again keeps it);
        ``lastUpdated`` (in the metadata, and each ``$set`` of it) is when the log last changed."""
        update = value.get("$set")
        later = update.get("lastUpdated") if isinstance(update, dict) else None
        return (value.get("timestamp"), value.get("lastUpdated"), later)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        places = _conversation(entries, notes)
        messages: list[Any] = []
        for line, prefix in places:
            message = line.value
            for part in prefix:
                message = message[part]
            readable = GEMINI_CLI.recognize(message) is not Recognition.NO
            if not readable:
                notes.append(unread(line, "a message Gemini CLI's dialect does not read"))
            messages.append(message if readable else None)
        context = ListContext((), kept_calls=None if options.strip else SESSION_LOG)
        try:
            found = check_list(messages, dialect=GEMINI_CLI, context=context, options=options)
        except ShapeError as error:
            line, prefix = places[int(error.path[0])]
            raise relocated(error, line, (*prefix, *error.path[1:])) from None
        findings: list[Finding] = []
        for finding in found:
            line, prefix = places[finding.message_index]
            row, column = place(line, prefix)
            findings.append(
                replace(
                    finding,
                    message_path=(*line.root, *prefix),
                    line=row,
                    column=column,
                    fix=_moved(finding.fix, places),
                )
            )
        first, inside = places[0] if places else (entries[0], ())
        listed = Conversation(
            format_pointer(inside[:-1]),
            first.record.line,
            GEMINI_CLI.name,
            len(places),
            None,
            False,
            tuple(findings),
        )
        if options.keeps_messages(found):
            # The engine's own fixes: edits of the list, before they were addressed to lines.
            listed = listed.with_messages(messages, context, fix_edits(found))
        reports = sorted([listed, *notes], key=lambda r: r.line or 0)
        return Analysis(tuple(reports), tuple(findings))
