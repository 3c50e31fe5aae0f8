"""Claude Code session logs (docs/formats.md#claude-code): conversations, placement, chain,
determinism, strict rules.

Sessions are built line by line with the session builders (``tests/session_logs.py``), in the
compact raw-UTF-8 form Claude Code writes. Every expected value is stated here, not read back
from toolpatch.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.helpers import TP001_TEXT, TP002_TEXT, text
from tests.provider_rules import anthropic
from tests.sample_cases import SAMPLES
from tests.session_logs import (
    CLAUDE_SESSION,
    SESSION_ID,
    SESSION_NAMESPACE,
    cc_assistant,
    cc_progress,
    cc_result,
    cc_user,
    compact_jsonl,
    line_uuid,
    tool_use,
)

NAME = "session.jsonl"


def session(*records: Any) -> bytes:
    return compact_jsonl(records)


def check(data: bytes, **options: Any) -> patchcore.Result:
    return patchcore.check_document(data, filename=NAME, options=patchcore.make_options(**options))


def fix(data: bytes, **options: Any) -> patchcore.Result:
    return patchcore.fix_document(data, filename=NAME, options=patchcore.make_options(**options))


def lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def synthetic_uuid(call_id: str, *series: int) -> str:
    name = "/".join([SESSION_ID, call_id, *map(str, series)])
    return str(uuid.uuid5(SESSION_NAMESPACE, name))


def text_of(second: int, words: str, message_id: str) -> dict[str, Any]:
    return cc_assistant(second, second - 1, message_id, {"type": "text", "text": words})


def api_messages(records: Sequence[Any]) -> list[dict[str, Any]]:
    """The main thread as the API receives it, written from the issue (not from toolpatch):
    user and assistant lines in file order; lines of one response (one ``message.id``) make one
    assistant message, consecutive user lines one user message."""
    out: list[dict[str, Any]] = []
    last_id = None
    for record in records:
        if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
            continue
        if record.get("isSidechain"):
            continue
        message = record["message"]
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        same_response = record["type"] == "assistant" and message.get("id") == last_id
        if (
            out
            and out[-1]["role"] == record["type"]
            and (record["type"] == "user" or same_response)
        ):
            out[-1]["content"] += blocks
        else:
            out.append({"role": record["type"], "content": list(blocks)})
        last_id = message.get("id") if record["type"] == "assistant" else None
    return out


# -- reading --------------------------------------------------------------------------------


def test_a_session_is_read_whole_as_anthropic_turns() -> None:
    """Assistant lines of one response are one turn; the file is one report."""
    data = (SAMPLES / "claude-code/parallel-split.jsonl").read_bytes()
    report = check(data)
    assert report.layout == "claude-code-session"
    assert [(r.line, r.dialect, r.message_count) for r in report.conversations] == [
        (2, "anthropic", 4)
    ]
    (finding,) = report.findings
    assert (finding.code, finding.call_id, finding.tool_name) == (
        "TP001",
        "toolu_01WxPor",
        "get_weather",
    )
    assert finding.line == 7
    assert lines(data)[6][finding.column - 1 :].startswith(
        b'{"type":"tool_use","id":"toolu_01WxPor"'
    )
    assert patchcore.format_pointer(finding.pointer) == "/message/content/0"
    assert "messages.1: `tool_use` ids were found without" in (finding.provider_error or "")


def test_inline_sidechains_are_conversations_of_their_own() -> None:
    """Two subagents kept inline, their lines interleaved: each chain root is one conversation,
    and a result in one never answers a call of another (nor of the main thread)."""
    side = {"sidechain": True}
    records = [
        cc_user(1, None, "Look into both modules."),
        cc_assistant(2, 1, "msg_Main1", tool_use("toolu_Task", "Task", prompt="cart and tax")),
        cc_user(11, None, "cart", **side),
        cc_user(21, None, "tax", **side),
        cc_assistant(12, 11, "msg_SideA", tool_use("toolu_Grep", "Grep", pattern="x"), **side),
        cc_result(22, 21, "toolu_Grep", "no matches", source=21, **side),
        cc_result(3, 2, "toolu_Task", "done", source=2),
        text_of(4, "Both checked.", "msg_Main2"),
    ]
    report = check(session(*records), select=["TP0", "TP101"])
    assert [(r.line, r.message_count) for r in report.conversations] == [(1, 4), (3, 2), (4, 1)]
    assert found(report.findings) == [("TP002", "toolu_Grep"), ("TP101", "toolu_Grep")]
    pending, orphan = report.findings
    assert (pending.line, orphan.line) == (5, 6)


def test_subagent_file_is_one_conversation_by_agent_id() -> None:
    """A subagent's own file: every line a sidechain of one agent, parents outside the file."""
    agent = {"isSidechain": True, "agentId": "a7c41d2"}
    call = cc_assistant(2, 90, "msg_Sub1", tool_use("toolu_Ls", "Bash", command="ls"))
    result = cc_result(3, 91, "toolu_Ls", "README.md", source=2)
    records = [{**record, **agent} for record in (cc_user(1, 89, "ls"), call, result)]
    report = check(session(*records), select=["ALL"])
    assert [(r.line, r.message_count) for r in report.conversations] == [(1, 3)]
    assert report.findings == ()


