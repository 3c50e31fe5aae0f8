"""One bad store row is that thread's error (docs/stores.md#what-toolpatch-loads): a LangGraph
checkpoint of another shape than LangGraph writes (no ``channel_values``, a list where a
mapping belongs), on SQLite and PostgreSQL, or an Agents SDK item nested 100,000 deep, is
reported as its thread's error, and the next thread and the next input are still checked,
shown and repaired, by ``check``, ``fix --diff`` and ``fix`` alike.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import ormsgpack

from tests.helpers import run
from tests.stores import Saver, postgres_url, store, stuck_session, stuck_thread

__all__ = ["postgres_url", "store"]  # the fixtures, used by name

#: Each breakage: how it changes a checkpoint (a mapping) on SQLite, the SQL that makes it on
#: PostgreSQL (an assignment in ``UPDATE checkpoints SET …``), and what the error says (on
#: SQLite, then on PostgreSQL, where the saver's own reading refuses some first).
BROKEN: dict[str, tuple[Callable[[dict[str, Any]], Any], str, tuple[str, str]]] = {
    "no-channel-versions": (
        lambda c: {k: v for k, v in c.items() if k != "channel_versions"},
        "checkpoint = checkpoint - 'channel_versions'",
        ("it has no channel_versions",) * 2,
    ),
    "versions-list": (
        lambda c: {**c, "channel_versions": ["1"]},
        "checkpoint = jsonb_set(checkpoint, '{channel_versions}', '[\"1\"]')",
        (
            "its channel_versions is a list, not a mapping",
            "cannot call jsonb_each_text on a non-object",
        ),
    ),
    "seen-list": (
        lambda c: {**c, "versions_seen": [1]},
        "checkpoint = jsonb_set(checkpoint, '{versions_seen}', '[1]')",
        ("its versions_seen is a list, not a mapping",) * 2,
    ),
    "checkpoint-list": (
        lambda c: [c],
        "checkpoint = '[1]'",
        ("it is a list, not a mapping", "list indices must be integers or slices, not str"),
    ),
}

#: Only SQLite keeps the values in the checkpoint's own blob (PostgreSQL rebuilds them).
SQLITE_ONLY = {
    "no-channel-values": (
        lambda c: {k: v for k, v in c.items() if k != "channel_values"},
        "it has no channel_values",
    ),
    "values-list": (lambda c: {**c, "channel_values": [1]}, "its channel_values is a list"),
}


def break_sqlite(path: Path, thread_id: str, change: Callable[[dict[str, Any]], Any]) -> None:
    """Change every checkpoint of ``thread_id`` in the SQLite database with ``change``."""
    with closing(sqlite3.connect(path)) as conn:
        query = "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = ?"
        for checkpoint_id, blob in conn.execute(query, (thread_id,)).fetchall():
            read = ormsgpack.unpackb(
                blob, ext_hook=ormsgpack.Ext, option=ormsgpack.OPT_NON_STR_KEYS
            )
            conn.execute(
                "UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? AND checkpoint_id = ?",
                (ormsgpack.packb(change(read)), thread_id, checkpoint_id),
            )
        conn.commit()


def test_a_malformed_checkpoint_is_that_threads_error(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    url, saver = store
    sqlite = url.startswith("langgraph+sqlite")
    broken = {name: why[0 if sqlite else 1] for name, (_, _, why) in BROKEN.items()}
    if sqlite:
        broken |= {name: why for name, (_, why) in SQLITE_ONLY.items()}
    with saver() as checkpointer:
        for thread_id in ["a-first", *broken, "z-last"]:
            stuck_thread(checkpointer, thread_id)
        stuck_thread(checkpointer, "metadata-list")
        if not sqlite:
            for name, (_, assignment, _) in BROKEN.items():
                checkpointer.conn.execute(
                    f"UPDATE checkpoints SET {assignment} WHERE thread_id = %s", (name,)
                )
            checkpointer.conn.execute(
                "UPDATE checkpoints SET metadata = '[1]' WHERE thread_id = 'metadata-list'"
            )
    if sqlite:
        database = tmp_path / "threads.sqlite"
        for name, (change, _, _) in BROKEN.items():
            break_sqlite(database, name, change)
        for name, (change, _) in SQLITE_ONLY.items():
            break_sqlite(database, name, change)
        with closing(sqlite3.connect(database)) as conn:
            conn.execute(
                "UPDATE checkpoints SET metadata = '[1]' WHERE thread_id = 'metadata-list'"
            )
            conn.commit()
    broken["metadata-list"] = "its metadata is a list, not a mapping"
    (tmp_path / "next.json").write_text('[{"role": "user", "content": "hi"}]')
    for command in (["check"], ["fix", "--diff"], ["fix"]):
        ran = run([*command, url, "next.json"], cwd=tmp_path, expect=2)
        assert "internal error" not in ran.said, ran.show()
        for name, why in broken.items():
            error = f"{url}#{name}: error: its latest checkpoint cannot be read: {why}"
            assert error in ran.said, ran.show()
        for name in ("a-first", "z-last"):  # the threads around them: checked, shown, fixed
            told = (f"{url}#{name}: TP001", f"fix {url}#{name}:", f"Fixed {url}#{name}:")
            assert any(line in ran.said for line in told), ran.show()
        assert f"{len(broken)} inputs could not be processed" in ran.said, ran.show()
        assert "1 input clean" in ran.said or "1 input left unchanged" in ran.said
    checked = run(["check", url, "--thread", "a-first", "--thread", "z-last"], cwd=tmp_path)
    assert checked.code == 0, checked.show()


def test_an_item_nested_too_deep_is_that_sessions_error(tmp_path: Path) -> None:
    """An Agents SDK item nested 100,000 deep (which JSON cannot read without running out of
    stack) is its session's error; the next session and the next input go on."""
    database = tmp_path / "conversations.db"
    for session in ("a-first", "deep", "not-an-item", "z-last"):
        stuck_session(database, session)
    deep = '{"type": "message", "role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with closing(sqlite3.connect(database)) as conn:
        for session, data in (("deep", deep), ("not-an-item", "[1, 2]")):
            conn.execute(
                "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)",
                (session, data),
            )
        conn.commit()
    url = "agents+sqlite:///conversations.db"
    (tmp_path / "next.json").write_text('[{"role": "user", "content": "hi"}]')
    for command in (["check"], ["fix", "--diff"], ["fix"]):
        ran = run([*command, url, "next.json"], cwd=tmp_path, expect=2)
        assert "internal error" not in ran.said, ran.show()
        assert f"{url}#deep: error: its item in row " in ran.said, ran.show()
        assert "is nested too deep to be read" in ran.said, ran.show()
        assert f"{url}#not-an-item: error: " in ran.said, ran.show()
        assert "2 inputs could not be processed" in ran.said, ran.show()
        assert "1 input clean" in ran.said or "1 input left unchanged" in ran.said
    checked = run(["check", url, "--thread", "a-first", "--thread", "z-last"], cwd=tmp_path)
    assert checked.code == 0, checked.show()
    assert json.loads((tmp_path / "next.json").read_text())  # the next input, as it was


