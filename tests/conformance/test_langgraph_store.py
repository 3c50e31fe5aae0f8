"""LangGraph checkpointers named by URL (docs/stores.md), on a real SQLite file and a real
PostgreSQL server: a ``create_agent`` thread whose tool call was cut off is refused on every
turn; ``toolpatch check`` reports it under its thread id, ``fix --diff`` shows the ToolMessage
it would add, ``fix`` records it as a new checkpoint (``source: "update"``) whose parent is the
latest, and the thread then resumes; the old checkpoint is still there to roll back to.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.graph.message import add_messages

from tests.helpers import TP001_TEXT, run, run_process, text
from tests.stores import (
    Saver,
    agent,
    checkpoint_ids,
    clean_thread,
    config,
    postgres_url,
    store,
    stuck_thread,
)

__all__ = ["postgres_url", "store"]  # the fixtures, used by name


def _add_each(state: Any, writes: Any) -> Any:
    for write in writes:
        state = add_messages(state, write)
    return state


class DeltaState(TypedDict):
    """A state whose messages are a delta channel (LangGraph's beta ``DeltaChannel``)."""

    messages: Annotated[list[Any], DeltaChannel(_add_each)]


def test_check_fix_resume_and_roll_back(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
        clean_thread(checkpointer, "happy")
        before = checkpoint_ids(checkpointer, "stuck")
        clean_before = checkpoint_ids(checkpointer, "happy")

    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert f"{url}#stuck: TP001 [*] tool call 'book' (id call_oslo) has no result" in checked.said
    assert "happy" not in checked.said

    diff = run(["fix", "--diff", url, "--thread", "stuck"], cwd=tmp_path, expect=1)
    added = [line for line in diff.stdout.decode().splitlines() if line.startswith("+")]
    assert added[0] == f"+++ b/{url}#stuck"
    tool = json.loads(added[1][1:])
    assert tool["type"] == "tool"
    assert tool["data"]["tool_call_id"] == "call_oslo"
    assert tool["data"]["content"] == text(TP001_TEXT, "book", "call_oslo")
    assert len(added) == 2

    run(["fix", "--check", url], cwd=tmp_path, expect=1)
    with saver() as checkpointer:  # neither a check nor a diff writes
        assert checkpoint_ids(checkpointer, "stuck") == before

    fixed = run(["fix", url], cwd=tmp_path, expect=0)
    assert f"Fixed {url}#stuck: TP001 x1" in fixed.said
    run(["check", url], cwd=tmp_path, expect=0)

    with saver() as checkpointer:
        after = checkpoint_ids(checkpointer, "stuck")
        assert after[1:] == before  # one checkpoint more, no row changed
        assert checkpoint_ids(checkpointer, "happy") == clean_before  # a clean thread: untouched
        latest = checkpointer.get_tuple(config("stuck"))
        assert latest.metadata["source"] == "update"
        assert (
            latest.metadata["step"]
            == checkpointer.get_tuple(config("stuck", before[0])).metadata["step"] + 1
        )
        assert latest.parent_config["configurable"]["checkpoint_id"] == before[0]
        messages = latest.checkpoint["channel_values"]["messages"]
        assert [type(m) for m in messages] == [
            HumanMessage,
            AIMessage,
            ToolMessage,
            HumanMessage,
            HumanMessage,
        ]
        assert messages[2].tool_call_id == "call_oslo"
        assert messages[2].status == "error"
        assert messages[2].id  # as add_messages would store it

        # the thread resumes: the model is sent the answered call, and answers
        seen: list[list[Any]] = []
        graph = agent(checkpointer, [AIMessage("Oslo could not be booked; shall I retry?")], seen)
        state = graph.invoke({"messages": [HumanMessage("So?")]}, config("stuck"))
        assert state["messages"][-1].content == "Oslo could not be booked; shall I retry?"
        assert [type(m) for m in seen[0]][1:4] == [AIMessage, ToolMessage, HumanMessage]

        # roll back: the checkpoint before the repair is still there, by its id
        old = graph.get_state(config("stuck", before[0]))
        assert [type(m) for m in old.values["messages"]] == [
            HumanMessage,
            AIMessage,
            HumanMessage,
            HumanMessage,
        ]


def test_every_output_format_names_the_thread(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "thread-7")
    escaped = url.replace(":", "%3A")  # in a workflow command's property
    for output_format, shown in [
        ("json", f'"file": "{url}#thread-7"'),
        ("jsonl", f'"file": "{url}#thread-7"'),
        ("github", f"file={escaped}#thread-7"),
        ("sarif", f'"uri": "{url}"'),
        ("full", f"{url}#thread-7: TP001"),
    ]:
        result = run(["check", "--output-format", output_format, url], cwd=tmp_path, expect=1)
        assert shown in result.stdout.decode() + result.stderr, result.show()


def test_a_thread_that_moved_is_not_written(
    store: tuple[str, Saver], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread gets a new checkpoint between toolpatch's read and its write (the agent ran
    meanwhile): nothing is written, the thread is reported, exit 2."""
    import patchcore
    from toolpatch.integrations.langgraph import CheckpointStore, ThreadMoved

    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
    monkeypatch.chdir(tmp_path)
    with CheckpointStore(url, write=True) as opened:
        (thread,) = opened.threads(["stuck"])
        with saver() as checkpointer:  # the agent's turn, refused, but recorded
            graph = agent(checkpointer, [])
            with pytest.raises(Exception, match="call_oslo"):
                graph.invoke({"messages": [HumanMessage("Again?")]}, config("stuck"))
            moved = checkpoint_ids(checkpointer, "stuck")
        repaired = patchcore.fix_base_messages(thread.messages or []).value
        with pytest.raises(ThreadMoved, match="changed while toolpatch worked"):
            opened.write_messages(thread, repaired)
    with saver() as checkpointer:
        assert checkpoint_ids(checkpointer, "stuck") == moved


def test_the_cli_reports_a_thread_that_moved(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
        before = checkpoint_ids(checkpointer, "stuck")
    # between the read and the write, another writer adds a checkpoint (the agent's next turn)
    script = (
        "import sys\n"
        "from tests.stores import agent, config\n"
        "from langchain_core.messages import HumanMessage\n"
        "from toolpatch.integrations import langgraph as lg\n"
        "write = lg.CheckpointStore.write_messages\n"
        "def racing(self, thread, messages):\n"
        "    graph = agent(self.saver, [])\n"
        "    try:\n"
        "        graph.invoke({'messages': [HumanMessage('Again?')]}, config('stuck'))\n"
        "    except Exception:\n"
        "        pass\n"
        "    return write(self, thread, messages)\n"
        "lg.CheckpointStore.write_messages = racing\n"
        "from toolpatch.cli.app import main\n"
        "main()\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = run_process(
        ["fix", url],
        cwd=tmp_path,
        command=[sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r})\n" + script],
        expect=2,
    )
    assert f"{url}#stuck: error: its latest checkpoint changed while toolpatch worked" in (
        result.said
    )
    with saver() as checkpointer:
        ids = checkpoint_ids(checkpointer, "stuck")
        assert ids[len(ids) - len(before) :] == before
        assert len(ids) > len(before)  # the agent's checkpoints, not toolpatch's:
        assert checkpointer.get_tuple(config("stuck")).metadata["source"] != "update"


def test_a_clean_store_is_never_written(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        clean_thread(checkpointer, "a")
        clean_thread(checkpointer, "b")
        before = {t: checkpoint_ids(checkpointer, t) for t in ("a", "b")}
    run(["fix", url], cwd=tmp_path, expect=0)
    run(["fix", url, "--thread", "b"], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        assert {t: checkpoint_ids(checkpointer, t) for t in ("a", "b")} == before


def test_thread_selection_and_store_errors(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
        clean_thread(checkpointer, "happy")
    only = run(["check", "-v", url, "--thread", "happy"], cwd=tmp_path, expect=0)
    assert "stuck" not in only.said
    missing = run(["check", url, "--thread", "nope"], cwd=tmp_path, expect=2)
    assert "no checkpoint of thread 'nope' in the store" in missing.said


def test_urls_that_name_no_store(tmp_path: Path) -> None:
    (tmp_path / "other.sqlite").touch()
    sqlite3.connect(tmp_path / "other.sqlite").execute("CREATE TABLE t (x)").connection.commit()
    for url, error in [
        ("langgraph+sqlite:///missing.sqlite", "no SQLite database at missing.sqlite"),
        ("langgraph+sqlite:///other.sqlite", "not a LangGraph checkpointer database"),
        ("langgraph+sqlite://", "not a LangGraph store URL"),
        ("langgraph+postgresql://nobody@127.0.0.1:1/none", "connection"),
    ]:
        result = run(["check", url], cwd=tmp_path, expect=2)
        assert f"{url}: error: " in result.said, result.show()
        assert error in result.said, result.show()
    # naming the absolute path with four slashes
    absolute = f"langgraph+sqlite:///{tmp_path / 'other.sqlite'}"
    assert "not a LangGraph checkpointer" in run(["check", absolute], expect=2).said
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_thread_kept_in_a_delta_channel_is_an_error(tmp_path: Path) -> None:
    """LangGraph's beta DeltaChannel keeps no value in the checkpoint (it is rebuilt from the
    writes of earlier ones): toolpatch cannot read it, and says so rather than passing it over
    as clean."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    def model(state: DeltaState) -> Any:
        return {"messages": [AIMessage("", tool_calls=[{"name": "book", "args": {}, "id": "c1"}])]}

    graph = StateGraph(DeltaState)
    graph.add_node("model", model)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    conn = sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False)
    saver = SqliteSaver(conn)
    graph.compile(checkpointer=saver).invoke({"messages": [HumanMessage("Hi")]}, config("d"))
    before = checkpoint_ids(saver, "d")
    for command in (["check"], ["fix"]):
        result = run([*command, "langgraph+sqlite:///threads.sqlite"], cwd=tmp_path, expect=2)
        assert "sqlite#d: error: its state is kept in a delta channel" in result.said, result.show()
    assert checkpoint_ids(saver, "d") == before
    conn.close()


