"""`toolpatch proxy` between the providers' own SDK clients and a fake of their APIs
(docs/proxy.md).

The proxy runs as a real process (`tests.proxy_process`) in front of `tests.fake_providers`,
which refuses a history its provider refuses; the real ``anthropic``, ``openai`` and
``google-genai`` clients talk to it by their base URL, as a user points them. Each test sends a
request straight to the fake and the same one through the proxy, and compares: a history with a
dangling call is refused straight and accepted through the proxy; a clean one arrives byte for
byte; a stream's first event reaches the client before the upstream has sent the rest; status
and headers pass both ways; the key never appears in anything the proxy prints.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

import patchcore
from benchmarks.proxy import claude_code_body
from tests.fake_providers import REPLY, Providers, providers
from tests.helpers import TP001_TEXT, text
from tests.provider_rules import validate
from tests.proxy_process import RunningProxy, running_proxy
from toolpatch.integrations.proxy import INLINE_BYTES

KEY = "sk-test-Zq81SecretKeyNeverPrinted"
MODEL = "fake-model"


@pytest.fixture
def upstream() -> Iterator[Providers]:
    with providers() as fake:
        yield fake


@pytest.fixture
def proxy(upstream: Providers, tmp_path: Path) -> Iterator[RunningProxy]:
    with running_proxy(upstream.url, "--isolated", cwd=tmp_path) as running:
        yield running


# --- each SDK's request, and the history it sends --------------------------------------------


def _anthropic_history(dangling: bool) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Oslo"}}
    answer = [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "4 C"}]
    return [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": "Thanks, and tomorrow?" if dangling else answer},
    ]


def _chat_history(dangling: bool) -> list[dict[str, Any]]:
    call = {
        "id": "call_01",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    answer = {"role": "tool", "tool_call_id": "call_01", "content": "4 C"}
    return [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "Thanks, and tomorrow?"} if dangling else answer,
    ]


def _responses_history(dangling: bool) -> list[dict[str, Any]]:
    call = {
        "type": "function_call",
        "call_id": "call_01",
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
    }
    answer = {"type": "function_call_output", "call_id": "call_01", "output": "4 C"}
    later = {"role": "user", "content": "Thanks, and tomorrow?"}
    return [{"role": "user", "content": "Weather in Oslo?"}, call, later if dangling else answer]


def _gemini_history(dangling: bool) -> list[dict[str, Any]]:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    answer = {"functionResponse": {"name": "get_weather", "response": {"output": "4 C"}}}
    later = {"text": "Thanks, and tomorrow?"}
    return [
        {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
        {"role": "model", "parts": [call]},
        {"role": "user", "parts": [later if dangling else answer]},
    ]


def _anthropic(base: str, dangling: bool) -> str:
    client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0)
    answer = client.messages.create(
        model=MODEL, max_tokens=64, messages=_anthropic_history(dangling)
    )
    block = answer.content[0]
    assert isinstance(block, anthropic.types.TextBlock)
    return block.text


def _count_tokens(base: str, dangling: bool) -> str:
    client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0)
    counted = client.messages.count_tokens(model=MODEL, messages=_anthropic_history(dangling))
    return str(counted.input_tokens)


def _chat(base: str, dangling: bool) -> str:
    client = openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0)
    answer = client.chat.completions.create(model=MODEL, messages=_chat_history(dangling))
    return str(answer.choices[0].message.content)


def _responses(base: str, dangling: bool) -> str:
    client = openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0)
    answer = client.responses.create(model=MODEL, input=_responses_history(dangling))
    return answer.output_text


def _gemini_client(base: str) -> genai.Client:
    return genai.Client(
        api_key=KEY, http_options=genai_types.HttpOptions(base_url=base, api_version="v1beta")
    )


def _gemini(base: str, dangling: bool) -> str:
    client = _gemini_client(base)  # held: a client closes its connections once collected
    answer = client.models.generate_content(model=MODEL, contents=_gemini_history(dangling))
    return str(answer.text)


#: What the model is told of the dangling call: TP001's text (Gemini's calls have no id).
TOLD = {
    "toolu_01": text(TP001_TEXT, "get_weather", "toolu_01"),
    "call_01": text(TP001_TEXT, "get_weather", "call_01"),
    "gemini": text(TP001_TEXT.replace(" with id {id}", ""), "get_weather", ""),
}

#: Each endpoint the proxy repairs: its SDK call (base URL, dangling?) → the answer's text, the
#: error its SDK raises for a refusal, the dialect of its list, where the list is, and what the
#: repair tells the model (`TOLD`).
ENDPOINTS: dict[str, tuple[Callable[[str, bool], str], type[Exception], str, str, str]] = {
    "anthropic messages": (
        _anthropic,
        anthropic.BadRequestError,
        "anthropic",
        "messages",
        "toolu_01",
    ),
    "anthropic count_tokens": (
        _count_tokens,
        anthropic.BadRequestError,
        "anthropic",
        "messages",
        "toolu_01",
    ),
    "openai chat": (_chat, openai.BadRequestError, "openai-chat", "messages", "call_01"),
    "openai responses": (
        _responses,
        openai.BadRequestError,
        "openai-responses",
        "input",
        "call_01",
    ),
    "gemini": (_gemini, genai_errors.ClientError, "gemini", "contents", "gemini"),
}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_dangling_history_is_refused_straight_and_accepted_through_the_proxy(
    endpoint: str, upstream: Providers, proxy: RunningProxy
) -> None:
    call, refused, dialect, key, told = ENDPOINTS[endpoint]
    with pytest.raises(refused):
        call(upstream.url, True)
    assert upstream.received[-1].refused is not None

    answer = call(proxy.url, True)
    assert answer in (REPLY, "12")
    sent = upstream.received[-1]
    assert sent.refused is None
    assert validate(dialect, sent.body[key]) == []
    assert TOLD[told] in json.dumps(sent.body[key])
    assert ": repaired (1 TP001)" in proxy.stderr


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_clean_history_arrives_byte_for_byte(
    endpoint: str, upstream: Providers, proxy: RunningProxy
) -> None:
    call = ENDPOINTS[endpoint][0]
    assert call(upstream.url, False) in (REPLY, "12")
    straight = upstream.received[-1]
    assert call(proxy.url, False) in (REPLY, "12")
    through = upstream.received[-1]
    assert through.raw == straight.raw
    assert through.path == straight.path
    same = ("x-api-key", "x-goog-api-key", "authorization", "content-type", "user-agent")
    assert {h: through.headers.get(h) for h in same} == {h: straight.headers.get(h) for h in same}
    assert proxy.stderr.count("\n") == 1, "a clean request is not logged"


@pytest.mark.parametrize("size", ["inline", "in a thread"])
def test_a_claude_code_body_is_repaired_or_forwarded_whatever_its_size(
    size: str, upstream: Providers, proxy: RunningProxy
) -> None:
    """A body as Claude Code sends it (tools with their schemas, system blocks, thinking):
    clean, byte for byte; with a call left open, repaired and accepted. A body up to
    ``INLINE_BYTES`` is repaired on the event loop, a larger one in a thread: both the same."""
    body = json.loads(claude_code_body(100))
    if size == "in a thread":
        body["system"][-1]["text"] *= 2 * INLINE_BYTES // len(body["system"][-1]["text"])
    clean = json.dumps(body, separators=(",", ":")).encode()
    assert (len(clean) > INLINE_BYTES) is (size == "in a thread")
    headers = {"x-api-key": KEY, "content-type": "application/json"}
    assert _post(f"{proxy.url}/v1/messages", clean, **headers).status_code == 200
    assert upstream.received[-1].raw == clean
    body["messages"][2]["content"] = "Go on."  # the first call's result, gone
    dangling = json.dumps(body, separators=(",", ":")).encode()
    assert _post(f"{proxy.url}/v1/messages", dangling, **headers).status_code == 200
    sent = upstream.received[-1]
    assert sent.refused is None and validate("anthropic", sent.body["messages"]) == []
    assert {k: v for k, v in sent.body.items() if k != "messages"} == {
        k: v for k, v in body.items() if k != "messages"
    }
    assert proxy.stderr.count(": repaired (1 TP001)") == 1, proxy.stderr


def _first_then_rest(upstream: Providers, chunks: Iterator[Any]) -> list[Any]:
    """Every chunk of a stream; the upstream is released once the first has arrived."""
    seen = [next(chunks)]
    assert upstream.held == [], "the upstream finished before the client saw the first event"
    upstream.release.set()
    seen.extend(chunks)
    return seen


def _anthropic_stream(base: str, upstream: Providers) -> str:
    client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0)
    with client.messages.stream(
        model=MODEL, max_tokens=64, messages=_anthropic_history(True)
    ) as stream:
        events = _first_then_rest(upstream, iter(stream))
        assert events[0].type == "message_start"
        return stream.get_final_text()


def _chat_stream(base: str, upstream: Providers) -> str:
    client = openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0)
    chunks = client.chat.completions.create(model=MODEL, messages=_chat_history(True), stream=True)
    seen = _first_then_rest(upstream, iter(chunks))
    return "".join(c.choices[0].delta.content or "" for c in seen)


def _gemini_stream(base: str, upstream: Providers) -> str:
    client = _gemini_client(base)
    chunks = client.models.generate_content_stream(model=MODEL, contents=_gemini_history(True))
    seen = _first_then_rest(upstream, iter(chunks))
    return "".join(c.text or "" for c in seen)


STREAMS = {"anthropic": _anthropic_stream, "openai chat": _chat_stream, "gemini": _gemini_stream}


@pytest.mark.parametrize("client", STREAMS)
def test_a_stream_arrives_event_by_event(
    client: str, upstream: Providers, proxy: RunningProxy
) -> None:
    """The upstream holds the stream open after its first event until the client has seen it:
    the proxy passes each event on as it comes (and repairs the request's history first)."""
    assert STREAMS[client](proxy.url, upstream) == REPLY
    assert upstream.held == [True], "the upstream's wait ended by its timeout"
    assert upstream.received[-1].refused is None


def test_status_and_headers_pass_both_ways(upstream: Providers, proxy: RunningProxy) -> None:
    """The client's headers reach the upstream as it sends them straight (its key, version,
    beta flags and user agent), but for ``host`` (another server) and ``connection`` (a header
    of the connection, not the request); the upstream's status, request id and rate-limit
    headers reach the client, a 429 included."""
    seen = []
    for base in (upstream.url, proxy.url):
        client = anthropic.Anthropic(
            api_key=KEY,
            base_url=base,
            max_retries=0,
            default_headers={"anthropic-beta": "tools-2024-04-04", "x-custom": "kept"},
        )
        raw = client.messages.with_raw_response.create(
            model=MODEL, max_tokens=64, messages=_anthropic_history(False)
        )
        assert raw.status_code == 200 and raw.headers["request-id"] == "req_fake1"
        headers = upstream.received[-1].headers.items()
        seen.append({k: v for k, v in headers if k not in ("host", "connection")})
    straight, through = seen
    assert through == straight
    assert through["x-custom"] == "kept" and through["user-agent"].startswith("Anthropic/Python")
    assert any(KEY in value for value in through.values())

    limits = {
        "retry-after": "17",
        "anthropic-ratelimit-requests-remaining": "0",
        "request-id": "req_limited",
    }
    upstream.answer_next(429, limits)
    with pytest.raises(anthropic.RateLimitError) as limited:
        client.messages.create(model=MODEL, max_tokens=64, messages=_anthropic_history(False))
    answer = limited.value.response
    assert answer.status_code == 429
    assert {name: answer.headers[name] for name in limits} == limits
    error = {"type": "rate_limit_error", "message": "scripted"}
    assert limited.value.body == {"type": "error", "error": error}


def _post(url: str, data: bytes, **headers: str) -> httpx.Response:
    return httpx.post(url, content=data, headers=headers, timeout=30)


def test_what_the_engine_cannot_read_goes_on_unchanged_and_is_logged(
    upstream: Providers, tmp_path: Path
) -> None:
    """Not JSON, too large (over --max-record-mib, never read whole), JSON of no known shape:
    each forwarded byte for byte, the upstream's answer returned, one line logged for each; the
    proxy goes on serving."""
    big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 2**21}]})
    bodies = {
        "not JSON": b"{not json",
        "too large": big.encode(),
        "unknown shape": b'{"model": "m", "prompt": "hello"}',
    }
    with running_proxy(upstream.url, "--isolated", "--max-record-mib", "1", cwd=tmp_path) as proxy:
        for data in bodies.values():
            answered = _post(f"{proxy.url}/v1/messages", data, **{"x-api-key": KEY})
            assert upstream.received[-1].raw == data
            assert answered.status_code in (200, 400)
        assert _anthropic(proxy.url, False) == REPLY
    log = [line for line in proxy.stderr.splitlines() if "POST" in line]
    assert log == [
        "toolpatch proxy: POST /v1/messages: forwarded unchanged: not JSON (DecodeError at line 1)",
        f"toolpatch proxy: POST /v1/messages: forwarded unchanged: too large (over {2**20} bytes)",
        "toolpatch proxy: POST /v1/messages: forwarded unchanged: no history toolpatch reads "
        "(NoHistoryError at line 1)",
    ]
    assert proxy.process.returncode == 0, proxy.stderr


