"""Property tests of the docs/pairing.md invariants over both dialects, every LangChain shape and
every container, on histories with the defects real data has.

The histories are generated as an abstract conversation (system / user / assistant with calls /
tool result) and then written as LangChain ``messages_to_dict``, ``dumpd`` (Python and JS ids),
``model_dump`` (with and without nulls) or OpenAI Chat dicts, inside a bare list, a
``{"messages": [...]}`` object, JSON Lines with one conversation per line, or JSON Lines with one
message per line; documents on one line (compact or not) or indented by 2, 4 or a tab; LF or
CRLF, blank lines, with or without a final newline. Call ids come from a small pool, so ids are
reused (also after the first call was answered), results come before their calls, results are
orphans, and ids are ``null`` or ``""``.

Invariants (docs/pairing.md: fidelity, pairing, synthetic results):

(i) fix is idempotent; (ii) check after fix finds nothing; (iii) the fix only inserts: removing
the inserted messages gives back exactly the input values, and every JSON Lines line is written
back byte for byte; (iv) one inserted message per fixed finding; (v) an input with nothing to fix
is not rewritten; (vi) the findings and the inserted results are exactly those of an independent
reference implementation of the pairing rule (a result answers the nearest earlier unanswered
call with the same id), a call's own result found before it copied into place
(docs/pairing.md#evidence-first); (vii) an indented document gets a minimal diff.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_to_dict,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call

import patchcore
from tests.helpers import TP001_TEXT, TP002_TEXT, TP003_TEXT, canonical, split_inserted

#: Default synthetic texts by rule code, as docs/pairing.md#synthetic-results words them.
TEXTS = {"TP001": TP001_TEXT, "TP002": TP002_TEXT, "TP003": TP003_TEXT}

PROPERTY = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- the abstract conversation ----------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """A tool call; ``id`` ``None`` or ``""`` means the call has no usable id."""

    id: str | None
    name: str | None
    invalid: bool


@dataclass(frozen=True)
class Message:
    """One abstract message: ``calls`` for an assistant, ``answers`` for a tool result."""

    role: str  # "system" | "user" | "assistant" | "tool"
    text: str
    calls: tuple[Call, ...] = ()
    answers: str | None = None
    chunk: bool = False


Conversation = list[Message]

#: Small pools, so that ids are reused and results meet calls of other turns.
IDS = ["c1", "c1", "c2", "c2", "c3", "id-ü", "c{name}", None, ""]
NAMES = ["get_weather", "search", "ツール", "tool_{id}", ""]
#: JSON's structural characters and escapes inside strings, non-ASCII, a surrogate pair.
TEXT = st.text(alphabet='ab é€😀"\\/\n\t[]{},:', max_size=6)


@st.composite
def calls(draw: st.DrawFn) -> tuple[Call, ...]:
    """An assistant turn's calls, valid ones first (LangChain keeps them in two lists)."""
    valid = [
        Call(draw(st.sampled_from(IDS)), draw(st.sampled_from(NAMES)), invalid=False)
        for _ in range(draw(st.integers(0, 3)))
    ]
    invalid = [
        Call(draw(st.sampled_from(IDS)), draw(st.sampled_from([*NAMES, None])), invalid=True)
        for _ in range(draw(st.integers(0, 1)))
    ]
    return (*valid, *invalid)


@st.composite
def conversations(draw: st.DrawFn, *, tidy: bool = False) -> Conversation:
    """A conversation; with ``tidy`` every call with an id is answered right away."""
    messages: Conversation = []

    def assistant() -> None:
        issued = draw(calls())
        messages.append(Message("assistant", draw(TEXT), issued, chunk=draw(st.booleans())))
        if tidy:
            for call in draw(st.permutations([c for c in issued if c.id])):
                messages.append(Message("tool", draw(TEXT), answers=call.id))

    for _ in range(draw(st.integers(1, 9))):
        role = draw(st.sampled_from(["system", "user", "assistant", "assistant", "tool", "tool"]))
        if role == "assistant":
            assistant()
        elif role == "tool":
            messages.append(Message("tool", draw(TEXT), answers=draw(st.sampled_from(IDS))))
        else:
            messages.append(Message(role, draw(TEXT)))
    if draw(st.booleans()):
        assistant()  # histories often stop on an assistant turn
    return messages