def test_a_subgraph_namespace_is_a_thread_of_its_own(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """The agent runs as a node of a parent graph: its checkpoints are in the namespace
    ``agent:<task id>``, reported as ``thread/namespace`` and repaired there."""
    from langgraph.graph import END, START, MessagesState, StateGraph

    from tests.stores import ToolCutOff

    url, saver = store
    call = {"name": "book", "args": {"city": "Oslo"}, "id": "call_oslo"}
    with saver() as checkpointer:
        parent = StateGraph(MessagesState)
        parent.add_node("agent", agent(None, [AIMessage("", tool_calls=[call])]))
        parent.add_edge(START, "agent")
        parent.add_edge("agent", END)
        with pytest.raises(ToolCutOff):
            parent.compile(checkpointer=checkpointer).invoke(
                {"messages": [HumanMessage("Book Oslo")]}, config("p")
            )
        (namespace,) = {
            c.config["configurable"]["checkpoint_ns"] for c in checkpointer.list(None)
        } - {""}
        nested = {"configurable": {"thread_id": "p", "checkpoint_ns": namespace}}
        before = checkpointer.get_tuple(nested).checkpoint["id"]
    checked = run(["check", url], cwd=tmp_path, expect=1)
    assert f"{url}#p/{namespace}: TP002" in checked.said, checked.show()
    run(["fix", url, "--thread", "p"], cwd=tmp_path, expect=0)
    with saver() as checkpointer:
        latest = checkpointer.get_tuple(nested)
        assert latest.parent_config["configurable"]["checkpoint_id"] == before
        assert latest.parent_config["configurable"]["checkpoint_ns"] == namespace
        assert [type(m) for m in latest.checkpoint["channel_values"]["messages"]] == [
            HumanMessage,
            AIMessage,
            ToolMessage,
        ]


def test_a_thread_over_the_record_limit_is_its_own_error(
    store: tuple[str, Saver], tmp_path: Path
) -> None:
    """A thread's latest checkpoint was loaded whatever its size (a 600 MB message took
    2.5 GB to check, 5 GB for ``fix --diff``): the database sums the checkpoint, its channel
    values and its writes first, and a thread over the record-size limit is that thread's
    error, unread; the next thread is checked (docs/stores.md#size)."""
    url, saver = store
    with saver() as checkpointer:
        graph = agent(checkpointer, [AIMessage("Hello.")])
        graph.invoke({"messages": [HumanMessage("x" * 3 * 2**20)]}, config("big"))
        stuck_thread(checkpointer, "stuck")
    for command in (["check"], ["fix", "--diff"]):
        result = run([*command, "--max-record-mib", "1", url], cwd=tmp_path, expect=2)
        assert f"{url}#big: error: its latest checkpoint and its writes take " in result.said
        assert "more than the record-size limit of 1 MiB" in result.said, result.show()
        assert f"{url}#stuck: TP001" in result.said, result.show()
    run(["check", "--max-record-mib", "16", url, "--thread", "big"], cwd=tmp_path, expect=0)
