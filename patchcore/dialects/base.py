"""What every dialect adapter provides, and the helpers they share.

An adapter is small: it recognises its messages, turns each one into a `MessageView`, and builds
the edits that answer dangling calls in its own shape. It never decides *which* calls dangle;
that is the engine's job. Two families share their placement logic here:

* `ResultMessageDialect`: every result is a message (or item) of its own (OpenAI Chat,
  LangChain, OpenAI Responses); synthetic results go after the turn's existing results;
* `BlockDialect`: results are blocks inside the next user turn (Anthropic, Bedrock, Gemini);
  synthetic blocks go into that turn after its existing result blocks, or into a new user turn.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from patchcore.engine import insertion_point
from patchcore.errors import ShapeError
from patchcore.model import (
    Edit,
    Insert,
    MessageView,
    Pointer,
    Replace,
    Role,
    ToolCall,
    Verbatim,
    format_pointer,
)


class Recognition(enum.IntEnum):
    """How sure an adapter is that a value is one of its messages."""

    NO = 0
    COMPATIBLE = 1
    """Could be this dialect's message (e.g. ``{"role": "user", "content": "hi"}``)."""
    DISTINCT = 2
    """Carries a marker only this dialect has (its tool calls or results, its envelope)."""


@dataclass(frozen=True, slots=True)
class ListContext:
    """Where a message list sits in its record, and whether new messages can be added to it.

    Attributes:
        pointer: The list (for a single-message document: the message itself).
        member: For a list of wrappers (ADK events, agent session items), the key of the message
            inside each element; new messages cannot be added there (a wrapper would have to be
            invented), but results can still go into existing messages.
        single: The document is one message (a stored API response): nothing can be added
            beside it.
    """

    pointer: Pointer
    member: str | None = None
    single: bool = False

    def message_pointer(self, index: int) -> Pointer:
        """Pointer of message ``index`` inside the record."""
        if self.single:
            return self.pointer
        return (
            (*self.pointer, index) if self.member is None else (*self.pointer, index, self.member)
        )

    def insert_messages(self, index: int, messages: tuple[Any, ...]) -> Insert | None:
        """The edit that adds whole messages at ``index``, or ``None`` where that is impossible."""
        if self.single or self.member is not None:
            return None
        return Insert(self.pointer, index, messages)


#: For one calling message: the dangling calls to answer, each with its synthetic text.
AnswerGroup = tuple[int, Sequence[tuple[ToolCall, str]]]
#: For each call of each group: the edits that answer it (empty: it cannot be answered).
Answers = list[list[tuple[Edit, ...]]]


class Dialect(ABC):
    """One on-disk message format."""

    name: ClassVar[str]
    """Short name used by ``--dialect`` and in findings."""
    title: ClassVar[str]
    """Human name for ``toolpatch formats``."""
    recognised_by: ClassVar[str]
    """How detection recognises a message, for ``toolpatch formats``."""
    containers: ClassVar[str]
    """Where its message lists are usually found, for ``toolpatch formats``."""
    provider_errors: ClassVar[Mapping[str, str]] = {}
    """Rule code → the error a provider answers such a history with (``{id}``, ``{index}``,
    ``{name}`` are filled in)."""

    @abstractmethod
    def recognize(self, message: object) -> Recognition:
        """Say whether ``message`` (any JSON value) looks like one of this dialect's messages."""

    @abstractmethod
    def view(self, message: Any, pointer: Pointer) -> MessageView:
        """Describe a recognised message for the engine.

        Raises:
            ShapeError: A tool-related field has a shape the dialect does not allow.
        """

    def views(self, messages: Sequence[Any], context: ListContext) -> list[MessageView]:
        """Describe every message of a list (``None`` stands for an element without one)."""
        return [
            self.view(message, context.message_pointer(index))
            if message is not None
            else MessageView(Role.OTHER)
            for index, message in enumerate(messages)
        ]

    def refusal(self, messages: Sequence[Any]) -> str | None:
        """Why this list, although made of this dialect's messages, must not be repaired."""
        return None

    def provider_error(self, code: str, call: ToolCall, message_index: int) -> str | None:
        """The provider's error for a finding, quoted in reports."""
        template = self.provider_errors.get(code)
        if template is None:
            return None
        values = {"{id}": call.id or "", "{name}": call.name or "unknown"}
        values["{index}"] = str(message_index)
        for placeholder, value in values.items():
            template = template.replace(placeholder, value)
        return template

    @abstractmethod
    def answer(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        groups: Sequence[AnswerGroup],
    ) -> Answers:
        """Build the edits that answer dangling calls, one entry per call of each group.

        Several calls may share one edit (one new user turn for all of them): the same edit
        object then appears under each. A call that cannot be answered gets no edit.
        """