# --- the reference pairing rule ---------------------------------------------------------------


@dataclass(frozen=True)
class Dangling:
    message_index: int
    call_index: int
    call: Call
    code: str


def reference_dangling(conversation: Conversation) -> list[Dangling]:
    """The pairing rule (docs/pairing.md#the-pairing-rule), written independently of the engine: for
    each result in order, search backwards for the nearest call with its id that is still
    unanswered."""
    answered: set[tuple[int, int]] = set()
    for position, message in enumerate(conversation):
        if message.role != "tool" or not message.answers:
            continue
        candidates = [
            (i, k)
            for i in range(position - 1, -1, -1)
            for k in range(len(conversation[i].calls) - 1, -1, -1)
            if conversation[i].calls[k].id == message.answers and (i, k) not in answered
        ]
        if candidates:
            answered.add(candidates[0])  # the first found searching backwards is the nearest
    dangling = []
    for i, message in enumerate(conversation):
        only_results_after = all(m.role == "tool" for m in conversation[i + 1 :])
        for k, call in enumerate(message.calls):
            if not call.id or (i, k) in answered:
                continue
            code = "TP003" if call.invalid else "TP002" if only_results_after else "TP001"
            dangling.append(Dangling(i, k, call, code))
    return dangling


def synthetic_text(dangling: Dangling) -> str:
    """The default text, ``{name}`` and ``{id}`` substituted literally, in one pass."""
    call = dangling.call
    assert call.id
    values = {"{name}": call.name or "unknown", "{id}": call.id}
    return re.sub(r"\{name\}|\{id\}", lambda m: values[m.group()], TEXTS[dangling.code])


def reference_orphans(conversation: Conversation) -> list[int]:
    """The tool messages that answer no call: no earlier call has their id (one whose earlier
    calls are all answered is a second result, TP103, which may be theirs: no evidence)."""
    called: set[str] = set()
    orphans = []
    for position, message in enumerate(conversation):
        if message.role == "tool" and message.answers and message.answers not in called:
            orphans.append(position)
        called |= {call.id for call in message.calls if call.id}
    return orphans


def own_result(conversation: Conversation, dangling: Dangling) -> int | None:
    """The tool message before ``dangling`` that is its own result: the one orphan with its
    id, where it is the one unanswered call with that id (docs/pairing.md#evidence-first)."""
    call_id = dangling.call.id
    same = [o for o in reference_orphans(conversation) if conversation[o].answers == call_id]
    calls = [d for d in reference_dangling(conversation) if d.call.id == call_id]
    if len(same) == 1 and len(calls) == 1 and same[0] < dangling.message_index:
        return same[0]
    return None


def expected_layout(conversation: Conversation) -> list[tuple[str, Any]]:
    """The repaired list as ``("old", index)``, ``("new", dangling)`` and ``("copy", index)``
    (the call's own result, copied from where it stood): results go after the calling
    message's run of results, in call order."""
    inserts: dict[int, list[Dangling]] = {}
    for dangling in reference_dangling(conversation):
        at = dangling.message_index + 1
        while at < len(conversation) and conversation[at].role == "tool":
            at += 1
        inserts.setdefault(at, []).append(dangling)
    layout: list[tuple[str, Any]] = []
    for position in range(len(conversation) + 1):
        for dangling in sorted(inserts.get(position, []), key=_call_order):
            own = own_result(conversation, dangling)
            layout.append(("new", dangling) if own is None else ("copy", own))
        if position < len(conversation):
            layout.append(("old", position))
    return layout


def _call_order(dangling: Dangling) -> tuple[int, int]:
    return dangling.message_index, dangling.call_index


# --- writing the conversation in a dialect ----------------------------------------------------

