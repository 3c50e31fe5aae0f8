"""What the store integrations share: their error, and opening an existing SQLite file.

Opening a path with ``sqlite3.connect`` creates an empty database where there was none, and a
check must never leave a file behind or write to one: a store's file is opened only when it
exists, and read-only unless it is to be written.
"""

from __future__ import annotations

import os
import sqlite3
from urllib.parse import quote


class StoreError(Exception):
    """A store that cannot be read or written as asked (a missing file, a database without the
    tables of its kind, a thread toolpatch cannot repair or that changed meanwhile)."""


def existing_sqlite(path: str, *, write: bool = False) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` (never a new, empty one), read-only unless
    ``write``.

    Raises:
        StoreError: There is no such file, or it cannot be opened.
    """
    if not os.path.isfile(path):
        msg = f"no SQLite database at {path}"
        raise StoreError(msg)
    uri = f"file:{quote(os.path.abspath(path))}?mode={'rw' if write else 'ro'}"
    try:
        return sqlite3.connect(uri, uri=True, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(str(exc)) from None


def tables(conn: sqlite3.Connection) -> set[str]:
    """The names of the database's tables."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(name) for (name,) in rows}
