"""Cline task histories read by Cline's convention (the ``cline`` dialect,
docs/formats.md#cline-and-roo-code-task-histories): a ``tool_use`` followed by a user message
is answered, since Cline gives it a ``tool_result`` there before it sends the history; a call
with no user message after it is not, and its fix is Anthropic's ``tool_result``."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore

CLINE = patchcore.make_options(dialect="cline")


def use(ident: str, name: str = "read_file") -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": {"path": "a.ts"}}


def said(*blocks: dict[str, Any], role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": list(blocks), "ts": 1764839642113}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


TASK = said(text("<task>\nfix the typo\n</task>"))
ANSWERED_BY_TEXT = [
    TASK,
    said(text("I'll read it."), use("toolu_a"), use("toolu_b"), role="assistant"),
    said(text("[read_file for 'a.ts'] Result:\nHelo"), text("[read_file for 'b.ts'] Result:\nx")),
    said(text("Done."), role="assistant"),
]


def findings(messages: list[Any], options: patchcore.Options = CLINE) -> list[tuple[str, str]]:
    report = patchcore.check_document(json.dumps(messages).encode(), options=options)
    return [(f.code, f.call_id or "") for f in report.findings]


def test_calls_answered_by_the_next_user_messages_text_are_answered() -> None:
    assert findings(ANSWERED_BY_TEXT) == []
    # read as plain Anthropic messages, each such call is a dangling one
    anthropic = patchcore.make_options()
    assert findings(ANSWERED_BY_TEXT, anthropic) == [("TP001", "toolu_a"), ("TP001", "toolu_b")]


@pytest.mark.parametrize(
    "reply",
    [
        "ok",  # a plain string: Cline sends it with a result first
        [text("[read_file] Result:")],
        # a stored result answers its call; the other call is answered by the text
        [text("first"), {"type": "tool_result", "tool_use_id": "toolu_b", "content": "x"}],
    ],
)
def test_any_user_message_after_the_calls_answers_them(reply: Any) -> None:
    messages = [TASK, ANSWERED_BY_TEXT[1], {"role": "user", "content": reply}]
    assert findings(messages, patchcore.make_options(select=["ALL"], dialect="cline")) == []


def test_a_call_with_no_user_message_after_it_is_found_and_answered() -> None:
    trailing = [*ANSWERED_BY_TEXT[:3], said(use("toolu_c", "execute_command"), role="assistant")]
    assert findings(trailing) == [("TP002", "toolu_c")]
    before_assistant = [
        *trailing,
        said(text("[Response interrupted by user]"), role="assistant"),
    ]
    assert findings(before_assistant) == [("TP001", "toolu_c")]
    fixed = patchcore.fix_document(json.dumps(before_assistant).encode(), options=CLINE)
    assert fixed.output is not None
    repaired = json.loads(fixed.output)
    assert repaired[:4] == before_assistant[:4]
    assert repaired[5] == before_assistant[4]
    (result,) = repaired[4]["content"]
    assert repaired[4]["role"] == "user"
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == "toolu_c"
    assert findings(repaired) == []


def test_a_task_history_s_calls_are_never_dropped() -> None:
    """A task history is what the agent did: the drop repair answers nothing and removes
    nothing there, and says why (docs/pairing.md#repair-policies)."""
    trailing = [TASK, said(use("toolu_c"), role="assistant")]
    options = patchcore.make_options(dialect="cline", repair="drop", unsafe_fixes=True)
    report = patchcore.fix_document(json.dumps(trailing).encode(), options=options)
    assert report.output is None
    (finding,) = report.findings
    assert "would rewrite what the agent did" in finding.message
