"""The real Claude Code through `toolpatch proxy` (docs/proxy.md#claude-code).

Claude Code 2.1.332 (pinned in ``tests/clients/claude-code``) runs offline with
``ANTHROPIC_BASE_URL`` at the proxy, which forwards to the fake Messages API of
`tests.fake_anthropic` (it refuses an unanswered or doubled result with the API's own 400). The
client's requests stream through (its answers are Server-Sent Events) and its session is
written as without the proxy.

Claude Code 2.1.332 mends most of what it reads back from its own log before it sends it (it
answers a call a killed run left open, leaves out one whose result line is gone, drops a doubled
result, puts a misplaced one back after its call: docs/proxy.md#claude-code); so did 1.0.72,
measured the same way. These tests pin that a resumed session it mended reaches the proxy clean
and goes on as it is; the shapes it sends refused, and the proxy's repair of them, are in
`tests/conformance/test_claude_code_refused.py`, and the repair itself is tested with the
providers' SDKs (`tests/conformance/test_proxy.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.claude_code_client import ClaudeCodeHome
from tests.fake_anthropic import FakeAnthropic, Request, fake_anthropic
from tests.helpers import run
from tests.proxy_process import RunningProxy, running_proxy

#: The dummy key `ClaudeCodeHome` gives the client.
KEY = "sk-ant-test-dummy"
LONG_COMMAND = "python3 -c 'import time; time.sleep(60)'"


@pytest.fixture
def through(tmp_path: Path) -> Iterator[tuple[ClaudeCodeHome, RunningProxy]]:
    """Claude Code's home with ``ANTHROPIC_BASE_URL`` at the proxy, in front of the fake (the
    home's requests are the fake's)."""
    with (
        fake_anthropic() as fake,
        running_proxy(fake.url, "--isolated", cwd=tmp_path) as proxy,
    ):
        yield ClaudeCodeHome(tmp_path / "home", FakeAnthropic(proxy.url, fake.requests)), proxy


def _sent(requests: list[Request]) -> Request:
    (request,) = [r for r in requests if r.body.get("tools")]
    return request


def test_a_session_runs_through_the_proxy(through: tuple[ClaudeCodeHome, RunningProxy]) -> None:
    """A prompt, a tool call Claude Code runs and its result, the final answer: every request
    streamed through and accepted, nothing to repair (no line logged), the session log as
    Claude Code writes it (check finds nothing), the key never printed."""
    home, proxy = through
    result, requests = home.claude("run: echo hi")
    assert result["result"] == "Done." and result["is_error"] is False
    assert requests and all(r.refused is None for r in requests)
    assert [b["content"] for b in requests[-1].blocks("tool_result")] == ["hi"]
    (log,) = home.logs()
    assert "No findings in 1 file." in run(["check", "--force", str(log)], expect=0).said
    assert proxy.stderr.count("\n") == 1, proxy.stderr
    assert KEY not in proxy.stdout + proxy.stderr


def test_a_resumed_session_it_mended_itself_reaches_the_proxy_clean(
    through: tuple[ClaudeCodeHome, RunningProxy],
) -> None:
    """Killed while its tool ran, the session ends on the call; resumed through the proxy,
    Claude Code answers the call itself before sending: the request is accepted and the proxy
    changes nothing."""
    home, proxy = through
    session = home.killed_mid_tool(LONG_COMMAND)
    result, requests = home.claude("go on", resume=session)
    sent = _sent(requests)
    assert sent.refused is None and result["is_error"] is False
    (call,) = sent.blocks("tool_use")
    (answer,) = sent.blocks("tool_result")
    assert answer["tool_use_id"] == call["id"]
    assert "repaired" not in proxy.stderr
