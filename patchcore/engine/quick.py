"""The quick lane: the two most common corpus shapes, read at C speed.

Most lines of a large corpus are one conversation in LangChain ``messages_to_dict`` shape or
OpenAI Chat shape, and parsing every message body just to pair a few ids is most of the cost.
For a record that holds one such conversation at ``messages`` (or is itself the list), msgspec
decodes, in one pass, only the fields pairing depends on (message kinds, call ids, result ids)
and skips the bodies; the calls are then paired as the engine pairs them (a result answers the
nearest earlier open call with its id).

The answer is a `Lane` (the list, and the calls left open: none for a clean record) or "don't
know": any doubt (another shape, a field the full path reads differently, anything that might
hold another message list) sends the record down the full path. So this module never decides a
finding on its own: `patchcore.engine.quickfix` turns the open calls into findings and fixes
with the engine's own rules and the dialect's own adapter. Only the TP0xx rules can be read
this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, Union

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
#: Stands for a key the object does not have.
_ABSENT = msgspec.Raw(b"")
#: The first byte of a raw ``null``.
_NULL_START = ord("n")

# The structs are never part of a reference cycle: ``gc=False`` keeps the collector away from
# the hundreds of thousands of them a corpus makes (it would otherwise run every few lines).


class _Part(msgspec.Struct, gc=False):
    type: str


class _LangChainCall(msgspec.Struct, gc=False):
    id: Union[str, None] = None  # noqa: UP007 - msgspec reads the annotation at runtime


#: Message content as the lane reads it: text, or a list of typed blocks (anything else, such as
#: a list holding bare strings, sends the record down the full path).
_Content = Union[str, list[_Part], None]  # noqa: UP007


class _AIData(msgspec.Struct, gc=False):
    tool_calls: Union[list[_LangChainCall], None] = None  # noqa: UP007
    invalid_tool_calls: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    tool_call_chunks: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    additional_kwargs: msgspec.Raw = _NULL
    content: _Content = None


class _ToolData(msgspec.Struct, gc=False):
    tool_call_id: Union[str, None] = None  # noqa: UP007


# One class per message type: the outer "type" picks it, so only the bodies of AI and tool
# messages are read at all, and a type the full path treats otherwise (chunks, RemoveMessage)
# fails to decode.
class _AI(msgspec.Struct, tag_field="type", tag="ai", forbid_unknown_fields=True, gc=False):
    data: _AIData


class _Tool(msgspec.Struct, tag_field="type", tag="tool", forbid_unknown_fields=True, gc=False):
    data: _ToolData


class _Object(msgspec.Struct, gc=False):
    """Any JSON object, its members skipped."""


# Other messages' bodies are only checked to be objects, as the full path wants them.
class _Human(msgspec.Struct, tag_field="type", tag="human", forbid_unknown_fields=True, gc=False):
    data: _Object


class _System(msgspec.Struct, tag_field="type", tag="system", forbid_unknown_fields=True, gc=False):
    data: _Object


class _Chat(msgspec.Struct, tag_field="type", tag="chat", forbid_unknown_fields=True, gc=False):
    data: _Object


class _Function(
    msgspec.Struct, tag_field="type", tag="function", forbid_unknown_fields=True, gc=False
):
    data: _Object


_LangChainMessage = Union[_AI, _Tool, _Human, _System, _Chat, _Function]  # noqa: UP007


class _ChatCall(msgspec.Struct, gc=False):
    id: Union[str, None] = None  # noqa: UP007


#: A call as either shape's reader reads it: its id.
_Call = Union[_LangChainCall, _ChatCall]  # noqa: UP007


class _ChatMessage(msgspec.Struct, gc=False):
    role: str
    tool_calls: Union[list[_ChatCall], None] = None  # noqa: UP007
    tool_call_id: Union[str, None] = None  # noqa: UP007
    tool_call_ids: Union[list[str], None] = None  # noqa: UP007
    id: msgspec.Raw = _NULL
    content: _Content = None
    name: msgspec.Raw = _ABSENT
    function_call: msgspec.Raw = _ABSENT


class _Extras(msgspec.Struct, forbid_unknown_fields=True, gc=False, kw_only=True):
    """Keys seen beside a history in corpora (ids, tool lists, labels), read in the same pass.

    Any other key fails the decoding, and the record is split into all of its members instead
    (`_split_record`): knowing every key is what rules out a second history in the record.
    """

    id: msgspec.Raw = _ABSENT
    session_id: msgspec.Raw = _ABSENT
    conversation_id: msgspec.Raw = _ABSENT
    thread_id: msgspec.Raw = _ABSENT
    tools: msgspec.Raw = _ABSENT
    tool_choice: msgspec.Raw = _ABSENT
    parallel_tool_calls: msgspec.Raw = _ABSENT
    functions: msgspec.Raw = _ABSENT
    model: msgspec.Raw = _ABSENT
    metadata: msgspec.Raw = _ABSENT
    split: msgspec.Raw = _ABSENT
    source: msgspec.Raw = _ABSENT
    tags: msgspec.Raw = _ABSENT
    label: msgspec.Raw = _ABSENT
    score: msgspec.Raw = _ABSENT


class _LangChainRecord(_Extras, kw_only=True):
    messages: list[_LangChainMessage]


class _ChatRecord(_Extras, kw_only=True):
    messages: list[_ChatMessage]


_EXTRAS = _Extras.__struct_fields__
_LANGCHAIN_RECORD = msgspec.json.Decoder(_LangChainRecord)
_CHAT_RECORD = msgspec.json.Decoder(_ChatRecord)
_ANY_RECORD = msgspec.json.Decoder(Union[dict[str, msgspec.Raw], list[msgspec.Raw]])  # noqa: UP007
_LANGCHAIN = msgspec.json.Decoder(list[_LangChainMessage])
_CHAT = msgspec.json.Decoder(list[_ChatMessage])
_STRING = msgspec.json.Decoder(str)

#: A call, by position: (message index, call index).
CallRef = tuple[int, int]
M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class Lane:
    """What the lane learned of a record that holds one conversation it reads.

    Attributes:
        pointer: Where the list is in the record (``()`` when the record is the list).
        dialect: ``"langchain"`` or ``"openai-chat"``.
        messages: How many messages the list holds.
        open_calls: The calls no result answers, in message and call order (none: clean).
        results_after: For each message with an open call, where its run of results ends:
            the index new results for it go to.
        last_turn: The index of the last message that is not a result (its calls are pending).
        answer_keys: OpenAI Chat: the keys its result messages answer with (``tool_call_id``,
            ``tool_call_ids``, ``id``), as the synthetic result copies them.
        named_results: OpenAI Chat: whether any result message has a ``name``.
    """

    pointer: tuple[str, ...]
    dialect: str
    messages: int
    open_calls: tuple[CallRef, ...] = ()
    results_after: dict[int, int] | None = None
    last_turn: int = -1
    answer_keys: frozenset[str] = frozenset()
    named_results: bool = False

    @property
    def clean(self) -> bool:
        """Whether every call has its result."""
        return not self.open_calls

    @property
    def where(self) -> str:
        """The list's JSON pointer (its keys need no escaping)."""
        return "".join("/" + part for part in self.pointer)


