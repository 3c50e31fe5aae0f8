"""Gemini CLI chat recordings: tool calls that carry their own result.

``gemini`` (google-gemini/gemini-cli) keeps each session as one JSON document,
``~/.gemini/tmp/<project>/chats/session-<time>-<id>.json``, a ``ConversationRecord``:
``{sessionId, projectHash, startTime, lastUpdated, messages, summary?, directories?, kind?}``
(``packages/core/src/services/chatRecordingService.ts``, ``chatRecordingTypes.ts``). Each
message is ``{id, timestamp, type, content, ...}``: ``type`` is ``user``, ``gemini``, or a notice
the UI showed (``info``, ``error``, ``warning``). A ``gemini`` message may hold ``toolCalls``,
entries ``{id, name, args, result?, status, timestamp, resultDisplay?, displayName?,
description?, renderOutputAsMarkdown?, agentId?}`` whose ``result`` is the list of parts sent
back, ``[{"functionResponse": {"id", "name", "response": {"output" | "error": ...}}}]``.

A dialect, not a session layout: the file is one document whose conversation is the one list
at ``messages`` (the locator finds it as it finds any list), and a call and its result share
one entry; there are no events to read across lines and no turn spread over entries. The
repair only needed an edit that adds a member an object lacks (`patchcore.model.Replace`). The
JSON Lines log newer releases append to instead is a session layout
(`patchcore.layouts.sessions.gemini_cli`) that reads its lines into these same messages.

How ``gemini --resume`` (and ``/resume``) rebuilds the API history (``sessionUtils.ts``,
``convertSessionToHistoryFormats``, later ``convertSessionToClientHistory``): notices, and user
messages that are slash commands (``/``, ``?``) or empty, are left out; a ``gemini`` message
becomes a ``model`` turn with a ``functionCall`` for each entry of ``toolCalls``, then one
``user`` turn with the ``result`` parts of each entry that has one (a string result becomes
``response.output``). An entry without a result sends a call with no response, and Gemini turns
the whole request away. An entry's ``status`` (``scheduler/types.ts``) is ``validating``,
``scheduled``, ``awaiting_approval`` or ``executing`` while the call is in flight, and
``success``, ``error`` or ``cancelled`` once it is done; the CLI records calls as they complete
(``recordCompletedToolCalls``: ``result`` holds the response parts, ``null`` when there are
none), but the recorder takes any status, and entries without a result are what a recorder
stopped mid-call, or a trimmed record, leaves.

Gemini CLI 0.61 also records the response turn it sends as a ``user`` message of
``functionResponse`` parts, and a resume rewrites a ``gemini`` message's ``content`` into its
``functionCall`` parts, which the resume then sends instead of ``toolCalls``
(``convertSessionToClientHistory``); such parts are the calls, and the response messages
answer the calls of the message before them (docs/formats.md#gemini-cli-session-log).

Pairing: every entry is a call, keyed by its place (its result can only be its own, so ids are
never compared), and answered when its ``result`` is set. Notices and slash commands never
reach the model: they belong to the turn before them, so a call followed by nothing else is
pending (TP002), not dangling.

Repair, inside the call's own entry, with what the CLI records for a call that failed
(``coreToolScheduler`` ``createErrorResponse``): ``result`` becomes ``[{"functionResponse":
{"id", "name", "response": {"error": <text>}}}]`` (``id`` only when the call has one) and, where
the entry has none, ``resultDisplay`` (what the resumed session shows under the call) the text.
The ``status`` stays as recorded: resuming reads it for neither the model (which gets the
result) nor the screen (anything but ``success`` shows as an error), it is what the CLI saw
when it wrote the entry, and a safe fix only adds. An entry whose status says ``success`` but
that has no result is reported, not answered: the tool ran and succeeded, and an error result
would tell the model it had not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    NO_MESSAGE,
    SESSION_LOG,
    Dialect,
    ListContext,
    Plan,
    Recognition,
    call_id,
    entry,
    list_field,
    optional_name,
)
from patchcore.dialects.gemini import RESPONSE_KEYS, Gemini, Response, match_responses, read_parts
from patchcore.engine.apply import value_at
from patchcore.engine.pairing import Answer, insertion_point
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
    format_pointer,
)

#: The message types the model sees when a session is resumed.
CONVERSATION = frozenset({"user", "gemini"})
#: Notices the UI showed, recorded beside the conversation (``system`` in early releases).
NOTICES = frozenset({"info", "error", "warning", "system"})
#: How a user message that is not a prompt starts: a command, or the context the CLI sends anew
#: with each session (it is never sent from the recording).
COMMAND_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")
#: Parts that are no text but that the CLI's resume counts as something said (its
#: ``partListUnionToString``, verbose: ``[Function Response: name]``, ``[Thought: ...]``).
SAID_PARTS = frozenset(
    {
        "videoMetadata",
        "thought",
        "codeExecutionResult",
        "executableCode",
        "fileData",
        "functionCall",
        "functionResponse",
        "inlineData",
    }
)


def has_result(value: object) -> bool:
    """Whether a recorded ``result`` gives the call a response when the session resumes: the
    CLI sends a result that is truthy in JavaScript, a part (an object) or its list of parts
    (none for ``[]``), a string as ``response.output``."""
    return isinstance(value, dict) or bool(value)


def _text(content: object) -> str:
    """The text of a message's ``content`` (a string, a part, or a list of either) as the CLI's
    resume reads it: a part that is no text (a function response) says its kind."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        if SAID_PARTS.intersection(content):
            return "[part]"
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        return "".join(_text(part) for part in content)
    return ""


