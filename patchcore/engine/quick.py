"""The quick lane: a reader of the three most common corpus and request shapes, at C speed.

Most lines of a large corpus are one conversation in LangChain ``messages_to_dict`` shape or
OpenAI Chat shape, most requests a proxy sees an OpenAI Chat or Anthropic Messages body, and
parsing every message body just to pair a few ids is most of the cost. For a record that holds
one such conversation at ``messages`` (or is itself the list), msgspec decodes, in one pass,
only the fields pairing depends on (message kinds, call ids, result ids; Anthropic's content
blocks by their type, ``id`` and ``tool_use_id``) and skips the bodies. The structs it decodes
*are* the engine's views of the messages (`View`; an Anthropic call or
result block is the view's call or result), so the engine's own pairing runs on them: its
first pass (`open_keys`) says whether any call is left open. This module
pairs nothing itself; it only reads.

The answer is a `Lane` (the list's views, and the keys left open: none for a clean record) or
"don't know": any doubt (another shape, a field the full path reads differently, anything that
might hold another message list) sends the record down the full path. OpenAI Chat and
Anthropic lists may both decode (text content, blocks both know): the list is the dialect the
full path would name (`patchcore.engine.locate.classify`): Anthropic's when it holds one of
Anthropic's own blocks (a call, a result, reasoning) and every message reads as Anthropic's,
else OpenAI Chat's; a reader that sees the other's says `OTHER` and the other shape reads it.
A request's keys beside ``messages`` are read as raw values, and any that might hold a message
list, or an object the full path counts as a call, sends the record down the full path: a
request's settings (``tools``, ``system`` blocks, ``thinking``, ...) are proven free of both in
the shape the API gives them (`patchcore.engine.request_keys`).

The views are what pairing sees of a message (`View`: a `Role`, the calls it issues, each with a
``pairing_key``, the results it holds, each with a ``key``, and whether it joins the turn before
it); the dialect adapters make `patchcore.model.MessageView`s, and the lane's structs are views
already. `open_keys` is the pairing's first pass: it only counts, per key, the calls that no
result has answered yet, which is what a stack of open calls would hold, and notes a result that
closes no open call (a duplicate, or an orphan). Most lists have neither, and then nothing else
needs doing; otherwise `patchcore.engine.pairing.pair` walks again, with stacks, over the keys
left open alone (pairing is per key, so the others need no second look), or over the whole list
when a result came unmatched. All of it is kept free of the engine's other imports: a record
proven clean needs nothing more.

A record with open calls goes on to `patchcore.engine.check`, which hands the same views to
the engine's checker (`patchcore.engine.check.check_list`), with the dialect adapter's views of
the messages that issue the open calls (an Anthropic list with open calls takes the full path:
its new results go into blocks of messages the lane has not parsed); a record where a call has
two results (TP103) takes the full path. Only the counted rules (`patchcore.rules.COUNTED`:
the TP0xx rules and TP103) can be read this way.
"""

# No ``from __future__ import annotations`` here: msgspec would turn the lane's structs'
# annotations from strings back into types at import, compiling and evaluating each: half
# of this module's import, paid at every start-up (docs/benchmarks.md#start-up).

import enum
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar, Union

import msgspec

from patchcore.chat_names import (
    ANTHROPIC_BLOCKS,
    ANTHROPIC_MARKERS,
    ANTHROPIC_SERVER_CALLS,
    MESSAGE_KEYS,
    RESPONSES_PARTS,
)
from patchcore.engine.request_keys import could_hold_history, read_in_shape


class Role(enum.Enum):
    """How the pairing engine sees a message, whatever its dialect calls it."""

    CALLER = "caller"
    """A message that may issue tool calls (an assistant / AI / model turn)."""

    RESULTS = "results"
    """A message that holds tool results and nothing else (a tool message, a user turn made
    only of result blocks). Synthetic results go after a run of these."""

    OTHER = "other"
    """Anything else: user text, system prompts, messages of unknown kind."""


class Call(Protocol):
    """A call, as pairing sees it."""

    @property
    def pairing_key(self) -> str | None:
        """The key results are matched on (none: nothing can answer it)."""


