"""Stores named by URL among the PATHs: each thread of a LangGraph checkpointer
(``langgraph+sqlite:///x.sqlite``, ``langgraph+postgresql://…``) or each session of an OpenAI
Agents SDK ``SQLiteSession`` database (``agents+sqlite:///x.db``) becomes one input of the run,
named by its thread (session) id, with an `Outcome` the reports take as they take a file's.

The stores themselves are read and written by `toolpatch.integrations.langgraph` and
`toolpatch.integrations.agents` (the ``langgraph`` and ``agents`` extras); naming a store without
its extra is an input error that says what to install. See docs/stores.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from patchcore.extras import MissingExtra

from .input_errors import InputError
from .input_run import Mode, Outcome
from .inputs import Source

if TYPE_CHECKING:
    from patchcore import Finding, Options, Result

#: How a store URL starts, and the layout its threads are reported as.
STORE_KINDS = {"langgraph+": "langgraph-checkpoint", "agents+": "agents-session"}


def is_store_url(given: str) -> bool:
    """Whether a PATH argument names a store (``langgraph+…://``, ``agents+…://``)."""
    return "://" in given and given.startswith(tuple(STORE_KINDS))


#: How a SQLite database file starts (its header string).
SQLITE_HEADER = b"SQLite format 3\x00"


def database_hint(outcome: Outcome) -> Outcome:
    """``outcome``, whose input could not be read, saying so plainly when the input is a SQLite
    database (a checkpointer or session database named as a file) and which URL names it."""
    source = outcome.source
    if outcome.error is None or source.is_stdin or source.path is None:
        return outcome
    try:
        with open(source.path, "rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError:
        return outcome
    if head != SQLITE_HEADER:
        return outcome
    path = str(source.path)
    slashes = "///" if not path.startswith("/") else "//"
    message = (
        "a SQLite database, not a history file: name a LangGraph checkpointer's as "
        f"langgraph+sqlite:{slashes}{path}, an Agents SDK session database as "
        f"agents+sqlite:{slashes}{path} (docs/stores.md)"
    )
    outcome.error = InputError(outcome.error.file, message)
    return outcome


def split_paths(paths: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """The PATH arguments that are files (or ``-``) and the store URLs among them."""
    given = list(paths or [])
    return [p for p in given if not is_store_url(p)], [p for p in given if is_store_url(p)]


def store_outcomes(
    url: str,
    *,
    threads: Sequence[str],
    mode: Mode,
    options: Options,
    answer_waiting: bool = False,
) -> Iterator[Outcome]:
    """One outcome per thread of the store ``url`` (only ``threads``, when given), after
    carrying out ``mode`` on it; a store that cannot be opened or read is one outcome with its
    error, named by the URL without its secrets. A thread with nothing to repair is never
    written, nor one waiting for a human unless ``answer_waiting``."""
    from toolpatch.integrations.store_files import StoreError, redacted

    try:
        if url.startswith("agents+"):
            yield from _agents_outcomes(url, threads=threads, mode=mode, options=options)
        else:
            yield from _langgraph_outcomes(
                url, threads=threads, mode=mode, options=options, answer_waiting=answer_waiting
            )
    except MissingExtra as exc:
        yield Outcome(Source(redacted(url), None), error=InputError.of(redacted(url), exc))
    except StoreError as exc:
        yield _store_error(url, exc)


def _store_error(url: str, exc: Exception) -> Outcome:
    from toolpatch.integrations.store_files import redacted, without_secrets

    shown = redacted(url)
    return Outcome(Source(shown, None), error=InputError(shown, without_secrets(str(exc), url)))


#: What check says of a thread waiting for a human (docs/stores.md#waiting-and-stuck-threads).
WAITING = (
    "waiting for a human: a task of its latest step asked for input (LangGraph's interrupt()), "
    "so its open calls are answered when the human resumes it; not stuck, left as it is "
    "(fix --force --thread ID answers them for an approval that was abandoned)"
)


def _langgraph_outcomes(
    url: str, *, threads: Sequence[str], mode: Mode, options: Options, answer_waiting: bool
) -> Iterator[Outcome]:
    import patchcore
    from toolpatch.integrations.langgraph import DELTA, CheckpointStore, StoreError

    with CheckpointStore(url, write=mode is Mode.FIX) as store:
        for thread in store.threads(threads):  # read one at a time
            outcome = Outcome(Source(thread.label, None))
            if thread.delta:
                outcome.error = InputError(thread.label, DELTA)
                yield outcome
                continue
            if thread.unloadable is not None:
                outcome.error = InputError(thread.label, thread.unloadable)
                yield outcome
                continue
            if thread.messages is None:
                outcome.skipped = "no messages channel in its latest checkpoint"
                yield outcome
                continue
            if thread.waiting and not answer_waiting:
                outcome.result = _waiting(len(thread.messages))
                yield outcome
                continue
            messages = thread.messages

            def write(repaired: list[Any], thread: Any = thread) -> None:
                store.write_messages(thread, repaired)

            try:
                _carry_out(
                    outcome,
                    messages,
                    mode,
                    options,
                    check=patchcore.check_base_messages,
                    fix=patchcore.fix_base_messages,
                    shown=_message_line,
                    write=write,
                    layout=STORE_KINDS["langgraph+"],
                    dialect="langchain",
                )
            except (StoreError, patchcore.PatchcoreError) as exc:
                outcome.error = InputError.of(thread.label, exc)
            yield outcome


def _waiting(size: int) -> Result:
    """The result of a thread waiting for a human: no finding, and a note saying why."""
    from patchcore import Conversation, Result

    listed = Conversation(
        pointer="", line=None, dialect="langchain", messages=size, note=WAITING, warning=True
    )
    return Result(layout=STORE_KINDS["langgraph+"], conversations=(listed,), findings=())


def _agents_outcomes(
    url: str, *, threads: Sequence[str], mode: Mode, options: Options
) -> Iterator[Outcome]:
    from dataclasses import replace

    from toolpatch.integrations.agents import SessionStore

    if options.dialect is None:  # the SDK's items are Responses API input items
        from patchcore.dialects import dialect_named

        options = replace(options, dialect=dialect_named("openai-responses"))
    with SessionStore(url, write=mode is Mode.FIX) as store:
        yield from _session_outcomes(store.sessions(threads), mode=mode, options=options)


def _session_outcomes(
    sessions: Sequence[Any], *, mode: Mode, options: Options
) -> Iterator[Outcome]:
    import patchcore
    from toolpatch.integrations.agents import StoreError

    for session in sessions:
        outcome = Outcome(Source(session.session_id, None))
        try:
            items = session.items()
        except StoreError as exc:
            outcome.error = InputError.of(session.session_id, exc)
            yield outcome
            continue

        def write(repaired: list[Any], session: Any = session, items: Any = items) -> None:
            session.append(_appended(repaired, items))

        try:
            _carry_out(
                outcome,
                items,
                mode,
                options,
                check=patchcore.check_messages,
                fix=patchcore.fix_messages,
                shown=lambda item: json.dumps(item, ensure_ascii=False),
                write=write,
                layout=STORE_KINDS["agents+"],
                dialect="openai-responses",
                appended=True,
            )
        except (StoreError, patchcore.PatchcoreError) as exc:
            outcome.error = InputError.of(session.session_id, exc)
        yield outcome


def _carry_out(
    outcome: Outcome,
    messages: list[Any],
    mode: Mode,
    options: Options,
    *,
    check: Callable[..., list[Finding]],
    fix: Callable[..., Any],
    shown: Callable[[Any], str],
    write: Callable[[list[Any]], None],
    layout: str,
    dialect: str,
    appended: bool = False,
) -> None:
    """Check (and with a fix mode, repair) one thread's messages into ``outcome``: its result,
    the diff of ``fix --diff``, and with ``fix`` the repair written by ``write`` (only when
    something was fixed). With ``appended``, the store can only add messages at the end: the
    repair's new messages are placed there, and what is left is checked on that list."""
    if not mode.fixes:
        findings = check(messages, options=options)
        outcome.result = _result(layout, dialect, len(messages), findings, (), findings)
        return
    repair = fix(messages, options=options)
    repaired = list(repair.value)
    if appended:
        repaired = [*messages, *_appended(repaired, messages)]
    remaining = check(repaired, options=options) if repair.fixed else list(repair.findings)
    outcome.result = _result(
        layout, dialect, len(messages), repair.findings, repair.fixed, remaining
    )
    if not repair.fixed:
        return
    if mode is Mode.FIX_DIFF:
        from .diff_view import unified_diff

        before = "".join(shown(m) + "\n" for m in messages).encode()
        after = "".join(shown(m) + "\n" for m in repaired).encode()
        outcome.diff = unified_diff(before, after, name=outcome.source.name)
    elif mode is Mode.FIX:
        write(repaired)


def _result(
    layout: str,
    dialect: str,
    size: int,
    findings: Sequence[Finding],
    fixed: Sequence[Finding],
    remaining: Sequence[Finding],
) -> Result:
    from patchcore import Conversation, Result

    listed = Conversation(
        pointer="", line=None, dialect=dialect, messages=size, note=None, findings=tuple(findings)
    )
    return Result(
        layout=layout,
        conversations=(listed,),
        findings=tuple(findings),
        fixed=tuple(fixed),
        remaining=tuple(remaining),
    )


def _appended(repaired: Sequence[Any], original: Sequence[Any]) -> list[Any]:
    """The messages of ``repaired`` that are not in ``original`` (the repair's new ones), in
    order; ``original``'s own are the same objects or equal values."""
    kept = list(original)
    new = []
    for message in repaired:
        if kept and (message is kept[0] or message == kept[0]):
            kept.pop(0)
        else:
            new.append(message)
    return new


def _message_line(message: Any) -> str:
    """One LangChain message as a JSON line (``messages_to_dict``'s shape) for the diff."""
    from langchain_core.messages import message_to_dict

    return json.dumps(message_to_dict(message), ensure_ascii=False, default=str)