class ResultMessageDialect(Dialect):
    """A dialect in which every tool result is a message of its own.

    Synthetic results go right after the calling turn and its run of result messages, in call
    order, which is also where providers require them.
    """

    def answer(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        groups: Sequence[AnswerGroup],
    ) -> Answers:
        style = self.result_style(messages)
        planned: Answers = []
        for message_index, calls in groups:
            at = insertion_point(views, message_index)
            caller = messages[message_index]
            answers: list[tuple[Edit, ...]] = []
            for call, text in calls:
                result = self.result_message(caller, call, text, style) if call.answerable else None
                edit = context.insert_messages(at, (result,)) if result is not None else None
                answers.append((edit,) if edit is not None else ())
            planned.append(answers)
        return planned

    @abstractmethod
    def result_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        """Learn from the list how its result messages are written (keys used, nulls kept)."""

    @abstractmethod
    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """Build one synthetic result message for ``call``, issued by ``caller`` (``None``: no
        truthful result exists in this format)."""


class BlockDialect(Dialect):
    """A dialect whose results are blocks inside the user turn after the call.

    The synthetic blocks go into the next message when it can hold results, right after its
    existing result blocks (so results stay first); otherwise a new user turn holding them is
    inserted right after the calling message. The calling message itself (with its thinking
    blocks and signatures) is never touched.
    """

    blocks_key: ClassVar[str]
    """The key of a message's block list (``content``, ``parts``)."""

    @abstractmethod
    def takes_results(self, message: Any) -> bool:
        """Whether ``message`` is where results for the previous turn go."""

    @abstractmethod
    def is_result_block(self, block: Any) -> bool:
        """Whether ``block`` is a tool result."""

    def block_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        """Learn from the list how its result blocks are written (none of this by default)."""
        return {}

    @abstractmethod
    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        """One synthetic result block, in the caller's own spelling."""

    @abstractmethod
    def new_turn(self, caller: Any, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        """A new user turn holding ``blocks``."""

    def text_block(self, text: Any) -> dict[str, Any]:
        """A text block around ``text`` (used to keep a plain-string turn after new results)."""
        msg = f"{self.name} turns always hold block lists"
        raise NotImplementedError(msg)

    def answer(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        groups: Sequence[AnswerGroup],
    ) -> Answers:
        style = self.block_style(messages)
        planned: Answers = []
        for message_index, calls in groups:
            caller = messages[message_index]
            blocks = [self.result_block(caller, c, t, style) for c, t in calls if c.answerable]
            edit = self._place(messages, context, message_index, blocks) if blocks else None
            planned.append([(edit,) if edit and call.answerable else () for call, _ in calls])
        return planned

    def _place(
        self,
        messages: Sequence[Any],
        context: ListContext,
        message_index: int,
        blocks: list[dict[str, Any]],
    ) -> Edit | None:
        following = message_index + 1
        if following < len(messages) and self.takes_results(messages[following]):
            pointer = (*context.message_pointer(following), self.blocks_key)
            existing = messages[following][self.blocks_key]
            if isinstance(existing, list):
                flags = [self.is_result_block(block) for block in existing]
                at = len(flags) - flags[::-1].index(True) if True in flags else 0
                return Insert(pointer, at, tuple(blocks))
            if not existing:  # an empty text block would be rejected; there is nothing to keep
                return Replace(pointer, blocks)
            return Replace(pointer, [*blocks, self.text_block(Verbatim(pointer))])
        return context.insert_messages(following, (self.new_turn(messages[message_index], blocks),))


def call_id(value: object, pointer: Pointer) -> str | None:
    """Normalise a call or result id: ``None`` and ``""`` mean "no id".

    Integers are accepted as their decimal text (LangChain coerces ``tool_call_id`` the same way).

    Raises:
        ShapeError: The id is of another type (a float, an object, a list, a boolean).
    """
    if isinstance(value, str):
        return value or None
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    msg = f"tool call id must be a string, not {type(value).__name__}"
    raise ShapeError(msg, pointer=format_pointer(pointer))


def list_field(container: Mapping[str, Any], key: str, pointer: Pointer) -> list[Any]:
    """Return ``container[key]`` as a list; absent and ``null`` read as empty.

    Raises:
        ShapeError: The field exists but is not a list.
    """
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        msg = f"{key!r} must be a list, not {type(value).__name__}"
        raise ShapeError(msg, pointer=format_pointer((*pointer, key)))
    return value


def entry(value: object, pointer: Pointer) -> Mapping[str, Any]:
    """Return a tool-call entry as a mapping.

    Raises:
        ShapeError: The entry is not a JSON object.
    """
    if not isinstance(value, dict):
        msg = f"a tool call must be an object, not {type(value).__name__}"
        raise ShapeError(msg, pointer=format_pointer(pointer))
    return value


def optional_name(value: object) -> str | None:
    """A tool name if it is a non-empty string, else ``None`` (reported as ``unknown``)."""
    return value if isinstance(value, str) and value else None
