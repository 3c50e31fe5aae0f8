"""What a team relies on when toolpatch opens its production stores (docs/stores.md), on real
``create_agent`` graphs, on SQLite and PostgreSQL: an untrusted database never runs code, a
thread waiting for a human is not stuck, a real result left as a pending write is kept, and
every other channel is written back as it was stored.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ormsgpack
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base import copy_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.types import Command

from tests.helpers import TP002_TEXT, run, text
from tests.stores import (
    CARD_CALL,
    Saver,
    agent,
    cart_class,
    checkpoint_ids,
    config,
    failed_trip,
    half_done_thread,
    not_started_thread,
    postgres_url,
    store,
    stuck_thread,
    waiting_thread,
)

__all__ = ["postgres_url", "store"]  # the fixtures, used by name


@dataclasses.dataclass
class Planted:
    """What an attacker writes into a checkpoint: LangGraph's serializer records a dataclass
    as its module, name and fields, and the default one calls ``module.name(**fields)`` when
    it reads it back: here ``os.system(command=...)``."""

    command: str


Planted.__module__ = "os"
Planted.__name__ = Planted.__qualname__ = "system"


def plant(checkpointer: Any, thread_id: str, channel: str, value: Any) -> None:
    """Add a checkpoint to ``thread_id`` whose ``channel`` holds ``value`` (appended to it, for
    the messages), as a database handed over with a bug report could."""
    latest = checkpointer.get_tuple(config(thread_id))
    checkpoint = copy_checkpoint(latest.checkpoint)
    values = checkpoint["channel_values"]
    values[channel] = [*values[channel], value] if channel == "messages" else value
    step = latest.metadata["step"] + 1
    checkpoint["id"] = str(uuid6(clock_seq=step))
    version = checkpointer.get_next_version(max(checkpoint["channel_versions"].values()), None)
    checkpoint["channel_versions"][channel] = version
    metadata = {"source": "update", "step": step, "parents": {}}
    checkpointer.put(latest.config, checkpoint, metadata, {channel: version})


def strict(checkpointer: Any, *allowed: type) -> Any:
    """``checkpointer``, reading with LangGraph's strict serializer (only its safe types and
    ``allowed``): the test's own reads must not run the planted constructor either."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    checkpointer.serde = JsonPlusSerializer(allowed_msgpack_modules=list(allowed))
    return checkpointer


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[Path]:
    """The file the planted command would create."""
    path = tmp_path / "PWNED"
    yield path
    assert not path.exists(), "the store's planted command ran"


def test_a_planted_constructor_never_runs(
    store: tuple[str, Saver], tmp_path: Path, marker: Path
) -> None:
    """A checkpoint whose messages hold ``os.system`` as a msgpack extension: no command of
    toolpatch's runs it, and the thread is an error naming the type
    (docs/stores.md#what-toolpatch-loads)."""
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "bad")
        plant(checkpointer, "bad", "messages", Planted(f"touch {marker}"))
        before = checkpoint_ids(strict(checkpointer), "bad")
    for command in (["check"], ["fix", "--diff"], ["fix", "--check"], ["fix"]):
        result = run([*command, url], cwd=tmp_path, expect=2)
        assert "bad: error: " in result.said, result.show()
        assert "os.system" in result.said, result.show()
        assert not marker.exists(), result.show()
    shown = run(["show", url], cwd=tmp_path)
    assert not marker.exists(), shown.show()
    with saver() as checkpointer:
        assert checkpoint_ids(strict(checkpointer), "bad") == before


