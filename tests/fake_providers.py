"""One local fake of the four message APIs the proxy repairs, for `toolpatch proxy`'s tests.

Anthropic's ``/v1/messages`` (and ``count_tokens``), OpenAI's ``/v1/chat/completions`` and
``/v1/responses``, and Gemini's ``:generateContent`` / ``:streamGenerateContent``, on one
server (`tests.fake_upstream`). Each refuses a history its provider refuses, found by the
independent validators of `tests.provider_rules`, with a 400 in the provider's own error shape;
otherwise it answers ``OK.`` as the provider would, as one JSON body or, when asked to stream,
as Server-Sent Events. A stream sends its first event and then waits for `Providers.release`
before the rest: a test sets it once its client has seen the first event, which proves that the
event came through before the upstream had finished (`Providers.held` records whether each wait
ended so, or timed out).

Every request is kept as it arrived (`Received`: path, headers, raw bytes), so a test compares
bytes, and reads the headers the upstream saw. `Providers.answer_next` makes the next answer
one of a given status and headers (a rate limit).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.fake_anthropic import events, message
from tests.fake_upstream import Handler, Upstream, serving
from tests.provider_rules import Violation, anthropic, gemini, openai_chat, responses

#: How long a held stream waits for its client to see the first event.
HOLD_SECONDS = 10.0
REPLY = "OK."


@dataclass
class Received:
    """One request as the upstream got it."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    refused: str | None = None

    @property
    def body(self) -> Any:
        return json.loads(self.raw)


class Providers(Upstream):
    """The running fake: the requests it got, the streams it held, the next scripted answer."""

    def __init__(self) -> None:
        super().__init__(_Handler)
        self.received: list[Received] = []
        self.release = threading.Event()
        self.held: list[bool] = []
        self.scripted: tuple[int, dict[str, str]] | None = None

    def answer_next(self, status: int, headers: dict[str, str]) -> None:
        """Answer the next message request with ``status`` and ``headers`` (an error body)."""
        self.scripted = (status, headers)


@contextmanager
def providers() -> Iterator[Providers]:
    """The fake on 127.0.0.1 (a free port), served on a thread while in use."""
    with serving(Providers()) as server:
        yield server


def _chat(body: Any) -> list[Violation]:
    return openai_chat(body.get("messages") or [])


def _responses(body: Any) -> list[Violation]:
    items = body.get("input")
    return responses(items) if isinstance(items, list) else []


#: path ending → (provider, validator of its body)
_ROUTES: dict[str, tuple[str, Callable[[Any], list[Violation]]]] = {
    "/v1/messages": ("anthropic", lambda body: anthropic(body.get("messages") or [])),
    "/v1/messages/count_tokens": ("anthropic", lambda body: anthropic(body.get("messages") or [])),
    "/v1/chat/completions": ("openai-chat", _chat),
    "/v1/responses": ("openai-responses", _responses),
    "generatecontent": ("gemini", lambda body: gemini(body.get("contents") or [])),
}


def _route(path: str) -> tuple[str, Callable[[Any], list[Violation]]] | None:
    bare = path.partition("?")[0].lower()
    return next((route for end, route in _ROUTES.items() if bare.endswith(end)), None)


def error_body(provider: str, status: int, message_text: str) -> bytes:
    """An error answer's body, in the provider's own shape."""
    if provider == "anthropic":
        kind = "rate_limit_error" if status == 429 else "invalid_request_error"
        return json.dumps(
            {"type": "error", "error": {"type": kind, "message": message_text}}
        ).encode()
    if provider == "gemini":
        return json.dumps(
            {"error": {"code": status, "message": message_text, "status": "INVALID_ARGUMENT"}}
        ).encode()
    return json.dumps(
        {"error": {"message": message_text, "type": "invalid_request_error", "param": None}}
    ).encode()


def _answer(provider: str, path: str) -> dict[str, Any]:
    """The whole answer ``OK.`` of a provider's endpoint."""
    if path.partition("?")[0].endswith("count_tokens"):
        return {"input_tokens": 12}
    if provider == "anthropic":
        return message([{"type": "text", "text": REPLY}])
    if provider == "openai-chat":
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": REPLY},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }
    if provider == "openai-responses":
        text = {"type": "output_text", "text": REPLY, "annotations": []}
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": "gpt-fake",
            "output": [
                {
                    "type": "message",
                    "id": "msg_fake",
                    "role": "assistant",
                    "status": "completed",
                    "content": [text],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    return _gemini_chunk(REPLY, "STOP")


def _gemini_chunk(text: str, finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "index": 0,
    }
    if finish:
        candidate["finishReason"] = finish
    return {
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
        "modelVersion": "gemini-fake",
    }


def _stream(provider: str) -> list[bytes]:
    """The answer ``OK.`` as its provider streams it: one Server-Sent Event each."""
    if provider == "anthropic":
        reply = message([{"type": "text", "text": REPLY}])
        return [
            f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events(reply)
        ]
    if provider == "openai-chat":
        chunks = [
            ({"role": "assistant", "content": ""}, None),
            ({"content": "O"}, None),
            ({"content": "K."}, None),
            ({}, "stop"),
        ]
        datas = [
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "gpt-fake",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            for delta, finish in chunks
        ]
        return [f"data: {json.dumps(d)}\n\n".encode() for d in datas] + [b"data: [DONE]\n\n"]
    return [
        f"data: {json.dumps(_gemini_chunk(text, finish))}\n\n".encode()
        for text, finish in (("O", None), ("K.", "STOP"))
    ]


class _Handler(Handler):
    server: Providers

    def do_GET(self) -> None:
        self._received(b"")
        self.reply(200, "application/json", b'{"data": []}')

    def _received(self, raw: bytes, refused: str | None = None) -> Received:
        headers = {name.lower(): value for name, value in self.headers.items()}
        received = Received(self.command, self.path, headers, raw, refused)
        self.server.received.append(received)
        return received

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        route = _route(self.path)
        received = self._received(raw)
        if route is None:
            self.reply(404, "application/json", b'{"error": "not found"}')
            return
        provider, validate = route
        try:
            body = json.loads(raw)
        except ValueError:
            received.refused = "not JSON"
            self.reply(400, "application/json", error_body(provider, 400, "invalid JSON"))
            return
        violations = validate(body) if isinstance(body, dict) else []
        if violations:
            received.refused = violations[0].error
            self.reply(400, "application/json", error_body(provider, 400, received.refused))
            return
        if self.server.scripted is not None:
            status, headers = self.server.scripted
            self.server.scripted = None
            data = error_body(provider, status, "scripted")
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if body.get("stream") or "streamGenerateContent" in self.path:
            self._streamed(_stream(provider))
            return
        data = json.dumps(_answer(provider, self.path)).encode()
        self.send_response(200)
        self.send_header("request-id", "req_fake1")
        self.send_header("x-request-id", "req_fake1")
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _streamed(self, chunks: list[bytes]) -> None:
        """``chunks`` as an event stream (the connection's end is its end): the first, then,
        once the test releases it (or the wait times out), the rest."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_fake1")
        self.end_headers()
        self.wfile.write(chunks[0])
        self.wfile.flush()
        self.server.held.append(self.server.release.wait(HOLD_SECONDS))
        for chunk in chunks[1:]:
            self.wfile.write(chunk)
