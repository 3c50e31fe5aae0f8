"""What the store tests share: a chat model that refuses unanswered tool calls as providers do,
a real ``create_agent`` graph whose tool call is cut off, and the PostgreSQL server of
``.ci/postgres`` (docs/stores.md, CONTRIBUTING.md#postgresql).

The PostgreSQL tests read the server's URL from ``TOOLPATCH_TEST_POSTGRES``; without it they skip
locally, and fail in CI (``CI`` set), where ``.ci/run`` always starts one.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

#: The variable ``.ci/postgres`` exports: a libpq URL of a throwaway server's database.
POSTGRES_VARIABLE = "TOOLPATCH_TEST_POSTGRES"

#: What OpenAI answers a history with an unanswered call (the 400's message).
OPENAI_REFUSAL = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)


class ProviderRefused(Exception):
    """The fake provider's 400."""


def unanswered_calls(messages: Sequence[Any]) -> list[str]:
    """The ids of calls not answered before the next message that is not a tool result (as
    OpenAI's Chat Completions checks them)."""
    from langchain_core.messages import AIMessage, ToolMessage

    open_ids: list[str] = []
    for message in messages:
        if open_ids and not isinstance(message, ToolMessage):
            return open_ids
        if isinstance(message, AIMessage):
            open_ids = [str(call["id"]) for call in message.tool_calls]
        elif isinstance(message, ToolMessage) and message.tool_call_id in open_ids:
            open_ids.remove(message.tool_call_id)
    return open_ids


#: What Anthropic answers a history with two results for one call (the 400's message).
DUPLICATE_REFUSAL = (
    "each tool_use must have a single result. Found multiple `tool_result` blocks with id: {id}"
)


def duplicate_results(messages: Sequence[Any]) -> list[str]:
    """The ids of calls answered more than once (the providers refuse them)."""
    from langchain_core.messages import ToolMessage

    ids = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    return sorted({i for i in ids if ids.count(i) > 1})


def refusing_model(replies: list[Any], seen: list[list[Any]]) -> Any:
    """A LangChain chat model that answers with ``replies`` (``AIMessage``s, in turn) and
    refuses a history with an unanswered tool call, or a call answered twice, as the providers
    do; ``seen`` gets every history it is sent."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.outputs import ChatGeneration, ChatResult

    class RefusingChatModel(BaseChatModel):
        replies: list[Any]

        @property
        def _llm_type(self) -> str:
            return "refusing-fake"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            seen.append(list(messages))
            if open_ids := unanswered_calls(messages):
                raise ProviderRefused("400 " + OPENAI_REFUSAL.format(ids=", ".join(open_ids)))
            if twice := duplicate_results(messages):
                raise ProviderRefused("400 " + DUPLICATE_REFUSAL.format(id=twice[0]))
            return ChatResult(generations=[ChatGeneration(message=self.replies.pop(0))])

    return RefusingChatModel(replies=list(replies))


class ToolCutOff(BaseException):
    """The tool's process died mid-call (a BaseException: no tool error handler catches it)."""


def agent(checkpointer: Any, replies: list[Any], seen: list[list[Any]] | None = None) -> Any:
    """A ``create_agent`` graph with one tool, ``book``, that is cut off whenever it runs; its
    model answers ``replies`` and puts each history it is sent in ``seen``."""
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    @tool
    def book(city: str) -> str:
        """Book a trip to ``city``."""
        raise ToolCutOff(city)

    model = refusing_model(replies, [] if seen is None else seen)
    return create_agent(model, tools=[book], checkpointer=checkpointer)