def test_messages_inside_progress_lines_are_never_paired() -> None:
    """A subagent's traffic copied into progress lines neither answers a main-thread call nor
    counts as calls of its own."""
    nested_result = {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_Main", "content": "ok"}],
        },
    }
    nested_call = {
        "type": "assistant",
        "message": {"role": "assistant", "content": [tool_use("toolu_Nested", "Read", path="a")]},
    }
    progress = [
        {**cc_progress(3, 2, "toolu_Main"), "data": {"type": "agent_progress", "message": nested}}
        for nested in (nested_call, nested_result)
    ]
    records = [
        cc_user(1, None, "Go."),
        cc_assistant(2, 1, "msg_Main", tool_use("toolu_Main", "Task", prompt="read a")),
        *progress,
        cc_user(5, 3, "Stop."),
    ]
    assert found(check(session(*records), select=["ALL"]).findings) == [("TP001", "toolu_Main")]


def test_streamed_calls_of_one_response_are_one_turn() -> None:
    """Claude Code runs each call as soon as its block is complete: a response's later
    tool_use lines come after the results of its first ones. It is still one response, and
    its results one user turn: no strict finding."""
    records = [
        cc_user(1, None, "Read both."),
        cc_assistant(2, 1, "msg_Strm", tool_use("toolu_R1", "Read", file_path="a")),
        cc_result(3, 2, "toolu_R1", "A", source=2),
        cc_assistant(4, 3, "msg_Strm", tool_use("toolu_R2", "Read", file_path="b")),
        cc_result(5, 4, "toolu_R2", "B", source=4),
        text_of(6, "Done.", "msg_Done"),
    ]
    report = check(session(*records), select=["ALL"])
    assert report.findings == ()
    assert [r.message_count for r in report.conversations] == [4]


# -- repair ---------------------------------------------------------------------------------


def interrupted() -> list[Any]:
    """A response split over three lines, both calls left open, hooks' progress lines after
    its last line, and a new prompt."""
    return [
        cc_user(1, None, "Check the weather in Oslo and Bergen."),
        text_of(2, "Checking both.", "msg_Two"),
        cc_assistant(3, 2, "msg_Two", tool_use("toolu_Oslo", "get_weather", city="Oslo")),
        cc_progress(4, 3, "toolu_Oslo"),
        cc_assistant(5, 4, "msg_Two", tool_use("toolu_Brgn", "get_weather", city="Bergen")),
        cc_progress(6, 5, "toolu_Brgn"),
        cc_progress(7, 5, "toolu_Brgn"),
        cc_user(8, 7, "Forget it."),
    ]


