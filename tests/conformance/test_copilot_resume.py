"""GitHub Copilot CLI resumes the sessions ``fix`` repaired
(docs/formats.md#github-copilot-cli-resumes-the-repair).

The real client (``@github/copilot``, pinned in tests/clients/copilot) runs offline with a
provider of one's own (``COPILOT_OFFLINE``, ``COPILOT_PROVIDER_BASE_URL``, a dummy key) against a
fake OpenAI Chat Completions upstream on 127.0.0.1 that refuses an assistant message whose
``tool_calls`` are not all answered, as the API does. Copilot records a session itself (one
``bash`` call, which appends a line to a file: its runs are counted), its ``events.jsonl`` is
broken as a killed CLI leaves it, and ``copilot --resume=ID -p ...`` goes on:

* mid-tool: the log ends on the call's ``tool.execution_start``;
* in the middle: the call's ``tool.execution_complete`` is lost and a later turn is kept.

Copilot CLI 1.0.102 heals such a log itself when it resumes it: it appends a failed
``tool.execution_complete`` (``error.code: "interrupted"``) and a ``session.warning``. The test
pins that the repaired log resumes with nothing left for it to heal, the model being told the
repair's text, nothing run again, and the log checking clean after.
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
from tests.npm_clients import binary, installed

COMMAND = "echo ran >> runs.txt"
CALL_ID = "call_fakeRunsTxt1"


def unanswered(messages: list[dict[str, Any]]) -> str | None:
    """The first call of an assistant message that no tool message answers, or ``None``."""
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if call.get("id") not in answered:
                return str(call.get("id"))
    return None


class _Handler(Handler):
    def do_GET(self) -> None:
        self.reply(200, "application/json", json.dumps({"object": "list", "data": []}).encode())

    def do_POST(self) -> None:
        body = self.request_body()
        messages = body.get("messages", [])
        missing = unanswered(messages)
        if missing is not None:
            refusal = (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {missing}"
            )
            self.refuse(refusal, {"message": refusal, "type": "invalid_request_error"})
            return
        if any(m.get("tool_calls") for m in messages):
            delta: dict[str, Any] = {"role": "assistant", "content": "Done."}
            finish = "stop"
        else:
            arguments = {"command": COMMAND, "description": "Count a run", "mode": "sync"}
            function = {"name": "bash", "arguments": json.dumps(arguments)}
            call = {"index": 0, "id": CALL_ID, "type": "function", "function": function}
            delta = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        chunks = [
            {"index": 0, "delta": delta, "finish_reason": None},
            {"index": 0, "delta": {}, "finish_reason": finish},
        ]
        stream = "".join(
            "data: "
            + json.dumps(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "gpt-fake",
                    "choices": [choice],
                    **({"usage": usage} if choice["finish_reason"] else {}),
                }
            )
            + "\n\n"
            for choice in chunks
        )
        self.reply(200, "text/event-stream", (stream + "data: [DONE]\n\n").encode())


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with serving(Upstream(_Handler, "/v1")) as server:
        yield server


class Copilot:
    """Copilot CLI with a home and a working folder of its own, talking to ``upstream`` only.
    The CLI unpacks its bundled program into a cache folder on first run; that cache is kept
    beside its installed packages, so only the first test pays for it."""

    def __init__(self, root: Path, upstream: Upstream) -> None:
        self.home = root / "home"
        self.work = root / "work"
        self.home.mkdir()
        self.work.mkdir()
        self.url = upstream.url
        self.command = str(binary("copilot", "copilot"))
        self.cache = installed("copilot") / "node_modules" / ".toolpatch-cache"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "XDG_CACHE_HOME": str(self.cache),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": self.url,
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_PROVIDER_MODEL_ID": "gpt-fake",
        }
        return subprocess.run(
            [self.command, *args, "--allow-all-tools"],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def events(self) -> Path:
        (path,) = self.home.glob(".copilot/session-state/*/events.jsonl")
        return path

    def runs(self) -> int:
        return len((self.work / "runs.txt").read_text().splitlines())


def session_of(log: Path) -> str:
    return log.parent.name


def broken(lines: list[str], where: str) -> list[str]:
    """The log as a killed CLI leaves it: ``mid-tool``, nothing after the call's
    ``tool.execution_start``; ``middle``, the call's completion lost, a later turn kept."""
    if where == "mid-tool":
        start = next(k for k, line in enumerate(lines) if '"tool.execution_start"' in line)
        return lines[: start + 1]
    return [line for line in lines if '"tool.execution_complete"' not in line]


def told(request: dict[str, Any]) -> list[Any]:
    """What the model is told for the call, in a request's messages."""
    return [
        m.get("content")
        for m in request.get("messages", [])
        if m.get("role") == "tool" and m.get("tool_call_id") == CALL_ID
    ]


def session(copilot: Copilot, where: str) -> Path:
    """A session the CLI wrote itself, broken ``where``."""
    wrote = copilot.run("-p", "Run the command.")
    assert wrote.returncode == 0, wrote.stderr
    log = copilot.events()
    if where == "middle":  # a second turn after the call's
        again = copilot.run(f"--resume={session_of(log)}", "-p", "Thanks.")
        assert again.returncode == 0, again.stderr
    assert copilot.runs() == 1
    log.write_text("".join(broken(log.read_text().splitlines(keepends=True), where)))
    return log


@pytest.mark.parametrize(("where", "template"), [("mid-tool", TP002_TEXT), ("middle", TP001_TEXT)])
def test_copilot_resumes_the_repaired_log(
    where: str, template: str, upstream: Upstream, tmp_path: Path
) -> None:
    copilot = Copilot(tmp_path, upstream)
    log = session(copilot, where)
    code = "TP002" if where == "mid-tool" else "TP001"
    check = run(["check", str(log)], expect=1)
    assert f": {code} " in check.said
    assert f"tool call 'bash' (id {CALL_ID})" in check.said
    # The log was written moments ago: --force takes the session for ended.
    run(["fix", "--force", str(log)], expect=0)
    repaired = log.read_text()

    before = len(upstream.requests)
    resumed = copilot.run(f"--resume={session_of(log)}", "-p", "Did it work?")
    assert resumed.returncode == 0, resumed.stderr
    assert upstream.refused == []
    (request, *_) = upstream.requests[before:]
    assert told(request) == [text(template, "bash", CALL_ID)]
    assert copilot.runs() == 1, "nothing ran again"
    after = log.read_text()
    assert after.startswith(repaired), "the CLI appends to the repaired log"
    assert '"interrupted_tools"' not in after, "the CLI found nothing left to heal"
    run(["check", str(log)], expect=0)


def test_copilot_heals_an_interrupted_call_itself(upstream: Upstream, tmp_path: Path) -> None:
    """Without the repair the CLI resumes too: it appends its own failed completion
    (``error.code: "interrupted"``), the shape the repair writes, and a warning."""
    copilot = Copilot(tmp_path, upstream)
    log = session(copilot, "mid-tool")
    resumed = copilot.run(f"--resume={session_of(log)}", "-p", "Did it work?")
    assert resumed.returncode == 0, resumed.stderr
    healed = [
        json.loads(line)
        for line in log.read_text().splitlines()
        if '"tool.execution_complete"' in line
    ]
    assert [(e["data"]["success"], e["data"]["error"]["code"]) for e in healed] == [
        (False, "interrupted")
    ]
    assert '"interrupted_tools"' in log.read_text()
