"""A fast proof that a record is clean, for the two most common corpus shapes.

Most lines of a large corpus need no change, and parsing every message body just to learn that
is most of the cost. For a record that holds one conversation at ``messages`` (or is itself the
list), in LangChain ``messages_to_dict`` shape or OpenAI Chat shape, msgspec decodes only the
fields pairing depends on (message kinds, call ids, result ids) and skips the bodies at C speed;
the calls are then paired by counting, which decides exactly what the engine's stack decides:
whether any call is left open.

The answer is either "clean" (with what the full path would have listed) or "don't know": any
doubt (another shape, a field the full path reads differently, anything that might hold another
message list) sends the record down the full path. So this module only ever skips work; it
never decides a finding. Only the TP0xx rules can be proven this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import msgspec

from patchcore.chat_names import FOREIGN_PARTS, ROLES

#: Keys that some dialect needs to see a message (or a wrapper of one). A value that has none of
#: them as a key cannot hold a message list.
_MESSAGE_KEYS = (
    b'"role"',
    b'"type"',
    b'"parts"',
    b'"kind"',
    b'"lc"',
    b'"content"',
    b'"data"',
    b'"message"',
    b'"raw_item"',
    b'"payload"',
    b'"call_id"',
)
#: Keys that make a record itself a message (a stored response), not a holder of a history.
_MESSAGE_RECORD_KEYS = frozenset({"role", "type", "parts", "kind", "lc", "output"})
#: Content-block types that carry calls or results (LangChain reads calls from them; OpenAI
#: Chat turns away a list holding them).
_CALL_BLOCKS = frozenset(
    {"tool_use", "server_tool_use", "mcp_tool_use", "function_call", "tool_call"} | FOREIGN_PARTS
)


#: A raw ``null`` (msgspec reads a ``Raw | None`` field as ``None`` only: Raw holds it as is).
_NULL = msgspec.Raw(b"null")


class _Part(msgspec.Struct):
    type: str


class _LangChainCall(msgspec.Struct):
    id: Union[str, None] = None  # noqa: UP007 - msgspec reads the annotation at runtime


class _AIData(msgspec.Struct):
    tool_calls: Union[list[_LangChainCall], None] = None  # noqa: UP007
    invalid_tool_calls: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    tool_call_chunks: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    additional_kwargs: msgspec.Raw = _NULL
    content: msgspec.Raw = _NULL


class _ToolData(msgspec.Struct):
    tool_call_id: Union[str, None] = None  # noqa: UP007


class _OtherData(msgspec.Struct):
    pass


# One class per message type: the outer "type" picks it, so only an AI message's body is read
# at all, and a type the full path treats otherwise (chunks, RemoveMessage) fails to decode.
class _AI(msgspec.Struct, tag_field="type", tag="ai", forbid_unknown_fields=True):
    data: _AIData


class _Tool(msgspec.Struct, tag_field="type", tag="tool", forbid_unknown_fields=True):
    data: _ToolData


class _Human(msgspec.Struct, tag_field="type", tag="human", forbid_unknown_fields=True):
    data: _OtherData


class _System(msgspec.Struct, tag_field="type", tag="system", forbid_unknown_fields=True):
    data: _OtherData


class _Chat(msgspec.Struct, tag_field="type", tag="chat", forbid_unknown_fields=True):
    data: _OtherData


class _Function(msgspec.Struct, tag_field="type", tag="function", forbid_unknown_fields=True):
    data: _OtherData


_LangChainMessage = Union[_AI, _Tool, _Human, _System, _Chat, _Function]  # noqa: UP007


class _ChatCall(msgspec.Struct):
    id: Union[str, None] = None  # noqa: UP007


class _ChatMessage(msgspec.Struct):
    role: str
    tool_calls: Union[list[_ChatCall], None] = None  # noqa: UP007
    tool_call_id: Union[str, None] = None  # noqa: UP007
    tool_call_ids: Union[list[str], None] = None  # noqa: UP007
    id: msgspec.Raw = _NULL
    content: msgspec.Raw = _NULL


_RECORD = msgspec.json.Decoder(Union[dict[str, msgspec.Raw], list[msgspec.Raw]])  # noqa: UP007
_LANGCHAIN = msgspec.json.Decoder(list[_LangChainMessage])
_CHAT = msgspec.json.Decoder(list[_ChatMessage])
_STRING = msgspec.json.Decoder(str)
_PARTS = msgspec.json.Decoder(list[_Part])


@dataclass(frozen=True, slots=True)
class Clean:
    """The record has no TP0xx finding; what the full path would have listed for it."""

    pointer: str
    dialect: str
    messages: int


def _first(raw: msgspec.Raw) -> bytes:
    """The first byte of a raw value (which tells its JSON type), without copying the rest."""
    return bytes(memoryview(raw)[:1])


def _could_hold_messages(raw: msgspec.Raw) -> bool:
    """Whether a value other than the history might hold a message list of its own."""
    if _first(raw) not in (b"{", b"["):
        return False
    data = bytes(raw)
    return b"\\u" in data or any(key in data for key in _MESSAGE_KEYS)


def _unsure_content(content: msgspec.Raw) -> bool:
    """Whether a content value may carry calls, results or parts the full path reads: a block
    list that is not made of typed blocks free of tool blocks."""
    if _first(content) != b"[":
        return False
    try:
        parts = _PARTS.decode(content)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True
    return any(p.type in _CALL_BLOCKS or p.type.endswith("tool_result") for p in parts)


def _langchain(raw: msgspec.Raw) -> int | None:
    """Message count if ``raw`` is a clean LangChain ``messages_to_dict`` list, else ``None``.

    Calls and results are paired by counting per id, which decides exactly what the engine's
    stack decides: whether any call is left open.
    """
    try:
        messages = _LANGCHAIN.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    open_calls: dict[str, int] = {}
    for message in messages:
        if isinstance(message, _AI):
            data = message.data
            if data.invalid_tool_calls or data.tool_call_chunks or _unsure_content(data.content):
                return None
            if not data.tool_calls:
                if b'"tool_calls"' in bytes(data.additional_kwargs):
                    return None
                continue
            for call in data.tool_calls:
                if call.id:
                    open_calls[call.id] = open_calls.get(call.id, 0) + 1
        elif isinstance(message, _Tool):
            key = message.data.tool_call_id
            if key and open_calls.get(key):
                open_calls[key] -= 1
    return None if any(open_calls.values()) else len(messages)


def _chat(raw: msgspec.Raw) -> int | None:
    """Message count if ``raw`` is a clean OpenAI Chat list, else ``None``."""
    try:
        messages = _CHAT.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    open_calls: dict[str, int] = {}
    for message in messages:
        role, content = message.role, message.content
        if role not in ROLES or _unsure_content(content):
            return None
        if _first(content) not in (b'"', b"[", b"n"):
            return None  # content of another type: the full path says why
        if role == "assistant":
            for call in message.tool_calls or ():
                if call.id:
                    open_calls[call.id] = open_calls.get(call.id, 0) + 1
        elif role == "tool":
            answered = _answered(message)
            if answered is None:
                return None
            for key in answered:
                if key and open_calls.get(key):
                    open_calls[key] -= 1
    return None if any(open_calls.values()) else len(messages)


def _answered(message: _ChatMessage) -> list[str] | None:
    """The keys a tool message answers, read as the full path reads them (``None``: unsure)."""
    if message.tool_call_id is not None:
        return [message.tool_call_id]
    if message.tool_call_ids is not None:
        return message.tool_call_ids
    if _first(message.id) == b"n":
        return []
    try:
        return [_STRING.decode(message.id)]
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def clean(raw: bytes) -> Clean | None:
    """Prove that a record is clean under the TP0xx rules, or return ``None`` (don't know)."""
    try:
        return _clean(raw)
    except RecursionError:  # msgspec recurses per nesting level; the full path locates the error
        return None


def _clean(raw: bytes) -> Clean | None:
    try:
        record = _RECORD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if isinstance(record, list):
        history, pointer = msgspec.Raw(raw), ""
    else:
        found = record.get("messages")
        if (
            found is None
            or not _MESSAGE_RECORD_KEYS.isdisjoint(record)
            or any(_could_hold_messages(v) for k, v in record.items() if k != "messages")
        ):
            return None
        history, pointer = found, "/messages"
    if _first(history) != b"[":
        return None
    for dialect, reader in (("langchain", _langchain), ("openai-chat", _chat)):
        count = reader(history)
        if count is not None:
            return Clean(pointer, dialect, count) if count else None
    return None
