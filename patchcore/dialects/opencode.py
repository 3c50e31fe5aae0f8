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
"Tool execution aborted", time: {start, end}}``): ``status`` becomes ``error``, an ``error``
member the rule's text, and the end time is added (a pending part's whole ``time``); only those
members are edited, every other one (``input``, a pending part's ``raw``, a running part's
``title`` and ``metadata``) keeps its bytes. ``start`` is a running part's own start, or the
message's ``time.created``; ``end`` the message's ``time.completed``, or ``start``. ``toolpatch
strip`` takes them back: a part that has ``raw`` was pending, any other running. A state
opencode would not write is reported without a fix (`ODD_STATE`).
"""

from __future__ import annotations

import copy
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
from patchcore.engine.pairing import Answer
from patchcore.model import (
    ANSWERED,
    Defect,
    Delete,
    Edit,
    MessageView,
    Pointer,
    Replace,
    Role,
    ToolCall,
    ToolResult,
)
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


#: A member of a state, by its keys (``("time", "end")``).
Member = tuple[str, ...]

#: Why an unfinished part whose state opencode could not have written gets no result.
ODD_STATE = (
    "its state is not one opencode writes (a pending state has `raw` and no `time`, a running "
    "one a `time` with only its `start`): it is reported, not settled"
)


def settleable(state: object) -> bool:
    """Whether ``state`` is an unfinished state as opencode writes it, which `settling` can
    settle and `unsettling` can give back exactly."""
    if not isinstance(state, dict) or "error" in state:
        return False
    if state.get("status") == "pending":
        return "raw" in state and "time" not in state
    time = state.get("time")
    return (
        state.get("status") == "running"
        and "raw" not in state
        and isinstance(time, dict)
        and "start" in time
        and "end" not in time
    )


def settling(
    state: Mapping[str, Any], info: Mapping[str, Any], text: str
) -> list[tuple[Member, Any]]:
    """The members (keys inside ``state``) that settle it as an error with ``text``, as
    opencode's processor settles a tool part left unfinished, each with its value: ``status``,
    ``error``, and the end time (a pending part gets its whole ``time``, started when its
    message was)."""
    times = _object(info.get("time"))
    end = _number(times.get("completed"))
    members: list[tuple[Member, Any]] = [(("status",), "error"), (("error",), text)]
    if state.get("status") == "pending":
        start = _number(times.get("created")) or 0
        members.append((("time",), {"start": start, "end": start if end is None else end}))
    else:
        start = _number(_object(state.get("time")).get("start")) or 0
        members.append((("time", "end"), start if end is None else end))
    return members


def unsettling(state: Mapping[str, Any]) -> tuple[list[tuple[Member, Any]], list[Member]]:
    """What gives back the state `settling` settled: the ``status`` it had (pending where the
    state has ``raw``), and the members it added, to remove."""
    pending = "raw" in state
    added: list[Member] = [("error",), ("time",) if pending else ("time", "end")]
    return [(("status",), "pending" if pending else "running")], added


def _applied(
    state: Mapping[str, Any], members: list[tuple[Member, Any]], removed: list[Member]
) -> dict[str, Any]:
    """``state`` with ``members`` set (a member it lacks added last, as an edit adds it) and the
    members at ``removed`` taken out."""
    new = copy.deepcopy(dict(state))
    for pointer, value in members:
        _parent(new, pointer)[pointer[-1]] = value
    for pointer in removed:
        _parent(new, pointer).pop(pointer[-1], None)
    return new


def _parent(value: dict[str, Any], pointer: Member) -> dict[str, Any]:
    for key in pointer[:-1]:
        value = value[key]
    return value


class Opencode(Dialect):
    """opencode's messages: ``{"info", "parts"}``, a tool part carrying its own state."""

    name = "opencode"
    text_keys = ("text", "parts")
    title = "opencode messages"
    kept_calls = SESSION_LOG
    recognised_by = (
        '`{"info": {"role", ...}, "parts": [...]}`; `{"type": "tool", "callID", "tool", '
        '"state"}` parts whose `state.status` is pending / running / completed / error'
    )
    containers = "`messages` of `opencode export` JSON"

    def fields(self, value: Any) -> Any:
        """A message's ``info`` with its ``parts``, or the value (a part)."""
        if isinstance(value, dict) and isinstance(value.get("parts"), list):
            info = value.get("info")
            if isinstance(info, dict):
                return {**info, "parts": value["parts"]}
        return value

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
            state = part.get("state")
            done = isinstance(state, dict) and state.get("status") in DONE
            calls.append(
                ToolCall(
                    id=call_id(part.get("callID"), (*where, "callID")),
                    name=optional_name(part.get("tool")),
                    path=("parts", k),
                    key=key,
                    unanswerable=None if done or settleable(state) else ODD_STATE,
                )
            )
            if done:
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
        """The state `settling` makes of the state the part had before (what ``strip``
        compares the part's state with), or ``None`` where no settleable state was there."""
        state = caller["parts"][call.path[-1]]["state"]
        before = _applied(state, *unsettling(state))
        if not settleable(before):
            return None
        return _applied(before, settling(before, _info(caller), text), [])

    @staticmethod
    def _edits(messages: Sequence[Any], context: ListContext, defect: Defect) -> tuple[Edit, ...]:
        """Edits of the members that change, so that the rest of the state keeps its bytes."""
        call = defect.call
        if defect.code not in ANSWERED or call is None or not call.answerable:
            return ()
        message = messages[defect.message_index]
        state = message["parts"][call.path[-1]]["state"]
        where = (*context.message_pointer(defect.message_index), *call.path, "state")
        if defect.strip:
            members, removed = unsettling(state)
        else:
            assert defect.text is not None
            members, removed = settling(state, _info(message), defect.text), []
        return (
            *(Replace((*where, *pointer), value) for pointer, value in members),
            *(Delete((*where, *pointer)) for pointer in removed),
        )
