"""Property tests of the provider-strict rules (docs/rules.md: TP101-TP107 and the unsafe fixes), in
every dialect and container.

Each history starts as an abstract, valid conversation (user turns made of results and texts,
assistant turns with parallel calls, ids reused after the earlier call was answered, as tau-bench
and tau2 do) and is then broken by random corruptions of the kinds real files have: results
shuffled within a turn or moved to another turn, dropped, duplicated, moved before their call or
after a later user message, orphan results with unknown ids, text blocks before the results
(Anthropic, Bedrock) and empty ``tool_calls`` lists (OpenAI Chat, LangChain
``additional_kwargs``). It is written in a dialect: OpenAI Chat, LangChain (``messages_to_dict``,
``dumpd``, ``model_dump``), OpenAI Responses, Anthropic, Gemini (with and without ids, REST and
SDK spellings), Bedrock or pydantic-ai; inside a container: a bare list, a request body, a list
of bodies, JSON Lines of bodies or JSON Lines of messages; one line, compact or indented, LF or
CRLF. The defects no fix can honestly repair (a call reusing an id that is still open, a call
without an id) are left out of the main properties and added only in property 4.

Properties:

1. ``fix --select ALL --unsafe-fixes`` repairs everything: every message list passes the
   independent provider validator of its dialect (``tests/provider_rules.py``; LangChain lists
   also as langchain-openai sends them to OpenAI), nothing is left unfixed, ``check --select
   ALL`` of the output finds nothing, and fixing it again changes nothing.
2. ``fix --select ALL`` without unsafe fixes never deletes or moves existing content: every
   original message (and every block of a block dialect) is still there, in order, with the same
   value; only synthetic results are inserted, one per fixed finding; the TP1xx findings stay
   reported, as unsafe-fixable, before and after.
3. The findings are exactly those of a reference pairing written here (a result answers the
   nearest earlier unanswered call with its id; no earlier call: orphan; earlier calls all
   answered: duplicate), with the placement, shape and empty-list rules read from the generated
   conversation; reusing an id after its earlier call was answered is never a finding. (Not
   for id-less Gemini, which pairs by name and position: there is no id to classify by.)
4. With reused-while-open and missing ids added, TP104/TP105 are reported where the reference
   puts them, without a fix; ``fix --unsafe-fixes`` leaves exactly them in ``report.remaining``
   and fixes everything else (dialects with ids: an id-less Gemini call is legal).
5. Nothing outside the message lists changes: with or without unsafe fixes, the bytes around
   every list (other keys of a body, other bodies, other lines) are byte-identical, and JSON
   Lines of messages gain no blank line and keep their line ends and (missing) final newline.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    convert_to_openai_messages,
    messages_to_dict,
)
from langchain_core.messages.tool import tool_call

import patchcore
from tests.helpers import canonical
from tests.provider_rules import Violation, load_langchain, openai_chat, validate

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

SAFE_CODES = frozenset({"TP001", "TP002", "TP003"})
STRICT_CODES = frozenset({"TP101", "TP102", "TP103", "TP104", "TP105", "TP106", "TP107"})
UNFIXABLE_CODES = frozenset({"TP104", "TP105"})

#: Tool names: repeated (Gemini pairs id-less calls by name) and non-ASCII.
NAMES = ["get_weather", "get_weather", "search", "ツール"]
#: Id suffixes that need escaping in JSON.
ODD = st.sampled_from(["", "", "", "é", '"', "\\", "😀"])
#: JSON's structural characters and escapes, non-ASCII, a surrogate pair; never empty.
TEXT = st.text(alphabet='ab é😀"\\/\n{}', min_size=1, max_size=5)
TIMESTAMP = "2025-01-01T00:00:00Z"

# =============================================================================================
# The abstract conversation
# =============================================================================================


@dataclass(frozen=True)
class Call:
    """A tool call; ``serial`` tells call instances apart (ids are reused)."""

    id: str | None
    name: str
    serial: int


@dataclass(frozen=True)
class Result:
    """A tool result for the call with id ``id`` (``serial``: the call it was made for, 0 for an
    orphan made up by a corruption)."""

    id: str | None
    name: str
    text: str
    serial: int


@dataclass(frozen=True)
class Text:
    """A text block of a user turn (a user message in the flat dialects)."""

    text: str


Block = Result | Text


@dataclass(frozen=True)
class Assistant:
    text: str | None
    calls: tuple[Call, ...] = ()
    empty_calls: bool = False


@dataclass(frozen=True)
class User:
    blocks: tuple[Block, ...]


Turn = Assistant | User
Position = tuple[int, int]
"""(turn, call) or (turn, block) in the abstract conversation."""


@dataclass(frozen=True)
class Variant:
    """A dialect and, where it has several, its shape."""

    dialect: str
    shape: str = ""

    @property
    def ids(self) -> bool:
        """Whether calls and results carry ids."""
        return self.shape != "no-ids"

    @property
    def flat(self) -> bool:
        """Every result is a message of its own, right after its call (OpenAI Chat rules)."""
        return self.dialect in ("openai-chat", "langchain")

    @property
    def block(self) -> bool:
        """Results are blocks of the next user turn."""
        return self.dialect in ("anthropic", "bedrock", "gemini", "pydantic-ai")

    @property
    def results_first(self) -> bool:
        """The provider requires the results before any other block (TP106)."""
        return self.dialect in ("anthropic", "bedrock")

    def __str__(self) -> str:
        return f"{self.dialect}/{self.shape}" if self.shape else self.dialect


VARIANTS = (
    Variant("openai-chat"),
    Variant("langchain", "messages_to_dict"),
    Variant("langchain", "dumpd"),
    Variant("langchain", "model_dump"),
    Variant("openai-responses"),
    Variant("anthropic"),
    Variant("gemini", "ids"),
    Variant("gemini", "no-ids"),
    Variant("bedrock"),
    Variant("pydantic-ai"),
)
WITH_IDS = tuple(v for v in VARIANTS if v.ids)


@st.composite
def valid_turns(draw: st.DrawFn, variant: Variant, serials: Iterator[int]) -> list[Turn]:
    """A valid conversation: every call answered in the next user turn (results in any order,
    sometimes followed by text); ids unique within a turn and sometimes reused from an earlier,
    answered call."""
    turns: list[Turn] = [User((Text(draw(TEXT)),))]
    used: list[str] = []
    rounds = draw(st.integers(1, 4))
    for number in range(rounds):
        calls: list[Call] = []
        for _ in range(draw(st.integers(1 if number == 0 else 0, 3))):
            serial = next(serials)
            reusable = [i for i in used if i not in {c.id for c in calls}]
            call_id: str | None = None
            if variant.ids:
                if reusable and draw(st.integers(0, 2)) == 0:
                    call_id = draw(st.sampled_from(reusable))
                else:
                    call_id = f"call_{serial}{draw(ODD)}"
            calls.append(Call(call_id, draw(st.sampled_from(NAMES)), serial))
        text = draw(st.none() | TEXT) if calls else draw(TEXT)
        turns.append(Assistant(text, tuple(calls)))
        if calls:
            blocks: list[Block] = [
                Result(c.id, c.name, draw(TEXT), c.serial) for c in draw(st.permutations(calls))
            ]
            if draw(st.booleans()):
                blocks.append(Text(draw(TEXT)))
            turns.append(User(tuple(blocks)))
            used += [c.id for c in calls if c.id and c.id not in used]
        elif number < rounds - 1 or draw(st.booleans()):
            turns.append(User((Text(draw(TEXT)),)))
    # a closing reply follows a user turn only: two assistant turns in a row are a history
    # Bedrock refuses whatever toolpatch does (its roles alternate), not one of its defects
    if isinstance(turns[-1], User) and draw(st.booleans()):
        turns.append(Assistant(draw(TEXT)))
    return turns


def blocks_of(turns: Sequence[Turn], t: int) -> tuple[Block, ...]:
    turn = turns[t]
    assert isinstance(turn, User)
    return turn.blocks


def calls_of(turns: Sequence[Turn], t: int) -> tuple[Call, ...]:
    turn = turns[t]
    assert isinstance(turn, Assistant)
    return turn.calls


def result_at(turns: Sequence[Turn], position: Position) -> Result:
    block = blocks_of(turns, position[0])[position[1]]
    assert isinstance(block, Result)
    return block


def result_positions(turns: Sequence[Turn]) -> list[Position]:
    return [
        (t, b)
        for t, turn in enumerate(turns)
        if isinstance(turn, User)
        for b, block in enumerate(turn.blocks)
        if isinstance(block, Result)
    ]


def user_turns(turns: Sequence[Turn]) -> list[int]:
    return [t for t, turn in enumerate(turns) if isinstance(turn, User)]


def take(turns: list[Turn], position: Position) -> Result:
    """Remove the result at ``position`` and return it."""
    t, b = position
    turn = turns[t]
    assert isinstance(turn, User)
    block = turn.blocks[b]
    assert isinstance(block, Result)
    turns[t] = User(turn.blocks[:b] + turn.blocks[b + 1 :])
    return block


def put(turns: list[Turn], t: int, b: int, block: Block) -> None:
    turn = turns[t]
    assert isinstance(turn, User)
    turns[t] = User((*turn.blocks[:b], block, *turn.blocks[b:]))


def call_turn(turns: Sequence[Turn], serial: int) -> int | None:
    """The assistant turn holding the call ``serial``."""
    return next(
        (
            t
            for t, turn in enumerate(turns)
            if isinstance(turn, Assistant) and any(c.serial == serial for c in turn.calls)
        ),
        None,
    )


CORRUPTIONS = (
    "shuffle",
    "move",
    "before-call",
    "after-user",
    "drop",
    "duplicate",
    "orphan",
    "text-first",
    "empty-calls",
)


def corrupt(draw: st.DrawFn, turns: list[Turn], variant: Variant) -> list[str]:
    """Apply 0-5 random corruptions to ``turns`` in place; return the ones applied."""
    kinds = [
        k
        for k in CORRUPTIONS
        if (k != "text-first" or variant.results_first) and (k != "empty-calls" or variant.flat)
    ]
    ghosts = itertools.count(1)
    applied: list[str] = []
    for _ in range(draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3, 4, 5]))):
        kind = draw(st.sampled_from(kinds))
        results = result_positions(turns)
        if kind == "shuffle":
            crowded = [t for t in user_turns(turns) if len(blocks_of(turns, t)) > 1]
            if not crowded:
                continue
            t = draw(st.sampled_from(crowded))
            turn = turns[t]
            assert isinstance(turn, User)
            turns[t] = User(tuple(draw(st.permutations(turn.blocks))))
        elif kind in ("move", "drop", "duplicate", "before-call", "after-user"):
            if kind == "before-call":  # results of a real call (not made-up orphans)
                results = [p for p in results if result_at(turns, p).serial]
            if not results:
                continue
            source = draw(st.sampled_from(results))
            if kind == "duplicate":
                block: Block = blocks_of(turns, source[0])[source[1]]
            else:
                block = take(turns, source)
            if kind == "drop":
                pass
            elif kind in ("move", "duplicate"):
                t = draw(st.sampled_from(user_turns(turns)))
                put(turns, t, draw(st.integers(0, len(blocks_of(turns, t)))), block)
            elif kind == "before-call":
                assert isinstance(block, Result)
                caller = call_turn(turns, block.serial)
                assert caller is not None
                t = draw(st.sampled_from([u for u in user_turns(turns) if u < caller]))
                put(turns, t, draw(st.integers(0, len(blocks_of(turns, t)))), block)
            else:  # after a user text that comes later than the result's place
                texts = [
                    (t, b)
                    for t in user_turns(turns)
                    for b, other in enumerate(blocks_of(turns, t))
                    if isinstance(other, Text)
                    and (t > source[0] or (t == source[0] and b >= source[1]))
                ]
                if not texts:
                    put(turns, *source, block)
                    continue
                t, b = draw(st.sampled_from(texts))
                put(turns, t, b + 1, block)
        elif kind == "orphan":
            ghost = next(ghosts)
            orphan = Result(f"ghost_{ghost}" if variant.ids else None, "ghost", draw(TEXT), 0)
            t = draw(st.sampled_from(user_turns(turns)))
            put(turns, t, draw(st.integers(0, len(blocks_of(turns, t)))), orphan)
        elif kind == "text-first":
            answering = [t for t in user_turns(turns) if any(t == r[0] for r in results)]
            if not answering:
                continue
            put(turns, draw(st.sampled_from(answering)), 0, Text(draw(TEXT)))
        else:  # empty-calls
            quiet = [
                t for t, turn in enumerate(turns) if isinstance(turn, Assistant) and not turn.calls
            ]
            if not quiet:
                continue
            t = draw(st.sampled_from(quiet))
            turn = turns[t]
            assert isinstance(turn, Assistant)
            turns[t] = Assistant(turn.text, (), empty_calls=True)
        applied.append(kind)
    turns[:] = [t for t in turns if not isinstance(t, User) or t.blocks]
    if not variant.results_first and variant.block:
        # Gemini and pydantic-ai turns are written results first (TP106 is Anthropic/Bedrock's).
        turns[:] = [
            User(tuple(sorted(turn.blocks, key=lambda b: not isinstance(b, Result))))
            if isinstance(turn, User)
            else turn
            for turn in turns
        ]
    return applied


def add_unfixable(
    draw: st.DrawFn, turns: list[Turn], variant: Variant, serials: Iterator[int]
) -> list[str]:
    """Add 1-2 defects no fix can repair: a call that repeats the id of another call of its
    message (still open), or (where ids are required) a call with a null or empty id."""
    kinds = ["reused-open"] if variant.dialect == "gemini" else ["reused-open", "missing-id"]
    applied: list[str] = []
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(kinds))
        assistants = [t for t, turn in enumerate(turns) if isinstance(turn, Assistant)]
        if kind == "reused-open":
            assistants = [t for t in assistants if calls_of(turns, t)]
        t = draw(st.sampled_from(assistants))
        turn = turns[t]
        assert isinstance(turn, Assistant)
        if kind == "reused-open":
            twin = draw(st.sampled_from(turn.calls))
            call = Call(twin.id, draw(st.sampled_from(NAMES)), next(serials))
        else:
            missing = draw(st.sampled_from([None, ""]))
            call = Call(missing, draw(st.sampled_from(NAMES)), next(serials))
        calls = list(turn.calls)
        calls.insert(draw(st.integers(0, len(calls))), call)
        turns[t] = Assistant(turn.text, tuple(calls))
        applied.append(kind)
    return applied


# =============================================================================================
# The reference pairing (docs/pairing.md#the-pairing-rule, written independently of the engine)
# =============================================================================================


@dataclass
class Reference:
    """What the reference pairing makes of an abstract conversation."""

    answers: list[tuple[Position, Position]] = field(default_factory=list)
    dangling: list[Position] = field(default_factory=list)
    orphans: list[Position] = field(default_factory=list)
    duplicates: list[Position] = field(default_factory=list)
    reused: list[Position] = field(default_factory=list)
    keyless: list[Position] = field(default_factory=list)
    reused_after_answer: int = 0


def reference_pairing(turns: Sequence[Turn]) -> Reference:
    """Walk in order; a result answers the nearest earlier unanswered call with its id (searched
    backwards); no earlier call with its id: orphan; earlier calls all answered: duplicate. A
    call opened while an earlier call with its id is unanswered is reused-while-open; a call
    without an id is keyless."""
    ref = Reference()
    opened: list[tuple[Position, str]] = []
    answered: set[Position] = set()
    for t, turn in enumerate(turns):
        if isinstance(turn, Assistant):
            for k, call in enumerate(turn.calls):
                if not call.id:
                    ref.keyless.append((t, k))
                    continue
                earlier = [p for p, i in opened if i == call.id]
                if any(p not in answered for p in earlier):
                    ref.reused.append((t, k))
                elif earlier:
                    ref.reused_after_answer += 1
                opened.append(((t, k), call.id))
            continue
        for b, block in enumerate(turn.blocks):
            if not isinstance(block, Result):
                continue
            same = [p for p, i in reversed(opened) if i == block.id]
            open_ones = [p for p in same if p not in answered]
            if open_ones:
                answered.add(open_ones[0])
                ref.answers.append((open_ones[0], (t, b)))
            elif same:
                ref.duplicates.append((t, b))
            else:
                ref.orphans.append((t, b))
    ref.dangling = [p for p, _ in opened if p not in answered]
    return ref


# =============================================================================================
# Writing the conversation in a dialect
# =============================================================================================


@dataclass
class Rendered:
    """A message list and where each abstract element went.

    Attributes:
        call_at: (turn, call) -> index of the message (item) holding the call.
        block_at: (turn, block) -> index of the message holding the block.
        turn_at: assistant turn -> index of its (first) message.
        kinds: For each message, ``"call"`` (an assistant message or call item), ``"result"``
            or ``"other"``.
    """

    messages: list[Any] = field(default_factory=list)
    call_at: dict[Position, int] = field(default_factory=dict)
    block_at: dict[Position, int] = field(default_factory=dict)
    turn_at: dict[int, int] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)

    def add(self, message: Any, kind: str) -> int:
        self.messages.append(message)
        self.kinds.append(kind)
        return len(self.messages) - 1


def render_openai(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            for b, block in enumerate(turn.blocks):
                if isinstance(block, Result):
                    message = {"role": "tool", "tool_call_id": block.id, "content": block.text}
                    out.block_at[t, b] = out.add(message, "result")
                else:
                    out.block_at[t, b] = out.add({"role": "user", "content": block.text}, "other")
            continue
        assistant: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.calls or turn.empty_calls:
            assistant["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps({"n": c.serial})},
                }
                for c in turn.calls
            ]
        out.turn_at[t] = out.add(assistant, "call")
        for k in range(len(turn.calls)):
            out.call_at[t, k] = out.turn_at[t]
    return out


def langchain_write(message: BaseMessage, shape: str) -> dict[str, Any]:
    """``message`` as langchain-core writes it in ``shape``."""
    if shape == "messages_to_dict":
        return messages_to_dict([message])[0]
    if shape == "dumpd":
        written: dict[str, Any] = dumpd(message)
        return written
    return message.model_dump()


def render_langchain(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            for b, block in enumerate(turn.blocks):
                built: BaseMessage
                if isinstance(block, Result):
                    built = ToolMessage(block.text, tool_call_id=block.id or "", name=block.name)
                    kind = "result"
                else:
                    built, kind = HumanMessage(block.text), "other"
                out.block_at[t, b] = out.add(langchain_write(built, variant.shape), kind)
            continue
        ai = AIMessage(
            turn.text or "",
            tool_calls=[tool_call(name=c.name, args={"n": c.serial}, id=c.id) for c in turn.calls],
            additional_kwargs={"tool_calls": []} if turn.empty_calls else {},
        )
        out.turn_at[t] = out.add(langchain_write(ai, variant.shape), "call")
        for k in range(len(turn.calls)):
            out.call_at[t, k] = out.turn_at[t]
    return out


def render_responses(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    numbers = itertools.count(1)
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            for b, block in enumerate(turn.blocks):
                if isinstance(block, Result):
                    item = {
                        "type": "function_call_output",
                        "call_id": block.id,
                        "output": block.text,
                    }
                    out.block_at[t, b] = out.add(item, "result")
                elif draw(st.booleans()):
                    out.block_at[t, b] = out.add({"role": "user", "content": block.text}, "other")
                else:
                    typed = {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": block.text}],
                    }
                    out.block_at[t, b] = out.add(typed, "other")
            continue
        first = len(out.messages)
        if draw(st.booleans()):
            out.add({"type": "reasoning", "id": f"rs_{next(numbers)}", "summary": []}, "call")
        if turn.text is not None:
            message = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{next(numbers)}",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
            out.add(message, "call")
        for k, c in enumerate(turn.calls):
            item = {
                "type": "function_call",
                "id": f"fc_{c.serial}",
                "call_id": c.id,
                "name": c.name,
                "arguments": json.dumps({"n": c.serial}),
            }
            out.call_at[t, k] = out.add(item, "call")
        out.turn_at[t] = first
    return out


def render_anthropic(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    for t, turn in enumerate(turns):
        content: Any
        if isinstance(turn, User):
            if len(turn.blocks) == 1 and isinstance(turn.blocks[0], Text) and draw(st.booleans()):
                content = turn.blocks[0].text
            else:
                content = [
                    {"type": "tool_result", "tool_use_id": b.id, "content": b.text}
                    if isinstance(b, Result)
                    else {"type": "text", "text": b.text}
                    for b in turn.blocks
                ]
            index = out.add({"role": "user", "content": content}, "other")
            out.block_at.update({(t, b): index for b in range(len(turn.blocks))})
            continue
        content = [{"type": "text", "text": turn.text}] if turn.text is not None else []
        content += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": {"n": c.serial}}
            for c in turn.calls
        ]
        if not turn.calls and draw(st.booleans()):
            content = turn.text
        out.turn_at[t] = out.add({"role": "assistant", "content": content}, "call")
        out.call_at.update({(t, k): out.turn_at[t] for k in range(len(turn.calls))})
    return out


def render_bedrock(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            content = [
                {"toolResult": {"toolUseId": b.id, "content": [{"text": b.text}]}}
                if isinstance(b, Result)
                else {"text": b.text}
                for b in turn.blocks
            ]
            index = out.add({"role": "user", "content": content}, "other")
            out.block_at.update({(t, b): index for b in range(len(turn.blocks))})
            continue
        blocks: list[Any] = [{"text": turn.text}] if turn.text is not None else []
        blocks += [
            {"toolUse": {"toolUseId": c.id, "name": c.name, "input": {"n": c.serial}}}
            for c in turn.calls
        ]
        out.turn_at[t] = out.add({"role": "assistant", "content": blocks}, "call")
        out.call_at.update({(t, k): out.turn_at[t] for k in range(len(turn.calls))})
    return out


def render_gemini(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    snake = draw(st.integers(0, 3)) == 0  # the Python SDK's model_dump() spelling

    def with_id(fields: dict[str, Any], ident: str | None) -> dict[str, Any]:
        return fields if ident is None else {"id": ident, **fields}

    def content(role: str, parts: list[Any]) -> dict[str, Any]:
        return {"parts": parts, "role": role} if snake else {"role": role, "parts": parts}

    response_key, call_key = (
        ("function_response", "function_call") if snake else ("functionResponse", "functionCall")
    )
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            parts = [
                {response_key: with_id({"name": b.name, "response": {"output": b.text}}, b.id)}
                if isinstance(b, Result)
                else {"text": b.text}
                for b in turn.blocks
            ]
            index = out.add(content("user", parts), "other")
            out.block_at.update({(t, b): index for b in range(len(turn.blocks))})
            continue
        model: list[Any] = [{"text": turn.text}] if turn.text is not None else []
        model += [
            {call_key: with_id({"name": c.name, "args": {"n": c.serial}}, c.id)} for c in turn.calls
        ]
        out.turn_at[t] = out.add(content("model", model), "call")
        out.call_at.update({(t, k): out.turn_at[t] for k in range(len(turn.calls))})
    return out


def render_pydantic_ai(draw: st.DrawFn, turns: Sequence[Turn], variant: Variant) -> Rendered:
    out = Rendered()
    for t, turn in enumerate(turns):
        if isinstance(turn, User):
            parts = [
                {
                    "tool_name": b.name,
                    "content": b.text,
                    "tool_call_id": b.id,
                    "metadata": None,
                    "timestamp": TIMESTAMP,
                    "part_kind": "tool-return",
                }
                if isinstance(b, Result)
                else {"content": b.text, "timestamp": TIMESTAMP, "part_kind": "user-prompt"}
                for b in turn.blocks
            ]
            request = {"parts": parts, "instructions": None, "kind": "request"}
            index = out.add(request, "other")
            out.block_at.update({(t, b): index for b in range(len(turn.blocks))})
            continue
        response: list[Any] = (
            [{"content": turn.text, "id": None, "part_kind": "text"}]
            if turn.text is not None
            else []
        )
        response += [
            {
                "tool_name": c.name,
                "args": {"n": c.serial},
                "tool_call_id": c.id,
                "id": None,
                "part_kind": "tool-call",
            }
            for c in turn.calls
        ]
        message = {
            "parts": response,
            "model_name": "gpt-5",
            "timestamp": TIMESTAMP,
            "kind": "response",
        }
        out.turn_at[t] = out.add(message, "call")
        out.call_at.update({(t, k): out.turn_at[t] for k in range(len(turn.calls))})
    return out


RENDERERS: dict[str, Callable[[st.DrawFn, Sequence[Turn], Variant], Rendered]] = {
    "openai-chat": render_openai,
    "langchain": render_langchain,
    "openai-responses": render_responses,
    "anthropic": render_anthropic,
    "bedrock": render_bedrock,
    "gemini": render_gemini,
    "pydantic-ai": render_pydantic_ai,
}


@dataclass(frozen=True)
class History:
    """One generated message list, with the conversation it was written from."""

    turns: tuple[Turn, ...]
    rendered: Rendered
    corruptions: tuple[str, ...]
    reference: Reference


@st.composite
def histories(draw: st.DrawFn, variant: Variant, *, unfixable: bool = False) -> History:
    serials = itertools.count(1)
    turns = draw(valid_turns(variant, serials))
    applied = corrupt(draw, turns, variant)
    if unfixable:
        applied += add_unfixable(draw, turns, variant, serials)
    reference = reference_pairing(turns)
    if variant.ids and not unfixable:
        # The main properties leave the unfixable defects out (property 4 has them).
        assume(not reference.reused and not reference.keyless)
    for kind in applied:
        event(f"corruption: {kind}")
    if reference.reused_after_answer:
        event("an id reused after its call was answered")
    rendered = RENDERERS[variant.dialect](draw, turns, variant)
    return History(tuple(turns), rendered, tuple(applied), reference)


# =============================================================================================
# Containers
# =============================================================================================


@dataclass(frozen=True)
class Raw:
    """A JSON value written as its exact text (numbers that a round trip would change)."""

    text: str


#: A request body around the message list (``LIST``) in each dialect, with values whose bytes a
#: re-serialisation would change.
LIST = "@@LIST@@"
BODIES: dict[str, list[tuple[str, Any]]] = {
    "openai-chat": [
        ("model", "gpt-4o"),
        ("messages", LIST),
        ("tools", [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]),
        ("seed", Raw("1180591620717411303424")),
        ("temperature", Raw("1e0")),
    ],
    "langchain": [
        ("thread_id", "t-1"),
        ("messages", LIST),
        ("metadata", {"step": Raw("1180591620717411303424"), "ratio": Raw("1.50")}),
    ],
    "openai-responses": [
        ("model", "gpt-5"),
        ("input", LIST),
        ("store", False),
        ("top_p", Raw("1E-0")),
    ],
    "anthropic": [
        ("model", "claude-sonnet-4-5"),
        ("max_tokens", Raw("1024")),
        ("system", "Be brief. \u00e9"),
        ("messages", LIST),
        ("tools", [{"name": "get_weather", "input_schema": {"type": "object"}}]),
    ],
    "gemini": [
        ("systemInstruction", {"parts": [{"text": "Be brief."}]}),
        ("contents", LIST),
        ("generationConfig", {"temperature": Raw("0.0")}),
    ],
    "bedrock": [
        ("modelId", "anthropic.claude-3-5-sonnet"),
        ("system", [{"text": "Be brief."}]),
        ("messages", LIST),
        ("inferenceConfig", {"maxTokens": Raw("512")}),
    ],
    "pydantic-ai": [
        ("run_id", "r-1"),
        ("messages", LIST),
        ("usage", {"requests": Raw("2"), "cost": Raw("-0.0")}),
    ],
}
LIST_KEYS = {dialect: next(k for k, v in body if v == LIST) for dialect, body in BODIES.items()}
CONTAINERS = ("list", "body", "list-of-bodies", "jsonl-bodies", "jsonl-messages")


@dataclass(frozen=True)
class Layout:
    """How a document is written: ``indent`` is ``None`` (one line), ``"compact"``, or the
    ``json.dumps`` indent."""

    indent: int | str | None
    ensure_ascii: bool
    newline: str
    final_newline: bool

    def dump(self, value: Any, depth: int = 0) -> str:
        if self.indent == "compact":
            return json.dumps(value, separators=(",", ":"), ensure_ascii=self.ensure_ascii)
        if self.indent is None:
            return json.dumps(value, ensure_ascii=self.ensure_ascii)
        text = json.dumps(value, indent=self.indent, ensure_ascii=self.ensure_ascii)
        unit = " " * self.indent if isinstance(self.indent, int) else self.indent
        return text.replace("\n", "\n" + unit * depth)


def skeleton(dialect: str) -> tuple[dict[str, Any], list[str]]:
    """The dialect's body with sentinels for the list and the raw values, and the raw texts."""
    raws: list[str] = []

    def fill(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"@@RAW{len(raws) - 1}@@"
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return {k: fill(v) for k, v in BODIES[dialect]}, raws


def write_frame(value: Any, raws: list[str], layout: Layout) -> list[str]:
    """``value`` written with its raw values, split at the list sentinels: the text around the
    lists."""
    text = layout.dump(value)
    for k, raw in enumerate(raws):
        text = text.replace(f'"@@RAW{k}@@"', raw)
    return text.split(json.dumps(LIST))


@dataclass(frozen=True)
class Case:
    """A generated document.

    Attributes:
        pieces: The exact text around the message lists (one more than lists); ``None`` for
            JSON Lines of messages, where there is nothing around them.
        lines: For JSON Lines of bodies, the 1-based line of each body.
    """

    variant: Variant
    histories: tuple[History, ...]
    container: str
    data: bytes
    filename: str
    pieces: tuple[bytes, ...] | None
    lines: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        return LIST_KEYS[self.variant.dialect]

    def lists(self, data: bytes) -> list[list[Any]]:
        """The message lists of ``data`` (this case's input or a repair of it), in order."""
        if self.container in ("list", "body", "list-of-bodies"):
            value = json.loads(data)
            if self.container == "list":
                return [value]
            if self.container == "body":
                return [value[self.key]]
            return [body[self.key] for body in value]
        records = [json.loads(line) for line in data.split(b"\n") if line.strip()]
        if self.container == "jsonl-messages":
            return [records]
        return [record[self.key] for record in records]

    def history_of(self, finding: patchcore.Finding) -> int:
        """Which generated history a finding is about."""
        if self.container == "list-of-bodies":
            first = finding.list_pointer[0]
            assert isinstance(first, int)
            return first
        if self.container == "jsonl-bodies":
            assert finding.line in self.lines, f"finding on line {finding.line}"
            return self.lines.index(finding.line)
        return 0

    def describe(self) -> str:
        corruptions = [list(h.corruptions) for h in self.histories]
        return (
            f"{self.variant} in {self.container}, corruptions {corruptions}:\n"
            f"{self.data.decode('utf-8', 'replace')}"
        )


@st.composite
def cases(
    draw: st.DrawFn,
    *,
    variants: Sequence[Variant] = VARIANTS,
    containers: Sequence[str] = CONTAINERS,
    unfixable: bool = False,
) -> Case:
    variant = draw(st.sampled_from(variants))
    container = draw(st.sampled_from(containers))
    count = draw(st.integers(1, 3)) if container in ("list-of-bodies", "jsonl-bodies") else 1
    made = tuple(draw(histories(variant, unfixable=unfixable)) for _ in range(count))
    event(f"variant: {variant}")
    event(f"container: {container}")
    lists = [h.rendered.messages for h in made]
    ascii_only = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    final = draw(st.booleans())
    if container in ("list", "body", "list-of-bodies"):
        layout = Layout(
            draw(st.sampled_from([None, "compact", 2, 4, "\t"])), ascii_only, newline, final
        )
        if container == "list":
            pieces, depth = ["", ""], 0
        else:
            body, raws = skeleton(variant.dialect)
            pieces = write_frame(body if container == "body" else [body] * count, raws, layout)
            depth = 1 if container == "body" else 2
        if final:
            pieces[-1] += "\n"
        texts = [layout.dump(messages, depth) for messages in lists]
        if layout.indent not in (None, "compact"):
            pieces = [p.replace("\n", newline) for p in pieces]
            texts = [t.replace("\n", newline) for t in texts]
        document = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:], strict=True))
        return Case(
            variant,
            made,
            container,
            document.encode(),
            "history.json",
            tuple(p.encode() for p in pieces),
        )
    layout = Layout(draw(st.sampled_from([None, "compact"])), ascii_only, newline, final)
    physical: list[str] = []
    if container == "jsonl-messages":
        for k, message in enumerate(lists[0]):
            if k > 0 and draw(st.integers(0, 4)) == 0:  # a blank line before it
                physical.append("")
            physical.append(layout.dump(message))
        text = newline.join(physical) + (newline if final else "")
        return Case(variant, made, container, text.encode(), "history.jsonl", None)
    pieces = [""]
    numbers = []
    body, raws = skeleton(variant.dialect)
    for k, messages in enumerate(lists):
        if k > 0:
            pieces[-1] += newline
            if draw(st.integers(0, 4)) == 0:
                pieces[-1] += newline
                physical.append("")
        before, after = write_frame(body, raws, layout)
        pieces[-1] += before
        pieces.append(after)
        physical.append(before + layout.dump(messages) + after)
        numbers.append(len(physical))
    if final:
        pieces[-1] += newline
    text = newline.join(physical) + (newline if final else "")
    return Case(
        variant,
        made,
        container,
        text.encode(),
        "history.jsonl",
        tuple(p.encode() for p in pieces),
        tuple(numbers),
    )


