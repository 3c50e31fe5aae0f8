"""What every dialect adapter provides, and the helpers they share.

An adapter is small: it recognises its messages, turns each one into a `MessageView`, says where
its format requires results to be, and plans the edits that fix the defects found in its own
shape. It never decides *which* calls dangle; that is the engine's job. Two families share their
placement and planning logic here:

* `ResultMessageDialect`: every result is a message (or item) of its own (OpenAI Chat,
  LangChain, OpenAI Responses); results go after the calling turn, in its run of results;
* `BlockDialect`: results are blocks inside the next user turn (Anthropic, Bedrock, Gemini,
  pydantic-ai); results go into that turn after its existing results, or into a new user turn.

Fixes are planned for all the defects of a list at once, so that results added to, dropped from
and moved into the same message make one coherent change (one new turn for a whole parallel
group). The ``drop`` repair policy is the engine's (`patchcore.engine.drop`): a dialect only says
what its messages look like without some of their calls.
"""

from __future__ import annotations

import enum
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from patchcore.engine.apply import apply_edits, value_at
from patchcore.engine.pairing import Answer, insertion_point, result_region
from patchcore.errors import ShapeError, json_kind
from patchcore.model import (
    ANSWERED,
    DROPPED,
    Defect,
    Delete,
    Edit,
    Insert,
    MessageView,
    Pointer,
    Replace,
    Role,
    ToolCall,
    ToolResult,
    Verbatim,
    format_pointer,
)
from patchcore.rules import RULES, fill

#: Why a server-executed call (Anthropic ``server_tool_use``, a Bedrock server tool, a pydantic-ai
#: built-in tool) gets no synthetic result: the provider produces its result, not the client.
SERVER_EXECUTED = "the provider runs this tool itself, so its result cannot be truthfully made up"


class Recognition(enum.IntEnum):
    """How sure an adapter is that a value is one of its messages."""

    NO = 0
    COMPATIBLE = 1
    """Could be this dialect's message (e.g. ``{"role": "user", "content": "hi"}``)."""
    DISTINCT = 2
    """Carries a marker only this dialect has (its tool calls or results, its envelope)."""
    TOLERATED = 3
    """An item of this dialect's family of a type it does not know: read (kept as it is) only
    in a list that holds this dialect's markers and that no other dialect reads it in."""


#: The view of a wrapper-list element that holds no message (an ADK event without content, an
#: Agents SDK approval item): no part of the conversation, so it belongs to the turn before it
#: and never makes the calls before it dangle.
NO_MESSAGE = MessageView(Role.OTHER, joins_previous=True)


