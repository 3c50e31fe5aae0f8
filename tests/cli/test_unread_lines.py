"""Nothing is skipped in silence (docs/formats.md#what-is-read-and-what-is-said-unread): a
JSON Lines file is a corpus of conversations only when its lines are conversations. Lines that
hold no message list are written back as they are and said: one warning with their count where
most lines hold one, and where most do not, the file is refused as holding no message history
(exit 2), never reported clean on the strength of a few lines that happen to read as
messages."""

from __future__ import annotations

import json
from pathlib import Path

import patchcore
from tests.conftest import ROOT
from tests.helpers import run

#: Another agent's log in its own record types, with two ``compaction`` lines that read alone
#: as OpenAI Responses items; a call of its last turn has no ``tool.end``.
OTHER_AGENT = ROOT / "tests" / "data" / "other-agent-log.jsonl"


def corpus_line(number: int) -> bytes:
    call = {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "never mind"},
    ]
    return json.dumps({"messages": messages}).encode()


def test_another_agent_s_log_is_refused_not_reported_clean(tmp_path: Path) -> None:
    target = tmp_path / OTHER_AGENT.name
    target.write_bytes(OTHER_AGENT.read_bytes())
    result = run(["check", "--color", "never", str(target)], expect=2)
    assert f"{target}:1:1: error: no message history: 48 of 50 lines hold no list" in (
        result.stderr
    )
    run(["fix", str(target)], expect=2)
    assert target.read_bytes() == OTHER_AGENT.read_bytes()
    walked = run(["check", "--color", "never", str(tmp_path)], expect=0)
    assert "1 file skipped (no message history)" in walked.said


def test_a_few_stray_lines_in_a_corpus_are_one_warning(tmp_path: Path) -> None:
    stray = b'{"type": "telemetry", "batch": 7}'
    lines = [corpus_line(1), stray, corpus_line(2), stray, corpus_line(3)]
    target = tmp_path / "train.jsonl"
    target.write_bytes(b"\n".join(lines) + b"\n")
    checked = run(["check", "--color", "never", str(target)], expect=1)
    warning = (
        f"{target}:2: /: warning: 2 lines hold no message history (the first: line 2); "
        "passed over, kept as they are"
    )
    assert warning in checked.stderr
    assert "Found 3 findings in 1 file" in checked.said
    run(["fix", str(target)], expect=0)
    fixed = target.read_bytes().split(b"\n")
    assert fixed[1] == stray and fixed[3] == stray
    report = run(["check", "--output-format", "json", str(target)], expect=0)
    (said,) = [r for r in json.loads(report.stdout) if "no message history" in str(r)]
    assert "2 lines hold no message history" in json.dumps(said)


def test_streamed_as_read_whole() -> None:
    """A corpus cut into batches says the same as one read whole."""
    stray = b'{"type": "telemetry"}'
    data = b"\n".join([corpus_line(1), stray, *(corpus_line(n) for n in range(2, 30))]) + b"\n"
    options = patchcore.make_options()
    whole = patchcore.Stream(iter([data]), filename="c.jsonl", options=options, fix=False)
    cut = patchcore.Stream(
        iter([data]),
        filename="c.jsonl",
        options=options,
        fix=False,
        whole_limit=64,
        batch_bytes=512,
    )
    for stream in (whole, cut):
        list(stream)
    assert cut.streamed and not whole.streamed
    notes = [[c.note for c in s.result.conversations if c.warning] for s in (whole, cut)]
    assert (
        notes[0]
        == notes[1]
        == ["1 line holds no message history (the first: line 2); passed over, kept as it is"]
    )
    other = OTHER_AGENT.read_bytes()
    for limit in (2**20, 64):
        stream = patchcore.Stream(
            iter([other]), filename="o.jsonl", options=options, fix=False, whole_limit=limit
        )
        try:
            list(stream)
        except patchcore.NoHistoryError as error:
            assert "48 of 50 lines" in error.reason
        else:
            raise AssertionError("read as a corpus")


def test_a_refused_log_s_call_like_objects_are_reported_not_skipped(tmp_path: Path) -> None:
    """A log of another kind that holds an object looking like a tool result outside any message
    list is not refused as holding no history (a walk would skip it in silence): its call-like
    object is TP004, as in a JSON document, and its other lines are one warning."""
    lines = [
        b'{"event": "tool.end", "payload": {"tool_call_id": "call_1", "output": "42"}}',
        b'{"type": "telemetry", "batch": 7}',
    ]
    data = b"\n".join(lines) + b"\n"
    target = tmp_path / "events.jsonl"
    target.write_bytes(data)
    finding = f"{target}:1:34: TP004 an object looks like a tool call or result (key 'tool_call_"
    for given in (target, tmp_path):
        checked = run(["check", "--color", "never", str(given)], expect=1)
        assert finding in checked.said
        assert "1 line holds no message history (the first: line 2)" in checked.stderr
        assert "skipped" not in checked.said
    run(["fix", str(target)], expect=1)
    assert target.read_bytes() == data
    options = patchcore.make_options()
    for limit in (2**20, 16):
        stream = patchcore.Stream(
            iter([data]), filename=target.name, options=options, fix=False, whole_limit=limit
        )
        list(stream)
        assert [f.code for f in stream.result.findings] == ["TP004"]
