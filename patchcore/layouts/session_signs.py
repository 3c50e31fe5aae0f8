"""What tells an agent session log by its first entry (`patchcore.layouts.base.Head.first_entry`):
the entry types and the marker keys each session layout writes.

Kept apart from the layouts (`patchcore.layouts.sessions`), which import the engine and every
dialect adapter: `patchcore.layouts.layout_of` asks `may_be_session` before it loads them, so
that an input which is no session log (a JSON document, a corpus of conversation lines) is
decided without importing any of it. That is most of a small clean file's start-up
(docs/benchmarks.md#start-up). Each layout's ``recognises_entry`` is its function here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from patchcore.chat_names import openhands_event, tag

#: The entry types of the Anthropic session logs that hold a message.
MESSAGE_TYPES = frozenset({"user", "assistant"})

#: Event lines Claude Code writes besides messages: those of versions 1.0-2.1, and those Claude
#: Code 2.1.332 writes in every session (docs/formats.md#what-else-claude-code-writes says
#: what each holds; none holds a call or a result of the conversation, only copies of them).
CLAUDE_CODE_EVENT_TYPES = frozenset(
    {
        "summary",
        "system",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "attachment",
        "atis-latch",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "last-prompt",
        "cost-state",
        "tools-used",
        "mode",
    }
)
#: Keys only Claude Code lines carry: one of them (with a known type) makes a file a session.
CLAUDE_CODE_MARKERS = frozenset({"sessionId", "uuid", "parentUuid", "leafUuid", "messageId"})
_CLAUDE_CODE_TYPES = MESSAGE_TYPES | CLAUDE_CODE_EVENT_TYPES

#: The other entries the Claude Agent SDK emits (``SDKMessage``) and its stream-json control
#: protocol.
AGENT_SDK_EVENT_TYPES = frozenset(
    {
        "system",
        "result",
        "stream_event",
        "tool_progress",
        "tool_use_summary",
        "auth_status",
        "rate_limit_event",
        "keep_alive",
        "control_request",
        "control_response",
        "control_cancel_request",
    }
)
#: Keys only the SDK's entries carry: one of them (with a known type) makes a file its stream.
AGENT_SDK_MARKERS = frozenset({"parent_tool_use_id", "session_id"})
#: Keys of Claude Code's session lines: an entry with one of them is Claude Code's.
_CLAUDE_CODE_KEYS = frozenset({"sessionId", "parentUuid"})
_AGENT_SDK_TYPES = MESSAGE_TYPES | AGENT_SDK_EVENT_TYPES

#: The line types of a Codex rollout (``world_state``, a snapshot of the thread's settings,
#: and ``token_usage_record``, a model call's token counts, as Codex CLI 0.171 writes them:
#: neither holds a message or a call).
CODEX_LINE_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "token_usage_record",
    }
)

#: The entry types of a pi (or openclaw) session file, its header's included
#: (pi-mono ``session-manager.ts``).
PI_ENTRY_TYPES = frozenset(
    {
        "session",
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


def claude_code_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Claude Code session line."""
    return tag(value, "type") in _CLAUDE_CODE_TYPES and not CLAUDE_CODE_MARKERS.isdisjoint(value)


def agent_sdk_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is an entry of a Claude Agent SDK message stream."""
    kind = tag(value, "type")
    if kind not in _AGENT_SDK_TYPES or AGENT_SDK_MARKERS.isdisjoint(value):
        return False
    if not _CLAUDE_CODE_KEYS.isdisjoint(value):
        return False
    message = value.get("message")
    return kind in AGENT_SDK_EVENT_TYPES or (
        isinstance(message, dict) and message.get("role", kind) == kind
    )


def codex_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a line of a Codex rollout."""
    return tag(value, "type") in CODEX_LINE_TYPES


