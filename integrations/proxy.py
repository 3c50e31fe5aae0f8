"""`toolpatch proxy`: repair each chat request's history on its way to the provider.

A client that cannot run toolpatch itself (Claude Code, Codex CLI, an SDK in another language) is
pointed at this proxy by its base URL (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``, ...); every
request goes on to the upstream, and the JSON body of a message endpoint (`ENDPOINTS`) is
repaired first by ``patchcore.fix_document``, the engine, rules and options of ``toolpatch fix``
(docs/proxy.md). The rest is a plain reverse proxy:

* a body with nothing to repair, or one the engine cannot read (not JSON, too large, no
  history in it), is forwarded byte for byte; a repaired one differs only where ``fix`` changes
  it;
* the response streams back as the upstream sends it (each chunk of an SSE stream passed on as
  it arrives, never buffered), with its status and headers; the request's headers (its
  credentials among them) go on as they came, and are never kept or reported;
* what was done to a request reaches the caller as an `Exchange` (its method, path, what was
  found and fixed): never its body, query string or headers, where credentials travel;
* an upstream that cannot be reached is a 502 with an error body in the provider's own shape.

Why uvicorn and httpx (the ``proxy`` extra): an ASGI server and an async HTTP client that both
stream, each a small, well-kept package; the application is a bare ASGI callable, so nothing
else is needed between them.
"""

from __future__ import annotations

import asyncio
import enum
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchcore.extras import MissingExtra

try:
    import httpx
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="proxy", part="toolpatch proxy") from None

import patchcore
from patchcore import Options

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Provider(enum.Enum):
    """Whose API an endpoint is: what shape its error bodies take."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    GEMINI = "gemini"


#: The message endpoints whose ``POST`` body is repaired, matched on the end of the client's
#: path (a base URL may put a prefix before it): Anthropic's Messages API (and its token count),
#: OpenAI's Chat Completions and Responses, Gemini's ``generateContent`` and its stream.
ENDPOINTS = (
    (re.compile(r"(^|/)v1/messages(/count_tokens)?$"), Provider.ANTHROPIC),
    (re.compile(r"(^|/)(chat/completions|responses)$"), Provider.OPENAI),
    (re.compile(r":(stream)?[gG]enerateContent$"), Provider.GEMINI),
)

#: Headers that describe one connection, not the message (RFC 9110, 7.6.1): never forwarded.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)

#: How long the upstream may take to accept a connection, and to send each next piece of an
#: answer (the providers' own SDKs wait ten minutes for one).
CONNECT_SECONDS = 10.0
READ_SECONDS = 600.0


class Verdict(enum.Enum):
    """What the proxy did with a request's body."""

    CLEAN = "clean"
    """Nothing to repair: forwarded byte for byte (not reported)."""
    REPAIRED = "repaired"
    """Forwarded with ``fix``'s repair."""
    FOUND = "found"
    """Findings, forwarded unchanged: ``--check-only``, or findings that have no fix."""
    NOT_JSON = "not-json"
    """Not UTF-8 JSON text (or compressed): forwarded unchanged."""
    TOO_LARGE = "too-large"
    """Larger than the record-size limit: forwarded unchanged, never read whole."""
    UNKNOWN_SHAPE = "unknown-shape"
    """JSON holding no history toolpatch reads: forwarded unchanged."""
    FAILED = "failed"
    """The engine failed on it (a bug in toolpatch): forwarded unchanged."""
    UNREACHABLE = "unreachable"
    """The upstream could not be reached: the client got a 502."""


@dataclass(frozen=True)
class Exchange:
    """What the proxy did with one request, as the log says it: never its body, its query
    string or its headers, where credentials travel.

    Attributes:
        method: The request's method.
        path: The client's path, without its query string.
        verdict: What was done with its body.
        fixed: Rule code → how many findings the repair fixed.
        found: Rule code → how many findings were left as they are (``--check-only``: every one).
        reason: Why the body went on unchanged (``not-json``, ``unknown-shape``, ``failed``,
            ``unreachable``): the error's kind and where, never the data.
    """

    method: str
    path: str
    verdict: Verdict
    fixed: Mapping[str, int] = field(default_factory=dict)
    found: Mapping[str, int] = field(default_factory=dict)
    reason: str | None = None