def test_new_lines_follow_the_response_and_take_over_its_children() -> None:
    """One result a line, as Claude Code writes them: the first hangs off the response's last
    line, the second off the first, and what hung off the response now hangs off the second."""
    records = interrupted()
    data = session(*records)
    report = fix(data)
    assert found(report.findings) == [("TP001", "toolu_Oslo"), ("TP001", "toolu_Brgn")]
    assert report.output is not None
    before, after = lines(data), lines(report.output)
    assert len(after) == len(before) + 2
    first, second = json.loads(after[5]), json.loads(after[6])
    uuids = [synthetic_uuid("toolu_Oslo"), synthetic_uuid("toolu_Brgn")]
    assert list(first) == [
        "parentUuid",
        "isSidechain",
        "userType",
        "cwd",
        "sessionId",
        "version",
        "gitBranch",
        "slug",
        "type",
        "message",
        "uuid",
        "timestamp",
    ], "Claude Code's own key order (no result fields: the session's lines have none)"
    for new, call_id, parent, own in zip(
        (first, second), ("toolu_Oslo", "toolu_Brgn"), (line_uuid(5), uuids[0]), uuids, strict=True
    ):
        # A failed tool's result block in Claude Code 2's key order.
        result = {
            "type": "tool_result",
            "content": text(TP001_TEXT, "get_weather", call_id),
            "is_error": True,
            "tool_use_id": call_id,
        }
        assert new == {
            "parentUuid": parent,
            **CLAUDE_SESSION,
            "type": "user",
            "message": {"role": "user", "content": [result]},
            "uuid": own,
            "timestamp": records[4]["timestamp"],
        }
        assert list(new["message"]["content"][0]) == list(result)
    assert after[:5] == before[:5], "lines up to the response's last one are untouched"
    # Both lines that hung off the response's last line now hang off the last new one;
    # nothing else on them changes.
    old_parent = f'"parentUuid":"{line_uuid(5)}"'.encode()
    for index in (5, 6):
        assert after[index + 2] == before[index].replace(
            old_parent, f'"parentUuid":"{uuids[1]}"'.encode()
        )
    assert after[9:] == before[7:]


def test_new_lines_carry_the_result_fields_the_sessions_own_result_lines_have() -> None:
    """Where Claude Code's result lines carry ``toolUseResult`` and ``sourceToolAssistantUUID``,
    a new line does too: for a failed tool, ``"Error: "`` and its text (as every error result of
    the real sessions), and the uuid of the line holding the call."""
    records = interrupted()
    records[2:2] = [
        cc_assistant(20, 2, "msg_Time", tool_use("toolu_Time", "get_time")),
        cc_result(21, 20, "toolu_Time", "09:00", source=20),
    ]
    output = fix(session(*records)).output
    assert output is not None
    new = {synthetic_uuid("toolu_Oslo"), synthetic_uuid("toolu_Brgn")}
    results = [v for v in map(json.loads, filter(None, lines(output))) if v["uuid"] in new]
    assert [list(v)[-3:] for v in results] == [
        ["timestamp", "toolUseResult", "sourceToolAssistantUUID"]
    ] * 2
    assert [(v["toolUseResult"], v["sourceToolAssistantUUID"]) for v in results] == [
        ("Error: " + text(TP001_TEXT, "get_weather", "toolu_Oslo"), line_uuid(3)),
        ("Error: " + text(TP001_TEXT, "get_weather", "toolu_Brgn"), line_uuid(5)),
    ]


def test_a_session_without_the_source_field_gets_only_the_result_field() -> None:
    """A subagent's lines (2.1.39) carry ``sourceToolAssistantUUID`` but no ``toolUseResult``,
    and 2.0.76's the reverse: each field is written where the session's lines have it."""
    records = interrupted()
    own = cc_result(21, 20, "toolu_Time", "09:00", source=20)
    del own["sourceToolAssistantUUID"]
    records[2:2] = [cc_assistant(20, 2, "msg_Time", tool_use("toolu_Time", "get_time")), own]
    output = fix(session(*records)).output
    assert output is not None
    first = json.loads(lines(output)[7])
    assert first["uuid"] == synthetic_uuid("toolu_Oslo")
    assert "toolUseResult" in first and "sourceToolAssistantUUID" not in first