@dataclass(frozen=True, slots=True)
class ListContext:
    """Where a message list sits in its record, and what may be added to or removed from it.

    Attributes:
        pointer: The list (for a single-message document: the message itself).
        member: For a list of wrappers (ADK events, agent session items), the key of the message
            inside each element; whole messages cannot be added or removed there (a wrapper
            would have to be invented or its other data lost), but results can still be edited
            inside existing messages.
        single: The document is one message (a stored API response): nothing can be added
            beside it.
        sealed_reason: Why the list takes no new messages although its own shape would (a stored
            model response's ``output`` holds what the model returned and nothing else; an
            Agents SDK run state indexes its items), or ``None``.
        awaiting_approval: Ids of calls the record says await an approval (an Agents SDK run
            paused on a tool approval): their results are for the run to add, not for a repair.
        kept_calls: Why no call of the list is ever removed (an agent session log: dropping
            a call would rewrite what the agent did), said in the findings the ``drop`` repair
            policy leaves without a fix; ``None``: calls may be dropped.
        unstored: The list is the ``input`` of an OpenAI Responses request that sets
            ``store: false``: the API looks up no item by its id alone (TP305).
        request: The list is the ``messages`` or ``input`` of an API request body (an object
            that names its ``model``): sent as it is, not a history a user goes on from
            (TP304).
    """

    pointer: Pointer
    member: str | None = None
    single: bool = False
    sealed_reason: str | None = None
    awaiting_approval: frozenset[str] = frozenset()
    kept_calls: str | None = None
    unstored: bool = False
    request: bool = False

    def message_pointer(self, index: int) -> Pointer:
        """Pointer of message ``index`` inside the record."""
        if self.single:
            return self.pointer
        return (
            (*self.pointer, index) if self.member is None else (*self.pointer, index, self.member)
        )

    @property
    def closed_reason(self) -> str | None:
        """Why whole messages cannot be added to or removed from the list (``None``: they can),
        said in findings that have no fix because of it."""
        if self.single:
            return "the document is one message, so nothing can be added beside it"
        if self.sealed_reason is not None:
            return self.sealed_reason
        if self.member is not None:
            return (
                "its result needs a message of its own here, and each message of this list is the "
                f"`{self.member}` of an element whose other fields cannot be made up"
            )
        return None

    @property
    def whole_messages(self) -> bool:
        """Whether whole messages can be added to and removed from the list."""
        return self.closed_reason is None

    def insert_messages(self, index: int, messages: tuple[Any, ...]) -> Insert | None:
        """The edit that adds whole messages at ``index``, or ``None`` where that is impossible."""
        return Insert(self.pointer, index, messages) if self.whole_messages else None

    def delete_message(self, index: int) -> Delete | None:
        """The edit that removes message ``index``, or ``None`` where that is impossible."""
        return Delete((*self.pointer, index)) if self.whole_messages else None


#: Why a call of an agent session log is never dropped (`ListContext.kept_calls`).
SESSION_LOG = (
    "the drop repair never removes a call from an agent session log: it would rewrite what the "
    "agent did"
)

