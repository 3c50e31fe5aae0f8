"""OpenHands trajectories (docs/formats.md#openhands-trajectories): actions and observations
paired on their ``tool_call_metadata``, ``finish`` never answered, and a pending action answered
with the ErrorObservation OpenHands' agent controller writes for it."""

from __future__ import annotations

import json

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


def test_the_sent_history_pairs_every_call_after_the_repair() -> None:
    """What OpenHands' conversation memory sends: an action's call only once an observation
    answers it; before the repair the stopped command is held back from the model, after it
    the call and its error result are both sent."""
    for name in ("stopped-mid-command", "killed-at-the-end"):
        data = (SAMPLES / f"openhands/{name}.json").read_bytes()
        fixed = patchcore.fix_document(data, filename=NAME).output
        assert fixed is not None
        for events, held in ((json.loads(data), 1), (json.loads(fixed), 0)):
            answered = {
                e["tool_call_metadata"]["tool_call_id"]
                for e in events
                if "observation" in e and "tool_call_metadata" in e
            }
            calls = [
                e["tool_call_metadata"]["tool_call_id"]
                for e in events
                if "action" in e and "tool_call_metadata" in e and e["action"] != "finish"
            ]
            assert len([c for c in calls if c not in answered]) == held, name