UNREACHABLE = {
    "anthropic messages": (_anthropic, anthropic.InternalServerError),
    "openai chat": (_chat, openai.InternalServerError),
    "gemini": (_gemini, genai_errors.ServerError),
}


def test_an_unreachable_upstream_is_a_clean_502_in_each_providers_shape(tmp_path: Path) -> None:
    with providers() as gone:
        url = gone.url
    with running_proxy(url, "--isolated", cwd=tmp_path) as proxy:
        for name, (call, error) in UNREACHABLE.items():
            with pytest.raises(error) as failed:
                call(proxy.url, True)
            said = "the upstream could not be reached (ClientConnectorError)"
            assert said in str(failed.value), name
        assert proxy.process.poll() is None, "the proxy is still serving"
    assert proxy.stderr.count("the upstream could not be reached: answered 502") == 3


def test_check_only_reports_and_changes_nothing(upstream: Providers, tmp_path: Path) -> None:
    with (
        running_proxy(upstream.url, "--isolated", "--check-only", cwd=tmp_path) as proxy,
        pytest.raises(anthropic.BadRequestError),
    ):
        _anthropic(proxy.url, True)
    assert upstream.received[-1].refused is not None, "the body went on as it was"
    assert "POST /v1/messages: found, forwarded unchanged (1 TP001)" in proxy.stderr


