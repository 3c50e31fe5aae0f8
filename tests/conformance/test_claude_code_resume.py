"""The real Claude Code resumes what `fix` wrote (docs/formats.md#claude-code-the-real-client).

Claude Code 2.1.332 (pinned in ``tests/clients/claude-code``) runs offline against the fake
Anthropic API of `tests.fake_anthropic`, which refuses an unanswered or duplicate result with the
API's own 400 error. It writes its sessions itself; each test breaks one as a user's session
breaks (the process killed while a tool runs; a result line removed from the middle), resumes it
with ``claude -p --resume ID`` before and after ``toolpatch fix``, and counts what the model is
told: the calls and results of the request the client sends.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.claude_code_client import ClaudeCodeHome
from tests.fake_anthropic import Request, fake_anthropic
from tests.helpers import TP001_TEXT, TP002_TEXT, run, text

#: A command that runs for a minute, so the process is killed while its tool runs (Claude Code
#: refuses a bare ``sleep``).
LONG_COMMAND = "python3 -c 'import time; time.sleep(60)'"
#: What Claude Code 2.1.332 itself tells the model, on resume, of a call its log left unanswered.
CLIENT_OWN_RESULT = (
    "[Tool call interrupted: the session ended before this call's result was recorded"
)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[ClaudeCodeHome]:
    with fake_anthropic() as fake:
        yield ClaudeCodeHome(tmp_path / "home", fake)


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _sent(requests: list[Request]) -> Request:
    """The one request of the agent's loop a resume sent (the prompt is answered in one turn)."""
    (request,) = [r for r in requests if r.body.get("tools")]
    return request


def _results(request: Request) -> dict[str, list[Any]]:
    """The results the request tells the model, by the call they answer."""
    found: dict[str, list[Any]] = {}
    for block in request.blocks("tool_result"):
        found.setdefault(block["tool_use_id"], []).append(block["content"])
    return found


def _resumed_after_fix(home: ClaudeCodeHome, session: str, prompt: str) -> Request:
    """``toolpatch fix`` the session's log (check is clean after it), then resume it with
    PROMPT: the request the client sent, accepted, and the run ended without error."""
    log = home.log(session)
    run(["fix", "--force", str(log)], expect=0)
    run(["check", "--force", str(log)], expect=0)
    result, requests = home.claude(prompt, resume=session)
    sent = _sent(requests)
    assert sent.refused is None and result["is_error"] is False
    return sent


def _resumed_without_the_call(home: ClaudeCodeHome, session: str, prompt: str) -> None:
    """Resume the session as it is with PROMPT: the request is accepted, but tells the model
    of no call and no result (the client left the unanswered call out)."""
    _, requests = home.claude(prompt, resume=session)
    sent = _sent(requests)
    assert sent.refused is None
    assert sent.blocks("tool_use") == [] and sent.blocks("tool_result") == []


def test_a_session_it_writes_is_read_whole(home: ClaudeCodeHome) -> None:
    """Every line type Claude Code 2.1.332 writes in a session with a tool call is known: no
    warning, no finding, and the call is paired."""
    result, _ = home.claude("run: echo hello")
    assert result["result"] == "Done."
    (log,) = home.logs()
    kinds = {line["type"] for line in _lines(log)}
    assert {"attachment", "api-request", "api-request-shape", "last-prompt", "cost-state"} <= kinds
    checked = run(["check", "--force", str(log)], expect=0)
    assert "warning" not in checked.said
    assert "No findings in 1 file." in checked.said


def test_killed_while_a_tool_runs(home: ClaudeCodeHome) -> None:
    """Killed mid-tool, the log ends on the call. The client answers it itself on resume (its
    own words, not what `fix` writes); after `fix` it sends the one result `fix` wrote, accepted,
    and writes no second one."""
    session = home.killed_mid_tool(LONG_COMMAND)
    log = home.log(session)
    broken = log.read_bytes()
    (call,) = [
        b for line in _lines(log) if line["type"] == "assistant" for b in line["message"]["content"]
    ]
    assert call["type"] == "tool_use"

    _, requests = home.claude("go on", resume=session)
    before = _sent(requests)
    assert before.refused is None
    ((told,),) = _results(before).values()
    assert told.startswith(CLIENT_OWN_RESULT)

    log.write_bytes(broken)
    after = _resumed_after_fix(home, session, "go on")
    assert [b["id"] for b in after.blocks("tool_use")] == [call["id"]]
    assert _results(after) == {call["id"]: [text(TP002_TEXT, "Bash", call["id"])]}


def test_a_result_removed_from_the_middle(home: ClaudeCodeHome) -> None:
    """A call whose result line is gone, followed by more turns (a hand-edited log: the lines
    that hung off the result now hang off the call). The client leaves the call out of what it
    sends, so the model is never told it ran; after `fix` it is told of the call and of its
    unknown outcome, once, and the request is accepted."""
    result, _ = home.claude("run: echo hi")
    session = str(result["session_id"])
    home.claude("hello", resume=session)
    log = home.log(session)
    kept: list[str] = []
    removed: dict[str, Any] | None = None
    for raw in log.read_text().splitlines():
        line = json.loads(raw)
        content = line.get("message", {}).get("content")
        if removed is None and line["type"] == "user" and isinstance(content, list):
            removed = line
            continue
        if removed is not None and line.get("parentUuid") == removed["uuid"]:
            raw = json.dumps({**line, "parentUuid": removed["parentUuid"]})
        kept.append(raw + "\n")
    assert removed is not None
    (call_id,) = [b["tool_use_id"] for b in removed["message"]["content"]]
    log.write_text("".join(kept))
    broken = log.read_bytes()

    _resumed_without_the_call(home, session, "again")
    log.write_bytes(broken)
    after = _resumed_after_fix(home, session, "again")
    assert [b["id"] for b in after.blocks("tool_use")] == [call_id]
    assert _results(after) == {call_id: [text(TP001_TEXT, "Bash", call_id)]}


