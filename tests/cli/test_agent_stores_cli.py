"""opencode's and Goose's own SQLite stores, through the command line (docs/stores.md#opencode,
docs/stores.md#goose): each session a thread, checked with its agent's dialect, repaired in the
store as the agent writes it, a session the store wrote moments ago left as it is.

The databases are built from the agents' own schemas (tests/agent_stores.py) and hold the
samples of samples/opencode and samples/goose: a session's repair in the store is the repair of
the same session as a file (the ``.fixed`` sample), read back as the agent reads it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.agent_stores import (
    VISIBLE,
    goose_conversation,
    goose_database,
    opencode_database,
)
from tests.helpers import run
from tests.sample_cases import SAMPLES

#: A time long past (ms): the sessions of these databases ended then.
ENDED = 1772443100000
ENDED_TEXT = "2026-03-02 09:18:20"


def export(name: str) -> dict[str, Any]:
    return json.loads((SAMPLES / "opencode" / name).read_text())


def second_session() -> dict[str, Any]:
    """The crashed-then-asked sample as a session of its own beside killed-mid-tool (the two
    samples share the session's id and its first message)."""
    text = (SAMPLES / "opencode" / "crashed-then-asked.json").read_text()
    for old in ("ses_5f1c0a2b7ffeq3Zk9VhXr2mT4d", "msg_a01f3c9e1001", "prt_a01f3c9e2001"):
        text = text.replace(old, old[:-4] + "zzzz")
    return json.loads(text)


def goose_messages(name: str) -> list[dict[str, Any]]:
    lines = (SAMPLES / "goose" / name).read_text().splitlines()
    return [json.loads(line) for line in lines[1:]]


def parts(path: Path) -> dict[str, tuple[str, int]]:
    with closing(sqlite3.connect(path)) as conn:
        return {
            pid: (data, t)
            for pid, data, t in conn.execute("SELECT id, data, time_updated FROM part")
        }


def states(document: dict[str, Any]) -> dict[str, Any]:
    return {
        part["id"]: part["state"]
        for message in document["messages"]
        for part in message["parts"]
        if part.get("type") == "tool"
    }


@pytest.mark.parametrize("name", ["killed-mid-tool", "crashed-then-asked"])
def test_opencode_database_is_repaired_as_its_export_is(name: str, tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    opencode_database(db, [export(f"{name}.json")], updated=ENDED)
    url = f"opencode+sqlite:///{db}"
    checked = run(["check", url], expect=1)
    assert "TP00" in checked.said
    before = parts(db)
    run(["fix", url], expect=0)
    after = parts(db)
    fixed = states(export(f"{name}.fixed.json"))
    changed = {pid for pid in after if after[pid] != before[pid]}
    assert changed, "the sample settles a part"
    for pid in after:
        data = json.loads(after[pid][0])
        if data.get("type") == "tool":
            assert data["state"] == fixed[pid]  # the part as the repaired export holds it
        if pid in changed:
            assert after[pid][1] > ENDED  # updated now, as opencode updates a part
    assert all(after[pid] == before[pid] for pid in after if pid not in changed)  # byte for byte
    assert "No findings" in run(["check", url], expect=0).said
    run(["fix", url], expect=0)
    assert parts(db) == after  # idempotent: nothing left to write


def test_opencode_fix_diff_and_check_write_nothing(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    opencode_database(db, [export("killed-mid-tool.json")], updated=ENDED)
    image = db.read_bytes()
    url = f"opencode+sqlite:///{db}"
    diff = run(["fix", "--diff", url], expect=1).stdout.decode()
    assert '+{"info"' in diff and '"status": "error"' in diff
    run(["check", url], expect=1)
    assert db.read_bytes() == image
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]  # no -wal, no -shm


def test_a_session_written_moments_ago_is_left_as_it_is(tmp_path: Path) -> None:
    """The store's own clock: a part updated a minute ago may belong to a tool still running."""
    db = tmp_path / "opencode.db"
    opencode_database(
        db, [export("killed-mid-tool.json")], updated=int(time.time() * 1000) - 60_000
    )
    url = f"opencode+sqlite:///{db}"
    before = parts(db)
    checked = run(["check", url], expect=0)
    assert "may still be running (its store was written 60 seconds ago)" in checked.stderr
    run(["fix", url], expect=0)
    assert parts(db) == before
    run(["fix", "--force", url], expect=0)  # the agent has stopped: answered
    assert parts(db) != before


def test_opencode_selects_sessions_and_names_them(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    opencode_database(db, [export("killed-mid-tool.json"), second_session()], updated=ENDED)
    url = f"opencode+sqlite:///{db}"
    first = export("killed-mid-tool.json")["info"]["id"]
    result = run(["check", url, "--thread", first, "--output-format", "json"], expect=1)
    report = json.loads(result.stdout)
    assert {f["file"] for f in report if f["kind"] == "finding"} == {f"{url}#{first}"}
    missing = run(["check", url, "--thread", "ses_nope"], expect=2)
    assert "no session 'ses_nope'" in missing.stderr


def test_a_database_of_another_kind_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    goose_database(db, {}, updated_at=ENDED_TEXT)
    assert "not opencode's database" in run(["check", f"opencode+sqlite:///{db}"], expect=2).stderr
    missing = run(["check", f"goose+sqlite:///{tmp_path / 'none.db'}"], expect=2)
    assert "no SQLite database" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_an_opencode_row_that_is_not_json_is_that_sessions_error(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    opencode_database(db, [export("killed-mid-tool.json"), second_session()], updated=ENDED)
    broken = export("killed-mid-tool.json")["messages"][1]["parts"][2]["id"]
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE part SET data = '{\"type\": ' WHERE id = ?", (broken,))
        conn.commit()
    result = run(["check", f"opencode+sqlite:///{db}"], expect=2)
    assert f"the data of part {broken} is not JSON" in result.said
    assert "TP00" in result.said  # the other session is still checked


@pytest.mark.parametrize("name", ["killed-mid-tool", "killed-then-resumed"])
def test_goose_database_is_repaired_as_its_session_file_is(name: str, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    goose_database(db, {"20260302_1": goose_messages(f"{name}.jsonl")}, updated_at=ENDED_TEXT)
    url = f"goose+sqlite:///{db}"
    assert "TP00" in run(["check", url], expect=1).said
    before = goose_conversation(db, "20260302_1")
    raw_before = goose_rows(db)
    run(["fix", url], expect=0)
    after = goose_conversation(db, "20260302_1")
    fixed = goose_messages(f"{name}.fixed.jsonl")
    assert [without_id(m) for m in after] == [
        {**m, "metadata": m.get("metadata", VISIBLE)} for m in fixed
    ]
    kept = [m for m in after if m["id"] in {b["id"] for b in before}]
    assert len(kept) == len(before)
    assert all(m["id"].startswith("msg_20260302_1_") for m in after)  # goose's own message ids
    assert "No findings" in run(["check", url], expect=0).said
    rows = goose_rows(db)
    run(["fix", url], expect=0)
    assert goose_rows(db) == rows  # idempotent: nothing left to write
    changed = [m["id"] for m in after if m["id"] in raw_before and m not in before]
    assert all(rows[i] == raw_before[i] for i in raw_before if i not in changed)  # byte for byte


def test_goose_answer_goes_right_after_its_call_in_goose_order(tmp_path: Path) -> None:
    """A call followed by more turns, every row written in the same second: the new message is
    read back by goose's own ``ORDER BY timestamp`` right after the call."""
    messages = goose_messages("killed-mid-tool.jsonl")
    later = [
        {
            "role": "user",
            "created": 1772450100,
            "content": [{"type": "text", "text": "Still there?"}],
        },
        {"role": "assistant", "created": 1772450102, "content": [{"type": "text", "text": "Yes."}]},
    ]
    db = tmp_path / "sessions.db"
    goose_database(db, {"s": [*messages, *later]}, updated_at=ENDED_TEXT)
    with closing(sqlite3.connect(db)) as conn:
        tokens = conn.execute("UPDATE messages SET tokens = 7 WHERE role = 'assistant'")
        conn.commit()
    assert tokens.rowcount == 2
    run(["fix", f"goose+sqlite:///{db}"], expect=0)
    after = goose_conversation(db, "s")
    assert [m["content"] for m in after] == [
        messages[0]["content"],
        messages[1]["content"],
        [
            {
                "type": "toolResponse",
                "id": "toolu_01Gt9TagPushCc",
                "toolResult": {
                    "status": "error",
                    "error": after[2]["content"][0]["toolResult"]["error"],
                },
            }
        ],
        later[0]["content"],
        later[1]["content"],
    ]
    assert after[2]["created"] == messages[1]["created"]
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM messages WHERE tokens = 7").fetchone() == (2,)
        (updated,) = conn.execute("SELECT updated_at FROM sessions").fetchone()
    assert updated > ENDED_TEXT  # marked updated, as goose's add_message does


def test_a_goose_session_written_moments_ago_is_left_as_it_is(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    now = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    goose_database(db, {"s": goose_messages("killed-mid-tool.jsonl")}, updated_at=now)
    before = goose_conversation(db, "s")
    assert "may still be running" in run(["check", f"goose+sqlite:///{db}"], expect=0).stderr
    run(["fix", f"goose+sqlite:///{db}"], expect=0)
    assert goose_conversation(db, "s") == before


def test_a_goose_database_before_message_ids_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    goose_database(db, {"s": goose_messages("killed-mid-tool.jsonl")}, updated_at=ENDED_TEXT)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("DROP INDEX idx_messages_message_id")
        conn.execute("ALTER TABLE messages DROP COLUMN message_id")
        conn.commit()
    assert (
        "older than its schema version 7"
        in run(["check", f"goose+sqlite:///{db}"], expect=2).stderr
    )


def goose_rows(path: Path) -> dict[str, tuple[Any, ...]]:
    """Every message row of the database, by ``message_id``, as stored."""
    with closing(sqlite3.connect(path)) as conn:
        return {row[0]: row for row in conn.execute("SELECT message_id, * FROM messages")}


def without_id(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "id"}


def test_formats_lists_the_stores_and_a_database_file_names_its_urls(tmp_path: Path) -> None:
    listed = run(["formats"], expect=0).stdout.decode()
    assert "opencode+  opencode's database" in listed
    assert "goose+  Goose's session database" in listed
    db = tmp_path / "opencode.db"
    opencode_database(db, [export("killed-mid-tool.json")], updated=ENDED)
    named = run(["check", "opencode.db"], cwd=tmp_path, expect=2)
    assert "opencode's as opencode+sqlite:///opencode.db" in named.stderr


def test_a_session_over_the_record_size_limit_is_not_loaded(tmp_path: Path) -> None:
    big = export("killed-mid-tool.json")
    big["messages"][0]["parts"][0]["text"] = "x" * (2 << 20)
    db = tmp_path / "opencode.db"
    opencode_database(db, [big, second_session()], updated=ENDED)
    result = run(["check", "--max-record-mib", "1", f"opencode+sqlite:///{db}"], expect=2)
    assert "its messages and parts take" in result.said
    assert "more than the record-size limit of 1 MiB" in result.said
    assert "TP00" in result.said  # the other session is still checked
    messages = goose_messages("killed-mid-tool.jsonl")
    messages[0]["content"][0]["text"] = "x" * (2 << 20)
    goose = tmp_path / "sessions.db"
    goose_database(goose, {"s": messages}, updated_at=ENDED_TEXT)
    refused = run(["check", "--max-record-mib", "1", f"goose+sqlite:///{goose}"], expect=2)
    assert "its messages take" in refused.stderr


def test_an_opencode_row_is_named_by_its_columns_not_by_its_data(tmp_path: Path) -> None:
    """A part's ``data`` that names another id is read as opencode reads it (the columns win),
    and the repair keeps that member as stored."""
    db = tmp_path / "opencode.db"
    opencode_database(db, [export("killed-mid-tool.json")], updated=ENDED)
    with closing(sqlite3.connect(db)) as conn:
        (pid, data) = conn.execute(
            "SELECT id, data FROM part WHERE data LIKE '%running%'"
        ).fetchone()
        forged = {**json.loads(data), "id": "prt_other", "messageID": "msg_other"}
        conn.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(forged), pid))
        conn.commit()
    url = f"opencode+sqlite:///{db}"
    diff = run(["fix", "--diff", url], expect=1).stdout.decode()
    assert f'"id": "{pid}"' in diff and "prt_other" not in diff
    run(["fix", url], expect=0)
    stored = json.loads(parts(db)[pid][0])
    assert (stored["id"], stored["messageID"], stored["state"]["status"]) == (
        "prt_other",
        "msg_other",
        "error",
    )
