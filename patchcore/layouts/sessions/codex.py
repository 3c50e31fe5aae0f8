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
the call's model turn and its existing outputs), carrying the ``timestamp`` of the line it
follows (never earlier than the line before it). Codex
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
from patchcore.layouts.base import CODEX_LINE_TYPES, Analysis, codex_entry
from patchcore.layouts.sessions.codex_outputs import recorded_outputs
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    SessionLayout,
    checked_entries,
    in_order,
    odd_entry,
    unread,
)
from patchcore.model import Delete, Edit, Fix, Insert, MessageView, Pointer, ToolCall
from patchcore.options import Options
from patchcore.result import Conversation

SHELL_CALL = "local_shell_call"
#: What `Codex.read_line` says of a line that holds a Responses item of the conversation.
ITEM = object()


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
        "JSON Lines of `{timestamp, ordinal?, type, payload}` with `type` session_meta / "
        "response_item / event_msg / turn_context / compacted / world_state / "
        "token_usage_record; Responses items in the `response_item` payloads"
    )
    containers = "`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`"
    name = "codex-rollout"
    dialect = CODEX_ITEMS

    #: Where a line holds its Responses item (`item`).
    item_at: Pointer = ("payload",)

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return codex_entry(value)

    def read_line(self, value: dict[str, Any]) -> object:
        """What a line of the rollout is: `ITEM` (a Responses item of the conversation), the
        payload of an event (an ``event_msg``, whose ``exec_command_end`` may say a lost output
        whole), ``None`` for another line kept as it is, or why it is kept unread (a string)."""
        kind = tag(value, "type")
        payload = value.get("payload")
        if kind == "response_item" and isinstance(payload, dict):
            return ITEM
        if kind == "event_msg" and isinstance(payload, dict):
            return payload
        if kind == "response_item":
            return f"a response_item whose payload is {json_kind(payload)}"
        if kind not in CODEX_LINE_TYPES:
            return f"a line of unknown type {kind!r}" if kind else "an object without 'type'"
        return None

    def item(self, value: dict[str, Any]) -> dict[str, Any]:
        """The Responses item of a line `read_line` says is one."""
        item: dict[str, Any] = value["payload"]
        return item

    def new_line(
        self, item: dict[str, Any], after: dict[str, Any], ordinal: int | None
    ) -> dict[str, Any]:
        """The line that holds a new ``item``, written after the line ``after``: a
        ``response_item`` with that line's ``timestamp`` (the call's own, when outputs came
        between them, would put a line earlier than the one before it), and the ``ordinal`` it
        is given (`_LineEdits`)."""
        line: dict[str, Any] = {}
        if "timestamp" in after:
            line["timestamp"] = after["timestamp"]
        if ordinal is not None:
            line["ordinal"] = ordinal
        line.update(type="response_item", payload=item)
        return line

    def analyse_entries(
        self, lines: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        items: list[Entry] = []
        events: list[dict[str, Any]] = []
        for line in lines:
            odd = odd_entry(line)
            if odd is not None:
                notes.append(odd)
                continue
            read = self.read_line(line.value)
            if isinstance(read, str):
                notes.append(unread(line, read))
            elif read is ITEM:
                items.append(line)
            elif isinstance(read, dict):
                events.append(read)
        payloads = [self.item(line.value) for line in items]
        read = checked_entries(
            items,
            payloads,
            inside=self.item_at,
            dialect=CODEX_ITEMS,
            options=options,
            fixing=fixing,
            fix=_LineEdits(self, items, lines).fix,
            recorded=recorded_outputs(events, payloads),
        )
        return in_order(read, notes)


class _LineEdits:
    """Turns edits of the item list into edits of the file's lines (each edit once, so that the
    fixes sharing an edit still share it).

    The file's first JSON object is never removed: it is what makes the file read as a rollout
    (a damaged one may begin with an orphan output), and the repaired file must read as one too.

    Codex numbers every line it writes (``ordinal``: 0, 1, 2, ... in recent releases) and, when
    it resumes, reads the last line's number to go on from it: it refuses a rollout whose final
    line has none ("final paginated rollout record ... is missing an ordinal"). So a new line
    that becomes the file's last is numbered on from the line before it. One in the middle is
    not: every number after it is taken, and renumbering the later lines would rewrite them;
    Codex reads a line without one there (docs/formats.md#codex).
    """

    def __init__(self, layout: Codex, items: Sequence[Entry], lines: Sequence[Entry]) -> None:
        self.layout = layout
        self.items = items
        self.lines = lines
        self.first = next(line.position for line in lines if isinstance(line.value, dict))
        self.done: dict[int, Edit] = {}

    def fix(self, fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        edits = tuple(self._edit(edit) for edit in fix.edits)
        if Delete((self.first,)) in edits:
            return None
        return replace(fix, edits=edits)

    def _edit(self, edit: Edit) -> Edit:
        if id(edit) not in self.done:
            self.done[id(edit)] = self._translated(edit)
        return self.done[id(edit)]

    def _translated(self, edit: Edit) -> Edit:
        """Responses results are whole items: their fixes add items beside the calls (new
        lines) and drop whole items (lines)."""
        if isinstance(edit, Insert):
            assert not edit.array
            at = self.items[edit.index - 1].position + 1
            ordinal = self._next_ordinal() if at == len(self.lines) else None
            lines = tuple(
                self._line(value, edit.index, None if ordinal is None else ordinal + k)
                for k, value in enumerate(edit.values)
            )
            return Insert((), at, lines)
        assert isinstance(edit, Delete) and len(edit.pointer) == 1
        return Delete((self.items[int(edit.pointer[0])].position,))

    def _next_ordinal(self) -> int | None:
        """The number after the final line's ``ordinal``, or ``None`` where it has none."""
        final = self.lines[-1].value
        ordinal = final.get("ordinal") if isinstance(final, dict) else None
        if isinstance(ordinal, int) and not isinstance(ordinal, bool):
            return ordinal + 1
        return None

    def _line(self, item: Any, index: int, ordinal: int | None) -> dict[str, Any]:
        """A new line for an item inserted at ``index``, written by the layout after the item
        line it follows."""
        return self.layout.new_line(item, self.items[index - 1].value, ordinal)
