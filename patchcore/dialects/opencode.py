"""opencode messages (sst/opencode, now anomalyco/opencode: ``packages/opencode/src/session/
message-v2.ts``), as ``opencode export`` writes a session: ``{"info", "messages": [{"info",
"parts"}], ...}`` (``cli/cmd/export.ts``).

A message is ``{"info": {"id", "sessionID", "role", "time", ...}, "parts": [...]}``. A call is a
``{"type": "tool", "callID", "tool", "state"}`` part of an assistant message, and it carries its
own result: ``state.status`` is ``pending`` or ``running`` until the tool ends, then
``completed`` (``output``) or ``error`` (``error``). A call and its result share one part, so a
call is keyed by its place, like a Gemini CLI entry, and answered when its state is done.

What opencode sends (``toModelMessages``): an assistant message that ended in an error other
than an abort is left out whole, so its parts issue no call; a ``pending`` or ``running`` part
of a message it sends goes out as an ``output-error`` "[Tool execution was interrupted]",
written nowhere.

Repair, in the part's own ``state``, as opencode's session processor settles a tool part it
finds unfinished when a run stops (``processor.ts``: ``{...part.state, status: "error", error:
"Tool execution aborted", time: {start, end}}``): ``status`` becomes ``error``, ``error`` the
rule's text, ``time`` ``{start, end}``; every other member of the state (``input``, a pending
part's ``raw``, a running part's ``title`` and ``metadata``) stays, in its place. ``start`` is a
running part's own start, or the message's ``time.created``; ``end`` the message's
``time.completed``, or ``start``. ``toolpatch strip`` puts the state back: a part that has
``raw`` was pending (no ``time``), any other was running (``time`` its ``start``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    SESSION_LOG,
    Dialect,
    ListContext,
    Plan,
    Recognition,
    call_id,
    optional_name,
)
from patchcore.engine.defects import ANSWERED, Defect
from patchcore.engine.pairing import Answer
from patchcore.model import Edit, MessageView, Pointer, Replace, Role, ToolCall, ToolResult
from patchcore.model import format_pointer as pointer_text

#: The states of a tool part that has its result.
DONE = frozenset({"completed", "error"})
#: The error of an assistant message opencode still sends (its run was stopped by the user).
ABORTED = "MessageAbortedError"


def _object(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _info(message: Any) -> Mapping[str, Any]:
    return _object(message.get("info")) if isinstance(message, dict) else {}


def _unsent(info: Mapping[str, Any]) -> bool:
    """Whether opencode leaves an assistant message out of what it sends: it ended in an
    error, and not in an abort."""
    error = info.get("error")
    return isinstance(error, dict) and error.get("name") != ABORTED


def _number(value: object) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def settled(state: Mapping[str, Any], info: Mapping[str, Any], text: str) -> dict[str, Any]:
    """``state`` settled as an error with ``text``, as opencode's processor settles a tool part
    left unfinished (the message's ``info`` gives the times a pending part lacks)."""
    times = _object(info.get("time"))
    own = _object(state.get("time"))
    start = _number(own.get("start"))
    if start is None:
        start = _number(times.get("created")) or 0
    end = _number(times.get("completed"))
    new = dict(state)
    new["status"] = "error"
    new["error"] = text
    new["time"] = {"start": start, "end": start if end is None else end}
    return new


def unsettled(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state `settled` was given: pending where it has ``raw`` (``time`` was added), else
    running (``time`` was its own ``start``); ``error`` was added either way."""
    old = {key: value for key, value in state.items() if key != "error"}
    if "raw" in state:
        old.pop("time", None)
        old["status"] = "pending"
    else:
        old["status"] = "running"
        time = state.get("time")
        old["time"] = {"start": time.get("start") if isinstance(time, dict) else None}
    return old


class Opencode(Dialect):
    """opencode's messages: ``{"info", "parts"}``, a tool part carrying its own state."""

    name = "opencode"
    title = "opencode messages"
    kept_calls = SESSION_LOG
    recognised_by = (
        '`{"info": {"role", ...}, "parts": [...]}`; `{"type": "tool", "callID", "tool", '
        '"state"}` parts whose `state.status` is pending / running / completed / error'
    )
    containers = "`messages` of `opencode export` JSON"

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
            return Recognition.NO
        if tag(_info(message), "role") not in ("user", "assistant"):
            return Recognition.NO
        if any(tag(part, "type") == "tool" for part in message["parts"]):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        info = _info(message)
        if info.get("role") != "assistant" or _unsent(info):
            return MessageView(Role.OTHER)
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        for k, part in enumerate(message["parts"]):
            if tag(part, "type") != "tool":
                continue
            where = (*pointer, "parts", k)
            key = pointer_text(where)
            calls.append(
                ToolCall(
                    id=call_id(part.get("callID"), (*where, "callID")),
                    name=optional_name(part.get("tool")),
                    path=("parts", k),
                    key=key,
                )
            )
            state = part.get("state")
            if isinstance(state, dict) and state.get("status") in DONE:
                results.append(ToolResult(key, ("parts", k, "state"), keyed=False))
        return MessageView(Role.CALLER, tuple(calls), inner_results=tuple(results))

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        return None  # a result is its call's own state: it cannot be anywhere else

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        return [self._edits(messages, context, defect) for defect in defects]

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The state `settled` writes for ``call``, from the state it was given (what
        ``strip`` compares the part's state with)."""
        state = caller["parts"][call.path[-1]]["state"]
        return settled(unsettled(state), _info(caller), text)

    @staticmethod
    def _edits(messages: Sequence[Any], context: ListContext, defect: Defect) -> tuple[Edit, ...]:
        call = defect.call
        if defect.code not in ANSWERED or call is None or not call.answerable:
            return ()
        message = messages[defect.message_index]
        state = message["parts"][call.path[-1]]["state"]
        where = (*context.message_pointer(defect.message_index), *call.path, "state")
        if defect.strip:
            return (Replace(where, unsettled(state)),)
        assert defect.text is not None
        return (Replace(where, settled(state, _info(message), defect.text)),)
