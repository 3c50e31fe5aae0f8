"""``toolpatch show`` through the real entry point on the pi, OpenHands, opencode and Goose
samples: each message under its own role, the unanswered call, and the result ``fix`` would
write (docs/formats.md: "pi and openclaw sessions", "OpenHands trajectories", "opencode",
"Goose sessions")."""

from __future__ import annotations

import pytest

from tests.helpers import SAMPLES, run

SHOWN = {
    "pi/resumed-after-crash.jsonl": ("toolResult (inserted by fix)", "#2 user"),
    "openhands/stopped-mid-command.json": ("agent (inserted by fix)", "#5 user"),
    "opencode/crashed-then-asked.json": ("set by fix: /parts/1/state/status", "#1 assistant"),
    "goose/killed-mid-tool.jsonl": ("user (inserted by fix)", "#1 assistant"),
}


@pytest.mark.parametrize("sample", sorted(SHOWN))
def test_show_draws_the_session_and_its_repair(sample: str) -> None:
    result = run(["show", "--color", "never", str(SAMPLES / sample)], expect=0)
    words = " ".join(result.stdout.decode().split())
    for expected in SHOWN[sample]:
        assert expected in words, words
    assert "internal error" not in result.stderr
