"""What a person reads in a message of any dialect: its role, its text, a call's arguments.

Best effort and display only: the dialect adapters decide what is a call and a result; this
module only finds words to show, in the places the supported formats keep them (LangChain
``{"type", "data"}`` and ``dumpd`` envelopes, ``content`` strings and blocks, Gemini and
pydantic-ai ``parts``, LlamaIndex ``blocks``, Responses ``output``, Bedrock and Gemini
single-key blocks).
"""

from __future__ import annotations

import json
from typing import Any

from patchcore import Pointer

#: Keys naming a message's kind, in the order they are trusted (an OpenHands event has only
#: its ``source``).
ROLE_KEYS = ("role", "type", "kind", "part_kind", "source")
#: Keys holding a message's or block's words (Gemini results: ``response.error``/``result``;
#: LlamaIndex: ``blocks``; an OpenHands action: ``message``).
TEXT_KEYS = (
    "text",
    "content",
    "parts",
    "blocks",
    "output",
    "response",
    "error",
    "result",
    "message",
)
#: Keys holding a call's arguments, and the keys of objects that wrap a call.
ARGUMENT_KEYS = ("args", "arguments", "input", "tool_kwargs")
CALL_WRAPPERS = ("function", "functionCall", "function_call", "toolUse")


def body(message: Any) -> Any:
    """The object holding a message's fields: inside a LangChain envelope, an opencode
    message's ``info`` with its ``parts``, or the message."""
    if isinstance(message, dict):
        if isinstance(message.get("info"), dict) and isinstance(message.get("parts"), list):
            return {**message["info"], "parts": message["parts"]}
        if message.get("lc") == 1 and isinstance(message.get("kwargs"), dict):
            return message["kwargs"]
        if isinstance(message.get("data"), dict) and isinstance(message.get("type"), str):
            return message["data"]
    return message


def role(message: Any) -> str:
    """``assistant``, ``ai``, ``AIMessage``, ``function_call``, ... or ``message``."""
    if not isinstance(message, dict):
        return "message"
    ident = message.get("id")
    if message.get("lc") == 1 and isinstance(ident, list) and ident:
        return str(ident[-1])
    fields = body(message)
    return next((fields[key] for key in ROLE_KEYS if isinstance(fields.get(key), str)), "message")


def text(value: Any) -> str:
    """The words in a message, a block or a list of blocks (calls and data left out)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (text(item) for item in value) if t)
    if not isinstance(value, dict):
        return ""
    value = body(value)
    for key in TEXT_KEYS:
        if key in value:
            return text(value[key])
    if len(value) == 1:  # {"toolResult": {...}}, {"text": ...} spelled as a wrapper
        return text(next(iter(value.values())))
    return ""


def at(value: Any, pointer: Pointer) -> Any:
    """The value at ``pointer`` inside ``value``, or ``None`` where there is none."""
    for part in pointer:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def arguments(call: Any) -> str:
    """A call's arguments as one line of JSON (a string, such as OpenAI's, as written)."""
    if not isinstance(call, dict):
        return ""
    for key in ARGUMENT_KEYS:
        if key in call:
            found = call[key]
            return found if isinstance(found, str) else compact(found)
    for key in CALL_WRAPPERS:
        if isinstance(call.get(key), dict):
            return arguments(call[key])
    return ""


def compact(value: Any) -> str:
    """``value`` as one line of JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def shorten(words: str, limit: int | None) -> str:
    """``words`` cut to ``limit`` characters (``None``: no limit), saying how much was left."""
    if limit is None or len(words) <= limit:
        return words
    return f"{words[:limit].rstrip()}… ({len(words) - limit} more characters)"
