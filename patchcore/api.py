"""The public functions: check or fix bytes (a whole document, a batch of lines, a stream) or
in-memory values (parsed data, a list of messages).

Every function takes its options one way: ``options``, an `Options` built once with
`make_options` (rule selectors, synthetic texts, a forced dialect, unsafe fixes, a session
that may still be running, lines that are not JSON kept as they are), or ``None`` for the
defaults. Bytes give a `Result`; values give the findings (a check) or a `Repair` (a fix).
None of them mutates its input or touches the file system: a caller that reads files hands
their bytes (or a `RandomAccess` view of them, to `Stream`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from patchcore.options import Options

if TYPE_CHECKING:
    from patchcore.dialects import Dialect
    from patchcore.layouts.base import Layout
    from patchcore.model import Finding
    from patchcore.result import Result

T = TypeVar("T")

_DEFAULTS = Options()


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
        """Whether anything was changed."""
        return bool(self.fixed)


def _as_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def check_document(
    data: bytes | str, *, filename: str | None = None, options: Options | None = None
) -> Result:
    """Find defects in a JSON or JSON Lines document (any layout: `patchcore.layouts`).

    Args:
        data: The document's bytes (or text).
        filename: Its name, used only to recognise ``.jsonl`` framing.
        options: What to check (`make_options`); ``None``: the defaults.

    Returns:
        A `Result` with every conversation found and the findings, located by line.

    Raises:
        DecodeError: Not readable JSON / JSON Lines.
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.

    Example:
        >>> result = check_document(b'[{"role": "assistant", "tool_calls": [{"id": "c1", '
        ...     b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]')
        >>> [f.code for f in result.findings]
        ['TP002']
    """
    from patchcore.pipeline import run

    return run(_as_bytes(data), filename=filename, options=options or _DEFAULTS, fix=False)


def fix_document(
    data: bytes | str, *, filename: str | None = None, options: Options | None = None
) -> Result:
    """Repair a JSON or JSON Lines document by splicing its fixes into its bytes.

    Returns:
        A `Result`; ``result.output`` holds the repaired bytes, or is ``None`` when nothing
        needed fixing (then the input must be left untouched).

    Raises:
        DecodeError, NoHistoryError, ShapeError: as `check_document`.
        SelfCheckError: The repaired output failed the stability check (a bug).
    """
    from patchcore.pipeline import run

    return run(_as_bytes(data), filename=filename, options=options or _DEFAULTS, fix=True)


def strip_document(
    data: bytes | str, *, filename: str | None = None, options: Options | None = None
) -> Result:
    """Remove the results toolpatch wrote from a JSON or JSON Lines document (``toolpatch
    strip``): each result that is the synthetic result a TP0xx fix writes for its call, with
    the default text or the one ``options`` configures, and the format's error flag; and the
    text TP307's fix wrote into an empty Anthropic error result.

    What `fix_document` inserted, this removes byte for byte (the history as it was before
    the fix), in agent session logs too. ``options``' rule selection is not used.

    Returns:
        A `Result`: its findings are the results found (each with the fix that removes it),
        ``output`` the stripped bytes, or ``None`` when there was none.

    Raises:
        DecodeError, NoHistoryError, ShapeError, SelfCheckError: as `fix_document`.

    Example:
        >>> fixed = fix_document(b'[{"role": "assistant", "tool_calls": [{"id": "c1", '
        ...     b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]').output
        >>> len(fixed) > len(strip_document(fixed).output)  # the tool message is gone
        True
    """
    from dataclasses import replace

    from patchcore.pipeline import run

    stripping = replace(options or _DEFAULTS, strip=True)
    return run(_as_bytes(data), filename=filename, options=stripping, fix=True)


def check_lines(data: bytes, *, options: Options | None = None, first_line: int = 1) -> Result:
    """Find defects in whole lines of a JSON Lines corpus that holds one conversation per line:
    the unit a distributed engine maps over (a partition, a block cut at line breaks).

    Lines are numbered from ``first_line``; blank lines are kept. Whether an input's lines can
    be cut so, `layout_of_head` tells (a file of one message per line, or an agent session, is
    one conversation across its lines and goes to `check_document` whole).

    Raises:
        DecodeError, ShapeError: as `check_document`, for the first line that has one.

    Example:
        >>> lines = b'{"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", ' \\
        ...     b'"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}\\n'
        >>> [(f.code, f.line) for f in check_lines(lines).findings]
        [('TP002', 1)]
    """
    from patchcore.layouts.records import CONVERSATION_LINES

    return CONVERSATION_LINES.process_batch(
        data, first_line=first_line, options=options or _DEFAULTS, fix=False
    )


def fix_lines(data: bytes, *, options: Options | None = None, first_line: int = 1) -> Result:
    """Repair whole lines of a one-conversation-per-line JSON Lines corpus (see `check_lines`).

    Returns:
        A `Result` whose ``patches`` hold the repair (byte ranges of ``data`` and their new
        bytes); `apply_patches` gives the repaired lines.

    Raises:
        DecodeError, ShapeError: as `check_document`.
        SelfCheckError: A repaired line failed the stability check (a bug).
    """
    from patchcore.layouts.records import CONVERSATION_LINES

    return CONVERSATION_LINES.process_batch(
        data, first_line=first_line, options=options or _DEFAULTS, fix=True
    )


def layout_of_head(head: bytes, *, options: Options | None = None) -> Layout | None:
    """The layout of an input that starts with ``head`` (its first line and the start of the
    next), or ``None`` when only the whole input tells (a JSON document). ``layout.batches``
    says whether its lines may be cut into batches for `check_lines` / `fix_lines`.
    """
    from patchcore.pipeline import layout_of_head as decided

    return decided(head, options=options or _DEFAULTS)


def load_engine() -> None:
    """Import the whole engine now (the dialect adapters, pairing, splicing), which a run
    otherwise imports on the first record that needs it: a process about to fork workers
    calls it so that they start with it loaded."""
    import patchcore.engine.check
    import patchcore.raw.splice  # noqa: F401


def apply_patches(data: bytes, patches: Sequence[tuple[int, int, bytes]]) -> bytes:
    """``data`` with ``patches`` (a `Result`'s) applied: every other byte as it was."""
    from patchcore.raw.splice import apply_patches as apply

    return apply(data, patches)


def repair_patches(data: bytes, result: Result) -> list[tuple[int, int, bytes]]:
    """The repair in ``result`` (of `fix_document` of ``data``) as patches of ``data`` itself,
    its byte-order mark included: a record layout's own patches, moved past the mark, or for a
    layout that writes line by line (its one patch is the whole body), the hunks between the
    input and its output. What changes can then be shown without comparing the whole input
    with its repair.
    """
    if result.output is None:
        return []
    from patchcore.raw.codec import UTF8_BOM

    shift = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    rewritten = [(0, len(data) - shift)] == [(start, end) for start, end, _ in result.patches]
    if result.patches and not rewritten:
        return [(start + shift, end + shift, new) for start, end, new in result.patches]
    from patchcore.raw.hunks import hunks

    return [patch for patch, _ in hunks(data, result.output)]


def _data_findings(value: Any, options: Options, *, fixing: bool) -> list[Finding]:
    from patchcore.engine.locate import find_message_lists
    from patchcore.errors import NoHistoryError
    from patchcore.layouts.base import dialects_for
    from patchcore.layouts.records import check_lists

    found = find_message_lists(value, dialects=dialects_for(options))
    if not found:
        msg = "no message history found (no list of chat messages in a known format)"
        raise NoHistoryError(msg)
    return [f for _, findings in check_lists(found, options, fixing=fixing) for f in findings]


def _repaired(value: T, findings: list[Finding], options: Options) -> Repair[T]:
    from patchcore.engine.apply import apply_edits
    from patchcore.layouts.base import applied, unique_edits

    fixed = tuple(applied(findings, options))
    repaired = apply_edits(value, unique_edits(fixed)) if fixed else value
    return Repair(repaired, tuple(findings), fixed)


def check_data(value: Any, *, options: Options | None = None) -> list[Finding]:
    """Find defects in parsed JSON data (a history, a thread state, a list of runs, ...).

    Raises:
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    return _data_findings(value, options or _DEFAULTS, fixing=False)


def fix_data(value: T, *, options: Options | None = None) -> Repair[T]:
    """Repair parsed JSON data; the input is not mutated (changed containers are copied).

    Raises:
        NoHistoryError: No message list in it.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    options = options or _DEFAULTS
    return _repaired(value, _data_findings(value, options, fixing=True), options)


def dialect_of(messages: Sequence[Any], options: Options) -> Dialect:
    """The dialect of one message list (the one ``options`` forces, or the one detected).

    Raises:
        NoHistoryError: The list is not made of messages of one dialect, or its dialect says
            it must not be checked (a LangGraph update stream).
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    from patchcore.engine.locate import classify
    from patchcore.errors import NoHistoryError
    from patchcore.layouts.base import dialects_for

    listed = classify(list(messages), dialects_for(options))
    if listed is None or listed.dialect is None:
        note = listed.note if listed is not None else None
        msg = f"not a message list: {note}" if note else "not a list of chat messages"
        raise NoHistoryError(msg)
    if listed.note is not None:
        raise NoHistoryError(listed.note)
    return listed.dialect


def _message_list_findings(
    messages: Sequence[Any], options: Options, *, fixing: bool
) -> list[Finding]:
    from patchcore.dialects.base import ListContext
    from patchcore.engine.check import check_list

    return check_list(
        list(messages),
        dialect=dialect_of(messages, options),
        context=ListContext(()),
        options=options,
        plan_unsafe=options.unsafe_fixes or not fixing,
    )


def check_messages(
    messages: Sequence[Mapping[str, Any]], *, options: Options | None = None
) -> list[Finding]:
    """Find defects in one list of message dicts (any supported dialect).

    An empty list has no defects.

    Raises:
        NoHistoryError: The list is not made of messages of one dialect.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    if not messages:
        return []
    return _message_list_findings(messages, options or _DEFAULTS, fixing=False)


def fix_messages(
    messages: Sequence[Mapping[str, Any]], *, options: Options | None = None
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
        ('call_1', 'Tool call get_weather with id call_1 has')

    Raises:
        NoHistoryError: The list is not made of messages of one dialect.
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    if not messages:
        return Repair(list(messages), (), ())
    options = options or _DEFAULTS
    return _repaired(
        list(messages), _message_list_findings(messages, options, fixing=True), options
    )