class Result(Protocol):
    """A result, as pairing sees it."""

    @property
    def key(self) -> str:
        """The pairing key of the call it answers."""


class View(Protocol):
    """A message, as pairing sees it (`patchcore.model.MessageView` says what each means)."""

    @property
    def role(self) -> Role: ...

    @property
    def calls(self) -> Sequence[Call]: ...

    @property
    def results(self) -> Sequence[Result]: ...

    @property
    def inner_results(self) -> Sequence[Result]: ...

    @property
    def joins_previous(self) -> bool: ...


def open_keys(views: Sequence[View]) -> tuple[set[str], bool]:
    """The keys that some call is left open for, in one pass that only counts, and whether a
    result came that closes no open call: for a key whose calls were all answered already (a
    duplicate, TP103), or for a key no call had before it (an orphan, which the default
    selection reports as TP004, docs/rules.md#unread-tool-call-tp004). Either sends pairing
    down its full walk, which tells them apart.

    In each message, results for earlier messages are matched first, then its calls open, then
    its inner results are matched: a result closes an open call with its key, if there is one.
    (Hot for every record of a corpus: the common empty sequences are not iterated at all, and a
    result that closes a call costs no more than before.)
    """
    counts: dict[str, int] = {}
    count = counts.get
    unmatched = False
    for view in views:
        results = view.results
        if results:
            for result in results:
                key = result.key
                if count(key):
                    counts[key] -= 1
                else:
                    unmatched = True
        calls = view.calls
        if calls:
            for call in calls:
                called = call.pairing_key
                if called:
                    counts[called] = count(called, 0) + 1
        inner = view.inner_results
        if inner:
            for result in inner:
                key = result.key
                if count(key):
                    counts[key] -= 1
                else:
                    unmatched = True
    return {key for key, left in counts.items() if left}, unmatched


#: The content-block types the lane reads in a message's content list: text, media, files and
#: reasoning, which carry no call and no result. A list holding any other block (one that carries
#: calls or results, which LangChain reads calls from and OpenAI Chat turns away, or a type not
#: known here) fails to decode, and the record takes the full path. Checked by msgspec as it
#: decodes, where a test of every message's content in Python took a thirtieth of a check.
_PlainPart = Literal[
    "text",
    "input_text",
    "output_text",
    "refusal",
    "image",
    "image_url",
    "input_image",
    "audio",
    "input_audio",
    "video",
    "file",
    "input_file",
    "document",
    "thinking",
    "redacted_thinking",
    "reasoning",
]

#: A raw ``null`` (msgspec reads a ``Raw | None`` field as ``None`` only: Raw holds it as is).
_NULL = msgspec.Raw(b"null")
#: Stands for a key the object does not have.
_ABSENT = msgspec.Raw(b"")
#: The first byte of a raw ``null``.
_NULL_START = ord("n")

# The structs are never part of a reference cycle: ``gc=False`` keeps the collector away from
# the hundreds of thousands of them a corpus makes (it would otherwise run every few lines).
#
# The message structs are the engine's views (`View`) as they are decoded:
# their calls and results are what the dialect adapter's views would hold, as far as pairing
# reads them (the keys), so the engine pairs them as it pairs any list.


class _Part(msgspec.Struct, gc=False):
    type: _PlainPart


class _Message(msgspec.Struct, gc=False):
    """A message that neither calls nor answers (the subclasses that do say so, with a field or
    a property where this class has a constant: hence their ``type: ignore``).

    A calling message's ``calls`` is its decoded list of calls itself, with no property between
    (pairing reads it for every message of a corpus): a JSON ``null`` there reads as ``None``,
    which pairing takes as no calls, as it tests a sequence for emptiness before walking it.
    """

    role: ClassVar[Role] = Role.OTHER
    calls: ClassVar[Sequence[Call]] = ()
    results: ClassVar[Sequence[Result]] = ()
    inner_results: ClassVar[Sequence[Result]] = ()
    joins_previous: ClassVar[bool] = False