def _first(raw: msgspec.Raw) -> bytes:
    """The first byte of a raw value (which tells its JSON type), without copying the rest."""
    return bytes(memoryview(raw)[:1])


def _could_hold_messages(raw: msgspec.Raw) -> bool:
    """Whether a value other than the history might hold a message list of its own."""
    if _first(raw) not in (b"{", b"["):
        return False
    data = bytes(raw)
    return b"\\u" in data or any(key in data for key in _MESSAGE_KEYS)


def _unsure_parts(parts: list[_Part]) -> bool:
    """Whether a content block list may carry calls or results the full path reads."""
    return any(p.type in _CALL_BLOCKS or p.type.endswith("tool_result") for p in parts)


def _results_after(is_result: list[bool], callers: set[int]) -> dict[int, int]:
    """For each caller, the index after the run of result messages that follows it."""
    ends = {}
    for caller in callers:
        position = caller + 1
        while position < len(is_result) and is_result[position]:
            position += 1
        ends[caller] = position
    return ends


def _last_turn(is_result: list[bool]) -> int:
    last = len(is_result) - 1
    while last >= 0 and is_result[last]:
        last -= 1
    return last


def _open_stacks(counts: dict[str, int]) -> dict[str, list[CallRef]]:
    """Empty stacks for the ids the count left open: only their calls are paired one by one
    (pairing is per id, so the others, all answered, need no second look)."""
    return {key: [] for key, count in counts.items() if count}