def test_the_repaired_chain_passes_through_the_new_lines() -> None:
    """From the last line back to the root, the chain holds every message line, the new ones
    included, and the main thread passes the Anthropic rules."""
    output = fix(session(*interrupted())).output
    assert output is not None
    records = [json.loads(line) for line in lines(output) if line]
    by_uuid = {r["uuid"]: r for r in records}
    chain, node = [], records[-1]
    while node is not None:
        chain.append(node["uuid"])
        node = by_uuid.get(node["parentUuid"]) if node["parentUuid"] else None
    messages = {r["uuid"] for r in records if r["type"] in ("user", "assistant")}
    assert messages <= set(chain), "one unbroken chain through every message line"
    assert len(messages) == 7
    assert anthropic(api_messages(records)) == []
    assert anthropic(api_messages([json.loads(x) for x in lines(session(*interrupted())) if x]))


def test_fixing_is_deterministic_and_idempotent() -> None:
    data = session(*interrupted())
    once = fix(data).output
    assert once is not None
    assert fix(data).output == once, "the same input gets the same bytes"
    assert fix(once).output is None, "fix after fix changes nothing"
    assert check(once).findings == ()
    assert check(once, select=["ALL"]).findings == ()


def test_a_uuid_already_in_the_file_moves_to_the_next_of_the_series() -> None:
    taken = synthetic_uuid("toolu_Oslo")
    records = interrupted()
    records.insert(0, {"type": "summary", "summary": "Weather", "leafUuid": "x", "uuid": taken})
    output = fix(session(*records)).output
    assert output is not None
    assert json.loads(lines(output)[6])["uuid"] == synthetic_uuid("toolu_Oslo", 1)


def test_the_last_line_of_the_file_gets_the_results_after_it() -> None:
    """The session the issue is about: captured while the tool ran, the call is last. CRLF
    line ends and the missing final newline are kept."""
    records = [
        cc_user(1, None, "Find large files."),
        cc_assistant(2, 1, "msg_Find", tool_use("toolu_Find", "Bash", command="du -a | sort")),
    ]
    data = compact_jsonl(records).rstrip(b"\n").replace(b"\n", b"\r\n")
    report = fix(data)
    assert found(report.findings) == [("TP002", "toolu_Find")]
    assert report.output is not None
    first, second, new = report.output.split(b"\r\n")
    assert data == first + b"\r\n" + second
    assert json.loads(new)["message"]["content"][0]["content"] == text(
        TP002_TEXT, "Bash", "toolu_Find"
    )
    assert json.loads(new)["parentUuid"] == line_uuid(2)


def test_sidechain_results_carry_the_sidechain_flag() -> None:
    data = (SAMPLES / "claude-code/sidechain.jsonl").read_bytes()
    output = fix(data).output
    assert output is not None
    added = [json.loads(line) for line in lines(output) if line not in lines(data)]
    assert [(a["isSidechain"], a["parentUuid"]) for a in added] == [(True, line_uuid(14))]


def test_an_inline_sidechain_call_on_a_line_without_uuid_is_reported_without_a_fix() -> None:
    """A new line can hang off no line without a ``uuid``: with a null ``parentUuid`` it would
    be a sidechain of its own, its call still unanswered in its own (docs/formats.md#claude-code).
    Found by the corruption properties (a key dropped from the sidechain sample)."""
    call = cc_assistant(12, 11, "msg_Side", tool_use("toolu_Grep", "Grep", pattern="x"))
    del call["uuid"]
    records = [cc_user(11, None, "List TODOs.", sidechain=True), {**call, "isSidechain": True}]
    data = session(*records)
    report = fix(data)
    assert found(report.findings) == [("TP002", "toolu_Grep")]
    assert report.findings[0].fix is None
    assert report.output is None


def test_a_main_thread_call_on_a_line_without_uuid_is_reported_without_a_fix() -> None:
    """On the main thread too: a result line with a null ``parentUuid`` would start a
    conversation of its own, which a resume from its leaf reads as one lone result."""
    call = cc_assistant(12, 11, "msg_Main", tool_use("toolu_Grep", "Grep", pattern="x"))
    del call["uuid"]
    data = session(cc_user(11, None, "List TODOs."), call)
    report = fix(data)
    assert found(report.findings) == [("TP002", "toolu_Grep")]
    assert report.findings[0].fix is None
    assert report.output is None