class _Call(msgspec.Struct, gc=False):
    """A call, read as far as pairing reads it: its id."""

    # msgspec reads the annotations at runtime: hence Union, not ``|`` (UP007).
    pairing_key: Union[str, None] = msgspec.field(default=None, name="id")  # noqa: UP007

    @property
    def id(self) -> str | None:
        """The call's id, which is its pairing key in both shapes the lane reads: what
        pairing's full walk compares when a message repeats a key
        (`patchcore.engine.pairing.pair`)."""
        return self.pairing_key


class _Answer(msgspec.Struct, gc=False):
    """A result, read as far as pairing reads it: the id it answers (the lane reads no result
    without one, so none has an ``id_at``: `patchcore.model.ToolResult`)."""

    key: str
    id_at: ClassVar[None] = None


#: Message content as the lane reads it: text, or a list of plain blocks (anything else, such as
#: a list holding bare strings or a call block, sends the record down the full path).
_Content = Union[str, list[_Part], None]  # noqa: UP007


class _AIData(_Message):
    """An AI message's body, which is the view of the message (`_langchain`)."""

    calls: Union[list[_Call], None] = msgspec.field(default=(), name="tool_calls")  # type: ignore[assignment,misc]  # noqa: UP007
    invalid_tool_calls: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    tool_call_chunks: Union[list[msgspec.Raw], None] = None  # noqa: UP007
    additional_kwargs: msgspec.Raw = _NULL
    content: _Content = None
    role: ClassVar[Role] = Role.CALLER


class _ToolData(_Message):
    """A tool message's body: the view of the message, and its own result (its ``key``)."""

    key: str = msgspec.field(default="", name="tool_call_id")
    role: ClassVar[Role] = Role.RESULTS
    id_at: ClassVar[None] = None  # a result without an id is not its own (`results`)

    @property
    def results(self) -> "Sequence[_ToolData]":  # type: ignore[override]
        return (self,) if self.key else ()


# One class per message type: the outer "type" picks it, so only the bodies of AI and tool
# messages are read at all, and a type the full path treats otherwise (chunks, RemoveMessage)
# fails to decode.
class _LangChainMessage(msgspec.Struct, gc=False):
    """A ``messages_to_dict`` entry: its ``data`` is the view of the message."""

    data: _Message


class _AI(_LangChainMessage, tag_field="type", tag="ai", forbid_unknown_fields=True):
    data: _AIData


class _Tool(_LangChainMessage, tag_field="type", tag="tool", forbid_unknown_fields=True):
    data: _ToolData


class _Object(_Message):
    """Any JSON object, its members skipped: a message that neither calls nor answers."""


# Other messages' bodies are only checked to be objects, as the full path wants them.
class _Human(_LangChainMessage, tag_field="type", tag="human", forbid_unknown_fields=True):
    data: _Object


class _System(_LangChainMessage, tag_field="type", tag="system", forbid_unknown_fields=True):
    data: _Object


class _Chat(_LangChainMessage, tag_field="type", tag="chat", forbid_unknown_fields=True):
    data: _Object


class _Function(_LangChainMessage, tag_field="type", tag="function", forbid_unknown_fields=True):
    data: _Object


_LangChainMessages = Union[_AI, _Tool, _Human, _System, _Chat, _Function]  # noqa: UP007


# OpenAI Chat: the role picks the class (a role the format does not have fails to decode).
class _ChatMessage(_Message, tag_field="role"):
    content: _Content = None
    type: msgspec.Raw = _ABSENT  # a Responses message item's (`_chat`)
    # An AI SDK UIMessage has a role too, but its calls are in ``parts`` (AI SDK 4: also in
    # ``toolInvocations``): a message holding either fails to decode, and takes the full path.
    parts: None = None
    toolInvocations: None = None


class _ChatAssistant(_ChatMessage, tag="assistant"):
    calls: Union[list[_Call], None] = msgspec.field(default=(), name="tool_calls")  # type: ignore[assignment,misc]  # noqa: UP007
    function_call: msgspec.Raw = _ABSENT
    role: ClassVar[Role] = Role.CALLER


