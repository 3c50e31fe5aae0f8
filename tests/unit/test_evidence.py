"""Evidence first, then invent (docs/pairing.md#evidence-first): a fix that writes a result says
where it comes from (`patchcore.Origin`), uses the call's own result where it stands out of
place before the call, and the text a caller's store recorded (`Options.recorded_results`),
and makes a result up only where nothing was recorded."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from patchcore.rules import RULES
from tests.builders import found
from tests.builders import openai_assistant as oa_ai
from tests.builders import openai_call as oa_call
from tests.builders import openai_tool as oa_tool
from tests.builders import openai_user as oa_user
from tests.helpers import tp001

RECOVERED = patchcore.Origin.RECOVERED
SYNTHESIZED = patchcore.Origin.SYNTHESIZED
BOOKED = "booked TGV-6611, seat 12A"


def origins(findings: tuple[patchcore.Finding, ...] | list[patchcore.Finding]) -> list[Any]:
    return [f.fix.origin if f.fix is not None else "no fix" for f in findings]


def before_its_call() -> list[dict[str, Any]]:
    """A booking's result written before the call that made it, then the user goes on."""
    return [
        oa_user("Book the train."),
        oa_tool("call_bk", BOOKED),
        oa_ai(oa_call("call_bk", "book_train")),
        oa_user("And a hotel?"),
    ]


def test_a_synthetic_answer_says_it_is_synthesized() -> None:
    repair = patchcore.fix_messages([oa_user(), oa_ai(oa_call("c1")), oa_user("next")])
    (finding,) = repair.findings
    assert finding.fix is not None
    assert (finding.fix.origin, finding.fix.description) == (
        SYNTHESIZED,
        RULES["TP001"].fix_description,
    )
    assert repair.value[2]["content"] == tp001("get_weather", "c1")


def test_the_calls_own_result_before_it_is_copied_into_place() -> None:
    history = before_its_call()
    repair = patchcore.fix_messages(history)
    assert found(repair.findings) == [("TP001", "call_bk")]
    assert origins(repair.findings) == [RECOVERED]
    assert repair.value == [*history[:3], history[1], history[3]], "a copy, the original kept"


def test_with_tp101_and_unsafe_fixes_the_copy_is_a_move() -> None:
    history = before_its_call()
    options = patchcore.make_options(select=["TP001", "TP101"], unsafe_fixes=True)
    repair = patchcore.fix_messages(history, options=options)
    assert found(repair.findings) == [("TP101", "call_bk"), ("TP001", "call_bk")]
    assert origins(repair.findings) == [None, RECOVERED], "a drop writes no result"
    assert repair.value == [history[0], history[2], history[1], history[3]]


@pytest.mark.parametrize(
    "history",
    [
        # two results with the call's id before it: which one is its own is a guess
        [oa_user(), oa_tool("c1", "a"), oa_tool("c1", "b"), oa_ai(oa_call("c1")), oa_user()],
        # two open calls with one id: which one the result answers is a guess
        [oa_user(), oa_tool("c1", "a"), oa_ai(oa_call("c1")), oa_user(), oa_ai(oa_call("c1")),
         oa_user()],
        # the result before it answers an earlier call with the id (a duplicate, not an orphan)
        [oa_user(), oa_ai(oa_call("c1")), oa_tool("c1", "a"), oa_tool("c1", "b"), oa_user(),
         oa_ai(oa_call("c1")), oa_user()],
    ],
    ids=["two-results", "two-calls", "answered-earlier"],
)  # fmt: skip
def test_an_ambiguous_result_is_not_copied(history: list[dict[str, Any]]) -> None:
    repair = patchcore.fix_messages(history)
    # the answers' origins (a duplicate result, TP103 by default, writes none)
    answers = [f for f in repair.findings if f.code != "TP103"]
    assert answers
    assert set(origins(answers)) == {SYNTHESIZED}


