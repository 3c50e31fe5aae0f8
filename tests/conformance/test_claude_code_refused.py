"""Which of its own sessions the real Claude Code sends in a shape the API refuses
(docs/proxy.md#what-claude-code-sends-of-a-broken-session).

Claude Code 2.1.332 (pinned in ``tests/clients/claude-code``) resumes a session log of its own
format with ``claude -p --resume ID``, offline against the fake Messages API of
`tests.fake_anthropic`, which refuses what the API refuses and keeps every request with its
refusal. Each shape is one users report breaking a session (an interrupted tool, parallel calls,
a prompt or hook output between a call and its result, a compaction, a rewind, a lost or torn
line, ...), written as the client writes its lines (`tests.claude_code_sessions`) or broken from a
session the client wrote itself.

Most shapes the client mends before it sends them (`MENDED`: the test pins what it sent, so a
client that stops mending one shows up). Four kinds reach the API as they are and are refused;
for each, the test resumes the session straight, then through ``toolpatch proxy`` (with the
rules its repair needs), and after ``toolpatch fix`` on the log (with the same rules), which
the client then resumes without the proxy.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.claude_code_client import ClaudeCodeHome
from tests.claude_code_sessions import SessionLog, call, text
from tests.fake_anthropic import FakeAnthropic, Request, fake_anthropic
from tests.helpers import run
from tests.proxy_process import running_proxy

#: The fake's error for a web search result whose call is not in its message.
SERVER_ORPHAN = "unexpected `tool_use_id` found in `web_search_tool_result` blocks: {id}."
#: The fake's error for a message that answers calls with text before its results.
NOT_FIRST = "Did not find 1 `tool_result` block(s) at the beginning of this message."


@pytest.fixture
def home(tmp_path: Path) -> Iterator[ClaudeCodeHome]:
    with fake_anthropic() as fake:
        yield ClaudeCodeHome(tmp_path / "home", fake)


def _sent(requests: list[Request]) -> list[Request]:
    """The requests of the agent's loop (the client's other requests carry no ``tools``)."""
    return [r for r in requests if r.body.get("tools")]


def _tool_blocks(request: Request) -> list[str]:
    """The calls and results the request tells the model, one string a message that holds any
    (``use ID``, ``result ID``, ``server ID``, ``web_search_tool_result ID``)."""
    found = []
    for message in request.messages:
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        named = [
            f"use {b['id']}"
            if b["type"] == "tool_use"
            else f"result {b['tool_use_id']}"
            if b["type"] == "tool_result"
            else f"server {b['id']}"
            if b["type"] == "server_tool_use"
            else f"{b['type']} {b['tool_use_id']}"
            for b in blocks
            if b["type"] in {"tool_use", "tool_result", "server_tool_use"}
            or b["type"].endswith("_tool_result")
        ]
        if named:
            found.append(" ".join(named))
    return found


# --- The shapes Claude Code 2.1.332 mends itself -------------------------------------------------

OPENING = ["use toolu_01A", "result toolu_01A"]


def _opening(log: SessionLog) -> None:
    """A prompt, a call, its result and the answer: what every shape goes on from."""
    log.user("run: echo hi")
    line = log.assistant([call("toolu_01A")])
    log.result("toolu_01A", "hi", call_line=line)
    log.assistant([text("Done.")])


def _parallel(log: SessionLog, *, results: str) -> None:
    """Two calls of one response (one line each, as the client writes them) and their results:
    ``chained`` one after the other, ``each-off-its-call``, ``interleaved`` (the first result
    before the response's second call), or ``second-lost``."""
    log.user("run both")
    first = log.assistant([call("toolu_P1")], message_id="msg_parallel")
    if results == "interleaved":
        log.result("toolu_P1", "one", call_line=first)
    second = log.assistant([call("toolu_P2")], message_id="msg_parallel")
    if results == "chained":
        log.result("toolu_P1", "one", call_line=first)
        log.result("toolu_P2", "two", call_line=second)
    elif results == "each-off-its-call":
        log.result("toolu_P1", "one", call_line=first, parent=first)
        log.result("toolu_P2", "two", call_line=second, parent=second)
    elif results == "interleaved":
        log.result("toolu_P2", "two", call_line=second)
    else:
        log.result("toolu_P1", "one", call_line=first)
    log.assistant([text("Done.")])


def _between(log: SessionLog, line: Callable[[SessionLog], object]) -> None:
    """A call, then ``line`` written before its result (the tool ran meanwhile)."""
    log.user("run: echo x")
    call_line = log.assistant([call("toolu_B1")])
    line(log)
    log.result("toolu_B1", "x", call_line=call_line)
    log.assistant([text("Done.")])


def _compaction(log: SessionLog, summary: str) -> None:
    """A compaction boundary (a root, as the client writes one) and its summary."""
    before = log.leaf
    log.line(
        "system",
        parent=None,
        subtype="compact_boundary",
        content="Conversation compacted",
        level="info",
        logicalParentUuid=before,
        compactMetadata={"trigger": "auto", "preTokens": 150000},
    )
    log.user(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)


def _result_after_compaction(log: SessionLog) -> None:
    log.user("run: echo x")
    call_line = log.assistant([call("toolu_C1")])
    _compaction(log, "This session is being continued from a previous conversation.")
    log.result("toolu_C1", "x", call_line=call_line)
    log.assistant([text("Done.")])


def _call_after_compaction(log: SessionLog) -> None:
    _compaction(log, "This session is being continued from a previous conversation.")
    log.user("run: echo x")
    log.assistant([call("toolu_C2")])
    log.assistant([text("Done.")])


def _orphan_result(log: SessionLog) -> None:
    log.user("go on")
    log.result("toolu_GONE", "x", call_line="0c1d2e3f-0000-4000-8000-000000000000")
    log.assistant([text("Done.")])


def _rewound_to_the_call(log: SessionLog) -> None:
    """/rewind to a call: its result and answer stay on one branch, a new prompt hangs off the
    call line on another, which the leaf ends."""
    log.user("run: echo x")
    call_line = log.assistant([call("toolu_R1")])
    log.result("toolu_R1", "x", call_line=call_line)
    log.assistant([text("Done.")])
    log.user("do something else", parent=call_line)
    log.assistant([text("OK.")])


def _result_off_the_prompt(log: SessionLog) -> None:
    """A result that hangs off the prompt, not the call (the chain skips the call)."""
    prompt = log.user("run: echo x")
    call_line = log.assistant([call("toolu_R1")])
    log.result("toolu_R1", "x", call_line=call_line, parent=prompt)
    log.assistant([text("Done.")])


def _interrupted_for_tool_use(log: SessionLog) -> None:
    """Escape while a tool runs (older clients wrote no result), then a new prompt."""
    log.user("run: echo x")
    log.assistant([call("toolu_I1")])
    log.user([text("[Request interrupted by user for tool use]")])
    log.user("actually do z")
    log.assistant([text("OK.")])


def _another_response_between(log: SessionLog) -> None:
    """A text of another response id between a call and its result (a retried stream)."""
    log.user("run: echo x")
    call_line = log.assistant([call("toolu_K1")], message_id="msg_first")
    log.assistant([text("Running it.")], message_id="msg_second")
    log.result("toolu_K1", "x", call_line=call_line)
    log.assistant([text("Done.")])


def _call_streamed_twice(log: SessionLog) -> None:
    """A response cut after its call and sent again: the call's id in two responses."""
    log.user("run: echo x")
    log.assistant([text("Let me")], message_id="msg_first")
    log.assistant([call("toolu_K1")], message_id="msg_first")
    call_line = log.assistant([call("toolu_K1")], message_id="msg_second")
    log.result("toolu_K1", "x", call_line=call_line)
    log.assistant([text("Done.")])


def _thinking(log: SessionLog) -> None:
    """Thinking blocks before each call, one line each."""
    log.user("run: echo x")
    for number, call_id in enumerate(["toolu_T1", "toolu_T2"]):
        thought = {"type": "thinking", "thinking": "hm", "signature": f"sig{number}"}
        log.assistant([thought], message_id=f"msg_think{number}")
        call_line = log.assistant([call(call_id)], message_id=f"msg_think{number}")
        log.result(call_id, "x", call_line=call_line)
    log.assistant([text("Done.")])


def _sidechain_call(log: SessionLog) -> None:
    """A subagent's call, unanswered, on a sidechain line of the main log."""
    log.assistant([call("toolu_S1")], isSidechain=True, agentId="a1", chain=False)


def _api_error_after_call(log: SessionLog) -> None:
    """A call, the ``<synthetic>`` API error the client writes when its request failed, then a
    new prompt."""
    log.user("run: echo x")
    log.assistant([call("toolu_E1")])
    error = log.assistant([text("API Error: Connection error.")], isApiErrorMessage=True)
    (line,) = [line for line in log.lines if line["uuid"] == error]
    line["message"]["model"] = "<synthetic>"
    log.user("hello again")
    log.assistant([text("OK.")])


def _server_call_result_lost(log: SessionLog) -> None:
    """A web search the API ran, whose result line (and the rest of the response) is gone."""
    log.user("search: x")
    search = {"type": "server_tool_use", "id": "srvtoolu_01S", "name": "web_search", "input": {}}
    log.assistant([search], message_id="msg_search")


def _advisor_result_alone(log: SessionLog) -> None:
    """An advisor result whose ``server_tool_use`` line is gone (what users report after a
    compaction)."""
    log.user("ask the advisor")
    advice = {"type": "advisor_result", "text": "advice"}
    result = {"type": "advisor_tool_result", "tool_use_id": "srvtoolu_01A", "content": advice}
    log.assistant([result], message_id="msg_advisor")
    log.assistant([text("Done.")], message_id="msg_advisor")


def _result_twice_in_its_line(log: SessionLog) -> None:
    log.user("run: echo x")
    call_line = log.assistant([call("toolu_D1")])
    result = {"tool_use_id": "toolu_D1", "type": "tool_result", "content": "x", "is_error": False}
    log.user([result, dict(result)], sourceToolAssistantUUID=call_line)
    log.assistant([text("Done.")])


def _call_without_id(log: SessionLog) -> None:
    log.user("run: echo x")
    nameless = call("")
    del nameless["id"]
    log.assistant([nameless])
    log.user("hello again")


def _meta(log: SessionLog) -> object:
    return log.user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)


