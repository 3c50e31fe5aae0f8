"""Gemini CLI resumes the recordings ``fix`` repaired
(docs/formats.md#gemini-cli-resumes-the-repair).

The real client (``@google/gemini-cli``, pinned in tests/clients/gemini-cli) runs offline: a
Gemini API key of its own (``GEMINI_API_KEY``, chosen in its settings) and
``GOOGLE_GEMINI_BASE_URL`` send it to a fake Gemini API on 127.0.0.1 that refuses a model
turn whose ``functionCall`` the next turn does not answer, as a wedged session is refused.
Gemini CLI records a session itself (one ``list_directory`` call), the call's result is lost as
a recorder stopped mid-call leaves it (the entry ``executing``, no ``result``, no response
message), and ``gemini --resume latest`` is refused; after ``toolpatch fix`` it goes on, the
model being told the repair's error for the call.
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
from tests.helpers import TP002_TEXT, run, text
from tests.npm_clients import binary


def _key(part: dict[str, Any], kind: str) -> object:
    body = part[kind]
    return body.get("id") or body.get("name")


def unanswered(contents: list[dict[str, Any]]) -> object:
    """The first call of a model turn that the turn after it does not answer, or ``None``."""
    for index, content in enumerate(contents):
        calls = [_key(p, "functionCall") for p in content.get("parts", []) if "functionCall" in p]
        after = contents[index + 1].get("parts", []) if index + 1 < len(contents) else []
        answers = {_key(p, "functionResponse") for p in after if "functionResponse" in p}
        missing = [call for call in calls if call not in answers]
        if content.get("role") == "model" and missing:
            return missing[0]
    return None


class _Handler(Handler):
    def do_POST(self) -> None:
        body = self.request_body()
        contents = body.get("contents", [])
        missing = unanswered(contents)
        if missing is not None:
            refusal = f"function call {missing} has no function response"
            self.refuse(refusal, {"code": 400, "message": refusal, "status": "INVALID_ARGUMENT"})
            return
        called = any("functionCall" in p for c in contents for p in c.get("parts", []))
        call = {"functionCall": {"name": "list_directory", "args": {"dir_path": "."}}}
        part = {"text": "Done."} if called else call
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
        }
        self.reply(200, "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode())


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with serving(Upstream(_Handler)) as server:
        yield server


class Gemini:
    """Gemini CLI with a home and a working folder of its own, talking to ``upstream`` only."""

    def __init__(self, root: Path, upstream: Upstream) -> None:
        self.home = root / "home"
        self.work = root / "work"
        (self.home / ".gemini").mkdir(parents=True)
        self.work.mkdir()
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"disableAutoUpdate": True},
            "privacy": {"usageStatisticsEnabled": False},
        }
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        self.url = upstream.url
        self.command = str(binary("gemini-cli", "gemini"))

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": self.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        return subprocess.run(
            [self.command, "-m", "gemini-2.5-flash", *args],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )

    def recording(self) -> Path:
        (path,) = self.home.glob(".gemini/tmp/*/chats/session-*.jsonl")
        return path


def stopped_mid_call(path: Path) -> str:
    """The recording as a recorder stopped mid-call leaves it: the call's entry ``executing``
    with no result, no message with the response, nothing after the call; returns its id."""
    kept: list[str] = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        content = record.get("content")
        responses = isinstance(content, list) and any(
            isinstance(p, dict) and "functionResponse" in p for p in content
        )
        if record.get("type") == "user" and responses:
            continue
        if record.get("toolCalls"):
            (entry,) = record["toolCalls"]
            for key in ("result", "resultDisplay"):
                entry.pop(key, None)
            entry["status"] = "executing"
            kept.append(json.dumps(record, separators=(",", ":")))
            path.write_text("\n".join(kept) + "\n")
            identifier: str = entry["id"]
            return identifier
        kept.append(line)
    raise AssertionError("the recording holds no call")


def test_gemini_cli_resumes_the_repaired_recording(upstream: Upstream, tmp_path: Path) -> None:
    gemini = Gemini(tmp_path, upstream)
    wrote = gemini.run("-p", "List the files.")
    assert wrote.returncode == 0, wrote.stderr
    recording = gemini.recording()
    call = stopped_mid_call(recording)
    broken = recording.read_bytes()

    refused = gemini.run("--resume", "latest", "-p", "Go on.")
    assert refused.returncode != 0, "the fake upstream refuses the unanswered call"
    recording.write_bytes(broken)  # the refused resume may have written to it

    check = run(["check", str(recording)], expect=1)
    assert f"TP002 tool call 'list_directory' (id {call})" in check.said
    # The recording was written moments ago: --force takes the session for ended.
    run(["fix", "--force", str(recording)], expect=0)
    run(["check", str(recording)], expect=0)

    before = len(upstream.requests)
    resumed = gemini.run("--resume", "latest", "-p", "Go on.")
    assert resumed.returncode == 0, resumed.stderr
    (request, *_) = upstream.requests[before:]
    responses = [
        p["functionResponse"]
        for c in request["contents"]
        for p in c.get("parts", [])
        if "functionResponse" in p
    ]
    assert [r["response"] for r in responses] == [
        {"error": text(TP002_TEXT, "list_directory", call)}
    ]


def _checkpoint(path: Path) -> list[dict[str, Any]]:
    """The messages of the recording's last checkpoint (a ``$set`` with ``messages``)."""
    lists = [
        record["$set"]["messages"]
        for record in map(json.loads, path.read_text().splitlines())
        if isinstance(record.get("$set"), dict) and "messages" in record["$set"]
    ]
    return lists[-1]