def _parts(content: object) -> list[Any]:
    """A message's ``content`` as its list of parts (a lone part is a list of one)."""
    if isinstance(content, list):
        return content
    return [content] if isinstance(content, dict) else []


def speaks_in_parts(message: dict[str, Any]) -> bool:
    """Whether resuming sends a ``gemini`` message's ``content`` parts as the model's turn, not
    its ``toolCalls``: the CLI does when a part is a call or a thought
    (``convertSessionToClientHistory``)."""
    return any(
        isinstance(part, dict) and (part.get("functionCall") or part.get("thought"))
        for part in _parts(message.get("content"))
    )


def _unsent(message: dict[str, Any]) -> bool:
    """Whether resuming leaves the message out of the history the model sees."""
    if message["type"] in NOTICES:
        return True
    if message["type"] != "user":
        return False
    text = _text(message.get("content")).strip()
    return not text or text.startswith(COMMAND_PREFIXES)


def entry_of(message: dict[str, Any], call: ToolCall) -> int | None:
    """The index in ``toolCalls`` of the entry that records ``call``: its own, for a call read
    from ``toolCalls``; the entry with its id, for a ``functionCall`` part of ``content``
    (a resumed 0.61 session keeps both); ``None`` when no entry records it."""
    if call.path[0] == "toolCalls":
        return int(call.path[1])
    entries = message.get("toolCalls")
    if call.id is None or not isinstance(entries, list):
        return None
    return next(
        (k for k, raw in enumerate(entries) if isinstance(raw, dict) and raw.get("id") == call.id),
        None,
    )


#: Why a call recorded as ``success`` without a result gets none: it ran, and an error would
#: say it had not.
RAN_WITHOUT_RESULT = (
    "the call is recorded as a success without its result: it ran, and an error result "
    "would say it had not"
)


@dataclasses.dataclass(frozen=True, slots=True)
class _Answered:
    """The calls of the last ``gemini`` message with calls, and what answered them so far:
    ``taken``, the indexes of the calls answered; ``given``, the response parts recorded for
    each call's key (its entry's result, then the response messages after it)."""

    calls: Sequence[ToolCall] = ()
    taken: set[int] = dataclasses.field(default_factory=set)
    given: dict[str, list[Any]] = dataclasses.field(default_factory=dict)


