"""Value types shared by the engine, the dialect adapters and the callers.

Everything here is immutable. A dialect adapter turns each raw message into a `MessageView`
(what the pairing engine needs to know, nothing more); the engine and the adapters find
`Defect`s in the views; the adapter plans the edits that fix the selected ones (jointly, so that
fixes touching the same message make one coherent change), and the analysis turns each into a
`Finding`. A finding may carry a `Fix` made of `Edit`s that are addressed by JSON pointers into
the *original* record, so that they can be applied either to parsed values or spliced into the
original bytes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from patchcore.engine.quick import Role as Role  # with the engine's view of a message
from patchcore.fast_fields import replacer, sent_as_fields
from patchcore.rules import Origin

if TYPE_CHECKING:
    from patchcore.rules import Applicability

#: A JSON pointer as a tuple of object keys and array indexes, relative to one record.
Pointer = tuple[str | int, ...]


def format_pointer(pointer: Pointer) -> str:
    """Render a pointer as an RFC 6901 JSON pointer string (``""`` for the record itself)."""
    joined = "/".join(map(str, pointer))
    if "~" in joined or joined.count("/") >= len(pointer):  # a part to escape, or none at all
        return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in pointer)
    return "/" + joined  # nothing to escape: every finding a report shows, nearly


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call issued by a message.

    Attributes:
        id: The call's id as the file writes it, or ``None`` when it has none.
        name: The tool name, if the call names one.
        invalid: The call's arguments are malformed (LangChain ``invalid_tool_calls``, OpenAI
            ``arguments`` that do not parse).
        path: Where the call sits inside its message, for reporting.
        key: What results are matched on, when it is not ``id`` (Gemini calls without ids pair
            by name and position in the turn). A call with neither key nor id can never be
            answered; the TP0xx rules skip it.
        unanswerable: Why no truthful synthetic result exists for the call, or ``None`` when one
            does. Server-executed calls, calls whose result is data (a screenshot) and calls
            awaiting a decision are reported with this reason, never answered.
        kind: The type of the block carrying the call, where a dialect has several kinds of call
            and the result the provider wants depends on it (Anthropic ``mcp_tool_use`` calls
            are answered by ``mcp_tool_result`` blocks, ``server_tool_use`` calls by blocks
            named after their tool).
        note: What a report must add about the call's synthetic result, where it fits some of
            the providers the history may be sent to and not others (a LangChain call that is
            only a provider's block in ``content``).
        id_at: Where the call's id is written, relative to its message: where TP105's fix
            writes the id it gives a call that has none
            (docs/pairing.md#calls-and-results-without-ids).
    """

    id: str | None
    name: str | None
    invalid: bool = False
    path: Pointer = ()
    key: str | None = None
    unanswerable: str | None = None
    kind: str | None = None
    note: str | None = None
    id_at: Pointer | None = None

    @property
    def answerable(self) -> bool:
        """Whether a synthetic result may answer the call."""
        return self.unanswerable is None

    @property
    def pairing_key(self) -> str | None:
        """The key results are matched on."""
        return self.key if self.key is not None else self.id


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool result held by a message.

    Attributes:
        key: The pairing key of the call it answers.
        path: What to remove from its message to drop this result: ``()`` when the result is
            the whole message (a tool message), the block's path when it is one block of many.
        keyed: The key is the id written in the file (not a Gemini name-and-position key).
        name: The tool name the result gives, where it has one and no id (Gemini): what a
            report calls a result that answers no call.
        kind: The type of the block holding the result, where a dialect has several and the
            provider's error depends on it (Anthropic ``tool_result`` or a server tool's
            ``web_search_tool_result``, ...).
        id_at: For a result with no id (null or empty) in a format whose results name their
            call by id, where that id is written, relative to its message: such a result pairs
            with a call without an id of its turn, by name and order, and TP105's fix writes
            the id it gives both there (docs/pairing.md#calls-and-results-without-ids);
            ``None`` for any other result.
    """

    key: str
    path: Pointer = ()
    keyed: bool = True
    name: str | None = None
    kind: str | None = None
    id_at: Pointer | None = None


@dataclass(frozen=True, slots=True)
class MessageView:
    """Dialect-neutral view of a message: its role, the calls it issues, the keys it answers.

    Attributes:
        role: How the engine sees the message.
        calls: The calls it issues, in order.
        results: Results answering calls of *earlier* messages.
        inner_results: Results that follow its own calls inside the message (server tools:
            Anthropic ``server_tool_use`` then ``web_search_tool_result``).
        joins_previous: The message continues the assistant turn of the message before it
            (OpenAI Responses items of one model response: reasoning, calls). A turn's calls
            are answered after the whole turn.
        understood: The dialect reads what in the message looks like a call or a result, and
            pairs nothing there on purpose (an approval's decision, the answer a
            ``return_direct`` tool adds after its result): it is no unread call-like object
            (TP004, docs/rules.md#unread-tool-call-tp004).
    """

    role: Role
    calls: tuple[ToolCall, ...] = ()
    results: tuple[ToolResult, ...] = ()
    inner_results: tuple[ToolResult, ...] = ()
    joins_previous: bool = False
    understood: bool = False


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Verbatim:
    """Stands, inside a new value, for the original value at ``pointer``, written as it was.

    Used when an edit must wrap existing content (an Anthropic string ``content`` that becomes
    a list with the results first): the original text keeps its exact bytes.
    """

    pointer: Pointer


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Insert:
    """Insert ``values`` into the array at ``array`` so that the first lands at ``index``.

    ``index`` counts elements of the original array; several inserts at the same place are
    applied in the order they are given.
    """

    array: Pointer
    index: int
    values: tuple[Any, ...]


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Delete:
    """Remove the array element or object member at ``pointer`` (with its separator)."""

    pointer: Pointer


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Replace:
    """Replace the value at ``pointer`` with ``value`` (which may hold `Verbatim` parts).

    A member that its object does not have yet is added after the object's last member (a
    result recorded inside the call's own entry, as Gemini CLI sessions keep it, may be absent).
    """

    pointer: Pointer
    value: Any


#: The edit kinds a fix can hold.
Edit = Insert | Replace | Delete


def distinct_edits(edits: Iterable[Edit]) -> list[Edit]:
    """``edits`` each once, in order: the fixes of one list share an edit object where one
    insertion answers several calls, and it must be applied (or shown) once."""
    seen: set[int] = set()
    once = []
    for edit in edits:
        if id(edit) not in seen:
            seen.add(id(edit))
            once.append(edit)
    return once


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Fix:
    """What applying a finding's fix does.

    Attributes:
        applicability: Whether it runs by default.
        description: What it does, in a few words.
        edits: Its edits of the record.
        origin: Where the result it writes comes from (`Origin`: recovered from the data, or
            synthesized); ``None`` for a fix that writes no result (it drops a call or a
            result, reorders blocks, or removes what toolpatch wrote).
    """

    applicability: Applicability
    description: str
    edits: tuple[Edit, ...]
    origin: Origin | None = None


@sent_as_fields
@dataclass(frozen=True, slots=True)
class Finding:
    """One defect, located in its record.

    Attributes:
        code: Rule code, e.g. ``"TP001"``.
        rule: Rule name, e.g. ``"dangling-tool-call"``.
        message: One human sentence saying what is wrong.
        dialect: The dialect of the message list, e.g. ``"openai-chat"``.
        list_pointer: JSON pointer of the message list inside the record.
        message_index: Index of the calling message in its list.
        message_path: JSON pointer of the calling message inside the record.
        call_path: Where the call sits inside that message.
        call_id: The call's id, if any.
        tool_name: The call's tool name, if any.
        fix: The fix, or ``None`` when the finding cannot be fixed.
        provider_error: The error the provider answers such a history with, when known.
        line: 1-based line of the calling message in the file, when known.
        column: 1-based column of the calling message in the file, when known.
        pending: An unanswered call in the history's last turn (every TP002, and a TP003
            there): in an agent session that is still running, its tool may still be at work
            (`patchcore.layouts.sessions.layout.held_while_live`).
        held: Why the fix planned for it was held back, or ``None`` when it was not: in an
            agent session that may still be running, a pending call's fix is not applied
            (``STILL_RUNNING``); the call a fine-tuning example ends on, its training target,
            is left as it is (``TRAINING_TARGET``, `patchcore.layouts.records`;
            `patchcore.is_training_target`). ``message`` ends with it too; a caller says so
            from this, never from a finding without a fix
            (`patchcore.layouts.base.held_back`).
    """

    code: str
    rule: str
    message: str
    dialect: str
    list_pointer: Pointer
    message_index: int
    message_path: Pointer
    call_path: Pointer
    call_id: str | None
    tool_name: str | None
    fix: Fix | None
    provider_error: str | None = None
    line: int | None = None
    column: int | None = None
    pending: bool = False
    held: str | None = None

    @property
    def pointer(self) -> Pointer:
        """JSON pointer of the call inside the record."""
        return (*self.message_path, *self.call_path)

    def placed(self, line: int | None, column: int | None) -> Finding:
        """The same finding at ``line`` and ``column``: `dataclasses.replace` of them, at three
        times its speed (a corpus's findings are each located in their record, then moved by
        the line their batch starts at)."""
        return _placed(self, line, column)


_placed = replacer(Finding, "line", "column")


#: Namespace of the UUIDv5 ids toolpatch gives what it writes (fixed: a repair is reproducible).
NAMESPACE = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")


def derived_id(name: str) -> str:
    """The id of something toolpatch writes, derived from ``name`` (values read from the input:
    the calling message's id and the call's id): two runs over the same input write the same
    ids (docs/pairing.md#fidelity)."""
    return str(uuid.uuid5(NAMESPACE, name))


#: Rules whose fix inserts a synthetic result for an unanswered call.
ANSWERED = frozenset({"TP001", "TP002", "TP003"})
#: Rules whose fix drops a result.
DROPPED = frozenset({"TP101", "TP103"})


class Defect(msgspec.Struct, frozen=True):
    """One defect.

    Attributes:
        code: Rule code.
        message_index: The message it is in.
        path: Where inside that message (the call, the result, or ``()`` for the message).
        call: The call concerned (the unanswered one; for TP102 the call the result answers).
        call_index: That call's index among its message's calls.
        result: The result concerned (TP101, TP102, TP103).
        target: For TP102, the index of the calling message the result belongs after.
        text: For TP001-TP003, the synthetic result's text.
        reason: Why it is a defect, where the rule needs saying more (TP102).
        drop: For TP001-TP003, the fix removes the call instead of answering it (the ``drop``
            repair policy, `patchcore.rules.RepairPolicy`).
        strip: The result is one toolpatch wrote for the call (the synthetic result of the
            rule ``code``), found by ``toolpatch strip``; its fix removes it.
        pending: For TP001-TP003, the call is in the last turn (`Finding.pending`).
        origin: For TP001-TP003 answered, whether ``text`` is what the data recorded of the
            call (`Origin.RECOVERED`) or the rule's synthetic text.
        copied: For TP001-TP003, the call's own result, found out of place before it (its
            message and its path there, a TP101 orphan with the call's id): the fix copies it
            into place instead of writing ``text`` (docs/pairing.md#evidence-first).
    """

    code: str
    message_index: int
    path: Pointer = ()
    call: ToolCall | None = None
    call_index: int = 0
    result: ToolResult | None = None
    target: int | None = None
    text: str | None = None
    reason: str | None = None
    drop: bool = False
    strip: bool = False
    pending: bool = False
    origin: Origin = Origin.SYNTHESIZED
    copied: tuple[int, Pointer] | None = None

    @property
    def ident(self) -> str | None:
        """The id the defect is about (the call's id, or the result's key)."""
        if self.call is not None and self.call.id is not None:
            return self.call.id
        if self.result is not None and self.result.keyed:
            return self.result.key
        return None


@dataclass(frozen=True, slots=True)
class TrainingData:
    """The judgement of an input with training targets: what a report says before anything is
    written.

    Attributes:
        examples: The examples (lines) that end on their call, left as they are.
        targets: The calls they end on (an example may end on parallel calls).
        conversations: The conversations checked in the input (every line's, clean ones
            included).
    """

    examples: int
    targets: int
    conversations: int

    def note(self, *, answered_by: str, unreported_by: str) -> str:
        """What is said of the input before anything is written (docs/cli.md#fine-tuning-data):
        how many examples end on a call a fix leaves as it is, and how the caller's user has
        them answered (``answered_by``: the command line's ``--fix-training-targets``,
        `patchcore.Options.fix_training_targets`) or left unreported (``unreported_by``)."""
        examples = "example" if self.conversations == 1 else "examples"
        end = "ends" if self.examples == 1 else "end"
        calls, them, are = ("those calls", "them", "they are")
        if self.targets == 1:
            calls, them, are = ("that call", "it", "it is")
        return (
            f"fine-tuning data: {self.examples} of {self.conversations} {examples} {end} on a "
            f"tool call, the training target; fix leaves {calls} as {are} "
            f"({answered_by} answers {them}; {unreported_by} leaves {them} unreported)"
        )
