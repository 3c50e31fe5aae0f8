"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one record a line.

Each line is ``{"timestamp", "type", "payload"}``. The conversation is the ``payload`` of the
``response_item`` lines, in file order: Responses API items, paired as the OpenAI Responses
dialect pairs them (on ``call_id``). ``session_meta``, ``turn_context``, ``event_msg`` and
``compacted`` lines are events: kept as they are, never paired. Codex rebuilds a resumed
session's history from the ``response_item`` lines alone (codex-rs
``reconstruct_history_from_rollout``), so a call closed only by an ``event_msg`` (an
``*_end`` event) has no output when the session resumes; where that event is a shell
command's ``exec_command_end`` that says the output whole, the output is rebuilt from it as
Codex writes it (`patchcore.layouts.sessions.codex_outputs`) and the fix writes that instead of
a synthetic text (recovered, docs/pairing.md#evidence-first).

Repair: a new ``response_item`` line per missing output, where the dialect puts the output (after
the call's model turn and its existing outputs), carrying the call line's ``timestamp``. Codex
answers a ``local_shell_call`` with a ``function_call_output`` (codex-rs ``normalize.rs`` does
the same for the outputs it finds missing), so unlike a plain Responses list, all three kinds of
call Codex runs get one. Strict fixes (dropping an orphan output line) are line edits too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.openai_responses import OpenAIResponses
from patchcore.errors import json_kind
from patchcore.layouts.base import Analysis
from patchcore.layouts.session_signs import CODEX_LINE_TYPES, codex_entry
from patchcore.layouts.sessions.codex_outputs import recorded_outputs
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    EntryEdits,
    SessionLayout,
    checked_entries,
    in_order,
    odd_entry,
    unread,
)
from patchcore.model import Delete, Edit, Insert, MessageView, Pointer, ToolCall
from patchcore.options import Options
from patchcore.result import Conversation

SHELL_CALL = "local_shell_call"


class CodexItems(OpenAIResponses):
    """The Responses items of a rollout, where a local shell call is answered like a function."""

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        view = super().view(message, pointer)
        if tag(message, "type") != SHELL_CALL:
            return view
        return replace(view, calls=tuple(replace(c, unanswerable=None) for c in view.calls))

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        if tag(caller, "type") == SHELL_CALL:
            return {"type": "function_call_output", "call_id": call.id, "output": text}
        return super().result_message(caller, call, text, style)


CODEX_ITEMS = CodexItems()


class Codex(SessionLayout):
    """Codex CLI rollout JSONL."""

    short_name = "codex"
    title = "Codex rollout"
    recognised_by = (
        "JSON Lines of `{timestamp, type, payload}` with `type` session_meta / response_item / "
        "event_msg / turn_context / compacted; Responses items in the `response_item` payloads"
    )
    containers = "`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`"
    name = "codex-rollout"
    dialect = CODEX_ITEMS

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return codex_entry(value)

    def analyse_entries(
        self, lines: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        items: list[Entry] = []
        events: list[dict[str, Any]] = []
        for line in lines:
            odd = odd_entry(line)
            kind = tag(line.value, "type")
            if odd is not None:
                notes.append(odd)
            elif kind == "response_item" and isinstance(line.value.get("payload"), dict):
                items.append(line)
            elif kind == "event_msg" and isinstance(line.value.get("payload"), dict):
                events.append(line.value["payload"])
            elif kind == "response_item":
                payload = json_kind(line.value.get("payload"))
                notes.append(unread(line, f"a response_item whose payload is {payload}"))
            elif kind not in CODEX_LINE_TYPES:
                what = f"a line of unknown type {kind!r}" if kind else "an object without 'type'"
                notes.append(unread(line, what))
        payloads = [line.value["payload"] for line in items]
        edits = _LineEdits(items, next(line for line in lines if isinstance(line.value, dict)))
        listed = checked_entries(
            items,
            payloads,
            inside=("payload",),
            dialect=CODEX_ITEMS,
            options=options,
            fixing=fixing,
            fix=edits.fix,
            recorded=recorded_outputs(events, payloads),
        )
        return in_order(listed, notes)


class _LineEdits(EntryEdits):
    """Turns edits of the item list into edits of the file's lines.

    The file's first JSON object is never removed: it is what makes the file read as a rollout
    (a damaged one may begin with an orphan output), and the repaired file must read as one too.
    """

    def __init__(self, items: Sequence[Entry], first: Entry) -> None:
        super().__init__()
        self.items = items
        self.first = first.position

    def translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        """Responses results are whole items: their fixes add items beside the calls (new
        lines) and drop whole items (lines)."""
        if isinstance(edit, Insert):
            assert not edit.array
            after = self.items[edit.index - 1]
            lines = tuple(self._line(value, edit.index) for value in edit.values)
            return (Insert((), after.position + 1, lines),)
        assert isinstance(edit, Delete) and len(edit.pointer) == 1
        position = self.items[int(edit.pointer[0])].position
        return None if position == self.first else (Delete((position,)),)

    def _line(self, item: Any, index: int) -> dict[str, Any]:
        """A new ``response_item`` line for an item inserted at ``index``, with the timestamp
        of the line of the call it answers (the nearest earlier item with its ``call_id``)."""
        answered = item.get("call_id") if isinstance(item, dict) else None
        caller = next(
            (
                line
                for line in reversed(self.items[:index])
                if line.value["payload"].get("call_id") == answered
            ),
            self.items[index - 1],
        )
        line: dict[str, Any] = {}
        if "timestamp" in caller.value:
            line["timestamp"] = caller.value["timestamp"]
        line.update(type="response_item", payload=item)
        return line
