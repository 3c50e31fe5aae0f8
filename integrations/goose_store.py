"""Check and repair the sessions of Goose's SQLite store (``sessions.db``).

Goose (block/goose) keeps its sessions in ``~/.local/share/goose/sessions/sessions.db``: a
``sessions`` row each, and its ``messages`` rows, one message a row (``role``, ``content_json``,
``created_timestamp``, ``metadata_json``, ``message_id``), read in ``timestamp`` order
(``SessionStorage::get_conversation``, ``crates/goose/src/session/session_manager.rs``;
docs/stores.md#goose). A message is what a line of Goose's older JSON Lines session holds,
checked with the goose dialect, whose repair is what goose writes for a turn it interrupted:
a user message right after the calling one, with an error ``toolResponse`` per call, or that
response added to the turn's user message that answers its other calls.

The repair is written as Goose writes messages, in one transaction with reading the session
again: a message the repair extends gets its ``content_json`` updated in place; a new message
is a new row (``add_message``'s insert: a ``message_id`` of ``msg_<session>_<uuid>``, the
session's ``updated_at`` set to now). A row keeps the ``timestamp`` goose gave it; a new one
takes the one of the message before it, and the rows after it are written again after it,
every column as stored, so that goose's ``ORDER BY timestamp`` (ties in the order the rows were
written) reads the new message right after its call. Nothing in a row is imported or run.

A store is named ``goose+sqlite:///relative.db`` or ``goose+sqlite:////absolute.db``; it needs
no extra (Python's own ``sqlite3``).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from patchcore.layouts.sessions.layout import moment
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

#: The URL prefix of Goose's database.
SQLITE = "goose+sqlite://"
#: The dialect of its messages: goose's ``{"id", "role", "created", "content", "metadata"}``.
DIALECT = "goose"
#: The tables a session is read from.
TABLES = frozenset({"sessions", "messages"})
#: The roles goose reads; a row of another role is passed over, as goose passes it over.
ROLES = ("user", "assistant")
#: A ``messages`` row's columns, as read and as written again: every one but its ``id``.
COLUMNS = (
    "message_id",
    "session_id",
    "role",
    "content_json",
    "created_timestamp",
    "timestamp",
    "tokens",
    "metadata_json",
)


class SessionMoved(StoreError):
    """The session changed while toolpatch worked: nothing was written."""


@dataclass(frozen=True)
class Rows:
    """A session as stored: its ``messages`` rows in goose's order (``id`` first, then
    `COLUMNS`), and when the session was last written (its ``updated_at`` and its newest
    message's ``timestamp``, seconds since the epoch)."""

    rows: list[tuple[Any, ...]]
    last_update: float | None


class GooseDatabase(SessionDatabase):
    """Goose's ``sessions.db`` opened from a store URL: an existing file with its ``sessions``
    and ``messages`` tables, read with plain queries on a read-only connection unless
    ``write`` (docs/stores.md#what-reading-does-to-a-database). A database of a goose release
    before its schema version 7 (no ``message_id`` column) is refused: goose migrates it the
    next time it opens it.

    Raises:
        StoreError: Not such a URL, no such file, or not Goose's database.
    """

    IDS = "SELECT id FROM sessions ORDER BY created_at, id"

    def __init__(
        self, url: str, *, write: bool = False, max_record: int = MAX_RECORD_BYTES
    ) -> None:
        path = sqlite_path(url, SQLITE, "a Goose store")
        super().__init__(path, write=write, max_record=max_record)

    def check(self, conn: sqlite3.Connection) -> None:
        """Refuse a database without goose's tables, or from before its schema version 7.

        Raises:
            StoreError: It is such a database.
        """
        if not tables(conn) >= TABLES:
            msg = "not Goose's session database (it has no sessions and messages tables)"
            raise StoreError(msg)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
        if not columns >= set(COLUMNS):
            msg = (
                "a Goose session database older than its schema version 7 (its messages "
                "have no message_id): open it with goose once, which migrates it"
            )
            raise StoreError(msg)

    def rows(self, session_id: str) -> Rows:
        """The session's rows as stored (`read_rows`)."""
        return read_rows(self._conn, session_id, max_record=self.max_record)

    def write(self, session_id: str, read: Rows, repaired: Sequence[Any]) -> None:
        """Record ``repaired`` (the session's messages, as `messages_of` read them, with the
        repair's edits) in one transaction with reading the session again (``BEGIN
        IMMEDIATE``, the database's write lock): no other writer changes it in between.

        Raises:
            SessionMoved: Its rows are no longer those ``read``; nothing was written.
            StoreError: The database refused the write; nothing was written.
        """
        with self.locked() as conn:
            if read_rows(conn, session_id, max_record=self.max_record).rows != read.rows:
                msg = "it changed while toolpatch worked: nothing written, run it again"
                raise SessionMoved(msg)
            _write(conn, session_id, read.rows, repaired)


def read_rows(conn: sqlite3.Connection, session_id: str, *, max_record: int) -> Rows:
    """A session's ``messages`` rows in the order goose reads them (``ORDER BY timestamp``;
    rows of one ``timestamp`` in the order they were written), once the database has said
    that they take no more than ``max_record`` bytes together (the record-size limit).

    Raises:
        StoreError: The database cannot be read, or the rows are over the limit.
    """
    try:
        (size,) = conn.execute(
            "SELECT sum(length(CAST(content_json AS BLOB)) + "
            "coalesce(length(CAST(metadata_json AS BLOB)), 0)) FROM messages WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        refused = over_limit("its messages", size, max_record)
        if refused is not None:
            raise StoreError(refused)
        rows = conn.execute(
            f"SELECT id, {', '.join(COLUMNS)} FROM messages WHERE session_id = ? "
            "ORDER BY timestamp, id",
            (session_id,),
        ).fetchall()
        (updated,) = conn.execute(
            "SELECT updated_at FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
    except sqlite3.Error as exc:
        raise StoreError(str(exc)) from None
    times = [when for value in (updated, *(row[6] for row in rows)) if (when := _time(value))]
    return Rows(rows, max(times, default=None))


def _time(value: object) -> float | None:
    """Seconds since the epoch of a SQLite ``TIMESTAMP`` as goose writes it (``CURRENT_TIMESTAMP``,
    ``datetime('now')``: ``2026-03-02 08:03:14``, UTC; or sqlx's encoding of a ``DateTime<Utc>``
    with its zone)."""
    return moment(value.replace(" ", "T", 1)) if isinstance(value, str) else None


def messages_of(rows: Rows) -> tuple[list[dict[str, Any]], list[int]]:
    """The session's messages as goose reads them (``get_conversation``: a row of a role it
    does not know is passed over), ``{"id", "role", "created", "content", "metadata"}``, and
    the row id of each.

    Raises:
        StoreError: A row's ``content_json`` or ``metadata_json`` is not JSON.
    """
    messages, ids = [], []
    for row in rows.rows:
        row_id, message_id, _, role, content, created, _, _, metadata = row
        if role not in ROLES:
            continue
        message: dict[str, Any] = {"id": message_id, "role": role, "created": created}
        message["content"] = json_row(content, f"the content_json of message row {row_id}")
        if metadata is not None:
            message["metadata"] = json_row(metadata, f"the metadata_json of message row {row_id}")
        messages.append(message)
        ids.append(row_id)
    return messages, ids


def _write(
    conn: sqlite3.Connection, session_id: str, rows: list[tuple[Any, ...]], repaired: Sequence[Any]
) -> None:
    """Write the repair of the session whose rows are ``rows``: update the messages it
    extended, insert the ones it added (each after the message before it, the rows after it
    written again behind it), and mark the session updated, as goose's ``add_message`` does."""
    messages, ids = messages_of(Rows(rows, None))
    by_id = {row[0]: row for row in rows}
    stored = iter(zip(messages, ids, strict=True))
    current = next(stored, None)
    placed: list[tuple[Any, ...]] = []  # the rows, in order, each (row id or None, columns)
    for message in repaired:
        if current is not None and _same(message, current[0]):
            old = by_id[current[1]]
            content = old[4] if message == current[0] else compact(message["content"])
            placed.append((current[1], *old[1:4], content, *old[5:]))
            current = next(stored, None)
            continue
        before = placed[-1]  # a new message answers the one before it
        metadata = message.get("metadata")
        placed.append(
            (
                None,
                f"msg_{session_id}_{uuid.uuid4()}",
                session_id,
                message["role"],
                compact(message["content"]),
                message["created"],
                before[6],
                None,
                None if metadata is None else compact(metadata),
            )
        )
    first_new = next((k for k, row in enumerate(placed) if row[0] is None), len(placed))
    for row in placed[:first_new]:
        if row != by_id[row[0]]:
            conn.execute("UPDATE messages SET content_json = ? WHERE id = ?", (row[4], row[0]))
    moved = [row for row in placed[first_new:] if row[0] is not None]
    conn.executemany("DELETE FROM messages WHERE id = ?", [(row[0],) for row in moved])
    conn.executemany(
        f"INSERT INTO messages ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
        [row[1:] for row in placed[first_new:]],
    )
    conn.execute("UPDATE sessions SET updated_at = datetime('now') WHERE id = ?", (session_id,))


def _same(message: Any, stored: dict[str, Any]) -> bool:
    """Whether ``message`` of the repair is the stored message ``stored``: the same one, or
    that message with items added at the end of its content (a response the repair added to
    the turn's user message)."""
    if message is stored:
        return True
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return False
    rest = {k: v for k, v in message.items() if k != "content"}
    content = stored.get("content")
    return (
        rest == {k: v for k, v in stored.items() if k != "content"}
        and isinstance(content, list)
        and message["content"][: len(content)] == content
    )


@contextmanager
def store_threads(
    url: str, *, write: bool, only: Sequence[str] = (), max_record: int = MAX_RECORD_BYTES
) -> Iterator[Iterator[StoreThread]]:
    """The sessions of Goose's database ``url`` as `toolpatch.integrations.stores` takes them
    (`toolpatch.integrations.stores.open_store`): messages of the goose dialect, whose repair
    is written as goose writes messages; a session whose rows are over the record-size limit
    ``max_record`` is that session's error."""
    with GooseDatabase(url, write=write, max_record=max_record) as database:
        ids = database.session_ids(only)
        yield (_store_thread(database, sid) for sid in ids)


def _store_thread(database: GooseDatabase, session_id: str) -> StoreThread:
    """The session ``session_id`` as the stores' interface takes it."""
    import patchcore

    made = StoreThread(session_id, layout=STORE_KINDS["goose+"], dialect=DIALECT)
    try:
        rows = database.rows(session_id)
        made.messages, _ = messages_of(rows)
    except StoreError as exc:
        made.error = str(exc)
        return made
    made.last_update = rows.last_update
    made.check = in_dialect(patchcore.check_messages, DIALECT)
    made.fix = in_dialect(patchcore.fix_messages, DIALECT)
    made.shown = lambda message: json.dumps(message, ensure_ascii=False)
    made.writer = lambda repaired: database.write(session_id, rows, repaired)
    return made
