"""The public functions: check or fix a document (bytes), parsed data, or a list of messages.

Every function takes keyword-only options:

* ``select`` / ``ignore``: rule selectors (codes, prefixes such as ``"TP0"``, or ``"ALL"``);
  the default is the TP0xx rules;
* ``texts``: templates of the synthetic results by rule code (``{name}`` and ``{id}`` are
  substituted literally);
* ``dialect``: force one dialect by name instead of detecting it per message list;
* ``unsafe_fixes`` (fix functions): also apply fixes that delete or move existing content
  (the TP1xx rules'); without it a fix only ever adds.

None of them mutates its input or touches the file system.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from patchcore.dialects.base import ListContext
from patchcore.document import (
    RecordsResult,
    Report,
    check_lists,
    dialects_for,
    run,
    unique_edits,
)
from patchcore.engine.apply import apply_edits
from patchcore.engine.check import check_list
from patchcore.engine.locate import classify, find_message_lists
from patchcore.errors import NoHistoryError
from patchcore.model import Finding
from patchcore.options import Options, make_options
from patchcore.stream import Batch, process_batch

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Repair(Generic[T]):
    """The outcome of fixing in-memory data.

    Attributes:
        value: The repaired value: a new object when ``changed``, else equal to the input.
        findings: Every selected finding of the input, before the fix.
        fixed: The findings the fix resolved.
    """

    value: T
    findings: tuple[Finding, ...]
    fixed: tuple[Finding, ...]

    @property
    def changed(self) -> bool:
        """Whether anything was inserted."""
        return bool(self.fixed)


def _as_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def check_document(
    data: bytes | str,
    *,
    filename: str | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    dialect: str | None = None,
) -> Report:
    """Find defects in a JSON or JSON Lines document.

    Args:
        data: The document's bytes (or text).
        filename: Its name, used only to recognise ``.jsonl`` framing.
        select: Rule selectors to report.
        ignore: Rule selectors to leave out.
        dialect: Force a dialect.

    Returns:
        A `Report` with every message list found and the findings, located by line.

    Raises:
        DecodeError: Not readable JSON / JSON Lines.
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.

    Example:
        >>> report = check_document(b'[{"role": "assistant", "tool_calls": [{"id": "c1", '
        ...     b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]')
        >>> [f.code for f in report.findings]
        ['TP002']
    """
    options = make_options(select=select, ignore=ignore, dialect=dialect)
    return run(_as_bytes(data), filename=filename, options=options, fix=False)


def fix_document(
    data: bytes | str,
    *,
    filename: str | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    texts: Mapping[str, str] | None = None,
    dialect: str | None = None,
    unsafe_fixes: bool = False,
) -> Report:
    """Repair a JSON or JSON Lines document by splicing its fixes into its bytes.

    Returns:
        A `Report`; ``report.output`` holds the repaired bytes, or is ``None`` when nothing
        needed fixing (then the input must be left untouched).

    Raises:
        DecodeError, NoHistoryError, ShapeError: as `check_document`.
        SelfCheckError: The repaired output failed the stability check (a bug).
    """
    options = make_options(
        select=select, ignore=ignore, texts=texts, dialect=dialect, unsafe_fixes=unsafe_fixes
    )
    return run(_as_bytes(data), filename=filename, options=options, fix=True)


def check_lines(data: bytes, *, options: Options, first_line: int = 1) -> RecordsResult:
    """Find defects in whole lines of a JSON Lines corpus that holds one conversation per line:
    the unit a distributed engine maps over (a partition, a block cut at line breaks).

    Build ``options`` once with `make_options`. Lines are numbered from ``first_line``; blank
    lines are kept. A corpus with one *message* per line is one conversation across its lines
    and must go to `check_document` whole (`patchcore.stream.independent_lines` tells which).

    Raises:
        DecodeError, ShapeError: as `check_document`, for the first line that has one.

    Example:
        >>> lines = b'{"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", ' \\
        ...     b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}\\n'
        >>> [(f.code, f.line) for f in check_lines(lines, options=make_options()).findings]
        [('TP002', 1)]
    """
    return process_batch(Batch.of(data, first_line), options=options, fix=False)


def fix_lines(data: bytes, *, options: Options, first_line: int = 1) -> RecordsResult:
    """Repair whole lines of a one-conversation-per-line JSON Lines corpus (see `check_lines`).

    Returns:
        ``patches`` hold the repair (byte ranges of ``data`` and their new bytes);
        ``output(data)`` is the lines with the repaired ones spliced in (every other byte as it
        was), or ``None`` when nothing needed fixing.

    Raises:
        DecodeError, ShapeError: as `check_document`.
        SelfCheckError: A repaired line failed the stability check (a bug).
    """
    return process_batch(Batch.of(data, first_line), options=options, fix=True)


def _data_findings(value: Any, options: Options, *, fixing: bool) -> list[Finding]:
    found = find_message_lists(value, dialects=dialects_for(options))
    if not found:
        msg = "no message history found (no list of chat messages in a known format)"
        raise NoHistoryError(msg)
    return check_lists(found, options, fixing=fixing)


def _repaired(value: T, findings: list[Finding], options: Options) -> Repair[T]:
    fixed = tuple(f for f in findings if options.applies(f.fix))
    repaired = apply_edits(value, unique_edits(fixed)) if fixed else value
    return Repair(repaired, tuple(findings), fixed)


def check_data(
    value: Any,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    dialect: str | None = None,
) -> list[Finding]:
    """Find defects in parsed JSON data (a history, a thread state, a list of runs, ...).

    Raises:
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    options = make_options(select=select, ignore=ignore, dialect=dialect)
    return _data_findings(value, options, fixing=False)


