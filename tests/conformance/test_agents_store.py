"""OpenAI Agents SDK ``SQLiteSession`` databases named by URL (docs/stores.md): a session whose
run stopped after the model's ``function_call`` holds the call without its output; the
Responses API refuses such an input ("No tool output found for function call …"), and the SDK's
own runner, since it drops unanswered calls from what it sends, hides from the model that the
call was ever made. ``toolpatch fix`` appends the missing ``function_call_output`` through the
SDK's ``add_items``; ``pop_item`` takes it back.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from agents import Runner, SQLiteSession

from tests.helpers import TP001_TEXT, TP002_TEXT, run, text
from tests.stores import (
    ProviderRefused,
    assistant_message,
    clean_session,
    sdk_agent,
    session_rows,
    stuck_session,
)

URL = "agents+sqlite:///conversations.db"


def items_of(path: Path, session_id: str) -> list[Any]:
    session = SQLiteSession(session_id, path)
    try:
        return list(asyncio.run(session.get_items()))
    finally:
        session.close()


def test_check_fix_resume_and_roll_back(tmp_path: Path) -> None:
    database = tmp_path / "conversations.db"
    stuck_session(database, "conv-stuck")
    clean_session(database, "conv-happy")
    before = session_rows(database)
    stuck = items_of(database, "conv-stuck")
    assert [i.get("type") for i in stuck] == [None, "function_call"]

    # as stored, the session's history is refused by the Responses API
    with pytest.raises(ProviderRefused, match="No tool output found for function call call_oslo"):
        asyncio.run(Runner.run(sdk_agent([]), [*stuck, {"role": "user", "content": "So?"}]))

    checked = run(["check", "--output-format", "json", URL], cwd=tmp_path, expect=1)
    (finding,) = json.loads(checked.stdout)
    assert finding["file"] == f"{URL}#conv-stuck"
    assert finding["code"] == "TP002"  # the call is the last item: the run stopped there
    assert finding["dialect"] == "openai-responses"
    assert finding["call_id"] == "call_oslo"

    diff = run(["fix", "--diff", URL], cwd=tmp_path, expect=1)
    added = [line for line in diff.stdout.decode().splitlines() if line.startswith("+")]
    assert added[0] == f"+++ b/{URL}#conv-stuck"
    assert json.loads(added[1][1:]) == {
        "type": "function_call_output",
        "call_id": "call_oslo",
        "output": text(TP002_TEXT, "book", "call_oslo"),
    }
    assert len(added) == 2
    assert session_rows(database) == before  # neither a check nor a diff writes

    fixed = run(["fix", URL], cwd=tmp_path, expect=0)
    assert f"Fixed {URL}#conv-stuck: TP002 x1" in fixed.said
    run(["check", URL], cwd=tmp_path, expect=0)
    rows = session_rows(database)
    assert rows[: len(before)] == before  # no row changed
    (new,) = rows[len(before) :]
    assert new[1] == "conv-stuck"
    assert json.loads(new[2])["call_id"] == "call_oslo"

    # the session resumes: the model is sent the call and its output, and answers
    seen: list[list[Any]] = []
    agent = sdk_agent([[assistant_message("Oslo was not booked; shall I retry?")]], seen)
    session = SQLiteSession("conv-stuck", database)
    try:
        result = asyncio.run(Runner.run(agent, "So?", session=session))
    finally:
        session.close()
    assert result.final_output == "Oslo was not booked; shall I retry?"
    sent = [i.get("type") for i in seen[0]]
    assert sent == [None, "function_call", "function_call_output", None]
    # and so is the stored history sent as it is
    repaired = items_of(database, "conv-stuck")
    reply = [[assistant_message("ok")]]
    asyncio.run(Runner.run(sdk_agent(reply), [*repaired, {"role": "user", "content": "?"}]))

    # roll back: pop_item takes the last item off (here the last turn's, then the repair's)
    session = SQLiteSession("conv-stuck", database)
    try:
        popped = [asyncio.run(session.pop_item()) for _ in range(3)]
    finally:
        session.close()
    assert popped[2]["type"] == "function_call_output"
    assert items_of(database, "conv-stuck") == stuck


def test_a_call_followed_by_more_turns_is_answered_at_the_end(tmp_path: Path) -> None:
    """A later turn after the call (TP001): the SDK can only append, and the Responses API
    pairs an output with its call wherever it stands, so the output goes at the end."""
    database = tmp_path / "conversations.db"
    stuck_session(database, "conv")
    session = SQLiteSession("conv", database)
    try:
        asyncio.run(session.add_items([{"role": "user", "content": "Hello?"}]))
    finally:
        session.close()
    run(["fix", URL, "--thread", "conv"], cwd=tmp_path, expect=0)
    items = items_of(database, "conv")
    assert [i.get("type") for i in items] == [None, "function_call", None, "function_call_output"]
    assert items[-1]["output"] == text(TP001_TEXT, "book", "call_oslo")


def test_a_clean_store_is_never_written(tmp_path: Path) -> None:
    database = tmp_path / "conversations.db"
    clean_session(database, "a")
    clean_session(database, "b")
    before = session_rows(database)
    run(["fix", URL], cwd=tmp_path, expect=0)
    run(["fix", URL, "--thread", "b"], cwd=tmp_path, expect=0)
    assert session_rows(database) == before


def test_a_session_that_moved_is_not_written(tmp_path: Path, monkeypatch: Any) -> None:
    import patchcore
    from toolpatch.integrations.agents import SessionMoved, SessionStore

    database = tmp_path / "conversations.db"
    stuck_session(database, "conv")
    monkeypatch.chdir(tmp_path)
    (session,) = SessionStore(URL).sessions(["conv"])
    items = session.items()
    other = SQLiteSession("conv", database)  # the agent's next turn, meanwhile
    try:
        asyncio.run(other.add_items([{"role": "user", "content": "Hello?"}]))
    finally:
        other.close()
    moved = session_rows(database)
    options = patchcore.make_options(dialect="openai-responses")
    repair = patchcore.fix_messages(items, options=options)
    with pytest.raises(SessionMoved, match="changed while toolpatch worked"):
        session.append(repair.value[len(items) :])
    assert session_rows(database) == moved


def test_sessions_and_store_errors(tmp_path: Path) -> None:
    database = tmp_path / "conversations.db"
    stuck_session(database, "conv-stuck")
    clean_session(database, "conv-happy")
    only = run(["check", URL, "--thread", "conv-happy"], cwd=tmp_path, expect=0)
    assert "conv-stuck" not in only.said
    missing = run(["check", URL, "--thread", "nope"], cwd=tmp_path, expect=2)
    assert "no session 'nope' in the store" in missing.said
    (tmp_path / "other.db").write_bytes(b"")
    for url, error in [
        ("agents+sqlite:///missing.db", "no SQLite database at missing.db"),
        ("agents+sqlite:///other.db", "not an Agents SDK session database"),
        ("agents+sqlite://", "not an Agents SDK store URL"),
    ]:
        result = run(["check", url], cwd=tmp_path, expect=2)
        assert f"{url}: error: {error}" in result.said, result.show()
    assert not (tmp_path / "missing.db").exists()
    assert (tmp_path / "other.db").read_bytes() == b""


def test_a_session_over_the_record_limit_is_its_own_error(tmp_path: Path) -> None:
    """A session's items were loaded whatever their size (a 600 MB item took 2.5 GB to check):
    the database sums their size first, and a session over the record-size limit is that
    session's error, unread; the next session is checked (docs/stores.md#size)."""
    database = tmp_path / "conversations.db"
    session = SQLiteSession("conv-big", database)
    try:
        big = sdk_agent([[assistant_message("Hello.")]])
        asyncio.run(Runner.run(big, "x" * 3 * 2**20, session=session))
    finally:
        session.close()
    stuck_session(database, "conv-stuck")
    for command in (["check"], ["fix", "--diff"]):
        result = run([*command, "--max-record-mib", "1", URL], cwd=tmp_path, expect=2)
        assert f"{URL}#conv-big: error: its items take " in result.said, result.show()
        assert "more than the record-size limit of 1 MiB" in result.said
        assert f"{URL}#conv-stuck: TP00" in result.said, result.show()
    run(["check", "--max-record-mib", "4", URL, "--thread", "conv-big"], cwd=tmp_path, expect=0)
