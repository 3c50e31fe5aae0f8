"""Agents' own SQLite stores for the tests, built from the agents' own schemas
(tests/data/stores: opencode 1.18.33's tables, Goose's ``create_schema``; docs/stores.md) and
filled as the agents fill them: an ``opencode export`` sample as ``opencode import`` stores it,
a Goose session sample as ``SessionStorage::add_message`` stores each message."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parent / "data" / "stores"

#: What goose writes for a message's default metadata (``MessageMetadata::default()``).
VISIBLE = {"userVisible": True, "agentVisible": True}


def compact(value: Any) -> str:
    """JSON as ``JSON.stringify`` and serde write it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def opencode_database(path: Path, exports: Sequence[dict[str, Any]], *, updated: int) -> None:
    """An ``opencode.db`` holding each ``opencode export`` document of ``exports`` as
    ``opencode import`` stores it: the ids in their columns, the rest of each message's
    ``info`` and each part in ``data``; every row's ``time_updated`` is ``updated`` (ms)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript((SCHEMAS / "opencode.sql").read_text())
        conn.execute(
            "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) "
            "VALUES ('global', '/', ?, ?, '[]')",
            (updated, updated),
        )
        for export in exports:
            info = export["info"]
            sid = info["id"]
            conn.execute(
                "INSERT INTO session (id, project_id, slug, directory, title, version, "
                "time_created, time_updated) VALUES (?, 'global', ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    info["slug"],
                    info["directory"],
                    info["title"],
                    info["version"],
                    info["time"]["created"],
                    updated,
                ),
            )
            for message in export["messages"]:
                data = {k: v for k, v in message["info"].items() if k not in ("id", "sessionID")}
                mid = message["info"]["id"]
                conn.execute(
                    "INSERT INTO message (id, session_id, time_created, time_updated, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (mid, sid, message["info"]["time"]["created"], updated, compact(data)),
                )
                for part in message["parts"]:
                    data = {
                        k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")
                    }
                    conn.execute(
                        "INSERT INTO part (id, message_id, session_id, time_created, "
                        "time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                        (part["id"], mid, sid, updated, updated, compact(data)),
                    )
        conn.commit()


def goose_database(
    path: Path,
    sessions: dict[str, Sequence[dict[str, Any]]],
    *,
    updated_at: str,
    timestamp: str | None = None,
) -> None:
    """A ``sessions.db`` holding each session of ``sessions`` (its id to its messages, as a
    Goose session file's lines hold them), each message a row as ``add_message`` writes it
    (its ``message_id``, or ``msg_<session>_<n>``; default metadata where it has none), the
    rows' ``timestamp`` ``timestamp`` (``updated_at`` when not given: written in one second)
    and the sessions' ``updated_at`` ``updated_at`` (``YYYY-MM-DD HH:MM:SS``, UTC)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript((SCHEMAS / "goose.sql").read_text())
        for sid, messages in sessions.items():
            conn.execute(
                "INSERT INTO sessions (id, name, working_dir, created_at, updated_at, "
                "extension_data) VALUES (?, ?, '/home/ana/shop', ?, ?, '{}')",
                (sid, f"session {sid}", updated_at, updated_at),
            )
            for n, message in enumerate(messages):
                conn.execute(
                    "INSERT INTO messages (message_id, session_id, role, content_json, "
                    "created_timestamp, timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        message.get("id") or f"msg_{sid}_{n}",
                        sid,
                        message["role"],
                        compact(message["content"]),
                        message["created"],
                        timestamp or updated_at,
                        compact(message.get("metadata", VISIBLE)),
                    ),
                )
        conn.commit()


def goose_conversation(path: Path, session_id: str) -> list[dict[str, Any]]:
    """A session's messages as goose reads them back (``get_conversation``'s own query:
    ``ORDER BY timestamp``)."""
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT role, content_json, created_timestamp, metadata_json, message_id "
            "FROM messages WHERE session_id = ? ORDER BY timestamp",
            (session_id,),
        ).fetchall()
    return [
        {
            "id": message_id,
            "role": role,
            "created": created,
            "content": json.loads(content),
            "metadata": json.loads(metadata),
        }
        for role, content, created, metadata, message_id in rows
    ]
