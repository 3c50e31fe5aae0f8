"""OpenHands trajectories: the events of one conversation, saved as one JSON array (the
trajectories OpenHands records and replays, ``tests/runtime/trajs/*.json``) or one a line.

Each event is an action or an observation (`patchcore.dialects.openhands`). The conversation is
the events in order, the list OpenHands' conversation memory builds its messages from: an
action with ``tool_call_metadata`` is a call (and so is each call of its model response that no
action carries), answered by the observation with the same ``tool_call_id``; the ``finish``
action is never answered.

Repair: for an action left without its observation, the ``ErrorObservation`` the agent
controller writes for a pending action when the agent stops or fails (``_reset``), right after
the action (and the observations answering its response's other calls), with the next free
event ``id`` and the action's ``timestamp``. Events are never removed nor moved.

An event store on disk (``sessions/<sid>/events/<id>.json``, one event a file) is read as the
trajectory its events make, one a line (`patchcore.event_stores`); the new events of a repair
are then its new files (docs/formats.md#openhands-event-stores).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from patchcore.chat_names import openhands_event
from patchcore.dialects.openhands import OpenHands
from patchcore.layouts.base import Analysis
from patchcore.layouts.sessions.entries import Entry
from patchcore.layouts.sessions.layout import (
    EntryEdits,
    SessionLayout,
    checked_entries,
    in_order,
    messages_and_notes,
)
from patchcore.model import Delete, Edit, Insert
from patchcore.options import Options

OPENHANDS = OpenHands()


class OpenHandsTrajectory(SessionLayout):
    """An OpenHands trajectory: a JSON array (or JSON Lines) of events."""

    short_name = "openhands"
    title = "OpenHands trajectory"
    recognised_by = (
        "a JSON array (or JSON Lines) of events with `id`, `timestamp`, `source` and `action` "
        "or `observation`; `tool_call_metadata` links an action and its observation"
    )
    containers = (
        "trajectories saved by OpenHands (`save_trajectory_path`, `tests/runtime/trajs`); "
        "an event store, the folder `sessions/<sid>/events/` of one `<id>.json` an event, "
        "read as one input"
    )
    name = "openhands-trajectory"
    dialect = OPENHANDS
    arrays = True

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """None: OpenHands writes an event's ``timestamp`` in the local time of the machine
        that ran it, without its zone, so it cannot say how long ago that was; whether the
        trajectory may still be written to is judged from outside (``Options.live``), as for a
        log that records no time."""
        return ()

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return openhands_event(value)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        items, notes = messages_and_notes(
            entries, openhands_event, "an object that is no OpenHands event"
        )
        edits = _EventEdits(items, entries, strip=options.strip)
        listed = checked_entries(
            items,
            [e.value for e in items],
            inside=(),
            dialect=OPENHANDS,
            options=options,
            fixing=fixing,
            fix=edits.fix,
        )
        return in_order(listed, notes)


class _EventEdits(EntryEdits):
    """Turns the engine's new observations into new events of the file, each with the next
    free ``id``. Moves are not
    offered, nor removals but ``strip``'s of the observations toolpatch wrote: an event's ``id``
    and ``cause`` tie it to the others."""

    def __init__(self, items: Sequence[Entry], entries: Sequence[Entry], *, strip: bool) -> None:
        super().__init__()
        self.items = items
        self.strip = strip
        ids = [e.value["id"] for e in entries if openhands_event(e.value)]
        self.next_id = max(ids, default=-1) + 1

    def translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        if isinstance(edit, Delete) and len(edit.pointer) == 1 and self.strip:
            return (Delete((self.items[int(edit.pointer[0])].position,)),)
        if not isinstance(edit, Insert) or not all(isinstance(v, dict) for v in edit.values):
            return None
        after = self.items[edit.index - 1]
        events = []
        for value in edit.values:
            events.append({"id": self.next_id, **value})
            self.next_id += 1
        return (Insert((), after.position + 1, tuple(events)),)