def config(thread_id: str, checkpoint_id: str | None = None) -> Any:
    configurable = {"thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def stuck_thread(checkpointer: Any, thread_id: str) -> None:
    """Leave ``thread_id`` as a cut-off tool call leaves it: the model calls ``book``, the tool
    dies, and the next turn is refused by the provider (and stays refused)."""
    from langchain_core.messages import AIMessage, HumanMessage

    call = {"name": "book", "args": {"city": "Oslo"}, "id": "call_oslo"}
    graph = agent(checkpointer, [AIMessage("", tool_calls=[call])])
    with pytest.raises(ToolCutOff):
        graph.invoke({"messages": [HumanMessage("Book Oslo")]}, config(thread_id))
    for _ in range(2):
        with pytest.raises(ProviderRefused, match="call_oslo"):
            graph.invoke({"messages": [HumanMessage("Hello?")]}, config(thread_id))


class Killed(BaseException):
    """The agent's process died (a BaseException, as a kill is to the code it stops)."""


def not_started_thread(checkpointer: Any, thread_id: str, seen: list[list[Any]]) -> Any:
    """Leave ``thread_id`` as a run killed before its first step was saved leaves it: only its
    input's checkpoint. Returns the graph (its model puts each history it is sent in
    ``seen``)."""
    from langchain_core.messages import AIMessage, HumanMessage

    put = checkpointer.put
    saved: list[Any] = []

    def killed_after_the_input(*args: Any, **kwargs: Any) -> Any:
        if saved:
            raise Killed
        saved.append(put(*args, **kwargs))
        return saved[-1]

    graph = agent(checkpointer, [AIMessage("Booked.")], seen)
    checkpointer.put = killed_after_the_input
    try:
        with pytest.raises(Killed):
            graph.invoke({"messages": [HumanMessage("Book Oslo")]}, config(thread_id))
    finally:
        del checkpointer.put
    return graph


def clean_thread(checkpointer: Any, thread_id: str) -> None:
    """A thread whose turn ended well."""
    from langchain_core.messages import AIMessage, HumanMessage

    graph = agent(checkpointer, [AIMessage("Hello.")])
    graph.invoke({"messages": [HumanMessage("Hi")]}, config(thread_id))


def checkpoint_ids(checkpointer: Any, thread_id: str) -> list[str]:
    """Every checkpoint id of the thread, newest first."""
    return [c.config["configurable"]["checkpoint_id"] for c in checkpointer.list(config(thread_id))]


def clone_thread(checkpointer: Any, source: str, count: int) -> list[str]:
    """Copy every row of thread ``source`` (its checkpoints, their blobs on PostgreSQL and
    their writes) to ``count`` new threads, in SQL (many threads at once, as a busy store
    holds them); returns their ids."""
    sqlite = isinstance(checkpointer.conn, sqlite3.Connection)
    tables = {
        "checkpoints": "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, "
        "metadata",
        "writes" if sqlite else "checkpoint_writes": "checkpoint_ns, checkpoint_id, task_id, "
        f"idx, channel, type, {'value' if sqlite else 'blob'}, task_path",
    }
    if not sqlite:
        tables["checkpoint_blobs"] = "checkpoint_ns, channel, version, type, blob"
    ids = [f"{source}-{i}" for i in range(count)]
    mark = "?" if sqlite else "%s"
    for table, columns in tables.items():
        query = (
            f"INSERT INTO {table} (thread_id, {columns}) SELECT {mark}, {columns} FROM {table} "
            f"WHERE thread_id = {mark}"
        )
        for thread_id in ids:
            checkpointer.conn.execute(query, (thread_id, source))
    if sqlite:
        checkpointer.conn.commit()
    return ids


def forked_threads(checkpointer: Any) -> int:
    """How many threads have a checkpoint with two children (the history forks there)."""
    rows = checkpointer.conn.execute(
        "SELECT thread_id FROM checkpoints WHERE parent_checkpoint_id IS NOT NULL "
        "GROUP BY thread_id, checkpoint_ns, parent_checkpoint_id HAVING count(*) > 1"
    ).fetchall()
    return len({row[0] if isinstance(row, tuple) else row["thread_id"] for row in rows})


#: How a test opens a store's checkpointer itself.
Saver = Callable[[], AbstractContextManager[Any]]


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Saver]:
    """A store's URL (relative to ``tmp_path``, the tests' working folder, for SQLite) and how
    to open its checkpointer in the test."""
    if request.param == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        @contextmanager
        def sqlite_saver() -> Iterator[Any]:
            conn = sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False)
            try:
                yield SqliteSaver(conn)
            finally:
                conn.close()

        return "langgraph+sqlite:///threads.sqlite", sqlite_saver
    from langgraph.checkpoint.postgres import PostgresSaver

    url = request.getfixturevalue("postgres_url")
    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
    return "langgraph+" + url, lambda: PostgresSaver.from_conn_string(url)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards; skips without a server
    (fails in CI)."""
    import psycopg

    server = os.environ.get(POSTGRES_VARIABLE)
    if not server:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_VARIABLE} is not set in CI: .ci/run starts the server")
        pytest.skip(f"no PostgreSQL server ({POSTGRES_VARIABLE}; source .ci/postgres)")
    name = f"toolpatch_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    address, _, query = server.partition("?")
    url = f"{address.rpartition('/')[0]}/{name}" + (f"?{query}" if query else "")
    try:
        yield url
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


#: What the Responses API answers an input with a call and no output for it.
RESPONSES_REFUSAL = "No tool output found for function call {call_id}."


def responses_model(replies: list[list[Any]], seen: list[list[Any]]) -> Any:
    """An Agents SDK ``Model`` that answers with ``replies`` (each a list of output items, in
    turn) and refuses, as the Responses API does, an input with a ``function_call`` that no
    ``function_call_output`` answers; ``seen`` gets every input it is sent."""
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage

    class RefusingResponsesModel(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            given = kwargs.get("input", args[1] if len(args) > 1 else None)
            items = [given] if isinstance(given, str) else list(given or [])
            seen.append(items)
            answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
            for item in items:
                if item.get("type") == "function_call" and item["call_id"] not in answered:
                    raise ProviderRefused(RESPONSES_REFUSAL.format(call_id=item["call_id"]))
            return ModelResponse(output=replies.pop(0), usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return RefusingResponsesModel()


def function_call(call_id: str) -> Any:
    """The model's call of ``book`` for Oslo, as a Responses output item."""
    from openai.types.responses import ResponseFunctionToolCall

    return ResponseFunctionToolCall(
        type="function_call",
        call_id=call_id,
        name="book",
        arguments='{"city": "Oslo"}',
        id=f"fc_{call_id}",
        status="completed",
    )


