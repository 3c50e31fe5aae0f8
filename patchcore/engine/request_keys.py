"""A request's settings beside its history (tool definitions, system prompt blocks, thinking,
context management), read as far as proving that they hold no history of their own.

The quick lane (`patchcore.engine.quick`) reads one message list; its promise is exactly what
the full path gives, and the full path walks the whole record (`patchcore.engine.locate`): any
list there may be a history, and any object one that looks like a tool call or result
(`patchcore.engine.unread`, TP004). So a key beside ``messages`` whose value might hold either
sends the record down the full path. A value with none of the keys a message needs passes
(`could_hold_history`); but every request a real client sends holds ``"type"`` somewhere:
Claude Code sends every request with a dozen tool definitions (their JSON Schemas), a system
prompt of text blocks, ``thinking`` and ``context_management``, which the full path's walk took
0.9 ms of a 60 KB request to find empty (docs/benchmarks.md#the-proxy).

Here msgspec decodes such a value into the typed shape the API gives it, in C: a list of tool
definitions (Anthropic's, and OpenAI Chat's functions) whose ``input_schema`` or
``parameters`` is a JSON Schema of known keywords only, a list of system text blocks, and the
small settings objects. Whatever decodes is what the locator finds nothing in, because
(each checked by msgspec on the decoded values, after JSON escapes are read, so an escaped
key is seen as what it spells):

* every object in it is of a shape with fields of its own, or a map of names (a schema's
  ``properties``) whose values are schemas: none has a key that names, holds or is a tool call
  or result (`patchcore.engine.unread`: a property name that is one fails to decode), and every
  ``type`` is a JSON Schema type or a setting's name (a setting's that reads like a call's, as
  ``"tool_uses"``, fails);
* every list in it holds only strings, numbers, booleans and nulls, or objects of those shapes,
  which no dialect reads as messages (they carry no ``role``; ``tests/unit/test_request_keys.py``
  asks every dialect and the locator itself), none under a key that makes an empty list a
  history (`patchcore.engine.locate.HISTORY_KEYS`), none with a member the locator looks
  through (`patchcore.engine.locate.MEMBERS`).

Anything else (a key or type not listed here, an ``enum`` value that is an object, a server
tool, a block with citations) fails to decode: the record takes the full path, which is never
wrong, only slower.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Literal, Union

import msgspec

from patchcore.chat_names import ID_KEYS, LIST_KEYS, OBJECT_KEYS, call_type

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


def _none_of(words: frozenset[str]) -> str:
    """A pattern that a string matches unless it is one of ``words``."""
    return f"^(?!(?:{'|'.join(map(re.escape, sorted(words)))})\\Z)"


#: A name in a map of names (a schema's ``properties``): none that makes the map look like a
#: call or a result to `patchcore.engine.unread.call_like`.
_Name = Annotated[str, msgspec.Meta(pattern=_none_of(ID_KEYS | LIST_KEYS | OBJECT_KEYS))]
_JsonType = Literal["object", "array", "string", "number", "integer", "boolean", "null"]
_Scalar = Union[str, float, bool, None]  # noqa: UP007 (msgspec reads annotations at runtime)


class _Schema(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A JSON Schema of the keywords tool definitions use (drafts 4 to 2020-12): subschemas,
    names, and scalar values; an ``enum``, ``const`` or ``default`` holding an object fails."""

    type: Union[_JsonType, list[_JsonType], None] = None  # noqa: UP007
    schema: Union[str, None] = msgspec.field(default=None, name="$schema")  # noqa: UP007
    ident: Union[str, None] = msgspec.field(default=None, name="$id")  # noqa: UP007
    ref: Union[str, None] = msgspec.field(default=None, name="$ref")  # noqa: UP007
    comment: Union[str, None] = msgspec.field(default=None, name="$comment")  # noqa: UP007
    defs: Union[dict[_Name, _Schema], None] = msgspec.field(default=None, name="$defs")  # noqa: UP007
    definitions: Union[dict[_Name, _Schema], None] = None  # noqa: UP007
    title: Union[str, None] = None  # noqa: UP007
    description: Union[str, None] = None  # noqa: UP007
    format: Union[str, None] = None  # noqa: UP007
    pattern: Union[str, None] = None  # noqa: UP007
    properties: Union[dict[_Name, _Schema], None] = None  # noqa: UP007
    patternProperties: Union[dict[_Name, _Schema], None] = None  # noqa: UP007
    additionalProperties: Union[bool, _Schema, None] = None  # noqa: UP007
    propertyNames: Union[bool, _Schema, None] = None  # noqa: UP007
    items: Union[bool, _Schema, list[_Schema], None] = None  # noqa: UP007
    prefixItems: Union[list[_Schema], None] = None  # noqa: UP007
    anyOf: Union[list[_Schema], None] = None  # noqa: UP007
    oneOf: Union[list[_Schema], None] = None  # noqa: UP007
    allOf: Union[list[_Schema], None] = None  # noqa: UP007
    required: Union[list[str], None] = None  # noqa: UP007
    enum: Union[list[_Scalar], None] = None  # noqa: UP007
    const: Union[_Scalar, list[_Scalar]] = None  # noqa: UP007
    default: Union[_Scalar, list[_Scalar]] = None  # noqa: UP007
    examples: Union[list[_Scalar], None] = None  # noqa: UP007
    minimum: Union[float, None] = None  # noqa: UP007
    maximum: Union[float, None] = None  # noqa: UP007
    exclusiveMinimum: Union[float, bool, None] = None  # noqa: UP007
    exclusiveMaximum: Union[float, bool, None] = None  # noqa: UP007
    multipleOf: Union[float, None] = None  # noqa: UP007
    minLength: Union[int, None] = None  # noqa: UP007
    maxLength: Union[int, None] = None  # noqa: UP007
    minItems: Union[int, None] = None  # noqa: UP007
    maxItems: Union[int, None] = None  # noqa: UP007
    minProperties: Union[int, None] = None  # noqa: UP007
    maxProperties: Union[int, None] = None  # noqa: UP007
    uniqueItems: Union[bool, None] = None  # noqa: UP007
    nullable: Union[bool, None] = None  # noqa: UP007
    deprecated: Union[bool, None] = None  # noqa: UP007
    readOnly: Union[bool, None] = None  # noqa: UP007
    writeOnly: Union[bool, None] = None  # noqa: UP007


