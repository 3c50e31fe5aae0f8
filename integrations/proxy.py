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

Why aiohttp (the ``proxy`` extra): one well-kept package that is both the server and the client,
both streaming, with HTTP parsed in C. Measured in the proxy's own benchmark
(docs/benchmarks.md#the-proxy), httpx's client spent 1.4 ms of CPU on a request that aiohttp's
spends 0.12 ms on: the hop is most of what the proxy adds to a request.
"""

from __future__ import annotations

import asyncio
import enum
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchcore.extras import MissingExtra

try:
    import aiohttp
    from aiohttp import web
except ModuleNotFoundError as missing:
    raise MissingExtra(missing, extra="proxy", part="toolpatch proxy") from None

import patchcore
from patchcore import Options


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

#: Request headers never forwarded: the hop-by-hop ones, and ``Host`` (the upstream's is sent).
NOT_FORWARDED = HOP_BY_HOP | {"host"}

#: A message body up to this size is repaired on the event loop itself; a larger one in a
#: thread, so that its repair never holds up the streams the loop is passing on. Handing a body
#: to a thread and its answer back cost the proxy more CPU than the quick lane's whole reading of
#: a clean 56 KiB body (docs/benchmarks.md#the-proxy); the lane reads 64 KiB in about 0.5 ms,
#: and the full path in a few, a pause of the order of the 5 ms a thread waits for the GIL.
INLINE_BYTES = 64 * 1024

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
    except Exception as exc:  # a bug in the engine: the request still goes on
        # The proxy sits in front of every request of the client: an engine bug must cost the
        # user one repair, not the request (nor the proxy). Logged by its type alone, since
        # its message may quote the body.
        return Repaired(body, Verdict.FAILED, reason=f"internal error: {type(exc).__name__}")
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


#: Headers the HTTP client would add of its own: the upstream gets the client's, or none.
_NOT_ADDED = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")


class Proxy:
    """The proxy: every request forwarded to ``upstream``, message bodies repaired
    (`application` is the aiohttp application that serves it).

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
        self._client: aiohttp.ClientSession | None = None

    def application(self) -> web.Application:
        """The application: one route that takes every method and path."""
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self.forward)
        app.cleanup_ctx.append(self._connected)
        return app

    async def _connected(self, app: web.Application) -> AsyncIterator[None]:
        """The one HTTP client every request goes out through, its connections kept alive,
        for as long as the application runs."""
        self._client = aiohttp.ClientSession(
            # one upstream connection per client connection at most: the clients bound it
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(connect=CONNECT_SECONDS, sock_read=READ_SECONDS),
            auto_decompress=False,  # the body goes on as the upstream encoded it
            trust_env=False,  # the upstream is the one named, never an environment's proxy
        )
        yield
        await self._client.close()

    async def forward(self, request: web.Request) -> web.StreamResponse:
        """One request: its body (repaired, for a message endpoint) to the upstream, and the
        upstream's answer back as it comes."""
        assert self._client is not None, "the application is not running"
        if not request.raw_path.startswith("/"):
            # an absolute or authority form ("@host/…") would name another server than the
            # upstream once appended to it: the proxy is never a relay to anywhere else
            return web.Response(status=400, text="toolpatch proxy: the target must be a path\n")
        provider = provider_of(request.method, request.path)
        headers = []
        for raw_name, raw_value in request.raw_headers:
            name = raw_name.decode("latin-1")
            if name.lower() not in NOT_FORWARDED:
                headers.append((name, raw_value.decode("latin-1")))
        content: bytes | AsyncIterator[bytes] | None
        if provider is None:
            # streamed on as it comes; a request that has no body is sent with none
            content = _passed_on(request.content) if request.body_exists else None
        else:
            content = await self._message_body(request, headers)
            if isinstance(content, bytes):  # held whole: its length is said again
                headers = [(n, v) for n, v in headers if n.lower() != "content-length"]
        try:
            answer = await self._client.request(
                request.method,
                self.upstream + request.raw_path,
                headers=headers,
                data=content,
                allow_redirects=False,
                skip_auto_headers=_NOT_ADDED,
            )
        except (aiohttp.ClientConnectionError, asyncio.TimeoutError) as exc:
            kind = type(exc).__name__
            self.report(Exchange(request.method, request.path, Verdict.UNREACHABLE, reason=kind))
            body = unreachable_body(provider, kind)
            return web.Response(status=502, body=body, content_type="application/json")
        async with answer:
            response = web.StreamResponse(status=answer.status, reason=answer.reason)
            for raw_name, raw_value in answer.raw_headers:
                name = raw_name.decode("latin-1")
                if name.lower() not in HOP_BY_HOP:
                    response.headers.add(name, raw_value.decode("latin-1"))
            await response.prepare(request)
            async for chunk in answer.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
        return response

    async def _message_body(
        self, request: web.Request, headers: list[tuple[str, str]]
    ) -> bytes | AsyncIterator[bytes]:
        """A message endpoint's body, repaired (or as it came, reported when the engine could
        not read it); one larger than the record-size limit is never held whole: it streams on
        unread from where the limit was passed."""
        method, path = request.method, request.path
        limit = self.options.max_record_bytes
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = await request.content.readany()
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            self.report(Exchange(method, path, Verdict.TOO_LARGE, reason=f"over {limit} bytes"))
            return _passed_on(request.content, first=chunks)
        body = b"".join(chunks)
        encoding = request.headers.get("content-encoding", "identity").strip().lower()
        if encoding != "identity":
            self.report(Exchange(method, path, Verdict.NOT_JSON, reason=f"{encoding}-encoded"))
            return body
        if len(body) <= INLINE_BYTES:
            done = repaired_body(body, options=self.options, check_only=self.check_only)
        else:
            done = await asyncio.to_thread(
                repaired_body, body, options=self.options, check_only=self.check_only
            )
        if done.verdict is not Verdict.CLEAN:
            self.report(Exchange(method, path, done.verdict, done.fixed, done.found, done.reason))
        return done.body


async def _passed_on(
    content: aiohttp.StreamReader, *, first: Sequence[bytes] = ()
) -> AsyncIterator[bytes]:
    """A request's body as it arrives: ``first``, the chunks already read, then the rest."""
    for chunk in first:
        yield chunk
    async for chunk in content.iter_any():
        yield chunk
