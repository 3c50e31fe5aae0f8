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

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
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
from patchcore.dialects.gemini import Gemini
from patchcore.engine.defects import ANSWERED, Defect
from patchcore.engine.pairing import Answer
from patchcore.model import (
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
#: How a user message that is a command, not a prompt, starts (it is never sent).
COMMAND_PREFIXES = ("/", "?")


def has_result(value: object) -> bool:
    """Whether a recorded ``result`` gives the call a response when the session resumes: the
    CLI sends a result that is truthy in JavaScript, a part (an object) or its list of parts
    (none for ``[]``), a string as ``response.output``."""
    return isinstance(value, dict) or bool(value)


def _text(content: object) -> str:
    """The text of a message's ``content`` (a string, a part, or a list of either)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        return "".join(_text(part) for part in content)
    return ""


def _unsent(message: dict[str, Any]) -> bool:
    """Whether resuming leaves the message out of the history the model sees."""
    if message["type"] in NOTICES:
        return True
    if message["type"] != "user":
        return False
    text = _text(message.get("content")).strip()
    return not text or text.startswith(COMMAND_PREFIXES)


#: Why a call recorded as ``success`` without a result gets none: it ran, and an error would
#: say it had not.
RAN_WITHOUT_RESULT = (
    "the call is recorded as a success without its result: it ran, and an error result "
    "would say it had not"
)


class GeminiCli(Dialect):
    """Gemini CLI session files (``ConversationRecord.messages``)."""

    name = "gemini-cli"
    title = "Gemini CLI session"
    kept_calls = SESSION_LOG
    recognised_by = (
        "messages with `id`, `type` user / gemini / info / error / warning and `content`; "
        "`gemini` messages hold `toolCalls` entries that carry their own `result` and `status`"
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
        if _unsent(message):
            return MessageView(Role.OTHER, joins_previous=True)
        if message["type"] != "gemini":
            return MessageView(Role.OTHER)
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
            for k, call in enumerate(view.calls):
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
        return [
            self._unanswer(messages, context, defect)
            if defect.strip
            else self._answer(messages, context, defect)
            for defect in defects
        ]

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The ``result`` member `_answer` records in the call's entry."""
        response: dict[str, Any] = {} if call.id is None else {"id": call.id}
        if call.name is not None:
            response["name"] = call.name
        response["response"] = {"error": text}
        return [{"functionResponse": response}]

    @staticmethod
    def _unanswer(
        messages: Sequence[Any], context: ListContext, defect: Defect
    ) -> tuple[Edit, ...]:
        """``toolpatch strip``: the members `_answer` recorded, removed from the call's entry
        (``resultDisplay`` where it repeats the text)."""
        assert defect.call is not None
        recorded = messages[defect.message_index]["toolCalls"][defect.call_index]
        where = (*context.message_pointer(defect.message_index), *defect.call.path)
        text = recorded["result"][0]["functionResponse"]["response"]["error"]
        edits: list[Edit] = [Delete((*where, "result"))]
        if recorded.get("resultDisplay") == text:
            edits.append(Delete((*where, "resultDisplay")))
        return tuple(edits)

    def _answer(
        self, messages: Sequence[Any], context: ListContext, defect: Defect
    ) -> tuple[Edit, ...]:
        """The edits that record a failure in an unanswered call's own entry."""
        call = defect.call
        if defect.code not in ANSWERED or call is None or not call.answerable:
            return ()
        assert defect.text is not None
        recorded = messages[defect.message_index]["toolCalls"][defect.call_index]
        where = (*context.message_pointer(defect.message_index), *call.path)
        result = self.written_result(messages, None, call, defect.text, {})
        edits: list[Edit] = [Replace((*where, "result"), result)]
        if "resultDisplay" not in recorded:
            edits.append(Replace((*where, "resultDisplay"), defect.text))
        return tuple(edits)
