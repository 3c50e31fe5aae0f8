"""Cline task histories: Anthropic messages whose calls are answered by the next user turn.

Cline (and Roo Code) store a task's conversation in ``api_conversation_history.json``, Anthropic
messages where a ``tool_use`` is often answered by text blocks of the next user message, not by
a ``tool_result``. Cline does not send the file as it is: before each request it gives every
``tool_use`` of an assistant message followed by a user message a ``tool_result`` in that
message (the stored one, moved first, or one saying the result is missing). So a call followed
by a user message is answered; a call with no user message after it is not
(docs/formats.md#cline-and-roo-code-task-histories). Content cannot tell such a file from
Anthropic messages, so this dialect is never detected: it is forced (``--dialect cline``, or the
CLI for files of that name). A missing answer is written as Anthropic's ``tool_result``, which
Cline keeps as it is; like an agent session log's, its calls are never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from patchcore.dialects.anthropic import Anthropic, is_result
from patchcore.dialects.base import SESSION_LOG, ListContext, next_message
from patchcore.model import MessageView, Role, ToolResult


class Cline(Anthropic):
    """Cline's ``api_conversation_history.json``: Anthropic messages, read as Cline sends them."""

    name = "cline"
    title = "Cline task history"
    recognised_by = (
        "never detected (its messages are Anthropic's): forced with --dialect cline, and by the "
        "CLI for a file named `api_conversation_history.json` or any JSON file in a Cline task "
        "folder (one that holds `api_conversation_history.json` or `ui_messages.json`)"
    )
    containers = "`tasks/<id>/api_conversation_history.json` of Cline and Roo Code: a list"
    #: The history is what the agent did, and Cline resumes the task from it.
    kept_calls = SESSION_LOG
    #: Cline moves a stored ``tool_result`` before the other blocks when it sends the turn.
    results_first = False

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """A user message right after an assistant message answers each of its ``tool_use``
        calls that no ``tool_result`` of it answers: by its other blocks (the tool's output as
        text), as the request Cline builds from it does."""
        views = super().views(messages, context)
        for index, view in enumerate(views):
            if view.role is not Role.CALLER:
                continue
            after = next_message(messages, index)
            if after == len(messages) or not self.takes_results(messages[after]):
                continue
            answered = {result.key for result in views[after].results}
            content = messages[after].get("content")
            blocks = content if isinstance(content, list) else []
            text = next((k for k, b in enumerate(blocks) if not is_result(b)), None)
            path = ("content",) if text is None else ("content", text)
            by_text = tuple(
                ToolResult(call.id, path, kind="text")
                for call in view.calls
                if call.kind == "tool_use" and call.id and call.id not in answered
            )
            if by_text:
                held = views[after]
                views[after] = replace(held, results=held.results + by_text)
        return views
