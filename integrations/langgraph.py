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
after its call, so the new checkpoint holds the whole repaired list; every other channel is
the latest checkpoint's. When the latest checkpoint schedules the tool step of its last
message's calls (some of which ran, one of which raised or was cut off), the new checkpoint
completes that step as ``update_state(..., as_node=<the tool node>)`` would: nothing of it is
left for ``invoke(None)`` or ``Command(resume=...)`` to run again
(docs/stores.md#what-fix-writes-and-how-a-thread-goes-on).

A store is named by a URL (`parse_url`): ``langgraph+sqlite:///relative.sqlite``,
``langgraph+sqlite:////absolute/path.sqlite``, ``langgraph+postgresql://user:pass@host/db``.
Importing this module without the ``langgraph`` extra raises `patchcore.extras.MissingExtra`.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, cast

from patchcore.extras import MissingExtra
from patchcore.raw.codec import MAX_RECORD_BYTES

try:
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple, copy_checkpoint
    from langgraph.checkpoint.base.id import uuid6
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph.message import add_messages
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="langgraph", part="a langgraph+ store URL") from None

from toolpatch.integrations.redaction import without_secrets

from .checkpoint_values import (
    StoredSerializer,
    Unloadable,
    is_delta_snapshot,
    is_messages,
    load_messages,
    stored_send,
)
from .store_files import StoreError, existing_sqlite, over_limit, tables
from .stores import STORE_KINDS, StoreThread

#: The channel a LangChain agent's state keeps its messages in (``create_agent``'s
#: ``AgentState``, LangGraph's ``MessagesState``).
MESSAGES = "messages"

#: The channels LangGraph records an interrupted task and a failed task in (its
#: ``INTERRUPT`` and ``ERROR``): a pending write to the first makes a thread wait for a human.
INTERRUPT = "__interrupt__"
ERROR = "__error__"

#: How a cancelled task's error write begins (the ``repr`` of a ``CancelledError``, from
#: ``asyncio`` or ``concurrent.futures``): LangGraph cancels the other tasks of a step when
#: one raises, and records each as failed with it. It says nothing of the tool's outcome (it
#: may have been half-way through, or done, on a busy machine), so it is no evidence: the call
#: gets a made-up result that says the outcome is unknown (docs/stores.md#the-stored-error).
CANCELLED = "CancelledError("

