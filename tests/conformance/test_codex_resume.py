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

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_upstream import Handler, Upstream, serving
from tests.helpers import TP001_TEXT, TP002_TEXT, run, text
from tests.npm_clients import binary

#: The command the fake model asks Codex to run: each run appends one line.
COMMAND = "echo ran >> runs.txt"
CALL_ID = "call_fakeRunsTxt1"


def unpaired(items: list[Any]) -> str | None:
    """The API's refusal of an input whose calls and outputs do not pair, or ``None``."""
    calls = [i.get("call_id") for i in items if i.get("type") == "function_call"]
    outputs = [i.get("call_id") for i in items if i.get("type") == "function_call_output"]
    for call in calls:
        if call not in outputs:
            return f"No tool output found for function call {call}."
    for output in outputs:
        if output not in calls:
            return f"No tool call found for function call output with call_id {output}."
    return None


class _Handler(Handler):
    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def do_POST(self) -> None:
        body = self.request_body()
        items = [i for i in body.get("input", []) if isinstance(i, dict)]
        refusal = unpaired(items)
        if refusal is not None:
            self.refuse(
                refusal, {"message": refusal, "type": "invalid_request_error", "param": "input"}
            )
            return
        number = len(self.server.requests)
        if any(i.get("type") == "function_call" for i in items):
            content = [{"type": "output_text", "text": "Done.", "annotations": []}]
            item: dict[str, Any] = {
                "type": "message",
                "id": f"msg_{number}",
                "role": "assistant",
                "status": "completed",
                "content": content,
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": CALL_ID,
                "name": "exec_command",
                "arguments": json.dumps({"cmd": COMMAND}),
                "status": "completed",
            }
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        events = [
            {"type": "response.created", "response": {"id": f"resp_{number}"}},
            {"type": "response.output_item.done", "item": item, "output_index": 0},
            {"type": "response.completed", "response": {"id": f"resp_{number}", "usage": usage}},
        ]
        stream = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        self.reply(200, "text/event-stream", stream.encode())


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with serving(Upstream(_Handler, "/v1")) as server:
        yield server


class Codex:
    """Codex CLI in a home and a working folder of its own, talking to ``upstream`` only."""

    def __init__(self, root: Path, upstream: Upstream) -> None:
        self.home = root / "codex-home"
        self.work = root / "work"
        self.home.mkdir()
        self.work.mkdir()
        (self.home / "config.toml").write_text(
            'model = "gpt-fake"\n'
            'model_provider = "fake"\n'
            "[model_providers.fake]\n"
            'name = "fake"\n'
            f'base_url = "{upstream.url}"\n'
            'wire_api = "responses"\n'
            'env_key = "FAKE_OPENAI_KEY"\n'
        )
        self.command = str(binary("codex", "codex"))

    def exec(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home.parent),
            "CODEX_HOME": str(self.home),
            "FAKE_OPENAI_KEY": "dummy",
        }
        return subprocess.run(
            [self.command, "exec", "--skip-git-repo-check", *args],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def rollout(self) -> Path:
        (path,) = self.home.glob("sessions/*/*/*/rollout-*.jsonl")
        return path

    def runs(self) -> int:
        return len((self.work / "runs.txt").read_text().splitlines())


def session_id(rollout: Path) -> str:
    first = json.loads(rollout.read_text().splitlines()[0])
    identifier: str = first["payload"]["id"]
    return identifier


def broken(lines: list[str], where: str) -> list[str]:
    """The rollout as a killed Codex leaves it: ``mid-tool``, every line after the call gone;
    ``middle``, the call's output line gone and the rest (a later turn) kept."""
    at = next(k for k, line in enumerate(lines) if '"type":"function_call"' in line)
    if where == "mid-tool":
        return lines[: at + 1]
    return [line for line in lines if '"type":"function_call_output"' not in line]


def told(request: dict[str, Any]) -> list[Any]:
    """The outputs the model is told for the call, in a request's input."""
    return [
        i.get("output")
        for i in request.get("input", [])
        if i.get("type") == "function_call_output" and i.get("call_id") == CALL_ID
    ]


@pytest.mark.parametrize(("where", "template"), [("mid-tool", TP002_TEXT), ("middle", TP001_TEXT)])
def test_codex_resumes_the_repaired_rollout(
    where: str, template: str, upstream: Upstream, tmp_path: Path
) -> None:
    codex = Codex(tmp_path, upstream)
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
    assert f": {code} " in check.stderr
    assert f"(id {CALL_ID})" in check.stderr
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


def test_codex_fills_a_lost_output_with_a_bare_word_itself(
    upstream: Upstream, tmp_path: Path
) -> None:
    """Without the repair Codex resumes too, telling the model only ``aborted`` for the call
    (in its request; the rollout keeps the call unanswered for every other reader)."""
    codex = Codex(tmp_path, upstream)
    assert codex.exec("--dangerously-bypass-approvals-and-sandbox", "Run it.").returncode == 0
    rollout = codex.rollout()
    assert codex.exec("resume", session_id(rollout), "Thanks.").returncode == 0
    rollout.write_text("".join(broken(rollout.read_text().splitlines(keepends=True), "middle")))
    before = len(upstream.requests)
    resumed = codex.exec("resume", session_id(rollout), "Did it work?")
    assert resumed.returncode == 0, resumed.stderr
    (request,) = upstream.requests[before:]
    assert told(request) == ["aborted"]
    run(["check", str(rollout)], expect=1)