def test_other_channels_are_written_back_as_stored(
    store: tuple[str, Saver], tmp_path: Path, marker: Path
) -> None:
    """A value toolpatch does not load (an application's pydantic type it cannot import, a
    planted constructor) in a channel other than the messages is carried into the repair
    checkpoint as stored: the application reads its own type back, the constructor is never
    called by toolpatch."""
    Cart = cart_class()
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "shop")
        plant(checkpointer, "shop", "cart", Cart(items=["tent"]))
        plant(checkpointer, "shop", "audit", {"trail": [Planted(f"touch {marker}")]})
        before = strict(checkpointer, Cart).get_tuple(config("shop"))
    run(["check", url], cwd=tmp_path, expect=1)
    run(["fix", url], cwd=tmp_path, expect=0)
    assert not marker.exists()
    with saver() as checkpointer:
        latest = strict(checkpointer, Cart).get_tuple(config("shop"))
        assert latest.parent_config["configurable"]["checkpoint_id"] == before.checkpoint["id"]
        values = latest.checkpoint["channel_values"]
        assert isinstance(values["cart"], Cart)
        assert values["cart"] == Cart(items=["tent"])
        assert [type(m) for m in values["messages"]][:3] == [HumanMessage, AIMessage, ToolMessage]
        versions = latest.checkpoint["channel_versions"]
        for channel in ("cart", "audit"):
            assert versions[channel] == before.checkpoint["channel_versions"][channel]
    if url.startswith("langgraph+sqlite"):
        assert _stored_values(tmp_path / "threads.sqlite", "shop", "cart", "audit") == (
            _stored_values(
                tmp_path / "threads.sqlite",
                "shop",
                "cart",
                "audit",
                checkpoint_id=before.checkpoint["id"],
            )
        )


def test_a_planted_error_write_is_never_constructed(
    store: tuple[str, Saver], tmp_path: Path, marker: Path
) -> None:
    """A failed task's error write that holds a constructor (``os.system``) instead of the
    text LangGraph stores: nothing of it runs, and the call's result is made up rather than
    read from it (docs/stores.md#the-stored-error)."""
    url, saver = store
    with saver() as checkpointer:
        failed_trip("create_agent", checkpointer, "trip", [CARD_CALL])
        latest = checkpointer.get_tuple(config("trip"))
        (task,) = {t for t, channel, _ in latest.pending_writes if channel == "__error__"}
        checkpointer.put_writes(latest.config, [("__error__", Planted(f"touch {marker}"))], task)
    for command in (["check"], ["fix", "--diff"], ["fix"]):
        result = run([*command, url], cwd=tmp_path, expect=(0 if command == ["fix"] else 1))
        assert not marker.exists(), result.show()
    with saver() as checkpointer:
        messages = strict(checkpointer).get_tuple(config("trip")).checkpoint["channel_values"]
        (card,) = [m for m in messages["messages"] if isinstance(m, ToolMessage)]
        assert card.content == text(TP002_TEXT, "charge_card", "call_card")


def _stored_values(
    path: Path, thread_id: str, *channels: str, checkpoint_id: str | None = None
) -> list[bytes]:
    """The serialized bytes of ``channels`` in a SQLite checkpoint (the latest by default)."""
    with sqlite3.connect(path) as conn:
        query = "SELECT checkpoint FROM checkpoints WHERE thread_id = ?"
        args: tuple[str, ...] = (thread_id,)
        if checkpoint_id is not None:
            query += " AND checkpoint_id = ?"
            args += (checkpoint_id,)
        (blob,) = conn.execute(query + " ORDER BY checkpoint_id DESC LIMIT 1", args).fetchone()
    values = ormsgpack.unpackb(blob, ext_hook=ormsgpack.Ext, option=ormsgpack.OPT_NON_STR_KEYS)
    return [ormsgpack.packb(values["channel_values"][c]) for c in channels]


