"""The guard for context trimmers: the nearest cut of a history that keeps what belongs together,
and the judgement of what a cut broke (docs/trimming.md).

A trimmer (a summarizer, a sliding window, a compaction step) keeps some messages of a history
and drops the others, usually by position, and so leaves a result without its call or a call
without its result. Which messages belong together is what the engine already knows: a call and
the result that answers it (`patchcore.engine.pairing.pair`, so an approval's response and its
request too), and the messages of one model turn (`MessageView.joins_previous`: a reasoning item
and the item it leads to, the call items of one parallel batch). Those
bonds split the history into groups; a cut is safe when it keeps or drops each group whole, and
`safe_cut` chooses, group by group, whichever of the two differs least from the cut asked for.

Nothing here reads a pairing of its own: the views are the dialect's, the pairing the engine's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from patchcore.against import Against
from patchcore.options import Options

if TYPE_CHECKING:
    from patchcore.model import Finding

M = TypeVar("M")

_DEFAULTS = Options()


@dataclass(frozen=True, slots=True)
class Cut(Generic[M]):
    """The cut `safe_cut` chose.

    Attributes:
        kept: The indexes of the messages it keeps, ascending.
        messages: Those messages, in order (the objects given, not copies).
        added: The indexes asked to be dropped that it keeps, to keep a group whole.
        removed: The indexes asked to be kept that it drops, to drop a group whole.
    """

    kept: tuple[int, ...]
    messages: list[M]
    added: tuple[int, ...]
    removed: tuple[int, ...]

    @property
    def changed(self) -> bool:
        """Whether the cut differs from the one asked for."""
        return bool(self.added or self.removed)


def safe_cut(
    messages: Sequence[M],
    keep: Collection[int] | Callable[[int, M], bool],
    *,
    options: Options | None = None,
) -> Cut[M]:
    """The nearest cut of ``messages`` to ``keep`` that keeps every call with its results,
    each model turn whole (a parallel batch of calls, a reasoning item with the item it leads
    to) and an approval with its request.

    ``keep`` is the cut asked for: the indexes of the messages to keep, or a predicate given
    each index and message. The messages are message dicts of any dialect patchcore reads or
    langchain-core ``BaseMessage`` objects (the ``langchain`` extra); ``options`` may force a
    dialect (`make_options`).

    Nearest means differing from the asked cut in the fewest messages (kept where it asked to
    drop, or dropped where it asked to keep). Each group of bonded messages is kept whole when
    at most as many of its messages were asked to be dropped as were asked to be kept, and
    dropped whole otherwise; a tie keeps the group, since dropping a real result loses data a
    caller cannot get back. The cut so chosen keeps a superset of every other nearest cut's
    messages (docs/trimming.md#nearest).

    A defect the history has already (a call that no result answers) is no bond: the cut
    neither repairs it nor makes it worse.

    Raises:
        NoHistoryError: The list is not made of messages of one dialect.
        ShapeError: A tool-related field of a message has the wrong shape.
        TypeError: The list holds no message dict, and an item is not a ``BaseMessage``.
        IndexError: An index of ``keep`` is not one of the list's.

    Example:
        >>> history = [
        ...     {"role": "user", "content": "Weather?"},
        ...     {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
        ...      "function": {"name": "weather", "arguments": "{}"}}]},
        ...     {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ...     {"role": "assistant", "content": "Sunny."},
        ... ]
        >>> cut = safe_cut(history, [2, 3])  # a window that starts at the result
        >>> cut.kept, cut.added, cut.removed
        ((1, 2, 3), (1,), ())
    """
    asked = _asked(messages, keep)
    chosen: set[int] = set()
    for group in bonded_groups(messages, options=options):
        held = sum(1 for index in group if index in asked)
        if len(group) - held <= held:
            chosen.update(group)
    kept = tuple(sorted(chosen))
    return Cut(
        kept,
        [messages[index] for index in kept],
        tuple(sorted(chosen - asked)),
        tuple(sorted(asked - chosen)),
    )


def _asked(messages: Sequence[M], keep: Collection[int] | Callable[[int, M], bool]) -> set[int]:
    """The indexes the cut asked for keeps (negative indexes count from the end, as Python's)."""
    if callable(keep):
        return {index for index, message in enumerate(messages) if keep(index, message)}
    count = len(messages)
    asked = set()
    for index in keep:
        if not -count <= index < count:
            msg = f"keep: {index} is not an index of a list of {count} messages"
            raise IndexError(msg)
        asked.add(index % count)
    return asked


def bonded_groups(messages: Sequence[Any], *, options: Options | None = None) -> list[list[int]]:
    """The indexes of ``messages`` in groups that a safe cut keeps or drops whole, each group
    ascending and the groups in the order of their first message: a call's message with the
    messages of its results, each message that continues a model turn with the one before it,
    and a result without an id with every call without one that could be the one it answers
    (nothing says which, docs/pairing.md#calls-and-results-without-ids).

    Raises:
        NoHistoryError, ShapeError, TypeError: as `safe_cut`.
    """
    from patchcore.engine.pairing import may_own, pair

    views = _views(messages, options or _DEFAULTS)
    parent = list(range(len(views)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def bond(one: int, other: int) -> None:
        first, second = sorted((root(one), root(other)))
        parent[second] = first

    pairing = pair(views)
    for answer in pairing.answers:
        bond(answer.call.message_index, answer.result.message_index)
    for result in pairing.owned:
        for call in pairing.keyless:
            if may_own(call, result):
                bond(call.message_index, result.message_index)
    for index in range(1, len(views)):
        if views[index].joins_previous:
            bond(index - 1, index)
    groups: dict[int, list[int]] = {}
    for index in range(len(views)):
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())


def _views(messages: Sequence[Any], options: Options) -> list[Any]:
    """The engine's views of ``messages``, read by their dialect (LangChain's for
    ``BaseMessage`` objects)."""
    from patchcore.dialects.base import Dialect, ListContext

    if not messages:
        return []
    dialect: Dialect
    if _base_messages(messages):
        from patchcore.base_messages import LANGCHAIN, fields_of

        listed, dialect = fields_of(messages, "safe_cut"), LANGCHAIN
    else:
        from patchcore.api import dialect_of

        listed, dialect = list(messages), dialect_of(messages, options)
    return list(dialect.views(listed, ListContext(())))


def _base_messages(messages: Sequence[Any]) -> bool:
    """Whether ``messages`` are to be read as langchain-core ``BaseMessage`` objects: no item is
    a message dict (a stranger among them is then refused naming it, `fields_of`)."""
    return bool(messages) and not any(isinstance(message, Mapping) for message in messages)


def every_rule(options: Options | None) -> Options:
    """``options`` with every rule selected: how the history before a cut is checked."""
    from patchcore.rules import RuleSelection

    return replace(options or _DEFAULTS, selection=RuleSelection.build(select=["ALL"]))


def against_document(
    data: bytes | str, *, filename: str | None = None, options: Options | None = None
) -> Against:
    """What a trimmer's input, a JSON or JSON Lines document, held against its output
    (`make_options`' ``against``): its findings with every rule selected.

    Its message lists and those of the output are told apart by their JSON pointer in their
    record: a corpus of conversation lines counts the defects of all its lines together.

    Raises:
        DecodeError, NoHistoryError, ShapeError: as `check_document`.
    """
    from patchcore.api import check_document

    return Against.of(check_document(data, filename=filename, options=every_rule(options)).findings)


def broken_by(
    before: Sequence[Any], after: Sequence[Any], *, options: Options | None = None
) -> list[Finding]:
    """The findings of the history ``after`` (a trimmer's output) that its input ``before``
    did not have: a call whose result the cut dropped, a result whose call it dropped, a
    reasoning item it parted from its item. A defect ``before`` had already is not blamed;
    the same call id found wrong more often after than before is (docs/trimming.md#check-against).

    Both are lists of message dicts or of ``BaseMessage`` objects; ``options`` selects the
    rules, as `check_messages`'.

    Raises:
        NoHistoryError, ShapeError, TypeError: as `safe_cut`.
    """
    return Against.of(_findings(before, every_rule(options))).broken(_findings(after, options))


def _findings(messages: Sequence[Any], options: Options | None) -> list[Finding]:
    """The findings of a list of message dicts or of ``BaseMessage`` objects."""
    if _base_messages(messages):
        from patchcore.base_messages import check_base_messages

        return check_base_messages(messages, options=options)
    from patchcore.api import check_messages

    return check_messages(messages, options=options)
