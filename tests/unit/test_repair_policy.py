"""The repair policies (docs/pairing.md#repair-policies): ``answer`` inserts a synthetic result
for an unanswered call (the default, a safe fix), ``drop`` removes the call (an unsafe fix, never
in an agent session log), chosen by ``make_options(repair=...)``, ``--repair`` or the ``repair``
key of the configuration."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import patchcore
from tests.conftest import SAMPLES
from tests.helpers import run, run_process

CHAT = b"""[
  {"role": "user", "content": "Weather in Paris and the time?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
    {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
  ]},
  {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
  {"role": "user", "content": "Never mind."}
]
"""

#: CHAT with call_1 dropped: its entry goes with the line it sat on, call_2's result stays.
CHAT_DROPPED = b"""[
  {"role": "user", "content": "Weather in Paris and the time?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
  ]},
  {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
  {"role": "user", "content": "Never mind."}
]
"""

DROP = patchcore.make_options(repair="drop", unsafe_fixes=True)


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


def test_cli_flag_and_configuration(tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    target.write_bytes(CHAT)
    run(
        ["fix", "--repair", "drop", str(target)], cwd=tmp_path, expect=1
    )  # an unsafe fix: not applied
    assert target.read_bytes() == CHAT
    run(["fix", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == CHAT_DROPPED
    target.write_bytes(CHAT)
    (tmp_path / "toolpatch.toml").write_text('repair = "drop"\nunsafe-fixes = true\n')
    run(["fix", str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == CHAT_DROPPED
    target.write_bytes(CHAT)
    run(["fix", "--repair", "answer", str(target)], cwd=tmp_path, expect=0)
    assert b"was cancelled" in target.read_bytes()
    bad = run(["check", "--repair", "remove", str(target)], cwd=tmp_path, expect=2)
    assert "'remove' is not a repair policy" in bad.stderr
    (tmp_path / "toolpatch.toml").write_text('repair = "remove"\n')
    bad = run(["check", str(target)], cwd=tmp_path, expect=2)
    assert "repair: 'remove' is not a repair policy" in bad.stderr


def test_fix_diff_and_show_present_the_drop_as_the_other_unsafe_fixes(tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    target.write_bytes(CHAT)
    diff = run(
        ["fix", "--diff", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=1
    )
    removed = [
        line
        for line in diff.stdout.decode().splitlines()
        if line.startswith("-") and "call_1" in line
    ]
    assert removed, diff.show()
    assert not [line for line in diff.stdout.decode().splitlines() if line.startswith("+ ")]
    assert target.read_bytes() == CHAT, "--diff writes nothing"
    check = run(["check", "--repair", "drop", str(target)], cwd=tmp_path, expect=1)
    assert "TP001 [~]" in check.stderr
    shown = run(["show", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=0)
    assert "dropped by fix" in shown.stdout.decode()


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


def test_fix_base_messages_drops_calls_from_langchain_objects() -> None:
    """The LangChain objects lose the call wherever langchain-core or a provider would read it:
    ``tool_calls`` and the raw calls of ``additional_kwargs``; a message left empty goes."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    raw = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, n in (("c1", "get_weather"), ("c2", "get_time"))
    ]
    history = [
        HumanMessage("Weather and time?"),
        AIMessage(
            "Looking.",
            tool_calls=[
                {"name": "get_weather", "args": {}, "id": "c1"},
                {"name": "get_time", "args": {}, "id": "c2"},
            ],
            additional_kwargs={"tool_calls": raw},
        ),
        ToolMessage("18C", tool_call_id="c1"),
        AIMessage("", tool_calls=[{"name": "book", "args": {}, "id": "c3"}]),
        HumanMessage("Never mind."),
    ]
    repair = patchcore.fix_base_messages(history, options=DROP)
    assert [f.call_id for f in repair.fixed] == ["c2", "c3"]
    value = repair.value
    assert len(value) == 4, "the AI message of c3 alone goes"
    kept = value[1]
    assert isinstance(kept, AIMessage)
    assert [c["id"] for c in kept.tool_calls] == ["c1"]
    assert [c["id"] for c in kept.additional_kwargs["tool_calls"]] == ["c1"]
    assert kept.content == "Looking."
    assert len(history[1].tool_calls) == 2, "the input objects are not changed"
    assert not patchcore.check_base_messages(value)


@pytest.mark.slow  # two 4.7 MB corpora through three runs each
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_corpus_streamed_in_batches_drops_and_strips(tmp_path: Path, jobs: str) -> None:
    """A conversation-per-line corpus is cut into batches (and worker processes, -j 2): the
    drop repair and strip give what they give on the whole file."""
    line = (SAMPLES / "openai-chat" / "finetune.jsonl").read_bytes()
    corpus = line * 3500  # 4.7 MB: more than one 4 MiB batch of the stream
    target = tmp_path / "corpus.jsonl"
    target.write_bytes(corpus)
    run_process(["fix", "-q", "-j", jobs, str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() != corpus
    run_process(["strip", "-q", "-j", jobs, str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == corpus
    run_process(
        ["fix", "--repair", "drop", "--unsafe-fixes", "-j", jobs, str(target)],
        cwd=tmp_path,
        expect=0,
    )
    whole = patchcore.fix_document(corpus, filename="corpus.jsonl", options=DROP).output
    assert target.read_bytes() == whole


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
