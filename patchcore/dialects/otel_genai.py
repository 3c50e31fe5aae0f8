"""OpenTelemetry GenAI messages: what a traced model call was sent and returned.

The GenAI semantic conventions (open-telemetry/semantic-conventions, ``docs/gen-ai/``, the JSON
schemas ``gen-ai-input-messages.json`` and ``gen-ai-output-messages.json``) record a model
call's messages on its span, in ``gen_ai.input.messages`` and ``gen_ai.output.messages``: a
list of ``ChatMessage`` ``{"role", "parts", "name"?}`` (``finish_reason`` too, on output
messages), each part ``{"type", ...}``:

* ``text`` ``{content}``, ``reasoning``, ``blob``, ``file``, ``uri``: content;
* ``tool_call`` ``{id?, name, arguments?}``: a call the model requested;
* ``tool_call_response`` ``{id?, response}``: a tool's result sent back to the model (in a
  ``tool`` message in the conventions' examples; any role is read);
* ``server_tool_call`` and ``server_tool_call_response``: a tool the provider ran itself, its
  call and outcome recorded together; the provider's, so neither is a call to answer;
* any other ``type`` (the schema's ``GenericPart``): kept unread, and said. A message holding
  one is read only in a list that holds the conventions' own calls or results (another
  format's message with a ``role`` and typed ``parts``, an AI SDK ``UIMessage``, is never
  taken for one).

Pairing: a ``tool_call`` is answered by a later ``tool_call_response`` with its id, wherever it
stands (the conventions record the history in a provider-neutral shape, so no provider's
placement rule is read into it).

Nothing is ever repaired. The messages are a record of what was sent to a model, not a history
an agent resumes: a result written into a span would change what the trace says happened, for
no reader that sends it again. Each call left open is reported, its finding saying why it has
no fix (`TRACED`), and no call is dropped either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from patchcore.dialects.base import (
    Dialect,
    ListContext,
    ListNote,
    Plan,
    Recognition,
    call_id,
    idless_result,
    optional_name,
)
from patchcore.engine.pairing import Answer
from patchcore.model import Defect, MessageView, Pointer, Role, ToolCall, ToolResult

#: Why a call recorded in a trace gets no made-up result, and is never dropped.
TRACED = (
    "a trace records what was sent to the model, not a history an agent resumes: nothing is "
    "written into it"
)

#: The part types the conventions define (the schema's parts but ``GenericPart``).
KNOWN_PARTS = frozenset(
    {
        "text",
        "tool_call",
        "tool_call_response",
        "server_tool_call",
        "server_tool_call_response",
        "blob",
        "file",
        "uri",
        "reasoning",
    }
)
#: The part types only this dialect writes: its markers.
MARKERS = frozenset({"tool_call", "tool_call_response"})


def _parts(message: object) -> list[Any] | None:
    """The parts of a GenAI message (``role`` a string, ``parts`` a list of typed objects), or
    ``None`` for anything else."""
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        return None
    parts = message.get("parts")
    if not isinstance(parts, list):
        return None
    if not all(isinstance(part, dict) and isinstance(part.get("type"), str) for part in parts):
        return None
    return parts


class OtelGenAI(Dialect):
    """OpenTelemetry GenAI ``ChatMessage`` lists (``gen_ai.input.messages``)."""

    name = "otel-genai"
    text_keys = ("content", "parts", "response")
    title = "OpenTelemetry GenAI messages (read-only)"
    kept_calls = TRACED
    recognised_by = (
        "`{role, parts}` messages whose parts are typed objects; `tool_call` parts `{id, name, "
        "arguments}` and `tool_call_response` parts `{id, response}` are its own (checked, "
        "never repaired: a trace records what was sent)"
    )
    containers = (
        "`gen_ai.input.messages` of spans in OTLP-JSON trace exports (one document, or JSON "
        "Lines as the Collector's file exporter writes), or such a list on its own"
    )

    def recognize(self, message: object) -> Recognition:
        parts = _parts(message)
        if parts is None:
            return Recognition.NO
        if any(part["type"] in MARKERS for part in parts):
            return Recognition.DISTINCT
        if any(part["type"] not in KNOWN_PARTS for part in parts):
            return Recognition.TOLERATED  # read only beside the conventions' own calls
        return Recognition.COMPATIBLE

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        others = False
        for k, part in enumerate(message["parts"]):
            where = (*pointer, "parts", k, "id")
            if part["type"] == "tool_call":
                ident = call_id(part.get("id"), where)
                name = optional_name(part.get("name"))
                calls.append(ToolCall(ident, name, path=("parts", k), unanswerable=TRACED))
            elif part["type"] == "tool_call_response":
                answered = call_id(part.get("id"), where)
                results.append(
                    idless_result(answered, pointer, ("parts", k), id_at=("parts", k, "id"))
                )
            else:
                others = True
        if calls or message["role"] == "assistant":
            return MessageView(Role.CALLER, tuple(calls), tuple(results))
        role = Role.RESULTS if results and not others else Role.OTHER
        return MessageView(role, results=tuple(results))

    def note(self, messages: Sequence[Any]) -> ListNote | None:
        unknown = sorted(
            {
                part["type"]
                for message in messages
                for part in message["parts"]
                if part["type"] not in KNOWN_PARTS
            }
        )
        if not unknown:
            return None
        kinds = ", ".join(map(repr, unknown))
        return ListNote(f"parts of types the GenAI conventions do not define ({kinds}) kept unread")

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        return None  # a later response answers its call wherever it stands (module docstring)

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        return [() for _ in defects]  # nothing is written into a trace (`TRACED`)


__all__ = ["TRACED", "OtelGenAI"]