def _open(stacks: dict[str, list[CallRef]], index: int, calls: Sequence[_Call]) -> None:
    """Message ``index`` issues ``calls``: the ones with an id left open go on its stack."""
    for number, call in enumerate(calls):
        stack = stacks.get(call.id or "")
        if stack is not None:
            stack.append((index, number))


def _answer(stacks: dict[str, list[CallRef]], keys: Sequence[str | None]) -> None:
    """A message answers ``keys``: each closes the latest open call with its id."""
    for key in keys:
        stack = stacks.get(key or "")
        if stack:
            stack.pop()


def _left_open(stacks: dict[str, list[CallRef]]) -> tuple[CallRef, ...]:
    return tuple(sorted(ref for stack in stacks.values() for ref in stack))


def _open_lane(
    pointer: tuple[str, ...],
    dialect: str,
    is_result: list[bool],
    left: tuple[CallRef, ...],
    *,
    answer_keys: frozenset[str] = frozenset(),
    named_results: bool = False,
) -> Lane:
    """The lane of a list with open calls (``is_result``: which messages are results)."""
    return Lane(
        pointer,
        dialect,
        len(is_result),
        left,
        _results_after(is_result, {index for index, _ in left}),
        _last_turn(is_result),
        answer_keys,
        named_results,
    )


# The readers pair as the engine does (`patchcore.engine.pairing.pair`), over ids: a result
# answers the nearest earlier call with its id that is still open; a call without an id is
# never opened.
# They first only count the open calls of each id, which decides whether any call is left open
# at a fraction of the cost (they run on every record of a corpus); a record with an open call
# is then walked again with a stack for each id left open, which tells which calls they are.


def _langchain(messages: list[_LangChainMessage], pointer: tuple[str, ...]) -> Lane | None:
    """The lane of a LangChain ``messages_to_dict`` list, or ``None`` (unsure)."""
    counts: dict[str, int] = {}
    for message in messages:
        if type(message) is _Tool:
            key = message.data.tool_call_id
            if key and counts.get(key):
                counts[key] -= 1
        elif type(message) is _AI:
            data = message.data
            if data.invalid_tool_calls or data.tool_call_chunks:
                return None
            if type(data.content) is list and _unsure_parts(data.content):
                return None
            if data.tool_calls:
                for call in data.tool_calls:
                    key = call.id
                    if key:
                        counts[key] = counts.get(key, 0) + 1
            elif b'"tool_calls"' in bytes(data.additional_kwargs):
                return None  # calls kept only in additional_kwargs: read the old way
    if not any(counts.values()):
        return Lane(pointer, "langchain", len(messages))
    stacks = _open_stacks(counts)
    is_result = []
    for index, message in enumerate(messages):
        is_result.append(type(message) is _Tool)
        if type(message) is _Tool:
            _answer(stacks, (message.data.tool_call_id,))
        elif type(message) is _AI:
            _open(stacks, index, message.data.tool_calls or ())
    return _open_lane(pointer, "langchain", is_result, _left_open(stacks))