def test_a_recording_gemini_cli_wrote_and_resumed_checks_clean(
    upstream: Upstream, tmp_path: Path
) -> None:
    """0.61 records the response turn it sends as a ``user`` message beside each call's
    ``result``, and a resume rewrites the messages with the calls as ``functionCall`` parts of
    ``content`` and its response turn recorded twice (as ``<id>_response`` and as the message
    recorded first): both shapes are read, a response repeated word for word is one response,
    and nothing is said of a session the CLI resumes."""
    gemini = Gemini(tmp_path, upstream)
    assert gemini.run("-p", "List the files.").returncode == 0
    recording = gemini.recording()
    run(["check", str(recording)], expect=0)
    assert gemini.run("--resume", "latest", "-p", "Go on.").returncode == 0
    (turn, _) = [m for m in _checkpoint(recording) if m["type"] == "gemini"]
    assert "functionCall" in turn["content"][0], "the resume rewrote the call into content"
    run(["check", str(recording)], expect=0)


def test_gemini_cli_resumes_the_repair_of_its_own_rewrite(
    upstream: Upstream, tmp_path: Path
) -> None:
    """A resume refused over a call without its result leaves the recording rewritten: the
    call only a ``functionCall`` part of its message's ``content``, no entry in ``toolCalls``.
    ``fix`` answers it with the ``user`` message the CLI records for a response turn, and the
    next resume goes on, the model told the repair's error."""
    gemini = Gemini(tmp_path, upstream)
    assert gemini.run("-p", "List the files.").returncode == 0
    recording = gemini.recording()
    call = stopped_mid_call(recording)
    assert gemini.run("--resume", "latest", "-p", "Go on.").returncode != 0
    (turn,) = [m for m in _checkpoint(recording) if m["type"] == "gemini"]
    assert "toolCalls" not in turn
    assert turn["content"] == [
        {"functionCall": {"id": call, "name": "list_directory", "args": {"dir_path": "."}}}
    ]

    check = run(["check", str(recording)], expect=1)
    assert f"TP002 tool call 'list_directory' (id {call})" in check.said
    assert "/content/0]" in check.said
    run(["fix", "--force", str(recording)], expect=0)
    run(["check", str(recording)], expect=0)
    response = _checkpoint(recording)[-1]
    assert (response["id"], response["type"]) == (f"{turn['id']}_response", "user")

    before = len(upstream.requests)
    resumed = gemini.run("--resume", "latest", "-p", "Go on.")
    assert resumed.returncode == 0, resumed.stderr
    (request, *_) = upstream.requests[before:]
    responses = [
        p["functionResponse"]["response"]
        for c in request["contents"]
        for p in c.get("parts", [])
        if "functionResponse" in p
    ]
    assert responses == [{"error": text(TP002_TEXT, "list_directory", call)}]