class GeminiCli(Dialect):
    """Gemini CLI session files (``ConversationRecord.messages``)."""

    name = "gemini-cli"
    role_keys = ("type",)
    text_keys = ("text", "content", "output", "response", "error")
    argument_keys = ("args",)
    call_wrappers = ("functionCall",)
    title = "Gemini CLI session"
    kept_calls = SESSION_LOG
    recognised_by = (
        "messages with `id`, `type` user / gemini / info / error / warning and `content`; "
        "`gemini` messages hold `toolCalls` entries that carry their own `result` and `status` "
        "(0.61: or `functionCall` parts in `content`, answered by `user` messages of "
        "`functionResponse` parts)"
    )
    containers = (
        "`messages` of `~/.gemini/tmp/<project>/chats/session-*.json` (Gemini CLI chat "
        "recording, also what codemie captures)"
    )
    provider_errors: ClassVar[dict[str, str]] = {
        code: Gemini.provider_errors[code] for code in ("TP001", "TP002")
    }

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or "content" not in message or "id" not in message:
            return Recognition.NO
        kind = tag(message, "type")
        if kind == "gemini":
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE if kind in CONVERSATION | NOTICES else Recognition.NO

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        return self._view(message, pointer, _Answered())

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """A ``user`` message's response parts answer the calls of the ``gemini`` message
        before them: the CLI records the response turn it sends as such a message, beside the
        ``result`` it records in each call's entry. A response that repeats one recorded
        already is that record (read, never a second result); one whose entry lost its
        result answers the call."""
        views: list[MessageView] = []
        turn = _Answered()
        for index, message in enumerate(messages):
            if message is None:
                views.append(NO_MESSAGE)
                continue
            view = self._view(message, context.message_pointer(index), turn)
            views.append(view)
            if view.calls:
                turn = _Answered(view.calls)
                for result in view.inner_results:
                    turn.given.setdefault(result.key, []).extend(
                        _parts(value_at(message, result.path))
                    )
                turn.taken.update(
                    k for k, call in enumerate(view.calls) if call.pairing_key in turn.given
                )
        return views

    def _view(self, message: Any, pointer: Pointer, turn: _Answered) -> MessageView:
        """The view of one message; ``turn``: the calls of the ``gemini`` message before it,
        and what answered them so far."""
        if _unsent(message):
            return MessageView(Role.OTHER, joins_previous=True)
        if message["type"] == "user":
            return self._responses(message, pointer, turn)
        if message["type"] != "gemini":
            return MessageView(Role.OTHER)
        if speaks_in_parts(message):
            return self._parts_turn(message, pointer)
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        for k, raw in enumerate(list_field(message, "toolCalls", pointer)):
            where = (*pointer, "toolCalls", k)
            fields = entry(raw, where)
            key = format_pointer(where)
            calls.append(
                ToolCall(
                    id=call_id(fields.get("id"), (*where, "id")),
                    name=optional_name(fields.get("name")),
                    path=("toolCalls", k),
                    key=key,
                    unanswerable=RAN_WITHOUT_RESULT if fields.get("status") == "success" else None,
                )
            )
            if has_result(fields.get("result")):
                results.append(ToolResult(key, ("toolCalls", k, "result"), keyed=False))
        return MessageView(Role.CALLER, tuple(calls), inner_results=tuple(results))

    @staticmethod
    def _parts_turn(message: Any, pointer: Pointer) -> MessageView:
        """A ``gemini`` message whose ``content`` holds its ``functionCall`` parts (what a
        resumed 0.61 session rewrites its messages into): those parts are the calls, keyed as
        Gemini's; the entries of ``toolCalls`` that hold a result are the response turn the
        CLI sends right after them."""
        calls, _, _ = read_parts(_parts(message.get("content")), pointer, "content")
        entries = list_field(message, "toolCalls", pointer)
        responses: list[Response] = []
        ran: set[str] = set()
        for k, raw in enumerate(entries):
            where = (*pointer, "toolCalls", k)
            fields = entry(raw, where)
            ident = call_id(fields.get("id"), (*where, "id"))
            if has_result(fields.get("result")):
                name = optional_name(fields.get("name"))
                responses.append((ident, name, ("toolCalls", k, "result")))
            elif fields.get("status") == "success" and ident is not None:
                ran.add(ident)
        inner = [
            dataclasses.replace(result, keyed=False)
            for result in match_responses(responses, calls, set())
        ]
        calls = [
            dataclasses.replace(call, unanswerable=RAN_WITHOUT_RESULT) if call.id in ran else call
            for call in calls
        ]
        return MessageView(Role.CALLER, tuple(calls), inner_results=tuple(inner))

    @staticmethod
    def _responses(message: Any, pointer: Pointer, turn: _Answered) -> MessageView:
        """A ``user`` message: its ``functionResponse`` parts answer ``turn``'s calls, but for
        those that repeat, word for word, a response recorded for the call already (in its
        entry, or in a message before): the CLI records the one response turn it sends in
        the entries and as a message, and a resume records it once more as ``<id>_response``.
        A message that holds only such repeats is read, and pairs nothing; a response that
        differs is a second result."""
        parts = _parts(message.get("content"))
        _, responses, _ = read_parts(parts, pointer, "content")
        if not responses:
            return MessageView(Role.OTHER)
        matched = match_responses(responses, turn.calls, turn.taken)
        results: list[ToolResult] = []
        for result in matched:
            part = value_at(message, result.path)
            if part not in turn.given.get(result.key, ()):
                results.append(result)
                turn.given.setdefault(result.key, []).append(part)
        only = all(isinstance(p, dict) and RESPONSE_KEYS[0] in p for p in parts)
        role = Role.RESULTS if results and only else Role.OTHER
        # A message of repeats only belongs with the responses it repeats: a cut that kept it
        # alone would keep results whose calls it dropped (`patchcore.safe_cut`).
        repeats = bool(matched) and not results and only
        return MessageView(
            role,
            (),
            tuple(results),
            understood=len(results) < len(matched),
            joins_previous=repeats,
        )

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        return None  # a result is part of its call's own entry: it cannot be anywhere else

    def recorded_results(
        self, messages: Sequence[Any], views: Sequence[MessageView]
    ) -> Mapping[str, str]:
        """The error an entry recorded as failed kept without its ``result``: the CLI records a
        failed call (``createErrorResponse``) with ``resultDisplay`` the error's message and
        ``result`` that message as ``response.error``, so an entry whose ``status`` is
        ``error`` and whose ``result`` is lost still says what the model was told. Nothing is
        read from another status: a success's ``resultDisplay`` is what the screen showed, not
        the tool's output (the corpus's sessions: never the same text), and a cancelled call's
        response is worded by the scheduler, not recorded in the entry."""
        found: dict[str, str] = {}
        for message, view in zip(messages, views, strict=True):
            for call in view.calls:
                k = entry_of(message, call)
                if k is None:
                    continue
                recorded = message["toolCalls"][k]
                shown = recorded.get("resultDisplay")
                if (
                    call.key is not None
                    and recorded.get("status") == "error"
                    and not has_result(recorded.get("result"))
                    and isinstance(shown, str)
                    and shown.strip()
                ):
                    found[call.key] = shown
        return found

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        plan = [
            self._unanswer(messages, context, defect, defects)
            if defect.strip
            else self._answer(messages, context, defect)
            for defect in defects
        ]
        for insertion, fixed in self._response_messages(messages, views, context, defects):
            for k in fixed:
                plan[k] = (insertion,) if insertion is not None else ()
        return plan

    def _response_messages(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
    ) -> list[tuple[Edit | None, list[int]]]:
        """For each ``gemini`` message whose ``content`` calls no entry records, the ``user``
        message that answers them as the CLI records a response turn: ``{id, timestamp, type:
        "user", content: [functionResponse, ...]}``, one part a call in call order, inserted
        after the turn and the responses already recorded for it; its ``id`` is the one the
        CLI gives the response turn of a message (``<id>_response``), its ``timestamp`` the
        message's (no clock is read). With the defects each answers; no edit where the id is
        taken or the message has none."""
        by_message: dict[int, list[int]] = {}
        for k, defect in enumerate(defects):
            call = defect.call
            if (
                defect.strip
                or defect.code not in ANSWERED
                or call is None
                or not call.answerable
                or entry_of(messages[defect.message_index], call) is not None
            ):
                continue
            by_message.setdefault(defect.message_index, []).append(k)
        taken = {m["id"] for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)}
        inserts: list[tuple[Edit | None, list[int]]] = []
        for index, fixed in by_message.items():
            caller = messages[index]
            ident = caller.get("id")
            name = f"{ident}_response"
            if not isinstance(ident, str) or name in taken:
                inserts.append((None, fixed))
                continue
            fixed.sort(key=lambda k: defects[k].call_index)
            parts = [
                self.written_result(messages, caller, call, text, {})
                for k in fixed
                if (call := defects[k].call) is not None and (text := defects[k].text) is not None
            ]
            message = {
                "id": name,
                "timestamp": caller.get("timestamp"),
                "type": "user",
                "content": parts,
            }
            at = insertion_point(views, index)
            inserts.append((context.insert_messages(at, (message,)), fixed))
        return inserts

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The ``result`` member `_answer` records in the call's entry; for a call of a
        message's ``content`` that no entry records, the ``functionResponse`` part of the
        response message `_response_messages` adds."""
        response: dict[str, Any] = {} if call.id is None else {"id": call.id}
        if call.name is not None:
            response["name"] = call.name
        response["response"] = {"error": text}
        part = {"functionResponse": response}
        return part if caller is not None and entry_of(caller, call) is None else [part]

    @staticmethod
    def _unanswer(
        messages: Sequence[Any], context: ListContext, defect: Defect, defects: Sequence[Defect]
    ) -> tuple[Edit, ...]:
        """``toolpatch strip``: the members `_answer` recorded, removed from the call's entry
        (``resultDisplay`` where it repeats the text); a response message
        `_response_messages` added goes whole once each of its parts goes."""
        assert defect.call is not None
        message = messages[defect.message_index]
        if defect.path[0] == "content":
            gone = sum(d.strip and d.message_index == defect.message_index for d in defects)
            if gone == len(_parts(message.get("content"))):
                deletion = context.delete_message(defect.message_index)
                return () if deletion is None else (deletion,)
            return (Delete((*context.message_pointer(defect.message_index), *defect.path)),)
        k = entry_of(message, defect.call)
        assert k is not None, "a result toolpatch wrote is in an entry or a response message"
        recorded = message["toolCalls"][k]
        where = (*context.message_pointer(defect.message_index), "toolCalls", k)
        text = recorded["result"][0]["functionResponse"]["response"]["error"]
        edits: list[Edit] = [Delete((*where, "result"))]
        if recorded.get("resultDisplay") == text:
            edits.append(Delete((*where, "resultDisplay")))
        return tuple(edits)

    def _answer(
        self, messages: Sequence[Any], context: ListContext, defect: Defect
    ) -> tuple[Edit, ...]:
        """The edits that record a failure in an unanswered call's own entry; none for a call
        of a message's ``content`` that no entry records (the CLI answers a call only through
        its entry or a message of its own, and a message is not added here)."""
        call = defect.call
        if defect.code not in ANSWERED or call is None or not call.answerable:
            return ()
        assert defect.text is not None
        message = messages[defect.message_index]
        k = entry_of(message, call)
        if k is None:
            return ()
        recorded = message["toolCalls"][k]
        where = (*context.message_pointer(defect.message_index), "toolCalls", k)
        result = self.written_result(messages, None, call, defect.text, {})
        edits: list[Edit] = [Replace((*where, "result"), result)]
        if "resultDisplay" not in recorded:
            edits.append(Replace((*where, "resultDisplay"), defect.text))
        return tuple(edits)