@dataclass(frozen=True)
class Repaired:
    """A body after the engine: the bytes to forward and what was done."""

    body: bytes
    verdict: Verdict
    fixed: Mapping[str, int] = field(default_factory=dict)
    found: Mapping[str, int] = field(default_factory=dict)
    reason: str | None = None


def repaired_body(body: bytes, *, options: Options, check_only: bool) -> Repaired:
    """``body`` as ``toolpatch fix`` repairs it (``check_only``: as ``check`` finds it, the
    bytes unchanged); a body the engine cannot read goes on as it is, with the reason."""
    engine = patchcore.check_document if check_only else patchcore.fix_document
    try:
        result = engine(body, options=options)
    except patchcore.DecodeError as exc:
        return Repaired(body, Verdict.NOT_JSON, reason=_where(exc))
    except (patchcore.NoHistoryError, patchcore.ShapeError) as exc:
        return Repaired(body, Verdict.UNKNOWN_SHAPE, reason=_where(exc))
    except patchcore.PatchcoreError as exc:  # the repair failed its own check: a bug
        return Repaired(body, Verdict.FAILED, reason=_where(exc))
    fixed = Counter(f.code for f in result.fixed)
    fixed_keys = {id(f) for f in result.fixed}
    found = Counter(f.code for f in result.findings if id(f) not in fixed_keys)
    if result.output is not None and not check_only:
        return Repaired(result.output, Verdict.REPAIRED, fixed, found)
    if result.findings:
        return Repaired(body, Verdict.FOUND, found=Counter(f.code for f in result.findings))
    return Repaired(body, Verdict.CLEAN)


def _where(error: patchcore.PatchcoreError) -> str:
    """An error's kind and place (``ShapeError at /messages/3``): what the log says of a body
    the engine could not read, never the data itself (which a reason may quote)."""
    place = error.pointer or (f"line {error.line}" if error.line is not None else None)
    return f"{type(error).__name__} at {place}" if place else type(error).__name__


def provider_of(method: str, path: str) -> Provider | None:
    """The provider whose message endpoint ``method path`` is, or ``None``: not repaired."""
    if method != "POST":
        return None
    return next((provider for pattern, provider in ENDPOINTS if pattern.search(path)), None)


def unreachable_body(provider: Provider | None, reason: str) -> bytes:
    """The 502 answer's body, in the shape the provider's SDK reads an error from."""
    message = f"toolpatch proxy: the upstream could not be reached ({reason})"
    if provider is Provider.ANTHROPIC:
        error: dict[str, Any] = {
            "type": "error",
            "error": {"type": "api_error", "message": message},
        }
    elif provider is Provider.GEMINI:
        error = {"error": {"code": 502, "message": message, "status": "UNAVAILABLE"}}
    else:
        error = {"error": {"message": message, "type": "upstream_error", "code": None}}
    return json.dumps(error).encode()


