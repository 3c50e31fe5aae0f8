"""What the store integrations share: their error, and opening an existing SQLite file (a
URL is shown without its secrets by the one redaction, `toolpatch.integrations.redaction`).

Opening a path with ``sqlite3.connect`` creates an empty database where there was none, and a
check must never leave a file behind or write to one: a store's file is opened only when it
exists, and read-only unless it is to be written (docs/stores.md#what-reading-does-to-a-database).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from typing import ClassVar, Self
from urllib.parse import quote


class StoreError(Exception):
    """A store that cannot be read or written as asked (a missing file, a database without the
    tables of its kind, a thread toolpatch cannot repair or that changed meanwhile)."""


def over_limit(what: str, size: int | None, limit: int) -> str | None:
    """Why a thread whose stored rows (``what``) take ``size`` bytes, as the database counts
    them before any is loaded, is not read: they are more than the record-size ``limit``
    (docs/stores.md#size), which loading would take several times over; ``None`` when they
    fit (or the thread has none)."""
    from patchcore.raw.codec import limit_text

    if size is None or size <= limit:
        return None
    return f"{what} take {size} bytes, more than the record-size limit of {limit_text(limit)}"


def existing_sqlite(path: str, *, write: bool = False) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` (never a new, empty one), read-only unless
    ``write``.

    Read-only is SQLite's ``mode=ro``, and ``immutable=1`` as well when the database has no
    write-ahead log beside it (nothing is waiting there to be read): SQLite then creates no
    ``-wal`` or ``-shm`` file, and reads a database in a folder the user cannot write. A
    database with a log (an application has it open, or a writer ended without folding it
    back, as on a full disk) is read with its log, and with ``readonly_shm=1``: SQLite reads
    the ``-shm`` index its writer keeps, or rebuilds it in memory when no writer has the
    database open, and never writes that file (rebuilding it in place on a full disk
    crashed the process with SIGBUS).

    Raises:
        StoreError: There is no such file, or it cannot be opened.
    """
    if not os.path.isfile(path):
        msg = f"no SQLite database at {path}"
        raise StoreError(msg)
    logged = os.path.exists(path + "-wal")
    mode = "rw" if write else "ro&readonly_shm=1" if logged else "ro&immutable=1"
    uri = f"file:{quote(os.path.abspath(path))}?mode={mode}"
    try:
        return sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        msg = f"{path}: {exc}"
        raise StoreError(msg) from None


def tables(conn: sqlite3.Connection) -> set[str]:
    """The names of the database's tables."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(name) for (name,) in rows}


def sqlite_path(url: str, scheme: str, kind: str) -> str:
    """The path a SQLite store URL names: ``SCHEME:///relative.db`` or
    ``SCHEME:////absolute.db``, as SQLAlchemy's SQLite URLs name a file.

    Raises:
        StoreError: ``url`` is not such a URL (``kind`` says which store was meant).
    """
    if not url.startswith(scheme + "/") or len(url) == len(scheme) + 1:
        msg = f"not {kind} URL: {scheme}/relative.db or {scheme}//absolute.db"
        raise StoreError(msg)
    return url[len(scheme) + 1 :]


def json_row(text: object, where: str) -> object:
    """The JSON value a row's column holds (``where`` names the row and column).

    Raises:
        StoreError: It is not JSON text, or is nested deeper than JSON is read here.
    """
    import json

    try:
        return json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        msg = f"{where} is not JSON ({exc})"
        raise StoreError(msg) from None
    except RecursionError:
        msg = f"{where} is nested too deep to be read"
        raise StoreError(msg) from None


def compact(value: object) -> str:
    """``value`` as JSON text the way opencode (``JSON.stringify``) and Goose (serde) write
    it into their rows: no spaces, not ASCII-escaped."""
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def chosen_ids(ids: Sequence[str], only: Sequence[str]) -> list[str]:
    """The session ids of a store that a run reads: ``only`` (in its order, once each) when
    given, else every one of ``ids``.

    Raises:
        StoreError: An id of ``only`` the store does not hold.
    """
    missing = [sid for sid in only if sid not in ids]
    if missing:
        msg = f"no session {missing[0]!r} in the store"
        raise StoreError(msg)
    return list(dict.fromkeys(only)) if only else list(ids)


class SessionDatabase:
    """An agent's own session database (the Agents SDK's, opencode's, Goose's), opened from
    the path its store URL names: an existing file (`existing_sqlite`), read-only unless
    ``write``; a subclass says what makes the file its agent's (`check`) and lists its
    sessions (`IDS`, a query of their ids in the order a run reads them).

    Raises:
        StoreError: No such file, or not the agent's database (`check`), or SQLite refused.
    """

    IDS: ClassVar[str]
    """The query of the database's session ids, in the order a run reads them."""

    def __init__(self, path: str, *, write: bool, max_record: int) -> None:
        self.path = path
        self.max_record = max_record
        """The record-size limit: a session whose rows take more is not read."""
        self._conn = existing_sqlite(path, write=write)
        try:
            self.check(self._conn)
            self._ids = [str(sid) for (sid,) in self._conn.execute(self.IDS)]
        except sqlite3.Error as exc:
            self.close()
            raise StoreError(str(exc)) from None
        except BaseException:
            self.close()
            raise

    def check(self, conn: sqlite3.Connection) -> None:
        """Refuse a database that is not the agent's (its tables, its schema's version).

        Raises:
            StoreError: It is not.
        """
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def session_ids(self, only: Sequence[str] = ()) -> list[str]:
        """Its sessions' ids (only ``only`` when given, in their order, `chosen_ids`).

        Raises:
            StoreError: A session id the database does not hold.
        """
        return chosen_ids(self._ids, only)

    @contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        """A connection for writing, in one transaction that holds the database's write lock
        (``BEGIN IMMEDIATE``) from reading a session again to writing its repair, so no other
        writer changes it in between: committed when the block ends, rolled back when it
        raises.

        Raises:
            StoreError: The database refused the write; nothing was written.
        """
        try:
            with closing(existing_sqlite(self.path, write=True)) as conn:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.commit()
                except BaseException:
                    conn.rollback()
                    raise
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from None
