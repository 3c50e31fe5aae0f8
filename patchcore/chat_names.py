"""OpenAI Chat's names (the roles of its messages, and the content-part types of other dialects
that its lists never hold), Anthropic's block types, how every dialect reads a discriminator
(`tag`), and the types and keys of objects that look like tool calls or results.

Shared by the dialect adapters, the quick proof (`patchcore.engine.quick`, and its reading of a
request's settings, `patchcore.engine.request_keys`), the unread objects' count and the session
signs (`patchcore.layouts.base`), and kept apart from the adapters so that the quick
proof of a clean file, and deciding that an input is no session log, do not import them.
"""

from __future__ import annotations

import re

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
#: Keys one of which every dialect's message has (``role``, ``type``, Gemini's and pydantic-ai's
#: ``parts`` and ``kind``, a serialized LangChain object's ``lc``, a stored response's
#: ``output``): a record with none of them is no message, but may hold a history.
MESSAGE_KEYS = frozenset({"role", "type", "parts", "kind", "lc", "output"})
#: Content block types that carry another dialect's tool calls or results.
FOREIGN_PARTS = frozenset(
    {
        "tool_use",
        "server_tool_use",
        "mcp_tool_use",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        # the Vercel AI SDK's ModelMessage parts
        "tool-call",
        "tool-result",
        "tool-approval-request",
        "tool-approval-response",
    }
)

#: OpenAI Responses content part types (`patchcore.dialects.openai_responses`).
RESPONSES_PARTS = frozenset(
    {"input_text", "input_image", "input_file", "input_audio", "output_text", "refusal"}
)
#: Anthropic Messages block types (``content_block_param.py``; results of server tools end in
#: ``_tool_result``, `patchcore.dialects.anthropic`).
ANTHROPIC_BLOCKS = frozenset(
    {
        "text",
        "image",
        "document",
        "search_result",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "server_tool_use",
        "container_upload",
        "mcp_tool_use",
        "mcp_tool_result",
        "tool_reference",
    }
)
#: Anthropic blocks only Anthropic writes: their presence settles detection.
ANTHROPIC_MARKERS = frozenset(
    {"tool_use", "tool_result", "server_tool_use", "thinking", "redacted_thinking", "mcp_tool_use"}
)
#: Anthropic blocks that call a server's tool (answered in the same message).
ANTHROPIC_SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})


def tag(value: object, key: str) -> str | None:
    """A discriminator field (``role``, ``type``, ``kind``) if ``value`` is an object holding a
    string there, else ``None``: a list or object in its place matches no known tag instead of
    failing the set lookup that follows."""
    if not isinstance(value, dict):
        return None
    found = value.get(key)
    return found if isinstance(found, str) else None


def openhands_event(value: object) -> bool:
    """Whether a JSON value is an OpenHands event (``event_to_dict``): an integer ``id``, a
    ``source``, and an ``action`` or an ``observation`` (docs/formats.md#openhands-trajectories)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), int)
        and isinstance(value.get("source"), str)
        and isinstance(value.get("action") or value.get("observation"), str)
    )


# What makes an object look like a tool call or result (`patchcore.engine.unread`, TP004).

#: ``type`` values of call and result objects in formats toolpatch knows of, read or not:
#: Anthropic and LangChain v1 blocks, OpenAI items, MCP blocks.
CALL_TYPES = frozenset(
    {
        "function_call",
        "function_call_output",
        "function_call_result",
        "custom_tool_call",
        "custom_tool_call_output",
        "server_tool_use",
        "mcp_tool_use",
        "mcp_tool_result",
        "mcp_call",
        "dynamic-tool",
    }
)
#: Prefixes of such ``type`` values: ``tool_use``, ``tool_result``, ``tool_call`` and their
#: kin, the AI SDK's ``tool-call``, ``tool-result``, ``tool-invocation`` and v5 ``tool-<name>``
#: parts. (``function_calling`` is SWE-agent's name of a parser, so that family is named whole.)
CALL_TYPE_PREFIXES = ("tool_", "tool-")
#: Types of that family that the provider itself pairs: the Responses API's tool search, run
#: server-side unless its ``execution`` says the client runs it (then its ``call_id`` pairs it).
SERVER_TYPES = frozenset({"tool_search_call", "tool_search_output"})
#: Types of that family that name no call: a count in Anthropic's context management
#: (``"keep": {"type": "tool_uses", "value": 3}`` of a ``clear_tool_uses_…`` edit), which
#: Claude Code sends with every request.
SETTING_TYPES = frozenset({"tool_uses"})
#: A versioned type of Anthropic's in that family (``tool_search_tool_regex_20251119``; others,
#: ``web_search_20250305``, do not start so): the type of a tool definition in a request, which
#: its calls and results never carry (theirs are ``server_tool_use``,
#: ``tool_search_tool_result``, ...). Not the AI SDK's ``tool-<name>`` parts, whose name is any
#: tool's.
_VERSIONED = re.compile(r"\Atool_[a-z_]*_[0-9]{8}\Z")
_NO_CALL = SERVER_TYPES | SETTING_TYPES


def call_type(kind: str) -> bool:
    """Whether a ``type`` is a tool call's or result's: one of `CALL_TYPES`, or of their family
    (`CALL_TYPE_PREFIXES`) but for the server-run types, the settings and the versioned tool
    definitions. The one judgement of a type, for the unread objects' count
    (`patchcore.engine.unread.call_like`) and the quick reading of a request's settings
    (`patchcore.engine.request_keys`), which must agree."""
    return kind in CALL_TYPES or (
        kind.startswith(CALL_TYPE_PREFIXES)
        and kind not in _NO_CALL
        and _VERSIONED.search(kind) is None
    )


#: Keys whose non-empty string names the call an object is, or answers.
ID_KEYS = frozenset({"tool_call_id", "call_id", "tool_use_id", "toolCallId", "toolUseId", "callId"})
#: Keys whose non-empty list holds calls.
LIST_KEYS = frozenset({"tool_calls", "toolCalls", "toolInvocations"})
#: Keys whose object is a call or a result (Goose's requests hold theirs under ``toolCall``).
OBJECT_KEYS = frozenset(
    {
        "functionCall",
        "functionResponse",
        "function_call",
        "function_response",
        "toolUse",
        "toolResult",
        "toolCall",
    }
)