class _ChatTool(_ChatMessage, tag="tool"):
    """A tool message: with a ``tool_call_id`` (its ``key``), it is its own result."""

    key: Union[str, None] = msgspec.field(default=None, name="tool_call_id")  # noqa: UP007
    id_at: ClassVar[None] = None  # a result without an id is not its own (`results`)
    tool_call_ids: Union[list[str], None] = None  # noqa: UP007
    id: msgspec.Raw = _NULL
    name: msgspec.Raw = _ABSENT
    role: ClassVar[Role] = Role.RESULTS

    @property
    def results(self) -> "Sequence[_ChatTool | _Answer]":  # type: ignore[override]
        """What the message answers, as the adapter reads it (`_answered` has checked it)."""
        key = self.key
        if key is None:
            return tuple(_Answer(key) for key in _answered(self) or () if key)
        return (self,) if key else ()


class _ChatUser(_ChatMessage, tag="user"):
    pass


class _ChatSystem(_ChatMessage, tag="system"):
    pass


class _ChatDeveloper(_ChatMessage, tag="developer"):
    pass


class _ChatFunction(_ChatMessage, tag="function"):
    pass


_ChatMessages = Union[  # noqa: UP007
    _ChatAssistant, _ChatTool, _ChatUser, _ChatSystem, _ChatDeveloper, _ChatFunction
]


# Anthropic Messages: the role picks the class; the blocks of a content list are read by type.
#: The blocks that call a tool, the client's or a server's (`patchcore.dialects.anthropic`).
_ANTHROPIC_CALLS = frozenset({"tool_use", *ANTHROPIC_SERVER_CALLS})
#: The blocks that carry no call and no result (but ``tool_reference``, whose type looks like a
#: call's: the full path reports it, TP004, in a message with no call, `patchcore.engine.unread`).
_ANTHROPIC_PLAIN = (
    ANTHROPIC_BLOCKS
    - _ANTHROPIC_CALLS
    - {
        "tool_result",
        "mcp_tool_result",
        "tool_reference",
    }
)
#: The plain blocks that only Anthropic writes (its markers, which settle the dialect).
_ANTHROPIC_PLAIN_MARKERS = ANTHROPIC_MARKERS & _ANTHROPIC_PLAIN