def _chat(messages: list[_ChatMessage], pointer: tuple[str, ...]) -> Lane | None:
    """The lane of an OpenAI Chat list, or ``None`` (unsure)."""
    counts: dict[str, int] = {}
    for message in messages:
        role = message.role
        if role not in ROLES:
            return None
        if type(message.content) is list and _unsure_parts(message.content):
            return None
        if role == "tool":
            answered = _answered(message)
            if answered is None:
                return None
            for key in answered:
                if key and counts.get(key):
                    counts[key] -= 1
        elif (
            role == "assistant"
            and message.function_call is not _ABSENT
            and _first(message.function_call) != b"n"
        ):
            return None  # a legacy call (present, not null): the full path pairs it
        elif role == "assistant" and message.tool_calls:
            for call in message.tool_calls:
                called = call.id
                if called:
                    counts[called] = counts.get(called, 0) + 1
    if not any(counts.values()):
        return Lane(pointer, "openai-chat", len(messages))
    stacks = _open_stacks(counts)
    is_result = []
    for index, message in enumerate(messages):
        is_result.append(message.role == "tool")
        if message.role == "tool":
            _answer(stacks, _answered(message) or ())
        elif message.role == "assistant":
            _open(stacks, index, message.tool_calls or ())
    results = [m for m in messages if m.role == "tool"]
    return _open_lane(
        pointer,
        "openai-chat",
        is_result,
        _left_open(stacks),
        answer_keys=frozenset(
            key
            for key, present in (
                ("tool_call_id", any(m.tool_call_id is not None for m in results)),
                ("tool_call_ids", any(m.tool_call_ids is not None for m in results)),
                ("id", any(memoryview(m.id)[0] != _NULL_START for m in results)),
            )
            if present
        ),
        named_results=any(m.name is not _ABSENT for m in results),
    )


def _answered(message: _ChatMessage) -> Sequence[str] | None:
    """The keys a tool message answers, read as the full path reads them (``None``: unsure)."""
    if message.tool_call_id is not None:
        return (message.tool_call_id,)
    if message.tool_call_ids is not None:
        return message.tool_call_ids
    if memoryview(message.id)[0] == _NULL_START:
        return ()
    try:
        return (_STRING.decode(message.id),)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def read(raw: bytes) -> Lane | None:
    """Read a record in the lane, or return ``None`` (don't know: take the full path)."""
    if not raw.isascii():
        try:  # msgspec does not check the UTF-8 of what it skips; the full path refuses it
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        lane = _read(raw)
    except RecursionError:  # msgspec recurses per nesting level; the full path locates the error
        return None
    return lane if lane is not None and lane.messages else None


def clean(raw: bytes) -> bool:
    """Whether the lane proves a record clean under the TP0xx rules."""
    lane = read(raw)
    return lane is not None and lane.clean


@dataclass(frozen=True, slots=True)
class _Shape(Generic[M]):
    """One shape the lane reads: how its records and lists decode, and how its list is read."""

    record: msgspec.json.Decoder[Any]
    """Decodes a record of `_Extras` beside a ``messages`` list of this shape."""
    messages: msgspec.json.Decoder[list[M]]
    read: Callable[[list[M], tuple[str, ...]], Lane | None]


#: The shapes, in the order tried (a list of the one fails at its first message as the other).
_SHAPES: tuple[_Shape[Any], ...] = (
    _Shape(_LANGCHAIN_RECORD, _LANGCHAIN, _langchain),
    _Shape(_CHAT_RECORD, _CHAT, _chat),
)


def _read(raw: bytes) -> Lane | None:
    bare = raw.lstrip()[:1] == b"["
    for shape in _SHAPES:
        try:
            if bare:
                return shape.read(shape.messages.decode(raw), ())
            record = shape.record.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        extras = (getattr(record, name) for name in _EXTRAS)
        if any(_could_hold_messages(value) for value in extras if value is not _ABSENT):
            return None
        return shape.read(record.messages, ("messages",))
    return None if bare else _read_members(raw)


def _read_members(raw: bytes) -> Lane | None:
    """A record with keys beside ``messages`` that `_Extras` does not know: split into all of
    its members first (a second pass), then read as the others are."""
    try:
        members = _ANY_RECORD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if not isinstance(members, dict):
        return None
    found = members.get("messages")
    if (
        found is None
        or not _MESSAGE_RECORD_KEYS.isdisjoint(members)
        or any(_could_hold_messages(v) for k, v in members.items() if k != "messages")
    ):
        return None
    for shape in _SHAPES:
        try:
            messages = shape.messages.decode(found)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        return shape.read(messages, ("messages",))
    return None
