"""OpenHands event stores: a conversation kept as one file an event, read as the trajectory its
events make, and repaired by new event files (docs/formats.md#openhands-event-stores).

OpenHands' file store (``openhands/events/stream.py``, ``EventStream.add_event``) writes each
event of a conversation to ``sessions/<sid>/events/<id>.json`` (``storage/locations.py``) as
``json.dumps(event_to_dict(event))``: one line, no newline after it; ids count up from 0, the
next being one more than the highest file's (``EventStore._calculate_cur_id``), and a reader
takes the events in id order, passing over a missing id (``search_events``). So the events'
files, in id order, one a line, are a trajectory of the ``openhands`` layout
(`patchcore.layouts.sessions.openhands`), read and repaired as such; a repair only adds
observations, each with the next free id, which are the store's new files. Its other files
(``event_cache/`` pages of 25 events, written only for full pages of events already there,
``metadata.json``) are none of the events' and never touched.

This module only reads names and bytes it is given: the caller lists the folder and writes the
files (the CLI, ``cli/event_stores.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import msgspec

from patchcore.chat_names import openhands_event
from patchcore.errors import DecodeError

#: The name OpenHands gives an event's file: its id, in decimal.
EVENT_FILE = re.compile(r"(0|[1-9][0-9]*)\.json")


@dataclass(frozen=True, slots=True)
class StoreChanges:
    """What a repair of an event store writes: files to add (name → bytes) and to remove
    (``toolpatch strip``'s, of the observations toolpatch added)."""

    added: Mapping[str, bytes]
    removed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EventStore:
    """The events of an OpenHands event store, in id order (``(id, bytes)``)."""

    events: tuple[tuple[int, bytes], ...]

    @staticmethod
    def ids_of(names: Iterable[str]) -> list[int] | None:
        """The ids of a folder's file names, sorted, when every one names an event file and
        there is at least one; else ``None`` (no event store)."""
        ids = []
        for name in names:
            match = EVENT_FILE.fullmatch(name)
            if match is None:
                return None
            ids.append(int(match[1]))
        return sorted(ids) or None

    @staticmethod
    def is_event(data: bytes) -> bool:
        """Whether ``data`` (a file's bytes) is one OpenHands event as ``event_to_dict``
        writes it: what makes a folder of numbered JSON files a store."""
        try:
            return openhands_event(msgspec.json.decode(data))
        except msgspec.DecodeError:
            return False

    @classmethod
    def of(cls, files: Mapping[str, bytes]) -> EventStore:
        """The store of a folder's event files (name → bytes).

        Raises:
            DecodeError: A name is no event file's, or a file is not one line (OpenHands
                writes each event on one).
        """
        ids = cls.ids_of(files)
        if ids is None:
            msg = "an event store holds only files named <id>.json, and one at least"
            raise DecodeError(msg)
        events = []
        for ident in ids:
            data = files[f"{ident}.json"]
            if b"\n" in data.rstrip(b"\r\n") or not data.strip():
                msg = f"event file {ident}.json is not one line of JSON"
                raise DecodeError(msg)
            events.append((ident, data))
        return cls(tuple(events))

    def lines(self) -> bytes:
        """The trajectory the store makes: its events in id order, one a line."""
        return b"".join(data.rstrip(b"\r\n") + b"\n" for _, data in self.events)

    def changes(self, repaired: bytes) -> StoreChanges:
        """The files the repaired trajectory ``repaired`` (`lines`, repaired) adds to the store
        and removes from it: an event whose id the store lacks is a new file, written as its
        line (as OpenHands writes one, without a newline); a store's event that is gone was
        one toolpatch wrote (``strip``).

        Raises:
            DecodeError: A line of ``repaired`` is no event, or an event the store holds was
                changed (a repair of a store only adds events).
        """
        held = {ident: data.rstrip(b"\r\n") for ident, data in self.events}
        added: dict[str, bytes] = {}
        kept: set[int] = set()
        for line in repaired.splitlines():
            try:
                value = msgspec.json.decode(line)
            except msgspec.DecodeError:
                value = None
            if not openhands_event(value):
                msg = "a repaired event store's line is no event"
                raise DecodeError(msg)
            ident = value["id"]
            if ident in held:
                if line != held[ident]:
                    msg = f"a repair would change event {ident}, which it never does"
                    raise DecodeError(msg)
                kept.add(ident)
            else:
                added[f"{ident}.json"] = line
        removed = tuple(f"{ident}.json" for ident in held if ident not in kept)
        return StoreChanges(added, removed)
