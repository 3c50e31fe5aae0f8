"""The guard for context trimmers (docs/trimming.md): `patchcore.safe_cut` keeps or drops each
group of bonded messages whole, choosing the nearest cut, and `patchcore.broken_by` says what a
trimmer's output broke that its input did not."""

from __future__ import annotations

from typing import Any

import pytest

import patchcore


def chat_call(*ids: str) -> dict[str, Any]:
    """An OpenAI Chat assistant message calling ``ids`` in parallel."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
            for i in ids
        ],
    }


def chat_result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": f"result of {call_id}"}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


#: user, a parallel batch of two calls answered by two tool messages, the model's answer.
PARALLEL = [
    user("Weather in Oslo and Lyon?"),
    chat_call("c_oslo", "c_lyon"),
    chat_result("c_oslo"),
    chat_result("c_lyon"),
    {"role": "assistant", "content": "Cold in Oslo, mild in Lyon."},
    user("Thanks."),
]


def test_a_window_that_starts_inside_a_batch_keeps_the_batch_whole() -> None:
    # asked: the last four; the batch {1, 2, 3} has two of its three asked: kept whole
    cut = patchcore.safe_cut(PARALLEL, [2, 3, 4, 5])
    assert cut.kept == (1, 2, 3, 4, 5)
    assert (cut.added, cut.removed) == ((1,), ())
    assert cut.messages == PARALLEL[1:]
    assert patchcore.check_messages(cut.messages) == []


def test_a_window_that_takes_one_result_of_a_batch_drops_it() -> None:
    # asked: one of the batch's three messages: dropping it differs by one, keeping by two
    cut = patchcore.safe_cut(PARALLEL, [3, 4, 5])
    assert (cut.kept, cut.added, cut.removed) == ((4, 5), (), (3,))


def test_a_tie_keeps_the_group() -> None:
    pair = [user("Go"), chat_call("c1"), chat_result("c1")]
    cut = patchcore.safe_cut(pair, [2])  # one of two: keep both or drop both, one away either way
    assert (cut.kept, cut.added, cut.removed) == ((1, 2), (1,), ())


def test_a_cut_that_keeps_every_pair_is_returned_as_asked() -> None:
    cut = patchcore.safe_cut(PARALLEL, [0, 4, 5])
    assert (cut.kept, cut.changed) == ((0, 4, 5), False)


def test_a_predicate_is_given_each_index_and_message() -> None:
    seen: list[int] = []

    def recent_or_user(index: int, message: dict[str, Any]) -> bool:
        seen.append(index)
        return index >= 2 or message["role"] == "user"

    cut = patchcore.safe_cut(PARALLEL, recent_or_user)
    assert seen == list(range(len(PARALLEL)))
    assert cut.kept == (0, 1, 2, 3, 4, 5)  # 2 and 3 pull their call in: two of three asked


def test_negative_indexes_count_from_the_end_and_strangers_are_refused() -> None:
    assert patchcore.safe_cut(PARALLEL, [-1, -2]).kept == (4, 5)
    with pytest.raises(IndexError, match="keep: 6 is not an index of a list of 6 messages"):
        patchcore.safe_cut(PARALLEL, [6])


def test_an_empty_history_has_an_empty_cut() -> None:
    assert patchcore.safe_cut([], []).kept == ()


def test_a_dangling_call_is_no_bond() -> None:
    history = [user("Go"), chat_call("c1"), user("Never mind.")]
    assert patchcore.bonded_groups(history) == [[0], [1], [2]]
    assert patchcore.safe_cut(history, [2]).kept == (2,)


def test_a_result_whose_call_came_after_a_user_message_stays_with_it() -> None:
    # the user spoke while the tool ran: a cut at that message leaves the result without its call
    history = [user("Book it"), chat_call("c1"), user("Also a hotel"), chat_result("c1")]
    assert patchcore.bonded_groups(history) == [[0], [1, 3], [2]]
    cut = patchcore.safe_cut(history, [2, 3])
    assert cut.kept == (1, 2, 3)
    assert patchcore.broken_by(history, history[2:])[0].code == "TP004"
    assert patchcore.broken_by(history, cut.messages) == []


#: One OpenAI Responses model turn: a reasoning item, two parallel calls, their outputs, then
#: an approval asked of the user for an MCP tool and the user's answer.
RESPONSES: list[dict[str, Any]] = [
    {"role": "user", "content": "Refund order 7?"},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "call_id": "fc_a", "name": "order", "arguments": "{}"},
    {"type": "function_call", "call_id": "fc_b", "name": "policy", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "fc_a", "output": "order 7: 40 EUR"},
    {"type": "function_call_output", "call_id": "fc_b", "output": "refunds within 30 days"},
    {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "name": "refund",
        "arguments": "{}",
        "server_label": "shop",
    },
    {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
    {"role": "user", "content": "Thanks."},
]


def test_reasoning_goes_with_the_calls_it_led_to_and_an_approval_with_its_request() -> None:
    assert patchcore.bonded_groups(RESPONSES) == [[0], [1, 2, 3, 4, 5], [6, 7], [8]]
    cut = patchcore.safe_cut(RESPONSES, [3, 4, 5, 7, 8])
    assert (cut.added, cut.removed) == ((1, 2, 6), ())  # a tie keeps the approval whole
    assert patchcore.broken_by(RESPONSES, cut.messages) == []


def test_the_dialect_can_be_forced() -> None:
    options = patchcore.make_options(dialect="openai-chat")
    assert patchcore.bonded_groups(PARALLEL, options=options) == [[0], [1, 2, 3], [4], [5]]


def test_a_list_of_no_one_dialect_is_refused() -> None:
    with pytest.raises(patchcore.NoHistoryError):
        patchcore.safe_cut([{"role": "assistant", "content": None, "x": 1}, 42], [0])


def test_a_list_of_neither_dicts_nor_base_messages_is_refused() -> None:
    with pytest.raises(TypeError, match="safe_cut expects a sequence of langchain-core"):
        patchcore.safe_cut(["hello"], [0])


def test_broken_by_blames_only_what_the_cut_broke() -> None:
    # before: c0 dangles (not the cut's doing); the cut then drops c1's call
    before = [user("Go"), chat_call("c0"), user("Next"), chat_call("c1"), chat_result("c1")]
    after = [before[1], before[2], before[4]]
    broken = patchcore.broken_by(before, after)
    assert [(f.code, f.call_id) for f in broken] == [("TP004", "c1")]
    assert patchcore.check_messages(after)[0].call_id == "c0"  # still there, and not blamed


def test_a_cut_that_ends_on_a_dangling_call_is_not_blamed_for_it() -> None:
    before = [user("Go"), chat_call("c0"), user("Next"), {"role": "assistant", "content": "ok"}]
    findings = patchcore.check_messages(before[:2])
    assert [f.code for f in findings] == ["TP002"]  # TP001 before: the same defect
    assert patchcore.broken_by(before, before[:2]) == []


def test_the_same_call_broken_more_often_after_than_before_is_blamed_once_more() -> None:
    # a reused id: the first c1 dangles before, the second is answered; the cut drops its result
    before = [user("a"), chat_call("c1"), user("b"), chat_call("c1"), chat_result("c1"), user("c")]
    broken = patchcore.broken_by(before, [*before[:4], before[5]])
    assert [(f.code, f.message_index) for f in broken] == [("TP001", 3)]


def test_against_document_holds_a_file_against_its_trimmed_copy() -> None:
    import json

    history = [user("Book it"), chat_call("c1"), user("Also a hotel"), chat_result("c1")]
    against = patchcore.against_document(json.dumps(history))
    options = patchcore.make_options(against=against)
    trimmed = json.dumps(history[2:])
    assert [f.code for f in patchcore.check_document(trimmed, options=options).findings] == [
        "TP004"
    ]
    kept = json.dumps(history)
    assert patchcore.check_document(kept, options=options).findings == ()
