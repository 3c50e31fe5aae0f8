"""``toolpatch check --against BEFORE AFTER`` (docs/cli.md#against): what a trimmer's output
broke that its input did not have, with check's exit codes and reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import patchcore
from tests.conftest import SAMPLES
from tests.helpers import run


def chat_call(call_id: str, name: str) -> dict[str, Any]:
    function = {"name": name, "arguments": "{}"}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


#: A history with a defect of its own (the hotel's call dangles) and a result the user's
#: message came before.
BEFORE = [
    {"role": "user", "content": "Book the train"},
    chat_call("c_train", "book"),
    {"role": "user", "content": "Also a hotel"},
    {"role": "tool", "tool_call_id": "c_train", "content": "booked"},
    chat_call("c_hotel", "hotel"),
    {"role": "user", "content": "Never mind the hotel."},
]


def written(folder: Path, name: str, value: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return path


def test_only_what_the_cut_broke_is_reported(tmp_path: Path) -> None:
    before = written(tmp_path, "before.json", BEFORE)
    after = written(tmp_path, "after.json", BEFORE[2:])  # a window that starts at the user
    plain = run(["check", str(after)], cwd=tmp_path, expect=1)
    assert "TP004" in plain.said
    assert "TP001" in plain.said
    against = run(["check", "--against", str(before), str(after)], cwd=tmp_path, expect=1)
    assert "TP004 tool result for id c_train" in against.said
    assert "TP001" not in against.said, "the dangling hotel call was the input's own"
    assert "Found 1 finding in 1 file" in against.said


def test_the_guards_cut_breaks_nothing(tmp_path: Path) -> None:
    before = written(tmp_path, "before.json", BEFORE)
    cut = patchcore.safe_cut(BEFORE, range(2, len(BEFORE)))
    after = written(tmp_path, "after.json", cut.messages)
    against = run(["check", "--against", str(before), str(after)], cwd=tmp_path, expect=0)
    assert "No findings in 1 file" in against.said
    report = run(
        ["check", "--against", str(before), "--output-format", "json", str(after)],
        cwd=tmp_path,
        expect=0,
    )
    assert json.loads(report.stdout) == []


def test_each_path_is_held_against_the_same_input(tmp_path: Path) -> None:
    before = written(tmp_path, "before.json", BEFORE)
    broken = written(tmp_path, "window.json", BEFORE[3:])
    whole = written(tmp_path, "same.json", BEFORE)
    report = run(
        ["check", "--against", str(before), "--output-format", "json", str(broken), str(whole)],
        cwd=tmp_path,
        expect=1,
    )
    findings = json.loads(report.stdout)
    assert [(f["file"], f["code"], f["call_id"]) for f in findings] == [
        (str(broken), "TP004", "c_train")
    ]


def test_a_corpus_of_conversation_lines_is_held_against_its_input(tmp_path: Path) -> None:
    # the second line's dangling call is the input's own; the trimmer broke the first line
    lines = [{"messages": BEFORE[:4]}, {"messages": BEFORE[4:]}]
    trimmed = [{"messages": BEFORE[2:4]}, {"messages": BEFORE[4:]}]
    before = tmp_path / "before.jsonl"
    before.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    after = tmp_path / "after.jsonl"
    after.write_text("".join(json.dumps(line) + "\n" for line in trimmed), encoding="utf-8")
    report = run(
        ["check", "--against", str(before), "--output-format", "json", str(after)],
        cwd=tmp_path,
        expect=1,
    )
    assert [(f["line"], f["code"]) for f in json.loads(report.stdout)] == [(1, "TP004")]


def test_an_unread_object_the_input_had_is_not_blamed(tmp_path: Path) -> None:
    unread = {"type": "function_call", "call_id": "c_x", "name": "f", "arguments": "{}"}
    before = written(tmp_path, "before.json", {"messages": BEFORE, "last": unread})
    after = written(tmp_path, "after.json", {"messages": BEFORE[2:], "last": unread})
    plain = run(["check", str(after)], cwd=tmp_path, expect=1)
    assert "[/last]" in plain.said
    against = run(["check", "--against", str(before), str(after)], cwd=tmp_path, expect=1)
    assert "[/last]" not in against.said
    assert "Found 1 finding in 1 file" in against.said


def test_a_responses_turn_cut_apart_is_reported(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": "Hotels in Nice and Metz?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "fc_nice", "name": "find", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "fc_nice", "output": "Negresco"},
        {"role": "assistant", "content": "The Negresco."},
    ]
    before = written(tmp_path, "before.json", items)
    after = written(tmp_path, "after.json", [items[0], items[1], items[3], items[4]])
    against = run(["check", "--against", str(before), str(after)], cwd=tmp_path, expect=1)
    assert "TP004 tool result for id fc_nice" in against.said
    safe = written(tmp_path, "safe.json", patchcore.safe_cut(items, [0, 1, 3, 4]).messages)
    run(["check", "--against", str(before), str(safe)], cwd=tmp_path, expect=0)


def test_an_anthropic_request_windowed_by_position(tmp_path: Path) -> None:
    # the trimmer's output is the same request with fewer messages: lists are told apart by
    # their place in the document
    sample = SAMPLES / "anthropic" / "request-partial-answer.fixed.json"
    document = json.loads(sample.read_text(encoding="utf-8"))
    messages = document["messages"]
    start = next(
        i
        for i in range(1, len(messages))
        if patchcore.broken_by(messages, messages[i:])  # the first window that breaks a pair
    )
    after = written(tmp_path, "after.json", {**document, "messages": messages[start:]})
    report = run(
        ["check", "--against", str(sample), "--output-format", "json", str(after)],
        cwd=tmp_path,
        expect=1,
    )
    assert [f["code"] for f in json.loads(report.stdout)]
    cut = patchcore.safe_cut(messages, range(start, len(messages)))
    safe = written(tmp_path, "safe.json", {**document, "messages": cut.messages})
    run(["check", "--against", str(sample), str(safe)], cwd=tmp_path, expect=0)


def test_a_before_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    after = written(tmp_path, "after.json", BEFORE)
    missing = run(["check", "--against", "gone.json", str(after)], cwd=tmp_path, expect=2)
    assert "--against: cannot read gone.json: No such file or directory" in missing.stderr
    (tmp_path / "notes.json").write_text('{"title": "no messages"}', encoding="utf-8")
    empty = run(["check", "--against", "notes.json", str(after)], cwd=tmp_path, expect=2)
    assert "--against: notes.json: 1:1: no message history found" in empty.stderr
    (tmp_path / "torn.json").write_text('[{"role": "user",', encoding="utf-8")
    torn = run(["check", "--against", "torn.json", str(after)], cwd=tmp_path, expect=2)
    assert "--against: torn.json: 1:" in torn.stderr


def test_against_does_not_go_with_fix(tmp_path: Path) -> None:
    before = written(tmp_path, "before.json", BEFORE)
    refused = run(["check", "--fix", "--against", str(before), str(before)], cwd=tmp_path, expect=2)
    assert "--fix would repair every finding: not both" in refused.stderr