def _queued_prompt(log: SessionLog) -> object:
    return log.line(
        "attachment",
        attachment={"type": "queued_command", "prompt": "and then y"},
        rendered=[{"content": "and then y"}],
        renderedRole="user",
    )


def _hook_context(log: SessionLog) -> object:
    return log.line(
        "attachment",
        attachment={"type": "hook_additional_context", "content": ["lint ok"]},
        rendered=[{"content": "<system-reminder>PostToolUse:Bash: lint ok</system-reminder>"}],
        renderedRole="user",
    )


def _hook_notice(log: SessionLog) -> object:
    return log.line("system", subtype="informational", content="PreToolUse:Bash ran", level="info")


def _hook_progress(log: SessionLog) -> object:
    progress = {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Bash"}
    return log.line("progress", data=progress, toolUseID="toolu_B1", parentToolUseID="toolu_B1")


BETWEEN = ["use toolu_B1", "result toolu_B1"]
#: Shape → how it is written after the opening, and the calls and results Claude Code 2.1.332
#: sends of it (every request accepted).
MENDED: dict[str, tuple[Callable[[SessionLog], object], list[str]]] = {
    "parallel calls, results chained": (
        lambda log: _parallel(log, results="chained"),
        [*OPENING, "use toolu_P1 use toolu_P2", "result toolu_P1 result toolu_P2"],
    ),
    "parallel calls, each result off its own call": (
        lambda log: _parallel(log, results="each-off-its-call"),
        [*OPENING, "use toolu_P1 use toolu_P2", "result toolu_P1 result toolu_P2"],
    ),
    "parallel calls, a result before the second call": (
        lambda log: _parallel(log, results="interleaved"),
        [*OPENING, "use toolu_P1 use toolu_P2", "result toolu_P1 result toolu_P2"],
    ),
    "parallel calls, the second result lost": (
        lambda log: _parallel(log, results="second-lost"),
        [*OPENING, "use toolu_P1", "result toolu_P1"],
    ),
    "a prompt between a call and its result": (
        lambda log: _between(log, lambda log: log.user("also check y")),
        [*OPENING, *BETWEEN],
    ),
    "an isMeta line between a call and its result": (
        lambda log: _between(log, _meta),
        [*OPENING, *BETWEEN],
    ),
    "a queued prompt's attachment between a call and its result": (
        lambda log: _between(log, _queued_prompt),
        [*OPENING, *BETWEEN],
    ),
    "a hook's attachment between a call and its result": (
        lambda log: _between(log, _hook_context),
        [*OPENING, *BETWEEN],
    ),
    "a hook's system line between a call and its result": (
        lambda log: _between(log, _hook_notice),
        [*OPENING, *BETWEEN],
    ),
    "a hook's progress line between a call and its result": (
        lambda log: _between(log, _hook_progress),
        [*OPENING, *BETWEEN],
    ),
    "interrupted for tool use, no result": (_interrupted_for_tool_use, OPENING),
    "a result after a compaction boundary": (_result_after_compaction, []),
    "an unanswered call after a compaction boundary": (_call_after_compaction, []),
    "a result whose call is not in the log": (_orphan_result, OPENING),
    "rewound to a call, a new prompt off it": (
        _rewound_to_the_call,
        [*OPENING, "use toolu_R1", "result toolu_R1"],
    ),
    "a result hanging off the prompt, not the call": (_result_off_the_prompt, OPENING),
    "another response's text between a call and its result": (
        _another_response_between,
        [*OPENING, "use toolu_K1", "result toolu_K1"],
    ),
    "a call streamed twice, in two responses": (
        _call_streamed_twice,
        [*OPENING, "use toolu_K1", "result toolu_K1"],
    ),
    "thinking blocks before each call": (
        _thinking,
        [*OPENING, "use toolu_T1", "result toolu_T1", "use toolu_T2", "result toolu_T2"],
    ),
    "a subagent's unanswered call on a sidechain line": (_sidechain_call, OPENING),
    "a call, then a <synthetic> API error, then a prompt": (_api_error_after_call, OPENING),
    "a web search whose result line is lost": (_server_call_result_lost, OPENING),
    "an advisor result whose call line is lost": (_advisor_result_alone, OPENING),
    "a result twice in its line": (
        _result_twice_in_its_line,
        [*OPENING, "use toolu_D1", "result toolu_D1"],
    ),
    "a call without an id": (_call_without_id, OPENING),
}


@pytest.mark.parametrize("shape", MENDED)
def test_what_claude_code_mends_itself(home: ClaudeCodeHome, shape: str) -> None:
    """Resumed without the proxy, the session's request is accepted: the client left out,
    answered, merged or moved what the API would refuse. The calls and results it sent are
    pinned (docs/proxy.md keeps the table)."""
    write, expected = MENDED[shape]
    log = SessionLog(home)
    _opening(log)
    write(log)
    log.write()
    result, requests = home.claude("hello", resume=log.session)
    (sent,) = _sent(requests)
    assert sent.refused is None and result["is_error"] is False
    assert _tool_blocks(sent) == expected


# --- The shapes it sends as they are -------------------------------------------------------------


def _resume(home: ClaudeCodeHome, session: str, through: str | None = None) -> Request:
    """Resume ``session`` with a new prompt, straight or through the proxy at ``through``: the
    first request of the agent's loop the fake got (a refused one is retried alike)."""
    client = home
    if through is not None:
        client = ClaudeCodeHome(home.root, FakeAnthropic(through, home.fake.requests))
    _, requests = client.claude("hello", resume=session)
    return _sent(requests)[0]


def _proxied(home: ClaudeCodeHome, session: str, *options: str) -> tuple[Request, str]:
    """Resume ``session`` through ``toolpatch proxy OPTIONS`` in front of the fake: the request
    the fake got and the proxy's log."""
    with running_proxy(home.fake.url, "--isolated", *options, cwd=home.root) as proxy:
        request = _resume(home, session, proxy.url)
    return request, proxy.stderr


def _fixed_like_the_proxy(refused: Request, tmp_path: Path, *options: str) -> list[Any]:
    """The messages of the refused request after ``toolpatch fix OPTIONS``: what the proxy, with
    the same options, must have sent instead."""
    body = tmp_path / "request.json"
    body.write_text(json.dumps(refused.body))
    run(["fix", "--isolated", *options, str(body)], expect=0)
    return list(json.loads(body.read_text())["messages"])


def _searched(home: ClaudeCodeHome) -> tuple[str, Path]:
    """A session Claude Code writes itself around a web search the API ran (the fake's
    ``search:`` prompt): its id and log. The response's three blocks are three lines."""
    result, _ = home.claude("search: toolpatch")
    session = str(result["session_id"])
    log = home.log(session)
    kinds = [
        line["message"]["content"][0]["type"]
        for line in map(json.loads, log.read_text().splitlines())
        if line["type"] == "assistant"
    ]
    assert kinds == ["server_tool_use", "web_search_tool_result", "text"]
    return session, log


def _search_call(request: Request) -> str:
    (result,) = request.blocks("web_search_tool_result")
    return str(result["tool_use_id"])


def test_a_torn_server_tool_call_line(home: ClaudeCodeHome, tmp_path: Path) -> None:
    """The line of a web search's ``server_tool_use`` split by a raw line break in its query
    (TP201): the client skips the torn line but keeps the result's, and sends a result whose
    call is gone, refused every time. The proxy repairs the request with TP101's unsafe fix
    (the result is dropped from the request, not from the log); by default it reports the
    result and forwards it unchanged. `fix` joins the line (the break kept as ``\\n`` in the
    string): the session then resumes without the proxy, and the model is told the search and its
    result."""
    session, log = _searched(home)
    whole = log.read_bytes()
    broken = whole.replace(b'"query":"toolpatch"', b'"query":"tool\npatch"')
    assert broken != whole
    log.write_bytes(broken)

    refused = _resume(home, session)
    call_id = _search_call(refused)
    assert refused.refused is not None
    assert refused.refused.startswith(SERVER_ORPHAN.format(id=call_id))
    assert refused.blocks("server_tool_use") == []

    log.write_bytes(broken)  # each resume writes its prompt: every one sends the same history
    unchanged, said = _proxied(home, session)
    assert unchanged.refused is not None and "forwarded unchanged" in said

    options = ("--select", "TP101", "--unsafe-fixes")
    log.write_bytes(broken)
    repaired, said = _proxied(home, session, *options)
    assert repaired.refused is None
    assert "repaired (1 TP101)" in said
    assert repaired.messages == _fixed_like_the_proxy(refused, tmp_path, *options)
    assert repaired.blocks("web_search_tool_result") == []
    log.write_bytes(broken)
    run(["fix", "--force", str(log)], expect=0)
    assert log.read_bytes() == whole.replace(b'"query":"toolpatch"', b'"query":"tool\\npatch"')
    after = _resume(home, session)
    assert after.refused is None
    assert [b["id"] for b in after.blocks("server_tool_use")] == [call_id]
    assert _search_call(after) == call_id


def test_a_server_tool_call_line_cut_short(home: ClaudeCodeHome, tmp_path: Path) -> None:
    """The line of a web search's ``server_tool_use`` cut short, as a crash leaves it: not
    JSON, and not a line a raw break split (no TP201 joins it). The client skips it and sends
    the result, refused every time. `fix`, even with ``--unsafe-fixes``, keeps the result (its
    call may be in the cut line: docs/formats.md#claude-code) and says why, so the resumed
    session is still refused as before, and nothing in the log is lost. The proxy, which sees
    only the request the client built, drops the orphan there with TP101's unsafe fix, and the
    upstream accepts it."""
    session, log = _searched(home)
    lines = log.read_bytes().split(b"\n")
    (at,) = [k for k, line in enumerate(lines) if b'"type":"server_tool_use"' in line]
    lines[at] = lines[at][: lines[at].index(b'"type":"server_tool_use"')]
    broken = b"\n".join(lines)
    log.write_bytes(broken)

    refused = _resume(home, session)
    call_id = _search_call(refused)
    assert refused.refused is not None
    assert refused.refused.startswith(SERVER_ORPHAN.format(id=call_id))

    log.write_bytes(broken)
    kept = run(["fix", "--force", "--select", "ALL", "--unsafe-fixes", str(log)], expect=1)
    assert f"line {at + 1} before it is not JSON and may hold its call" in kept.said
    assert log.read_bytes() == broken
    again = _resume(home, session)
    assert again.refused is not None and _search_call(again) == call_id

    options = ("--select", "TP101", "--unsafe-fixes")
    log.write_bytes(broken)
    repaired, said = _proxied(home, session, *options)
    assert repaired.refused is None
    assert "repaired (1 TP101)" in said
    assert repaired.blocks("web_search_tool_result") == []


def test_a_lost_server_tool_call_line(home: ClaudeCodeHome, tmp_path: Path) -> None:
    """The ``server_tool_use`` line of a web search gone (the result's line re-pointed to its
    parent, as a hand edit or a lost write leaves it): refused as above. The proxy repairs the
    request with TP101's unsafe fix. By default `fix` reports the result in the log and leaves
    it there (the search's results are kept); with the same options it drops the result's line
    and hangs the response's text off the prompt: the session then resumes without the proxy,
    the model told the response's text and no search."""
    session, log = _searched(home)
    lines = [json.loads(raw) for raw in log.read_text().splitlines()]
    (gone,) = [
        line
        for line in lines
        if line["type"] == "assistant"
        and line["message"]["content"][0]["type"] == "server_tool_use"
    ]
    kept = []
    for line in lines:
        if line is gone:
            continue
        if line.get("parentUuid") == gone["uuid"]:
            line = {**line, "parentUuid": gone["parentUuid"]}
        kept.append(json.dumps(line, separators=(",", ":")) + "\n")
    log.write_text("".join(kept))
    broken = log.read_bytes()

    refused = _resume(home, session)
    assert refused.refused is not None
    assert refused.refused.startswith(SERVER_ORPHAN.format(id=_search_call(refused)))

    options = ("--select", "TP101", "--unsafe-fixes")
    log.write_bytes(broken)
    repaired, said = _proxied(home, session, *options)
    assert repaired.refused is None and "repaired (1 TP101)" in said
    assert repaired.messages == _fixed_like_the_proxy(refused, tmp_path, *options)

    log.write_bytes(broken)
    reported = run(["fix", "--force", "--select", "TP101", str(log)], expect=1)
    assert "TP101" in reported.said
    assert log.read_bytes() == broken
    assert _resume(home, session).refused is not None

    log.write_bytes(broken)
    run(["fix", "--force", *options, str(log)], expect=0)
    fixed = [json.loads(raw) for raw in log.read_text().splitlines()]
    assert [line for line in fixed if "web_search_tool_result" in json.dumps(line)] == []
    assert len(fixed) == len(kept) - 1  # that line only, every other line kept
    after = _resume(home, session)
    assert after.refused is None
    assert after.blocks("web_search_tool_result") == after.blocks("server_tool_use") == []
    assert {"type": "text", "text": "Found."} in after.blocks("text")


def test_text_before_a_result_in_its_line(home: ClaudeCodeHome, tmp_path: Path) -> None:
    """A result line whose content holds a text block before the ``tool_result`` (TP106; a
    result line the client split into blocks of a user turn it moves first, but one line's
    blocks it sends in their order): refused. The proxy with TP106's unsafe fix moves the result
    first and the request is accepted. `fix` with the same options moves it first in its line:
    the session then resumes without the proxy, the model told the result and the text."""
    result, _ = home.claude("run: echo hi")
    session = str(result["session_id"])
    log = home.log(session)
    lines = log.read_text().splitlines()
    (index,) = [i for i, raw in enumerate(lines) if '"type":"tool_result"' in raw]
    line = json.loads(lines[index])
    line["message"]["content"].insert(0, text("(the hook let it run)"))
    lines[index] = json.dumps(line, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    broken = log.read_bytes()

    refused = _resume(home, session)
    assert refused.refused is not None and NOT_FIRST in refused.refused

    options = ("--select", "TP106", "--unsafe-fixes")
    log.write_bytes(broken)
    repaired, said = _proxied(home, session, *options)
    assert repaired.refused is None and "repaired (1 TP106)" in said
    assert repaired.messages == _fixed_like_the_proxy(refused, tmp_path, *options)

    log.write_bytes(broken)
    run(["fix", "--force", *options, str(log)], expect=0)
    moved = [*line["message"]["content"][1:], line["message"]["content"][0]]
    line["message"]["content"] = moved
    assert log.read_text().splitlines() == [
        *lines[:index],
        json.dumps(line, separators=(",", ":")),
        *lines[index + 1 :],
    ]
    after = _resume(home, session)
    assert after.refused is None
    (answered,) = [m for m in after.messages if "tool_result" in json.dumps(m)]
    assert [b["type"] for b in answered["content"]][:2] == ["tool_result", "text"]
    assert text("(the hook let it run)") in answered["content"]


def test_a_dropped_result_line_the_leaf_names(home: ClaudeCodeHome) -> None:
    """The search's response cut after its result (its text line, and what hung off it, gone),
    the ``server_tool_use`` line lost too, and ``last-prompt``'s ``leafUuid`` naming the result
    line: TP101's fix drops that line and leaves the ``leafUuid`` naming nothing. Claude Code
    resumes from the chain's last line, the prompt before the search sent, and is accepted."""
    session, log = _searched(home)
    lines = [json.loads(raw) for raw in log.read_text().splitlines()]
    assistant = [line for line in lines if line["type"] == "assistant"]
    call, result, words = assistant
    after_words = {line["uuid"] for line in lines if line.get("parentUuid") == words["uuid"]}
    kept = []
    for line in lines:
        if line is call or line is words or line.get("uuid") in after_words:
            continue
        if line.get("parentUuid") == call["uuid"]:
            line = {**line, "parentUuid": call["parentUuid"]}
        if "leafUuid" in line:
            line = {**line, "leafUuid": result["uuid"]}
        kept.append(json.dumps(line, separators=(",", ":")) + "\n")
    log.write_text("".join(kept))
    assert _resume(home, session).refused is not None

    log.write_text("".join(kept))
    run(["fix", "--force", "--select", "TP101", "--unsafe-fixes", str(log)], expect=0)
    assert result["uuid"] not in log.read_text().replace(f'"leafUuid":"{result["uuid"]}"', "")
    after = _resume(home, session)
    assert after.refused is None
    assert after.blocks("web_search_tool_result") == []
    assert {"type": "text", "text": "search: toolpatch"} in after.blocks("text")


#: The fake's error for an error result with empty content (docs/rules.md, TP307).
EMPTY_ERROR = "content cannot be empty if `is_error` is true"


def test_an_error_result_with_empty_content(home: ClaudeCodeHome, tmp_path: Path) -> None:
    """A result line of a tool that failed without output: ``is_error: true`` and ``content:
    ""`` (TP307): the client sends it as the log holds it, refused on every resume. The proxy
    with ``--target anthropic`` fills the content with TP307's safe fix and the request is
    accepted; `fix --target anthropic` writes the same text into the line, and the session then
    resumes without the proxy, the model told that the tool failed and returned no output."""
    result, _ = home.claude("run: echo hi")
    session = str(result["session_id"])
    log = home.log(session)
    lines = log.read_text().splitlines()
    (index,) = [i for i, raw in enumerate(lines) if '"type":"tool_result"' in raw]
    line = json.loads(lines[index])
    (block,) = line["message"]["content"]
    block.update(content="", is_error=True)
    lines[index] = json.dumps(line, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    broken = log.read_bytes()

    refused = _resume(home, session)
    assert refused.refused is not None and EMPTY_ERROR in refused.refused

    log.write_bytes(broken)
    repaired, said = _proxied(home, session, "--target", "anthropic")
    assert repaired.refused is None and "repaired (1 TP307)" in said
    assert repaired.messages == _fixed_like_the_proxy(refused, tmp_path, "--target", "anthropic")

    log.write_bytes(broken)
    run(["fix", "--force", "--target", "anthropic", str(log)], expect=0)
    after = _resume(home, session)
    assert after.refused is None
    (answered,) = after.blocks("tool_result")
    assert answered["is_error"] is True
    assert answered["content"] == "The tool failed and returned no output."