def assistant_message(text: str) -> Any:
    """An assistant message, as a Responses output item."""
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    return ResponseOutputMessage(
        type="message",
        id="msg_1",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def sdk_agent(replies: list[list[Any]], seen: list[list[Any]] | None = None) -> Any:
    """An Agents SDK agent with one tool, ``book``, that needs an approval before it runs."""
    from agents import Agent, function_tool

    @function_tool(needs_approval=True)
    def book(city: str) -> str:
        """Book a trip to ``city``."""
        return f"booked {city}"

    model = responses_model(replies, [] if seen is None else seen)
    return Agent(name="travel", tools=[book], model=model)


def stuck_session(path: Path, session_id: str) -> None:
    """Leave ``session_id`` as an abandoned run leaves it: the model called ``book``, the run
    stopped for its approval, and the approval never came (the process ended), so the session
    holds the call and no output."""
    from agents import Runner, SQLiteSession

    session = SQLiteSession(session_id, path)
    try:
        result = asyncio.run(
            Runner.run(sdk_agent([[function_call("call_oslo")]]), "Book Oslo", session=session)
        )
    finally:
        session.close()
    assert result.interruptions


def clean_session(path: Path, session_id: str) -> None:
    """A session whose run ended well."""
    from agents import Runner, SQLiteSession

    session = SQLiteSession(session_id, path)
    try:
        asyncio.run(Runner.run(sdk_agent([[assistant_message("Hello.")]]), "Hi", session=session))
    finally:
        session.close()


def session_rows(path: Path) -> list[tuple[Any, ...]]:
    """Every row of the SDK's messages table, as stored."""
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM agent_messages ORDER BY id").fetchall()


def waiting_thread(checkpointer: Any, thread_id: str) -> Any:
    """Leave ``thread_id`` waiting for a human: the model calls ``approve``, whose tool asks
    for an approval with LangGraph's ``interrupt()``; returns the graph, to resume it."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.types import interrupt

    @tool
    def approve(amount: int) -> str:
        """Pay ``amount`` once a human approves."""
        answer = interrupt({"pay": amount})
        return f"paid {amount}" if answer == "yes" else "refused"

    call = {"name": "approve", "args": {"amount": 40}, "id": "call_pay"}
    replies = [AIMessage("", tool_calls=[call]), AIMessage("Paid.")]
    graph = create_agent(refusing_model(replies, []), tools=[approve], checkpointer=checkpointer)
    graph.invoke({"messages": [HumanMessage("Pay 40")]}, config(thread_id))
    return graph


def half_done_thread(checkpointer: Any, thread_id: str) -> None:
    """Leave ``thread_id`` after a step whose two parallel calls did not both finish: ``pay``
    returned (its ToolMessage is a pending write of the latest checkpoint), ``book`` was cut
    off."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    @tool
    def pay(amount: int) -> str:
        """Pay ``amount``."""
        return f"paid {amount}: receipt R-1"

    @tool
    def book(city: str) -> str:
        """Book a trip to ``city``."""
        raise ToolCutOff(city)

    calls = [
        {"name": "pay", "args": {"amount": 40}, "id": "call_pay"},
        {"name": "book", "args": {"city": "Oslo"}, "id": "call_oslo"},
    ]
    model = refusing_model([AIMessage("", tool_calls=calls)], [])
    graph = create_agent(model, tools=[pay, book], checkpointer=checkpointer)
    with pytest.raises(ToolCutOff):
        graph.invoke({"messages": [HumanMessage("Pay and book")]}, config(thread_id))


def cart_class() -> Any:
    """An application's pydantic type, ``myapp.state.Cart``: importable in the test's process
    (which writes it into a thread's state), not in toolpatch's."""
    import sys
    import types

    from pydantic import BaseModel

    module = sys.modules.get("myapp.state")
    if module is None:
        module = types.ModuleType("myapp.state")

        class Cart(BaseModel):
            items: list[str]

        Cart.__module__ = module.__name__
        module.Cart = Cart  # type: ignore[attr-defined]
        sys.modules[module.__name__] = module
    return module.Cart


#: The stored error of the trip's failed card payment (docs/stores.md#the-stored-error).
CARD_ERROR = "card processor timed out"

#: The stored error of the trip's failed car rental.
CAR_ERROR = "no car left in Oslo"

#: How long a raising tool of the trip waits for the hotel's result to be saved: a guard
#: against a hang, not a speed bound.
HANG = 120

#: The calls of the trip: a hotel booking that returns, a card payment and a car rental that
#: raise.
HOTEL_CALL = {"name": "book_hotel", "args": {"city": "Oslo"}, "id": "call_hotel"}
CARD_CALL = {"name": "charge_card", "args": {"amount": 40}, "id": "call_card"}
CAR_CALL = {"name": "rent_car", "args": {"city": "Oslo"}, "id": "call_car"}


def trip_tools(runs: list[str], gate: threading.Event | None = None) -> list[Any]:
    """The trip's tools, each counting its runs in ``runs``: ``book_hotel`` returns,
    ``charge_card`` raises `CARD_ERROR` and ``rent_car`` raises `CAR_ERROR` (each once ``gate``
    is set, when one is given: `failed_trip`)."""
    from langchain_core.tools import tool

    def after_gate() -> None:
        assert gate is None or gate.wait(HANG), "the hotel's result was never saved"

    @tool
    def book_hotel(city: str) -> str:
        """Book a hotel in ``city``."""
        runs.append("book_hotel")
        return f"booked {city}: H-1"

    @tool
    def charge_card(amount: int) -> str:
        """Charge ``amount`` to the card."""
        runs.append("charge_card")
        after_gate()
        raise RuntimeError(CARD_ERROR)

    @tool
    def rent_car(city: str) -> str:
        """Rent a car in ``city``."""
        runs.append("rent_car")
        after_gate()
        raise RuntimeError(CAR_ERROR)

    return [book_hotel, charge_card, rent_car]


class Trip:
    """A real graph over a trip's tools, ``book_hotel`` (returns a booking), ``charge_card``
    (raises `CARD_ERROR`) and ``rent_car`` (raises `CAR_ERROR`), each counting its runs, with the
    strict model (`refusing_model`): ``create_agent``'s (``kind="create_agent"``), a
    ``StateGraph`` ReAct loop that sends each call to the ``tools`` node as its own task
    (``kind="send_loop"``), or one whose edge leads to LangGraph's ``ToolNode``, which runs
    every call of a reply in one task (``kind="tool_node"``)."""

    def __init__(
        self,
        kind: str,
        checkpointer: Any,
        replies: list[Any],
        gate: threading.Event | None = None,
    ) -> None:
        self.runs: list[str] = []
        self.seen: list[list[Any]] = []
        tools = trip_tools(self.runs, gate)
        model = refusing_model(replies, self.seen)
        if kind == "create_agent":
            from langchain.agents import create_agent

            self.graph = create_agent(model, tools=tools, checkpointer=checkpointer)
        else:
            self.graph = _react_loop(model, tools, checkpointer, send=kind == "send_loop")

    def invoke(self, given: Any, thread_id: str) -> Any:
        return self.graph.invoke(given, config(thread_id))


def _react_loop(model: Any, tools: list[Any], checkpointer: Any, *, send: bool) -> Any:
    """A ``StateGraph`` ReAct loop: the model's node, then the ``tools`` node (one ``Send``
    per call of its reply with ``send``, else LangGraph's ``ToolNode`` for them all), then the
    model again."""
    from typing import Annotated, TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt import ToolNode, tools_condition
    from langgraph.types import Send

    by_name = {t.name: t for t in tools}

    # the call form: a class's annotations would be strings here (`from __future__`), which
    # the graph resolves in this module's namespace, where add_messages is not
    LoopState = TypedDict("LoopState", {"messages": Annotated[list[Any], add_messages]})  # noqa: UP013

    def call_model(state: Any) -> Any:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: Any) -> Any:
        calls = getattr(state["messages"][-1], "tool_calls", [])
        return [Send("tools", call) for call in calls] or END

    def run_tool(call: Any) -> Any:
        return {"messages": [by_name[call["name"]].invoke({**call, "type": "tool_call"})]}

    graph = StateGraph(LoopState)
    graph.add_node("model", call_model)
    graph.add_node("tools", run_tool if send else ToolNode(tools))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route if send else tools_condition, ["tools", END])
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=checkpointer)


