"""A history held outside a document (a store's thread) checked or repaired into a
`patchcore.Result` (`patchcore.history_result`, docs/stores.md): one conversation, the whole
list; a warning beside it for what resuming would run again; a history waiting for a human
reported with no finding; a store that only appends gets the repair's new messages after its
own, and what is left is checked there."""

from __future__ import annotations

import copy
from typing import Any

import patchcore
from tests.builders import DANGLING_MESSAGES

OPTIONS = patchcore.make_options()
ONE_CALL = DANGLING_MESSAGES


def result(
    *, fixing: bool, messages: list[Any] = ONE_CALL, **given: object
) -> patchcore.HistoryResult:
    return patchcore.history_result(
        copy.deepcopy(messages),
        check=patchcore.check_messages,
        fix=patchcore.fix_messages,
        options=OPTIONS,
        fixing=fixing,
        layout="agents-session",
        dialect="openai-chat",
        **given,  # type: ignore[arg-type]
    )


def test_a_check_is_one_conversation_of_the_whole_list() -> None:
    checked = result(fixing=False)
    assert checked.repaired is None
    (listed,) = checked.result.conversations
    assert (listed.pointer, listed.line, listed.dialect) == ("", None, "openai-chat")
    assert listed.message_count == len(ONE_CALL)
    assert checked.result.layout == "agents-session"
    assert [f.code for f in checked.result.findings] == ["TP001"]
    assert checked.result.remaining == checked.result.findings and not checked.result.fixed


def test_what_resuming_runs_again_is_a_warning_beside_the_check() -> None:
    checked = result(fixing=False, reruns="invoke(None) runs again: get_weather")
    listed, warned = checked.result.conversations
    assert warned.warning and warned.note == "invoke(None) runs again: get_weather"
    assert warned.dialect is None and not warned.findings and listed.findings


def test_a_history_waiting_for_a_human_has_no_finding() -> None:
    waiting = result(fixing=True, waiting="it waits for a human")
    (listed,) = waiting.result.conversations
    assert listed.note == "it waits for a human" and listed.warning
    assert not waiting.result.findings and waiting.repaired is None


def test_a_fix_gives_the_repaired_history_and_rechecks_it() -> None:
    fixed = result(fixing=True)
    assert fixed.repaired is not None and len(fixed.repaired) == len(ONE_CALL) + 1
    assert fixed.result.fixed == fixed.result.findings and fixed.result.remaining == ()
    assert fixed.repaired == patchcore.fix_messages(ONE_CALL, options=OPTIONS).value


def test_an_appending_store_gets_the_new_messages_after_its_own() -> None:
    """The result message the fix inserts in the middle goes at the end, where an append-only
    store can put it; what is left is checked on that list, not on the fix's own."""
    fixed = result(fixing=True, appended=True)
    assert fixed.repaired is not None
    new = [m for m in fixed.repaired if m not in ONE_CALL]
    assert fixed.repaired == [*ONE_CALL, *new] and len(new) == 1
    remaining = patchcore.check_messages(fixed.repaired, options=OPTIONS)
    assert fixed.result.remaining == tuple(remaining)


def test_a_fix_that_changes_nothing_leaves_every_finding() -> None:
    clean = result(fixing=True, messages=[{"role": "user", "content": "hi"}])
    assert clean.repaired is None and not clean.result.findings


def test_a_history_of_an_agent_still_running_is_left_when_it_has_something_to_repair() -> None:
    """Its calls may belong to tools still running (the store's clock said so): left as it
    is, with the note and no finding; a history with nothing to repair is checked as any."""
    held = result(fixing=True, live="the session may still be running")
    (listed,) = held.result.conversations
    assert listed.note == "the session may still be running" and listed.warning
    assert not held.result.findings and held.repaired is None
    clean = result(fixing=True, messages=[{"role": "user", "content": "hi"}], live="running")
    (listed,) = clean.result.conversations
    assert listed.note is None and not clean.result.findings
