"""OpenHands event stores: a folder that is one input (docs/formats.md#openhands-event-stores).

OpenHands keeps a conversation as one file an event, ``sessions/<sid>/events/<id>.json``.
A folder is such a store by what it holds, never by its name: only files named ``<id>.json``
(at least one), the first of which is an OpenHands event (`patchcore.EventStore`). A walk
takes such a folder as one input instead of its files (each alone is one event, never a
conversation), and so does a folder named on the command line. It is read as the trajectory
its events make, in id order; ``fix`` writes only the new events' files, each atomically,
beside the others, and never rewrites an event that is there. Whether the agent may still be
writing it is judged from the folder's modification time, which each new event's file moves
(docs/cli.md#live-sessions).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from patchcore import EventStore
from toolpatch.integrations.file_io import AtomicFile

from .output_sinks import Sink, WriteFailed

#: The most of a store's first event read to tell whether the folder is a store.
FIRST_EVENT_LIMIT = 16 * 2**20


def _event_names(folder: Path) -> list[str] | None:
    """The names in ``folder`` when every entry is a regular file with an event's name."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return None
    if not all(entry.is_file(follow_symlinks=False) for entry in entries):
        return None
    return [entry.name for entry in entries]


def is_event_store(folder: Path) -> bool:
    """Whether ``folder`` holds an OpenHands event store: files named by their ids only, the
    first an OpenHands event."""
    names = _event_names(folder)
    ids = None if names is None else EventStore.ids_of(names)
    if ids is None:
        return False
    try:
        with open(folder / f"{ids[0]}.json", "rb") as first:
            return EventStore.is_event(first.read(FIRST_EVENT_LIMIT))
    except OSError:
        return False


def read_store(folder: Path) -> EventStore:
    """The store in ``folder``, every event file read.

    Raises:
        OSError: A file cannot be read.
        patchcore.DecodeError: The folder holds another file, or an event file is not one line.
    """
    names = _event_names(folder) or []
    return EventStore.of({name: (folder / name).read_bytes() for name in names})


class StoreInput:
    """An open store (`cli.inputs.Source.opened`): its trajectory's bytes, read once, and the
    store they were made of, which ``fix`` writes back to (`StoreFiles`): the events a repair
    is judged against are the very ones it read."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._blocks = iter((store.lines(),))

    def __iter__(self) -> StoreInput:
        return self

    def __next__(self) -> bytes:
        return next(self._blocks)


class StoreFiles(Sink):
    """``fix`` of a store in place: the repaired trajectory is gathered, and `finish` writes the
    files it adds (and removes those ``strip`` takes back), each on its own and atomically; an
    event file that appeared meanwhile is never written over (the agent is writing)."""

    def __init__(self, folder: Path, store: EventStore) -> None:
        self._folder = folder
        self._store = store
        self._pieces: list[bytes] = []

    def write(self, piece: bytes | memoryview) -> None:
        self._pieces.append(bytes(piece))

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        if not changed:
            return
        changes = self._store.changes(b"".join(self._pieces))
        try:
            for name, data in changes.added.items():
                target = self._folder / name
                if target.exists():
                    msg = f"{target}: written meanwhile, the agent is still running"
                    raise WriteFailed(msg)
                with AtomicFile(target, durable=True) as new:
                    new.write(data)
                    new.commit()
            for name in changes.removed:
                (self._folder / name).unlink()
        except OSError as exc:
            msg = f"{self._folder}: cannot write its events: {exc}"
            raise WriteFailed(msg) from exc
