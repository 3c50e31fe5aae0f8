"""What the store integrations share: their error, and opening an existing SQLite file (a
URL is shown without its secrets by the one redaction, `toolpatch.cli.redaction`).

Opening a path with ``sqlite3.connect`` creates an empty database where there was none, and a
check must never leave a file behind or write to one: a store's file is opened only when it
exists, and read-only unless it is to be written (docs/stores.md#what-reading-does-to-a-database).
"""

from __future__ import annotations

import os
import sqlite3
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
