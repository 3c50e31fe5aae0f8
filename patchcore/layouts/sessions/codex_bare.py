"""Codex CLI rollouts of the layouts written before each line was wrapped: Responses items bare.

codex-rs wrote ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` in three layouts over 2025
(``core/src/rollout.rs``, then ``core/src/rollout/recorder.rs``):

1. The first line is ``SessionMeta``, ``{"id", "timestamp", "instructions"?}`` (with ``git``
   beside it once ``SessionMetaWithGit`` came); every other line is a Responses item written
   bare (``message``, ``function_call``, ``function_call_output``, ``local_shell_call``, later
   ``reasoning``), or ``{"record_type": "state", ...}``. ``RolloutRecorder::resume`` reads every
   line after the first that parses as a ``ResponseItem`` and passes over the state lines.
2. The first line is ``{"record_type": "session_meta", "id", "timestamp", "cwd", "originator",
   "cli_version", "instructions", "git"?}``; items are still bare, beside
   ``{"record_type": "event", "id", "msg"}``, ``{"record_type": "prev_session_meta", ...}`` and
   ``state`` lines. ``get_rollout_history`` reads a line with no ``record_type`` (or
   ``"response"``) as an item.
3. ``{"timestamp", "type", "payload"}`` a line, today's (`patchcore.layouts.sessions.codex`).

This module reads the first two as that one does the third: the items, in file order, are the
conversation, paired with the Codex items' dialect; the meta, state, event and previous-meta
lines are kept as they are. A new output is a new line holding the item bare, as these
releases wrote it. The items record no time (only the meta says when the session started), so
the session's clock is the file's: live as the caller judged it from outside.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from patchcore.chat_names import tag
from patchcore.layouts.base import codex_bare_meta
from patchcore.layouts.sessions.codex import ITEM, Codex
from patchcore.model import Pointer

#: The ``record_type`` of the lines that are no items, kept as they are.
KEPT_RECORDS = frozenset({"state", "session_meta", "prev_session_meta"})


class CodexBare(Codex):
    """Codex CLI rollout JSONL of the 2025 layouts, items written bare."""

    short_name = "codex-bare"
    title = "Codex rollout (2025 layouts, items bare)"
    recognised_by = (
        'JSON Lines whose first line is `{id, timestamp, instructions?, git?}` or `{"record_type": '
        '"session_meta", id, ...}`; bare Responses items, `record_type` state / event / '
        "prev_session_meta lines"
    )
    containers = "`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (Codex CLI of mid 2025)"
    name = "codex-rollout-bare"
    item_at: Pointer = ()

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return codex_bare_meta(value)

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """None: the items record no time, and the meta's ``timestamp`` is when the session
        started, not when it was last written to."""
        return ()

    def read_line(self, value: dict[str, Any]) -> object:
        record = value.get("record_type")
        if record in KEPT_RECORDS:
            return None
        if record == "event":
            message = value.get("msg")
            return message if isinstance(message, dict) else None
        if record not in (None, "response"):
            return f"a line of unknown record_type {record!r}"
        if tag(value, "type") is not None:
            return ITEM
        return None if codex_bare_meta(value) else "an object without 'type'"

    def item(self, value: dict[str, Any]) -> dict[str, Any]:
        return value

    def new_line(
        self, item: dict[str, Any], caller: dict[str, Any], ordinal: int | None
    ) -> dict[str, Any]:
        """The item itself, as these releases wrote every item (they numbered no line)."""
        return item
