"""What every dialect adapter provides, and the helpers they share.

An adapter is small: it recognises its messages, turns each one into a `MessageView`, and builds
the edits that answer dangling calls in its own shape. It never decides *which* calls dangle;
that is the engine's job.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from patchcore.engine import insertion_point
from patchcore.errors import ShapeError
from patchcore.model import Edit, Insert, MessageView, Pointer, ToolCall, format_pointer


class Recognition(enum.IntEnum):
    """How sure an adapter is that a value is one of its messages."""

    NO = 0
    COMPATIBLE = 1
    """Could be this dialect's message (e.g. ``{"role": "user", "content": "hi"}``)."""
    DISTINCT = 2
    """Carries a marker only this dialect has (its tool calls or results, its envelope)."""


#: For one calling message: the dangling calls to answer, each with its synthetic text.
AnswerGroup = tuple[int, Sequence[tuple[ToolCall, str]]]


class Dialect(ABC):
    """One on-disk message format."""

    name: ClassVar[str]
    """Short name used by ``--dialect`` and in findings."""
    title: ClassVar[str]
    """Human name for ``toolpatch formats``."""
    recognised_by: ClassVar[str]
    """How detection recognises a message, for ``toolpatch formats``."""

    @abstractmethod
    def recognize(self, message: object) -> Recognition:
        """Say whether ``message`` (any JSON value) looks like one of this dialect's messages."""

    @abstractmethod
    def view(self, message: Any, pointer: Pointer) -> MessageView:
        """Describe a recognised message for the engine.

        Raises:
            ShapeError: A tool-related field has a shape the dialect does not allow.
        """

    def refusal(self, messages: Sequence[Any]) -> str | None:
        """Why this list, although made of this dialect's messages, must not be repaired."""
        return None

    @abstractmethod
    def answer(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        list_pointer: Pointer,
        groups: Sequence[AnswerGroup],
    ) -> list[list[tuple[Edit, ...]]]:
        """Build the edits that answer dangling calls, one entry per call of each group.

        Several calls may share one edit (a block dialect inserting one new user turn for all of
        them): the same edit object then appears under each of them.
        """


class ResultMessageDialect(Dialect):
    """A dialect in which every tool result is a message of its own (OpenAI Chat, LangChain).

    Synthetic results go right after the calling message's run of result messages, in call
    order, which is also where providers require them.
    """

    def answer(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        list_pointer: Pointer,
        groups: Sequence[AnswerGroup],
    ) -> list[list[tuple[Edit, ...]]]:
        style = self.result_style(messages)
        planned: list[list[tuple[Edit, ...]]] = []
        for message_index, calls in groups:
            at = insertion_point(views, message_index)
            caller = messages[message_index]
            planned.append(
                [
                    (Insert(list_pointer, at, (self.result_message(caller, call, text, style),)),)
                    for call, text in calls
                ]
            )
        return planned

    @abstractmethod
    def result_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        """Learn from the list how its result messages are written (keys used, nulls kept)."""

    @abstractmethod
    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Build one synthetic result message for ``call``, issued by ``caller``."""


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