#: The keys of the first line of a rollout Codex wrote before its lines were wrapped
#: (codex-rs ``SessionMeta``, and ``git`` beside it from ``SessionMetaWithGit``).
_CODEX_BARE_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})


def codex_bare_meta(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the first line of a rollout of the layouts Codex wrote before
    ``{timestamp, type, payload}``: ``{"record_type": "session_meta", "id", ...}``, or earlier
    the bare ``{"id", "timestamp", "instructions"?, "git"?}``."""
    if not isinstance(value.get("id"), str):
        return False
    if value.get("record_type") == "session_meta":
        return True
    return isinstance(value.get("timestamp"), str) and value.keys() <= _CODEX_BARE_META_KEYS


#: The records Kimi CLI writes in its context file besides messages, and their one other key.
KIMI_RECORDS = {"_system_prompt": "content", "_checkpoint": "id", "_usage": "token_count"}


def kimi_record(value: dict[str, Any]) -> bool:
    """Whether a JSON object is one of the records of a Kimi CLI ``context.jsonl`` that is no
    message: ``{"role": "_system_prompt", "content"}``, ``{"role": "_checkpoint", "id"}``,
    ``{"role": "_usage", "token_count"}``, those two keys and no other."""
    other = KIMI_RECORDS.get(tag(value, "role") or "")
    return other is not None and value.keys() == {"role", other}


def kimi_start(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the first record of a Kimi CLI ``context.jsonl``: its
    ``_system_prompt``, or a ``_checkpoint`` in a file older than that."""
    return kimi_record(value) and value["role"] != "_usage"


def copilot_start(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the ``session.start`` event a GitHub Copilot CLI
    ``events.jsonl`` begins with: ``{"type": "session.start", "data": {"sessionId", ...}, "id",
    "timestamp", "parentId": null}``."""
    data = value.get("data")
    return (
        value.get("type") == "session.start"
        and isinstance(data, dict)
        and isinstance(data.get("sessionId"), str)
        and isinstance(value.get("id"), str)
        and "parentId" in value
    )


#: The keys of the ``init`` event Gemini CLI's ``--output-format stream-json`` begins with.
_GEMINI_STREAM_INIT_KEYS = frozenset({"type", "timestamp", "session_id", "model"})


def gemini_stream_init(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the ``init`` event of Gemini CLI's stream-json output:
    ``{"type": "init", "timestamp", "session_id", "model"}``, those keys and no other."""
    return (
        value.get("type") == "init"
        and value.keys() == _GEMINI_STREAM_INIT_KEYS
        and all(isinstance(value[key], str) for key in _GEMINI_STREAM_INIT_KEYS)
    )


def gemini_cli_metadata(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Gemini CLI session log's metadata line (a whole session
    document has ``messages`` besides)."""
    return (
        isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
        and "messages" not in value
    )


def pi_header(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a pi session file's header (what pi's loader requires,
    ``type: "session"`` and a string ``id``, and the ``cwd`` every header has)."""
    return tag(value, "type") == "session" and isinstance(value.get("id"), str) and "cwd" in value


def goose_metadata(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Goose session file's metadata line (``SessionMetadata``:
    goose requires ``description`` and ``message_count``)."""
    return (
        isinstance(value.get("description"), str)
        and isinstance(value.get("message_count"), int)
        and "role" not in value
    )


#: Every layout's sign, whatever the order the layouts are asked in.
_SIGNS: tuple[Callable[[dict[str, Any]], bool], ...] = (
    claude_code_entry,
    agent_sdk_entry,
    codex_entry,
    codex_bare_meta,
    copilot_start,
    kimi_start,
    gemini_cli_metadata,
    gemini_stream_init,
    pi_header,
    openhands_event,
    goose_metadata,
)


def may_be_session(value: object) -> bool:
    """Whether a first entry is one of some session layout (which the layout then decides,
    with the input's framing and ``--dialect``)."""
    return isinstance(value, dict) and any(sign(value) for sign in _SIGNS)
