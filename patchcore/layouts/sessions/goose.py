"""Goose session files (``~/.local/share/goose/sessions/<name>.jsonl``): the session store of
Goose releases before its SQLite database, and what that database's migration still reads
(block/goose ``crates/goose/src/session/storage.rs``, ``legacy.rs``).

The first line is the session's metadata (``{"working_dir", "description", "schedule_id",
"message_count", "total_tokens", ...}``); every other line is one message
(`patchcore.dialects.goose`), in order: the conversation.

Repair: the dialect's, one message a line: for an interrupted turn, the new user message goose
writes after it (a ``toolResponse`` error per call) is a new line right after the calling
message's; a response added to a user message that already answers the turn is spliced into
that message's line. The metadata line is left as it is: its ``message_count`` is what goose
counted when it last wrote the file, and goose counts again whenever it writes the session.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.goose import Goose
from patchcore.layouts.base import Analysis, goose_metadata
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    EntryEdits,
    SessionLayout,
    checked_entries,
    in_order,
    messages_and_notes,
)
from patchcore.model import Delete, Edit, Insert, Pointer, Replace, Verbatim
from patchcore.options import Options

GOOSE = Goose()


class GooseSession(SessionLayout):
    """A Goose session file: a metadata line, then one message a line."""

    short_name = "goose"
    title = "Goose session"
    recognised_by = (
        "a first line `{working_dir, description, message_count, ...}` (the session's "
        "metadata), then one message a line: `role`, `created`, `content` items"
    )
    containers = "`~/.local/share/goose/sessions/*.jsonl` (releases before the SQLite store)"
    name = "goose-session"
    dialect = GOOSE

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """A message's ``created``, in seconds since the epoch."""
        created = value.get("created")
        if isinstance(created, int) and not isinstance(created, bool) and created >= 0:
            return (datetime.fromtimestamp(created, tz=timezone.utc).isoformat(),)
        return ()

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return goose_metadata(value)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        header = next(e for e in entries if isinstance(e.value, dict))
        items, notes = messages_and_notes(
            (e for e in entries if e is not header), _message, "a line that is no message"
        )
        listed = checked_entries(
            items,
            [e.value for e in items],
            inside=(),
            dialect=GOOSE,
            options=options,
            fixing=fixing,
            fix=_MessageLines(items).fix,
        )
        return in_order(listed, notes)


def _message(value: Any) -> bool:
    return tag(value, "role") in ("user", "assistant")


class _MessageLines(EntryEdits):
    """Turns edits of the message list into edits of the file's lines: message ``k`` is line
    ``items[k]``; a new message is a new line after the one before it."""

    def __init__(self, items: Sequence[Entry]) -> None:
        super().__init__()
        self.items = items

    def translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        if isinstance(edit, Insert) and not edit.array:
            after = self.items[edit.index - 1].position
            return (Insert((), after + 1, tuple(self._value(v) for v in edit.values)),)
        if isinstance(edit, Insert):
            values = tuple(self._value(v) for v in edit.values)
            return (Insert(self._pointer(edit.array), edit.index, values),)
        if isinstance(edit, Replace):
            return (Replace(self._pointer(edit.pointer), self._value(edit.value)),)
        return (Delete(self._pointer(edit.pointer)),)

    def _pointer(self, pointer: Pointer) -> Pointer:
        return (self.items[int(pointer[0])].position, *pointer[1:])

    def _value(self, value: Any) -> Any:
        """``value`` with each `Verbatim` part pointing at the line it copies."""
        if isinstance(value, Verbatim):
            return Verbatim(self._pointer(value.pointer))
        if isinstance(value, dict):
            return {key: self._value(v) for key, v in value.items()}
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return value
