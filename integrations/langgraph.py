"""Check and repair the threads of a LangGraph checkpointer (SQLite or PostgreSQL).

A thread whose tool call was cut off keeps an ``AIMessage`` with ``tool_calls`` and no
``ToolMessage`` in its ``messages`` channel, and every later turn fails on it (``Found
AIMessages with tool_calls that do not have a corresponding ToolMessage``, or the provider's
400). The messages are checked and repaired by `patchcore.check_base_messages` /
`patchcore.fix_base_messages`; the repair is recorded as LangGraph records
``graph.update_state``: a new checkpoint whose parent is the thread's latest, ``source:
"update"`` and the next step in its metadata, the ``messages`` channel's version moved on by the
checkpointer's own ``get_next_version``, written by the checkpointer's ``put`` (and so by its
serializer). No existing row changes: the history stays, and going back to the checkpoint
before the repair is a ``checkpoint_id`` in the config away (docs/stores.md).

Why not ``update_state`` itself: it needs the application's compiled graph, which toolpatch does
not have, and it runs the written values through the channel's reducer, which for
``add_messages`` appends a new ``ToolMessage`` at the end of the list, after the turns that
followed the call, where the provider still refuses it. The repair needs the answer right
after its call, so the new checkpoint holds the whole repaired list; every other channel, and
what the graph would run next, is the latest checkpoint's.

A store is named by a URL (`parse_url`): ``langgraph+sqlite:///relative.sqlite``,
``langgraph+sqlite:////absolute/path.sqlite``, ``langgraph+postgresql://user:pass@host/db``.
Importing this module without the ``langgraph`` extra raises `patchcore.extras.MissingExtra`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from patchcore.extras import MissingExtra

try:
    from langchain_core.messages import BaseMessage
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, copy_checkpoint
    from langgraph.checkpoint.base.id import uuid6
    from langgraph.checkpoint.sqlite import SqliteSaver
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="langgraph", part="a langgraph+ store URL") from None

from .store_files import StoreError, existing_sqlite, tables

#: The channel a LangChain agent's state keeps its messages in (``create_agent``'s
#: ``AgentState``, LangGraph's ``MessagesState``).
MESSAGES = "messages"

#: The URL prefixes of the stores, by backend.
SQLITE = "langgraph+sqlite://"
POSTGRES = ("langgraph+postgresql://", "langgraph+postgres://")


#: Why a thread that keeps its messages (or any channel) as deltas is not repaired.
DELTA = (
    "its state is kept in a delta channel (LangGraph's beta DeltaChannel), which toolpatch "
    "does not read or write: repair it with graph.update_state"
)


class ThreadMoved(StoreError):
    """The thread's latest checkpoint changed while toolpatch worked: nothing was written."""


@dataclass(frozen=True, slots=True)
class Thread:
    """The latest checkpoint of one thread in one checkpoint namespace.

    Attributes:
        thread_id: The thread's id.
        namespace: Its checkpoint namespace (``""`` for the graph itself, else a subgraph's).
        saved: The checkpoint as the checkpointer read it.
        messages: Its ``messages`` channel, or ``None`` when it has none (a thread of a graph
            without messages, or with nothing in them yet) or keeps it as a delta.
    """

    thread_id: str
    namespace: str
    saved: CheckpointTuple
    messages: list[BaseMessage] | None

    @property
    def label(self) -> str:
        """How reports name it: the thread id, and a subgraph's namespace after a slash."""
        return self.thread_id if not self.namespace else f"{self.thread_id}/{self.namespace}"

    @property
    def delta(self) -> bool:
        """Whether its messages are kept in a delta channel (LangGraph's beta ``DeltaChannel``:
        the value is rebuilt from the writes of earlier checkpoints), which toolpatch neither
        reads nor writes."""
        counters = self.saved.metadata.get("counters_since_delta_snapshot") or {}
        value = self.saved.checkpoint["channel_values"].get(MESSAGES)
        return MESSAGES in counters or type(value).__name__ == "_DeltaSnapshot"

    @property
    def checkpoint_id(self) -> str:
        """The id of the checkpoint it was read from."""
        return str(self.saved.checkpoint["id"])