class _CacheControl(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["ephemeral"]
    ttl: Union[str, None] = None  # noqa: UP007


class _Tool(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An Anthropic client tool's definition (``ToolParam``); server tools fail to decode."""

    name: str
    input_schema: _Schema
    description: Union[str, None] = None  # noqa: UP007
    type: Union[Literal["custom"], None] = None  # noqa: UP007
    cache_control: Union[_CacheControl, None] = None  # noqa: UP007
    defer_loading: Union[bool, None] = None  # noqa: UP007
    strict: Union[bool, None] = None  # noqa: UP007
    eager_input_streaming: Union[bool, None] = None  # noqa: UP007


class _Function(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    description: Union[str, None] = None  # noqa: UP007
    parameters: Union[_Schema, None] = None  # noqa: UP007
    strict: Union[bool, None] = None  # noqa: UP007


class _FunctionTool(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An OpenAI Chat tool's definition (``ChatCompletionFunctionToolParam``)."""

    type: Literal["function"]
    function: _Function


class _TextBlock(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A block of an Anthropic system prompt."""

    type: Literal["text"]
    text: str
    cache_control: Union[_CacheControl, None] = None  # noqa: UP007


class _Thinking(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["enabled", "disabled", "adaptive"]
    budget_tokens: Union[int, None] = None  # noqa: UP007
    display: Union[str, None] = None  # noqa: UP007


class _Named(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str


class _ToolChoice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """Anthropic's ``tool_choice`` object, or OpenAI Chat's (``function``)."""

    type: Literal["auto", "any", "tool", "none", "function"]
    name: Union[str, None] = None  # noqa: UP007
    function: Union[_Named, None] = None  # noqa: UP007
    disable_parallel_tool_use: Union[bool, None] = None  # noqa: UP007


class _Setting(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A setting whose ``type`` must not be a call's or a result's, as the unread objects'
    count judges it (`patchcore.chat_names.call_type`): an object the full path would take for
    a call fails here, and the request takes that path."""

    type: str

    def __post_init__(self) -> None:
        if call_type(self.type):
            msg = f"type {self.type!r} is a call's or a result's"
            raise ValueError(msg)


class _Amount(_Setting):
    value: int


class _Edit(_Setting):
    """A context-management edit (``clear_thinking_…``, ``clear_tool_uses_…``)."""

    keep: Union[str, _Amount, None] = None  # noqa: UP007
    trigger: Union[_Amount, None] = None  # noqa: UP007
    clear_at_least: Union[_Amount, None] = None  # noqa: UP007
    exclude_tools: Union[list[str], None] = None  # noqa: UP007
    clear_tool_inputs: Union[bool, list[str], None] = None  # noqa: UP007


class _ContextManagement(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    edits: list[_Edit]


@functools.cache
def _shapes() -> dict[str, tuple[msgspec.json.Decoder[object], ...]]:
    """The keys read in their shape, each with the shapes its value may take (tried in order);
    made on first use (resolving the shapes' annotations added 3 ms to the start-up of every
    `toolpatch check`, most of which never meet a request's settings)."""
    return {
        "tools": (msgspec.json.Decoder(list[_Tool]), msgspec.json.Decoder(list[_FunctionTool])),
        "system": (msgspec.json.Decoder(list[_TextBlock]),),
        "thinking": (msgspec.json.Decoder(_Thinking),),
        "tool_choice": (msgspec.json.Decoder(_ToolChoice),),
        "context_management": (msgspec.json.Decoder(_ContextManagement),),
    }


def read_in_shape(key: str, raw: msgspec.Raw | bytes) -> bool:
    """Whether the value ``raw`` of a record's ``key`` decodes in a shape its key has (above):
    then it holds no history and nothing the full path counts as a call or a result."""
    for shape in _shapes().get(key, ()):
        try:
            shape.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            continue
        return True
    return False


def could_hold_history(key: str, raw: msgspec.Raw) -> bool:
    """Whether the value ``raw`` of a record's ``key`` (not its history) might hold a message
    list of its own, or an object the full path counts as a call or result: ``False`` only
    when proven (a scalar; a value read in its key's shape, `read_in_shape`; or one with none
    of the keys a message needs, unescaped)."""
    if bytes(memoryview(raw)[:1]) not in (b"{", b"[") or read_in_shape(key, raw):
        return False
    data = bytes(raw)
    return b"\\u" in data or any(name in data for name in _MESSAGE_KEYS)
