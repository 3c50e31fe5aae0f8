"""Gemini CLI's ``--output-format stream-json`` output: the events ``gemini -p`` prints, saved.

``runNonInteractive`` (``packages/cli/src/nonInteractiveCli.ts``) prints one JSON event a line
through ``StreamJsonFormatter`` (``packages/core/src/output``), each with its ``timestamp``:

* ``init`` first, ``{session_id, model}``;
* ``message``: the user's prompt, ``{role: "user", content}``, and each chunk of the model's
  text, ``{role: "assistant", content, delta: true}``;
* ``tool_use``: a call the model made, ``{tool_name, tool_id, parameters}``;
* ``tool_result``: what the scheduler returned for it, ``{tool_id, status: "success" | "error",
  output?, error?: {type, message}}``, one for every call of a turn (a cancelled call too) once
  all have completed, before the model is asked again;
* ``error`` (a warning or an error of the run) and ``result`` (the run's end, with its stats).

A ``tool_use`` with no ``tool_result`` is a run that died with the call under way (killed, or
crashed), or a log cut short. Each event is read as the Responses item it stands for
(``function_call``, ``function_call_output``, ``message``) and paired on ``tool_id`` by the
Responses rules; ``init``, ``error`` and ``result`` are no messages.

Nothing is repaired. This log is the CLI's output, not what it resumes from: ``gemini --resume``
reads its own chat recording (``~/.gemini/tmp/<project>/chats/session-*``, the Gemini CLI
layouts), so an event added here would change what the log says happened, for no reader that
resumes. A call without its result is reported, its finding saying so, and ``fix`` leaves it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from patchcore.chat_names import tag
from patchcore.dialects.base import SESSION_LOG, ListContext
from patchcore.dialects.openai_responses import OpenAIResponses
from patchcore.engine.check import check_list
from patchcore.errors import ShapeError
from patchcore.layouts.base import Analysis, gemini_stream_init
from patchcore.layouts.sessions.entries import Entry, place, relocated
from patchcore.layouts.sessions.layout import SessionLayout, listed, odd_entry, unread
from patchcore.options import Options
from patchcore.result import Conversation

RESPONSES = OpenAIResponses()

#: Why a call of the stream gets no made-up result.
OUTPUT_ONLY = (
    "a stream-json log is Gemini CLI's output, not what it resumes from (its chat recording "
    "is): nothing is written into it"
)
#: The events that are no messages.
RUN_EVENTS = frozenset({"init", "error", "result"})


def _item(value: dict[str, Any]) -> dict[str, Any] | str | None:
    """The Responses item an event stands for, ``None`` for an event of the run, or why it is
    kept unread."""
    kind = tag(value, "type")
    if kind in RUN_EVENTS:
        return None
    if kind == "message":
        content = value.get("content")
        role = tag(value, "role")
        if role not in ("user", "assistant") or not isinstance(content, str):
            return "a message event without a user or assistant role and text"
        return {"type": "message", "role": role, "content": content}
    if kind == "tool_use":
        call = {"type": "function_call", "call_id": value.get("tool_id")}
        if isinstance(value.get("tool_name"), str):
            call["name"] = value["tool_name"]
        call["arguments"] = json.dumps(value.get("parameters"))
        return call
    if kind == "tool_result":
        failure = value.get("error")
        output = value.get("output")
        if isinstance(failure, dict) and isinstance(failure.get("message"), str):
            output = failure["message"]
        text = output if isinstance(output, str) else ""
        return {"type": "function_call_output", "call_id": value.get("tool_id"), "output": text}
    return f"an event of unknown type {kind!r}" if kind else "an object without 'type'"


class GeminiStream(SessionLayout):
    """Gemini CLI ``--output-format stream-json`` output, JSON Lines."""

    short_name = "gemini-stream-json"
    title = "Gemini CLI stream-json output"
    recognised_by = (
        'JSON Lines whose first event is `{"type": "init", timestamp, session_id, model}`, then '
        "`message`, `tool_use`, `tool_result`, `error` and `result` events (checked, never "
        "repaired: the CLI does not resume from it)"
    )
    containers = "what `gemini -p ... --output-format stream-json` prints, saved"
    name = "gemini-stream-json"
    dialect = RESPONSES

    def recognises_entry(self, value: dict[str, Any]) -> bool:
        return gemini_stream_init(value)

    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        notes: list[Conversation] = []
        lines: list[Entry] = []
        items: list[Any] = []
        for entry in entries:
            odd = odd_entry(entry)
            read = _item(entry.value) if odd is None else None
            if odd is not None:
                notes.append(odd)
            elif isinstance(read, str):
                notes.append(unread(entry, read))
            elif read is not None or lines:
                # the run's own events belong to the turn before them: none before the first
                lines.append(entry)
                items.append(read)
        context = ListContext(
            (), sealed_reason=OUTPUT_ONLY, kept_calls=None if options.strip else SESSION_LOG
        )
        try:
            found = check_list(items, dialect=RESPONSES, context=context, options=options)
        except ShapeError as error:
            raise relocated(error, lines[int(error.path[0])], ()) from None
        findings = []
        for finding in found:
            row, column = place(lines[finding.message_index], ())
            # No provider is sent this log: its findings name the stream, not the Responses API
            # whose refusal a report would quote.
            findings.append(
                replace(
                    finding,
                    dialect=self.name,
                    provider_error=None,
                    message_path=(),
                    line=row,
                    column=column,
                    fix=None,
                )
            )
        first = lines[0].record.line if lines else 1
        nothing = [() for _ in found]
        stream = listed(first, RESPONSES.name, items, context, found, findings, options, nothing)
        reports = sorted([stream, *notes], key=lambda r: r.line or 0)
        return Analysis(tuple(reports), tuple(findings))