LANGCHAIN_SHAPES = ("messages_to_dict", "dumpd", "dumpd-js", "model_dump", "model_dump-nonull")


def _langchain_message(message: Message) -> BaseMessage:
    if message.role == "system":
        return SystemMessage(content=message.text)
    if message.role == "user":
        return HumanMessage(content=message.text)
    if message.role == "tool":
        return ToolMessage(content=message.text, tool_call_id=message.answers or "")
    cls = AIMessageChunk if message.chunk else AIMessage
    return cls(
        content=message.text,
        tool_calls=[
            tool_call(name=c.name or "", args={"q": 1}, id=c.id)
            for c in message.calls
            if not c.invalid
        ],
        invalid_tool_calls=[
            invalid_tool_call(name=c.name, args='{"q": ', id=c.id, error=None)
            for c in message.calls
            if c.invalid
        ],
    )


def langchain_fields(message: dict[str, Any]) -> dict[str, Any]:
    """The fields of a LangChain message dict in any of the three shapes."""
    fields: dict[str, Any] = message
    if message.get("lc") == 1:
        fields = message["kwargs"]
    elif set(message) == {"type", "data"}:
        fields = message["data"]
    return fields


def write_langchain(message: Message, shape: str) -> dict[str, Any]:
    """``message`` as langchain-core writes it in ``shape`` (a null result id patched in)."""
    built = _langchain_message(message)
    written: dict[str, Any]
    if shape == "messages_to_dict":
        written = messages_to_dict([built])[0]
    elif shape.startswith("dumpd"):
        written = dumpd(built)
        if shape == "dumpd-js":
            written["id"] = ["langchain_core", "messages", written["id"][-1]]
    else:
        written = built.model_dump(exclude_none=shape == "model_dump-nonull")
    if message.role == "tool" and message.answers is None:
        fields = langchain_fields(written)
        if shape == "model_dump-nonull":
            del fields["tool_call_id"]
        else:
            fields["tool_call_id"] = None
    return written


def write_openai(message: Message, with_empty_calls: bool) -> dict[str, Any]:
    """``message`` as an OpenAI Chat Completions message."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.answers, "content": message.text}
    if message.role != "assistant":
        return {"role": message.role, "content": message.text}
    written: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if message.calls or with_empty_calls:
        written["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": '{"q": ' if c.invalid else '{"q": 1}'},
            }
            for c in message.calls
        ]
    return written


def answer_of(message: dict[str, Any]) -> tuple[str | None, Any, bool]:
    """``(answered id, content, is an error)`` of a tool-result dict in either dialect."""
    if "role" in message:
        assert message["role"] == "tool", f"not a tool result: {message}"
        return message.get("tool_call_id"), message["content"], True
    fields = langchain_fields(message)
    assert fields["type"] == "tool", f"not a ToolMessage: {message}"
    return fields.get("tool_call_id"), fields["content"], fields.get("status") == "error"


# --- writing the container ----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A generated input and what it was generated from.

    Attributes:
        conversations: The abstract conversations, in file order.
        lines: For ``jsonl-conversations``, the 1-based line of each conversation.
    """

    dialect: str
    shape: str
    container: str
    conversations: list[Conversation]
    data: bytes
    filename: str
    lines: tuple[int, ...] = ()

    def message_lists(self, data: bytes) -> list[list[Any]]:
        """The message lists of ``data`` (this case's input or its repair), in file order."""
        if self.container == "jsonl-messages":
            return [[json.loads(line) for line in data.split(b"\n") if line.strip()]]
        if self.container == "jsonl-conversations":
            values = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        else:
            values = [json.loads(data)]
        return [v["messages"] if isinstance(v, dict) else v for v in values]


