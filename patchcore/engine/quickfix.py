"""Findings and fixes for the records `patchcore.engine.quick` read, without parsing them whole.

The quick lane pairs a record's calls at C speed and says which are left open. Turning those into
findings takes only the messages that issued them: each is parsed on its own and read by its
dialect's adapter (so a call's name, path and malformed arguments are read exactly as the full
path reads them), its rule is the engine's, its synthetic result and where it goes are planned
by the adapter, and the findings are built as `patchcore.engine.check` builds them. What the full
path would learn from the other messages (how result messages are written) the lane has read too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from patchcore.dialects.base import ListContext, ResultInserts, ResultMessageDialect
from patchcore.dialects.langchain import LangChain
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.engine.check import findings_of, unanswered
from patchcore.engine.defects import Defect
from patchcore.engine.pairing import CallRef, Dangling, open_code
from patchcore.engine.quick import Lane
from patchcore.model import Finding, ToolCall
from patchcore.options import Options
from patchcore.raw.jsonspan import Spans

_LANGCHAIN = LangChain()
_CHAT = OpenAIChat()


def _adapter(lane: Lane) -> tuple[ResultMessageDialect, Mapping[str, Any]]:
    """The lane's dialect and how its result messages are written."""
    if lane.dialect == "langchain":
        # The lane reads messages_to_dict lists only: no flat message with nulls to copy.
        return _LANGCHAIN, LangChain.style(keep_nulls=False)
    return _CHAT, OpenAIChat.style(answer_keys=lane.answer_keys, named=lane.named_results)


def findings(lane: Lane, spans: Spans, *, options: Options) -> list[Finding] | None:
    """The selected findings of the record ``spans.buf``, whose lane is ``lane`` (with open
    calls), each with its fix; ``None`` if a calling message does not read as the lane did
    (the full path decides)."""
    dialect, style = _adapter(lane)
    context = ListContext(lane.pointer)
    elements = spans.elements(lane.pointer)
    assert lane.results_after is not None
    callers: dict[int, tuple[Any, tuple[ToolCall, ...]]] = {}
    defects: list[Defect] = []
    for message_index, call_index in lane.open_calls:
        if message_index not in callers:
            start, end = elements[message_index]
            message = orjson.loads(spans.buf[start:end])
            view = dialect.view(message, context.message_pointer(message_index))
            callers[message_index] = (message, view.calls)
        calls = callers[message_index][1]
        if call_index >= len(calls):
            return None
        call = calls[call_index]
        code = open_code(CallRef(message_index, call_index, call), lane.last_turn)
        if code in options.selection:
            defects.append(unanswered(Dangling(message_index, call_index, call, code), options))
    inserts = ResultInserts()
    for k, defect in enumerate(defects):
        caller = callers[defect.message_index][0]
        at = lane.results_after[defect.message_index]
        dialect.answer(inserts, k, defect, caller=caller, style=style, at=at)
    plan = inserts.complete([[] for _ in defects], context)
    edits = dict(zip(map(id, defects), plan, strict=True))
    return findings_of(defects, edits, dialect=dialect, context=context)
