"""Check and repair the sessions of an OpenAI Agents SDK ``SQLiteSession`` database.

The SDK keeps each session's conversation as Responses API input items, one row each
(``agent_sessions`` / ``agent_messages``, `agents.memory.sqlite_session`). A ``function_call``
item whose ``function_call_output`` never came (the run was cut off in the tool) makes every
later ``Runner.run`` on the session fail: ``No tool output found for function call …``. The
items are checked with toolpatch's OpenAI Responses dialect; the repair appends the missing
``function_call_output`` items as the SDK's own ``add_items`` does (the Responses API pairs an
output with its call by ``call_id`` wherever it stands), so no existing row changes, and
``pop_item`` takes a repair back.

A store is named ``agents+sqlite:///relative.db`` or ``agents+sqlite:////absolute/path.db``.
Importing this module without the ``agents`` extra raises `patchcore.extras.MissingExtra`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from patchcore.extras import MissingExtra
from patchcore.raw.codec import MAX_RECORD_BYTES

try:
    from agents.memory.sqlite_session import SQLiteSession
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="agents", part="an agents+ store URL") from None

from .store_files import SessionDatabase, StoreError, over_limit, tables
from .stores import STORE_KINDS, StoreThread, in_dialect

#: The URL prefix of a ``SQLiteSession`` database.
SQLITE = "agents+sqlite://"
#: The dialect of the SDK's items: Responses API input items.
DIALECT = "openai-responses"
#: The SDK's default table names.
SESSIONS_TABLE = "agent_sessions"
MESSAGES_TABLE = "agent_messages"


class SessionMoved(StoreError):
    """The session got new items while toolpatch worked: nothing was written."""


class Session:
    """One session of the database: read with plain queries (`SessionStore`'s connection), and
    written through the SDK's ``SQLiteSession``."""

    def __init__(self, store: SessionStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self._read: list[Any] | None = None

    def items(self) -> list[Any]:
        """Its items, oldest first (as the SDK's ``get_items`` reads them, ``json.loads`` of
        each row); remembered for `append`'s comparison.

        Raises:
            StoreError: A row that is not JSON (the SDK would skip it in silence).
        """
        self._read = self.store.rows(self.session_id)
        return list(self._read)

    def append(self, items: Sequence[Any]) -> None:
        """Add ``items`` at the end, as the SDK's ``add_items`` adds them (its own insert,
        ``SQLiteSession._insert_items``, on toolpatch's connection), in one transaction with
        reading the session again (``BEGIN IMMEDIATE``, the database's write lock): no other
        writer adds an item in between, so two repairs at once never both answer a call.

        Raises:
            SessionMoved: Its items are no longer those `items` read; nothing was written.
            StoreError: The database refused the write; nothing was written.
        """
        session = SQLiteSession(self.session_id, self.store.path)  # its tables, as the SDK has them
        try:
            with self.store.locked() as conn:
                now = _rows(conn, self.session_id, max_record=self.store.max_record)
                if now != self._read:
                    msg = (
                        f"it changed while toolpatch worked ({len(self._read or [])} items "
                        f"read, {len(now)} now): nothing written, run it again"
                    )
                    raise SessionMoved(msg)
                session._insert_items(conn, list(items))
        finally:
            session.close()


class SessionStore(SessionDatabase):
    """A ``SQLiteSession`` database opened from a store URL: an existing file with the SDK's
    tables, read with plain queries on a read-only connection unless ``write`` (the SDK's
    ``SQLiteSession`` creates its tables and turns the database to WAL mode as it opens, so it
    is used only to write a repair; docs/stores.md#what-reading-does-to-a-database).

    Raises:
        StoreError: Not such a URL, no such file, or not the SDK's database.
    """

    IDS = f"SELECT session_id FROM {SESSIONS_TABLE} ORDER BY session_id"

    def __init__(
        self, url: str, *, write: bool = False, max_record: int = MAX_RECORD_BYTES
    ) -> None:
        if not url.startswith(SQLITE + "/") or len(url) == len(SQLITE) + 1:
            msg = (
                "not an Agents SDK store URL: agents+sqlite:///relative.db or "
                "agents+sqlite:////absolute.db"
            )
            raise StoreError(msg)
        super().__init__(url[len(SQLITE) + 1 :], write=write, max_record=max_record)

    def check(self, conn: sqlite3.Connection) -> None:
        """Refuse a database without the SDK's tables.

        Raises:
            StoreError: It is such a database.
        """
        if not {SESSIONS_TABLE, MESSAGES_TABLE} <= tables(conn):
            msg = (
                f"not an Agents SDK session database (it has no {SESSIONS_TABLE} and "
                f"{MESSAGES_TABLE} tables)"
            )
            raise StoreError(msg)

    def sessions(self, session_ids: Sequence[str] = ()) -> list[Session]:
        """Its sessions, by id (only ``session_ids`` when given, in their order).

        Raises:
            StoreError: A session id the database does not hold.
        """
        return [Session(self, sid) for sid in self.session_ids(session_ids)]

    def rows(self, session_id: str) -> list[Any]:
        """The items of a session, oldest first, as stored.

        Raises:
            StoreError: The database cannot be read, or a row is not JSON.
        """
        return _rows(self._conn, session_id, max_record=self.max_record)


def _rows(conn: sqlite3.Connection, session_id: str, *, max_record: int) -> list[Any]:
    """The items of a session, oldest first, as stored (``json.loads`` of each row, as the SDK's
    ``get_items`` reads them), once the database has said that they take no more than
    ``max_record`` bytes together (the record-size limit: a session is one history).

    Raises:
        StoreError: The database cannot be read, the rows are over the limit, or a row is not
            JSON (which the SDK would skip in silence).
    """
    try:
        (size,) = conn.execute(
            f"SELECT sum(length(CAST(message_data AS BLOB))) FROM {MESSAGES_TABLE} "
            "WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        refused = over_limit("its items", size, max_record)
        if refused is not None:
            raise StoreError(refused)
        rows = conn.execute(
            f"SELECT id, message_data FROM {MESSAGES_TABLE} WHERE session_id = ? ORDER BY id ASC",
            (session_id,),
        ).fetchall()
    except sqlite3.Error as exc:
        raise StoreError(str(exc)) from None
    items = []
    for row_id, data in rows:
        try:
            items.append(json.loads(data))
        except (TypeError, ValueError) as exc:
            msg = f"its item in row {row_id} of {MESSAGES_TABLE} is not JSON ({exc})"
            raise StoreError(msg) from None
        except RecursionError:  # an item nested deeper than JSON is read here
            msg = f"its item in row {row_id} of {MESSAGES_TABLE} is nested too deep to be read"
            raise StoreError(msg) from None
    return items


@contextmanager
def store_threads(
    url: str, *, write: bool, only: Sequence[str] = (), max_record: int = MAX_RECORD_BYTES
) -> Iterator[Iterator[StoreThread]]:
    """The sessions of the database ``url`` as `toolpatch.integrations.stores` takes them
    (`toolpatch.integrations.stores.open_store`): Responses API input items, checked as the
    OpenAI Responses dialect unless another is forced, whose repair is appended; a session
    whose items are over the record-size limit ``max_record`` is that session's error."""
    with SessionStore(url, write=write, max_record=max_record) as store:
        yield (_store_thread(session) for session in store.sessions(only))


def _store_thread(session: Session) -> StoreThread:
    """``session`` as the stores' interface takes it."""
    import patchcore

    made = StoreThread(session.session_id, layout=STORE_KINDS["agents+"], dialect=DIALECT)
    try:
        made.messages = session.items()
    except StoreError as exc:
        made.error = str(exc)
        return made
    made.check = in_dialect(patchcore.check_messages, DIALECT)
    made.fix = in_dialect(patchcore.fix_messages, DIALECT)
    made.shown = lambda item: json.dumps(item, ensure_ascii=False)
    made.writer = session.append
    made.appended = True
    return made
