"""The agent stores named by URL, behind one interface (docs/stores.md).

A store yields its threads (`open_store`); a thread (`StoreThread`) holds the history the
library checks, or says why there is none to check (an error, a thread passed over, a thread
waiting for a human); `evaluate` checks or repairs it with patchcore into the library's own
`patchcore.Result` (`patchcore.history_result`, which says what that result holds), and
`StoreThread.write` records the repair in the store as one operation. The command line only
names, renders and counts (`toolpatch.cli.stores`); the next store is one module that makes
`StoreThread`s: `toolpatch.integrations.langgraph` (LangGraph checkpointers),
`toolpatch.integrations.agents` (Agents SDK sessions), `toolpatch.integrations.opencode_store`
(opencode's database) and `toolpatch.integrations.goose_store` (Goose's ``sessions.db``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any

from patchcore import Finding, HistoryResult, Options, history_result
from patchcore.raw.codec import MAX_RECORD_BYTES
from toolpatch.integrations.redaction import redacted, without_secrets

from .store_files import StoreError

__all__ = [
    "STORES",
    "StoreError",
    "StoreThread",
    "evaluate",
    "open_store",
    "redacted",
    "without_secrets",
]

#: How a store URL starts, and the layout its threads are reported as.
STORE_KINDS = {
    "langgraph+": "langgraph-checkpoint",
    "agents+": "agents-session",
    "opencode+": "opencode-database",
    "goose+": "goose-database",
}

#: The stores, for ``toolpatch formats``: each URL scheme, what it names, how a database is
#: recognised as one, and where it is found (docs/stores.md).
STORES = (
    (
        "langgraph+",
        "LangGraph checkpointer",
        "`langgraph+sqlite://` or `langgraph+postgresql://` (extra: langgraph): `checkpoints` "
        "and `writes` tables; each thread's latest checkpoint",
        "a `SqliteSaver` / `PostgresSaver` database",
    ),
    (
        "agents+",
        "OpenAI Agents SDK SQLiteSession",
        "`agents+sqlite://` (extra: agents): `agent_sessions` and `agent_messages` tables",
        "the database an application gives `SQLiteSession`",
    ),
    (
        "opencode+",
        "opencode's database",
        "`opencode+sqlite://`: `session`, `message` and `part` tables (opencode 1.x)",
        "`~/.local/share/opencode/opencode.db`",
    ),
    (
        "opencode+files",
        "opencode's storage files",
        "a folder named as a PATH (or `opencode+files://`) that holds `session/`, `message/` "
        "and `part/` (releases before the database)",
        "`~/.local/share/opencode/storage/`",
    ),
    (
        "goose+",
        "Goose's session database",
        "`goose+sqlite://`: `sessions` and `messages` tables with `message_id` (schema "
        "version 7 and later)",
        "`~/.local/share/goose/sessions/sessions.db`",
    ),
)


@dataclass
class StoreThread:
    """One thread (an Agents SDK session) of a store, as read.

    Attributes:
        name: How reports name it: its id (and a subgraph's namespace after a slash).
        layout: The layout its result is reported as (`STORE_KINDS`).
        dialect: The dialect its messages are checked as.
        messages: Its history as patchcore reads it, when there is one to check.
        error: Why it cannot be checked (an error of this input), if so.
        skipped: Why it is passed over (no history), if it is.
        skipped_as: What the summary counts it as when it is passed over (``no message
            history``, or a kind of its own, such as a run that never got to its first step).
        waiting: Why it is left as it is though a call is open (it waits for a human), if so.
        reruns: What resuming it as it is would run again (a LangGraph thread whose tool
            step did not finish), a warning of its check, if so.
        check: patchcore's check of ``messages`` (``check_messages`` or
            ``check_base_messages``).
        fix: patchcore's repair of ``messages``.
        shown: One message as a line of ``fix --diff``.
        writer: Records a repaired history in the store (``write``).
        appended: The store can only add messages at the end: a repair's new messages go
            there, and what is left is checked on that list.
        last_update: When the agent last wrote the thread, by the store's own clock (seconds
            since the epoch), for a store of an agent that may still be running it: a thread
            written since `patchcore.Options.live_since` is live (`evaluate`).
    """

    name: str
    layout: str
    dialect: str
    messages: list[Any] | None = None
    error: str | None = None
    skipped: str | None = None
    skipped_as: str = "no message history"
    waiting: str | None = None
    reruns: str | None = None
    check: Callable[..., list[Finding]] | None = field(default=None, repr=False)
    fix: Callable[..., Any] | None = field(default=None, repr=False)
    shown: Callable[[Any], str] = field(default=lambda m: json.dumps(m), repr=False)
    writer: Callable[[list[Any]], None] | None = field(default=None, repr=False)
    appended: bool = False
    last_update: float | None = None

    def write(self, repaired: list[Any]) -> None:
        """Record ``repaired`` (`patchcore.HistoryResult.repaired`) in the store, as one operation.

        Raises:
            StoreError: It cannot be written (it changed meanwhile, the database refused).
        """
        assert self.writer is not None, "a thread with a history to repair has a writer"
        self.writer([*repaired[len(self.messages or []) :]] if self.appended else repaired)

    def lines(self, messages: Sequence[Any]) -> bytes:
        """``messages`` as the lines ``fix --diff`` compares, one message each."""
        return "".join(self.shown(m) + "\n" for m in messages).encode()


def evaluate(thread: StoreThread, *, options: Options, fix: bool) -> HistoryResult:
    """Check ``thread`` (and with ``fix``, repair it) into a `patchcore.Result`
    (`patchcore.history_result`); a thread waiting for a human, or of a session that may still
    be running (`_still_running`) with something to repair, is reported as such, with no
    finding.

    Raises:
        patchcore.PatchcoreError: patchcore could not read its history.
    """
    assert thread.check is not None and thread.fix is not None, "a thread read has both"
    return history_result(
        thread.messages or [],
        check=thread.check,
        fix=thread.fix,
        options=options,
        fixing=fix,
        layout=thread.layout,
        dialect=thread.dialect,
        appended=thread.appended,
        waiting=thread.waiting,
        live=_still_running(thread, options),
        reruns=thread.reruns,
    )


#: Why a thread of a live session with something to repair is left as it is.
STILL_RUNNING = (
    "the session may still be running (its store was written {ago}): a tool may still be "
    "running and write its own result, so it is left as it is; once the agent has stopped, "
    "fix --force answers it (docs/stores.md#sessions-that-may-still-be-running)"
)


def _still_running(thread: StoreThread, options: Options) -> str | None:
    """Why ``thread`` may belong to an agent that is still running, when it does: the store
    wrote it at or after ``options.live_since`` (by `patchcore`'s one judgement of a live
    session, `patchcore.layouts.sessions.layout.is_live`); ``None`` otherwise, and for a store
    that keeps no such time."""
    from patchcore.layouts.sessions.layout import is_live

    if thread.last_update is None or not is_live(thread.last_update, options):
        return None
    seconds = max(0, round(time.time() - thread.last_update))
    ago = f"{seconds // 60} minutes ago" if seconds >= 120 else f"{seconds} seconds ago"
    return STILL_RUNNING.format(ago=ago)


def open_store(
    url: str,
    *,
    write: bool,
    only: Sequence[str] = (),
    answer_waiting: bool = False,
    max_record: int = MAX_RECORD_BYTES,
) -> AbstractContextManager[Iterator[StoreThread]]:
    """The threads of the store ``url`` (only ``only``, when given), each read as it is
    reached, opened for writing only with ``write``; with ``answer_waiting``, a thread waiting
    for a human is read as any other (its open calls are repaired). A thread that the database
    says takes more than ``max_record`` bytes (the record-size limit) is not loaded: it is that
    thread's error, and the next thread is read.

    Raises:
        StoreError: The store cannot be opened or read, or does not hold a thread of ``only``.
        patchcore.extras.MissingExtra: The store's extra is not installed.
    """
    if url.startswith("agents+"):
        from . import agents

        return agents.store_threads(url, write=write, only=only, max_record=max_record)
    if url.startswith("opencode+files://"):
        from .opencode_files import store_threads as opencode_files_threads

        return opencode_files_threads(url, write=write, only=only, max_record=max_record)
    if url.startswith("opencode+"):
        from .opencode_store import store_threads as opencode_threads

        return opencode_threads(url, write=write, only=only, max_record=max_record)
    if url.startswith("goose+"):
        from .goose_store import store_threads as goose_threads

        return goose_threads(url, write=write, only=only, max_record=max_record)
    if url.startswith("langgraph+"):
        from . import langgraph

        return langgraph.store_threads(
            url, write=write, only=only, answer_waiting=answer_waiting, max_record=max_record
        )
    msg = (
        "not a store URL: langgraph+sqlite://, langgraph+postgresql://, agents+sqlite://, "
        "opencode+sqlite://, opencode+files:// or goose+sqlite://"
    )
    raise StoreError(msg)


def in_dialect(call: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``call`` (a patchcore function of messages) reading them as the dialect ``name`` (the
    store's own), unless the options force another."""

    def with_dialect(messages: list[Any], *, options: Options) -> Any:
        if options.dialect is None:
            from patchcore.dialects import dialect_named

            options = replace(options, dialect=dialect_named(name))
        return call(messages, options=options)

    return with_dialect