def test_a_checkpoint_the_repair_cannot_be_built_on_is_that_threads_error(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """A checkpoint read well enough to be checked, whose step is not a number or whose
    versions are of mixed kinds, is that thread's error in ``fix``; the threads around it are
    repaired."""
    url, saver = store
    sqlite = url.startswith("langgraph+sqlite")
    with saver() as checkpointer:
        for thread_id in ("a-first", "step-text", "versions-mixed", "z-last"):
            stuck_thread(checkpointer, thread_id)
        if not sqlite:
            checkpointer.conn.execute(
                "UPDATE checkpoints SET metadata = jsonb_set(metadata, '{step}', '\"x\"') "
                "WHERE thread_id = 'step-text'"
            )
            checkpointer.conn.execute(
                "UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, "
                "'{channel_versions,__start__}', '3') WHERE thread_id = 'versions-mixed'"
            )
    if sqlite:
        database = tmp_path / "threads.sqlite"
        with closing(sqlite3.connect(database)) as conn:
            conn.execute(
                "UPDATE checkpoints SET metadata = ? WHERE thread_id = 'step-text'",
                (json.dumps({"step": "x"}),),
            )
            conn.commit()
        break_sqlite(
            database,
            "versions-mixed",
            lambda c: {**c, "channel_versions": {**c["channel_versions"], "__start__": 3}},
        )
    ran = run(["fix", url], cwd=tmp_path, expect=2)
    assert "internal error" not in ran.said, ran.show()
    for name in ("step-text", "versions-mixed"):
        error = f"{url}#{name}: error: the repair cannot be built on its latest checkpoint: "
        assert error in ran.said, ran.show()
    for name in ("a-first", "z-last"):
        assert f"Fixed {url}#{name}: TP001" in ran.said, ran.show()
