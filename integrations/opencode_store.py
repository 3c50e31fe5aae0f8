"""Check and repair the sessions of opencode's SQLite database (``opencode.db``).

opencode (1.x) keeps each session in its database (``~/.local/share/opencode/opencode.db``):
a ``session`` row, its ``message`` rows and each message's ``part`` rows, each row's JSON in
its ``data`` column without the ids its columns hold (docs/stores.md#opencode). A tool call
and its result are one part, whose ``state`` is ``pending`` or ``running`` until the tool ends:
opencode killed mid-tool leaves the part unfinished, and the model is told "[Tool execution
was interrupted]" about it on every later turn, a text written nowhere.

A session is read as ``opencode export`` gives it (a message is ``{"info", "parts"}``) and
checked with the opencode dialect, whose repair settles the part's own state as opencode's
session processor settles a part it finds unfinished (`patchcore.dialects.opencode`): only
the ``data`` of the parts it settles is written back, each part's row updated as opencode
updates a part (its ``time_updated`` set to now), in one transaction with reading the session
again. Nothing in a row is imported or run: each ``data`` is ``json.loads`` text.

A store is named ``opencode+sqlite:///relative.db`` or ``opencode+sqlite:////absolute.db``;
it needs no extra (Python's own ``sqlite3``).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from patchcore.raw.codec import MAX_RECORD_BYTES

from .store_files import (
    SessionDatabase,
    StoreError,
    compact,
    json_row,
    over_limit,
    sqlite_path,
    tables,
)
from .stores import STORE_KINDS, StoreThread, in_dialect

#: The URL prefix of opencode's database.
SQLITE = "opencode+sqlite://"
#: The dialect of its messages: opencode's ``{"info", "parts"}``.
DIALECT = "opencode"
#: The tables a session is read from (opencode's drizzle schema, ``session.sql.ts``).
TABLES = frozenset({"session", "message", "part"})
#: The members of a message's and a part's JSON that opencode keeps in columns, not in ``data``.
MESSAGE_COLUMNS = ("id", "sessionID")
PART_COLUMNS = ("id", "sessionID", "messageID")


class SessionMoved(StoreError):
    """The session changed while toolpatch worked: nothing was written."""


@dataclass(frozen=True)
class Rows:
    """A session as stored: its message rows and part rows (ids and ``data`` text, in
    opencode's order), and the newest ``time_updated`` of the session and its rows."""

    messages: list[tuple[str, str]]
    parts: list[tuple[str, str, str]]
    last_update: float | None


class OpencodeDatabase(SessionDatabase):
    """opencode's database opened from a store URL: an existing file with its ``session``,
    ``message`` and ``part`` tables, read with plain queries on a read-only connection unless
    ``write`` (docs/stores.md#what-reading-does-to-a-database); opencode's own migrations and
    tables are never touched.

    Raises:
        StoreError: Not such a URL, no such file, or not opencode's database.
    """

    IDS = "SELECT id FROM session ORDER BY time_created, id"

    def __init__(
        self, url: str, *, write: bool = False, max_record: int = MAX_RECORD_BYTES
    ) -> None:
        path = sqlite_path(url, SQLITE, "an opencode store")
        super().__init__(path, write=write, max_record=max_record)

    def check(self, conn: sqlite3.Connection) -> None:
        """Refuse a database without opencode's tables.

        Raises:
            StoreError: It is such a database.
        """
        if not tables(conn) >= TABLES:
            msg = "not opencode's database (it has no session, message and part tables)"
            raise StoreError(msg)

    def rows(self, session_id: str) -> Rows:
        """The session's rows as stored (`read_rows`)."""
        return read_rows(self._conn, session_id, max_record=self.max_record)

    def write_parts(self, session_id: str, read: Rows, parts: dict[str, str]) -> None:
        """Set the ``data`` of the parts ``parts`` names (part id to its new JSON text), each
        row's ``time_updated`` to now, as opencode updates a part, in one transaction with
        reading the session again (``BEGIN IMMEDIATE``, the database's write lock): no other
        writer changes it in between.

        Raises:
            SessionMoved: Its rows are no longer those ``read``; nothing was written.
            StoreError: The database refused the write; nothing was written.
        """
        with self.locked() as conn:
            now = read_rows(conn, session_id, max_record=self.max_record)
            if (now.messages, now.parts) != (read.messages, read.parts):
                msg = "it changed while toolpatch worked: nothing written, run it again"
                raise SessionMoved(msg)
            stamp = int(time.time() * 1000)
            conn.executemany(
                "UPDATE part SET data = ?, time_updated = ? WHERE id = ? AND session_id = ?",
                [(data, stamp, pid, session_id) for pid, data in parts.items()],
            )


def read_rows(conn: sqlite3.Connection, session_id: str, *, max_record: int) -> Rows:
    """A session's rows, once the database has said that their ``data`` take no more than
    ``max_record`` bytes together (the record-size limit: a session is one history): its
    messages in the order opencode lists them (``time_created``, then id), each message's
    parts by id, as opencode reads them.

    Raises:
        StoreError: The database cannot be read, or the rows are over the limit.
    """
    try:
        (size,) = conn.execute(
            "SELECT (SELECT sum(length(CAST(data AS BLOB))) FROM message WHERE session_id = ?)"
            " + coalesce((SELECT sum(length(CAST(data AS BLOB))) FROM part"
            " WHERE session_id = ?), 0)",
            (session_id, session_id),
        ).fetchone()
        refused = over_limit("its messages and parts", size, max_record)
        if refused is not None:
            raise StoreError(refused)
        messages = conn.execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id",
            (session_id,),
        ).fetchall()
        parts = conn.execute(
            "SELECT message_id, id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
            (session_id,),
        ).fetchall()
        (updated,) = conn.execute(
            "SELECT max(s.time_updated, coalesce((SELECT max(time_updated) FROM message"
            " WHERE session_id = s.id), 0), coalesce((SELECT max(time_updated) FROM part"
            " WHERE session_id = s.id), 0)) FROM session AS s WHERE s.id = ?",
            (session_id,),
        ).fetchone()
    except sqlite3.Error as exc:
        raise StoreError(str(exc)) from None
    last = updated / 1000 if isinstance(updated, int | float) and updated > 0 else None
    return Rows(
        [(str(i), str(d)) for i, d in messages],
        [(str(m), str(i), str(d)) for m, i, d in parts],
        last,
    )


