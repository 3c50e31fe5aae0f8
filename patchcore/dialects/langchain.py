"""LangChain messages serialised as JSON, in the three shapes langchain-core writes.

* ``messages_to_dict``: ``{"type": "ai", "data": {...}}``
* ``dumpd`` / ``dumps``: ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
  "kwargs": {...}}`` (Python ``["langchain", "schema", "messages", X]`` or JS
  ``["langchain_core", "messages", X]``)
* ``model_dump``: flat ``{"content": ..., "type": "ai", ...}``, with or without ``null`` keys

Calls are read with LangChain's own precedence (``AIMessage._backwards_compat_tool_calls``):
``tool_calls`` and ``invalid_tool_calls``; for chunks ``tool_call_chunks`` when both are empty;
``additional_kwargs["tool_calls"]`` only when all of those are empty. Provider-native call blocks
left in ``content`` (Anthropic ``tool_use``, Responses ``function_call``, v1 ``tool_call``) whose
id is missing from the parsed calls count too: the provider integrations send them (a thread
that ignored them failed permanently).

Such a call exists for one provider only. langchain-anthropic sends a ``tool_use`` block as
it is, and langchain-openai's Responses API sends a ``function_call`` block as an input item, so a
ToolMessage answers them there; langchain-openai drops ``tool_use`` blocks (and, for Chat
Completions, v1 ``tool_call`` blocks), and langchain-anthropic drops ``function_call`` blocks and
passes a v1 ``tool_call`` block whose id ``tool_calls`` lacks on unconverted, so there any
ToolMessage for them, the synthetic one included, has no call. The
synthetic ToolMessage is still written (the history belongs to the provider that made the
block; making the call a ``tool_calls`` entry would rewrite the model's message), and the
finding says which provider it fits.

The synthetic ``ToolMessage`` has exactly the keys langchain-core writes for a ``ToolMessage`` in
the calling message's shape; nothing is ever loaded through langchain-core.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.dialects.base import (
    ListNote,
    Recognition,
    ResultMessageDialect,
    call_id,
    deletions,
    entry,
    idless_result,
    list_field,
    optional_name,
    unless_emptied,
)
from patchcore.dialects.openai_chat import OPENAI_ERRORS
from patchcore.engine.apply import value_at
from patchcore.model import (
    ANSWERED,
    Defect,
    MessageView,
    Pointer,
    Role,
    ToolCall,
    ToolResult,
    derived_id,
)
from patchcore.rules import fill

#: Dispatch values of ``messages_from_dict`` (``_message_from_dict`` in langchain-core).
TYPES = frozenset(
    {
        "human",
        "ai",
        "system",
        "chat",
        "function",
        "tool",
        "remove",
        "AIMessageChunk",
        "HumanMessageChunk",
        "FunctionMessageChunk",
        "ToolMessageChunk",
        "SystemMessageChunk",
        "ChatMessageChunk",
    }
)
#: Class names at the end of a ``dumpd`` envelope id, with the message type they stand for.
CLASS_TYPES: Mapping[str, str] = {
    "HumanMessage": "human",
    "HumanMessageChunk": "HumanMessageChunk",
    "AIMessage": "ai",
    "AIMessageChunk": "AIMessageChunk",
    "SystemMessage": "system",
    "SystemMessageChunk": "SystemMessageChunk",
    "ChatMessage": "chat",
    "ChatMessageChunk": "ChatMessageChunk",
    "FunctionMessage": "function",
    "FunctionMessageChunk": "FunctionMessageChunk",
    "ToolMessage": "tool",
    "ToolMessageChunk": "ToolMessageChunk",
    "RemoveMessage": "remove",
}
AI_TYPES = frozenset({"ai", "AIMessageChunk"})
TOOL_TYPES = frozenset({"tool", "ToolMessageChunk"})
#: Content blocks that are client tool calls, with the key holding their id.
_CONTENT_CALL_ID = {"tool_use": "id", "function_call": "call_id", "tool_call": "id"}
#: Which integration a ToolMessage answering a call that is only a block of ``content`` fits.
_CONTENT_CALL_NOTE = {
    "tool_use": "the call is only an Anthropic `tool_use` block in `content` (its `tool_calls` "
    "is empty): the ToolMessage answers it as langchain-anthropic sends it; langchain-openai "
    "drops the block and would send the ToolMessage without its call",
    "function_call": "the call is only an OpenAI Responses `function_call` block in `content` "
    "(its `tool_calls` is empty): the ToolMessage answers it as langchain-openai sends it to the "
    "Responses API; sent to Chat Completions or another provider, the block is no call and the "
    "ToolMessage has none",
    "tool_call": "the call is only a v1 `tool_call` block in `content` (its `tool_calls` is "
    "empty): the ToolMessage answers it only where the block is sent as a call; langchain-openai "
    "drops the block for Chat Completions and langchain-anthropic passes it on unconverted, so "
    "through either the ToolMessage has no call",
}
#: The provider's error for a call that is only a block of ``content``, left unanswered.
_CONTENT_CALL_ERROR = {
    "tool_use": "Anthropic (via langchain-anthropic): `tool_use` ids were found without "
    "`tool_result` blocks immediately after: {id}",
    "function_call": "OpenAI Responses (via langchain-openai): No tool output found for "
    "function call {id}.",
}


_DATA: Pointer = ("data",)
_KWARGS: Pointer = ("kwargs",)


def unwrap(message: object) -> tuple[str, Mapping[str, Any], Pointer] | None:
    """Return ``(type, fields, prefix)`` of a LangChain message in any shape, else ``None``.

    ``prefix`` is where ``fields`` sit inside the message (``("data",)``, ``("kwargs",)`` or
    ``()``). Called for every message several times, so the common shapes are tested first.
    """
    if not isinstance(message, dict):
        return None
    kind = message.get("type")
    if not isinstance(kind, str):
        return None
    if kind in TYPES:
        data = message.get("data")
        if len(message) == 2 and isinstance(data, dict):
            return kind, data, _DATA
        if "content" in message and "role" not in message:
            return kind, message, ()
        return None
    if kind == "constructor" and message.get("lc") == 1:
        ident, kwargs = message.get("id"), message.get("kwargs")
        if isinstance(ident, list) and ident and isinstance(kwargs, dict):
            mapped = CLASS_TYPES.get(ident[-1]) if isinstance(ident[-1], str) else None
            if mapped is not None:
                return mapped, kwargs, _KWARGS
    return None


def _listed_calls(
    fields: Mapping[str, Any], key: str, pointer: Pointer, prefix: Pointer, *, invalid: bool
) -> list[ToolCall]:
    """The ``{"id", "name", ...}`` entries of ``fields[key]`` as calls."""
    calls = []
    for k, raw in enumerate(list_field(fields, key, (*pointer, *prefix))):
        path = (*prefix, key, k)
        listed = entry(raw, (*pointer, *path))
        calls.append(
            ToolCall(
                id=call_id(listed.get("id"), (*pointer, *path, "id")),
                name=optional_name(listed.get("name")),
                invalid=invalid,
                path=path,
                id_at=(*path, "id"),
            )
        )
    return calls


def _parsed_calls(
    fields: Mapping[str, Any], kind: str, pointer: Pointer, prefix: Pointer
) -> list[ToolCall]:
    """Calls as LangChain parses them; paths are relative to the message at ``pointer``."""
    calls = _listed_calls(fields, "tool_calls", pointer, prefix, invalid=False)
    calls += _listed_calls(fields, "invalid_tool_calls", pointer, prefix, invalid=True)
    if not calls and kind == "AIMessageChunk":
        calls = _listed_calls(fields, "tool_call_chunks", pointer, prefix, invalid=False)
    if calls:
        return calls
    extra = fields.get("additional_kwargs")
    if isinstance(extra, dict) and extra.get("tool_calls"):
        return _backwards_compat_calls(extra["tool_calls"], pointer, (*prefix, "additional_kwargs"))
    return calls


def _backwards_compat_calls(raw_calls: object, pointer: Pointer, prefix: Pointer) -> list[ToolCall]:
    """What LangChain makes of OpenAI-shaped raw calls (``default_tool_parser``), and what its
    OpenAI-style integrations send.

    Entries without a ``function`` object are skipped; arguments that ``json.loads`` rejects make
    an invalid call. Arguments that are not a string make LangChain's parser give up on every
    raw call, but they stay in ``additional_kwargs``, and the OpenAI-style integrations send
    ``additional_kwargs["tool_calls"]`` as it is when the parsed lists are empty: the provider
    gets them, so they are calls too. An object is a call's arguments; anything else (``null``)
    is malformed.
    """
    if not isinstance(raw_calls, list):
        return []
    calls: list[ToolCall] = []
    for k, raw in enumerate(raw_calls):
        if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
            continue
        function = raw["function"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                json.loads(arguments)
                invalid = False
            except ValueError:
                invalid = True
        else:
            invalid = not isinstance(arguments, dict)
        path = (*prefix, "tool_calls", k)
        calls.append(
            ToolCall(
                id=call_id(raw.get("id"), (*pointer, *path, "id")),
                name=optional_name(function.get("name")),
                invalid=invalid,
                path=path,
                id_at=(*path, "id"),
            )
        )
    return calls


def _content_calls(
    fields: Mapping[str, Any], known: set[str | None], pointer: Pointer, prefix: Pointer
) -> list[ToolCall]:
    """Provider-native call blocks in ``content`` whose id the parsed calls do not have."""
    content = fields.get("content")
    if not isinstance(content, list):
        return []
    calls = []
    for k, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        id_key = _CONTENT_CALL_ID.get(kind) if isinstance(kind, str) else None
        if id_key is None:
            continue
        path = (*prefix, "content", k)
        block_id = call_id(block.get(id_key), (*pointer, *path, id_key))
        if block_id is None or block_id in known:
            continue
        known.add(block_id)
        calls.append(
            ToolCall(
                id=block_id,
                name=optional_name(block.get("name")),
                path=path,
                kind=kind,
                note=_CONTENT_CALL_NOTE[str(kind)],
            )
        )
    return calls


def value_at_or_none(fields: Mapping[str, Any], where: Pointer) -> Any:
    """The value at ``where`` inside ``fields``, or ``None`` where a step is missing."""
    node: Any = fields
    for part in where:
        if not isinstance(node, dict):
            return None
        node = node.get(str(part))
    return node


def _path_order(path: Pointer) -> tuple[str, ...]:
    """A sort key for pointers that mix keys and indexes."""
    return tuple(f"{part:>12}" if isinstance(part, int) else part for part in path)


def _flat_with_nulls(message: object) -> bool:
    """Whether ``message`` is a flat ``model_dump`` dict that keeps its ``null`` keys."""
    unwrapped = unwrap(message)
    return unwrapped is not None and unwrapped[2] == () and None in unwrapped[1].values()


class LangChain(ResultMessageDialect):
    """LangChain ``BaseMessage`` dicts: ``messages_to_dict``, ``dumpd`` and ``model_dump``."""

    name = "langchain"
    role_keys = ("type",)
    argument_keys = ("args", "arguments")
    call_wrappers = ("function",)
    title = "LangChain messages"
    recognised_by = (
        '`{"type", "data"}` (messages_to_dict), `{"lc": 1, "type": "constructor", "id": [..., '
        "Class]}` (dumpd, Python and JS ids), or a flat `type` + `content` dict without `role` "
        "(model_dump)"
    )
    containers = (
        "a list; `messages`, `values.messages` (LangGraph thread state), `inputs.messages` "
        "(LangSmith runs, a list of lists for chat-model runs); JSONL of either"
    )
    provider_errors: ClassVar[Mapping[str, str]] = {
        **{
            code: f"OpenAI (via langchain-openai): {error}" for code, error in OPENAI_ERRORS.items()
        },
        **dict.fromkeys(
            ("TP001", "TP002", "TP003"),
            "Found AIMessages with tool_calls that do not have a corresponding ToolMessage "
            "(LangGraph INVALID_CHAT_HISTORY; the provider then rejects the call {id} too)",
        ),
    }

    def provider_error(self, defect: Defect) -> str | None:
        """LangGraph's check reads ``tool_calls`` only: an unanswered call that is only a block
        of ``content`` is refused by the provider the block is for."""
        call = defect.call
        if defect.code in ANSWERED and call is not None and call.kind in _CONTENT_CALL_ERROR:
            return fill(_CONTENT_CALL_ERROR[call.kind], {"id": call.id or ""})
        return super().provider_error(defect)

    def shape_defects(self, messages: Sequence[Any], views: Sequence[MessageView]) -> list[Defect]:
        """TP107: an empty ``additional_kwargs.tool_calls``, which older integrations forwarded."""
        defects = []
        for index, message in enumerate(messages):
            if views[index].role is not Role.CALLER:
                continue  # only AI messages are callers
            unwrapped = unwrap(message)
            if unwrapped is None or unwrapped[0] not in AI_TYPES:
                continue
            _, fields, prefix = unwrapped
            extra = fields.get("additional_kwargs")
            if isinstance(extra, dict) and extra.get("tool_calls") == []:
                defects.append(Defect("TP107", index, (*prefix, "additional_kwargs", "tool_calls")))
        return defects

    def fields(self, value: Any) -> Any:
        """A ``dumpd`` constructor's ``kwargs``, a ``messages_to_dict`` entry's ``data``, or
        the value (``model_dump``)."""
        if isinstance(value, dict):
            if value.get("lc") == 1 and isinstance(value.get("kwargs"), dict):
                return value["kwargs"]
            if isinstance(value.get("data"), dict) and isinstance(value.get("type"), str):
                return value["data"]
        return value

    def role_of(self, message: Any) -> str:
        """A ``dumpd`` message's class (``AIMessage``), else its ``type`` (``ai``)."""
        ident = message.get("id") if isinstance(message, dict) else None
        if isinstance(ident, list) and ident and message.get("lc") == 1:
            return str(ident[-1])
        return super().role_of(message)

    def recognize(self, message: object) -> Recognition:
        unwrapped = unwrap(message)
        if unwrapped is None:
            return Recognition.NO
        _, _, prefix = unwrapped
        return Recognition.DISTINCT if prefix else Recognition.COMPATIBLE

    def note(self, messages: Sequence[Any]) -> ListNote | None:
        if any((unwrap(m) or ("",))[0] == "remove" for m in messages):
            return ListNote(
                "holds RemoveMessage entries: a LangGraph update stream, not a history; "
                "left as it is",
                refused=True,
            )
        return None

    def view(self, message: Any, pointer: Pointer) -> MessageView:
        unwrapped = unwrap(message)
        if unwrapped is None:
            return MessageView(Role.OTHER)
        kind, fields, prefix = unwrapped
        if kind in AI_TYPES:
            calls = _parsed_calls(fields, kind, pointer, prefix)
            calls += _content_calls(fields, {c.id for c in calls}, pointer, prefix)
            return MessageView(Role.CALLER, calls=tuple(calls))
        if kind in TOOL_TYPES:
            answered = call_id(fields.get("tool_call_id"), (*pointer, *prefix, "tool_call_id"))
            name = optional_name(fields.get("name"))
            at = (*prefix, "tool_call_id")
            result = idless_result(answered, pointer, id_at=at, name=name)
            return MessageView(Role.RESULTS, results=(result,))
        return MessageView(Role.OTHER)

    def call_deletions(self, message: Any, paths: Sequence[Pointer]) -> list[Pointer] | None:
        """The calls at ``paths`` and every other place the message writes them: a call of
        ``tool_calls`` is also in ``additional_kwargs.tool_calls`` (the provider's raw call),
        ``tool_call_chunks``, and a provider's call block in ``content`` with its id; left
        there, it would be read (and sent) again."""
        unwrapped = unwrap(message)
        assert unwrapped is not None
        _, fields, prefix = unwrapped
        ids = set()
        for path in paths:
            found = value_at(message, path)
            if isinstance(found, dict):
                ids.add(found.get(_CONTENT_CALL_ID.get(str(found.get("type")), "id")))
        ids.discard(None)
        mirrors = set(paths)
        for where in (
            ("tool_calls",),
            ("invalid_tool_calls",),
            ("tool_call_chunks",),
            ("additional_kwargs", "tool_calls"),
            ("content",),
        ):
            listed = value_at_or_none(fields, where)
            if not isinstance(listed, list):
                continue
            for k, item in enumerate(listed):
                if not isinstance(item, dict):
                    continue
                key = (
                    _CONTENT_CALL_ID.get(str(item.get("type")), "id")
                    if where == ("content",)
                    else "id"
                )
                if where == ("content",) and item.get("type") not in _CONTENT_CALL_ID:
                    continue
                if item.get(key) in ids:
                    mirrors.add((*prefix, *where, k))
        removed = deletions(message, sorted(mirrors, key=_path_order), keeps_empty=_keeps_empty)
        return unless_emptied(message, removed, _emptied)

    def copyable(self, message: Any, result: ToolResult) -> bool:
        """A ToolMessage without an id, only: LangGraph's ``add_messages`` merges messages by
        id, so a copy that kept one would replace its original where it stands instead of
        answering the call (a state repaired by the middleware, a thread's checkpoint)."""
        unwrapped = unwrap(message)
        return (
            super().copyable(message, result)
            and unwrapped is not None
            and unwrapped[1].get("id") is None
        )

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        return self.style(keep_nulls=any(_flat_with_nulls(m) for m in messages))

    @staticmethod
    def style(*, keep_nulls: bool) -> Mapping[str, Any]:
        """How a list writes a new flat message: with its ``null`` keys (``model_dump()``) or
        without them (``exclude_none``), as its flat messages do."""
        return {"keep_nulls": keep_nulls}

    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        name = call.name or "unknown"
        unwrapped = unwrap(caller)
        source = unwrapped[1].get("id") if unwrapped is not None else None
        # An AI message with an id (every message of a LangGraph thread has one): an id derived
        # from it and the call, where LangGraph would give a random one to a message without.
        own_id = (
            derived_id(f"langchain/{source}/{call.id}")
            if source and isinstance(source, str)
            else None
        )
        if caller.get("lc") == 1:
            namespace = [*caller["id"][:-1], "ToolMessage"]
            kwargs = {
                "content": text,
                "type": "tool",
                "name": name,
                "id": own_id,
                "tool_call_id": call.id,
                "status": "error",
            }
            if own_id is None:
                del kwargs["id"]  # dumpd writes only the fields that are set
            return {"lc": 1, "type": "constructor", "id": namespace, "kwargs": kwargs}
        dumped: dict[str, Any] = {
            "content": text,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "tool",
            "name": name,
            "id": own_id,
            "tool_call_id": call.id,
            "artifact": None,
            "status": "error",
        }
        if "data" in caller and len(caller) == 2:
            return {"type": "tool", "data": dumped}
        if not style["keep_nulls"]:
            return {key: value for key, value in dumped.items() if value is not None}
        return dumped


def _keeps_empty(array: Pointer) -> bool:
    """langchain-core writes ``tool_calls``, ``invalid_tool_calls``, ``tool_call_chunks`` and
    ``content`` always (``[]`` when empty); an empty ``additional_kwargs.tool_calls`` is TP107's
    defect, so that key goes."""
    return array[-2:] != ("additional_kwargs", "tool_calls")


def _emptied(message: Any) -> bool:
    """Whether a message whose calls were dropped holds neither content nor calls."""
    unwrapped = unwrap(message)
    assert unwrapped is not None
    _, fields, _ = unwrapped
    extra = fields.get("additional_kwargs")
    return (
        fields.get("content") in (None, "", [])
        and not fields.get("tool_calls")
        and not fields.get("invalid_tool_calls")
        and not fields.get("tool_call_chunks")
        and not (
            isinstance(extra, dict) and (extra.get("tool_calls") or extra.get("function_call"))
        )
    )