def test_the_json_log_and_the_fix_options(upstream: Providers, tmp_path: Path) -> None:
    """``--log-format json``: a JSON object a line on stdout; ``--repair drop`` (with
    ``--unsafe-fixes``) repairs as fix does with them: the call is gone."""
    options = ["--isolated", "--log-format", "json", "--repair", "drop", "--unsafe-fixes"]
    with running_proxy(upstream.url, *options, cwd=tmp_path) as proxy:
        assert _chat(proxy.url, True) == REPLY
    sent = upstream.received[-1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "user"]
    (line,) = proxy.stdout.splitlines()
    record = json.loads(line)
    assert {k: record[k] for k in ("method", "path", "outcome", "fixed")} == {
        "method": "POST",
        "path": "/v1/chat/completions",
        "outcome": "repaired",
        "fixed": {"TP001": 1},
    }


def test_the_key_never_appears_in_anything_the_proxy_prints(
    upstream: Providers, tmp_path: Path
) -> None:
    """Through every path that logs (a repair, a body the engine cannot read, a key in a Gemini
    query string, an unreachable upstream, the JSON log), the key is never printed."""
    for log_format in ("text", "json"):
        with running_proxy(
            upstream.url, "--isolated", "--log-format", log_format, cwd=tmp_path
        ) as proxy:
            _anthropic(proxy.url, True)
            _gemini(proxy.url, True)
            gemini_path = f"/v1beta/models/{MODEL}:generateContent?key={KEY}"
            _post(proxy.url + gemini_path, b"not json")
            assert upstream.received[-1].path == gemini_path, "the query string goes on"
        printed = proxy.stdout + proxy.stderr
        assert printed.count("repaired") + printed.count('"repaired"') >= 2
        assert KEY not in printed and "Zq81" not in printed