def export_shape(session_id: str, rows: Rows) -> list[dict[str, Any]]:
    """The session's messages as ``opencode export`` gives them: ``{"info", "parts"}``, each
    ``data`` with the ids its columns hold put back (``id`` and ``sessionID`` of a message,
    and ``messageID`` of a part), over any member of the same name in ``data``, as opencode
    reads a row.

    Raises:
        StoreError: A row's ``data`` is not a JSON object.
    """
    by_message: dict[str, list[dict[str, Any]]] = {}
    for message_id, part_id, data in rows.parts:
        value = _object(data, f"the data of part {part_id}")
        part = {"id": part_id, "sessionID": session_id, "messageID": message_id}
        part.update((k, v) for k, v in value.items() if k not in PART_COLUMNS)
        by_message.setdefault(message_id, []).append(part)
    messages = []
    for message_id, data in rows.messages:
        value = _object(data, f"the data of message {message_id}")
        info = {"id": message_id, "sessionID": session_id}
        info.update((k, v) for k, v in value.items() if k not in MESSAGE_COLUMNS)
        messages.append({"info": info, "parts": by_message.get(message_id, [])})
    return messages


def changed_parts(
    rows: Rows, original: Sequence[dict[str, Any]], repaired: Sequence[dict[str, Any]]
) -> dict[str, str]:
    """The parts the repair changed (its edits are of parts' states, in place), by id, each
    as the JSON text of its new ``data``: the stored ``data`` with the members the repair
    changed, written as opencode writes JSON (``JSON.stringify``: compact, not
    ASCII-escaped)."""
    stored = {part_id: data for _, part_id, data in rows.parts}
    changed = {}
    for before, after in zip(original, repaired, strict=True):
        for old, new in zip(before["parts"], after["parts"], strict=True):
            if new != old:
                part_id = str(new["id"])
                data = _object(stored[part_id], f"the data of part {part_id}")
                data.update((k, v) for k, v in new.items() if k not in PART_COLUMNS)
                changed[part_id] = compact(data)
    return changed


def _object(text: str, where: str) -> dict[str, Any]:
    value = json_row(text, where)
    if not isinstance(value, dict):
        msg = f"{where} is not a JSON object"
        raise StoreError(msg)
    return value


@contextmanager
def store_threads(
    url: str, *, write: bool, only: Sequence[str] = (), max_record: int = MAX_RECORD_BYTES
) -> Iterator[Iterator[StoreThread]]:
    """The sessions of opencode's database ``url`` as `toolpatch.integrations.stores` takes
    them (`toolpatch.integrations.stores.open_store`): messages of the opencode dialect,
    whose repair writes the settled parts back; a session whose rows are over the
    record-size limit ``max_record`` is that session's error."""
    with OpencodeDatabase(url, write=write, max_record=max_record) as database:
        ids = database.session_ids(only)
        yield (_store_thread(database, sid) for sid in ids)


def _store_thread(database: OpencodeDatabase, session_id: str) -> StoreThread:
    """The session ``session_id`` as the stores' interface takes it."""
    return session_thread(
        session_id,
        STORE_KINDS["opencode+"],
        lambda: database.rows(session_id),
        lambda rows, parts: database.write_parts(session_id, rows, parts),
    )


def session_thread(
    session_id: str,
    layout: str,
    read: Callable[[], Rows],
    write: Callable[[Rows, dict[str, str]], None],
) -> StoreThread:
    """A session of opencode as the stores' interface takes it, whoever keeps it (its
    database, or its storage files: `toolpatch.integrations.opencode_files`): ``read`` gives
    its rows, ``write`` records the parts a repair settled (part id to its new JSON)."""
    import patchcore

    made = StoreThread(session_id, layout=layout, dialect=DIALECT)
    try:
        rows = read()
        made.messages = export_shape(session_id, rows)
    except StoreError as exc:
        made.error = str(exc)
        return made
    original = made.messages
    made.last_update = rows.last_update
    made.check = in_dialect(patchcore.check_messages, DIALECT)
    made.fix = in_dialect(patchcore.fix_messages, DIALECT)
    made.shown = lambda message: json.dumps(message, ensure_ascii=False)
    made.writer = lambda repaired: write(rows, changed_parts(rows, original, repaired))
    return made
