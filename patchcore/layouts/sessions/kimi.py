"""Kimi CLI context files (``~/.kimi/sessions/<work dir>/<session>/context.jsonl``).

``Context`` (``src/kimi_cli/soul/context.py``) appends one record a line and ``restore`` reads
them back in order:

* ``{"role": "_system_prompt", "content"}``, the first line (files older than it begin with a
  ``_checkpoint``); ``{"role": "_checkpoint", "id"}`` before each turn; ``{"role": "_usage",
  "token_count"}`` after each model reply. Written by ``json.dumps``, kept as they are.
* every other line is a kosong ``Message`` (``model_dump_json(exclude_none=True)``):
  ``{"role", "content", "tool_calls"?, "tool_call_id"?}``, the OpenAI Chat shape, a single text
  part written as a string, other parts (``think``, ``image_url``) as a list. They are the
  conversation, checked with the OpenAI Chat dialect.

``KimiSoul._grow_context`` appends a step's assistant message, its ``_usage`` and then its tool
messages, shielded from an interrupt: a call without its result is a process killed between
those writes, or a hand-edited file, and every later request is refused for it. The repair is
what Kimi writes for a tool that failed (``tool_result_to_message`` of an error): a ``tool``
message whose content is ``<system>ERROR: …</system>``, the rule's text, as a new line after
the call's turn (its tool messages, and the ``_usage`` line after the message), written in the
style of the line before it (compact after a message, ``json.dumps``'s spacing after a
``_usage`` record: Kimi reads either). The file records no time: the session's clock is the
file's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.layouts.base import KIMI_RECORDS, Analysis, kimi_record, kimi_start
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    SessionLayout,
    checked_entries,
    in_order,
    odd_entry,
    unread,
)
from patchcore.model import Delete, Edit, Fix, Insert, Replace, ToolCall
from patchcore.options import Options
from patchcore.result import Conversation

ROLES = frozenset({"system", "user", "assistant", "tool"})


class KimiMessages(OpenAIChat):
    """kosong messages, answered as Kimi answers a tool that failed."""

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {
            "role": "tool",
            "content": f"<system>ERROR: {text}</system>",
            "tool_call_id": call.id,
        }


KIMI_MESSAGES = KimiMessages()


class Kimi(SessionLayout):
    """Kimi CLI ``context.jsonl``."""

    short_name = "kimi"
    title = "Kimi CLI context file"
    recognised_by = (
        'JSON Lines whose first record is `{"role": "_system_prompt", content}` (or '
        "`_checkpoint`); kosong messages (OpenAI Chat shape) beside `_checkpoint` and `_usage` "
        "records"
    )
    containers = "`~/.kimi/sessions/<work dir hash>/<session>/context.jsonl`"
    name = "kimi-context"
    dialect = KIMI_MESSAGES

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return kimi_start(value)

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """None: Kimi records no time in its context file."""
        return ()

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        lines: list[Entry] = []
        for entry in entries:
            odd = odd_entry(entry)
            role = tag(entry.value, "role") if odd is None else None
            if odd is not None:
                notes.append(odd)
            elif role in ROLES:
                lines.append(entry)
            elif not (role in KIMI_RECORDS and kimi_record(entry.value)):
                what = f"a record of role {role!r}" if role else "an object without 'role'"
                notes.append(unread(entry, f"{what}, which Kimi CLI does not write"))
        read = checked_entries(
            lines,
            [line.value for line in lines],
            inside=(),
            dialect=KIMI_MESSAGES,
            options=options,
            fixing=fixing,
            fix=_LineEdits(entries, lines).fix,
        )
        return in_order(read, notes)


class _LineEdits:
    """Turns edits of the message list into edits of the file's lines (each once, so that the
    fixes sharing an edit still share it). The first record, which makes the file a context
    file, is never a message, so no edit reaches it."""

    def __init__(self, entries: Sequence[Entry], lines: Sequence[Entry]) -> None:
        self.entries = entries
        self.lines = lines
        self.done: dict[int, Edit] = {}

    def fix(self, fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        return replace(fix, edits=tuple(self._edit(edit) for edit in fix.edits))

    def _edit(self, edit: Edit) -> Edit:
        if id(edit) not in self.done:
            self.done[id(edit)] = self._translated(edit)
        return self.done[id(edit)]

    def _translated(self, edit: Edit) -> Edit:
        """A new message is a new line after the turn it answers and the ``_usage`` records
        after it; an edit inside a message is spliced into its line; a removed message drops
        its line."""
        if isinstance(edit, Insert):
            assert edit.array == ()
            after = self.lines[edit.index - 1].position
            while after + 1 < len(self.entries) and _usage(self.entries[after + 1]):
                after += 1
            return Insert((), after + 1, edit.values)
        index, *inside = edit.pointer
        position = self.lines[int(index)].position
        if isinstance(edit, Replace):
            return Replace((position, *inside), edit.value)
        assert isinstance(edit, Delete)
        return Delete((position, *inside))


def _usage(entry: Entry) -> bool:
    return isinstance(entry.value, dict) and tag(entry.value, "role") == "_usage"
