"""Mastra's stored messages through the real entry point
(docs/formats.md#mastras-stored-messages-check-only): read by the AI SDK ``UIMessage`` reading
of their ``content``, the calls Mastra's sanitizer drops before a request settled by Mastra,
everything else checked, nothing ever written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.builders import write
from tests.helpers import SAMPLES, run


def _row(ident: str, role: str, parts: list[Any], **content: Any) -> dict[str, Any]:
    """A ``MastraDBMessage`` as the ``convertToV1Messages`` tests of Mastra write them."""
    return {
        "id": ident,
        "role": role,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "threadId": "thread-1",
        "resourceId": "resource-1",
        "content": {"format": 2, "parts": parts, **content},
    }


def _invocation(ident: str, state: str, **more: Any) -> dict[str, Any]:
    return {
        "state": state,
        "toolCallId": ident,
        "toolName": "searchTool",
        "args": {"q": "x"},
        **more,
    }


def _thread(assistant: dict[str, Any]) -> bytes:
    user = _row("u1", "user", [{"type": "text", "text": "Search."}])
    after = _row("u2", "user", [{"type": "text", "text": "Thanks."}])
    return json.dumps([user, assistant, after], indent=2).encode()


def test_a_call_mastra_drops_before_a_request_is_no_finding_and_fix_writes_nothing(
    tmp_path: Path,
) -> None:
    """It was TP004 ("no reading of this input pairs it") on every Mastra thread."""
    sample = SAMPLES / "mastra/interrupted-call.json"
    run(["check", str(sample)], expect=0)
    copy = write(tmp_path / "thread.json", sample.read_bytes())
    run(["fix", str(copy)], expect=0)
    assert copy.read_bytes() == sample.read_bytes()


def test_a_call_the_ai_sdk_reading_does_not_pair_stays_unread(tmp_path: Path) -> None:
    """``toolInvocations`` beside ``parts`` that hold no invocation: the AI SDK reads ``parts``
    only, so the call is said unread (TP004), never passed over."""
    assistant = _row(
        "a1",
        "assistant",
        [{"type": "text", "text": "Let me check that for you:"}],
        toolInvocations=[_invocation("call-1", "result", result={"found": True})],
    )
    path = write(tmp_path / "thread.json", _thread(assistant))
    result = run(["check", str(path)], expect=1)
    assert [line.split()[1] for line in result.finding_lines] == ["TP004"], result.show()


@pytest.mark.parametrize(
    ("invocation", "why"),
    [
        (_invocation("call-9", "pending"), "not one the AI SDK writes"),
        (_invocation("call-9", "result"), "Mastra sanitizes its stored messages"),
    ],
    ids=["unknown-state", "result-without-result"],
)
def test_a_call_mastra_does_not_settle_is_reported_and_never_written(
    tmp_path: Path, invocation: dict[str, Any], why: str
) -> None:
    """An invocation Mastra's sanitizer keeps (a state the AI SDK does not write, a ``result``
    state that holds none) is reported as the AI SDK reading reports it, without a fix: nothing
    is written into a Mastra row, and the finding says why."""
    assistant = _row(
        "a1",
        "assistant",
        [{"type": "tool-invocation", "toolInvocation": invocation}],
        toolInvocations=[invocation],
    )
    data = _thread(assistant)
    path = write(tmp_path / "thread.json", data)
    checked = run(["check", str(path)], expect=1)
    assert [line.split()[1] for line in checked.finding_lines] == ["TP001"], checked.show()
    assert why in " ".join(checked.stdout.decode().split()), checked.show()
    run(["fix", str(path)], expect=1)
    assert path.read_bytes() == data


def test_formats_and_show_read_mastra_rows() -> None:
    listed = run(["formats"], expect=0).stdout.decode()
    assert "\nmastra  " in listed
    shown = run(["show", str(SAMPLES / "mastra/thread.json")], expect=0).stdout.decode()
    assert "weatherTool" in shown and "What is the weather in Paris?" in shown