def test_everything_else_passes_through_untouched(upstream: Providers, proxy: RunningProxy) -> None:
    """Other paths and methods: the body (even one with a dangling call), the query string and
    the headers go on as they came, the answer comes back, and nothing is logged."""
    client = openai.OpenAI(api_key=KEY, base_url=f"{proxy.url}/v1", max_retries=0)
    assert client.models.list().data == []
    assert upstream.received[-1].method == "GET" and upstream.received[-1].raw == b""
    data = json.dumps({"messages": _chat_history(True)}).encode()
    answered = _post(f"{proxy.url}/v1/embeddings?x=1", data, **{"x-api-key": KEY})
    assert answered.status_code == 404, "the fake knows no such endpoint, and says so"
    through = upstream.received[-1]
    assert (through.path, through.raw, through.headers["x-api-key"]) == (
        "/v1/embeddings?x=1",
        data,
        KEY,
    )
    assert proxy.stderr.count("\n") == 1, proxy.stderr


def test_a_target_that_is_not_a_path_is_refused(upstream: Providers, proxy: RunningProxy) -> None:
    """A request target that would name another server once appended to the upstream's URL
    (``@host/…``, an absolute URL) is refused, never forwarded."""
    address = proxy.url.removeprefix("http://")
    host, _, port = address.partition(":")
    for target in ("@example.com/v1/messages", "http://example.com/v1/messages"):
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            connection.sendall(f"GET {target} HTTP/1.1\r\nHost: {address}\r\n\r\n".encode())
            status = connection.recv(1024).split(b"\r\n", 1)[0]
        assert status.split()[1] == b"400", (target, status)
    assert upstream.received == []