#: For each defect, the edits that fix it (empty: this defect cannot be fixed here).
Plan = list[tuple[Edit, ...]]


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
    spelling_of: ClassVar[str | None] = None
    """The dialect this one spells differently, sharing its plain messages (the JavaScript
    Agents SDK's items are the Responses API's): named in a mix only for its own markers."""
    kept_calls: ClassVar[str | None] = None
    """Why no call of this dialect is ever dropped (an agent session format, wherever its
    lists are found), or ``None``; a list can say so too (`ListContext.kept_calls`)."""
    provider_errors: ClassVar[Mapping[str, str]] = {}
    """Rule code → the error a provider answers such a history with (``{id}``, ``{index}``,
    ``{next}``, ``{name}`` are filled in, and ``{block}``, the defect's block in its message)."""
    role_keys: ClassVar[tuple[str, ...]] = ("role",)
    """The keys that name a message's kind for people (`role_of`), in the order trusted."""
    text_keys: ClassVar[tuple[str, ...]] = ("text", "content")
    """The keys that hold the words of a message or a block (`text_of`), in the order looked
    at."""
    argument_keys: ClassVar[tuple[str, ...]] = ("arguments",)
    """The keys that hold a call's arguments (`arguments_of`), in the order looked at."""
    call_wrappers: ClassVar[tuple[str, ...]] = ()
    """The keys of the objects that wrap a call's arguments (OpenAI's ``function``)."""

    def fields(self, value: Any) -> Any:
        """The object that holds a message's (or a block's) fields: the value itself, or what
        an envelope around it holds (a LangChain ``{"type", "data"}``)."""
        return value

    def role_of(self, message: Any) -> str:
        """A message's kind as people read it (``toolpatch show``): the first of `role_keys`
        that holds a string, else ``message``."""
        fields = self.fields(message) if isinstance(message, dict) else None
        if not isinstance(fields, dict):
            return "message"
        return next(
            (fields[k] for k in self.role_keys if isinstance(fields.get(k), str)), "message"
        )

    def text_of(self, value: Any) -> str:
        """The words of a message, a block or a list of them, as people read them (``toolpatch
        show``): calls and data left out. A block's words are under the first of `text_keys`
        it has, or inside its one member (``{"toolResult": {...}}``)."""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "\n".join(t for t in (self.text_of(item) for item in value) if t)
        if not isinstance(value, dict):
            return ""
        value = self.fields(value)
        key = next((k for k in self.text_keys if k in value), None)
        if key is not None:
            return self.text_of(value[key])
        if len(value) == 1:
            return self.text_of(next(iter(value.values())))
        return ""

    def arguments_of(self, call: Any) -> str:
        """A call's arguments as one line of JSON (a string, such as OpenAI's, as written):
        under the first of `argument_keys` the call has, or inside one of its `call_wrappers`;
        empty where there are none."""
        if not isinstance(call, dict):
            return ""
        key = next((k for k in self.argument_keys if k in call), None)
        if key is not None:
            found = call[key]
            return found if isinstance(found, str) else compact(found)
        wrapper = next((k for k in self.call_wrappers if isinstance(call.get(k), dict)), None)
        return self.arguments_of(call[wrapper]) if wrapper is not None else ""

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
            else NO_MESSAGE
            for index, message in enumerate(messages)
        ]

    def note(self, messages: Sequence[Any]) -> ListNote | None:
        """What the dialect says of a whole list of its messages, or ``None``: that it must not
        be checked (a LangGraph update stream), or what of it is kept as it is without being
        read (items of types it does not know), said in a warning."""
        return None

    @abstractmethod
    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        """Why a result that answers its call is not where the format requires it (TP102), or
        ``None`` when it is in place."""

    def recorded_results(
        self, messages: Sequence[Any], views: Sequence[MessageView]
    ) -> Mapping[str, str]:
        """The results the list records of calls that have none where the format wants one, by
        the calls' pairing keys: what the fix writes instead of a synthetic text, marked
        recovered (docs/pairing.md#evidence-first). None by default."""
        return {}

    def copyable(self, message: Any, result: ToolResult) -> bool:
        """Whether the fix of an unanswered call may answer it with a copy of ``result`` (its
        own result, found before it, in ``message``): a whole result message, or a result
        block. No by default."""
        return False

    def shape_defects(self, messages: Sequence[Any], views: Sequence[MessageView]) -> list[Defect]:
        """Defects of a message's own shape (TP106, TP107); none by default."""
        return []

    def provider_error(self, defect: Defect) -> str | None:
        """The provider's error for a defect, quoted in reports. The rules' own errors speak of
        client calls, whose results go in the next turn: for a server-executed call left
        without its result (`server_call`) there is none, unless the dialect knows its
        provider's."""
        if server_call(defect) is not None:
            return None
        template = self.provider_errors.get(defect.code) or RULES[defect.code].error
        if template is None:
            return None
        name = defect.call.name if defect.call is not None else None
        values = {
            "id": defect.ident or "",
            "name": name or "unknown",
            "index": str(defect.message_index),
            "next": str(defect.message_index + 1),
            "block": str(defect.path[-1]) if defect.path else "0",
        }
        return fill(template, values)

    @abstractmethod
    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        """Plan the edits that fix ``defects`` together; one entry per defect. The ``drop``
        repair policy's defects are not among them: the engine plans those
        (`patchcore.engine.drop`).

        ``style``: how the list writes new results (`writing_style`), where the caller has
        learned it already (the quick lane reads it without parsing the list); ``None``:
        learned from ``messages``.
        """

    def writing_style(self, messages: Sequence[Any]) -> Mapping[str, Any]:
        """Learn from the list how it writes a new result (keys used, nulls kept, ids): the
        ``style`` of `plan` and `written_result`; nothing to learn by default."""
        return {}

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The result toolpatch writes for ``call`` (issued by ``caller``) with ``text``, in a
        list whose `writing_style` is ``style`` (a message, or a block of one), or ``None``
        where it writes none: what ``toolpatch strip`` recognises as its own."""
        return None

    def call_deletions(self, message: Any, paths: Sequence[Pointer]) -> list[Pointer] | None:
        """What to remove from ``message`` (pointers inside it) so that the calls at ``paths``
        are gone (the ``drop`` repair policy), or ``None`` when the whole message goes: a call
        is the message itself (an OpenAI Responses item), or nothing would be left of it.
        By default the calls themselves (`deletions`), and the message is never left empty."""
        return deletions(message, paths)

    def drop_breaks(self, previous: Any, kept: Any, following: Any) -> bool:
        """Whether a message left as ``kept`` once its calls are dropped (``None``: removed),
        between the messages ``previous`` and ``following`` of the repaired list (``None``:
        none), breaks a rule of the provider about the order of turns; such calls are not
        dropped. Never, by default."""
        return False

    def orphaned_by(self, messages: Sequence[Any], deleted: Collection[int]) -> dict[int, int]:
        """The messages that the removal of the messages ``deleted`` leaves without the message
        they belong with (an OpenAI Responses reasoning item without the item it preceded), each
        with the removed message it goes with; none by default."""
        return {}


@dataclass(frozen=True, slots=True)
class ListNote:
    """What a dialect says of a whole list of its messages (`Dialect.note`).

    Attributes:
        text: The note, as a conversation's note says it.
        refused: The list must not be checked nor repaired (the note says why); else it is
            checked, and the note is a warning about what of it is kept unread.
    """

    text: str
    refused: bool = False


def server_call(defect: Defect) -> ToolCall | None:
    """The call of an unanswered-call defect when it is server-executed (`SERVER_EXECUTED`): its
    provider's error is not the rules' (`Dialect.provider_error`)."""
    call = defect.call
    if defect.code in ANSWERED and call is not None and call.unanswerable == SERVER_EXECUTED:
        return call
    return None


def deletions(
    message: Any, paths: Sequence[Pointer], *, keeps_empty: Callable[[Pointer], bool] | None = None
) -> list[Pointer] | None:
    """What to remove from ``message`` so that the calls at ``paths`` are gone, or ``None`` when
    a call is the message itself.

    A call is an element of a list (``tool_calls``, ``content``, ``parts``) or a member (the
    legacy ``function_call``); a list that loses every element goes as a whole key, unless
    ``keeps_empty`` says the format writes it as ``[]`` (LangChain writes its lists always).
    """
    if any(not path for path in paths):
        return None
    arrays: dict[Pointer, set[int]] = {}
    removed: list[Pointer] = []
    for path in paths:
        last = path[-1]
        if isinstance(last, int):
            arrays.setdefault(path[:-1], set()).add(last)
        else:
            removed.append(path)
    for array, indexes in arrays.items():
        kept_empty = keeps_empty is not None and keeps_empty(array)
        if len(indexes) == len(value_at(message, array)) and not kept_empty:
            removed.append(array)
        else:
            removed += [(*array, index) for index in sorted(indexes)]
    return removed


def unless_emptied(
    message: Any, removed: list[Pointer] | None, empty: Callable[[Any], bool]
) -> list[Pointer] | None:
    """``removed`` (what `deletions` takes out of ``message``), or ``None`` (the whole message
    goes) when what is left of the message is ``empty``: neither content nor calls."""
    if removed is None or empty(apply_edits(message, [*map(Delete, removed)])):
        return None
    return removed


def _member_deletion(context: ListContext, defect: Defect) -> tuple[Edit, ...]:
    """TP107: drop a key of a message (an empty ``tool_calls``)."""
    return (Delete((*context.message_pointer(defect.message_index), *defect.path)),)


class ResultInserts:
    """Result messages to insert into a list, gathered per place, so that the results put at one
    place go in call order, as one edit that every defect they fix shares."""

    def __init__(self) -> None:
        # Insertion point -> ((calling message, call index), defect, new message).
        self._at: dict[int, list[tuple[tuple[int, int], int, Any]]] = {}

    def add(self, at: int, call: tuple[int, int], k: int, message: Any) -> None:
        """Insert ``message`` (for defect ``k``, answering ``call``) at index ``at``."""
        self._at.setdefault(at, []).append((call, k, message))

    def complete(self, plan: list[list[Edit]], context: ListContext) -> Plan:
        """``plan`` with each defect's insertion added (a defect whose results cannot be added
        to this list gets no edits at all)."""
        for at, items in self._at.items():
            items.sort(key=lambda item: item[0])
            insertion = context.insert_messages(at, tuple(message for _, _, message in items))
            for _, k, _ in items:
                plan[k] = [*plan[k], insertion] if insertion is not None else []
        return [tuple(edits) for edits in plan]


class ResultMessageDialect(Dialect):
    """A dialect in which every tool result is a message of its own.

    Synthetic and moved results go right after the calling turn and its run of result messages,
    in call order, which is also where providers require them.
    """

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        if answer.result.message_index in result_region(views, answer.call.message_index):
            return None
        return "another message comes between it and its call"

    def copyable(self, message: Any, result: ToolResult) -> bool:
        return not result.path  # one id of a multi-id result message is no message to copy

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        style = self.writing_style(messages) if style is None else style
        plan: list[list[Edit]] = [[] for _ in defects]
        inserts = ResultInserts()
        for k, defect in enumerate(defects):
            if defect.strip:
                plan[k] += self._remove(context, defect)
            elif defect.code in ANSWERED:
                caller = messages[defect.message_index]
                at = insertion_point(views, defect.message_index)
                if defect.copied is not None:  # the call's own result, copied whole
                    copy = Verbatim(context.message_pointer(defect.copied[0]))
                    inserts.add(at, (defect.message_index, defect.call_index), k, copy)
                else:
                    self.answer(inserts, k, defect, caller=caller, style=style, at=at)
            elif defect.code in DROPPED:
                plan[k] += self._remove(context, defect)
            elif defect.code == "TP102":
                assert defect.result is not None and defect.target is not None
                deletion = context.delete_message(defect.message_index)
                if defect.result.path or deletion is None:
                    continue  # one id of a multi-id result message cannot move alone
                moved = Verbatim(context.message_pointer(defect.message_index))
                at = insertion_point(views, defect.target)
                inserts.add(at, (defect.target, defect.call_index), k, moved)
                plan[k].append(deletion)
            elif defect.code == "TP107":
                plan[k] += _member_deletion(context, defect)
        return inserts.complete(plan, context)

    def answer(
        self,
        inserts: ResultInserts,
        k: int,
        defect: Defect,
        *,
        caller: Any,
        style: Mapping[str, Any],
        at: int,
    ) -> None:
        """Plan the synthetic result of an unanswered call (defect ``k``), issued by ``caller``,
        at index ``at`` of the list (a call of a kind that has no truthful result gets none)."""
        call = defect.call
        assert call is not None and defect.text is not None
        result = self.result_message(caller, call, defect.text, style)
        if call.answerable and result is not None:
            inserts.add(at, (defect.message_index, defect.call_index), k, result)

    @staticmethod
    def _remove(context: ListContext, defect: Defect) -> tuple[Edit, ...]:
        assert defect.result is not None
        if defect.result.path:
            if context.single:
                return ()
            pointer = (*context.message_pointer(defect.message_index), *defect.result.path)
            return (Delete(pointer),)
        edit = context.delete_message(defect.message_index)
        return (edit,) if edit is not None else ()

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        """The value ``fix`` writes to answer ``call`` with ``text`` (``toolpatch strip`` finds
        toolpatch's results by comparing with it): here a whole result message; a block
        dialect's is a block."""
        return self.result_message(caller, call, text, style)

    @abstractmethod
    def result_message(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """Build one synthetic result message for ``call``, issued by ``caller`` (``None``: no
        truthful result exists in this format)."""


@dataclass
class _Touched:
    """What the plan does to one message's block list."""

    incoming: list[tuple[int, int, Any]]
    """Blocks to add: (call index, defect index, block)."""
    removed: dict[int, list[int]]
    """Block index → the defects that remove it."""
    reorder: int | None = None
    """The TP106 defect that asks for results first."""
    strips: bool = False
    """Results toolpatch wrote are removed (``toolpatch strip``)."""


class BlockDialect(Dialect):
    """A dialect whose results are blocks inside the user turn after the call.

    Added and moved result blocks go into the next message when it is a turn that takes
    results, right after its existing result blocks; otherwise a new user turn holding them is
    inserted right after the calling message. The calling message itself (with its thinking
    blocks and signatures) is never touched.
    """

    blocks_key: ClassVar[str]
    """The key of a message's block list (``content``, ``parts``)."""
    results_first: ClassVar[bool] = False
    """Whether the format requires result blocks before any other block (TP106)."""

    def written_result(
        self, messages: Sequence[Any], caller: Any, call: ToolCall, text: str, style: Any
    ) -> Any:
        return self.result_block(caller, call, text, style)

    def copyable(self, message: Any, result: ToolResult) -> bool:
        return len(result.path) == 2  # a block of the block list, as TP102 moves one

    def call_deletions(self, message: Any, paths: Sequence[Pointer]) -> list[Pointer] | None:
        """The call blocks; the whole turn when it is left with no block, or only the model's
        reasoning (that led to the dropped calls)."""
        return unless_emptied(message, deletions(message, paths), self._emptied)

    def _emptied(self, message: Any) -> bool:
        blocks = message.get(self.blocks_key)
        if isinstance(blocks, list):
            return all(self.is_reasoning(block) for block in blocks)
        return not blocks

    def is_reasoning(self, block: Any) -> bool:
        """Whether ``block`` is the model's reasoning (a thinking block), not content."""
        return False

    @abstractmethod
    def takes_results(self, message: Any) -> bool:
        """Whether ``message`` is a turn that may hold results for the previous turn."""

    @abstractmethod
    def is_result_block(self, block: Any) -> bool:
        """Whether ``block`` is a tool result."""

    @abstractmethod
    def result_block(
        self, caller: Any, call: ToolCall, text: str, style: Mapping[str, Any]
    ) -> dict[str, Any]:
        """One synthetic result block, in the caller's own spelling."""

    @abstractmethod
    def new_turn(self, caller: Any, blocks: list[Any]) -> dict[str, Any]:
        """A new user turn holding ``blocks``."""

    def text_block(self, text: Any) -> dict[str, Any]:
        """A text block around ``text`` (used to keep a plain-string turn after new results)."""
        msg = f"{self.name} turns always hold block lists"
        raise NotImplementedError(msg)

    def _wrapped(self, text: str) -> Any:
        """The text block toolpatch writes around a plain-string turn's ``text``, or ``None``
        where turns always hold block lists."""
        try:
            return self.text_block(text)
        except NotImplementedError:
            return None

    def misplaced(
        self, messages: Sequence[Any], views: Sequence[MessageView], answer: Answer
    ) -> str | None:
        if answer.result.inner:
            return None
        here, call = answer.result.message_index, answer.call.message_index
        if here == next_message(messages, call) and self.takes_results(messages[here]):
            return None
        if here == next_message(messages, call):
            return "it is not in a user turn"
        return "it is not in the turn right after its call"

    def shape_defects(self, messages: Sequence[Any], views: Sequence[MessageView]) -> list[Defect]:
        if not self.results_first:
            return []
        defects = []
        for index, (message, view) in enumerate(zip(messages, views, strict=True)):
            blocks = message.get(self.blocks_key) if message is not None else None
            if view.role is Role.CALLER or not isinstance(blocks, list):
                continue
            flags = [self.is_result_block(b) for b in blocks]
            if True in flags and False in flags[: len(flags) - flags[::-1].index(True)]:
                defects.append(Defect("TP106", index, (self.blocks_key,)))
        return defects

    def plan(
        self,
        messages: Sequence[Any],
        views: Sequence[MessageView],
        context: ListContext,
        defects: Sequence[Defect],
        *,
        style: Mapping[str, Any] | None = None,
    ) -> Plan:
        style = self.writing_style(messages) if style is None else style
        touched: dict[int, _Touched] = {}
        new_turns: dict[int, list[tuple[int, int, Any]]] = {}
        plan: list[list[Edit]] = [[] for _ in defects]

        def at(index: int) -> _Touched:
            return touched.setdefault(index, _Touched([], {}))

        def add(defect_index: int, caller: int, call_index: int, block: Any) -> bool:
            """Route a block to the turn after ``caller``; ``False`` when there is none to be
            had (a new turn cannot be added to this list)."""
            following = next_message(messages, caller)
            if following < len(messages) and self.takes_results(messages[following]):
                at(following).incoming.append((call_index, defect_index, block))
            elif context.whole_messages:
                new_turns.setdefault(caller, []).append((call_index, defect_index, block))
            else:
                return False
            return True

        for k, defect in enumerate(defects):
            if defect.code in ANSWERED and not defect.strip:
                call = defect.call
                assert call is not None and defect.text is not None
                if defect.copied is not None:  # the call's own result block, copied whole
                    where = (*context.message_pointer(defect.copied[0]), *defect.copied[1])
                    add(k, defect.message_index, defect.call_index, Verbatim(where))
                elif call.answerable:
                    caller = messages[defect.message_index]
                    block = self.result_block(caller, call, defect.text, style)
                    add(k, defect.message_index, defect.call_index, block)
            elif defect.code in DROPPED or defect.code == "TP102" or defect.strip:
                result = defect.result
                assert result is not None
                if len(result.path) != 2:  # not a block of a block list: cannot be edited
                    continue
                if defect.code == "TP102":
                    assert defect.target is not None
                    source = (*context.message_pointer(defect.message_index), *result.path)
                    if not add(k, defect.target, defect.call_index, Verbatim(source)):
                        continue  # never take a result out without putting it back
                at(defect.message_index).removed.setdefault(int(result.path[1]), []).append(k)
                at(defect.message_index).strips |= defect.strip
            elif defect.code == "TP106":
                at(defect.message_index).reorder = k
            elif defect.code == "TP107":
                plan[k] += _member_deletion(context, defect)

        for caller, blocks in new_turns.items():
            blocks.sort(key=lambda item: item[0])
            turn = self.new_turn(messages[caller], [block for _, _, block in blocks])
            insertion = context.insert_messages(caller + 1, (turn,))
            assert insertion is not None  # routed here only when whole messages can be added
            for _, k, _ in blocks:
                plan[k].append(insertion)
        for index, change in touched.items():
            for edit, owners in self._rewrite(messages, context, index, change):
                for k in owners:
                    plan[k].append(edit)
        return [self._complete(defect, edits) for defect, edits in zip(defects, plan, strict=True)]

    @staticmethod
    def _complete(defect: Defect, edits: list[Edit]) -> tuple[Edit, ...]:
        """The defect's edits, each once (a message rewrite may serve several parts of a fix)."""
        unique: list[Edit] = []
        for edit in edits:
            if not any(edit is seen for seen in unique):
                unique.append(edit)
        return tuple(unique)

    def _rewrite(
        self, messages: Sequence[Any], context: ListContext, index: int, change: _Touched
    ) -> list[tuple[Edit, list[int]]]:
        """The edits that apply ``change`` to message ``index``, each with the defects it serves."""
        pointer = (*context.message_pointer(index), self.blocks_key)
        blocks = messages[index][self.blocks_key]
        change.incoming.sort(key=lambda item: item[0])
        incoming = [block for _, _, block in change.incoming]
        adders = [k for _, k, _ in change.incoming]
        removers = [k for owners in change.removed.values() for k in owners]
        reorder = [change.reorder] if change.reorder is not None else []
        everyone = adders + removers + reorder

        if isinstance(blocks, str):  # only additions reach a plain-string turn
            if not blocks:  # an empty text block would be rejected; there is nothing to keep
                return [(Replace(pointer, incoming), adders)]
            return [(Replace(pointer, [*incoming, self.text_block(Verbatim(pointer))]), adders)]

        kept = [b for b in range(len(blocks)) if b not in change.removed]
        if not kept:
            if incoming:
                return [(Replace(pointer, incoming), everyone)]
            deletion = context.delete_message(index)
            return [(deletion, everyone)] if deletion is not None else []
        if change.strips and not incoming and change.reorder is None and len(kept) == 1:
            # toolpatch wrote a plain-string turn as its results and a text block of the string
            text = blocks[kept[0]].get("text") if isinstance(blocks[kept[0]], dict) else None
            if isinstance(text, str) and self._wrapped(text) == blocks[kept[0]]:
                return [(Replace(pointer, Verbatim((*pointer, kept[0], "text"))), everyone)]
        if change.reorder is not None:
            results = [b for b in kept if self.is_result_block(blocks[b])]
            others = [b for b in kept if not self.is_result_block(blocks[b])]
            final = [
                *(Verbatim((*pointer, b)) for b in results),
                *incoming,
                *(Verbatim((*pointer, b)) for b in others),
            ]
            return [(Replace(pointer, final), everyone)]
        edits: list[tuple[Edit, list[int]]] = [
            (Delete((*pointer, b)), owners) for b, owners in change.removed.items()
        ]
        if incoming:
            last_result = max((b for b in kept if self.is_result_block(blocks[b])), default=-1)
            edits.append((Insert(pointer, last_result + 1, tuple(incoming)), adders))
        return edits


def compact(value: Any) -> str:
    """``value`` as one line of JSON, as people read it."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def next_message(messages: Sequence[Any], index: int) -> int:
    """The index of the first message after ``index`` (``len(messages)`` if there is none),
    passing over the elements of a wrapper list that hold none: the conversation a framework
    builds from the list has no turn for them."""
    following = index + 1
    while following < len(messages) and messages[following] is None:
        following += 1
    return following


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
    msg = f"a tool call id must be a string, not {json_kind(value)}"
    raise ShapeError(msg, path=pointer)


def idless_result(
    answered: str | None,
    pointer: Pointer,
    path: Pointer = (),
    *,
    id_at: Pointer,
    name: str | None = None,
    kind: str | None = None,
) -> ToolResult:
    """The result of a message (``path``: its block) that answers the call ``answered``, or,
    with no id (``null`` or ``""``), a result with a key no call has, never a result the walk
    skips: it answers a call without an id of its turn if its name and order say which
    (`patchcore.engine.pairing`), else no call (an orphan, TP101; docs/pairing.md). ``id_at``:
    where its id is written, relative to its message."""
    if answered is not None:
        return ToolResult(answered, path, kind=kind)
    key = f"{format_pointer((*pointer, *path))}:no-id"
    return ToolResult(key, path, keyed=False, name=name, kind=kind, id_at=id_at)


def list_field(container: Mapping[str, Any], key: str, pointer: Pointer) -> list[Any]:
    """Return ``container[key]`` as a list; absent and ``null`` read as empty.

    Raises:
        ShapeError: The field exists but is not a list.
    """
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        msg = f"{key!r} must be a list, not {json_kind(value)}"
        raise ShapeError(msg, path=(*pointer, key))
    return value


def entry(value: object, pointer: Pointer) -> Mapping[str, Any]:
    """Return a tool-call entry as a mapping.

    Raises:
        ShapeError: The entry is not a JSON object.
    """
    if not isinstance(value, dict):
        msg = f"a tool call must be an object, not {json_kind(value)}"
        raise ShapeError(msg, path=pointer)
    return value


def optional_name(value: object) -> str | None:
    """A tool name if it is a non-empty string, else ``None`` (reported as ``unknown``)."""
    return value if isinstance(value, str) and value else None