@dataclass(frozen=True)
class Style:
    """How a case is serialised.

    Attributes:
        indent: For a document: ``None`` (one line, ``", "``), ``"compact"`` (``","``), or the
            ``json.dumps`` indent.
        newline: Line end of JSON Lines records and of indented documents.
        separators: For JSON Lines records.
        blank_before: For JSON Lines, which records get a blank line before them.
        wrapped: For conversations per line, ``{"messages": [...]}`` rather than a bare list.
        empty_calls: OpenAI assistant messages without calls still carry ``"tool_calls": []``.
    """

    indent: int | str | None = None
    ensure_ascii: bool = True
    separators: tuple[str, str] = (", ", ": ")
    newline: str = "\n"
    final_newline: bool = True
    blank_before: tuple[bool, ...] = ()
    wrapped: bool = False
    empty_calls: bool = False


CONTAINERS = ("list", "object", "jsonl-conversations", "jsonl-messages")


def build_case(
    dialect: str, shape: str, container: str, conversations: list[Conversation], style: Style
) -> Case:
    """Write ``conversations`` in ``dialect``/``shape`` inside ``container``."""

    def write(message: Message) -> dict[str, Any]:
        if dialect == "langchain":
            return write_langchain(message, shape)
        return write_openai(message, style.empty_calls)

    lists = [[write(m) for m in conversation] for conversation in conversations]
    if container in ("list", "object"):
        value: Any = lists[0]
        if container == "object":
            value = {"thread_id": "t-1", "messages": lists[0], "n": 2**70}
        if style.indent == "compact":
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=style.ensure_ascii)
        else:
            text = json.dumps(value, indent=style.indent, ensure_ascii=style.ensure_ascii)
        text = (text + ("\n" if style.final_newline else "")).replace("\n", style.newline)
        data = text.encode()
        return Case(dialect, shape, container, conversations, data, "history.json")

    def line(value: Any) -> str:
        return json.dumps(value, separators=style.separators, ensure_ascii=style.ensure_ascii)

    if container == "jsonl-messages":
        records = [line(m) for m in lists[0]]
    else:
        records = [line({"messages": lst} if style.wrapped else lst) for lst in lists]
    physical: list[str] = []
    numbers = []
    for k, record in enumerate(records):
        if k < len(style.blank_before) and style.blank_before[k]:
            physical.append("")  # a blank line survives
        physical.append(record)
        numbers.append(len(physical))
    text = style.newline.join(physical) + (style.newline if style.final_newline else "")
    return Case(
        dialect, shape, container, conversations, text.encode(), "history.jsonl", tuple(numbers)
    )


@st.composite
def cases(draw: st.DrawFn, *, tidy: bool = False, containers: tuple[str, ...] = CONTAINERS) -> Case:
    dialect = draw(st.sampled_from(["langchain", "openai-chat"]))
    shape = draw(st.sampled_from(LANGCHAIN_SHAPES)) if dialect == "langchain" else "openai"
    container = draw(st.sampled_from(containers))
    count = draw(st.integers(1, 3)) if container == "jsonl-conversations" else 1
    style = Style(
        indent=draw(st.sampled_from([None, "compact", 2, 4, "\t"])),
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(", ", ": "), (",", ":")])),
        newline=draw(st.sampled_from(["\n", "\r\n"])),
        final_newline=draw(st.booleans()),
        blank_before=tuple(draw(st.lists(st.integers(0, 5).map(lambda n: n == 0), max_size=9))),
        wrapped=draw(st.booleans()),
        empty_calls=draw(st.booleans()),
    )
    return build_case(
        dialect,
        shape,
        container,
        [draw(conversations(tidy=tidy)) for _ in range(count)],
        style,
    )


# --- helpers over a case ----------------------------------------------------------------------


#: The pairing invariants hold for every call, the calls fine-tuning examples end on included (a
#: line of OpenAI Chat dicts under ``messages`` is such an example): here they are fixed too.
#: That they are left by default is tests/properties/test_training_properties.py's property.
#: The rules are the pairing rules the reference here is written for (a second result for a
#: call, TP103, is on by default too: the strict properties hold it to their own reference).
#: The rules a fix answers (TP004 has no fix: an orphan whose call no message holds, which the
#: generated histories have, is said unread and left as it is).
PAIRING = patchcore.make_options(select=["TP001", "TP002", "TP003"], fix_training_targets=True)


