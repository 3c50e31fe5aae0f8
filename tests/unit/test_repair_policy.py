"""The repair policies (docs/pairing.md#repair-policies): ``answer`` inserts a synthetic result
for an unanswered call (the default, a safe fix), ``drop`` removes the call (an unsafe fix, never
in an agent session log), chosen by ``make_options(repair=...)``, ``--repair`` or the ``repair``
key of the configuration."""

from __future__ import annotations

import inspect

import pytest

import patchcore
from tests.builders import CHAT, CHAT_DROPPED, DROP
from tests.conftest import SAMPLES


def test_make_options_takes_the_policy_by_name_keyword_only() -> None:
    assert patchcore.make_options().repair is patchcore.RepairPolicy.ANSWER
    assert patchcore.make_options(repair="drop").repair is patchcore.RepairPolicy.DROP
    policy = patchcore.make_options(repair=patchcore.RepairPolicy.DROP).repair
    assert policy is patchcore.RepairPolicy.DROP
    parameter = inspect.signature(patchcore.make_options).parameters["repair"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("bad", ["remove", "DROP", "", None, 1])
def test_an_unknown_policy_is_a_patchcore_error(bad: object) -> None:
    with pytest.raises(patchcore.UnknownRepairError, match="is not a repair policy") as caught:
        patchcore.make_options(repair=bad)  # type: ignore[arg-type]
    assert isinstance(caught.value, patchcore.PatchcoreError)


def test_drop_is_an_unsafe_fix_that_removes_the_call() -> None:
    checked = patchcore.check_document(CHAT, filename="h.json", options=DROP)
    (finding,) = checked.findings
    assert finding.fix is not None
    assert finding.fix.applicability is patchcore.Applicability.UNSAFE
    assert finding.fix.description == "drop the unanswered call"
    safe_only = patchcore.make_options(repair="drop")
    assert patchcore.fix_document(CHAT, filename="h.json", options=safe_only).output is None
    fixed = patchcore.fix_document(CHAT, filename="h.json", options=DROP)
    assert fixed.output == CHAT_DROPPED
    assert patchcore.fix_document(CHAT_DROPPED, filename="h.json", options=DROP).output is None


def test_a_message_left_with_nothing_goes_too() -> None:
    data = CHAT.replace(b'"tool_call_id": "call_2"', b'"tool_call_id": "call_1"')
    fixed = patchcore.fix_document(data, filename="h.json", options=DROP).output
    assert fixed is not None
    assert b'"role": "assistant"' in fixed  # call_1 is answered: only call_2 goes
    both = patchcore.fix_document(
        data.replace(b'"tool_call_id": "call_1"', b'"tool_call_id": "call_9"'),
        filename="h.json",
        options=DROP,
    ).output
    assert both is not None
    assert b'"assistant"' not in both
    assert b'"call_9"' in both, "a result of the turn stays where it is"


def test_fix_messages_drops_values_too() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f"}}],
        },
        {"role": "user", "content": "bye"},
    ]
    repair = patchcore.fix_messages(messages, options=DROP)
    assert repair.value[1] == {"role": "assistant", "content": "Let me look."}
    assert "tool_calls" in messages[1], "the input is not mutated"


def test_an_agent_session_log_is_never_dropped_from() -> None:
    data = (SAMPLES / "claude-code" / "interrupt.jsonl").read_bytes()
    result = patchcore.fix_document(data, filename="s.jsonl", options=DROP)
    assert result.findings
    assert result.output is None
    for finding in result.findings:
        assert finding.fix is None
        assert "would rewrite what the agent did" in finding.message


BEDROCK_BETWEEN_USERS = b"""[
  {"role": "user", "content": [{"text": "Weather?"}]},
  {"role": "assistant", "content": [
    {"reasoningContent": {"reasoningText": {"text": "Look it up.", "signature": "s"}}},
    {"toolUse": {"toolUseId": "tu_1", "name": "get_weather", "input": {}}}
  ]},
  {"role": "user", "content": [{"text": "Never mind."}]}
]
"""


def test_a_drop_that_would_break_the_turn_order_is_refused() -> None:
    """Bedrock Converse wants user and assistant turns to alternate: removing the assistant turn
    (its reasoning alone is no content) would put two user turns together, so the call stays."""
    result = patchcore.fix_document(BEDROCK_BETWEEN_USERS, filename="h.json", options=DROP)
    (finding,) = result.findings
    assert finding.fix is None
    assert "in an order the provider rejects" in finding.message
    assert result.output is None
    answered = patchcore.fix_document(BEDROCK_BETWEEN_USERS, filename="h.json").output
    assert answered is not None, "the answer policy still answers it"


def test_reasoning_left_alone_goes_with_the_call() -> None:
    data = b"""[
  {"role": "user", "content": "Weather?"},
  {"role": "assistant", "content": [
    {"type": "thinking", "thinking": "Look it up.", "signature": "s"},
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
  ]},
  {"role": "user", "content": "Never mind."}
]
"""
    fixed = patchcore.fix_document(data, filename="h.json", options=DROP).output
    assert (
        fixed
        == b"""[
  {"role": "user", "content": "Weather?"},
  {"role": "user", "content": "Never mind."}
]
"""
    )


def test_a_drop_that_would_leave_no_history_is_refused() -> None:
    """Items of unknown types are read beside a call only: dropping the request's only call
    would leave a list toolpatch no longer reads as a history, and a second run would fail on
    the file. The call stays, and its finding says why."""
    data = (SAMPLES / "openai-responses" / "unknown-item-types.json").read_bytes()
    result = patchcore.fix_document(data, filename="h.json", options=DROP)
    (finding,) = result.findings
    assert finding.fix is None
    assert "a list no longer read as a history" in finding.message
    assert result.output is None


@pytest.mark.parametrize(
    "sample", ["gemini/adk-session-events.json", "openai-responses/stored-response.json"]
)
def test_a_list_that_cannot_lose_the_call_keeps_it(sample: str) -> None:
    """An ADK event holds more than its message, a stored response is what the model returned:
    the drop repair leaves their calls, and says why."""
    data = (SAMPLES / sample).read_bytes()
    result = patchcore.fix_document(data, filename="h.json", options=DROP)
    assert result.output is None
    assert result.findings
    for finding in result.findings:
        assert finding.fix is None
        assert "dropping it would change a stored model response" in finding.message
