"""Codex CLI resumes the rollouts ``fix`` repaired (docs/formats.md#codex-cli-resumes-the-repair).

The real client (``@openai/codex``, pinned in tests/clients/codex) runs offline against a fake
OpenAI Responses upstream on 127.0.0.1 that refuses a ``function_call`` without its
``function_call_output`` (and an output without its call), as the API does. Codex writes a
session itself (one ``exec_command`` call, which appends a line to a file: its runs are
counted), the rollout is broken as a killed Codex leaves it, and ``codex exec resume`` goes on:

* mid-tool: the rollout ends on the call;
* in the middle: the call's output is lost and the conversation went on after it.

Codex 0.171 fills a missing output itself when it builds a request (``aborted``, without
writing it to the rollout), so the broken rollout resumes too: what the test pins is that the
repaired one resumes, that the model is then told toolpatch's output instead of that bare
word, that nothing runs again, and that the rollout Codex goes on writing checks clean.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.codex_client import CALL_ID, Codex, ResponsesHandler, broken, session_id, told
from tests.fake_upstream import Upstream, serving
from tests.helpers import TP001_TEXT, TP002_TEXT, run, text
from tests.proxy_process import running_proxy


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with serving(Upstream(ResponsesHandler, "/v1")) as server:
        yield server


@pytest.mark.parametrize(("where", "template"), [("mid-tool", TP002_TEXT), ("middle", TP001_TEXT)])
def test_codex_resumes_the_repaired_rollout(
    where: str, template: str, upstream: Upstream, tmp_path: Path
) -> None:
    codex = Codex(tmp_path, upstream.url)
    wrote = codex.exec("--dangerously-bypass-approvals-and-sandbox", "Run the command.")
    assert wrote.returncode == 0, wrote.stderr
    rollout = codex.rollout()
    if where == "middle":  # a second turn after the call's
        assert codex.exec("resume", session_id(rollout), "Thanks.").returncode == 0
    assert codex.runs() == 1
    lines = rollout.read_text().splitlines(keepends=True)
    rollout.write_text("".join(broken(lines, where)))

    code = "TP002" if where == "mid-tool" else "TP001"
    check = run(["check", str(rollout)], expect=1)
    assert f": {code} " in check.said
    assert f"(id {CALL_ID})" in check.said
    # The rollout was written moments ago: --force takes the session for ended.
    run(["fix", "--force", str(rollout)], expect=0)
    repaired = rollout.read_text()
    run(["check", str(rollout)], expect=0)

    before = len(upstream.requests)
    resumed = codex.exec("resume", session_id(rollout), "Did it work?")
    assert resumed.returncode == 0, resumed.stderr
    assert upstream.refused == []
    (request,) = upstream.requests[before:]
    assert told(request) == [text(template, "exec_command", CALL_ID)]
    assert codex.runs() == 1, "nothing ran again"
    assert rollout.read_text().startswith(repaired), "Codex appends to the repaired rollout"
    run(["check", str(rollout)], expect=0)


@pytest.mark.parametrize("route", ["straight", "through toolpatch proxy"])
def test_codex_fills_a_lost_output_with_a_bare_word_itself(
    route: str, upstream: Upstream, tmp_path: Path
) -> None:
    """Without the repair Codex resumes too, telling the model only ``aborted`` for the call
    (in its request; the rollout keeps the call unanswered for every other reader). Through
    `toolpatch proxy` (docs/proxy.md#codex-cli) the same: Codex runs, streams and resumes, and
    the request it builds reaches the proxy clean, so it goes on as it is and nothing is
    logged."""
    with ExitStack() as stack:
        base = upstream.url
        if route != "straight":
            root = base.removesuffix(upstream.root)
            proxy = stack.enter_context(running_proxy(root, "--isolated", cwd=tmp_path))
            base = f"{proxy.url}{upstream.root}"
        codex = Codex(tmp_path, base)
        assert codex.exec("--dangerously-bypass-approvals-and-sandbox", "Run it.").returncode == 0
        rollout = codex.rollout()
        assert codex.exec("resume", session_id(rollout), "Thanks.").returncode == 0
        rollout.write_text("".join(broken(rollout.read_text().splitlines(keepends=True), "middle")))
        before = len(upstream.requests)
        resumed = codex.exec("resume", session_id(rollout), "Did it work?")
        assert resumed.returncode == 0, resumed.stderr
        (request,) = upstream.requests[before:]
        assert told(request) == ["aborted"]
        assert upstream.refused == [] and codex.runs() == 1
        if route != "straight":
            assert proxy.stderr.count("\n") == 1, f"nothing was logged: {proxy.stderr}"
    run(["check", str(rollout)], expect=1)
