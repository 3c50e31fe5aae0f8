"""Vercel AI SDK ``UIMessage`` lists: tool parts that carry their own state and result.

Apps built on the AI SDK (``useChat``) keep a chat as the ``UIMessage`` list the client holds,
``{id, role, parts, metadata?}`` (``packages/ai/src/ui/ui-messages.ts``), and send it back to
the server, which turns it into the model's history with ``convertToModelMessages``. A call
and its result share one part; two spellings are read:

* AI SDK 5 and later: a tool part is ``{"type": "tool-NAME", toolCallId, state, input?,
  output?, errorText?, approval?, providerExecuted?}`` (``"type": "dynamic-tool"`` with
  ``toolName`` for a tool not known when the app was built). ``convertToModelMessages`` sends
  a part in ``input-streaming`` not at all, every other part as a ``tool-call``, and a result
  for ``output-available``, ``output-error``, ``output-denied`` and a denied
  ``approval-responded``; an approved ``approval-responded`` part is run by the SDK on the next
  request (the ``tool-approval-response`` it sends stands in for the result), a part in
  ``input-available`` or ``approval-requested`` gets none, and the SDK's prompt check refuses
  the history (``MissingToolResultsError``), unless the part is ``providerExecuted``: the
  provider ran it and keeps its result, and the SDK checks nothing of it.
* AI SDK 4: an assistant message's ``toolInvocations`` entries ``{state, toolCallId,
  toolName, args, result?, step?}`` and, since 4.2, the same invocations again in ``parts``
  as ``{"type": "tool-invocation", "toolInvocation": {...}}``. ``convertToCoreMessages``
  reads ``parts`` when the message has them, else ``toolInvocations``, and throws
  ``ToolInvocation must have a result`` for an invocation whose state is ``partial-call`` or
  ``call``.

Pairing: every tool part is a call keyed by its place, answered in place when its state holds
a result (or the SDK stands in for one, as above). A part awaiting an approval
(``approval-requested``) is reported and never answered: a made-up result would take the
decision from the user.

Repair, in the part itself, as the SDK records a tool that failed: ``Chat.addToolOutput({state:
"output-error", errorText})`` spreads ``{...part, state, output, errorText}``, so ``state``
becomes ``"output-error"`` in its place and ``errorText`` is added (``output`` is undefined and
never written). An AI SDK 4 invocation gets what ``updateToolCallResult`` (``addToolResult``)
writes, ``state: "result"`` and ``result``, in both of its copies. Nothing else is touched.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from patchcore.chat_names import tag
from patchcore.dialects.base import (
    Dialect,
    ListContext,
    Plan,
    Recognition,
    call_id,
    entry,
    list_field,
    optional_name,
)
from patchcore.engine.apply import value_at
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
    format_pointer,
)

#: The roles of a ``UIMessage`` (AI SDK 4 also stored ``data`` messages, which it never sent).
ROLES = frozenset({"system", "user", "assistant", "data"})
#: States whose part holds the call's result, or for which the SDK sends one of its own.
ANSWERED_STATES = frozenset({"output-available", "output-error", "output-denied"})
#: The state of a part whose approval was decided: the SDK sends the decision, and runs an
#: approved call (or answers a denied one as ``execution-denied``) on the next request.
DECIDED = "approval-responded"
#: The state of a part still streaming its input: ``convertToModelMessages`` leaves it out.
STREAMING = "input-streaming"
#: A call sent to the model that waits for its result.
WAITING = "input-available"
#: A call that waits for the user's approval.
APPROVAL = "approval-requested"
#: An AI SDK 4 invocation's states: only ``result`` carries one.
V4_STATES = frozenset({"partial-call", "call", "result"})
#: The states of an AI SDK 4 invocation that waits for its result.
OPEN_V4_STATES = frozenset({"partial-call", "call"})

#: The part types a ``UIMessage`` holds besides tool parts (``tool-NAME``, ``dynamic-tool``) and
#: data parts (``data-NAME``): AI SDK 5+ (``validateUIMessages``) and AI SDK 4 (``source``,
#: ``tool-invocation``). A part of another type is none of the SDK's: such a message is not
#: read as one (a call of a kind not known here must not pass unread).
PART_TYPES = frozenset(
    {
        "text",
        "reasoning",
        "custom",
        "source-url",
        "source-document",
        "file",
        "reasoning-file",
        "step-start",
        "source",
        "tool-invocation",
    }
)

#: The member of an AI SDK 4 ``parts`` entry that holds the invocation.
V4_MEMBER = "toolInvocation"

#: Why a part awaiting an approval gets no result.
AWAITS_APPROVAL = (
    "it awaits the user's approval (state `approval-requested`): the decision, not a made-up "
    "result, answers it"
)


def _unknown_state(holder: Mapping[str, Any]) -> str:
    """Why a part (or AI SDK 4 invocation) whose state the SDK does not write gets no result."""
    state = holder.get("state")
    return f"its state {state!r} is not one the AI SDK writes, so what it holds is not known"


def is_v5_tool(part: object) -> bool:
    """Whether ``part`` is an AI SDK 5+ tool part (``tool-NAME`` or ``dynamic-tool``): the
    SDK's ``isToolUIPart`` reads every type that starts with ``tool-``; an AI SDK 4
    ``tool-invocation`` part holds its invocation in a member of its own instead."""
    kind = tag(part, "type")
    if kind is None or not isinstance(part, dict) or V4_MEMBER in part:
        return False
    return kind == "dynamic-tool" or kind.startswith("tool-")


def tool_name(part: Mapping[str, Any]) -> str | None:
    """The tool a v5+ part calls: ``toolName`` of a dynamic tool, the type's rest for another
    (the SDK's ``getToolName``)."""
    if part.get("type") == "dynamic-tool":
        return optional_name(part.get("toolName"))
    return optional_name(str(part["type"]).split("-", 1)[1])


def _typed(parts: object) -> bool:
    """Whether ``parts`` is a list of the SDK's typed parts: what tells a ``UIMessage`` from a
    Gemini turn, whose parts carry no ``type``."""
    return isinstance(parts, list) and all(_known(tag(part, "type")) for part in parts)


def _known(kind: str | None) -> bool:
    """Whether ``kind`` is a part type of a ``UIMessage``."""
    if kind is None:
        return False
    return kind in PART_TYPES or kind.startswith(("tool-", "data-")) or kind == "dynamic-tool"


def _invocations(message: Mapping[str, Any], pointer: Pointer) -> Iterator[tuple[Pointer, Any]]:
    """The AI SDK 4 invocations ``convertToCoreMessages`` reads, each with its path in the
    message: those of ``parts`` when the message has a ``parts`` list, else
    ``toolInvocations``."""
    parts = message.get("parts")
    if isinstance(parts, list):
        for k, part in enumerate(parts):
            if tag(part, "type") == "tool-invocation":
                yield ("parts", k, V4_MEMBER), entry(part.get(V4_MEMBER), (*pointer, "parts", k))
        return
    for k, raw in enumerate(list_field(message, "toolInvocations", pointer)):
        yield ("toolInvocations", k), entry(raw, (*pointer, "toolInvocations", k))


class AISdkUI(Dialect):
    """Vercel AI SDK ``UIMessage`` lists (``useChat`` messages, AI SDK 4 to 6)."""

    name = "ai-sdk-ui"
    text_keys = ("text", "content", "parts", "output")
    argument_keys = ("args", "input")
    title = "Vercel AI SDK UIMessage"
    recognised_by = (
        "`id`, `role` and a `parts` list of typed parts; tool parts `tool-NAME` / "
        "`dynamic-tool` with `toolCallId` and `state` (AI SDK 5+), or AI SDK 4 "
        "`toolInvocations` / `tool-invocation` parts"
    )
    containers = (
        "a list; `messages` of a chat saved by an app built on `useChat` (a database row, a "
        "JSON file), or of a request to its chat route"
    )
    spelling_of = "openai-chat"  # its plain messages, `{role, content}`, are Chat's
    provider_errors: ClassVar[Mapping[str, str]] = dict.fromkeys(
        ("TP001", "TP002"), "AI_MissingToolResultsError: Tool result is missing for tool call {id}."
    )

    def provider_error(self, defect: Defect) -> str | None:
        """AI SDK 4 refuses an invocation without a result before any request is made, in
        ``convertToCoreMessages``; AI SDK 5 and later send its call and refuse the prompt."""
        if defect.call is not None and defect.call.kind is None and defect.call.answerable:
            return "AI_MessageConversionError: ToolInvocation must have a result"
        return super().provider_error(defect)

    def recognize(self, message: object) -> Recognition:
        if not isinstance(message, dict) or tag(message, "role") not in ROLES:
            return Recognition.NO
        if "id" not in message or "tool_calls" in message:
            return Recognition.NO
        parts = message.get("parts")
        invocations = message.get("toolInvocations")
        if parts is None and isinstance(invocations, list):
            return Recognition.DISTINCT
        if parts is None and isinstance(message.get("content"), str):
            return Recognition.COMPATIBLE  # an AI SDK 4 message written before ``parts``
        if not _typed(parts):
            return Recognition.NO
        assert isinstance(parts, list)
        if isinstance(invocations, list) or any(
            is_v5_tool(part) or part["type"] in ("tool-invocation", "step-start") for part in parts
        ):
            return Recognition.DISTINCT
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        if message.get("role") != "assistant":
            return MessageView(Role.OTHER)
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        if any(is_v5_tool(part) for part in list_field(message, "parts", pointer)):
            found = self._parts(message, pointer)
        else:
            found = self._v4(message, pointer)
        for call, result in found:
            calls.append(call)
            if result is not None:
                results.append(result)
        return MessageView(Role.CALLER, tuple(calls), inner_results=tuple(results))

    @staticmethod
    def _parts(
        message: Mapping[str, Any], pointer: Pointer
    ) -> Iterator[tuple[ToolCall, ToolResult | None]]:
        """The calls of an AI SDK 5+ message's tool parts, each with its result in place."""
        for k, part in enumerate(message["parts"]):
            if not is_v5_tool(part):
                continue
            where = (*pointer, "parts", k)
            state = tag(part, "state")
            key = format_pointer(where)
            unanswerable = None
            if state == APPROVAL:
                unanswerable = AWAITS_APPROVAL
            elif state not in (*ANSWERED_STATES, DECIDED, STREAMING, WAITING):
                unanswerable = _unknown_state(part)
            call = ToolCall(
                id=call_id(part.get("toolCallId"), (*where, "toolCallId")),
                name=tool_name(part),
                path=("parts", k),
                key=key,
                unanswerable=unanswerable,
                kind=str(part["type"]),
            )
            answered = (
                state in ANSWERED_STATES
                or state in (DECIDED, STREAMING)
                or (state == WAITING and part.get("providerExecuted") is True)
            )
            at: Pointer = ("parts", k, "errorText") if state == "output-error" else ("parts", k)
            yield call, ToolResult(key, at, keyed=False) if answered else None

    @staticmethod
    def _v4(
        message: Mapping[str, Any], pointer: Pointer
    ) -> Iterator[tuple[ToolCall, ToolResult | None]]:
        """The calls of an AI SDK 4 message's invocations, each with its result in place."""
        for path, invocation in _invocations(message, pointer):
            where = (*pointer, *path)
            state = tag(invocation, "state")
            key = format_pointer(where)
            call = ToolCall(
                id=call_id(invocation.get("toolCallId"), (*where, "toolCallId")),
                name=optional_name(invocation.get("toolName")),
                path=path,
                key=key,
                unanswerable=None if state in V4_STATES else _unknown_state(invocation),
            )
            answered = state == "result" and "result" in invocation
            yield call, ToolResult(key, (*path, "result"), keyed=False) if answered else None

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        return None  # a result is part of its call's own part: it cannot be anywhere else

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The member `plan` records the text in: ``errorText`` of a v5+ part, ``result`` of an
        AI SDK 4 invocation; both are the text itself."""
        return text

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        plan: Plan = []
        for defect in defects:
            call = defect.call
            if call is None or not (defect.strip or (defect.code in ANSWERED and call.answerable)):
                plan.append(())
                continue
            message = messages[defect.message_index]
            pointer = context.message_pointer(defect.message_index)
            copies = (
                [call.path] if call.kind is not None else _copies(message, call, strip=defect.strip)
            )
            edits: list[Edit] = []
            for path in copies:
                where = (*pointer, *path)
                if defect.strip:
                    edits += _unanswer(where, v4=call.kind is None)
                else:
                    assert defect.text is not None
                    edits += _answer(where, defect.text, v4=call.kind is None)
            plan.append(tuple(edits))
        return plan


def _copies(message: Mapping[str, Any], call: ToolCall, *, strip: bool) -> list[Pointer]:
    """The paths of an AI SDK 4 invocation in both places it is written (``parts`` and
    ``toolInvocations``, matched on ``toolCallId`` as ``updateToolCallResult`` matches them),
    the one read first; the other copy only while it says what the one read says (it waits
    for its result; for ``strip``, it holds the same result): a copy that says anything else
    is kept as it is."""
    paths: list[Pointer] = [call.path]
    read = value_at(message, call.path)
    if call.path[0] == "parts" and call.id is not None:
        for k, invocation in enumerate(message.get("toolInvocations") or []):
            if not isinstance(invocation, dict) or invocation.get("toolCallId") != call.id:
                continue
            if strip:
                same = invocation.get("state") == "result" and "result" in invocation
                same = same and invocation["result"] == read.get("result")
            else:
                same = tag(invocation, "state") in OPEN_V4_STATES
            if same:
                paths.append(("toolInvocations", k))
    return paths


def _answer(where: Pointer, text: str, *, v4: bool) -> list[Edit]:
    """What a failed tool leaves in the part (or AI SDK 4 invocation) at ``where``."""
    if v4:
        return [Replace((*where, "state"), "result"), Replace((*where, "result"), text)]
    return [Replace((*where, "state"), "output-error"), Replace((*where, "errorText"), text)]


def _unanswer(where: Pointer, *, v4: bool) -> list[Edit]:
    """``toolpatch strip``: the part at ``where`` put back as it was before `_answer`."""
    if v4:
        return [Replace((*where, "state"), "call"), Delete((*where, "result"))]
    return [Replace((*where, "state"), WAITING), Delete((*where, "errorText"))]