def fix_data(
    value: T,
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    texts: Mapping[str, str] | None = None,
    dialect: str | None = None,
    unsafe_fixes: bool = False,
) -> Repair[T]:
    """Repair parsed JSON data; the input is not mutated (changed containers are copied).

    Raises:
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    options = make_options(
        select=select, ignore=ignore, texts=texts, dialect=dialect, unsafe_fixes=unsafe_fixes
    )
    return _repaired(value, _data_findings(value, options, fixing=True), options)


def _message_list_findings(
    messages: Sequence[Any], options: Options, *, fixing: bool
) -> list[Finding]:
    listed = classify(list(messages), dialects_for(options))
    if listed is None or listed.dialect is None:
        note = listed.note if listed is not None else None
        msg = f"not a message list: {note}" if note else "not a list of chat messages"
        raise NoHistoryError(msg)
    if listed.note is not None:
        raise NoHistoryError(listed.note)
    return check_list(
        list(messages),
        dialect=listed.dialect,
        context=ListContext(()),
        options=options,
        plan_unsafe=options.unsafe_fixes or not fixing,
    )


def check_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    dialect: str | None = None,
) -> list[Finding]:
    """Find defects in one list of message dicts (any supported dialect).

    An empty list has no defects.

    Raises:
        NoHistoryError: The list is not made of messages of one dialect.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    if not messages:
        return []
    options = make_options(select=select, ignore=ignore, dialect=dialect)
    return _message_list_findings(messages, options, fixing=False)


def fix_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    texts: Mapping[str, str] | None = None,
    dialect: str | None = None,
    unsafe_fixes: bool = False,
) -> Repair[list[Any]]:
    """Repair one list of message dicts; returns a new list, the input is not mutated.

    Example:
        >>> history = [
        ...     {"role": "user", "content": "Weather?"},
        ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1",
        ...      "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        ...     {"role": "user", "content": "Never mind."},
        ... ]
        >>> repair = fix_messages(history)
        >>> repair.value[2]["tool_call_id"], repair.value[2]["content"][:40]
        ('call_1', 'Tool call get_weather with id call_1 was')

    Raises:
        NoHistoryError: The list is not made of messages of one dialect.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    if not messages:
        return Repair(list(messages), (), ())
    options = make_options(
        select=select, ignore=ignore, texts=texts, dialect=dialect, unsafe_fixes=unsafe_fixes
    )
    findings = _message_list_findings(messages, options, fixing=True)
    return _repaired(list(messages), findings, options)
