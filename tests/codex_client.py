"""Codex CLI run offline against a fake OpenAI Responses upstream, for the conformance tests
that resume a rollout in the real client (docs/formats.md#codex-cli-resumes-the-repair).

`ResponsesHandler` is the fake: it refuses a ``function_call`` without its
``function_call_output`` (and an output without an earlier call, or a second one), as the API
does, asks the client to run `COMMAND` (one ``exec_command`` call, which appends a line to a
file: its runs are counted) and then answers ``Done.``. `Codex` runs the pinned client
(tests/clients/codex) in a home of its own with a provider whose base URL is the fake's (or a
proxy's in front of it).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.fake_upstream import Handler
from tests.npm_clients import binary
from tests.provider_rules import responses

#: The command the fake model asks Codex to run: each run appends one line.
COMMAND = "echo ran >> runs.txt"
CALL_ID = "call_fakeRunsTxt1"


def refusal(items: list[Any]) -> str | None:
    """The API's refusal of an input whose calls and outputs do not pair (a call without its
    output, an output without an earlier call, two outputs of one call, two items of one id:
    the independent reading of `tests.provider_rules.responses`), or ``None``."""
    violations = responses(items)
    return violations[0].error if violations else None


class ResponsesHandler(Handler):
    """The fake Responses API: refuses an input whose calls and outputs do not pair
    (`refusal`); asks for `COMMAND` when the input holds no call, and answers ``Done.`` once it
    does."""

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def do_POST(self) -> None:
        body = self.request_body()
        items = [i for i in body.get("input", []) if isinstance(i, dict)]
        refused = refusal(items)
        if refused is not None:
            self.refuse(
                refused, {"message": refused, "type": "invalid_request_error", "param": "input"}
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


class Codex:
    """Codex CLI in a home and a working folder of its own, talking to ``base_url`` only (the
    fake upstream's ``/v1``, or a proxy in front of it)."""

    def __init__(self, root: Path, base_url: str) -> None:
        self.home = root / "codex-home"
        self.work = root / "work"
        self.home.mkdir()
        self.work.mkdir()
        (self.home / "config.toml").write_text(
            'model = "gpt-fake"\n'
            'model_provider = "fake"\n'
            "[model_providers.fake]\n"
            'name = "fake"\n'
            f'base_url = "{base_url}"\n'
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
