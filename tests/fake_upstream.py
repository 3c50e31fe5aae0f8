"""A fake provider API for the conformance tests that resume a repair in a real client.

A local HTTP server on 127.0.0.1 (port 0: a free one), the client pointed at it by its own
settings, and a handler per provider (in the test) that enforces the provider's pairing rule
(a refusal is recorded) and answers with a canned reply. The requests it got are kept, so a
test reads what the model was told.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Upstream(ThreadingHTTPServer):
    """The fake API: the requests it got and the refusals it gave; ``url`` with ``root``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], root: str = "") -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.root = root
        self.requests: list[dict[str, Any]] = []
        self.refused: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{self.root}"


class Handler(BaseHTTPRequestHandler):
    """What every fake API's handler shares: a quiet log, the request body read and kept, and
    a reply of a given status and type."""

    server: Upstream

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the requests, not a log."""

    def request_body(self) -> dict[str, Any]:
        """The JSON body of the request, kept in the server's ``requests``."""
        body: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests.append(body)
        return body

    def refuse(self, message: str, error: dict[str, Any]) -> None:
        """A 400 answer with ``error`` (the provider's error object), ``message`` kept."""
        self.server.refused.append(message)
        self.reply(400, "application/json", json.dumps({"error": error}).encode())

    def reply(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serving(upstream: Upstream) -> Iterator[Upstream]:
    """``upstream`` answering on a thread of its own until the block ends."""
    thread = threading.Thread(target=upstream.serve_forever, daemon=True)
    thread.start()
    try:
        yield upstream
    finally:
        upstream.shutdown()
        upstream.server_close()
