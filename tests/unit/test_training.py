"""The judgement of fine-tuning data (`patchcore.layouts.records`, docs/cli.md#fine-tuning-data):
a conversation line that is an OpenAI chat fine-tuning record and ends on the assistant's call
keeps that call, its training target, as it is; every other finding of the file is fixed as
usual; files that are no fine-tuning data (an agent session log, a chat history document,
recorded runs that merely stopped) are answered as before. Decided line by line, so a streamed
corpus is judged as one read whole."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from patchcore.layouts.records import TRAINING_TARGET, is_training_example
from patchcore.model import TrainingData
from tests.builders import (
    SEVEN_OF_TWENTY,
    fine_tuning_example,
    fine_tuning_file,
    openai_assistant,
    openai_call,
    streamed,
)
from tests.helpers import SAMPLES

ASK = patchcore.make_options(fix_training_targets=True)


def lines_of(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def test_a_file_whose_examples_all_end_on_their_call_is_left() -> None:
    data = fine_tuning_file([True] * 5)
    result = patchcore.fix_document(data, filename="train.jsonl")
    assert result.output is None and result.fixed == ()
    assert [f.code for f in result.findings] == ["TP002"] * 5
    assert all(f.fix is None and f.held == TRAINING_TARGET for f in result.findings)
    assert all(patchcore.is_training_target(f) for f in result.findings)
    assert all(f.message.endswith(f"; {TRAINING_TARGET}") for f in result.findings)
    assert result.remaining == result.findings
    assert patchcore.training_data(result) == TrainingData(examples=5, targets=5, conversations=5)


def test_a_mixed_file_keeps_its_targets_and_fixes_the_rest() -> None:
    """Seven of twenty end on their call; two others go on past a call left unanswered, which
    a provider refuses: those are answered, and nothing else of the file changes."""
    lines = fine_tuning_file(SEVEN_OF_TWENTY).splitlines(keepends=True)
    for number in (4, 6):  # 6 ends on its call too: its call inside is answered, not its target
        example = fine_tuning_example(
            number, ends_on_call=SEVEN_OF_TWENTY[number], unanswered_inside=True
        )
        lines[number] = json.dumps(example).encode() + b"\n"
    data = b"".join(lines)
    result = patchcore.fix_document(data, filename="train.jsonl")
    assert sorted((f.code, f.call_id) for f in result.fixed) == [
        ("TP001", "lost_4"),
        ("TP001", "lost_6"),
    ]
    assert patchcore.training_data(result) == TrainingData(examples=7, targets=7, conversations=20)
    assert result.output is not None
    after = result.output.splitlines(keepends=True)
    assert [n for n, (old, new) in enumerate(zip(lines, after, strict=True)) if old != new] == [
        4,
        6,
    ]
    sixth = lines_of(after[6])[0]["messages"]
    assert sixth[-1] == json.loads(lines[6])["messages"][-1], "the target is still the last"
    assert [m["role"] for m in sixth] == ["user", "assistant", "tool", "user", "assistant"]


def test_asking_answers_the_targets() -> None:
    data = fine_tuning_file(SEVEN_OF_TWENTY)
    result = patchcore.fix_document(data, filename="train.jsonl", options=ASK)
    assert len(result.fixed) == 7 and patchcore.training_data(result) is None
    assert result.output is not None
    ends = [line["messages"][-1]["role"] for line in lines_of(result.output)]
    assert ends == ["tool" if e else "assistant" for e in SEVEN_OF_TWENTY]


def test_parallel_calls_an_example_ends_on_are_all_its_target() -> None:
    data = fine_tuning_file([True, False], parallel=2)
    result = patchcore.fix_document(data, filename="train.jsonl")
    assert result.output is None
    assert patchcore.training_data(result) == TrainingData(examples=1, targets=2, conversations=2)


def test_a_legacy_function_call_example_is_judged_too() -> None:
    """The shape of Microsoft's fine-tuning guide for the legacy API: ``functions`` and an
    assistant ``function_call`` (no id) the example ends on."""
    line = {
        "messages": [
            {"role": "user", "content": "What is the weather in San Francisco?"},
            {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}},
        ],
        "functions": [{"name": "get_weather", "parameters": {}}],
    }
    result = patchcore.fix_document(json.dumps(line).encode() + b"\n", filename="t.jsonl")
    assert result.output is None
    assert patchcore.training_data(result) == TrainingData(examples=1, targets=1, conversations=1)


def test_a_call_a_tool_message_follows_is_no_target() -> None:
    """A parallel turn answered in part ends the example on a tool message: the missing answer
    is refused at training time, so it is answered."""
    example = fine_tuning_example(0, ends_on_call=False, parallel=2)
    del example["messages"][-2:]  # the second answer and the final text
    result = patchcore.fix_document(json.dumps(example).encode() + b"\n", filename="t.jsonl")
    assert [(f.code, f.call_id) for f in result.fixed] == [("TP002", "call_0_1")]
    assert patchcore.training_data(result) is None


def test_a_stream_judges_as_a_whole_run_does() -> None:
    data = fine_tuning_file(SEVEN_OF_TWENTY * 3, unanswered_inside=True)
    whole = patchcore.fix_document(data, filename="input.jsonl")
    stream = streamed(data, patchcore.make_options(), fix=True, chunk=700, batch=900)
    assert stream.output == whole.output  # type: ignore[attr-defined]
    assert stream.result.findings == whole.findings
    assert patchcore.training_data(stream.result) == TrainingData(21, 21, 60)


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({"model": "gpt-4o-2024-08-06"}, id="a-request-body"),
        pytest.param({"id": "run_7", "created": 1733560000, "usage": {}}, id="a-recorded-run"),
        pytest.param({"metadata": {"agent": "support"}}, id="metadata"),
    ],
)
def test_recorded_runs_that_merely_stopped_are_no_training_data(extra: dict[str, Any]) -> None:
    """A corpus of runs, one per line, that stopped on a call: each record says more than a
    fine-tuning example can, so its calls are answered as before."""
    data = b"".join(
        json.dumps({**extra, **fine_tuning_example(n, ends_on_call=True)}).encode() + b"\n"
        for n in range(5)
    )
    result = patchcore.fix_document(data, filename="runs.jsonl")
    assert len(result.fixed) == 5 and patchcore.training_data(result) is None


def test_messages_as_an_sdk_records_them_are_no_training_data() -> None:
    """The SDK's message objects carry ``annotations`` (and nulls): a recorded run."""
    call = {**openai_assistant(openai_call("call_r")), "refusal": None, "annotations": []}
    line = {"messages": [{"role": "user", "content": "weather?"}, call]}
    result = patchcore.fix_document(json.dumps(line).encode() + b"\n", filename="runs.jsonl")
    assert len(result.fixed) == 1 and patchcore.training_data(result) is None