def parse_url(url: str) -> tuple[str, str]:
    """``("sqlite", path)`` or ``("postgres", conninfo)`` for a store URL.

    ``langgraph+sqlite:///x.sqlite`` is the relative path ``x.sqlite``, and
    ``langgraph+sqlite:////srv/x.sqlite`` the absolute ``/srv/x.sqlite`` (SQLAlchemy's
    spelling); a PostgreSQL URL is handed to psycopg without its ``langgraph+`` prefix.

    Raises:
        StoreError: Not a LangGraph store URL.
    """
    if url.startswith(SQLITE + "/"):
        path = url[len(SQLITE) + 1 :]
        if path:
            return "sqlite", path
    for prefix in POSTGRES:
        if url.startswith(prefix):
            return "postgres", "postgresql://" + url[len(prefix) :]
    msg = (
        "not a LangGraph store URL: langgraph+sqlite:///relative.sqlite, "
        "langgraph+sqlite:////absolute.sqlite or langgraph+postgresql://user:pass@host:port/db"
    )
    raise StoreError(msg)


class CheckpointStore:
    """A LangGraph checkpointer opened from a store URL; close it (or use ``with``).

    Only ``write=True`` opens it for writing: a SQLite database is otherwise opened read-only,
    so that a check cannot change it (not even create LangGraph's tables).
    """

    def __init__(self, url: str, *, write: bool = False) -> None:
        self.url = url
        self._stack = ExitStack()
        kind, where = parse_url(url)
        self.saver: BaseCheckpointSaver[Any]
        try:
            if kind == "sqlite":
                conn = existing_sqlite(where, write=write)
                self.saver = SqliteSaver(self._stack.enter_context(closing(conn)))
            else:
                self.saver = self._stack.enter_context(_postgres(where))
            self._pairs_query = _pairs_query(self.saver)
        except BaseException:
            self._stack.close()
            raise

    def __enter__(self) -> CheckpointStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._stack.close()

    def threads(self, thread_ids: Sequence[str] = ()) -> Iterator[Thread]:
        """The latest checkpoint of each thread and checkpoint namespace, in order of thread
        id (only those of ``thread_ids`` when given, in their order), each read as it is
        reached.

        Raises:
            StoreError: A thread id the store does not hold (at once, before any is read).
        """
        pairs = self._pairs()
        if thread_ids:
            by_thread: dict[str, list[str]] = {}
            for thread_id, namespace in pairs:
                by_thread.setdefault(thread_id, []).append(namespace)
            missing = [t for t in thread_ids if t not in by_thread]
            if missing:
                msg = f"no checkpoint of thread {missing[0]!r} in the store"
                raise StoreError(msg)
            pairs = [(t, ns) for t in dict.fromkeys(thread_ids) for ns in by_thread[t]]
        return self._read(pairs)

    def _read(self, pairs: list[tuple[str, str]]) -> Iterator[Thread]:
        for thread_id, namespace in pairs:
            saved = self.saver.get_tuple(_config(thread_id, namespace))
            if saved is not None:
                yield Thread(thread_id, namespace, saved, _messages(saved))

    def write_messages(self, thread: Thread, messages: Sequence[BaseMessage]) -> str:
        """Record ``messages`` as the thread's ``messages`` channel in a new checkpoint whose
        parent is the one ``thread`` was read from, as ``update_state`` records an update;
        returns the new checkpoint's id.

        Raises:
            ThreadMoved: The thread's latest checkpoint is no longer the one it was read from
                (read again just before writing); nothing was written.
            StoreError: The thread keeps its messages in a delta channel (LangGraph's beta
                ``DeltaChannel``), whose value toolpatch cannot write without the graph.
        """
        saved = thread.saved
        if thread.delta or saved.metadata.get("counters_since_delta_snapshot"):
            msg = DELTA
            raise StoreError(msg)
        checkpoint = copy_checkpoint(saved.checkpoint)
        versions = checkpoint["channel_versions"]
        step = saved.metadata.get("step", -1)
        # as update_state: one version past the highest of any channel (`apply_writes`)
        version = self.saver.get_next_version(max(versions.values()) if versions else None, None)
        versions[MESSAGES] = version
        checkpoint["channel_values"][MESSAGES] = [_with_id(m) for m in messages]
        checkpoint["id"] = str(uuid6(clock_seq=step + 1))
        checkpoint["ts"] = datetime.now(timezone.utc).isoformat()
        checkpoint["updated_channels"] = [MESSAGES]
        metadata: dict[str, Any] = {
            "source": "update",
            "step": step + 1,
            "parents": saved.metadata.get("parents", {}),
        }
        latest = self.saver.get_tuple(_config(thread.thread_id, thread.namespace))
        if latest is None or latest.checkpoint["id"] != saved.checkpoint["id"]:
            now = "gone" if latest is None else f"now {latest.checkpoint['id']}"
            msg = (
                f"its latest checkpoint changed while toolpatch worked (was "
                f"{saved.checkpoint['id']}, {now}): nothing written, run it again"
            )
            raise ThreadMoved(msg)
        written = self.saver.put(saved.config, checkpoint, metadata, {MESSAGES: version})  # type: ignore[arg-type]
        return str(written["configurable"]["checkpoint_id"])

    def _pairs(self) -> list[tuple[str, str]]:
        """Every (thread id, checkpoint namespace) the store holds, sorted."""
        if isinstance(self.saver, SqliteSaver):
            with closing(self.saver.conn.execute(self._pairs_query)) as rows:
                return [(str(t), str(ns)) for t, ns in rows.fetchall()]
        conn: Any = self.saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            cursor.execute(self._pairs_query)
            return [(str(row["thread_id"]), str(row["checkpoint_ns"])) for row in cursor]


