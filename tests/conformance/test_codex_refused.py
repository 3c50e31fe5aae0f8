"""Which of its rollouts Codex CLI sends in a shape the API refuses
(docs/proxy.md#codex-cli).

Codex 0.171 (pinned in tests/clients/codex) fills a missing output itself (``aborted``) and
leaves out an output whose call is gone (docs/formats.md#codex-cli-resumes-the-repair), but two
shapes of a rollout it sends as they are: an output line written twice (both outputs sent) and
an output line before its call's (sent in that order). The fake Responses upstream refuses each
as the API does (`tests.codex_client.refusal`); the test resumes the rollout straight, through
``toolpatch proxy`` with the options its repair needs, and after ``toolpatch fix`` with them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.codex_client import CALL_ID, Codex, ResponsesHandler, session_id
from tests.fake_upstream import Upstream, serving
from tests.helpers import run
from tests.proxy_process import running_proxy

OUTPUT = '"type":"function_call_output"'


def _doubled(lines: list[str]) -> list[str]:
    """The call's output line written twice."""
    return [twice for line in lines for twice in ([line] * (2 if OUTPUT in line else 1))]


def _before_its_call(lines: list[str]) -> list[str]:
    """The call's output line and the call's line swapped."""
    (call,) = [k for k, line in enumerate(lines) if '"type":"function_call"' in line]
    (output,) = [k for k, line in enumerate(lines) if OUTPUT in line]
    swapped = list(lines)
    swapped[call], swapped[output] = lines[output], lines[call]
    return swapped


#: Shape → how the rollout is broken, the API's refusal of what Codex sends, and the options
#: the proxy and `fix` need to repair it.
SHAPES: dict[str, tuple[Callable[[list[str]], list[str]], str, tuple[str, ...]]] = {
    "an output line written twice": (
        _doubled,
        "Duplicate item found with id",
        ("--unsafe-fixes",),
    ),
    "an output line before its call's": (
        _before_its_call,
        f"No tool call found for function call output with call_id {CALL_ID}.",
        ("--select", "TP0,TP101", "--unsafe-fixes"),
    ),
}


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with serving(Upstream(ResponsesHandler, "/v1")) as server:
        yield server


def _calls(request: dict[str, Any]) -> list[str]:
    """The request's calls and outputs of the session's call, in order."""
    return [
        str(item["type"])
        for item in request.get("input", [])
        if item.get("call_id") == CALL_ID
        and item.get("type") in {"function_call", "function_call_output"}
    ]


def _pointed(codex: Codex, base: str) -> None:
    """Point Codex's provider at ``base`` (the fake's ``/v1``, or the proxy's in front of it)."""
    config = codex.home / "config.toml"
    lines = config.read_text().splitlines(keepends=True)
    config.write_text(
        "".join(f'base_url = "{base}"\n' if line.startswith("base_url") else line for line in lines)
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_a_rollout_codex_sends_refused(upstream: Upstream, tmp_path: Path, shape: str) -> None:
    """Resumed straight, the request holds the rollout's shape and is refused (every retry
    alike). Through the proxy with the options of the shape the request is repaired as `fix`
    repairs it with them, and accepted, and nothing runs again. `fix` with the same options on
    the rollout: Codex then resumes it straight."""
    breaking, refusal, options = SHAPES[shape]
    codex = Codex(tmp_path, upstream.url)
    assert codex.exec("--dangerously-bypass-approvals-and-sandbox", "Run it.").returncode == 0
    rollout = codex.rollout()
    session = session_id(rollout)
    assert codex.exec("resume", session, "Thanks.").returncode == 0
    broken = "".join(breaking(rollout.read_text().splitlines(keepends=True)))

    def resume(base: str) -> tuple[dict[str, Any], list[str]]:
        """Resume the broken rollout with Codex pointed at ``base``: its first request and the
        refusals the fake gave meanwhile."""
        rollout.write_text(broken)
        _pointed(codex, base)
        requests, refused = len(upstream.requests), len(upstream.refused)
        codex.exec("resume", session, "Did it work?")
        return upstream.requests[requests], upstream.refused[refused:]

    request, refused = resume(upstream.url)
    assert refused and refused[0].startswith(refusal), refused
    body = tmp_path / "request.json"
    body.write_text(json.dumps(request))
    run(["fix", "--isolated", *options, str(body)], expect=0)

    root = upstream.url.removesuffix(upstream.root)
    with running_proxy(root, "--isolated", *options, cwd=tmp_path) as proxy:
        repaired, refused = resume(f"{proxy.url}{upstream.root}")
    assert refused == [] and "repaired" in proxy.stderr
    fixed = json.loads(body.read_text())["input"]
    # the same but for the new prompt's message, which gets a new id each run
    assert repaired["input"][:-1] == fixed[:-1]
    assert repaired["input"][-1]["content"] == fixed[-1]["content"]
    assert _calls(repaired) == ["function_call", "function_call_output"]
    assert codex.runs() == 1, "nothing ran again"

    rollout.write_text(broken)
    run(["fix", "--force", *options, str(rollout)], expect=0)
    _pointed(codex, upstream.url)
    requests, refusals = len(upstream.requests), len(upstream.refused)
    assert codex.exec("resume", session, "Did it work?").returncode == 0
    assert upstream.refused[refusals:] == []
    assert _calls(upstream.requests[requests]) == ["function_call", "function_call_output"]