def test_a_chat_history_document_is_no_training_data() -> None:
    """One conversation as a JSON document (a history to resume) is answered, even in the
    shape of a fine-tuning record."""
    data = json.dumps(fine_tuning_example(0, ends_on_call=True), indent=2).encode()
    result = patchcore.fix_document(data, filename="history.json")
    assert len(result.fixed) == 1 and patchcore.training_data(result) is None


def test_one_message_per_line_is_no_training_data() -> None:
    messages = fine_tuning_example(0, ends_on_call=True)["messages"]
    data = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    result = patchcore.fix_document(data, filename="messages.jsonl")
    assert result.layout == "jsonl-messages"
    assert len(result.fixed) == 1 and patchcore.training_data(result) is None


def test_a_claude_code_log_is_no_training_data() -> None:
    sample = SAMPLES / "claude-code" / "sidechain.jsonl"
    result = patchcore.fix_document(sample.read_bytes(), filename=sample.name)
    assert [f.code for f in result.fixed] == ["TP002"]
    assert result.output == (SAMPLES / "claude-code" / "sidechain.fixed.jsonl").read_bytes()
    assert patchcore.training_data(result) is None


@pytest.mark.parametrize(
    ("value", "judged"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, True),
        (
            {
                "messages": [{"role": "assistant", "content": "x", "weight": 0}],
                "tools": [],
                "functions": [],
                "parallel_tool_calls": False,
            },
            True,
        ),
        ({"messages": []}, False),
        ({"messages": "hi"}, False),
        ({"tools": []}, False),
        ({"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}, False),
        ({"messages": [["not", "a", "message"]]}, False),
        ([{"role": "user", "content": "hi"}], False),
    ],
)
def test_what_a_fine_tuning_record_is(value: object, judged: bool) -> None:
    assert is_training_example(value) is judged


@pytest.mark.parametrize(
    ("judged", "said"),
    [
        (
            TrainingData(examples=1, targets=1, conversations=1),
            "fine-tuning data: 1 of 1 example ends on a tool call, the training target; fix "
            "leaves that call as it is (A answers it; U leaves it unreported)",
        ),
        (
            TrainingData(examples=1, targets=2, conversations=2),
            "fine-tuning data: 1 of 2 examples ends on a tool call, the training target; fix "
            "leaves those calls as they are (A answers them; U leaves them unreported)",
        ),
        (
            TrainingData(examples=7, targets=7, conversations=20),
            "fine-tuning data: 7 of 20 examples end on a tool call, the training target; fix "
            "leaves those calls as they are (A answers them; U leaves them unreported)",
        ),
    ],
)
def test_the_judgement_says_how_many_examples_end_on_their_call(
    judged: TrainingData, said: str
) -> None:
    """The note the judgement says before anything is written, in the words of the caller's
    own options (docs/cli.md#fine-tuning-data)."""
    assert judged.note(answered_by="A", unreported_by="U") == said
