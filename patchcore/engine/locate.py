"""Find the message lists inside a parsed record, wherever they sit.

Real files keep histories at many places (``messages``, ``values.messages``, ``inputs.messages``
as a list of lists, ``contents``, ``input``, ``history``, ``[*].traj``,
``simulations[*].messages``, ...). Rather than a list of known keys, the locator walks the whole
value:

* a list is a message list when every element is an object that some dialect recognises;
* a list of wrappers (ADK ``events[].content``, agent ``items[].raw_item``, ``lines[].message``)
  is a message list seen through that member; an element without a message, or whose message
  is no part of the history (an Agents SDK approval item, which repeats its call), is ``None``;
* a record that is itself one message (a stored API response) is a history of one.

It does not descend into a message list (a message's own content is not a history), and it
reports, without checking, lists that only copy a history held elsewhere in the record (LangGraph
``metadata.writes``, ADK ``event_logs``, inspect's per-event inputs, an Agents SDK run state's
lists beside ``generated_items``) and lists that mix dialects. Lists that are checked but take no
new message (a stored response's ``output``, a run state's items) say why in their context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from patchcore.dialects import Dialect, Recognition
from patchcore.dialects.base import ListContext
from patchcore.engine.apply import value_at
from patchcore.engine.unread import call_like
from patchcore.errors import ShapeError, json_kind
from patchcore.model import Pointer

#: Keys under which an empty list still counts as an (empty) history (so does a bare ``[]``).
HISTORY_KEYS = frozenset(
    {"messages", "history", "traj", "conversations", "chat_history", "contents", "input"}
)
#: Keys whose values only copy a history held elsewhere in the same record.
COPY_KEYS = {
    "writes": "a LangGraph write delta, copied from the thread's values.messages",
    "event_logs": "an ADK request log, copied from the session's events",
    # An Agents SDK run state resumes from original_input + generated_items (RunState.to_json:
    # "items used to build model input when resuming"); every other list repeats their items.
    "session_items": "an Agents SDK run-state copy of the items (for the session's history)",
    "model_responses": "an Agents SDK run-state copy of the model's output (in generated_items)",
    "last_model_response": "an Agents SDK run-state copy of model_responses",
    "last_processed_response": "an Agents SDK run-state copy of the generated items",
    "current_step": "an Agents SDK run-state copy of the generated items",
    # The JavaScript Agents SDK's RunState.toJSON spells the same lists in camelCase.
    "modelResponses": "an Agents SDK run-state copy of the model's output (in generatedItems)",
    "lastModelResponse": "an Agents SDK run-state copy of modelResponses",
    "lastProcessedResponse": "an Agents SDK run-state copy of the generated items",
    "currentStep": "an Agents SDK run-state copy of the generated items",
    "completedToolInvocationEvidence": "an Agents SDK run-state copy of generated items",
}
#: Keys whose list is what one model call returned: it is checked (its open calls are
#: pending), but nothing may be added to it.
SEALED_KEYS = {
    "output": "a stored model response's output holds what the model returned, so a result "
    "cannot be added to it (results go in the input of the next request)",
    "generated_items": "an Agents SDK run state takes no new item: the SDK indexes its items "
    "(generated_session_item_indexes) and keeps copies of them elsewhere in the state",
    "generatedItems": "an Agents SDK run state takes no new item: the SDK counts its items "
    "(currentTurnPersistedItemCount) and keeps copies of them elsewhere in the state",
}
#: Keys whose list is a history only at its own level: lists found inside its elements are
#: copies (inspect logs repeat the conversation in every model event's input).
NESTED_COPY_KEYS = {"events": "a per-event copy of the conversation (inspect event log)"}
#: Keys of lists that hold alternatives, not a conversation (API response choices).
SKIPPED_KEYS = frozenset({"choices", "generations", "candidates"})
#: Members through which a list of wrappers holds its messages.
MEMBERS = ("message", "content", "raw_item", "rawItem", "payload")
#: Members of an Agents SDK run item (Python ``raw_item``, JavaScript ``rawItem``): a list of
#: run items is a history even when it holds one item (a run state paused on its first call).
RUN_ITEM_MEMBERS = frozenset({"raw_item", "rawItem"})
#: Wrapper types whose message is no part of the history: an Agents SDK ``tool_approval_item``
#: repeats the call it asks approval for (the SDK never sends it to the model), and that call
#: awaits the decision.
APPROVAL_WRAPPERS = frozenset({"tool_approval_item"})


@dataclass(frozen=True, slots=True)
class MessageList:
    """One message list found in a record.

    Attributes:
        context: Where it is and what may be added to it.
        messages: Its messages (``None`` for a wrapper element that holds none).
        dialect: The adapter that reads it; ``None`` when it cannot be read or is empty.
        note: Why the list is reported but not checked, if it is not.
        warning: The note is a problem the user should see (mixed dialects), not routine
            information (a copy of a history).
        unread: The objects of the record that look like tool calls or results and that no
            list's reading pairs, each with its pointer and what makes it look so
            (`patchcore.engine.unread`): set only on the one entry that says so, last, which
            holds no messages.
    """

    context: ListContext
    messages: list[Any]
    dialect: Dialect | None
    note: str | None = None
    warning: bool = False
    unread: tuple[tuple[Pointer, str], ...] = ()

    @property
    def pointer(self) -> Pointer:
        """Where the list is in the record."""
        return self.context.pointer


@dataclass(frozen=True, slots=True)
class Classified:
    """What `classify` makes of a list of values."""

    dialect: Dialect | None
    note: str | None = None
    warning: bool = False


def _most_generic(covering: list[Dialect]) -> Dialect:
    """Of adapters that all read a list without a marker of their own, the most generic one."""
    generic = [d for d in covering if d.name == "openai-chat"]
    return generic[0] if generic else covering[0]


def classify(
    messages: Sequence[Any], dialects: Sequence[Dialect], pointer: Pointer = ()
) -> Classified | None:
    """Decide whether ``messages`` is a message list and in which dialect.

    Every element must be recognised by some adapter. The list's dialect is the first adapter
    (in detection order) that recognises *every* element, preferring one that sees a marker of
    its own (tool calls, results, an envelope) over one that is merely compatible. When no
    adapter covers all elements, the list mixes dialects and is reported, not repaired.

    Raises:
        ShapeError: The list holds tool calls or results, and some other element has a
            message's ``role`` (or LangChain envelope) but a shape no dialect reads: a broken
            history, which is an error rather than a list to pass over.
    """
    if not messages:
        return None
    covering: list[Dialect] = []
    seen = [False] * len(messages)
    distinct = False
    for dialect in dialects:
        marks = [dialect.recognize(m) for m in messages]
        if Recognition.TOLERATED in marks:
            marks = _tolerated(marks, messages, dialect, dialects)
        if Recognition.NO not in marks and Recognition.DISTINCT in marks:
            # The first adapter that reads every element and sees its own marker is the answer
            # whatever the later ones say: the common case ends here.
            return Classified(dialect, _refusal(dialect, messages))
        read = [mark in _READ for mark in marks]
        for k, mark in enumerate(read):
            seen[k] = seen[k] or mark
        distinct = distinct or Recognition.DISTINCT in marks
        if all(read):
            covering.append(dialect)
    if not all(seen):
        if distinct:
            _reject_broken(messages, seen, pointer)
        return None
    if not covering:
        names = sorted({d.name for d in dialects if _named_in_mix(d, messages)})
        return Classified(None, f"mixes dialects ({', '.join(names)}); not checked", True)
    chosen = _most_generic(covering)
    return Classified(chosen, _refusal(chosen, messages))


def _refusal(dialect: Dialect, messages: Sequence[Any]) -> str | None:
    """Why the dialect refuses to check this list of its messages (`Dialect.note`), or ``None``."""
    note = dialect.note(messages)
    return note.text if note is not None and note.refused else None


def _named_in_mix(dialect: Dialect, messages: Sequence[Any]) -> bool:
    """Whether a list that mixes dialects names ``dialect``: it reads one of its elements (a
    dialect that is only another's spelling, by a marker of its own)."""
    read = {dialect.recognize(m) for m in messages} & _READ
    return Recognition.DISTINCT in read if dialect.spelling_of is not None else bool(read)


#: Marks of an element a dialect reads on its own (not merely tolerates beside its markers).
_READ = frozenset({Recognition.COMPATIBLE, Recognition.DISTINCT})


def _tolerated(
    marks: list[Recognition],
    messages: Sequence[Any],
    dialect: Dialect,
    dialects: Sequence[Dialect],
) -> list[Recognition]:
    """``marks`` where an element ``dialect`` only tolerates (an item of a type it does not
    know) is no longer read when another dialect reads it: an unknown item never makes a
    list of some other format (or a mix) read as this dialect's."""
    return [
        Recognition.NO
        if mark is Recognition.TOLERATED
        and any(other is not dialect and other.recognize(m) in _READ for other in dialects)
        else mark
        for mark, m in zip(marks, messages, strict=True)
    ]


#: Keys and values that make a dict a message whatever else it holds.
_MESSAGE_ROLES = frozenset(
    {"user", "assistant", "system", "developer", "tool", "function", "model"}
)


def _message_like(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    role = value.get("role")
    if "role" in value and not isinstance(role, str):
        return True  # a role of another type: a broken message, not some other object
    return role in _MESSAGE_ROLES or value.get("lc") == 1


def _why(message: Any) -> str:
    """What keeps a message-like value from being read."""
    role = message.get("role")
    if "role" in message and not isinstance(role, str):
        return f"its 'role' is {json_kind(role)}"
    for key in ("content", "tool_calls", "parts"):
        value = message.get(key)
        if key in message and not isinstance(value, (str, list)) and value is not None:
            return f"its {key!r} is {json_kind(value)}"
        if isinstance(value, list) and not all(isinstance(v, (dict, str)) for v in value):
            odd = next(v for v in value if not isinstance(v, (dict, str)))
            return f"its {key!r} holds {json_kind(odd)}"
    return f"no dialect reads its keys ({', '.join(sorted(map(str, message)))})"


def _reject_broken(messages: Sequence[Any], seen: list[bool], pointer: Pointer) -> None:
    """Raise for the first message-like element no dialect reads, if there is one."""
    for index, (message, readable) in enumerate(zip(messages, seen, strict=True)):
        if not readable and _message_like(message):
            role = message.get("role")
            what = (
                f"message {index} (role {role!r})" if isinstance(role, str) else f"message {index}"
            )
            msg = f"{what} has a shape no dialect reads: {_why(message)}"
            raise ShapeError(msg, path=(*pointer, index))


def _listed(context: ListContext, messages: list[Any], kind: Classified) -> MessageList:
    return MessageList(context, messages, kind.dialect, kind.note, kind.warning)


def _sealed_reason(pointer: Pointer) -> str | None:
    """Why the list at ``pointer`` takes no new messages, if its key says so."""
    key = pointer[-1] if pointer else None
    return SEALED_KEYS.get(key) if isinstance(key, str) else None


def _projected(
    node: list[Any], pointer: Pointer, dialects: Sequence[Dialect], nested: frozenset[str]
) -> MessageList | None:
    """A list of wrappers seen through the member that holds a message in each of them."""
    if not node or not all(isinstance(e, dict) for e in node):
        return None
    for member in MEMBERS:
        held = [e.get(member) if isinstance(e.get(member), dict) else None for e in node]
        present = [m for m in held if m is not None]
        # One wrapper is too little evidence that a list is a history (any list of one object
        # with a `content`), except for run items, which are typed as such.
        if len(present) < (1 if all(_run_item(e, member) for e in node) else 2):
            continue
        kind = classify(present, dialects)
        if kind is not None and any(
            kind.dialect is None or kind.dialect.recognize(m) is Recognition.DISTINCT
            for m in present
        ):
            approvals = [e.get("type") in APPROVAL_WRAPPERS for e in node]
            context = ListContext(
                pointer,
                member=member,
                sealed_reason=_sealed_reason(pointer),
                awaiting_approval=frozenset(
                    _call_id(m)
                    for m, approval in zip(held, approvals, strict=True)
                    if approval or _runs_nested(m, nested)
                )
                - {""},
            )
            projected = [None if a else m for m, a in zip(held, approvals, strict=True)]
            return _listed(context, projected, kind)
    return None


def _runs_nested(item: Any, nested: frozenset[str]) -> bool:
    """Whether ``item`` is a call whose tool is an agent run paused inside it (the JavaScript
    SDK keeps that run under ``pendingAgentToolRuns["<tool name>:<call id>"]``)."""
    name = item.get("name") if isinstance(item, dict) else None
    return bool(nested) and isinstance(name, str) and f"{name}:{_call_id(item)}" in nested


def _nested_runs(value: Any) -> frozenset[str]:
    """The keys of the nested runs a JavaScript Agents SDK run state holds paused (agents used
    as tools that wait for an approval), each ``<tool name>:<call id>`` of the calling call."""
    runs = value.get("pendingAgentToolRuns") if isinstance(value, dict) else None
    return frozenset(runs) if isinstance(runs, dict) else frozenset()


def _run_item(element: dict[str, Any], member: str) -> bool:
    """Whether ``element`` is an Agents SDK run item (``tool_call_item``, ...) holding its item
    in ``member``."""
    kind = element.get("type")
    return member in RUN_ITEM_MEMBERS and isinstance(kind, str) and kind.endswith("_item")


def _call_id(item: Any) -> str:
    """The ``call_id`` (JavaScript SDK: ``callId``) of a Responses call item (``""`` when it
    has none)."""
    if not isinstance(item, dict):
        return ""
    found = item.get("call_id", item.get("callId"))
    return found if isinstance(found, str) else ""


def _single(value: Any, pointer: Pointer, dialects: Sequence[Dialect]) -> MessageList | None:
    """A record that is one message, such as a stored API response."""
    for dialect in dialects:
        if dialect.recognize(value) is Recognition.DISTINCT:
            return MessageList(ListContext(pointer, single=True), [value], dialect)
    return None


def find_message_lists(value: Any, *, dialects: Sequence[Dialect]) -> list[MessageList]:
    """Return every message list in ``value``, in document order, with its pointer; then, when
    the record holds objects that look like tool calls or results that no list's reading
    pairs, one entry that holds them (`MessageList.unread`), found in the same walk."""
    single = _single(value, (), dialects)
    if single is None and isinstance(value, dict) and isinstance(value.get("output"), dict):
        single = _single(value["output"].get("message"), ("output", "message"), dialects)
    if single is not None:
        return [single]
    candidates = _candidates(value, dialects)
    if candidates:
        return candidates

    found: list[MessageList] = []
    unread: list[tuple[Pointer, str]] = []
    nested = _nested_runs(value)
    # An explicit stack (not recursion): nesting depth is bounded by the parser, not by Python.
    # Each entry: node, pointer, the copy note in force, the note its list elements will get,
    # and whether it is inside an object already counted as unread (counted once, outermost).
    stack: list[tuple[Any, Pointer, str | None, str | None, bool]] = [
        (value, (), None, None, False)
    ]
    while stack:
        node, pointer, copy_note, armed, inside = stack.pop()
        children: list[tuple[Any, Pointer, str | None, str | None, bool]] = []
        if isinstance(node, list):
            listed = _locate_list(node, pointer, dialects, nested)
            if listed is not None:
                if copy_note is not None:
                    found.append(
                        MessageList(listed.context, listed.messages, listed.dialect, copy_note)
                    )
                    continue
                found.extend(with_unread(listed))
                continue
            element_note = armed or copy_note
            children = [
                (child, (*pointer, index), element_note, None, inside)
                for index, child in enumerate(node)
                if isinstance(child, (list, dict))
            ]
        elif isinstance(node, dict):
            if not inside and copy_note is None:
                what = call_like(node)
                if what is not None:
                    unread.append((pointer, what))
                    inside = True
            children = [
                (
                    child,
                    (*pointer, key),
                    COPY_KEYS.get(key, copy_note),
                    NESTED_COPY_KEYS.get(key),
                    inside,
                )
                for key, child in node.items()
                if isinstance(child, (list, dict)) and key not in SKIPPED_KEYS
            ]
        stack.extend(reversed(children))
    if not found:
        lone = _lone_message(value, dialects)
        if lone is not None:
            return [lone]
    found = [_in_request(value, listed) for listed in found]
    if unread:
        found.append(MessageList(ListContext(unread[0][0]), [], None, unread=tuple(unread)))
    return found


def _in_request(record: Any, listed: MessageList) -> MessageList:
    """``listed``, its context saying so when it is the ``messages`` or ``input`` of a request
    body (`ListContext.request`), and when that request sets ``store: false``
    (`ListContext.unstored`)."""
    pointer = listed.context.pointer
    if not pointer or pointer[-1] not in ("messages", "input") or listed.context.member:
        return listed
    body = value_at(record, pointer[:-1])
    if not isinstance(body, dict):
        return listed
    request = isinstance(body.get("model"), str)
    unstored = pointer[-1] == "input" and body.get("store") is False
    if not (request or unstored):
        return listed
    context = replace(listed.context, request=request, unstored=unstored)
    return replace(listed, context=context)


def _candidates(value: Any, dialects: Sequence[Dialect]) -> list[MessageList]:
    """A stored Gemini API response (``{"candidates": [{"content": {...}}, ...]}``): each
    candidate's content is the one model message the response returned (candidates are
    alternatives, never one conversation), a history of one message like any stored response;
    none when some candidate's content reads as no message."""
    candidates = value.get("candidates") if isinstance(value, dict) else None
    if not isinstance(candidates, list) or not candidates:
        return []
    found = []
    for index, candidate in enumerate(candidates):
        content = candidate.get("content") if isinstance(candidate, dict) else None
        kind = classify([content], dialects) if isinstance(content, dict) else None
        if kind is None or kind.dialect is None:
            return []
        context = ListContext(("candidates", index, "content"), single=True)
        found.append(MessageList(context, [content], kind.dialect, kind.note))
    return found


def with_unread(listed: MessageList) -> list[MessageList]:
    """``listed``, followed by a warning when it is checked but its dialect keeps some of its
    items unread (items of types it does not know)."""
    if listed.dialect is None or listed.note is not None:
        return [listed]
    note = listed.dialect.note(listed.messages)
    if note is None or note.refused:
        return [listed]
    return [listed, MessageList(ListContext(listed.pointer), [], None, note.text, warning=True)]


def _lone_message(value: Any, dialects: Sequence[Dialect]) -> MessageList | None:
    """A record that is one message without markers (a user or plain assistant turn), read as a
    one-message history where the record holds no history at all: what is left of a
    message-per-line file reduced to one line reads the same as before its last fix."""
    kind = classify([value], dialects) if isinstance(value, dict) else None
    if kind is None or kind.dialect is None:
        return None
    return _listed(ListContext((), single=True), [value], kind)


def _locate_list(
    node: list[Any], pointer: Pointer, dialects: Sequence[Dialect], nested: frozenset[str]
) -> MessageList | None:
    """The message list ``node`` is, directly or through wrappers, if it is one."""
    kind = classify(node, dialects, pointer)
    if kind is not None:
        return _listed(ListContext(pointer, sealed_reason=_sealed_reason(pointer)), node, kind)
    if not node and (not pointer or pointer[-1] in HISTORY_KEYS):
        return MessageList(ListContext(pointer), node, None)
    return _projected(node, pointer, dialects, nested)