class _Block(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """A content block, read as far as pairing reads it: its type, a call's ``id`` (its
    ``pairing_key``) and the ``tool_use_id`` a result answers (its ``key``). A call block is
    the view's call and a result block its result (`_anthropic` checks that each has its id).

    Its other fields are the API's (``content_block_param.py``), skipped: a block with any other
    key fails to decode, so that none the full path would see as a call passes unread
    (`patchcore.engine.unread`: ``call_id``, ``toolUseId``, ... in a message with no call).
    """

    type: str
    pairing_key: Union[str, None] = msgspec.field(default=None, name="id")  # noqa: UP007
    answered: Union[str, None] = msgspec.field(default=None, name="tool_use_id")  # noqa: UP007
    text: msgspec.Raw = _ABSENT
    citations: msgspec.Raw = _ABSENT
    cache_control: msgspec.Raw = _ABSENT
    source: msgspec.Raw = _ABSENT
    title: msgspec.Raw = _ABSENT
    context: msgspec.Raw = _ABSENT
    content: msgspec.Raw = _ABSENT
    thinking: msgspec.Raw = _ABSENT
    signature: msgspec.Raw = _ABSENT
    data: msgspec.Raw = _ABSENT
    name: msgspec.Raw = _ABSENT
    input: msgspec.Raw = _ABSENT
    is_error: msgspec.Raw = _ABSENT
    caller: msgspec.Raw = _ABSENT
    server_name: msgspec.Raw = _ABSENT
    file_id: msgspec.Raw = _ABSENT
    id_at: ClassVar[None] = None  # the lane reads no result without its id

    @property
    def id(self) -> str | None:
        """A call's id, which is its pairing key (as `_Call.id`)."""
        return self.pairing_key

    @property
    def key(self) -> str:
        """The id a result answers (`_anthropic` has checked that it has one)."""
        return self.answered or ""


class _Turn(_Message, tag_field="role", forbid_unknown_fields=True):
    """An Anthropic message, viewed as the adapter views it (`Anthropic.view`): its calls are
    its call blocks; its result blocks are results until its first call, inner results after
    it; text content holds neither. A message with a key the API does not give one fails to
    decode (the full path would see a call under it, `_Block`)."""

    content: Union[str, list[_Block]]  # noqa: UP007
    # Keys of other dialects' messages with a role: a message holding one is not Anthropic's
    # (``tool_calls``), or is read first by another adapter (a Responses item's ``type``, an AI
    # SDK UIMessage's ``parts``): a message holding one takes the full path (`_anthropic`).
    tool_calls: msgspec.Raw = _ABSENT
    type: msgspec.Raw = _ABSENT
    parts: msgspec.Raw = _ABSENT
    toolInvocations: msgspec.Raw = _ABSENT

    @property
    def calls(self) -> Sequence[_Block]:  # type: ignore[override]
        content = self.content
        if isinstance(content, str):
            return ()
        return [block for block in content if block.type in _ANTHROPIC_CALLS]

    @property
    def results(self) -> Sequence[_Block]:  # type: ignore[override]
        return self._results(inner=False)

    @property
    def inner_results(self) -> Sequence[_Block]:  # type: ignore[override]
        return self._results(inner=True)

    def _results(self, *, inner: bool) -> list[_Block]:
        """The result blocks after the first call (``inner``) or before it."""
        content = self.content
        found: list[_Block] = []
        if isinstance(content, str):
            return found
        called = False
        for block in content:
            kind = block.type
            if kind in _ANTHROPIC_CALLS:
                called = True
            elif called is inner and kind.endswith("tool_result"):  # `is_result`
                found.append(block)
        return found

    @property
    def role(self) -> Role:  # type: ignore[override]
        """A user turn of result blocks only holds results; text content is another message."""
        content = self.content
        if isinstance(content, str) or not content:
            return Role.OTHER
        only_results = all(block.type.endswith("tool_result") for block in content)
        return Role.RESULTS if only_results else Role.OTHER


class _TurnAssistant(_Turn, tag="assistant"):
    @property
    def role(self) -> Role:  # type: ignore[override]
        return Role.OTHER if isinstance(self.content, str) else Role.CALLER


class _TurnUser(_Turn, tag="user"):
    pass


class _TurnSystem(_Turn, tag="system"):
    pass


_Turns = Union[_TurnAssistant, _TurnUser, _TurnSystem]  # noqa: UP007
_NOT_ANTHROPIC = attrgetter("tool_calls", "type", "parts", "toolInvocations")
_NONE_OF_THEM = (_ABSENT,) * 4


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
    max_tokens: msgspec.Raw = _ABSENT
    system: msgspec.Raw = _ABSENT
    thinking: msgspec.Raw = _ABSENT
    context_management: msgspec.Raw = _ABSENT
    output_config: msgspec.Raw = _ABSENT
    stream: msgspec.Raw = _ABSENT
    temperature: msgspec.Raw = _ABSENT
    top_p: msgspec.Raw = _ABSENT
    top_k: msgspec.Raw = _ABSENT
    stop_sequences: msgspec.Raw = _ABSENT
    metadata: msgspec.Raw = _ABSENT
    split: msgspec.Raw = _ABSENT
    source: msgspec.Raw = _ABSENT
    tags: msgspec.Raw = _ABSENT
    label: msgspec.Raw = _ABSENT
    score: msgspec.Raw = _ABSENT


class _LangChainRecord(_Extras, kw_only=True):
    messages: list[_LangChainMessages]


class _ChatRecord(_Extras, kw_only=True):
    messages: list[_ChatMessages]


class _AnthropicRecord(_Extras, kw_only=True):
    messages: list[_Turns]


_EXTRA_KEYS = _Extras.__struct_fields__
_EXTRA_VALUES = attrgetter(*_EXTRA_KEYS)
_LANGCHAIN_RECORD = msgspec.json.Decoder(_LangChainRecord)
_CHAT_RECORD = msgspec.json.Decoder(_ChatRecord)
_ANTHROPIC_RECORD = msgspec.json.Decoder(_AnthropicRecord)
_ANY_RECORD = msgspec.json.Decoder(Union[dict[str, msgspec.Raw], list[msgspec.Raw]])  # noqa: UP007
_LANGCHAIN = msgspec.json.Decoder(list[_LangChainMessages])
_CHAT = msgspec.json.Decoder(list[_ChatMessages])
_ANTHROPIC = msgspec.json.Decoder(list[_Turns])
_STRING = msgspec.json.Decoder(str)

M = TypeVar("M", bound=_Message)


class Lane(msgspec.Struct, frozen=True):
    """What the lane learned of a record that holds one conversation it reads (a msgspec
    Struct, as the lane's messages: made at import and per record faster than a dataclass).

    Attributes:
        pointer: Where the list is in the record (``()`` when the record is the list).
        dialect: ``"langchain"``, ``"openai-chat"`` or ``"anthropic"``.
        views: The list's messages, each the engine's view of it (`View`).
        open_keys: The keys some call is left open for, as the engine's pairing counts them
            (`open_keys`; none: the record is clean).
        paired: The messages among ``views`` that issue calls or hold results, in order (what
            the count went over).
    """

    pointer: tuple[str, ...]
    dialect: str
    views: Sequence[_Message]
    open_keys: frozenset[str] = frozenset()
    paired: Sequence[_Message] = ()

    @property
    def messages(self) -> int:
        """How many messages the list holds."""
        return len(self.views)

    @property
    def clean(self) -> bool:
        """Whether every call has its result."""
        return not self.open_keys

    @property
    def where(self) -> str:
        """The list's JSON pointer (its keys need no escaping)."""
        return "".join("/" + part for part in self.pointer)

    def writing_style(self) -> tuple[frozenset[str], bool]:
        """OpenAI Chat: the keys its result messages answer with (``tool_call_id``,
        ``tool_call_ids``, ``id``), which a synthetic result copies, and whether any of them
        has a ``name`` (one pass over the result messages)."""
        keys = set()
        named = False
        for message in self.paired:
            if type(message) is _ChatTool:
                if message.key is not None:
                    keys.add("tool_call_id")
                if message.tool_call_ids is not None:
                    keys.add("tool_call_ids")
                if memoryview(message.id)[0] != _NULL_START:
                    keys.add("id")
                named = named or message.name is not _ABSENT
        return frozenset(keys), named


class _Other(enum.Enum):
    """What a shape's reader says of a list another shape may read as the full path does."""

    OTHER = "other"


#: A list that decodes as the shape, but that the full path reads as another shape's.
OTHER = _Other.OTHER


def _first(raw: msgspec.Raw) -> bytes:
    """The first byte of a raw value (which tells its JSON type), without copying the rest."""
    return bytes(memoryview(raw)[:1])


def _lane(
    messages: Sequence[_Message], paired: list[_Message], pointer: tuple[str, ...], dialect: str
) -> Lane | None:
    """The lane of a list read without doubt: the engine counts its open calls over ``paired``,
    the messages that issue calls or hold results (about half of them: the others would change
    no count, and skipping them saves three attribute lookups each). ``None`` when a result
    closed no open call (a second result, TP103; or one for no call, TP004 or TP101): the full
    path reports it, with the result's place."""
    left_open, unmatched = open_keys(paired)
    if unmatched:
        return None
    return Lane(pointer, dialect, messages, frozenset(left_open), paired)


# The readers only decide whether a list reads as the full path would read it; what its calls
# and results are is in the structs, and which calls are left open is the engine's to say.


def _langchain(
    messages: list[_LangChainMessages], pointer: tuple[str, ...]
) -> Lane | _Other | None:
    """The lane of a LangChain ``messages_to_dict`` list, or ``None`` (unsure); its views are
    the messages' ``data``."""
    views = [message.data for message in messages]
    paired: list[_Message] = []
    for data in views:
        if type(data) is _AIData:
            if data.invalid_tool_calls or data.tool_call_chunks:
                return None
            if data.calls:
                paired.append(data)
            elif b'"tool_calls"' in bytes(data.additional_kwargs):
                return None  # calls kept only in additional_kwargs: read the old way
        elif type(data) is _ToolData:
            paired.append(data)
    return _lane(views, paired, pointer, "langchain")


#: Parts that OpenAI Chat shares with Anthropic (reasoning) or OpenAI Responses (its parts),
#: which make the full path read a list the lane reads as OpenAI Chat as theirs where they can.
_OTHERS_PARTS = ANTHROPIC_MARKERS | RESPONSES_PARTS


def _chat(messages: list[_ChatMessages], pointer: tuple[str, ...]) -> Lane | _Other | None:
    """The lane of an OpenAI Chat list, or ``None`` (unsure); `OTHER` for a list with
    Anthropic's reasoning blocks or Responses parts (`_OTHERS_PARTS`)."""
    paired: list[_Message] = []
    pair = paired.append
    for message in messages:
        content = message.content
        if type(content) is list and any(part.type in _OTHERS_PARTS for part in content):
            return OTHER
        if message.type is not _ABSENT:
            return None  # typed like a Responses item: the full path reads it so where it can
        if type(message) is _ChatAssistant:
            if message.function_call is not _ABSENT and _first(message.function_call) != b"n":
                return None  # a legacy call (present, not null): the full path pairs it
            if message.calls:
                pair(message)
        elif type(message) is _ChatTool:
            if message.key is None and _answered(message) is None:  # a key is always read
                return None
            pair(message)
        elif type(message) is _ChatFunction:
            return None  # a legacy function result, paired by its name: the full path reads it
    return _lane(messages, paired, pointer, "openai-chat")


def _anthropic(messages: list[_Turns], pointer: tuple[str, ...]) -> Lane | _Other | None:
    """The lane of an Anthropic Messages list, or ``None`` (unsure); `OTHER` for a list the
    adapter does not read (a block or key of another dialect), or with none of Anthropic's own
    blocks, which the full path reads as OpenAI Chat where it can
    (`patchcore.engine.locate.classify`). A list the one reads, the other says `OTHER` of."""
    paired: list[_Message] = []
    marked = False
    for message in messages:
        if _NOT_ANTHROPIC(message) != _NONE_OF_THEM:
            return OTHER  # another dialect's key (OpenAI Chat reads ``tool_calls``)
        content = message.content
        if isinstance(content, str):
            continue
        pairs = False
        for block in content:
            kind = block.type
            if kind in _ANTHROPIC_PLAIN:
                if block.answered is not None:
                    return None  # a block that names a call it answers: the full path says
                marked = marked or kind in _ANTHROPIC_PLAIN_MARKERS
            elif kind in _ANTHROPIC_CALLS:
                if not block.pairing_key:
                    return None  # a call without an id (TP105): the full path says
                pairs = True
            elif kind == "tool_result" or kind.endswith("_tool_result"):
                if not block.answered:
                    return None  # a result without an id: the full path pairs it by place
                pairs = True
            else:
                return OTHER  # a block the adapter does not read: another dialect's
        if pairs:
            paired.append(message)
    if not (paired or marked):
        return OTHER
    return _lane(messages, paired, pointer, "anthropic")


def _answered(message: _ChatTool) -> Sequence[str] | None:
    """The keys a tool message answers, read as the full path reads them (``None``: unsure)."""
    if message.key is not None:
        return (message.key,)
    if message.tool_call_ids is not None:
        return message.tool_call_ids
    if memoryview(message.id)[0] == _NULL_START:
        return ()
    try:
        return (_STRING.decode(message.id),)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def read(raw: bytes, *, ascii_only: bool | None = None) -> Lane | None:
    """Read a record in the lane, or return ``None`` (don't know: take the full path).
    ``ascii_only``: ``raw.isascii()``, where the caller has it already."""
    if not (raw.isascii() if ascii_only is None else ascii_only):
        try:  # msgspec does not check the UTF-8 of what it skips; the full path refuses it
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        lane = _read(raw)
    except RecursionError:  # msgspec recurses per nesting level; the full path locates the error
        return None
    if lane is None or not lane.messages:
        return None
    if not _calls(lane) and _may_name_a_call(raw):
        return None  # no call read, yet something may name one: the full path says (TP004)
    return lane


def _calls(lane: Lane) -> bool:
    """Whether the lane read a call (the first message it paired is mostly one)."""
    return any(message.role is Role.CALLER for message in lane.paired)


#: The starts of the keys and types that name a tool call or result
#: (`patchcore.engine.unread`), as they are written in JSON. A list the lane reads with no call
#: and no result in it is proven clean only when its record holds none of them: the lane reads
#: the keys of its two shapes only, and a call under another key would pass unread. (A list
#: with calls has them where the lane reads them; a renamed call leaves its result without
#: one, which sends the record down the full path, as any result that answers no call does.)
_CALL_NAMES = (b'"tool', b'"function', b'"call')


def _may_name_a_call(raw: bytes) -> bool:
    """Whether some name of a call (`_CALL_NAMES`) is in the record outside the settings that
    `patchcore.engine.request_keys` reads in their shape (which name none: a request's
    ``"tools"`` key, its tools' names and schemas)."""
    if not any(name in raw for name in _CALL_NAMES):
        return False
    try:
        members = _ANY_RECORD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return True
    if not isinstance(members, dict):
        return True
    return any(
        any(name in data for name in _CALL_NAMES)
        for key, value in members.items()
        if not read_in_shape(key, value)
        for data in (b'"' + key.encode(), bytes(value))
    )


def clean(raw: bytes) -> bool:
    """Whether the lane proves a record clean under the counted rules
    (`patchcore.rules.COUNTED`)."""
    lane = read(raw)
    return lane is not None and lane.clean


class _Shape(msgspec.Struct, Generic[M], frozen=True):
    """One shape the lane reads: how its records and lists decode, and how its list is read."""

    record: msgspec.json.Decoder[Any]
    """Decodes a record of `_Extras` beside a ``messages`` list of this shape."""
    messages: msgspec.json.Decoder[list[M]]
    read: Callable[[list[M], tuple[str, ...]], Lane | _Other | None]


#: The shapes. A LangChain list fails at its first message as the others; an OpenAI Chat list
#: and an Anthropic one may both decode (text, and blocks both know), and then Anthropic's
#: blocks decide which the list is, as on the full path (their readers say `OTHER`).
_SHAPES: tuple[_Shape[Any], ...] = (
    _Shape(_LANGCHAIN_RECORD, _LANGCHAIN, _langchain),
    _Shape(_CHAT_RECORD, _CHAT, _chat),
    _Shape(_ANTHROPIC_RECORD, _ANTHROPIC, _anthropic),
)
#: The shapes in the order `_read` tries them: the one that read the last record first. A
#: corpus's records share their shape, and trying the other first costs a failed decoding per
#: record (an eighth of an OpenAI Chat check, docs/benchmarks.md); since a non-empty list reads
#: as at most one shape, the order changes nothing but the time.
_order: tuple[_Shape[Any], ...] = _SHAPES


def _read(raw: bytes) -> Lane | None:
    bare = raw.lstrip()[:1] == b"["
    decoded = False
    for shape in _order:
        try:
            if bare:
                lane = shape.read(shape.messages.decode(raw), ())
            else:
                record = shape.record.decode(raw)
                for key, value in zip(_EXTRA_KEYS, _EXTRA_VALUES(record), strict=True):
                    if value is not _ABSENT and could_hold_history(key, value):  # most absent
                        return None
                lane = shape.read(record.messages, ("messages",))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        decoded = True
        if lane is not OTHER:
            _tried_first(shape)
            return lane
    return None if bare or decoded else _read_members(raw)


def _tried_first(shape: _Shape[Any]) -> None:
    """Try ``shape`` first from the next record on (it read this one). The order is replaced,
    never changed in place: a thread reading a record meanwhile goes on with the order it took."""
    global _order
    if _order[0] is not shape:
        _order = (shape, *(other for other in _SHAPES if other is not shape))


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
        or not MESSAGE_KEYS.isdisjoint(members)
        or any(could_hold_history(k, v) for k, v in members.items() if k != "messages")
    ):
        return None
    for shape in _SHAPES:
        try:
            lane = shape.read(shape.messages.decode(found), ("messages",))
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if lane is not OTHER:
            return lane
    return None
