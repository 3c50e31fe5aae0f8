"""Findings and fixes for the records `patchcore.engine.quick` read, without parsing them whole.

The quick lane's structs are the engine's views of a record's messages, and it knows which keys
some call is left open for. Only the messages that issue such calls are parsed, each on its own,
and viewed by the dialect's adapter (so a call's name, path and malformed arguments are read as
the full path reads them); their views take the place of the lane's, and the list goes through
the engine's checker (`patchcore.engine.check.check_list`) like any other: the same pairing,
rules, plan and findings. What the adapter would learn from the other messages (how result
messages are written) the lane has read.

An Anthropic list with open calls takes the full path: its synthetic results go into the next
user turn, after its results and before its other blocks (`patchcore.dialects.anthropic`), so
planning them reads messages the lane has not parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import msgspec

from patchcore.dialects.base import ListContext, ResultMessageDialect
from patchcore.dialects.langchain import LangChain
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.engine.check import check_list
from patchcore.engine.quick import Lane
from patchcore.engine.walk import View
from patchcore.model import Finding, MessageView, Pointer
from patchcore.options import Options
from patchcore.rules import COUNTED

if TYPE_CHECKING:
    from patchcore.raw.jsonspan import Spans

_LANGCHAIN = LangChain()
_CHAT = OpenAIChat()


def _adapter(lane: Lane) -> tuple[ResultMessageDialect, Mapping[str, Any]]:
    """The lane's dialect and how its result messages are written."""
    if lane.dialect == "langchain":
        # The lane reads messages_to_dict lists only: no flat message with nulls to copy.
        return _LANGCHAIN, LangChain.style(keep_nulls=False)
    answer_keys, named = lane.writing_style()
    return _CHAT, OpenAIChat.style(answer_keys=answer_keys, named=named)


def _keys(view: View) -> tuple[list[str | None], list[str], list[str]]:
    """What pairing reads of a view."""
    return (
        [call.pairing_key for call in view.calls],
        [result.key for result in view.results],
        [result.key for result in view.inner_results],
    )


def _callers(lane: Lane) -> list[int]:
    """The messages that issue a call with a key left open."""
    left_open = lane.open_keys
    callers = []
    for index, view in enumerate(lane.views):
        calls = view.calls
        if calls:  # most messages have none (some a null, `patchcore.engine.quick._Message`)
            for call in calls:
                if call.pairing_key in left_open:
                    callers.append(index)
                    break
    return callers


def _earlier_results(lane: Lane, last: int) -> list[int]:
    """The messages before message ``last`` that hold a result with a key left open: the call's
    own result out of place, which its fix copies (`patchcore.engine.check`), is one of them."""
    left_open = lane.open_keys
    return [
        index
        for index, view in enumerate(lane.views[:last])
        if view.results and any(result.key in left_open for result in view.results)
    ]


def findings(
    lane: Lane,
    spans: Spans,
    *,
    options: Options,
    place: Callable[[Pointer], tuple[int, int]] | None = None,
) -> list[Finding] | None:
    """The selected findings of the record ``spans.buf``, whose lane is ``lane`` (with open
    calls), each with its fix (and with ``place``, at its place: as `check_list`'s); ``None``
    if a calling message does not read as the lane read it (the full path decides).
    ``options`` select the counted rules only (`Options.quick`): the lane's views tell pairing
    the keys, not what the other rules read (the lane has no record with a duplicate)."""
    assert options.selection.codes <= COUNTED
    if lane.dialect == "anthropic":
        return None  # its new results go in the blocks of the next user turn, which is not read
    dialect, style = _adapter(lane)
    context = ListContext(lane.pointer)
    elements = spans.elements(lane.pointer)
    # Only the messages that issue calls with an open key are parsed (``None`` stands for the
    # others: with the TP0xx rules, the checker reads no message but a caller's).
    messages: list[Any] = [None] * lane.messages
    views: list[View] = list(lane.views)
    callers = _callers(lane)
    for index in sorted({*callers, *_earlier_results(lane, callers[-1])}):
        view = lane.views[index]
        start, end = elements[index]
        messages[index] = msgspec.json.decode(spans.buf[start:end])  # MemoryError, no crash
        views[index] = dialect.view(messages[index], context.message_pointer(index))
        if _keys(views[index]) != _keys(view):
            return None
    # Every call that pairing walks (one with an open key) is the adapter's: the lane's views
    # stand only for messages whose calls and results it reads by their keys.
    return check_list(
        messages,
        dialect=dialect,
        context=context,
        options=options,
        views=cast("Sequence[MessageView]", views),
        style=style,
        left_open=lane.open_keys,
        first_caller=callers[0],
        place=place,
    )