def test_the_target_option_reaches_the_rules(upstream: Providers, tmp_path: Path) -> None:
    """``--target anthropic``, as with fix: the provider's own rules apply, here TP304 (a
    prefilled assistant turn, no fix): reported, and the body forwarded unchanged."""
    prefilled = [*_anthropic_history(False), {"role": "assistant", "content": "It is"}]
    data = json.dumps({"model": MODEL, "max_tokens": 64, "messages": prefilled}).encode()
    for target, said in ((), False), (("--target", "anthropic"), True):
        with running_proxy(upstream.url, "--isolated", *target, cwd=tmp_path) as proxy:
            assert _post(f"{proxy.url}/v1/messages", data).status_code == 200
        assert upstream.received[-1].raw == data
        assert ("found, forwarded unchanged (1 TP304)" in proxy.stderr) is said, proxy.stderr


def test_an_empty_error_result_is_refused_straight_and_filled_through_the_proxy(
    upstream: Providers, tmp_path: Path
) -> None:
    """``--target anthropic``: TP307's safe fix runs in the proxy, so a session whose failed
    tool left ``is_error: true`` with empty content (refused on every turn) is taken, the flag
    kept and the content the rule's text (docs/rules.md#empty-error-tool-result-tp307)."""
    failed = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "", "is_error": True}
    history = [*_anthropic_history(False)[:2], {"role": "user", "content": [failed]}]

    def create(base: str) -> str:
        client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0)
        answer = client.messages.create(model=MODEL, max_tokens=64, messages=history)
        block = answer.content[0]
        assert isinstance(block, anthropic.types.TextBlock)
        return block.text

    with pytest.raises(anthropic.BadRequestError) as refused:
        create(upstream.url)
    error = "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"
    assert error in str(refused.value)

    with running_proxy(upstream.url, "--isolated", "--target", "anthropic", cwd=tmp_path) as proxy:
        assert create(proxy.url) == REPLY
    sent = upstream.received[-1]
    assert sent.refused is None
    assert validate("anthropic", sent.body["messages"]) == []
    rule = patchcore.RULES["TP307"]
    assert sent.body["messages"][2]["content"] == [{**failed, "content": rule.text}]
    assert ": repaired (1 TP307)" in proxy.stderr