# -- what is kept unread --------------------------------------------------------------------


def test_lines_that_are_not_events_are_kept_and_reported() -> None:
    records = interrupted()
    data = b"\n".join(
        [
            session(*records[:3]).rstrip(b"\n"),
            b'"a stray string"',
            b"[1, 2]",
            b'{"type": "x-telemetry", "sessionId": "s"}',
            b'{"type": "user", "message": "not an object"}',
            b'{"type": "assistant", "message": {"role": "assistant", "contenst": []}}',
            b'{"type": "user", "message": {"role": "user", "content": ["bare"]}}',
            b'{"parentUuid": "torn',
            session(*records[3:]),
        ]
    )
    report = fix(data)
    warnings = [(r.line, r.note) for r in report.conversations if r.warning]
    assert warnings == [
        (4, "a line that is a string, not an event; kept as it is"),
        (5, "a line that is a list, not an event; kept as it is"),
        (6, "an event of unknown type 'x-telemetry'; kept as it is"),
        (7, "a user line whose 'message' is a string; kept as it is"),
        (8, "an assistant line whose message has no 'content' list or text; kept as it is"),
        (9, "a user line whose 'content' holds a string; kept as it is"),
        (
            10,
            "not JSON (invalid JSON: unterminated string (its closing quote is missing)); "
            "kept as it is",
        ),
    ]
    assert found(report.findings) == [("TP001", "toolu_Oslo"), ("TP001", "toolu_Brgn")]
    assert report.output is not None
    assert lines(report.output)[3:10] == lines(data)[3:10], "kept byte for byte"


def test_a_tool_field_of_the_wrong_shape_is_an_error_on_its_line() -> None:
    broken = cc_assistant(2, 1, "msg_Bad", {"type": "tool_use", "id": {"x": 1}, "name": "Bash"})
    data = session(cc_user(1, None, "Go."), broken)
    with pytest.raises(patchcore.ShapeError) as caught:
        check(data)
    error = caught.value
    assert (error.line, error.pointer) == (2, "/message/content/0/id")
    assert error.column is not None
    assert lines(data)[1][error.column - 1 :].startswith(b'{"x":1}')


# -- provider-strict rules ------------------------------------------------------------------


def _strict(*middle: Any) -> list[Any]:
    """A prompt, a text, ``middle`` and a last text: a session for the strict rules."""
    records = [cc_user(1, None, "Go."), text_of(2, "On it.", "msg_Intro"), *middle]
    records.append(text_of(len(records) + 1, "Done.", "msg_Done"))
    return records


def test_a_duplicate_result_is_reported_without_a_fix() -> None:
    """A doubled result line: dropping a line of a session is not offered for it, even with
    --unsafe-fixes (Claude Code sends it once itself,
    docs/proxy.md#what-claude-code-sends-of-a-broken-session)."""
    data = session(
        *_strict(
            cc_assistant(3, 2, "msg_Call", tool_use("toolu_Twice", "Bash", command="ls")),
            cc_result(4, 3, "toolu_Twice", "a", source=3),
            cc_result(5, 4, "toolu_Twice", "a", source=3),
        )
    )
    report = check(data, select=["ALL"])
    assert found(report.findings) == [("TP103", "toolu_Twice")]
    assert all(f.fix is None for f in report.findings)
    unsafe = fix(data, select=["ALL"], unsafe_fixes=True)
    assert unsafe.output is None
    assert found(unsafe.findings) == [("TP103", "toolu_Twice")]


def _event(kind: str, **keys: Any) -> dict[str, Any]:
    """Line 4, an event of ``kind`` hanging off line 3."""
    return {
        "parentUuid": line_uuid(3),
        **CLAUDE_SESSION,
        "type": kind,
        **keys,
        "uuid": line_uuid(4),
    }