def fix(case: Case) -> patchcore.Result:
    return patchcore.fix_document(case.data, filename=case.filename, options=PAIRING)


def conversation_of(case: Case, finding: patchcore.Finding) -> int:
    if case.container != "jsonl-conversations":
        return 0
    assert finding.line in case.lines, f"finding on line {finding.line}, not a conversation line"
    return case.lines.index(finding.line)


def reference_findings(case: Case) -> Counter[tuple[int, int, str | None, str]]:
    return Counter(
        (n, d.message_index, d.call.id, d.code)
        for n, conversation in enumerate(case.conversations)
        for d in reference_dangling(conversation)
    )


def describe(case: Case) -> str:
    return f"{case.dialect}/{case.shape} in {case.container}:\n{case.data.decode()}"


# --- the properties ---------------------------------------------------------------------------


@PROPERTY
@given(cases())
def test_fix_is_idempotent(case: Case) -> None:
    """(i) Fixing the output again changes nothing."""
    report = fix(case)
    if report.output is None:
        assert not report.findings, "findings left unfixed"  # the input is the fixed point
        return
    again = patchcore.fix_document(report.output, filename=case.filename, options=PAIRING)
    assert again.output is None, f"second fix changed {describe(case)}\nfindings {again.findings}"


@PROPERTY
@given(cases())
def test_check_after_fix_finds_nothing(case: Case) -> None:
    """(ii) ``check`` of the repaired bytes has no TP0xx finding."""
    report = fix(case)
    repaired = case.data if report.output is None else report.output
    after = patchcore.check_document(repaired, filename=case.filename, options=PAIRING)
    assert not after.findings, f"after fix of {describe(case)}\nstill {after.findings}"


#: A CRLF JSON Lines file without a final newline whose last message has a dangling call.
CRLF_WITHOUT_FINAL_NEWLINE = build_case(
    "openai-chat",
    "openai",
    "jsonl-messages",
    [[Message("user", "hi"), Message("assistant", "", (Call("c1", "f", invalid=False),))]],
    Style(newline="\r\n", final_newline=False),
)


@PROPERTY
@given(cases())
def test_fix_only_inserts(case: Case) -> None:
    """(iii) Removing the inserted messages gives back the input values, key order included;
    each is a synthetic answer, or a copy of a result the input holds
    (docs/pairing.md#evidence-first); JSON Lines lines are written back byte for byte."""
    report = fix(case)
    output = case.data if report.output is None else report.output
    before, after = case.message_lists(case.data), case.message_lists(output)
    assert len(after) == len(before), "the number of message lists changed"
    for original, repaired in zip(before, after, strict=True):
        for inserted in split_inserted(repaired, original):
            if inserted in original:
                continue  # the call's own result, found before it, copied into place (recovered)
            call_id, content, error = answer_of(inserted)
            assert call_id and content and error, f"inserted {inserted} in {describe(case)}"
    if case.container == "object":
        top_before, top_after = json.loads(case.data), json.loads(output)
        assert list(top_after) == list(top_before)
        assert {k: v for k, v in top_after.items() if k != "messages"} == {
            k: v for k, v in top_before.items() if k != "messages"
        }

    lines_before, lines_after = case.data.split(b"\n"), output.split(b"\n")
    if case.container == "jsonl-conversations":
        assert len(lines_after) == len(lines_before), "JSON Lines: lines added or removed"
        touched = {f.line for f in report.fixed}
        for number, (old, new) in enumerate(zip(lines_before, lines_after, strict=True), 1):
            assert old == new or number in touched, f"line {number} changed: {old!r} -> {new!r}"
    elif case.container == "jsonl-messages":
        # A last line without a terminator gains the file's one when a line follows it; the
        # CRLF assertion below pins the terminators, so compare the lines without them.
        added = split_inserted(lines_after, lines_before, key=lambda line: line.rstrip(b"\r"))
        assert len(added) == len(report.fixed), "one new line per inserted message"
    if b"\r\n" in case.data:
        assert output.count(b"\n") == output.count(b"\r\n"), (
            f"a CRLF file got a bare LF line end: {output!r}"
        )