#: The channels that schedule a step's tasks: LangGraph's ``TASKS`` (a ``Topic`` of the
#: ``Send``s, one task each) and the ``branch:to:<node>`` channels (``EphemeralValue``s, one
#: per node an edge leads to). Both are emptied when the step completes.
TASKS = "__pregel_tasks"
BRANCH = "branch:to:"

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
        saved: The checkpoint as the checkpointer read it (its values as stored, by
            `StoredSerializer`), or ``None`` when it could not be read (`unloadable`).
        messages: Its ``messages`` channel with the messages its pending writes add, as
            LangGraph's ``add_messages`` will add them when the thread resumes (the result of
            a call that returned in a step another call broke off); ``None`` when it has no
            such channel (a thread of a graph without messages, or with nothing in them yet),
            keeps it as a delta, or holds a type toolpatch does not load (`unloadable`).
        unloadable: Why its messages could not be loaded, when they could not.
        waiting: Whether a task of its latest step is waiting for a human (a pending
            interrupt, LangGraph's ``interrupt()``): its open call is not stuck, it is
            answered when the human resumes the thread (docs/stores.md#waiting-and-stuck-threads).
    """

    thread_id: str
    namespace: str
    saved: CheckpointTuple | None
    messages: list[BaseMessage] | None
    unloadable: str | None = None
    waiting: bool = False
    step: ToolStep | None = None

    @property
    def label(self) -> str:
        """How reports name it: the thread id, and a subgraph's namespace after a slash."""
        return self.thread_id if not self.namespace else f"{self.thread_id}/{self.namespace}"

    @property
    def delta(self) -> bool:
        """Whether its messages are kept in a delta channel (LangGraph's beta ``DeltaChannel``:
        the value is rebuilt from the writes of earlier checkpoints), which toolpatch neither
        reads nor writes."""
        if self.saved is None:
            return False
        counters = self.saved.metadata.get("counters_since_delta_snapshot") or {}
        values = self.saved.checkpoint["channel_values"]
        return MESSAGES in counters or any(map(is_delta_snapshot, values.values()))


@dataclass(frozen=True, slots=True)
class ToolStep:
    """The step a thread's latest checkpoint schedules to run the calls of its last message
    (an ``AIMessage`` with ``tool_calls``), some of whose tasks may have run: what
    ``invoke(None)`` would run again, and what the repair must complete
    (docs/stores.md#what-fix-writes-and-how-a-thread-goes-on).

    Attributes:
        calls: The calls of that message, as it holds them.
        scheduled: The channels that schedule the step (`TASKS`, ``branch:to:*``) with a value.
        nodes: The nodes they schedule (the tool node), as the data names them.
        successors: The ``branch:to:*`` channels the step's finished tasks wrote: where the
            step leads (the model's node, in a ReAct loop), as those tasks recorded it; when
            none finished, what every finished task of the same node wrote in the thread's
            earlier steps, when that is one and the same (`CheckpointStore`).
        errors: The error the store recorded for a call whose task raised (LangGraph's
            error write, as stored: the exception's ``repr``), by call id; only where the
            data says which call it was (`_with_errors`).
        unled: Why the store does not say where the step leads, when it does not (the
            repaired thread then runs nothing until its next input).
    """

    calls: tuple[dict[str, Any], ...]
    scheduled: tuple[str, ...]
    nodes: tuple[str, ...]
    successors: tuple[str, ...]
    errors: dict[str, str]
    unled: str | None = None

    def open_calls(self, messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
        """The step's calls without a result in ``messages`` (the stored ones with the pending
        writes added): what ``invoke(None)`` would run again, and what the repair answers."""
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        return [call for call in self.calls if call.get("id") not in answered]

    def runs_again(self, messages: Sequence[BaseMessage]) -> list[str]:
        """The calls ``invoke(None)`` would run again (`open_calls`), as report text."""
        return [
            f"{call.get('name')} ({call.get('id')})"
            + (f", which raised {self.errors[call['id']]}" if call.get("id") in self.errors else "")
            for call in self.open_calls(messages)
        ]


def read_thread(
    thread_id: str,
    namespace: str,
    saved: CheckpointTuple,
    *,
    task_paths: Mapping[str, str] | None = None,
) -> Thread:
    """The thread of a checkpoint as the checkpointer read it: its messages loaded (only
    they), with the results its pending writes hold; whether it waits for a human; the tool
    step it schedules, if it does. ``task_paths``: the task path the store recorded with the
    error write of each task that raised, by task id (`CheckpointStore`'s query), which says
    which ``Send`` the task ran."""
    writes = saved.pending_writes or []
    waiting = any(channel == INTERRUPT for _, channel, _ in writes)
    failed = {task for task, channel, _ in writes if channel == ERROR}
    value = saved.checkpoint["channel_values"].get(MESSAGES)
    if value is None or is_delta_snapshot(value):
        return Thread(thread_id, namespace, saved, None, waiting=waiting)
    try:
        messages = load_messages(value)
        if not is_messages(messages):
            return Thread(thread_id, namespace, saved, None, waiting=waiting)
        step = _tool_step(saved, messages)
        for task, channel, written in writes:
            if channel == MESSAGES and task not in failed:
                messages = _applied(messages, load_messages(written))
    except Unloadable as exc:
        return Thread(thread_id, namespace, saved, None, unloadable=str(exc), waiting=waiting)
    if step is not None:
        step = _with_errors(step, saved, messages, task_paths or {})
    return Thread(thread_id, namespace, saved, messages, waiting=waiting, step=step)


def _tool_step(saved: CheckpointTuple, messages: list[BaseMessage]) -> ToolStep | None:
    """The tool step ``saved`` schedules: its stored messages end with the model's calls and
    a channel that schedules tasks holds a value (a ``Send`` per call, or an edge to a tool
    node); ``None`` otherwise (the thread got new input since, or its graph ended there)."""
    values = saved.checkpoint["channel_values"]
    scheduled = tuple(
        channel
        for channel, value in values.items()
        if (channel == TASKS and value) or channel.startswith(BRANCH)
    )
    last = messages[-1] if messages else None
    if not scheduled or not isinstance(last, AIMessage) or not last.tool_calls:
        return None
    writes = saved.pending_writes or []
    unfinished = {task for task, channel, _ in writes if channel in (ERROR, INTERRUPT)}
    successors = tuple(
        dict.fromkeys(
            channel
            for task, channel, _ in writes
            if channel.startswith(BRANCH) and task not in unfinished
        )
    )
    calls = tuple(dict(call) for call in last.tool_calls)
    return ToolStep(calls, scheduled, _nodes(values, scheduled), successors, {})


def _nodes(values: Mapping[str, Any], scheduled: Sequence[str]) -> tuple[str, ...]:
    """The nodes the ``scheduled`` channels of a checkpoint's ``values`` schedule: each
    ``Send``'s node (read as plain data), each ``branch:to:<node>``'s node."""
    found: list[str] = []
    for channel in scheduled:
        if channel == TASKS:
            sends = values[TASKS] if isinstance(values[TASKS], list) else []
            found += [str(s[0]) for s in map(stored_send, sends) if s and isinstance(s[0], str)]
        else:
            found.append(channel.removeprefix(BRANCH))
    return tuple(dict.fromkeys(found))


def _with_errors(
    step: ToolStep,
    saved: CheckpointTuple,
    messages: list[BaseMessage],
    task_paths: Mapping[str, str],
) -> ToolStep:
    """``step`` with the errors the store recorded for its calls without a result, where the
    data says which call raised what: a task that raised ran the ``Send`` its task path
    numbers, whose argument names one open call; or the step had one task that raised and
    one call left without a result. The error is the text LangGraph stored (nothing is
    constructed from it); a value that is not text is not used, nor a cancellation
    (`CANCELLED`): it says what LangGraph did to the task, not what the tool did."""
    open_ids = [str(c["id"]) for c in step.open_calls(messages)]
    failed = [
        (task, value) for task, channel, value in saved.pending_writes or [] if channel == ERROR
    ]
    if len(failed) == 1 and len(open_ids) == 1:
        found = {open_ids[0]: failed[0][1]}
    else:
        sends = saved.checkpoint["channel_values"].get(TASKS) or []
        found = {}
        for task, value in failed:
            index = _send_index(task_paths.get(task, ""))
            if index is not None and index < len(sends):
                send = stored_send(sends[index])
                named = _call_ids(send[1], set(open_ids)) if send else set()
                if len(named) == 1:
                    found[named.pop()] = value
    errors = {
        call: text
        for call, text in found.items()
        if isinstance(text, str) and not text.startswith(CANCELLED)
    }
    return replace(step, errors=errors)


def _send_index(task_path: str) -> int | None:
    """The index of the ``Send`` a task ran, from the task path LangGraph stores with its
    writes (``~__pregel_push, 0000000001, …``); ``None`` for another task's path."""
    parts = task_path.removeprefix("~").split(", ")
    if len(parts) < 2 or parts[0] != "__pregel_push" or not parts[1].isdigit():
        return None
    return int(parts[1])


def _call_ids(value: Any, ids: set[str]) -> set[str]:
    """The ids of ``ids`` that plain data ``value`` (lists and dicts, as a ``Send``'s
    argument is read) holds as a call's ``id``."""
    if isinstance(value, list):
        return set().union(*(_call_ids(item, ids) for item in value))
    if not isinstance(value, dict):
        return set()
    own = {value["id"]} & ids if isinstance(value.get("id"), str) else set()
    return own.union(*(_call_ids(item, ids) for item in value.values()))


def _applied(messages: list[BaseMessage], written: Any) -> list[BaseMessage]:
    """``messages`` with a pending write added, as LangGraph's ``add_messages`` adds it.

    Raises:
        Unloadable: The write is not messages ``add_messages`` takes.
    """
    try:
        added: Any = add_messages(cast(Any, messages), written)  # typed over message-likes
    except (ValueError, TypeError, NotImplementedError) as exc:
        msg = f"a pending write to its messages cannot be applied: {exc}"
        raise Unloadable(msg) from None
    return list(added)


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

    def __init__(
        self, url: str, *, write: bool = False, max_record: int = MAX_RECORD_BYTES
    ) -> None:
        self.url = url
        self.max_record = max_record
        """The record-size limit: a thread whose latest checkpoint takes more is not read."""
        self._stack = ExitStack()
        kind, where = parse_url(url)
        self.saver: BaseCheckpointSaver[Any]
        try:
            with self.driver_errors():
                if kind == "sqlite":
                    conn = existing_sqlite(where, write=write)
                    self._stack.enter_context(closing(conn))
                    self.saver = _ExistingSqliteSaver(conn, serde=StoredSerializer())
                else:
                    self.saver = _postgres(self._stack, where, write=write)
                self._pairs_query = _pairs_query(self.saver)
        except BaseException:
            self._stack.close()
            raise

    @contextmanager
    def driver_errors(self) -> Iterator[None]:
        """Turn the database driver's errors (a file that is not a database, a server that
        cannot be reached, a read-only database written to) into `StoreError`, without the
        URL's secrets."""
        try:
            yield
        except _driver_errors() as exc:
            # one line: libpq's message runs on ("...refused\n\tIs the server running ..."),
            # which a report would show with its line break escaped
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreError(without_secrets(message, self.url)) from None

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
        with self.driver_errors():
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
        """Each thread as it is reached; one whose rows cannot be read is that thread's
        error, and the next is read all the same."""
        torn: tuple[type[Exception], ...] = (*_TORN, *_row_errors())
        for thread_id, namespace in pairs:
            with self.driver_errors():
                thread: Thread | None
                try:
                    refused = over_limit(
                        "its latest checkpoint and its writes",
                        self._stored_size(thread_id, namespace),
                        self.max_record,
                    )
                    if refused is not None:
                        thread = Thread(thread_id, namespace, None, None, unloadable=refused)
                    else:
                        thread = self._thread(thread_id, namespace)
                except torn as exc:  # a torn or foreign blob, a row of another shape
                    # (PostgreSQL's own reading of it, or of its size, may refuse it first)
                    why = f"its latest checkpoint cannot be read: {_shown(exc, self.url)}"
                    thread = Thread(thread_id, namespace, None, None, unloadable=why)
            if thread is not None:
                yield thread

    def _thread(self, thread_id: str, namespace: str) -> Thread | None:
        """The thread's latest checkpoint in ``namespace``, read (`read_thread`), and where
        its tool step leads; ``None`` when it has none.

        Raises:
            Unloadable, ValueError, TypeError, KeyError, AttributeError, IndexError,
                RecursionError: Its rows are torn, foreign or of another shape (`_TORN`).
        """
        saved = self.saver.get_tuple(_config(thread_id, namespace))
        if saved is None:
            return None
        _check_shape(saved)
        paths = self._error_task_paths(saved)
        thread = read_thread(thread_id, namespace, saved, task_paths=paths)
        if thread.step is not None and not thread.step.successors:
            thread = replace(thread, step=self._led_by_history(saved, thread.step))
        return thread

    def _error_task_paths(self, saved: CheckpointTuple) -> dict[str, str]:
        """The task path stored with each error write of ``saved``, by task id (the
        checkpointer's own reads do not return it); none when it has no error write, or the
        database predates task paths."""
        if not any(channel == ERROR for _, channel, _ in saved.pending_writes or []):
            return {}
        where = saved.config["configurable"]
        key = (where["thread_id"], where.get("checkpoint_ns", ""), where["checkpoint_id"], ERROR)
        rows = self._writes(
            "task_id, task_path",
            "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = ?",
            key,
        )
        return {row[0]: row[1] for row in rows}

    def _writes(self, columns: str, where: str, key: Sequence[str]) -> list[tuple[str, ...]]:
        """``columns`` (with ``task_path``) of the rows of the checkpointer's writes table
        (``writes`` on SQLite, ``checkpoint_writes`` on PostgreSQL) that ``where`` picks, its
        ``?`` bound to ``key``, as text; none when the database predates task paths."""
        if isinstance(self.saver, SqliteSaver):
            if not self.saver._has_task_path:
                return []
            query = f"SELECT {columns} FROM writes WHERE {where}"
            with closing(self.saver.conn.execute(query, key)) as rows:
                return [tuple(map(str, row)) for row in rows.fetchall()]
        conn: Any = self.saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            query = f"SELECT {columns} FROM checkpoint_writes WHERE {where.replace('?', '%s')}"
            cursor.execute(query, key)
            return [tuple(map(str, row.values())) for row in cursor]

    def _led_by_history(self, saved: CheckpointTuple, step: ToolStep) -> ToolStep:
        """``step``, none of whose tasks finished, leading where the thread's history shows
        its node leads: the ``branch:to:*`` channels that every task of that node wrote in
        the thread's earlier steps, when they all wrote the same ones; otherwise ``step`` with
        why the store does not say (`ToolStep.unled`). A task's node is read from the task
        path stored with its writes (a node's own task) or from the ``Send`` that path numbers
        in its checkpoint (docs/stores.md#what-fix-writes-and-how-a-thread-goes-on)."""
        if len(step.nodes) != 1:
            why = f"the step runs more than one node ({', '.join(step.nodes)})"
            return replace(step, unled=f"the store does not say where it leads: {why}")
        node = step.nodes[0]
        led: set[tuple[str, ...]] = set()
        sends: dict[str, list[Any]] = {}
        for checkpoint_id, path, channels in self._earlier_tasks(saved):
            finished = ERROR not in channels and INTERRUPT not in channels
            if finished and self._task_node(saved, checkpoint_id, path, sends) == node:
                led.add(tuple(sorted(c for c in channels if c.startswith(BRANCH))))
        if len(led) == 1 and (only := next(iter(led))):
            return replace(step, successors=only)
        if not led:
            why = f"no earlier step of the thread ran {node} to its end"
        else:
            shown = sorted(
                " and ".join(c.removeprefix(BRANCH) for c in e) or "the end of the run" for e in led
            )
            why = f"its earlier steps led to {' or '.join(shown)}"
        return replace(step, unled=f"the store does not say where {node} leads: {why}")

    def _earlier_tasks(self, saved: CheckpointTuple) -> list[tuple[str, str, frozenset[str]]]:
        """The tasks of the thread's earlier checkpoints (all but ``saved``) in its namespace,
        as their writes record them: (checkpoint id, task path, the channels it wrote); none
        when the database predates task paths."""
        where = saved.config["configurable"]
        key = (where["thread_id"], where.get("checkpoint_ns", ""), where["checkpoint_id"])
        rows = self._writes(
            "checkpoint_id, task_id, task_path, channel",
            "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id != ?",
            key,
        )
        tasks: dict[tuple[str, str], tuple[str, set[str]]] = {}
        for checkpoint_id, task_id, path, channel in rows:
            tasks.setdefault((checkpoint_id, task_id), (path, set()))[1].add(str(channel))
        return [(cp, path, frozenset(ch)) for (cp, _), (path, ch) in tasks.items()]

    def _task_node(
        self, saved: CheckpointTuple, checkpoint_id: str, path: str, sends: dict[str, list[Any]]
    ) -> str | None:
        """The node an earlier task ran, by its task path: a node's own task names it
        (``~__pregel_pull, tools``); a ``Send``'s task numbers the ``Send`` in its checkpoint's
        `TASKS`, read as plain data (``sends`` keeps each checkpoint's, read once)."""
        pulled = "~__pregel_pull, "
        if path.startswith(pulled):
            return path.removeprefix(pulled)
        index = _send_index(path)
        if index is None:
            return None
        if checkpoint_id not in sends:
            where = dict(saved.config["configurable"], checkpoint_id=checkpoint_id)
            try:
                earlier = self.saver.get_tuple({"configurable": where})
                if earlier is not None:
                    _check_shape(earlier)
            except _TORN:  # a torn or foreign blob, a row of another shape: no evidence
                earlier = None
            value = earlier.checkpoint["channel_values"].get(TASKS) if earlier else None
            sends[checkpoint_id] = value if isinstance(value, list) else []
        listed = sends[checkpoint_id]
        send = stored_send(listed[index]) if index < len(listed) else None
        return send[0] if send is not None and isinstance(send[0], str) else None

    def write_messages(self, thread: Thread, messages: Sequence[BaseMessage]) -> str:
        """Record ``messages`` as the thread's ``messages`` channel in a new checkpoint whose
        parent is the one ``thread`` was read from, as ``update_state`` records an update;
        returns the new checkpoint's id. When the thread's latest checkpoint schedules a tool
        step (`ToolStep`), the new checkpoint completes it, as ``update_state(...,
        as_node=<the tool node>)`` does: nothing of it is left to run again, and it leads
        where its finished tasks led (docs/stores.md#what-fix-writes-and-how-a-thread-goes-on).

        Raises:
            ThreadMoved: The thread's latest checkpoint is no longer the one it was read from
                (read again just before writing); nothing was written.
            StoreError: The thread keeps its messages in a delta channel (LangGraph's beta
                ``DeltaChannel``), whose value toolpatch cannot write without the graph, or
                its latest checkpoint holds a value of another shape than LangGraph writes
                (a step that is not a number, a version of no known kind).
        """
        saved = thread.saved
        if saved is None or thread.messages is None:
            msg = thread.unloadable or "it has no messages channel"
            raise StoreError(msg)
        if thread.delta or saved.metadata.get("counters_since_delta_snapshot"):
            msg = DELTA
            raise StoreError(msg)
        try:
            checkpoint, metadata, versions = self._repair(saved, thread.step, messages)
            with self.driver_errors():
                return self._put(thread, checkpoint, metadata, versions)
        except _TORN as exc:  # a value of another shape in the checkpoint it is built on
            msg = f"the repair cannot be built on its latest checkpoint: {_shown(exc, self.url)}"
            raise StoreError(msg) from None

    def _repair(
        self, saved: CheckpointTuple, step: ToolStep | None, messages: Sequence[BaseMessage]
    ) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """The repair checkpoint on ``saved`` (`write_messages`), its metadata and the
        versions of the channels it writes."""
        checkpoint = copy_checkpoint(saved.checkpoint)
        versions = checkpoint["channel_versions"]
        number = saved.metadata.get("step", -1)
        # as update_state: one version past the highest of any channel (`apply_writes`)
        version = self.saver.get_next_version(max(versions.values()) if versions else None, None)
        values = checkpoint["channel_values"]
        values[MESSAGES] = [_with_id(m) for m in messages]
        written = [MESSAGES, *_completed(values, step)]
        for channel in written:
            versions[channel] = version
        checkpoint["id"] = str(uuid6(clock_seq=number + 1))
        checkpoint["ts"] = datetime.now(timezone.utc).isoformat()
        # as update_state: no list of updated channels, so that the next run weighs every
        # node's triggers by their versions (a list would narrow it to those channels' nodes)
        checkpoint["updated_channels"] = None
        metadata: dict[str, Any] = {
            "source": "update",
            "step": number + 1,
            "parents": saved.metadata.get("parents", {}),
        }
        return checkpoint, metadata, dict.fromkeys(written, version)

    def _put(
        self, thread: Thread, checkpoint: Any, metadata: dict[str, Any], versions: dict[str, Any]
    ) -> str:
        """Write the repair checkpoint, after reading the thread's latest again, in one
        transaction with that reading (`_writing`): no other writer can put a checkpoint in
        between, so the repair never forks the thread."""
        saved = thread.saved
        assert saved is not None  # `write_messages` checked
        with self._writing(thread):
            latest = self.saver.get_tuple(_config(thread.thread_id, thread.namespace))
            if latest is None or latest.checkpoint["id"] != saved.checkpoint["id"]:
                now = "gone" if latest is None else f"now {latest.checkpoint['id']}"
                msg = (
                    f"its latest checkpoint changed while toolpatch worked (was "
                    f"{saved.checkpoint['id']}, {now}): nothing written, run it again"
                )
                raise ThreadMoved(msg)
            written = self.saver.put(saved.config, checkpoint, metadata, versions)  # type: ignore[arg-type]
        return str(written["configurable"]["checkpoint_id"])

    def _stored_size(self, thread_id: str, namespace: str) -> int | None:
        """How many bytes the database holds for what reading the thread's latest checkpoint
        loads (the checkpoint, its channel values and its pending writes), summed by the
        database itself, before anything is loaded; ``None`` when there is no checkpoint."""
        if isinstance(self.saver, SqliteSaver):
            with closing(self.saver.conn.execute(_SQLITE_SIZE, (thread_id, namespace))) as rows:
                found = rows.fetchone()
                return None if found is None else int(found[0])
        conn: Any = self.saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            cursor.execute(_POSTGRES_SIZE, (thread_id, namespace))
            row = cursor.fetchone()
            return None if row is None else int(row["size"])

    @contextmanager
    def _writing(self, thread: Thread) -> Iterator[None]:
        """One transaction, committed when the block ends and rolled back when it raises,
        that keeps other writers of the thread out: on SQLite ``BEGIN IMMEDIATE`` (the
        database's write lock, taken before the re-read; the saver's ``put`` commits it), on
        PostgreSQL the row of the thread's latest checkpoint locked ``FOR UPDATE``, which
        another toolpatch waits for (docs/stores.md#langgraph). A write that fails (a full
        disk) is rolled back: the database is as the last thread written left it, in its
        write-ahead log when SQLite could not fold it back, which ``check`` reads
        (`existing_sqlite`)."""
        if isinstance(self.saver, SqliteSaver):
            sqlite = self.saver.conn
            sqlite.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                sqlite.rollback()
                raise
            sqlite.commit()
            return
        conn: Any = self.saver.conn  # type: ignore[attr-defined]
        with conn.transaction(), conn.cursor() as cursor:
            cursor.execute(
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s "
                "AND checkpoint_ns = %s ORDER BY checkpoint_id DESC LIMIT 1 FOR UPDATE",
                (thread.thread_id, thread.namespace),
            )
            yield

    def _pairs(self) -> list[tuple[str, str]]:
        """Every (thread id, checkpoint namespace) the store holds, sorted."""
        if isinstance(self.saver, SqliteSaver):
            with closing(self.saver.conn.execute(self._pairs_query)) as rows:
                return [(str(t), str(ns)) for t, ns in rows.fetchall()]
        conn: Any = self.saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            cursor.execute(self._pairs_query)
            return [(str(row["thread_id"]), str(row["checkpoint_ns"])) for row in cursor]


#: What reading a row of another shape than LangGraph's raises, in the checkpointer's own
#: reading or in toolpatch's: that thread's error, never the run's.
_TORN = (Unloadable, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError)


def _shown(exc: Exception, url: str) -> str:
    """What a row of another shape raised, as its thread's error says it (an error whose text
    alone says nothing, a ``KeyError``'s key, with its type), without the URL's secrets."""
    bare = isinstance(exc, LookupError | AttributeError | RecursionError)
    shown: str = without_secrets(repr(exc) if bare else str(exc), url)  # typed: mypy reads cli/
    return shown


def _check_shape(saved: CheckpointTuple) -> None:
    """Make sure a checkpoint as read is of the shape LangGraph writes, in what toolpatch
    reads of it, before anything is read from it.

    Raises:
        ValueError: It is not (a checkpoint without ``channel_values``, a list where a
            mapping belongs), and says how.
    """
    checkpoint: Any = saved.checkpoint
    metadata: Any = saved.metadata
    writes: Any = saved.pending_writes or []
    if not isinstance(checkpoint, dict):
        msg = f"it is a {type(checkpoint).__name__}, not a mapping"
        raise ValueError(msg)
    for key in ("channel_values", "channel_versions", "versions_seen"):
        if key not in checkpoint:
            msg = f"it has no {key}"
            raise ValueError(msg)
        if not isinstance(checkpoint[key], dict):
            msg = f"its {key} is a {type(checkpoint[key]).__name__}, not a mapping"
            raise ValueError(msg)
    if not all(isinstance(seen, dict) for seen in checkpoint["versions_seen"].values()):
        msg = "its versions_seen holds a value that is not a mapping"
        raise ValueError(msg)
    if not isinstance(checkpoint.get("id"), str):
        msg = "it has no id"
        raise ValueError(msg)
    if not isinstance(metadata, dict):
        msg = f"its metadata is a {type(metadata).__name__}, not a mapping"
        raise ValueError(msg)
    if not all(isinstance(w, tuple | list) and len(w) == 3 for w in writes):
        msg = "a pending write of it is not (task, channel, value)"
        raise ValueError(msg)


def _completed(values: dict[str, Any], step: ToolStep | None) -> list[str]:
    """Complete ``step`` in a checkpoint's ``values`` as LangGraph completes a step (its
    ``apply_writes``, as ``update_state(..., as_node=...)`` runs it): the channels that
    scheduled it are emptied (the ``Send``s consumed, the edges to its nodes cleared), and the
    ``branch:to:*`` channels its finished tasks wrote are written; returns the channels
    changed. Nothing is left to run of the step, so no tool of it runs again."""
    if step is None:
        return []
    for channel in step.scheduled:
        if channel == TASKS:
            values[TASKS] = []  # a Topic's empty value, as LangGraph stores it
        else:
            del values[channel]
    for channel in step.successors:
        values[channel] = None  # an edge's value (LangGraph writes None to it)
    return list(dict.fromkeys([*step.scheduled, *step.successors]))


#: The size of a thread's latest checkpoint in LangGraph's SQLite tables, as ``get_tuple``
#: loads it: the checkpoint (its channel values inside), its metadata, its pending writes.
_SQLITE_SIZE = """
SELECT length(c.checkpoint) + length(c.metadata) + coalesce((
    SELECT sum(length(w.value)) FROM writes w
    WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns
        AND w.checkpoint_id = c.checkpoint_id), 0)
FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ?
ORDER BY c.checkpoint_id DESC LIMIT 1
"""

#: The same in LangGraph's PostgreSQL tables, whose channel values are blobs of their own (the
#: versions the checkpoint names, joined as the saver's own query joins them).
_POSTGRES_SIZE = """
SELECT pg_column_size(c.checkpoint) + pg_column_size(c.metadata) + coalesce((
    SELECT sum(octet_length(bl.blob))
    FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
    INNER JOIN checkpoint_blobs bl
        ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
        AND bl.channel = v.key AND bl.version = v.value), 0) + coalesce((
    SELECT sum(octet_length(cw.blob)) FROM checkpoint_writes cw
    WHERE cw.thread_id = c.thread_id AND cw.checkpoint_ns = c.checkpoint_ns
        AND cw.checkpoint_id = c.checkpoint_id), 0) AS size
FROM checkpoints c WHERE c.thread_id = %s AND c.checkpoint_ns = %s
ORDER BY c.checkpoint_id DESC LIMIT 1
"""


class _ExistingSqliteSaver(SqliteSaver):
    """LangGraph's ``SqliteSaver`` on a database that has its tables: LangGraph's ``setup``
    would turn the database to WAL mode and create missing tables, writes toolpatch never
    makes (a read-only connection would refuse them)."""

    def setup(self) -> None:
        if self.is_setup:
            return
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(writes)")}
        self._has_task_path = "task_path" in columns  # as setup finds it on an older database
        self.is_setup = True


def _pairs_query(saver: BaseCheckpointSaver[Any]) -> str:
    """The query of every thread and namespace, after making sure the tables are there.

    Raises:
        StoreError: The database has no LangGraph checkpoint tables.
    """
    if isinstance(saver, SqliteSaver):
        found = {"checkpoints", "writes"} <= tables(saver.conn)
    else:
        conn: Any = saver.conn  # type: ignore[attr-defined]
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT to_regclass('checkpoints') IS NOT NULL "
                "AND to_regclass('checkpoint_blobs') IS NOT NULL "
                "AND to_regclass('checkpoint_writes') IS NOT NULL AS found"
            )
            found = bool((cursor.fetchone() or {}).get("found"))
    if not found:
        msg = "not a LangGraph checkpointer database (it has no checkpoints table)"
        raise StoreError(msg)
    return (
        "SELECT DISTINCT thread_id, checkpoint_ns FROM checkpoints "
        "ORDER BY thread_id, checkpoint_ns"
    )


def _postgres(stack: ExitStack, conninfo: str, *, write: bool) -> BaseCheckpointSaver[Any]:
    """A ``PostgresSaver`` on a connection ``stack`` closes, as ``from_conn_string`` makes it
    but with toolpatch's serializer, and in read-only transactions unless ``write``; it needs
    the postgres part of the extra."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row
    except ModuleNotFoundError as missing:
        raise MissingExtra(missing, extra="langgraph", part="a langgraph+postgresql URL") from None
    conn = Connection.connect(
        conninfo,
        autocommit=True,
        prepare_threshold=0,
        row_factory=dict_row,
        options="" if write else "-c default_transaction_read_only=on",
    )
    stack.enter_context(conn)
    return PostgresSaver(conn, serde=StoredSerializer())


def _row_errors() -> tuple[type[Exception], ...]:
    """The errors a database raises for the values of one row (PostgreSQL's ``DataError``:
    a checkpoint's JSON of another shape than its saver's query reads), when psycopg is
    installed: that thread's error, where the driver's other errors are the store's."""
    try:
        import psycopg
    except ModuleNotFoundError:
        return ()
    return (psycopg.DataError,)


def _driver_errors() -> tuple[type[Exception], ...]:
    """The errors of the database drivers: SQLite's, and psycopg's when it is installed."""
    try:
        import psycopg
    except ModuleNotFoundError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg.Error)


def _with_id(message: BaseMessage) -> BaseMessage:
    """``message``, or a copy of it with an id when it has none (a new ``ToolMessage``), as
    LangGraph's ``add_messages`` gives every message it stores one."""
    if message.id is not None:
        return message
    return message.model_copy(update={"id": str(uuid.uuid4())})


def _config(thread_id: str, namespace: str) -> Any:
    """The config of a thread's latest checkpoint in a namespace."""
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}