def _pairs_query(saver: BaseCheckpointSaver[Any]) -> str:
    """The query of every thread and namespace, after making sure the tables are there.

    Raises:
        StoreError: The database has no LangGraph checkpoints table.
    """
    if isinstance(saver, SqliteSaver):
        found = "checkpoints" in tables(saver.conn)
    else:
        conn: Any = saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            cursor.execute("SELECT to_regclass('checkpoints') IS NOT NULL AS found")
            found = bool((cursor.fetchone() or {}).get("found"))
    if not found:
        msg = "not a LangGraph checkpointer database (it has no checkpoints table)"
        raise StoreError(msg)
    return (
        "SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints "
        "ORDER BY thread_id, checkpoint_ns"
    )


def _postgres(conninfo: str) -> Any:
    """``PostgresSaver.from_conn_string``, which needs the postgres part of the extra.

    Raises:
        StoreError: The server cannot be reached.
    """
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ModuleNotFoundError as missing:
        raise MissingExtra(missing, extra="langgraph", part="a langgraph+postgresql URL") from None

    class _Opened:
        def __init__(self) -> None:
            self._inner = PostgresSaver.from_conn_string(conninfo)

        def __enter__(self) -> PostgresSaver:
            try:
                return self._inner.__enter__()
            except psycopg.Error as exc:
                raise StoreError(str(exc).strip()) from None

        def __exit__(self, *exc: Any) -> Any:
            return self._inner.__exit__(*exc)

    return _Opened()


def _with_id(message: BaseMessage) -> BaseMessage:
    """``message``, or a copy of it with an id when it has none (a new ``ToolMessage``), as
    LangGraph's ``add_messages`` gives every message it stores one."""
    if message.id is not None:
        return message
    return message.model_copy(update={"id": str(uuid.uuid4())})


def _config(thread_id: str, namespace: str) -> Any:
    """The config of a thread's latest checkpoint in a namespace."""
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}


def _messages(saved: CheckpointTuple) -> list[BaseMessage] | None:
    """The checkpoint's ``messages`` channel, when it is a list of messages."""
    value = saved.checkpoint["channel_values"].get(MESSAGES)
    if isinstance(value, list) and all(isinstance(m, BaseMessage) for m in value):
        return value
    return None
