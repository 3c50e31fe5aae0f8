"""A local fake of Anthropic's Messages API, for running the real Claude Code offline.

The conformance tests start Claude Code with ``ANTHROPIC_BASE_URL`` pointing here
(docs/formats.md#claude-code-the-real-client). The fake enforces the pairing rules of the real
API through the independent validator of `tests.provider_rules` (an unanswered ``tool_use``, an
orphan or duplicate ``tool_result``: a 400 ``invalid_request_error`` with Anthropic's own error
text), and otherwise answers from a small script keyed on the conversation:

* a user prompt ``run: COMMAND`` gets a ``tool_use`` of the ``Bash`` tool running COMMAND;
* a user prompt ``search: QUERY`` gets a web search the API runs itself: a ``server_tool_use``
  of ``web_search``, its ``web_search_tool_result`` and the text ``Found.``, in one message;
* a user turn that holds ``tool_result`` blocks gets the final text ``Done.`` (the last
  ``user`` message decides: Claude Code may send a ``system`` message after it);
* anything else gets the text ``OK.``.

Every request is kept (`requests`), so a test counts what the model was told: which results it
got, which calls it saw, and whether a request was refused. Replies are streamed as Server-Sent
Events, as Claude Code asks for them.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.provider_rules import anthropic

MODEL = "claude-sonnet-4-5"


@dataclass
class Request:
    """One request the fake received: its body and, when refused, the error it got."""

    path: str
    body: dict[str, Any]
    refused: str | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages")
        return messages if isinstance(messages, list) else []

    def blocks(self, kind: str) -> list[dict[str, Any]]:
        """Every content block of type ``kind`` the request sent, in order."""
        return [
            block
            for message in self.messages
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == kind
        ]


@dataclass
class FakeAnthropic:
    """The running fake: its URL and the requests it got."""

    url: str
    requests: list[Request] = field(default_factory=list)


_ids = itertools.count(1)
#: Which broken rule the API names when a request breaks several (the errors users report for a
#: dropped or doubled result name the call, not the shape of the message after it).
_FIRST = [
    "unanswered",
    "duplicate",
    "orphan",
    "not-first",
    "server-unanswered",
    "server-orphan",
    "empty-error",
    "missing-id",
]


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
    )


def _reply_to(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks the script answers ``body`` with (see the module's docstring)."""
    users = [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"
    ]
    last = users[-1] if users else {}
    content = last.get("content")
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return [{"type": "text", "text": "Done."}]
    for line in reversed(_text_of(last).splitlines()):
        line = line.strip()
        if line.startswith("run: "):
            command = {"command": line[5:], "description": "Run the command"}
            return [_tool_use("Bash", command)]
        if line.startswith("search: "):
            return _web_search(line[8:])
    return [{"type": "text", "text": "OK."}]


def _web_search(query: str) -> list[dict[str, Any]]:
    """A web search the API ran itself, as it answers one: the call, its result, the text."""
    call = {**_tool_use("web_search", {"query": query}), "type": "server_tool_use"}
    call["id"] = call["id"].replace("toolu_", "srvtoolu_")
    found = {
        "type": "web_search_result",
        "title": "Example",
        "url": "https://example.com/",
        "encrypted_content": "ZmFrZQ==",
        "page_age": None,
    }
    result = {"type": "web_search_tool_result", "tool_use_id": call["id"], "content": [found]}
    return [call, result, {"type": "text", "text": "Found."}]


def _tool_use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": f"toolu_fake{next(_ids):04d}",
        "name": name,
        "input": tool_input,
    }


def message(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """An assistant message of the Messages API holding ``blocks``."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": f"msg_fake{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Server-Sent Events of ``message`` streamed, as the Messages API sends them."""
    head = {**message, "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": head}
    for index, block in enumerate(message["content"]):
        delta: dict[str, Any] | None
        if block["type"] == "text":
            start, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        elif "input" in block:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:  # a server tool's result comes whole in its start event
            start, delta = block, None
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        if delta is not None:
            delta_event = {"type": "content_block_delta", "index": index, "delta": delta}
            yield "content_block_delta", delta_event
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


def _handler(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads `requests`, not a log."""

        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.send_header("request-id", f"req_fake{next(_ids):04d}")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(size) or b"{}")
            except ValueError:
                body = {}
            request = Request(self.path, body if isinstance(body, dict) else {})
            fake.requests.append(request)
            violations = sorted(anthropic(request.messages), key=lambda v: _FIRST.index(v.rule))
            if violations:
                request.refused = violations[0].error
                error = {"type": "invalid_request_error", "message": request.refused}
                self._send(400, json.dumps({"type": "error", "error": error}).encode())
                return
            reply = message(_reply_to(request.body))
            stream = "".join(
                f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events(reply)
            )
            self._send(200, stream.encode(), "text/event-stream")

    return Handler


@contextmanager
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A fake Messages API on 127.0.0.1 (a free port), served in a thread while in use."""
    fake = FakeAnthropic("")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
