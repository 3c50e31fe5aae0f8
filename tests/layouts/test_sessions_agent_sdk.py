"""Claude Agent SDK message streams: detection, conversations, the new entry, both framings
(JSON Lines and one JSON array), stability, and a stream too large to stream.

Streams are built with the session builders (``tests/session_logs.py``): in the CLI's stream-json
shape (compact JSON Lines, roles, ``session_id`` and ``uuid``), or kept as a pretty-printed
array in the shape of corpus/claude-code's vercel/ai fixture (no role, no ids). Every expected
value is stated here, not read back from toolpatch.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

import patchcore
from patchcore.layouts.base import Layout
from patchcore.pipeline import WHOLE_LIMIT, Stream, layout_of
from patchcore.raw.codec import decode
from tests.builders import found
from tests.conftest import CORPUS
from tests.helpers import TP001_TEXT, TP002_TEXT, run
from tests.provider_rules import anthropic
from tests.sample_cases import SAMPLES, all_cases, fixed_path, json_doc
from tests.session_logs import (
    SDK_SESSION,
    SESSION_NAMESPACE,
    anthropic_result,
    compact_jsonl,
    kept,
    sdk_assistant,
    sdk_conversations,
    sdk_final,
    sdk_init,
    sdk_output,
    sdk_user,
    tool_use,
)

FRAMING = "claude-agent-sdk-stream"
SDK_SAMPLES = [c.path for c in all_cases() if c.path.startswith("claude-agent-sdk/")]
FIXTURE = "claude-code/vercel-ai-claude-agent-sdk-subagent-stream.json"
pretty = json_doc(indent=2)


def stream(*entries: Any) -> bytes:
    return compact_jsonl(entries)


def array(*entries: Any) -> bytes:
    return pretty([list(entries)])


def check(data: bytes, name: str = "stream.jsonl", **options: Any) -> patchcore.Result:
    return patchcore.check_document(data, filename=name, options=patchcore.make_options(**options))


def fix(data: bytes, name: str = "stream.jsonl", **options: Any) -> patchcore.Result:
    return patchcore.fix_document(data, filename=name, options=patchcore.make_options(**options))


def array_layout(first: dict[str, Any]) -> Layout:
    """The layout of a JSON array whose first element is ``first``."""
    return layout_of(decode(json.dumps([first]).encode()), patchcore.make_options())


def entries_of(data: bytes, name: str) -> list[Any]:
    if name.endswith(".json"):
        value: list[Any] = json.loads(data)
        return value
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def synthetic_uuid(call_id: str, *series: int) -> str:
    return str(uuid.uuid5(SESSION_NAMESPACE, "/".join([SDK_SESSION, call_id, *map(str, series)])))


def call(number: int, call_id: str, parent: str | None = None) -> dict[str, Any]:
    """An assistant entry holding one Bash call (message id per call)."""
    block = tool_use(call_id, "Bash", command=f"echo {number}")
    return sdk_assistant(number, f"msg_{call_id}", block, parent)


# -- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        sdk_init(1),
        sdk_assistant(2, "msg_A", {"type": "text", "text": "Hi."}),
        sdk_user(3, "Go on.", "toolu_Task"),
        sdk_final(4, "success", 1),
        kept("assistant", [{"type": "thinking", "thinking": "Delegating."}]),
        {"type": "stream_event", "event": {"type": "message_start"}, "session_id": "s"},
    ],
    ids=["init", "assistant", "subagent-user", "result", "kept-array", "stream-event"],
)
def test_an_sdk_entry_makes_a_file_its_stream(value: dict[str, Any]) -> None:
    assert array_layout(value).name == FRAMING


@pytest.mark.parametrize(
    "value",
    [
        {"type": "assistant", "message": {"role": "assistant", "content": []}, "uuid": "u"},
        {**sdk_assistant(2, "msg_A", {"type": "text", "text": "Hi."}), "sessionId": "s"},
        {"type": "user", "message": {"role": "assistant", "content": []}, "session_id": "s"},
        {"type": "user", "message": "Hi.", "parent_tool_use_id": None},
        {"type": "init", "session_id": "s", "model": "gemini-2.5-pro"},
        {"role": "user", "content": "Hi.", "session_id": "s"},
    ],
    ids=["claude-code-uuid", "claude-code-keys", "role-not-type", "text-message", "init", "chat"],
)
def test_other_objects_do_not(value: dict[str, Any]) -> None:
    assert array_layout(value).name != FRAMING


def test_a_forced_dialect_other_than_anthropic_reads_no_stream() -> None:
    """Forced to read OpenAI Chat, the stream is no session and its lines no chat messages:
    its calls and results are said unread (TP004), with a warning for the lines passed over,
    never paired as another dialect's nor passed over in silence
    (docs/formats.md#what-is-read-and-what-is-said-unread)."""
    data = (SAMPLES / "claude-agent-sdk/main-thread.jsonl").read_bytes()
    forced = check(data, dialect="openai-chat")
    assert forced.layout != FRAMING
    assert [f.code for f in forced.findings] == ["TP004"] * 3
    assert [c.note for c in forced.conversations if c.warning] == [
        "5 lines hold no message history (the first: line 1); passed over, kept as they are"
    ]
    assert check(data, dialect="anthropic").layout == FRAMING


def test_an_array_of_chat_messages_is_no_stream() -> None:
    data = array({"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello."})
    assert check(data, "chat.json").layout == "json"


def test_formats_lists_the_stream() -> None:
    listed = run(["formats", "--color", "never"], expect=0).stdout.decode()
    assert "claude-agent-sdk  Claude Agent SDK message stream" in listed
    assert "`claude -p --output-format stream-json` output" in listed


# -- conversations and turns -----------------------------------------------------------------


def test_the_corpus_fixture_checks_clean_through_the_cli(corpus: Path) -> None:
    path = CORPUS / FIXTURE
    before = path.read_bytes()
    run(["check", "--select", "ALL", str(path)], expect=0)
    run(["fix", "--check", "--select", "ALL", str(path)], expect=0)
    assert path.read_bytes() == before


def test_consecutive_assistant_entries_are_one_turn_whatever_their_message_ids() -> None:
    """Two calls on two entries of two responses, then their results on two entries: one
    assistant turn and one user turn (the API merges consecutive messages of a role), so no
    strict rule sees a result away from its call."""
    data = stream(
        sdk_init(1),
        call(2, "toolu_A"),
        call(3, "toolu_B"),
        sdk_output(4, "toolu_A", "a"),
        sdk_output(5, "toolu_B", "b"),
        sdk_final(6, "success", 1),
    )
    report = check(data, select=["ALL"])
    assert report.findings == ()
    assert [(r.line, r.message_count) for r in report.conversations] == [(2, 2)]


def test_a_subagent_never_answers_the_main_thread() -> None:
    """A result for the main thread's call written in the subagent's conversation answers
    nothing there (an orphan, under the strict rules) and leaves the call open."""
    task = "toolu_Task"
    data = stream(
        sdk_init(1),
        call(2, task),
        sdk_user(3, "Sub-task.", task),
        sdk_assistant(4, "msg_Sub", {"type": "text", "text": "Done."}, task),
        sdk_output(5, task, "misfiled", task),
        sdk_final(6, "success", 1),
    )
    report = check(data, select=["ALL"])
    assert sorted(found(report.findings)) == [("TP002", task), ("TP101", task)]
    assert [r.line for r in report.conversations] == [2, 3], "two conversations"
    repaired = fix(data)
    assert repaired.output is not None
    added = entries_of(repaired.output, "s.jsonl")[2]
    assert (added["type"], added["parent_tool_use_id"]) == ("user", None)
    assert added["message"]["content"][0]["tool_use_id"] == task


def test_events_are_kept_and_odd_entries_warned_about() -> None:
    """Events the SDK emits are kept silently; what is no readable message or known event is
    kept as it is and reported with its line and its place in the array."""
    entries = [
        kept("assistant", [tool_use("toolu_A", "Bash", command="ls")]),
        {"type": "tool_progress", "tool_use_id": "toolu_A", "parent_tool_use_id": None},
        "a stray string",
        {"type": "x-telemetry", "session_id": "s"},
        {"type": "user", "parent_tool_use_id": None, "message": "not an object"},
        kept("user", [{"type": "text", "text": "Next."}]),
        {"type": "result", "subtype": "success", "session_id": "s"},
    ]
    data = array(*entries)
    report = fix(data, "stream.json")
    warnings = [(r.line, r.pointer, r.note) for r in report.conversations if r.warning]
    assert warnings == [
        (27, "/2", "an entry that is a string, not an event; kept as it is"),
        (28, "/3", "an event of unknown type 'x-telemetry'; kept as it is"),
        (32, "/4", "a user entry whose 'message' is a string; kept as it is"),
    ]
    assert found(report.findings) == [("TP001", "toolu_A")]
    assert report.output is not None
    assert json.loads(report.output)[2:] == entries[1:]


# -- the new entry ---------------------------------------------------------------------------


def test_the_new_entry_copies_the_call_entrys_keys_in_its_order() -> None:
    """Keys in the call entry's order; ``session_id`` copied, the uuid derived from it and the
    call (the next of the series where an entry already holds it), the role kept."""
    first = {
        "uuid": synthetic_uuid("toolu_A"),
        "session_id": SDK_SESSION,
        "parent_tool_use_id": None,
        "type": "assistant",
        "message": {"role": "assistant", "content": [tool_use("toolu_A", "Bash", command="ls")]},
    }
    data = stream(first, sdk_user(2, "Never mind."))
    report = fix(data)
    assert report.output is not None
    added = entries_of(report.output, "s.jsonl")[1]
    assert added == {
        "uuid": synthetic_uuid("toolu_A", 1),
        "session_id": SDK_SESSION,
        "parent_tool_use_id": None,
        "type": "user",
        "message": {"role": "user", "content": [anthropic_result(TP001_TEXT, "Bash", "toolu_A")]},
    }
    assert list(added) == list(first)


def test_a_compact_one_line_array_gets_a_compact_element() -> None:
    entries = [
        kept("assistant", [tool_use("toolu_A", "Bash", command="ls")], "toolu_Task"),
        kept("user", [{"type": "text", "text": "Stop."}], "toolu_Task"),
    ]
    compact = (",", ":")
    data = json.dumps(entries, separators=compact).encode()
    new = {
        "type": "user",
        "parent_tool_use_id": "toolu_Task",
        "message": {"content": [anthropic_result(TP001_TEXT, "Bash", "toolu_A")]},
    }
    report = fix(data, "stream.json")
    assert report.output == json.dumps([entries[0], new, entries[1]], separators=compact).encode()


def test_crlf_array_keeps_its_line_ends() -> None:
    entries = [kept("assistant", [tool_use("toolu_A", "Bash", command="ls")])]
    data = array(*entries).replace(b"\n", b"\r\n")
    report = fix(data, "stream.json")
    assert report.output is not None
    assert b"\n" not in report.output.replace(b"\r\n", b"")
    added = json.loads(report.output)[1]["message"]["content"]
    assert added == [anthropic_result(TP002_TEXT, "Bash", "toolu_A")]


# -- errors ----------------------------------------------------------------------------------


def test_a_tool_field_of_the_wrong_shape_is_an_error_at_its_place_in_the_array() -> None:
    broken = kept("assistant", [{"type": "tool_use", "id": {"x": 1}, "name": "Bash"}])
    data = array(kept("user", [{"type": "text", "text": "Go."}]), broken)
    with pytest.raises(patchcore.ShapeError) as caught:
        check(data, "stream.json")
    error = caught.value
    assert (error.line, error.column, error.pointer) == (21, 17, "/1/message/content/0/id")
    assert data.split(b"\n")[20][16:].startswith(b"{")


def test_a_broken_array_is_a_located_decode_error() -> None:
    data = b'[{"type": "assistant", "parent_tool_use_id": null, "message": {"content": []}},\n {'
    with pytest.raises(patchcore.DecodeError) as caught:
        check(data, "stream.json")
    assert caught.value.line == 2


# -- stability and the provider's rules, per sample ------------------------------------------


@pytest.mark.parametrize("relative", SDK_SAMPLES)
def test_fix_twice_is_fix_once_and_leaves_nothing_fixable(relative: str) -> None:
    once = fix((SAMPLES / relative).read_bytes(), relative)
    assert once.output == (SAMPLES / fixed_path(relative)).read_bytes()
    assert once.layout == FRAMING
    twice = fix(once.output, relative)
    assert twice.output is None, "fixing a repaired stream changes nothing"
    for select in (None, ["ALL"]):
        after = check(once.output, relative, select=select)
        assert [f for f in after.findings if f.fix is not None] == []
        assert after.findings == ()


@pytest.mark.parametrize("relative", SDK_SAMPLES)
def test_repaired_conversations_pass_the_anthropic_rules(relative: str) -> None:
    before = entries_of((SAMPLES / relative).read_bytes(), relative)
    after = entries_of((SAMPLES / fixed_path(relative)).read_bytes(), relative)
    assert any(anthropic(thread) for thread in sdk_conversations(before)), "input is broken"
    for thread in sdk_conversations(after):
        assert anthropic(thread) == [], relative


def test_both_framings_read_the_same_conversations() -> None:
    for name in ("main-thread", "subagent", "parallel-interrupted"):
        lines = check((SAMPLES / f"claude-agent-sdk/{name}.jsonl").read_bytes())
        whole = check((SAMPLES / f"claude-agent-sdk/{name}.json").read_bytes(), "s.json")
        assert found(lines.findings) == found(whole.findings)
        assert [r.message_count for r in lines.conversations] == [
            r.message_count for r in whole.conversations
        ]


# -- streaming -------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_stream_over_the_streaming_threshold_is_read_whole() -> None:
    """Streaming cuts JSON Lines into batches of independent lines; a stream's entries are not
    independent (its first call is answered only by a message far below), so a stream larger
    than the threshold is read whole and repaired exactly as `fix_document` repairs it."""
    head = [sdk_init(1), call(2, "toolu_Open"), sdk_user(3, "Never mind that.")]
    body: list[Any] = []
    number, size = 4, 0
    while size <= WHOLE_LIMIT:
        call_id = f"toolu_{number:07d}"
        body += [call(number, call_id), sdk_output(number + 1, call_id, "x" * 200)]
        size += len(stream(*body[-2:]))
        number += 2
    data = stream(*head, *body, sdk_final(number, "success", len(body)))
    assert len(data) > WHOLE_LIMIT
    layout = patchcore.layout_of_head(data[:4096], options=patchcore.make_options())
    assert layout is not None and not layout.batches
    chunks = [data[k : k + 2**20] for k in range(0, len(data), 2**20)]
    options = patchcore.make_options()
    streamed = Stream(iter(chunks), filename="big.jsonl", options=options, fix=True)
    output = b"".join(streamed)
    assert not streamed.streamed
    assert streamed.result.layout == FRAMING
    assert found(streamed.result.findings) == [("TP001", "toolu_Open")]
    assert output.startswith(stream(*head[:2], new_main_entry("toolu_Open"), head[2]))
    assert output == fix(data, "big.jsonl").output


def new_main_entry(call_id: str) -> dict[str, Any]:
    """The entry a repair adds after a main-thread call of the CLI's stream (TP001)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": [anthropic_result(TP001_TEXT, "Bash", call_id)]},
        "parent_tool_use_id": None,
        "session_id": SDK_SESSION,
        "uuid": synthetic_uuid(call_id),
    }


def test_a_block_whose_type_is_not_text_is_an_unknown_block() -> None:
    """Found by the corruption properties: a session's messages are read without recognition,
    and a block whose ``type`` is a list crashed the reader (it was looked up in a set)."""
    path = Path(__file__).parents[2] / "samples" / "claude-agent-sdk" / "main-thread.jsonl"
    data = path.read_bytes().replace(
        b'"content":[{"type":"text","text":"Running the tests first."}]',
        b'"content":[{"type":[],"text":"Running the tests first."}]',
        1,
    )
    assert b'"type":[]' in data
    report = patchcore.fix_document(
        data, filename=path.name, options=patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    )
    assert [(f.code, f.call_id) for f in report.findings] == [("TP001", "toolu_01PyTest")]