def test_crlf_json_lines_without_final_newline_stay_crlf() -> None:
    """(iii), pinned: an insertion after the last line of a CRLF file ends that line in CRLF."""
    case = CRLF_WITHOUT_FINAL_NEWLINE
    output = fix(case).output
    assert output is not None
    assert output.count(b"\n") == output.count(b"\r\n"), f"bare LF in {output!r}"
    assert output.startswith(case.data + b"\r\n{"), "the input lines are not kept as they were"
    assert not output.endswith(b"\n"), "a missing final newline must stay missing"


@PROPERTY
@given(cases())
def test_one_insert_per_fixed_finding(case: Case) -> None:
    """(iv) The number of inserted messages equals the number of fixed findings."""
    report = fix(case)
    output = case.data if report.output is None else report.output
    pairs = zip(case.message_lists(output), case.message_lists(case.data), strict=True)
    inserted = sum(len(split_inserted(after, before)) for after, before in pairs)
    assert inserted == len(report.fixed) == len(report.findings), describe(case)


@PROPERTY
@given(cases(tidy=True))
def test_nothing_to_fix_leaves_the_bytes_alone(case: Case) -> None:
    """(v) Every call with an id is answered: no finding, no output."""
    assert not reference_findings(case), "the tidy generator made a dangling call"
    report = fix(case)
    assert report.output is None, f"rewrote {describe(case)}\nfor {report.fixed}"
    assert not report.findings


@PROPERTY
@given(cases())
def test_findings_follow_the_pairing_rule(case: Case) -> None:
    """(vi) Findings and inserted results are exactly those of the reference pairing rule."""
    report = fix(case)
    found = Counter(
        (conversation_of(case, f), f.message_index, f.call_id, f.code) for f in report.findings
    )
    assert found == reference_findings(case), f"findings differ on {describe(case)}"

    output = case.data if report.output is None else report.output
    for conversation, original, repaired in zip(
        case.conversations,
        case.message_lists(case.data),
        case.message_lists(output),
        strict=True,
    ):
        layout = expected_layout(conversation)
        assert len(repaired) == len(layout), f"wrong number of messages in {describe(case)}"
        for position, ((kind, what), message) in enumerate(zip(layout, repaired, strict=True)):
            if kind in ("old", "copy"):
                assert canonical(message) == canonical(original[what]), (
                    f"message {position} should be input message {what} in {describe(case)}"
                )
            else:
                call_id, content, error = answer_of(message)
                assert (call_id, content, error) == (what.call.id, synthetic_text(what), True), (
                    f"message {position} should answer {what} in {describe(case)}"
                )


def is_subsequence(needle: list[str], haystack: list[str]) -> bool:
    """Whether ``needle`` is ``haystack`` with some elements left out (a greedy scan decides it)."""
    remaining = iter(haystack)
    return all(any(line == candidate for candidate in remaining) for line in needle)


def only_insertions(before: list[str], after: list[str]) -> bool:
    """``after`` is ``before`` with lines inserted and at most one line given a trailing comma."""
    if is_subsequence(before, after):
        return True
    wanted = set(after)
    return any(
        is_subsequence([*before[:k], line + ",", *before[k + 1 :]], after)
        for k, line in enumerate(before)
        if line + "," in wanted
    )


@PROPERTY
@given(cases(containers=("list", "object")))
def test_indented_documents_get_a_minimal_diff(case: Case) -> None:
    """(vii) A diff of a repaired document shows new lines and, at most, one added comma."""
    report = fix(case)
    if report.output is None:
        assert not reference_findings(case), "a dangling call was left alone"
        return
    before = case.data.decode().splitlines()
    after = report.output.decode().splitlines()
    if len(before) == 1:
        assert len(after) == 1, "a one-line document stays on one line"
        return
    diff = "\n".join(difflib.unified_diff(before, after, lineterm=""))
    assert only_insertions(before, after), f"diff of {describe(case)}:\n{diff}"