@pytest.mark.parametrize(
    "between",
    [
        cc_user(4, 3, "Hurry up."),
        cc_user(4, 3, "<local-command-caveat>Caveat</local-command-caveat>", isMeta=True),
        _event(
            "attachment",
            attachment={"type": "queued_command", "prompt": "and then y"},
            rendered=[{"content": "and then y"}],
            renderedRole="user",
        ),
        _event("system", subtype="informational", content="PreToolUse:Bash ran", level="info"),
        cc_progress(4, 3, "toolu_Late"),
    ],
    ids=["prompt", "isMeta", "queued-prompt-attachment", "hook-system-line", "hook-progress"],
)
def test_a_line_between_a_call_and_its_result_is_sent_after_the_result(
    between: dict[str, Any],
) -> None:
    """Claude Code 2.1.332 sends the result first in the user message it makes of a prompt or
    an ``isMeta`` line and the result line after it, and leaves the events out of the turn
    (docs/proxy.md#what-claude-code-sends-of-a-broken-session): no TP106."""
    data = session(
        *_strict(
            cc_assistant(3, 2, "msg_Call", tool_use("toolu_Late", "Bash", command="ls")),
            between,
            cc_result(5, 4, "toolu_Late", "a", source=3),
        )
    )
    assert check(data, select=["ALL"]).findings == ()


def _result_with_text(number: int, parent: int, call_id: str, *, text_first: bool) -> Any:
    block = {"tool_use_id": call_id, "type": "tool_result", "content": "a", "is_error": False}
    words = {"type": "text", "text": "(the hook let it run)"}
    return cc_user(number, parent, [words, block] if text_first else [block, words])


def test_text_before_the_result_in_its_line_is_moved_after_it() -> None:
    """One line's blocks Claude Code sends in their order, refused: the unsafe fix writes the
    line's result first, the text after it, nothing dropped, every other line byte for byte."""
    call = cc_assistant(3, 2, "msg_Call", tool_use("toolu_Hook", "Bash", command="ls"))
    records = _strict(call, _result_with_text(4, 3, "toolu_Hook", text_first=True))
    data = session(*records)
    (finding,) = check(data, select=["TP106"]).findings
    assert (finding.code, finding.line) == ("TP106", 4)
    assert finding.fix is not None
    assert finding.fix.applicability is patchcore.Applicability.UNSAFE
    assert fix(data, select=["TP106"]).output is None
    repaired = fix(data, select=["TP106"], unsafe_fixes=True).output
    expected = [*records[:3], _result_with_text(4, 3, "toolu_Hook", text_first=False), records[4]]
    assert repaired == session(*expected)


def test_text_of_one_line_before_the_results_of_the_next_has_no_fix() -> None:
    """Results first in each line still leave a text before the next line's results: what
    Claude Code sends of that is not known, so TP106 is reported and left."""
    calls = [
        cc_assistant(3, 2, "msg_Call", tool_use("toolu_A", "Bash", command="ls")),
        cc_assistant(4, 3, "msg_Call", tool_use("toolu_B", "Bash", command="ls")),
    ]
    data = session(
        *_strict(
            *calls,
            _result_with_text(5, 4, "toolu_A", text_first=False),
            cc_result(6, 5, "toolu_B", "b", source=4),
        )
    )
    (finding,) = check(data, select=["TP106"]).findings
    assert finding.fix is None


def test_an_orphan_result_line_is_dropped_and_its_children_re_pointed() -> None:
    """TP101's unsafe fix drops a line that holds the orphan alone; the line that hung off it
    hangs off its parent, so Claude Code's chain walk from the leaf still reaches the prompt."""
    records = _strict(cc_result(3, 2, "toolu_Gone", "stale", source=2))
    data = session(*records)
    (finding,) = check(data, select=["TP101"]).findings
    assert finding.fix is not None
    assert finding.fix.applicability is patchcore.Applicability.UNSAFE
    assert "line" in finding.fix.description
    assert fix(data, select=["TP101"]).output is None
    repaired = fix(data, select=["TP101"], unsafe_fixes=True).output
    assert repaired == session(*records[:2], {**records[3], "parentUuid": line_uuid(2)})