def test_the_quick_lane_and_the_full_path_copy_alike() -> None:
    """A record the quick lane reads (the TP0xx rules alone) and one the engine reads whole
    (a forced dialect) get the same repair."""
    data = json.dumps(before_its_call(), indent=2).encode()
    quick = patchcore.fix_document(data, filename="h.json")
    whole = patchcore.fix_document(
        data, filename="h.json", options=patchcore.make_options(dialect="openai-chat")
    )
    assert quick.output == whole.output is not None
    assert origins(quick.findings) == origins(whole.findings) == [RECOVERED]


def test_an_anthropic_result_block_before_its_call_is_copied() -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": BOOKED}
    call = {"type": "tool_use", "id": "toolu_1", "name": "book_train", "input": {}}
    history = [
        {"role": "user", "content": [result, {"type": "text", "text": "Book it."}]},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [{"type": "text", "text": "And a hotel?"}]},
    ]
    repair = patchcore.fix_messages(history)
    assert origins(repair.findings) == [RECOVERED]
    assert repair.value[2]["content"] == [result, {"type": "text", "text": "And a hotel?"}]


def test_a_recorded_result_is_written_instead_of_a_made_up_one() -> None:
    """`Options.recorded_results`: what a store kept for the failed call (LangGraph's error
    write), by call id; the other call's result is still made up."""
    history = [oa_user(), oa_ai(oa_call("c1", "charge_card"), oa_call("c2", "book")), oa_user()]
    options = patchcore.make_options(recorded_results={"c1": "card processor timed out"})
    repair = patchcore.fix_messages(history, options=options)
    assert found(repair.findings) == [("TP001", "c1"), ("TP001", "c2")]
    assert origins(repair.findings) == [RECOVERED, SYNTHESIZED]
    assert [m["content"] for m in repair.value[2:4]] == [
        "card processor timed out",
        tp001("book", "c2"),
    ]
    assert repair.findings[0].fix is not None
    assert repair.findings[0].fix.description == "insert the result recorded for the call"


@pytest.mark.parametrize(
    "recorded",
    [{"c1": ""}, {"c1": "  "}, {"c1": 3}, {4: "text"}],
    ids=["empty", "blank", "number", "key"],
)
def test_a_recorded_result_must_be_a_text(recorded: dict[Any, Any]) -> None:
    with pytest.raises(ValueError, match="recorded_results"):
        patchcore.make_options(recorded_results=recorded)


def test_fixes_that_write_no_result_have_no_origin() -> None:
    """A dropped call, a dropped result, ``strip``'s removal: no result is written."""
    dropped = patchcore.fix_messages(
        [oa_user(), oa_ai(oa_call("c1")), oa_user()],
        options=patchcore.make_options(repair="drop", unsafe_fixes=True),
    )
    assert origins(dropped.findings) == [None]
    orphan = patchcore.check_messages(
        [oa_user(), oa_tool("gone"), oa_user()], options=patchcore.make_options(select=["TP101"])
    )
    assert origins(orphan) == [None]
    fixed = patchcore.fix_document(
        b'[{"role": "user", "content": "hi"},'
        + json.dumps(oa_ai(oa_call("c1"))).encode()
        + b', {"role": "user", "content": "x"}]'
    )
    assert fixed.output is not None
    stripped = patchcore.strip_document(fixed.output)
    assert origins(stripped.findings) == [None]


def test_a_moved_result_is_recovered() -> None:
    """TP102's fix moves the real result into place."""
    history = [oa_user(), oa_ai(oa_call("c1")), oa_user("wait"), oa_tool("c1", BOOKED)]
    findings = patchcore.check_messages(history, options=patchcore.make_options(select=["ALL"]))
    assert [(f.code, f.fix.origin if f.fix else None) for f in findings] == [("TP102", RECOVERED)]


def test_the_wire_form_says_the_origin() -> None:
    (finding,) = patchcore.check_messages(before_its_call())
    record = patchcore.fix_record(finding.fix)
    assert record is not None and record["origin"] == "recovered"
    (dropped,) = patchcore.check_messages(
        [oa_user(), oa_tool("gone"), oa_user()], options=patchcore.make_options(select=["TP101"])
    )
    unsafe = patchcore.fix_record(dropped.fix)
    assert unsafe is not None and unsafe["origin"] is None
