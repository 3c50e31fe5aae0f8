"""Check and fix lists of langchain-core ``BaseMessage`` objects.

This is the in-process counterpart of deepagents' ``PatchToolCallsMiddleware``: the same calls
are answered, with ``ToolMessage`` objects built by langchain-core, but pairing follows
docs/pairing.md (nearest earlier unanswered call) and placement puts synthetic results after the
call's existing results. Messages are read through their attributes (LangChain has already
applied its own parsing: ``additional_kwargs`` fallbacks, chunk merging), never re-serialised,
and never mutated.

Importing this module imports langchain-core (the ``langchain`` extra); ``patchcore`` itself
does not, and without the extra the import says what to install (`patchcore.extras`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from patchcore.extras import MissingExtra

try:
    from langchain_core.messages import BaseMessage, ToolMessage
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="langchain", part="patchcore's BaseMessage API") from None

from patchcore.api import Repair
from patchcore.dialects.base import ListContext
from patchcore.dialects.langchain import LangChain
from patchcore.engine.apply import apply_edits, value_at
from patchcore.engine.check import check_list
from patchcore.layouts.base import unique_edits
from patchcore.model import ANSWERED, Edit, Finding, Insert, Replace
from patchcore.options import Options
from patchcore.raw.splice import rebased
from patchcore.rules import Origin

#: The dialect ``BaseMessage`` objects are read in, through `fields_of`.
LANGCHAIN = LangChain()

RepairCallback: TypeAlias = Callable[[Mapping[str, Any]], ToolMessage]
"""Builds the synthetic result of one unanswered call: given the call as the AI message holds
it (a ``tool_calls`` or ``invalid_tool_calls`` entry: ``name``, ``args``, ``id``, ``type``), it
returns the ``ToolMessage`` that answers it (deepagents' ``repair_callback``)."""


def _as_fields(message: BaseMessage) -> dict[str, Any]:
    """The fields the LangChain adapter reads, in its flat (``model_dump``) shape: a
    ``ToolMessage`` whole, so that the results toolpatch wrote are recognised as they are in
    files (``strip``, the TP103 fix)."""
    if isinstance(message, ToolMessage):
        return message.model_dump()
    fields: dict[str, Any] = {"type": message.type, "content": message.content, "id": message.id}
    for key in ("tool_calls", "invalid_tool_calls", "tool_call_chunks", "tool_call_id"):
        value = getattr(message, key, None)
        if value is not None:
            fields[key] = value
    if "tool_calls" in message.additional_kwargs:  # raw calls LangChain could not parse
        fields["additional_kwargs"] = {"tool_calls": message.additional_kwargs["tool_calls"]}
    return fields


def _require_base_messages(messages: Sequence[object], function: str) -> None:
    """Refuse anything but ``BaseMessage`` objects up front, naming the first stranger.

    Serialized messages (dicts) read as attributes would fail deep inside with an
    ``AttributeError`` that says nothing of the mix-up; they have their own entry point.

    Raises:
        TypeError: An item is not a ``BaseMessage``.
    """
    for index, message in enumerate(messages):
        if not isinstance(message, BaseMessage):
            hint = " (serialized messages go to patchcore.fix_messages / check_messages)"
            msg = (
                f"{function} expects a sequence of langchain-core BaseMessage objects; "
                f"item {index} is a {type(message).__name__}"
                f"{hint if isinstance(message, Mapping) else ''}"
            )
            raise TypeError(msg)


def fields_of(messages: Sequence[object], function: str) -> list[dict[str, Any]]:
    """The messages as the `LANGCHAIN` dialect reads them; ``function`` is the caller's name,
    said when an item is not a ``BaseMessage``.

    Raises:
        TypeError: An item is not a ``BaseMessage``.
    """
    _require_base_messages(messages, function)
    return [_as_fields(m) for m in messages]  # type: ignore[arg-type]  # checked just above


def _findings(messages: Sequence[BaseMessage], options: Options, *, fixing: bool) -> list[Finding]:
    return check_list(
        fields_of(messages, "fix_base_messages" if fixing else "check_base_messages"),
        dialect=LANGCHAIN,
        context=ListContext(()),
        options=options,
        plan_unsafe=options.unsafe_fixes or not fixing,
    )


def check_base_messages(
    messages: Sequence[BaseMessage], *, options: Options | None = None
) -> list[Finding]:
    """Find defects in a list of LangChain messages.

    Raises:
        TypeError: An item is not a ``BaseMessage`` (dicts: use `patchcore.check_messages`).
    """
    return _findings(messages, options or Options(), fixing=False)


def fix_base_messages(
    messages: Sequence[BaseMessage],
    *,
    options: Options | None = None,
    repair_callback: RepairCallback | None = None,
) -> Repair[list[BaseMessage]]:
    """Answer dangling calls with synthetic ``ToolMessage(status="error")`` objects.

    With ``unsafe_fixes`` (and the TP1xx rules selected), orphan and duplicate ``ToolMessage``s
    are dropped and misplaced ones moved after their call, as objects.

    ``repair_callback`` (`RepairCallback`) builds each synthetic result instead, from the call
    it answers; it goes where toolpatch's own would (docs/langchain.md#building-the-results). A
    result recovered from the history or from ``options.recorded_results`` (the error a store
    kept for the call) is not the callback's to build.

    Returns:
        A `Repair` whose ``value`` is a new list: the original message objects (untouched) with
        the new ``ToolMessage`` objects inserted.

    Raises:
        TypeError: An item is not a ``BaseMessage`` (dicts: use `patchcore.fix_messages`), or
            ``repair_callback`` returned something other than a ``ToolMessage`` answering the
            call it was given (a result for another id would leave the call unanswered).

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> history = [
        ...     HumanMessage("Book it"),
        ...     AIMessage("", tool_calls=[{"name": "book", "args": {}, "id": "c1"}]),
        ...     HumanMessage("Stop"),
        ... ]
        >>> fix_base_messages(history).value[2].tool_call_id
        'c1'
    """
    options = options or Options()
    findings = _findings(messages, options, fixing=True)
    fixed = tuple(f for f in findings if options.applies(f.fix))
    if not fixed:
        return Repair(list(messages), tuple(findings), ())
    edits: list[Edit] = []
    inside: dict[int, list[Edit]] = {}
    answered = _answered_calls(messages, fixed) if repair_callback is not None else {}
    for edit in unique_edits(fixed):
        if isinstance(edit, Insert):  # new ToolMessages are built by langchain-core itself
            values = tuple(
                _built(v, answered, repair_callback) if isinstance(v, dict) else v
                for v in edit.values
            )
            edit = Insert(edit.array, edit.index, values)
        place = edit.array if isinstance(edit, Insert) else edit.pointer
        if len(place) > 1:  # inside one message (the drop repair policy's calls)
            inside.setdefault(int(place[0]), []).append(rebased(edit, 1))
        else:
            edits.append(edit)
    edits += [
        Replace((index,), _without_calls(messages[index], changes))
        for index, changes in inside.items()
    ]
    return Repair(apply_edits(list(messages), edits), tuple(findings), fixed)


def _answered_calls(
    messages: Sequence[BaseMessage], fixed: Sequence[Finding]
) -> dict[str, list[Mapping[str, Any]]]:
    """The calls the fixes answer with a synthetic result, by id, in message and call order (an
    id reused by calls of one turn gives its results in that order too): a recovered result
    (docs/pairing.md#evidence-first) is the data's, never the callback's."""
    calls: dict[str, list[Mapping[str, Any]]] = {}
    for finding in fixed:
        assert finding.fix is not None
        if (
            finding.code in ANSWERED
            and finding.call_id is not None
            and finding.fix.origin is Origin.SYNTHESIZED
        ):
            message = messages[finding.message_index]
            call = value_at(_as_fields(message), finding.call_path)
            calls.setdefault(finding.call_id, []).append(call)
    return calls


def _built(
    value: dict[str, Any],
    answered: dict[str, list[Mapping[str, Any]]],
    repair_callback: RepairCallback | None,
) -> ToolMessage:
    """The ``ToolMessage`` of a planned result: ``value``'s fields (a recovered one's, the
    text recorded for its call, always), or what ``repair_callback`` builds for the call a
    synthetic one answers.

    Raises:
        TypeError: The callback's result is no ``ToolMessage`` for that call's id.
    """
    pending = answered.get(value["tool_call_id"])
    call = pending.pop(0) if pending else None
    if repair_callback is None or call is None:
        return ToolMessage(**value)
    built = repair_callback(dict(call))  # a copy: the state's message is not the callback's
    if not isinstance(built, ToolMessage) or built.tool_call_id != call.get("id"):
        got = type(built).__name__
        if isinstance(built, ToolMessage):
            got += f" for id {built.tool_call_id!r}"
        msg = f"repair_callback must return a ToolMessage for id {call.get('id')!r}, not {got}"
        raise TypeError(msg)
    return built


def _without_calls(message: BaseMessage, edits: Sequence[Edit]) -> BaseMessage:
    """A copy of ``message`` with ``edits`` (of its `_as_fields`) applied: the drop repair
    policy's calls gone from ``tool_calls``, ``invalid_tool_calls``, ``tool_call_chunks`` and
    ``content``, and from ``additional_kwargs["tool_calls"]``, where the provider's raw calls
    would otherwise be sent again."""
    before = _as_fields(message)
    after = apply_edits(before, edits)
    update = {
        key: value
        for key, value in after.items()
        if value is not before.get(key) and key != "additional_kwargs"
    }
    if after.get("additional_kwargs") is not before.get("additional_kwargs"):
        extra = dict(message.additional_kwargs)  # its other keys, as they are
        remaining = after["additional_kwargs"].get("tool_calls")
        if remaining:
            extra["tool_calls"] = remaining
        else:
            del extra["tool_calls"]
        update["additional_kwargs"] = extra
    return message.model_copy(update=update)