def test_a_thread_waiting_for_a_human_is_not_stuck(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """An ``interrupt()`` leaves the call open and an interrupt pending: check reports the
    thread as waiting without failing, fix leaves it, and the human's approval then resumes
    it with no second result (docs/stores.md#waiting-and-stuck-threads)."""
    url, saver = store
    with saver() as checkpointer:
        waiting_thread(checkpointer, "approval")
        before = checkpoint_ids(checkpointer, "approval")
    checked = run(["check", url], cwd=tmp_path, expect=0)
    assert "approval" in checked.said and "waiting" in checked.said, checked.show()
    assert "TP002" not in checked.said
    run(["fix", url], cwd=tmp_path, expect=0)
    run(["fix", "--force", url], cwd=tmp_path, expect=0)  # --force alone names no thread
    with saver() as checkpointer:
        assert checkpoint_ids(checkpointer, "approval") == before
        graph = waiting_thread(checkpointer, "other")
        assert graph.get_state(config("approval")).interrupts
        state = graph.invoke(Command(resume="yes"), config("approval"))
        results = [m for m in state["messages"] if isinstance(m, ToolMessage)]
        assert [m.content for m in results] == ["paid 40"]
    run(["check", "--select", "ALL", url, "--thread", "approval"], cwd=tmp_path, expect=0)


def test_a_run_killed_before_its_first_step_is_named_as_such(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """A run killed before its first step was saved leaves only its input's checkpoint: no
    messages channel yet, its input a pending write. It was counted "skipped (no message
    history)"; it is named for what it is, and invoke(None) does run it from the start."""
    url, saver = store
    seen: list[list[Any]] = []
    with saver() as checkpointer:
        not_started_thread(checkpointer, "early", seen)
    checked = run(["check", "-v", url], cwd=tmp_path, expect=0)
    assert f"{url}#early: skipped: its run stopped before its first step" in checked.said
    assert checked.stdout_lines[-1] == "1 thread skipped (run not started).", checked.show()
    seen.clear()  # the killed run's model call (saved later than it ran), lost with the run
    with saver() as checkpointer:
        agent(checkpointer, [AIMessage("Booked.")], seen).invoke(None, config("early"))
    assert [[m.content for m in history] for history in seen] == [["Book Oslo"]]


def test_force_with_thread_answers_an_abandoned_approval(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    url, saver = store
    with saver() as checkpointer:
        waiting_thread(checkpointer, "abandoned")
    fixed = run(["fix", "--force", url, "--thread", "abandoned"], cwd=tmp_path, expect=0)
    assert f"Fixed {url}#abandoned" in fixed.said, fixed.show()
    run(["check", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        graph = waiting_thread(checkpointer, "other")
        assert not graph.get_state(config("abandoned")).interrupts
        messages = graph.get_state(config("abandoned")).values["messages"]
        assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage]


def test_new_input_after_an_interrupt_is_stuck(store: tuple[str, Saver], tmp_path: Path) -> None:
    """The user wrote again instead of answering the approval: the interrupt is gone, the
    call still open, and the thread is refused on every turn: it is stuck, and repaired."""
    url, saver = store
    with saver() as checkpointer:
        graph = waiting_thread(checkpointer, "moved-on")
        with pytest.raises(Exception, match="call_pay"):
            graph.invoke({"messages": [HumanMessage("never mind")]}, config("moved-on"))
    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert "TP001" in checked.said and "waiting" not in checked.said, checked.show()
    run(["fix", url], cwd=tmp_path, expect=0)
    run(["check", url], cwd=tmp_path, expect=0)


def test_a_pending_result_answers_its_call(store: tuple[str, Saver], tmp_path: Path) -> None:
    """Of two parallel calls, ``pay`` returned (its ToolMessage a pending write of the latest
    checkpoint) and ``book`` was cut off: only ``book`` is reported, and the repair keeps the
    real receipt (docs/stores.md#pending-writes)."""
    url, saver = store
    with saver() as checkpointer:
        half_done_thread(checkpointer, "half")
    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert "call_oslo" in checked.said, checked.show()
    assert "call_pay" not in checked.said, checked.show()
    fixed = run(["fix", url], cwd=tmp_path, expect=0)
    assert "TP002 x1" in fixed.said, fixed.show()
    run(["check", url], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        messages = checkpointer.get_tuple(config("half")).checkpoint["channel_values"]["messages"]
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
        assert results["call_pay"].content == "paid 40: receipt R-1"
        assert results["call_pay"].status == "success"
        assert results["call_oslo"].status == "error"
        assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage, ToolMessage]


#: Every report the CLI writes (docs/cli.md#output), with ``--statistics`` for its tables.
REPORTS = [
    ["--output-format", "concise"],
    ["--output-format", "full"],
    ["--output-format", "json"],
    ["--output-format", "jsonl"],
    ["--output-format", "github"],
    ["--output-format", "sarif"],
    ["--statistics"],
    ["-v"],
]


def assert_no_secret(result: Any, *secrets: str) -> None:
    shown = result.stdout.decode() + result.stderr
    for secret in secrets:
        assert secret not in shown, result.show()


@pytest.mark.slow  # a subprocess per report and command
def test_no_password_is_shown_for_a_store_that_cannot_be_reached(tmp_path: Path) -> None:
    """A server that refuses the connection: its error names the URL with its password and
    secret parameters hidden, in every report (docs/stores.md)."""
    url = "langgraph+postgresql://bob:Hunter2Secret@127.0.0.1:1/app?sslpassword=KeyPass99&connect_timeout=3"
    for report in REPORTS:
        for command in (["check"], ["fix", "--diff"]):
            result = run([*command, *report, url], cwd=tmp_path, expect=2)
            assert_no_secret(result, "Hunter2Secret", "KeyPass99")
            if report[-1] in ("concise", "full", "-v"):
                assert "bob:***@127.0.0.1:1/app?sslpassword=***" in result.said, result.show()


def test_a_refused_connection_is_one_line_that_hides_only_the_password(tmp_path: Path) -> None:
    """libpq's message runs on two lines, shown with a literal ``\\n\\t``; a password ``p``
    was hidden inside every word that holds a p (``***ort``, ``acce***ting``); and the closing
    line said "1 file" of a store."""
    url = "langgraph+postgresql://u:p@127.0.0.1:1/app?connect_timeout=3"
    result = run(["check", "--color", "never", url], cwd=tmp_path, expect=2)
    (error,), (closing,) = result.stderr_lines, result.stdout_lines
    assert error.startswith("langgraph+postgresql://u:***@127.0.0.1:1/app?connect_timeout=3: ")
    assert "\\n" not in error and "\\t" not in error, error
    assert "port 1 failed: Connection refused Is the server running" in error, error
    assert "accepting TCP/IP connections" in error, error
    assert closing == "1 input could not be processed."


@pytest.mark.slow  # a subprocess per report
def test_no_password_is_shown_for_a_store_read(postgres_url: str, tmp_path: Path) -> None:
    """The test server trusts every password: a thread read and repaired through a URL with
    one never shows it."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(postgres_url) as saver:
        saver.setup()
        stuck_thread(saver, "stuck")
    scheme, _, rest = postgres_url.partition("://")
    user, _, host = rest.partition("@")
    url = f"langgraph+{scheme}://{user}:Hunter2Secret@{host}"
    for report in REPORTS:
        assert_no_secret(run(["check", *report, url], cwd=tmp_path, expect=1), "Hunter2Secret")
    assert_no_secret(run(["fix", "--diff", url], cwd=tmp_path, expect=1), "Hunter2Secret")
    assert_no_secret(run(["fix", "-v", url], cwd=tmp_path, expect=0), "Hunter2Secret")


def test_reading_leaves_no_file_and_changes_no_byte(tmp_path: Path) -> None:
    """check, fix --diff and fix --check open a SQLite database read-only: no ``-wal``,
    ``-shm`` or journal file appears, no byte changes, for a LangGraph checkpointer and an
    Agents SDK session database alike (docs/stores.md#what-reading-does-to-a-database)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from tests.stores import stuck_session

    with sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False) as conn:
        stuck_thread(SqliteSaver(conn), "stuck")
    conn.close()
    stuck_session(tmp_path / "conversations.db", "conv")
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert set(files) == {"threads.sqlite", "conversations.db"}
    for url in ("langgraph+sqlite:///threads.sqlite", "agents+sqlite:///conversations.db"):
        for command in (["check"], ["fix", "--diff"], ["fix", "--check"]):
            run([*command, url], cwd=tmp_path, expect=1)
            assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files, command


def test_a_bad_store_is_that_inputs_error(tmp_path: Path) -> None:
    """A store that cannot be read is reported as that input's error, with a plain message:
    the other inputs are still checked, the summary printed, and the run exits 2."""
    (tmp_path / "notes.sqlite").write_text("not a database, but long enough to be read " * 9)
    (tmp_path / "clean.json").write_text('[{"role": "user", "content": "hi"}]')
    for url, error in [
        ("langgraph+sqlite:///notes.sqlite", "file is not a database"),
        ("agents+sqlite:///notes.sqlite", "file is not a database"),
        ("langgraph+redis://localhost/0", "not a LangGraph store URL"),
        ("agents+postgresql://localhost/db", "not an Agents SDK store URL"),
    ]:
        for command in (["check"], ["fix"], ["fix", "--diff"]):
            result = run([*command, url, "clean.json"], cwd=tmp_path, expect=2)
            assert "internal error" not in result.said, result.show()
            assert f"{url}: error: " in result.said, result.show()
            assert error in result.said, result.show()
            # a store is no file: "1 input" (it said "1 file")
            assert "1 input could not be processed" in result.said, result.show()


def test_a_database_named_as_a_file_gets_its_url(tmp_path: Path) -> None:
    """``toolpatch check threads.sqlite``: the error says it is a SQLite database and shows the
    URL that names it; ``show`` says plainly that it takes files; ``--help`` names the URLs."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    with sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False) as conn:
        stuck_thread(SqliteSaver(conn), "stuck")
    conn.close()
    result = run(["check", "threads.sqlite"], cwd=tmp_path, expect=2)
    assert "threads.sqlite: error: a SQLite database, not a history file" in result.said
    assert "langgraph+sqlite:///threads.sqlite" in result.said, result.show()
    shown = run(["show", "langgraph+sqlite:///threads.sqlite"], cwd=tmp_path, expect=2)
    assert "show takes a file" in shown.said, shown.show()
    assert "fix --diff URL --thread ID" in shown.said, shown.show()
    helped = run(["check", "--help"], cwd=tmp_path, expect=0).stdout.decode()
    assert "langgraph+sqlite:///" in " ".join(helped.split()), helped


def test_reports_speak_of_threads(tmp_path: Path) -> None:
    """A finding is located by the store's URL and the thread (``URL#thread``), with no line
    of a file; the summary counts threads; SARIF names the store as the artifact and the
    thread as a logical location (docs/stores.md)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from tests.stores import clean_thread

    with sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False) as conn:
        stuck_thread(SqliteSaver(conn), "stuck")
        clean_thread(SqliteSaver(conn), "happy")
    conn.close()
    url = "langgraph+sqlite:///threads.sqlite"
    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert f"{url}#stuck: TP001 [*] tool call 'book'" in checked.said, checked.show()
    assert "Found 1 finding in 1 thread" in checked.said, checked.show()
    assert "1 thread clean" in checked.said, checked.show()
    sarif = json.loads(run(["check", "--output-format", "sarif", url], cwd=tmp_path).stdout)
    (result,) = sarif["runs"][0]["results"]
    (location,) = result["locations"]
    assert location["physicalLocation"] == {"artifactLocation": {"uri": url}}
    thread, pointer = location["logicalLocations"]
    assert thread == {"name": "stuck", "fullyQualifiedName": "stuck", "kind": "resource"}
    assert pointer["kind"] == "value"


def test_a_session_row_that_is_not_json_is_reported(tmp_path: Path) -> None:
    """An Agents SDK session's items are JSON, read with ``json.loads`` and nothing else
    (nothing in them is imported or called); a row that is not JSON, which the SDK's own
    ``get_items`` skips in silence, is that session's error, and the session is not written."""
    from tests.stores import session_rows, stuck_session

    database = tmp_path / "conversations.db"
    stuck_session(database, "conv")
    with sqlite3.connect(database) as conn:
        conn.execute(
            "INSERT INTO agent_messages (session_id, message_data) VALUES ('conv', '{\"torn')"
        )
    conn.close()
    before = session_rows(database)
    for command in (["check"], ["fix"]):
        result = run([*command, "agents+sqlite:///conversations.db"], cwd=tmp_path, expect=2)
        assert "#conv: error: its item in row 3 of agent_messages is not JSON" in result.said, (
            result.show()
        )
    assert session_rows(database) == before


def test_a_pending_write_that_is_no_message_is_the_threads_error() -> None:
    """A pending write to the messages that ``add_messages`` does not take (a database
    written by hand) makes the thread an error, not an internal error."""
    from langgraph.checkpoint.base import CheckpointTuple, empty_checkpoint
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from toolpatch.integrations.checkpoint_values import StoredSerializer
    from toolpatch.integrations.langgraph import read_thread

    stored = StoredSerializer()
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"]["messages"] = stored.loads_typed(
        JsonPlusSerializer().dumps_typed([HumanMessage("Hi")])
    )
    writes = [("task", "messages", stored.loads_typed(("msgpack", ormsgpack.packb(12345))))]
    saved = CheckpointTuple(config("t"), checkpoint, {}, None, writes)
    thread = read_thread("t", "", saved)
    assert thread.messages is None
    assert thread.unloadable is not None
    assert "a pending write to its messages cannot be applied" in thread.unloadable