#: The graphs a resume is tried on.
TRIP_KINDS = ["create_agent", "send_loop"]


#: The call of the trip's earlier tool round, which returned.
EARLIER_CALL = {"name": "book_hotel", "args": {"city": "Bergen"}, "id": "call_bergen"}


def earlier_round(kind: str, checkpointer: Any, thread_id: str) -> None:
    """A tool round of ``thread_id`` that completed: the model called ``book_hotel`` for
    Bergen, it returned, and the model answered; the thread's history then holds where the
    graph's tool node leads (its task's edge to the model)."""
    from langchain_core.messages import AIMessage, HumanMessage

    trip = Trip(kind, checkpointer, [AIMessage("", tool_calls=[EARLIER_CALL]), AIMessage("Done.")])
    trip.invoke({"messages": [HumanMessage("Book Bergen")]}, thread_id)
    assert trip.runs == ["book_hotel"]


def failed_trip(kind: str, checkpointer: Any, thread_id: str, calls: list[Any]) -> Trip:
    """Leave ``thread_id`` after a tool step that raised: the model made ``calls`` (of
    `HOTEL_CALL`, `CARD_CALL` and `CAR_CALL`) in one reply, ``book_hotel`` returned (its
    ToolMessage a pending write), ``charge_card`` and ``rent_car`` raised (an error write
    each)."""
    from langchain_core.messages import AIMessage, HumanMessage

    # Where each call is a task of its own, the raising tools wait for the hotel's result to be
    # saved: LangGraph (1.2) drops the write of a task that finishes while its runner stops for
    # a sibling's exception (its callback finds the executor shut: "cannot schedule new futures
    # after shutdown"), so without the wait the thread holds the hotel's result or not as the
    # threads happen to run, and two trips made alike differ.
    gate = None
    if kind in ("create_agent", "send_loop") and HOTEL_CALL in calls:
        gate = threading.Event()
        saving = checkpointer.put_writes

        def put_writes(config: Any, writes: Sequence[tuple[str, Any]], *more: Any) -> None:
            saving(config, writes, *more)
            for _, value in writes:
                values = value if isinstance(value, list) else [value]
                if any(getattr(v, "tool_call_id", None) == HOTEL_CALL["id"] for v in values):
                    gate.set()

        checkpointer.put_writes = put_writes
    trip = Trip(kind, checkpointer, [AIMessage("", tool_calls=calls)], gate)
    try:
        with pytest.raises(RuntimeError, match=f"{CARD_ERROR}|{CAR_ERROR}"):
            trip.invoke({"messages": [HumanMessage("Book Oslo and pay")]}, thread_id)
    finally:
        if gate is not None:
            del checkpointer.put_writes  # the saver's own method again
    return trip