@contextmanager
def store_threads(
    url: str,
    *,
    write: bool,
    only: Sequence[str] = (),
    answer_waiting: bool = False,
    max_record: int = MAX_RECORD_BYTES,
) -> Iterator[Iterator[StoreThread]]:
    """The threads of the checkpointer ``url`` as `toolpatch.integrations.stores` takes them
    (`toolpatch.integrations.stores.open_store`); a thread whose latest checkpoint is over the
    record-size limit ``max_record`` is that thread's error."""
    with CheckpointStore(url, write=write, max_record=max_record) as store:
        yield (_store_thread(store, t, answer_waiting=answer_waiting) for t in store.threads(only))


#: What check says of a thread whose run was stopped before its first step was saved: its only
#: checkpoint is its input (docs/stores.md#waiting-and-stuck-threads).
NOT_STARTED = (
    "its run stopped before its first step: its input is still a pending write, which "
    "invoke(None) runs from the start; no messages are stored yet, so there is nothing to check"
)


def _not_started(saved: CheckpointTuple | None) -> bool:
    """Whether ``saved`` is the checkpoint LangGraph writes of a run's input (step -1, source
    ``input``), the only one of a run killed before its first step was saved."""
    return saved is not None and saved.metadata.get("source") == "input"


#: What check says of a thread waiting for a human (docs/stores.md#waiting-and-stuck-threads).
WAITING = (
    "waiting for a human: a task of its latest step asked for input (LangGraph's interrupt()), "
    "so its open calls are answered when the human resumes it; not stuck, left as it is "
    "(fix --force --thread ID answers them for an approval that was abandoned)"
)


