"""Stores named by URL among the PATHs: each thread of a LangGraph checkpointer
(``langgraph+sqlite:///x.sqlite``, ``langgraph+postgresql://…``), each session of an OpenAI
Agents SDK ``SQLiteSession`` database (``agents+sqlite:///x.db``), of opencode's database
(``opencode+sqlite:///opencode.db``) or of Goose's (``goose+sqlite:///sessions.db``) becomes
one input of the run, named by its thread (session) id, with an `Outcome` the reports take as
they take a file's.

The stores are read, checked and written by `toolpatch.integrations.stores` (with the
``langgraph`` and ``agents`` extras); this module only names their threads and turns each into
an outcome. Naming a store without its extra is an input error that says what to install. See
docs/stores.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from patchcore import MissingExtra

from .input_errors import InputError
from .input_run import Mode, Outcome
from .inputs import Source

if TYPE_CHECKING:
    from patchcore import Options
    from toolpatch.integrations.stores import StoreThread


def is_store_url(given: str) -> bool:
    """Whether a PATH argument names a store (``langgraph+…://``, ``agents+…://``)."""
    if "://" not in given:
        return False
    from toolpatch.integrations.stores import STORE_KINDS

    return given.startswith(tuple(STORE_KINDS))


#: How a SQLite database file starts (its header string).
SQLITE_HEADER = b"SQLite format 3\x00"


def database_hint(outcome: Outcome) -> Outcome:
    """``outcome``, whose input could not be read, saying so plainly when the input is a SQLite
    database (a checkpointer or session database named as a file) and which URL names it."""
    source = outcome.source
    if outcome.error is None or source.is_stdin or source.path is None:
        return outcome
    try:
        if not source.path.is_file():  # a FIFO opened again would wait for a writer forever
            return outcome
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
        f"agents+sqlite:{slashes}{path}, opencode's as opencode+sqlite:{slashes}{path}, "
        f"Goose's as goose+sqlite:{slashes}{path} (docs/stores.md)"
    )
    outcome.error = InputError(outcome.error.file, message)
    return outcome


def split_paths(paths: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """The PATH arguments that are files (or ``-``) and the store URLs among them; a folder
    that is opencode's storage (by what it holds) is named by its store URL
    (`toolpatch.integrations.opencode_files`)."""
    from toolpatch.integrations.opencode_files import is_storage, storage_url

    given = [storage_url(p) if os.path.isdir(p) and is_storage(Path(p)) else p for p in paths or []]
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
    from toolpatch.integrations.stores import StoreError, open_store, redacted, without_secrets

    shown = redacted(url)
    try:
        with open_store(
            url,
            write=mode is Mode.FIX,
            only=threads,
            answer_waiting=answer_waiting,
            max_record=options.max_record_bytes,
        ) as found:
            for thread in found:
                yield _outcome(thread, shown, mode, options)
    except MissingExtra as exc:
        yield Outcome(Source(shown, None), error=InputError.of(shown, exc))
    except StoreError as exc:
        error = InputError(shown, without_secrets(str(exc), url))
        yield Outcome(Source(shown, None), error=error)


def _outcome(thread: StoreThread, store: str, mode: Mode, options: Options) -> Outcome:
    """What became of one thread of the store ``store`` (its URL as shown): its error, why it
    was passed over, or its result (with the diff of ``fix --diff``, and the repair written by
    ``fix``). It is named by the store's URL, ``#`` and its id."""
    import patchcore
    from toolpatch.integrations.stores import StoreError, evaluate

    name = f"{store}#{thread.name}"
    outcome = Outcome(Source(name, None, thread=thread.name))
    if thread.error is not None:
        outcome.error = InputError(name, thread.error)
        return outcome
    if thread.skipped is not None:
        outcome.skipped, outcome.skipped_as = thread.skipped, thread.skipped_as
        return outcome
    try:
        evaluation = evaluate(thread, options=options, fix=mode.fixes)
        outcome.result = evaluation.result
        if evaluation.repaired is None:
            return outcome
        if mode is Mode.FIX_DIFF:
            from .diff_view import unified_diff

            before = thread.lines(thread.messages or [])
            after = thread.lines(evaluation.repaired)
            outcome.diff = unified_diff(before, after, name=name)
        elif mode is Mode.FIX:
            thread.write(evaluation.repaired)
    except (StoreError, patchcore.PatchcoreError) as exc:
        outcome.error = InputError.of(name, exc)
    return outcome
