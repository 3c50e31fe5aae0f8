"""The pairing engine and the message-list API.

Pins docs/pairing.md (a result answers the nearest earlier unanswered call with its id; no
global set of answered ids; id-less calls are skipped), the TP001-TP003 classification, the
synthetic texts and their placement (after the call's existing results, in call order), rule
selection, literal template substitution, and that no function mutates its input.

`patchcore.engine.pairing.pair` is tested over hand-built `MessageView`s; `patchcore.fix_messages` /
`patchcore.check_messages` over OpenAI Chat dicts; the same over the LangChain shapes
langchain-core writes are in ``tests/layouts/test_langchain_engine.py`` (they need the extra).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

import pytest

import patchcore
from patchcore.engine.pairing import insertion_point, pair
from patchcore.model import MessageView, Role, ToolCall, ToolResult
from tests.builders import (
    assert_clean_history_is_not_changed,
    assert_fix_is_idempotent,
    assert_input_is_never_mutated,
    assert_invalid_call_is_tp003,
)
from tests.builders import openai_assistant as oa_ai
from tests.builders import openai_call as oa_call
from tests.builders import openai_tool as oa_tool
from tests.builders import openai_user as oa_user
from tests.helpers import TP001_TEXT, TP002_TEXT, text

# --------------------------------------------------------------------------------------------
# pair() over MessageViews


def call(call_id: str | None, name: str | None = "tool", *, invalid: bool = False) -> ToolCall:
    """A call as an adapter would describe it."""
    return ToolCall(id=call_id, name=name, invalid=invalid)


def ai(*calls: ToolCall | str | None) -> MessageView:
    """A caller issuing ``calls`` (a plain string or ``None`` is a valid call with that id)."""
    made = tuple(c if isinstance(c, ToolCall) else call(c) for c in calls)
    return MessageView(Role.CALLER, calls=made)


def res(*ids: str) -> MessageView:
    """A results message answering ``ids``."""
    return MessageView(Role.RESULTS, results=tuple(ToolResult(i) for i in ids))


def other() -> MessageView:
    """User text, a system prompt, ..."""
    return MessageView(Role.OTHER)


def dangling(views: Sequence[MessageView]) -> list[tuple[int, int, str]]:
    """``(message_index, call_index, code)`` of every call the engine leaves open."""
    return [(d.message_index, d.call_index, d.code) for d in pair(views).dangling]


PAIRING_CASES: list[tuple[str, list[MessageView], list[tuple[int, int, str]]]] = [
    (
        "seed: system, human, ai(123), human",
        [other(), other(), ai("123"), other()],
        [(2, 0, "TP001")],
    ),
    ("answered call", [other(), ai("c1"), res("c1"), other()], []),
    ("no tools at all", [other(), other(), ai(), other()], []),
    ("empty history", [], []),
    (
        "two dangling calls in two AI turns",
        [other(), ai("a"), other(), ai("b"), other()],
        [(1, 0, "TP001"), (3, 0, "TP001")],
    ),
    ("history ends in an AI call", [other(), ai("c1")], [(1, 0, "TP002")]),
    (
        "last AI turn followed only by results for other calls",
        [other(), ai("c1", "c2"), res("c1")],
        [(1, 1, "TP002")],
    ),
    (
        "earlier turn dangles (TP001), last turn pending (TP002)",
        [other(), ai("a"), other(), ai("b")],
        [(1, 0, "TP001"), (3, 0, "TP002")],
    ),
    (
        "invalid call is TP003 wherever it is",
        [other(), ai(call("bad", invalid=True)), other(), ai(call("bad2", invalid=True))],
        [(1, 0, "TP003"), (3, 0, "TP003")],
    ),
    ("answered invalid call", [ai(call("bad", invalid=True)), res("bad"), other()], []),
    (
        "id answered, then reused and left dangling: the LATER call dangles",
        [other(), ai("c1"), res("c1"), other(), ai("c1"), other()],
        [(4, 0, "TP001")],
    ),
    (
        "id reused while the first is open: the result answers the later one",
        [other(), ai("c1"), other(), ai("c1"), res("c1"), other()],
        [(1, 0, "TP001")],
    ),
    (
        "reused id answered both times",
        [ai("c1"), res("c1"), other(), ai("c1"), res("c1"), other()],
        [],
    ),
    (
        "a result before its call does not answer it",
        [other(), res("c1"), ai("c1"), other()],
        [(2, 0, "TP001")],
    ),
    (
        "a message never answers its own calls",
        [
            other(),
            MessageView(Role.CALLER, calls=(call("c1"),), results=(ToolResult("c1"),)),
            other(),
        ],
        [(1, 0, "TP001")],
    ),
    ("None id is skipped", [other(), ai(None), other()], []),
    ("empty id is skipped", [other(), ai(""), other()], []),
    ("None id at the end is skipped too", [other(), ai(None)], []),
    (
        "parallel calls, one answered",
        [other(), ai("a", "b", "c"), res("b"), other()],
        [(1, 0, "TP001"), (1, 2, "TP001")],
    ),
    ("a duplicate result changes nothing", [ai("a"), res("a"), res("a"), other()], []),
    (
        "results for unknown ids are ignored",
        [other(), ai("a"), res("zzz"), other()],
        [(1, 0, "TP001")],
    ),
]


@pytest.mark.parametrize(
    ("views", "expected"),
    [pytest.param(views, expected, id=name) for name, views, expected in PAIRING_CASES],
)
def test_pair(views: list[MessageView], expected: list[tuple[int, int, str]]) -> None:
    assert dangling(views) == expected, f"views: {views}"


def test_pair_reports_the_dangling_call_itself() -> None:
    the_call = call("c9", "lookup")
    (found,) = pair([other(), ai("c8", the_call), res("c8"), other()]).dangling
    assert found.call is the_call
    assert (found.message_index, found.call_index) == (1, 1)


@pytest.mark.parametrize(
    ("views", "message_index", "expected"),
    [
        ([other(), ai("a"), other()], 1, 2),
        ([other(), ai("a", "b"), res("a"), res("b"), other()], 1, 4),
        ([other(), ai("a")], 1, 2),
        ([ai("a"), res("a"), res("zz")], 0, 3),
    ],
)
def test_insertion_point_is_after_the_run_of_results(
    views: list[MessageView], message_index: int, expected: int
) -> None:
    assert insertion_point(views, message_index) == expected


# --------------------------------------------------------------------------------------------
# Histories as dicts


SEED_TEXT = text(TP001_TEXT, "get_events_for_days", "123")


def test_seed_openai_chat() -> None:
    history = [
        {"role": "system", "content": "You are a helpful assistant."},
        oa_user("What are my events?"),
        oa_ai(oa_call("123", "get_events_for_days", '{"date_str": "2024-01-01"}')),
        oa_user("Never mind."),
    ]
    repair = patchcore.fix_messages(history)
    assert len(repair.value) == 5
    assert repair.value[3] == {"role": "tool", "tool_call_id": "123", "content": SEED_TEXT}
    assert repair.value[4] is history[3]


def test_two_dangling_calls_in_two_turns_give_two_inserts() -> None:
    history = [
        oa_user(),
        oa_ai(oa_call("a", "search")),
        oa_user("more"),
        oa_ai(oa_call("b", "fetch")),
        oa_user("stop"),
    ]
    repair = patchcore.fix_messages(history)
    assert [f.code for f in repair.fixed] == ["TP001", "TP001"]
    roles = [m["role"] for m in repair.value]
    assert roles == ["user", "assistant", "tool", "user", "assistant", "tool", "user"]
    assert repair.value[2]["content"] == text(TP001_TEXT, "search", "a")
    assert repair.value[5]["content"] == text(TP001_TEXT, "fetch", "b")


@pytest.mark.parametrize(
    "history",
    [
        pytest.param([oa_user(), oa_ai(oa_call("a")), oa_tool("a"), oa_user()], id="answered"),
        pytest.param([oa_user(), {"role": "assistant", "content": "hello"}], id="tool-free"),
    ],
)
def test_clean_history_is_not_changed(history: list[dict]) -> None:
    assert_clean_history_is_not_changed(history)


def test_empty_list() -> None:
    assert patchcore.check_messages([]) == []
    assert patchcore.fix_messages([]).changed is False


def test_history_ending_in_an_ai_call_is_tp002() -> None:
    history = [oa_user(), oa_ai(oa_call("c1", "lookup"))]
    repair = patchcore.fix_messages(history)
    assert [f.code for f in repair.findings] == ["TP002"]
    assert repair.value[-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": text(TP002_TEXT, "lookup", "c1"),
    }


@pytest.mark.parametrize(
    "history",
    [
        pytest.param(
            [oa_user(), oa_ai(oa_call("c1", "lookup", '{"q": "tru')), oa_user()], id="openai"
        ),
        pytest.param(
            [oa_user(), oa_ai(oa_call("c1", "lookup", '{"q": "tru'))], id="openai-last-turn"
        ),
    ],
)
def test_invalid_call_is_tp003(history: list[dict]) -> None:
    assert_invalid_call_is_tp003(history)


def test_missing_name_reads_unknown() -> None:
    repair = patchcore.fix_messages([oa_user(), oa_ai(oa_call("c1", None)), oa_user()])
    assert repair.value[2]["content"] == text(TP001_TEXT, "unknown", "c1")


def test_reused_id_answered_then_reused_dangles_later_call() -> None:
    history = [
        oa_user(),
        oa_ai(oa_call("c1", "first")),
        oa_tool("c1"),
        oa_user(),
        oa_ai(oa_call("c1", "second")),
        oa_user(),
    ]
    repair = patchcore.fix_messages(history)
    (finding,) = repair.findings
    assert (finding.code, finding.message_index, finding.tool_name) == ("TP001", 4, "second")
    assert len(repair.value) == 7
    assert repair.value[5]["tool_call_id"] == "c1"
    assert repair.value[5]["content"] == text(TP001_TEXT, "second", "c1")


def test_reused_id_while_open_dangles_earlier_call() -> None:
    history = [
        oa_user(),
        oa_ai(oa_call("c1", "first")),
        oa_user(),
        oa_ai(oa_call("c1", "second")),
        oa_tool("c1"),
        oa_user(),
    ]
    repair = patchcore.fix_messages(history)
    (finding,) = repair.findings
    assert (finding.code, finding.message_index, finding.tool_name) == ("TP001", 1, "first")
    assert repair.value[2]["content"] == text(TP001_TEXT, "first", "c1")
    assert repair.value[3] is history[2]


def test_partial_parallel_answers_go_after_existing_results_in_call_order() -> None:
    history = [
        oa_user(),
        oa_ai(oa_call("a", "ta"), oa_call("b", "tb"), oa_call("c", "tc")),
        oa_tool("b", "b done"),
        oa_user("next"),
    ]
    repair = patchcore.fix_messages(history)
    value = repair.value
    assert [m.get("tool_call_id") for m in value] == [None, None, "b", "a", "c", None]
    assert value[2] is history[2]
    assert value[3]["content"] == text(TP001_TEXT, "ta", "a")
    assert value[4]["content"] == text(TP001_TEXT, "tc", "c")
    assert value[5] is history[3]


@pytest.mark.parametrize("empty", [None, ""])
def test_calls_without_id_are_skipped(empty: str | None) -> None:
    history = [oa_user(), oa_ai(oa_call(empty, "noid")), oa_user()]
    before = copy.deepcopy(history)
    repair = patchcore.fix_messages(history)
    assert repair.findings == ()
    assert repair.changed is False
    assert repair.value == before
    assert patchcore.check_messages(history) == []


def test_call_without_id_does_not_hide_its_neighbour() -> None:
    history = [oa_user(), oa_ai(oa_call(None, "noid"), oa_call("c2", "withid")), oa_user()]
    repair = patchcore.fix_messages(history)
    assert [(f.call_id, f.tool_name) for f in repair.findings] == [("c2", "withid")]
    assert len(repair.value) == 4


def test_result_before_call_does_not_answer_it() -> None:
    history = [oa_user(), oa_tool("c1"), oa_ai(oa_call("c1")), oa_user()]
    findings = patchcore.check_messages(history)
    assert [(f.code, f.message_index) for f in findings] == [("TP001", 2)]


# --------------------------------------------------------------------------------------------
# select / ignore

# history with one TP001, one TP002 and one TP003
MIXED = [
    oa_user(),
    oa_ai(oa_call("d1", "f")),
    oa_user(),
    oa_ai(oa_call("i1", "g", "{oops")),
    oa_user(),
    oa_ai(oa_call("p1", "h")),
]


@pytest.mark.parametrize(
    ("select", "ignore", "expected"),
    [
        (None, None, ["TP001", "TP003", "TP002"]),
        (["TP001"], None, ["TP001"]),
        (["TP002", "TP003"], None, ["TP003", "TP002"]),
        (["TP0"], None, ["TP001", "TP003", "TP002"]),
        (["TP"], None, ["TP001", "TP003", "TP002"]),
        (["ALL"], None, ["TP001", "TP003", "TP002"]),
        (["all"], None, ["TP001", "TP003", "TP002"]),
        (["tp002"], None, ["TP002"]),
        (None, ["TP001"], ["TP003", "TP002"]),
        (None, ["TP00"], []),
        (["ALL"], ["TP002"], ["TP001", "TP003"]),
        (["TP001"], ["TP001"], []),
    ],
)
def test_select_and_ignore(
    select: list[str] | None, ignore: list[str] | None, expected: list[str]
) -> None:
    findings = patchcore.check_messages(
        MIXED, options=patchcore.make_options(select=select, ignore=ignore)
    )
    assert [f.code for f in findings] == expected
    repair = patchcore.fix_messages(
        MIXED, options=patchcore.make_options(select=select, ignore=ignore)
    )
    assert [f.code for f in repair.fixed] == expected
    assert len(repair.value) == len(MIXED) + len(expected)


@pytest.mark.parametrize(
    ("select", "ignore"),
    [(["TP9"], None), (["XYZ"], None), (None, ["TP42"]), (["TP001", "nope"], None)],
)
def test_unknown_selector_raises(select: list[str] | None, ignore: list[str] | None) -> None:
    with pytest.raises(patchcore.UnknownRuleError):
        patchcore.check_messages(
            MIXED, options=patchcore.make_options(select=select, ignore=ignore)
        )
    with pytest.raises(patchcore.UnknownRuleError):
        patchcore.fix_messages(MIXED, options=patchcore.make_options(select=select, ignore=ignore))
    with pytest.raises(patchcore.UnknownRuleError):
        patchcore.make_options(select=select, ignore=ignore)


def test_unknown_text_code_raises() -> None:
    with pytest.raises(patchcore.UnknownRuleError):
        patchcore.fix_messages(MIXED, options=patchcore.make_options(texts={"TP999": "x"}))


# --------------------------------------------------------------------------------------------
# templates


@pytest.mark.parametrize(
    ("template", "name", "call_id", "expected"),
    [
        ("cancelled {name} {id}", "search", "c1", "cancelled search c1"),
        ("{name} {id}", "{id}", "c1", "{id} c1"),
        ("{name} {id}", "t", "{name}", "t {name}"),
        ("{id}/{name}", "{name}{id}", "x", "x/{name}{id}"),
        ("{other!s} {0!r} {} {{id}} {name!r}", "t", "c1", "{other!s} {0!r} {} {c1} {name!r}"),
        ("no placeholders", "t", "c1", "no placeholders"),
        ("{name}{name} {id}{id}", "t", "c", "tt cc"),
        ("%s %(name)s {NAME!s}", "t", "c", "%s %(name)s {NAME!s}"),
    ],
)
def test_templates_are_substituted_literally(
    template: str, name: str, call_id: str, expected: str
) -> None:
    history = [oa_user(), oa_ai(oa_call(call_id, name)), oa_user()]
    repair = patchcore.fix_messages(
        history, options=patchcore.make_options(texts={"TP001": template})
    )
    assert repair.value[2]["content"] == expected


def test_template_per_rule() -> None:
    texts = {"TP001": "one {id}", "TP002": "two {id}", "TP003": "three {id}"}
    repair = patchcore.fix_messages(MIXED, options=patchcore.make_options(texts=texts))
    contents = [m["content"] for m in repair.value if m["role"] == "tool"]
    assert contents == ["one d1", "three i1", "two p1"]


def test_partial_texts_keep_defaults_for_other_rules() -> None:
    repair = patchcore.fix_messages(
        MIXED, options=patchcore.make_options(texts={"TP003": "bad {name}"})
    )
    contents = [m["content"] for m in repair.value if m["role"] == "tool"]
    assert contents == [text(TP001_TEXT, "f", "d1"), "bad g", text(TP002_TEXT, "h", "p1")]


# --------------------------------------------------------------------------------------------
# never mutate

MUTATION_CASES: dict[str, list[dict]] = {
    "mixed": MIXED,
    "parallel": [oa_user(), oa_ai(oa_call("a"), oa_call("b")), oa_tool("a"), oa_user()],
    "reused": [oa_user(), oa_ai(oa_call("c")), oa_tool("c"), oa_ai(oa_call("c")), oa_user()],
    "clean": [oa_user(), oa_ai(oa_call("a")), oa_tool("a")],
}


@pytest.mark.parametrize("name", list(MUTATION_CASES))
def test_input_is_never_mutated_and_fix_is_idempotent(name: str) -> None:
    assert_input_is_never_mutated(MUTATION_CASES[name])
    assert_fix_is_idempotent(MUTATION_CASES[name])


def test_anthropic_empty_string_turn_takes_only_the_results() -> None:
    """An empty user turn after a call becomes the results alone: keeping it as an empty text
    block would turn a rejected turn into another rejected turn ("text content blocks must be
    non-empty")."""
    history = [
        {"role": "user", "content": "Run it."},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "run", "input": {}}],
        },
        {"role": "user", "content": ""},
    ]
    repaired = patchcore.fix_messages(history).value
    assert repaired[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": text(TP001_TEXT, "run", "toolu_1"),
            "is_error": True,
        }
    ]


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("x {nme} {", "unknown placeholder '{nme}'"),
        ("Tool {name} {", "'{' that is never closed"),
        ("done} {id}", "'}' that closes nothing"),
    ],
)
def test_a_template_with_an_unknown_placeholder_or_a_broken_brace_is_refused(
    template: str, problem: str
) -> None:
    """A typo in a configured text would otherwise be written into every history it repairs."""
    with pytest.raises(patchcore.UnknownRuleError, match=re.escape(problem)):
        patchcore.make_options(texts={"TP001": template})


def test_braces_around_other_text_are_kept_as_written() -> None:
    options = patchcore.make_options(texts={"TP001": '{"error": "{name} ({id}) cut"}'})
    history = [oa_user(), oa_ai(oa_call("c1", "f")), oa_user()]
    repair = patchcore.fix_messages(history, options=options)
    assert repair.value[2]["content"] == '{"error": "f (c1) cut"}'