# =============================================================================================
# Helpers over a case
# =============================================================================================


def fix(case: Case, *, unsafe: bool, data: bytes | None = None) -> patchcore.Result:
    return patchcore.fix_document(
        case.data if data is None else data,
        filename=case.filename,
        options=patchcore.make_options(select=["ALL"], unsafe_fixes=unsafe),
    )


def check(case: Case, data: bytes | None = None) -> patchcore.Result:
    return patchcore.check_document(
        case.data if data is None else data,
        filename=case.filename,
        options=patchcore.make_options(select=["ALL"]),
    )


def summary(findings: Sequence[patchcore.Finding]) -> str:
    return (
        "\n".join(
            f"  {f.code} message {f.message_index} id {f.call_id!r}: {f.message}"
            f" (fix: {f.fix.applicability.value if f.fix else None})"
            for f in findings
        )
        or "  (none)"
    )


def show(violations: Sequence[Violation]) -> str:
    return "\n".join(f"  {v}" for v in violations)


def langchain_as_openai(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """LangChain messages as langchain-openai sends them to OpenAI Chat (with what older
    integrations forwarded: an empty ``additional_kwargs.tool_calls``)."""
    converted: list[dict[str, Any]] = convert_to_openai_messages(
        [load_langchain(m) for m in messages]
    )
    for raw, message in zip(messages, converted, strict=True):
        fields = raw.get("kwargs") or raw.get("data") or raw
        extra = fields.get("additional_kwargs") or {}
        if extra.get("tool_calls") == [] and "tool_calls" not in message:
            message["tool_calls"] = []
    return converted


def provider_violations(variant: Variant, messages: Sequence[Any]) -> list[Violation]:
    """The independent validator of the dialect's provider (LangChain: LangGraph's check and
    OpenAI Chat's rules on the messages langchain-openai sends)."""
    found = validate(variant.dialect, messages)
    if variant.dialect == "langchain":
        found += openai_chat(langchain_as_openai(messages))
    return found


def assert_read_as(case: Case, report: patchcore.Result) -> None:
    """Every list was found and read in the generated dialect."""
    dialects = [listed.dialect for listed in report.conversations]
    assert dialects == [case.variant.dialect] * len(case.histories), (
        f"lists read as {dialects} in {case.describe()}"
    )


# =============================================================================================
# 1. The unsafe fix makes every list pass its provider's rules
# =============================================================================================


@settings(PROPERTY, max_examples=500)
@given(cases())
def test_unsafe_fix_passes_the_provider_rules(case: Case) -> None:
    """1. After ``fix --select ALL --unsafe-fixes`` every list passes its provider's rules,
    nothing is left, and the output is a fixed point."""
    report = fix(case, unsafe=True)
    assert_read_as(case, report)
    for f in report.findings:
        event(f"finding: {f.code}")
    output = case.data if report.output is None else report.output
    for number, messages in enumerate(case.lists(output)):
        violations = provider_violations(case.variant, messages)
        assert not violations, (
            f"list {number} breaks {case.variant.dialect}'s rules after the unsafe fix:\n"
            f"{show(violations)}\nfindings:\n{summary(report.findings)}\n"
            f"input: {case.describe()}\noutput:\n{output.decode()}"
        )
    assert not report.remaining, (
        f"left unfixed (no unfixable defect was generated):\n{summary(report.remaining)}\n"
        f"input: {case.describe()}"
    )
    after = check(case, output)
    fixable = [f for f in after.findings if f.fix is not None]
    assert not fixable, (
        f"check after the fix still has fixes to offer:\n{summary(fixable)}\n"
        f"input: {case.describe()}\noutput:\n{output.decode()}"
    )
    assert not after.findings, (
        f"check after the fix finds:\n{summary(after.findings)}\ninput: {case.describe()}"
    )
    if report.output is not None:
        again = fix(case, unsafe=True, data=report.output)
        assert again.output is None, (
            f"a second fix changed the output of {case.describe()}\n"
            f"first output:\n{report.output.decode()}\nsecond:\n{again.output.decode()}"
        )


# =============================================================================================
# 2. Without unsafe fixes, only insertions
# =============================================================================================


def is_result_message(variant: Variant, message: Any) -> bool:
    """Whether a whole message is one tool result (flat and item dialects)."""
    if variant.dialect == "openai-chat":
        return message.get("role") == "tool"
    if variant.dialect == "openai-responses":
        return message.get("type") == "function_call_output"
    fields = message.get("kwargs") or message.get("data") or message
    return fields.get("type") == "tool"


def is_user_turn(message: Any) -> bool:
    """A user turn of a block dialect (a ``request`` in pydantic-ai)."""
    return message.get("role") == "user" or message.get("kind") == "request"


def blocks_key(variant: Variant) -> str:
    return "parts" if variant.dialect in ("gemini", "pydantic-ai") else "content"


def is_result_block(variant: Variant, block: Any) -> bool:
    if variant.dialect == "anthropic":
        return block.get("type") == "tool_result"
    if variant.dialect == "bedrock":
        return list(block) == ["toolResult"]
    if variant.dialect == "gemini":
        return list(block) in (["functionResponse"], ["function_response"])
    return block.get("part_kind") == "tool-return"


def subsequence_extra(longer: Sequence[Any], shorter: Sequence[Any]) -> list[Any] | None:
    """The elements of ``longer`` that are not ``shorter``, if ``shorter`` is a subsequence of
    it (compared as canonical JSON, key order included); else ``None``."""
    extra = []
    matched = 0
    for element in longer:
        if matched < len(shorter) and canonical(element) == canonical(shorter[matched]):
            matched += 1
        else:
            extra.append(element)
    return extra if matched == len(shorter) else None


def grown(variant: Variant, before: Any, after: Any) -> list[Any] | None:
    """The blocks inserted into message ``before`` to make ``after``, or ``None`` if ``after``
    is not ``before`` with blocks inserted (an Anthropic string content counts as one text
    block)."""
    key = blocks_key(variant)
    if list(before) != list(after) or not isinstance(after.get(key), list):
        return None
    if any(canonical(before[k]) != canonical(after[k]) for k in before if k != key):
        return None
    old = before[key]
    if isinstance(old, str):
        old = [{"type": "text", "text": old}]
    return subsequence_extra(after[key], old)


def only_insertions(variant: Variant, before: list[Any], after: list[Any]) -> list[Any]:
    """Assert that ``after`` is ``before`` with synthetic results inserted (whole result
    messages, result blocks in existing turns, or new turns of result blocks); return them."""
    inserted: list[Any] = []
    position = 0
    for index, original in enumerate(before):
        while True:
            assert position < len(after), (
                f"original message {index} is missing or moved: {canonical(original)}"
            )
            candidate = after[position]
            position += 1
            if canonical(candidate) == canonical(original):
                break
            if variant.block:
                added = grown(variant, original, candidate)
                if added is not None:
                    inserted += added
                    break
                blocks = candidate.get(blocks_key(variant))
                assert isinstance(blocks, list) and blocks, f"inserted {canonical(candidate)}"
                assert is_user_turn(candidate), f"a new turn not a user's: {canonical(candidate)}"
                inserted += blocks  # a new turn: checked below to hold results only
            else:
                inserted.append(candidate)
    for candidate in after[position:]:
        assert not variant.block or is_user_turn(candidate), f"new turn {canonical(candidate)}"
        inserted += candidate.get(blocks_key(variant)) if variant.block else [candidate]
    for element in inserted:
        kind = is_result_block if variant.block else is_result_message
        assert kind(variant, element), f"inserted something else than a result: {element}"
    return inserted


@settings(PROPERTY, max_examples=250)
@given(cases())
def test_safe_fix_never_deletes_or_moves(case: Case) -> None:
    """2. ``fix --select ALL`` only inserts synthetic results; TP1xx stay unsafe-fixable."""
    report = fix(case, unsafe=False)
    assert_read_as(case, report)
    output = case.data if report.output is None else report.output
    inserted = 0
    for number, (before, after) in enumerate(
        zip(case.lists(case.data), case.lists(output), strict=True)
    ):
        try:
            inserted += len(only_insertions(case.variant, before, after))
        except AssertionError as error:
            raise AssertionError(
                f"list {number}: {error}\ninput: {case.describe()}\noutput:\n{output.decode()}"
            ) from None
    assert inserted == len(report.fixed), (
        f"{inserted} results inserted for {len(report.fixed)} fixed findings in {case.describe()}"
    )
    assert {f.code for f in report.fixed} <= SAFE_CODES, summary(report.fixed)
    strict = [f for f in report.findings if f.code in STRICT_CODES]
    for finding in strict:
        event(f"unsafe-fixable: {finding.code}")
        assert (
            finding.fix is not None and finding.fix.applicability is patchcore.Applicability.UNSAFE
        ), f"{finding.code} is not reported as unsafe-fixable: {finding}\n{case.describe()}"
    after = check(case, output)
    left = [f for f in after.findings if f.code in STRICT_CODES]
    assert Counter((f.code, f.call_id) for f in left) == Counter(
        (f.code, f.call_id) for f in strict
    ), (
        f"TP1xx findings before the safe fix:\n{summary(strict)}\nafter:\n{summary(left)}\n"
        f"input: {case.describe()}"
    )
    assert all(
        f.fix is not None and f.fix.applicability is patchcore.Applicability.UNSAFE for f in left
    ), summary(left)
    assert not [f for f in after.findings if f.code in SAFE_CODES], summary(after.findings)


# =============================================================================================
# 3. Findings follow the reference pairing
# =============================================================================================

FindingKey = tuple[int, str, int, str | None]


def result_id(turns: Sequence[Turn], position: Position) -> str | None:
    return result_at(turns, position).id


def call_id(turns: Sequence[Turn], position: Position) -> str | None:
    return calls_of(turns, position[0])[position[1]].id or None


def expected_findings(case: Case) -> Counter[FindingKey]:
    """``(history, code, message index, id)`` of every finding the reference predicts; the
    three TP0xx codes of an unanswered call count as one, ``dangling``."""
    expected: Counter[FindingKey] = Counter()
    variant = case.variant
    for number, history in enumerate(case.histories):
        ref, out, turns = history.reference, history.rendered, history.turns

        for p in ref.dangling:
            expected[number, "dangling", out.call_at[p], call_id(turns, p)] += 1
        for code, positions in (("TP101", ref.orphans), ("TP103", ref.duplicates)):
            for p in positions:
                expected[number, code, out.block_at[p], result_id(turns, p)] += 1
        for code, positions in (("TP104", ref.reused), ("TP105", ref.keyless)):
            for p in positions:
                expected[number, code, out.call_at[p], call_id(turns, p)] += 1
        for called, answer in ref.answers:
            at, here = out.call_at[called], out.block_at[answer]
            if variant.block:
                misplaced = here != at + 1
            elif variant.flat:
                misplaced = any(kind != "result" for kind in out.kinds[at + 1 : here + 1])
            else:  # the Responses API takes an output anywhere after its call
                misplaced = False
            if misplaced:
                expected[number, "TP102", here, call_id(turns, called)] += 1
        for t, turn in enumerate(turns):
            if isinstance(turn, Assistant) and turn.empty_calls:
                expected[number, "TP107", out.turn_at[t], None] += 1
            if isinstance(turn, User) and variant.results_first:
                kinds = [isinstance(b, Result) for b in turn.blocks]
                if True in kinds and False in kinds[: len(kinds) - kinds[::-1].index(True)]:
                    expected[number, "TP106", out.block_at[t, 0], None] += 1
    return expected


def found_findings(case: Case, findings: Sequence[patchcore.Finding]) -> Counter[FindingKey]:
    return Counter(
        (
            case.history_of(f),
            "dangling" if f.code in SAFE_CODES else f.code,
            f.message_index,
            f.call_id,
        )
        for f in findings
    )


@settings(PROPERTY, max_examples=300)
@given(cases(variants=WITH_IDS))
def test_findings_follow_the_reference_pairing(case: Case) -> None:
    """3. ``check --select ALL`` finds exactly what the reference pairing predicts."""
    report = check(case)
    assert_read_as(case, report)
    expected = expected_findings(case)
    found = found_findings(case, report.findings)
    assert found == expected, (
        f"findings differ from the reference pairing\n"
        f"  missing: {sorted((expected - found).elements(), key=str)}\n"
        f"  unexpected: {sorted((found - expected).elements(), key=str)}\n"
        f"findings:\n{summary(report.findings)}\ninput: {case.describe()}"
    )
    reused = sum(h.reference.reused_after_answer for h in case.histories)
    assert not [f for f in report.findings if f.code == "TP104"], (
        f"TP104 reported though every reused id ({reused}) was answered before: {case.describe()}"
    )


# =============================================================================================
# 4. Unfixable defects: reported, not fixed, and nothing else is left
# =============================================================================================


@settings(PROPERTY, max_examples=200)
@given(cases(variants=WITH_IDS, unfixable=True))
def test_unfixable_defects_remain_and_everything_else_is_fixed(case: Case) -> None:
    """4. TP104/TP105 are reported without a fix and remain; everything else is fixed."""
    checked = check(case)
    assert_read_as(case, checked)
    expected = Counter(
        key for key in expected_findings(case).elements() if key[1] in UNFIXABLE_CODES
    )
    unfixable = [f for f in checked.findings if f.code in UNFIXABLE_CODES]
    found = found_findings(case, unfixable)
    assert found == expected, (
        f"TP104/TP105 differ from the reference: missing "
        f"{sorted((expected - found).elements(), key=str)}, unexpected "
        f"{sorted((found - expected).elements(), key=str)}\n{case.describe()}"
    )
    assert expected, f"the generator added no unfixable defect: {case.describe()}"
    with_fix = [f for f in unfixable if f.fix is not None]
    assert not with_fix, f"TP104/TP105 offered a fix:\n{summary(with_fix)}\n{case.describe()}"

    report = fix(case, unsafe=True)
    output = case.data if report.output is None else report.output
    after = check(case, output)
    fixable = [f for f in after.findings if f.fix is not None]
    assert not fixable, (
        f"check after the fix still has fixes to offer:\n{summary(fixable)}\n"
        f"input: {case.describe()}\noutput:\n{output.decode()}"
    )
    # What the fix reports as left is what a check of its output finds, and only findings that
    # had no fix can be left (a fix for another defect may cure a reused id, never add one).
    remaining = Counter((f.code, f.call_id) for f in report.remaining)
    assert remaining == Counter((f.code, f.call_id) for f in after.findings), (
        f"remaining after the unsafe fix:\n{summary(report.remaining)}\n"
        f"found in the output:\n{summary(after.findings)}\n{case.describe()}"
    )
    unfixed = Counter((f.code, f.call_id) for f in checked.findings if f.fix is None)
    assert remaining <= unfixed, (
        f"not fixed:\n{summary(report.remaining)}\nwithout a fix before:\n"
        f"{summary([f for f in checked.findings if f.fix is None])}\ninput: {case.describe()}"
    )
    if report.output is not None:
        again = fix(case, unsafe=True, data=report.output)
        assert again.output is None, f"a second fix changed the output of {case.describe()}"


# =============================================================================================
# 5. Nothing outside the message lists changes
# =============================================================================================


def blank_lines(data: bytes) -> int:
    """The number of blank lines (the end of the last line's terminator is not one)."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return sum(1 for line in lines if not line.strip())


def assert_frame(case: Case, output: bytes) -> None:
    """The bytes around the message lists are the input's, and each list is still one list."""
    if case.pieces is None:  # JSON Lines of messages: blank lines, line ends, final newline
        assert output.endswith(b"\n") == case.data.endswith(b"\n"), (
            f"the final newline was added or lost:\ninput {case.data!r}\noutput {output!r}"
        )
        assert blank_lines(output) <= blank_lines(case.data), f"blank lines added: {output!r}"
        if b"\r\n" in case.data:
            assert output.count(b"\n") == output.count(b"\r\n") == output.count(b"\r"), (
                f"a bare LF or a lone CR in a CRLF file:\ninput {case.data!r}\noutput {output!r}"
            )
        return
    pattern = b"(.*?)".join(re.escape(piece) for piece in case.pieces)
    match = re.fullmatch(pattern, output, flags=re.DOTALL)
    assert match is not None, (
        f"the bytes around the message lists changed:\ninput:\n{case.data!r}\noutput:\n{output!r}"
    )
    for group in match.groups():
        assert isinstance(json.loads(group), list), f"not a list: {group!r}"


@settings(PROPERTY, max_examples=200)
@given(cases())
def test_nothing_outside_the_lists_changes(case: Case) -> None:
    """5. Safe or unsafe, a fix changes no byte outside the message lists."""
    assert_frame(case, case.data)  # the generator's own account of the frame holds
    for unsafe in (False, True):
        report = fix(case, unsafe=unsafe)
        if report.output is None:
            continue
        try:
            assert_frame(case, report.output)
        except AssertionError as error:
            raise AssertionError(
                f"{'unsafe' if unsafe else 'safe'} fix: {error}\n{case.describe()}"
            ) from None
