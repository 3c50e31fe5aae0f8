"""OpenHands trajectories (docs/formats.md#openhands-trajectories): actions and observations
paired on their ``tool_call_metadata``, ``finish`` never answered, and a pending action answered
with the ErrorObservation OpenHands' agent controller writes for it."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES

NAME = "trajectory.json"


def test_the_corpus_trajectories_are_read_and_finish_is_no_dangling_call(corpus) -> None:
    for name, events in (("basic-gui-mode", 18), ("wrong-initial-state", 8)):
        data = (corpus / "openhands" / f"openhands-traj-{name}.json").read_bytes()
        report = patchcore.check_document(data, filename=NAME)
        assert report.layout == "openhands-trajectory"
        assert [(c.dialect, c.message_count) for c in report.conversations] == [
            ("openhands", events)
        ]
        assert report.findings == ()


def test_a_pending_action_gets_the_error_observation_openhands_writes() -> None:
    data = (SAMPLES / "openhands/stopped-mid-command.json").read_bytes()
    result = patchcore.fix_document(data, filename=NAME)
    assert found(result.findings) == [("TP001", "toolu_01PuY3mXrE6fm3j52GscR4rj")]
    assert result.output is not None
    events = json.loads(result.output)
    action, new = events[3], events[4]
    assert list(new) == [
        "id",
        "timestamp",
        "source",
        "message",
        "cause",
        "observation",
        "tool_call_metadata",
        "content",
        "extras",
    ]
    assert (new["cause"], new["observation"]) == (action["id"], "error")
    assert new["tool_call_metadata"] == action["tool_call_metadata"]
    assert new["id"] == max(e["id"] for e in json.loads(data)) + 1


def held_back(events: list[dict[str, Any]]) -> list[str]:
    """The model responses OpenHands' conversation memory never sends, as ``process_events``
    decides it: a non-finish action's response waits until an observation answers each call
    that response made (``pending_tool_call_action_messages``)."""
    answered = {
        e["tool_call_metadata"]["tool_call_id"]
        for e in events
        if "observation" in e and "tool_call_metadata" in e
    }
    responses = {
        e["tool_call_metadata"]["model_response"]["id"]: e["tool_call_metadata"]["model_response"]
        for e in events
        if "action" in e and "tool_call_metadata" in e and e["action"] != "finish"
    }
    return sorted(
        rid
        for rid, response in responses.items()
        if any(c["id"] not in answered for c in response["choices"][0]["message"]["tool_calls"])
    )


@pytest.mark.parametrize(
    "name", ["stopped-mid-command", "killed-at-the-end", "stopped-between-calls"]
)
def test_the_memory_sends_every_response_after_the_repair(name: str) -> None:
    """Before the repair a response (and what the model said with it) is held back from the
    model for good; after it, every response is complete and sent."""
    data = (SAMPLES / f"openhands/{name}.json").read_bytes()
    fixed = patchcore.fix_document(data, filename=NAME).output
    assert fixed is not None
    assert len(held_back(json.loads(data))) == 1
    assert held_back(json.loads(fixed)) == []


def test_a_trajectorys_zoneless_times_do_not_judge_it_live() -> None:
    """Its ``timestamp``s have no zone: whether it may still be written to is the caller's
    judgement from outside (the file's time), whatever they say."""
    data = (SAMPLES / "openhands/killed-at-the-end.json").read_bytes()
    ended = patchcore.make_options(live=False, live_since=0.0)
    assert patchcore.fix_document(data, filename=NAME, options=ended).output is not None
    running = patchcore.make_options(live=True, live_since=4_102_444_800.0)  # 2100
    result = patchcore.fix_document(data, filename=NAME, options=running)
    assert result.live and result.output is None and result.last_entry is None
