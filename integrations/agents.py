"""Check and repair the sessions of an OpenAI Agents SDK ``SQLiteSession`` database.

The SDK keeps each session's conversation as Responses API input items, one row each
(``agent_sessions`` / ``agent_messages``, `agents.memory.sqlite_session`). A ``function_call``
item whose ``function_call_output`` never came (the run was cut off in the tool) makes every
later ``Runner.run`` on the session fail: ``No tool output found for function call …``. The
items are checked with toolpatch's OpenAI Responses dialect; the repair appends the missing
``function_call_output`` items through the SDK's own ``add_items`` (the Responses API pairs an
output with its call by ``call_id`` wherever it stands), so no existing row changes, and
``pop_item`` takes a repair back.

A store is named ``agents+sqlite:///relative.db`` or ``agents+sqlite:////absolute/path.db``.
Importing this module without the ``agents`` extra raises `patchcore.extras.MissingExtra`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from typing import Any

from patchcore.extras import MissingExtra

try:
    from agents.memory.sqlite_session import SQLiteSession
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="agents", part="an agents+ store URL") from None

from .store_files import StoreError, existing_sqlite, tables

#: The URL prefix of a ``SQLiteSession`` database.
SQLITE = "agents+sqlite://"
#: The SDK's default table names.
SESSIONS_TABLE = "agent_sessions"
MESSAGES_TABLE = "agent_messages"


class SessionMoved(StoreError):
    """The session got new items while toolpatch worked: nothing was written."""


class Session:
    """One session of the database, read and written through the SDK's ``SQLiteSession``."""

    def __init__(self, path: str, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._read: list[Any] | None = None

    def items(self) -> list[Any]:
        """Its items, oldest first (``get_items``); remembered for `append`'s comparison."""
        self._read = _run(self._open(), lambda s: s.get_items())
        return list(self._read)

    def append(self, items: Sequence[Any]) -> None:
        """Add ``items`` at the end (``add_items``), after reading the session again.

        Raises:
            SessionMoved: Its items are no longer those `items` read; nothing was written.
        """
        session = self._open()
        try:
            now = asyncio.run(session.get_items())
            if now != self._read:
                msg = (
                    f"it changed while toolpatch worked ({len(self._read or [])} items read, "
                    f"{len(now)} now): nothing written, run it again"
                )
                raise SessionMoved(msg)
            asyncio.run(session.add_items(list(items)))
        finally:
            session.close()

    def _open(self) -> SQLiteSession:
        return SQLiteSession(self.session_id, self.path)


class SessionStore:
    """A ``SQLiteSession`` database opened from a store URL (an existing file with the SDK's
    tables; a check opens it read-only to list its sessions).

    Raises:
        StoreError: Not such a URL, no such file, or not the SDK's database.
    """

    def __init__(self, url: str) -> None:
        if not url.startswith(SQLITE + "/") or len(url) == len(SQLITE) + 1:
            msg = (
                "not an Agents SDK store URL: agents+sqlite:///relative.db or "
                "agents+sqlite:////absolute.db"
            )
            raise StoreError(msg)
        self.path = url[len(SQLITE) + 1 :]
        try:
            with closing(existing_sqlite(self.path)) as conn:
                if not {SESSIONS_TABLE, MESSAGES_TABLE} <= tables(conn):
                    msg = (
                        f"not an Agents SDK session database (it has no {SESSIONS_TABLE} and "
                        f"{MESSAGES_TABLE} tables)"
                    )
                    raise StoreError(msg)
                self._ids = [
                    str(sid)
                    for (sid,) in conn.execute(
                        f"SELECT session_id FROM {SESSIONS_TABLE} ORDER BY session_id"
                    )
                ]
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from None

    def sessions(self, session_ids: Sequence[str] = ()) -> list[Session]:
        """Its sessions, by id (only ``session_ids`` when given, in their order).

        Raises:
            StoreError: A session id the database does not hold.
        """
        if not session_ids:
            return [Session(self.path, sid) for sid in self._ids]
        missing = [sid for sid in session_ids if sid not in self._ids]
        if missing:
            msg = f"no session {missing[0]!r} in the store"
            raise StoreError(msg)
        return [Session(self.path, sid) for sid in dict.fromkeys(session_ids)]


def _run(session: SQLiteSession, call: Any) -> Any:
    """``await call(session)``, then close the session."""
    try:
        return asyncio.run(call(session))
    finally:
        session.close()