def test_the_fake_refuses_as_the_api_does(home: ClaudeCodeHome) -> None:
    """What the fake answers a history the API refuses: a 400 ``invalid_request_error`` with the
    API's own text (an unanswered call; a result sent twice)."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}
    histories = {
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1.": [{"role": "assistant", "content": [call]}, {"role": "user", "content": "hi"}],
        "each tool_use must have a single result. Found multiple tool_result blocks with id: "
        "toolu_1": [
            {"role": "assistant", "content": [call]},
            {"role": "user", "content": [result, result]},
        ],
    }
    for error, messages in histories.items():
        body = json.dumps(
            {
                "model": "m",
                "max_tokens": 1,
                "messages": [{"role": "user", "content": "go"}, *messages],
            }
        )
        request = urllib.request.Request(
            f"{home.fake.url}/v1/messages", body.encode(), method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 400
        answer = json.loads(refused.value.read())
        assert answer["error"]["type"] == "invalid_request_error"
        assert answer["error"]["message"].startswith(error)


def test_a_result_line_split_by_a_raw_line_break(home: ClaudeCodeHome) -> None:
    """A result line split in two by a raw line break inside its output (TP201). The client
    reads neither half and leaves the call out of what it sends; after `fix` the line is whole
    again and the model is told the tool's real output, with no result made up."""
    result, _ = home.claude("run: printf 'one two'")
    session = str(result["session_id"])
    log = home.log(session)
    whole = log.read_bytes()
    assert whole.count(b'"content":"one two"') == 1
    broken = whole.replace(b'"content":"one two"', b'"content":"one\ntwo"')
    log.write_bytes(broken)

    _resumed_without_the_call(home, session, "again")
    log.write_bytes(broken)
    after = _resumed_after_fix(home, session, "again")
    (call,) = after.blocks("tool_use")
    assert _results(after) == {call["id"]: ["one\ntwo"]}


def _torn_last_line(log: bytes) -> bytes:
    """The log with its last line cut in the middle (no line break after it)."""
    *lines, last, end = log.split(b"\n")
    assert end == b""
    return b"\n".join([*lines, last[: len(last) // 2]])


def _synthetic_error(log: bytes) -> bytes:
    """The log with an API error Claude Code writes for a failed request at its end: an
    assistant line of model ``<synthetic>`` (its last assistant line's keys, a new uuid)."""
    last = [json.loads(line) for line in log.splitlines() if b'"type":"assistant"' in line][-1]
    message = {
        "id": "f1e2d3c4-0000-4000-8000-000000000001",
        "model": "<synthetic>",
        "role": "assistant",
        "stop_reason": "stop_sequence",
        "stop_sequence": "",
        "type": "message",
        "usage": {"input_tokens": 0, "output_tokens": 0},
        "content": [{"type": "text", "text": "API Error: Connection error."}],
    }
    line = {
        **last,
        "parentUuid": last["uuid"],
        "uuid": "11111111-2222-4333-8444-555555555555",
        "message": message,
        "isApiErrorMessage": True,
    }
    return log + json.dumps(line, separators=(",", ":")).encode() + b"\n"


#: What an agent's crash or a failed request leaves at the end of a log (docs/cli.md#torn-lines).
TORN_ENDS = {
    "a torn last line": _torn_last_line,
    "NUL bytes at the end": lambda log: log + b"\x00" * 300,
    "a trailing <synthetic> API error": _synthetic_error,
}


@pytest.mark.parametrize("torn", TORN_ENDS)
def test_what_a_crash_leaves_at_the_end_does_not_stop_a_resume(
    home: ClaudeCodeHome, torn: str
) -> None:
    """Measured: Claude Code 2.1.332 resumes each, before and after `fix`, and tells the model
    the session's call and result as they were (its `<synthetic>` lines it never sends); `fix`
    keeps every byte of the log (it has no call to answer) and reports what it keeps."""
    result, _ = home.claude("run: echo hi")
    session = str(result["session_id"])
    log = home.log(session)
    broken = TORN_ENDS[torn](log.read_bytes())
    for fixed in (False, True):
        log.write_bytes(broken)
        if fixed:
            run(["fix", "--force", str(log)], expect=0)
            assert log.read_bytes() == broken
        result, requests = home.claude("again", resume=session)
        sent = _sent(requests)
        assert sent.refused is None and result["is_error"] is False
        (call,) = sent.blocks("tool_use")
        assert _results(sent) == {call["id"]: ["hi"]}
        assert "API Error" not in json.dumps(sent.messages), "a <synthetic> line is never sent"