class Proxy:
    """The ASGI application: every request forwarded to ``upstream``, message bodies repaired.

    Args:
        upstream: The provider's base URL; the client's path (and query) is appended to it.
        options: ``fix``'s options (`patchcore.make_options`), the same for every request.
        check_only: Report what a body holds, forward it unchanged.
        report: Called with each request that was not clean (never with its body).
    """

    def __init__(
        self,
        upstream: str,
        *,
        options: Options,
        check_only: bool = False,
        report: Callable[[Exchange], None],
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.options = options
        self.check_only = check_only
        self.report = report
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The one HTTP client every request goes out through (its connections kept alive)."""
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(READ_SECONDS, connect=CONNECT_SECONDS, pool=None),
                # one upstream connection per client connection at most: the clients bound it
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
                follow_redirects=False,
                trust_env=False,  # the upstream is the one named, never an environment's proxy
            )
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        method: str = scope["method"]
        path: str = scope["path"]
        provider = provider_of(method, path)
        headers = [
            (name.decode("latin-1").lower(), value)
            for name, value in scope["headers"]
            if name.decode("latin-1").lower() not in HOP_BY_HOP | {"host"}
        ]
        content: bytes | AsyncIterator[bytes] | None
        if provider is None:
            # streamed on as it comes; a request that has no body is sent with none
            given = {name.decode("latin-1").lower() for name, _ in scope["headers"]}
            has_body = bool(given & {"content-length", "transfer-encoding"})
            content = _passed_on(receive) if has_body else None
        else:
            content = await self._message_body(method, path, headers, receive)
            if isinstance(content, bytes):  # held whole: httpx says its length
                headers = [(name, value) for name, value in headers if name != "content-length"]
        target = self.upstream + (scope.get("raw_path") or path.encode()).decode("latin-1")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        request = self.client.build_request(method, target, headers=headers, content=content)
        _keep_only_given(request, headers)
        try:
            response = await self.client.send(request, stream=True)
        except httpx.TransportError as exc:
            self.report(Exchange(method, path, Verdict.UNREACHABLE, reason=type(exc).__name__))
            body = unreachable_body(provider, type(exc).__name__)
            await send(
                {
                    "type": "http.response.start",
                    "status": 502,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (name.lower(), value)
                        for name, value in response.headers.raw
                        if name.decode("latin-1").lower() not in HOP_BY_HOP
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()

    async def _message_body(
        self, method: str, path: str, headers: list[tuple[str, bytes]], receive: Receive
    ) -> bytes | AsyncIterator[bytes]:
        """A message endpoint's body, repaired (or as it came, reported when the engine could
        not read it); one larger than the record-size limit is never held whole: it streams on
        unread from where the limit was passed."""
        limit = self.options.max_record_bytes
        chunks: list[bytes] = []
        size = 0
        more = True
        while more and size <= limit:
            message = await receive()
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = bool(message.get("more_body")) and message["type"] == "http.request"
        if more or size > limit:
            self.report(Exchange(method, path, Verdict.TOO_LARGE, reason=f"over {limit} bytes"))
            return _passed_on(receive, first=chunks, more=more)
        body = b"".join(chunks)
        encoding = dict(headers).get("content-encoding", b"identity").strip().lower()
        if encoding != b"identity":
            kind = encoding.decode("latin-1")
            self.report(Exchange(method, path, Verdict.NOT_JSON, reason=f"{kind}-encoded"))
            return body
        # In a thread: a large repair never holds up the streams the event loop is passing on.
        done = await asyncio.to_thread(
            repaired_body, body, options=self.options, check_only=self.check_only
        )
        if done.verdict is not Verdict.CLEAN:
            self.report(Exchange(method, path, done.verdict, done.fixed, done.found, done.reason))
        return done.body


async def _passed_on(
    receive: Receive, *, first: Sequence[bytes] = (), more: bool = True
) -> AsyncIterator[bytes]:
    """The request's body as it arrives: ``first``, the chunks already read, then (while
    ``more``) the rest."""
    for chunk in first:
        yield chunk
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return
        yield message.get("body", b"")
        more = bool(message.get("more_body"))


def _keep_only_given(request: httpx.Request, headers: list[tuple[str, bytes]]) -> None:
    """Remove the headers httpx adds of its own (``user-agent``, ``accept``,
    ``accept-encoding``) that the client did not send: the upstream sees the client's."""
    given = {name for name, _ in headers}
    for name in ("user-agent", "accept", "accept-encoding"):
        if name not in given and name in request.headers:
            del request.headers[name]