#: What check says of a thread whose latest checkpoint schedules a tool step that did not
#: finish (docs/stores.md#what-fix-writes-and-how-a-thread-goes-on).
RERUNS = (
    "invoke(None) runs again: {calls}; fix answers them and completes the step, so that no "
    "tool of it runs again"
)

#: What it adds when the store does not say where that step leads (`ToolStep.unled`).
UNLED = (
    "; {why}, so after the fix invoke(None) runs nothing and the model is called with the "
    "thread's next input (update_state(..., as_node=...) on the graph schedules the next node)"
)


def _store_thread(store: CheckpointStore, thread: Thread, *, answer_waiting: bool) -> StoreThread:
    """``thread`` as the stores' interface takes it."""
    import patchcore

    made = StoreThread(thread.label, layout=STORE_KINDS["langgraph+"], dialect="langchain")
    if thread.delta:
        made.error = DELTA
    elif thread.unloadable is not None:
        made.error = thread.unloadable
    elif thread.messages is None and _not_started(thread.saved):
        made.skipped, made.skipped_as = NOT_STARTED, "run not started"
    elif thread.messages is None:
        made.skipped = "no messages channel in its latest checkpoint"
    else:
        made.messages = thread.messages
        made.waiting = WAITING if thread.waiting and not answer_waiting else None
        # worded as LangGraph's ToolNode words a tool's error (its TOOL_CALL_ERROR_TEMPLATE)
        errors = {c: f"Error: {e}" for c, e in thread.step.errors.items()} if thread.step else None
        made.check = _told(patchcore.check_base_messages, errors)
        made.fix = _told(patchcore.fix_base_messages, errors)
        made.shown = _message_line
        again = thread.step.runs_again(thread.messages) if thread.step else []
        if again and made.waiting is None:
            assert thread.step is not None
            unled = UNLED.format(why=thread.step.unled) if thread.step.unled else ""
            made.reruns = RERUNS.format(calls="; ".join(again)) + unled

        def writer(repaired: list[Any]) -> None:
            store.write_messages(thread, repaired)

        made.writer = writer
    return made


def _told(function: Any, errors: Mapping[str, str] | None) -> Any:
    """``function`` (the check or the fix of BaseMessages) with the errors the thread's
    checkpoint stored for its failed calls as their recorded results
    (`patchcore.Options.recorded_results`): the fix writes them, and both say the result is
    recovered, not made up (docs/pairing.md#evidence-first)."""
    if not errors:
        return function

    def told(messages: Sequence[BaseMessage], *, options: Any) -> Any:
        recorded = {**options.recorded_results, **errors}
        return function(messages, options=replace(options, recorded_results=recorded))

    return told


def _message_line(message: BaseMessage) -> str:
    """One LangChain message as a JSON line (``messages_to_dict``'s shape) for the diff."""
    from langchain_core.messages import message_to_dict

    return json.dumps(message_to_dict(message), ensure_ascii=False, default=str)