def test_an_orphan_result_is_dropped_from_a_line_that_holds_more() -> None:
    """A line with the orphan and a text keeps its text (and its uuid, which others point at)."""
    orphan = {"tool_use_id": "toolu_Gone", "type": "tool_result", "content": "x"}
    words = {"type": "text", "text": "and more"}
    records = _strict(cc_user(3, 2, [orphan, words]))
    data = session(*records)
    repaired = fix(data, select=["TP101"], unsafe_fixes=True).output
    assert repaired == session(*records[:2], cc_user(3, 2, [words]), records[3])


def test_orphan_lines_in_a_chain_hang_their_child_off_the_first_kept_parent() -> None:
    """Two orphan lines one after the other: the line after them hangs off the line before."""
    records = _strict(
        cc_result(3, 2, "toolu_Gone", "stale", source=2),
        cc_result(4, 3, "toolu_Gone2", "stale", source=2),
    )
    repaired = fix(session(*records), select=["TP101"], unsafe_fixes=True).output
    assert repaired == session(*records[:2], {**records[4], "parentUuid": line_uuid(2)})


def test_text_before_an_orphan_result_is_settled_by_the_drop_alone() -> None:
    """TP106's reorder and TP101's drop both rewrite the line's content: the drop settles it
    (no result is left to put first), so the reorder is not offered beside it. Together they
    made a repair that failed its own check (found by the corruption properties)."""
    orphan = {"tool_use_id": "toolu_Gone", "type": "tool_result", "content": "x"}
    words = {"type": "text", "text": "a hook said this"}
    records = _strict(cc_user(3, 2, [words, orphan]))
    repaired = fix(session(*records), select=["ALL"], unsafe_fixes=True).output
    assert repaired == session(*records[:2], cc_user(3, 2, [words]), records[3])


def test_orphan_lines_that_hang_off_each_other_end_the_walk() -> None:
    """Hostile input: two orphan lines, each the other's parent. Dropping both, the walk up
    to the first kept parent ends (it looped for ever) and the line after them starts the
    chain (``parentUuid`` null): no kept line is its parent."""
    records = _strict(
        cc_result(3, 4, "toolu_Gone", "stale", source=2),
        cc_result(4, 3, "toolu_Gone2", "stale", source=2),
    )
    repaired = fix(session(*records), select=["TP101"], unsafe_fixes=True).output
    assert repaired == session(*records[:2], {**records[4], "parentUuid": None})


def test_orphan_result_is_located_at_its_block() -> None:
    records = [
        cc_user(1, None, "Go."),
        text_of(2, "On it.", "msg_Intro"),
        cc_result(3, 2, "toolu_Gone", "stale", source=2),
    ]
    (finding,) = check(session(*records), select=["TP101"]).findings
    assert (finding.line, patchcore.format_pointer(finding.pointer)) == (3, "/message/content/0")


def test_a_real_result_after_toolpatchs_own_is_never_the_one_reported() -> None:
    """A session fixed by toolpatch whose tool answered after all: TP103 names toolpatch's
    synthetic entry, not the real result (docs/rules.md#duplicate-tool-result-tp103); a
    session log's results are never deleted, so the real one stays."""
    lines = (SAMPLES / "claude-code/interrupt.fixed.jsonl").read_text().splitlines()
    synthetic = json.loads(lines[3])
    real = {
        **synthetic,
        "uuid": "6b0e4a1c-2d3f-4a5b-8c6d-0000000000aa",
        "parentUuid": synthetic["uuid"],
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "content": "3 passed", "tool_use_id": "toolu_01PyTst"}
            ],
        },
        "toolUseResult": {"stdout": "3 passed"},
    }
    del real["sourceToolAssistantUUID"]
    data = "\n".join([*lines[:4], json.dumps(real), *lines[4:]]) + "\n"
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    report = patchcore.fix_document(data.encode(), filename="s.jsonl", options=options)
    (finding,) = report.findings
    assert (finding.code, finding.line) == ("TP103", 4)
    assert "the fix removes this one and keeps the real one" in finding.message
    assert report.output is None or b"3 passed" in report.output
