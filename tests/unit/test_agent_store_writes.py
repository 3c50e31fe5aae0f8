"""A session of opencode's or Goose's store that changes while toolpatch works is not written
(docs/stores.md#opencode, docs/stores.md#goose): the write reads it again in its transaction."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

import patchcore
from tests.agent_stores import goose_database, opencode_database
from tests.sample_cases import SAMPLES
from toolpatch.integrations.stores import StoreError, evaluate, open_store


def _repair_after(url: str, db: Path, change: str) -> None:
    """Read the store's one session, run ``change`` on the database, then write the repair."""
    options = patchcore.make_options()
    with open_store(url, write=True) as threads:
        (thread,) = list(threads)
        repaired = evaluate(thread, options=options, fix=True).repaired
        assert repaired is not None
        with closing(sqlite3.connect(db)) as conn:
            conn.execute(change)
            conn.commit()
        thread.write(repaired)


def test_an_opencode_session_that_changed_is_not_written(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    sample = json.loads((SAMPLES / "opencode" / "killed-mid-tool.json").read_text())
    opencode_database(db, [sample], updated=1772443100000)
    done = json.dumps({"type": "tool", "callID": "toolu_01Npm7TestRunQz", "state": {}})
    change = f"UPDATE part SET data = '{done}' WHERE data LIKE '%\"running\"%'"
    with pytest.raises(StoreError, match="changed while toolpatch worked"):
        _repair_after(f"opencode+sqlite:///{db}", db, change)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM part WHERE data = ?", (done,)).fetchone() == (1,)


def test_a_goose_session_that_changed_is_not_written(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    lines = (SAMPLES / "goose" / "killed-mid-tool.jsonl").read_text().splitlines()
    goose_database(db, {"s": [json.loads(x) for x in lines[1:]]}, updated_at="2026-03-02 09:18:20")
    change = (
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
        "VALUES ('s', 'user', '[]', 1)"
    )
    with pytest.raises(StoreError, match="changed while toolpatch worked"):
        _repair_after(f"goose+sqlite:///{db}", db, change)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone() == (3,)
