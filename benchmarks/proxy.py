"""What `toolpatch proxy` adds to a request's latency, as a ratio, and whether its memory stays
flat (docs/benchmarks.md#the-proxy).

``python -m benchmarks.proxy`` starts, each a process of its own, an upstream that answers every
request after ``--delay-ms`` (20 ms: a provider's first byte is never faster) and the proxy in
front of it (``toolpatch proxy --upstream``), then sends ``--clients`` clients at once (16), each
a loop of requests that alternates between the upstream straight and the proxy, so that a
machine that slows down mid-run slows both alike. Each request is a body of ``--messages``
messages (100: tool calls and their results, `BODIES`): OpenAI Chat and Anthropic, clean (the
common case, forwarded byte for byte), Anthropic as Claude Code sends it (tools, system blocks,
thinking: `claude_code_body`), and Anthropic with one call left unanswered (repaired).
It prints the median and the 99th percentile of each, their ratios through the proxy to
straight, the CPU time each process spent per request, and the proxy's resident memory after
a tenth of ``--memory-requests`` (10,000) and after all of them, then the verdicts against the
targets.

Needs the ``proxy`` extra (aiohttp), which the upstream uses too; the clients are httpx's, as
the providers' SDKs are.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

#: The targets: the ratio through the proxy to straight, at the median and the 99th percentile
#: (of the clean requests), and the growth of the proxy's memory from the first tenth of
#: ``--memory-requests`` to the last.
MEDIAN_RATIO = 1.1
P99_RATIO = 1.3
MEMORY_GROWTH = 1.10
#: Requests each route gets before any is timed (connections opened, caches warm).
WARM_UP = 100
LISTENING = re.compile(r"listening on (http://\S+),")
HEADERS = {
    "content-type": "application/json",
    "x-api-key": "sk-bench",
    "anthropic-version": "2023-06-01",
}
ANSWER = json.dumps(
    {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "bench",
        "content": [{"type": "text", "text": "OK."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }
).encode()


def anthropic_body(messages: int, *, dangling: bool) -> bytes:
    """A Messages request of ``messages`` messages: a prompt, then call-and-result rounds;
    ``dangling``: the first call's result replaced by a new prompt (``fix`` answers it)."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Start."}]
    for k in range((messages - 1) // 2):
        call = {"type": "tool_use", "id": f"toolu_{k:04d}", "name": "read", "input": {"n": k}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{k:04d}", "content": "x" * 200}
        prompt = {"type": "text", "text": f"Step {k}: go on."}
        history.append({"role": "assistant", "content": [{"type": "text", "text": "On it."}, call]})
        history.append({"role": "user", "content": [prompt] if dangling and k == 0 else [result]})
    return json.dumps({"model": "bench", "max_tokens": 64, "messages": history}).encode()


def chat_body(messages: int) -> bytes:
    """An OpenAI Chat Completions request of ``messages`` messages, every call answered."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Start."}]
    for k in range((messages - 1) // 2):
        arguments = json.dumps({"n": k})
        call = {
            "id": f"call_{k}",
            "type": "function",
            "function": {"name": "read", "arguments": arguments},
        }
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"call_{k}", "content": "x" * 200})
    return json.dumps({"model": "bench", "messages": history}).encode()


#: Claude Code's tools as it sends them (2.1.332: names, and the JSON Schema keywords of their
#: ``input_schema``), each with its properties: name → (property → JSON type).
CLAUDE_CODE_TOOLS: dict[str, dict[str, str]] = {
    "Agent": {"description": "string", "prompt": "string", "subagent_type": "string"},
    "Bash": {"command": "string", "timeout": "number", "description": "string",
             "run_in_background": "boolean"},
    "Edit": {"file_path": "string", "old_string": "string", "new_string": "string",
             "replace_all": "boolean"},
    "Glob": {"pattern": "string", "path": "string"},
    "Grep": {"pattern": "string", "path": "string", "glob": "string", "output_mode": "string",
             "-i": "boolean", "-n": "boolean", "head_limit": "number", "multiline": "boolean"},
    "Read": {"file_path": "string", "offset": "integer", "limit": "integer", "pages": "string"},
    "Write": {"file_path": "string", "content": "string"},
    "NotebookEdit": {"notebook_path": "string", "cell_id": "string", "new_source": "string",
                     "cell_type": "string", "edit_mode": "string"},
    "WebFetch": {"url": "string", "prompt": "string"},
    "WebSearch": {"query": "string", "allowed_domains": "array", "blocked_domains": "array"},
    "TodoWrite": {"todos": "array"},
    "Skill": {"skill": "string", "args": "string"},
    "ToolSearch": {"query": "string", "max_results": "number"},
    "ScheduleWakeup": {"delaySeconds": "number", "reason": "string", "prompt": "string"},
    "ListAgents": {"cursor": "string"},
    "SendMessage": {"to": "string", "message": "string"},
    "TaskStop": {"task_id": "string"},
    "Monitor": {"command": "string", "timeout": "number"},
    "CronCreate": {"schedule": "string", "prompt": "string"},
    "ExitPlanMode": {"plan": "string"},
}  # fmt: skip


def _schema(properties: dict[str, str], k: int) -> dict[str, Any]:
    """A tool's ``input_schema`` as Claude Code writes it (zod's JSON Schema): a described
    property of each type, an enum now and then, arrays of strings or of objects."""
    written: dict[str, Any] = {}
    for j, (name, kind) in enumerate(properties.items()):
        prop: dict[str, Any] = {"description": f"What {name} is for. " * (3 + (j * k) % 9)}
        prop["type"] = kind
        if kind == "array" and j % 2:
            prop["items"] = {"type": "string"}
        elif kind == "array":
            fields = {
                "content": {"type": "string", "minLength": 1},
                "status": {"type": "string", "enum": ["pending", "in_progress", "done"]},
            }
            prop["items"] = {
                "type": "object",
                "properties": fields,
                "required": list(fields),
                "additionalProperties": False,
            }
        elif kind == "number" and j % 2:
            prop.update(exclusiveMinimum=0, maximum=600000)
        elif kind == "string" and j % 3 == 2:
            prop["enum"] = ["default", "alternative", "other"]
        written[name] = prop
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": written,
        "required": list(properties)[:1],
        "additionalProperties": False,
    }  # fmt: skip


def claude_code_body(messages: int) -> bytes:
    """A Messages request as Claude Code sends every one: its twenty tools with their JSON
    Schemas (about 30 KiB), a system prompt of text blocks (cached), adaptive thinking,
    context management and metadata, then ``messages`` messages of `anthropic_body` (every call
    answered; compact JSON, as Node.js writes it)."""
    tools: list[dict[str, Any]] = [
        {"name": name, "description": f"The {name} tool. " + "Use it well. " * (20 + 17 * k % 90),
         "input_schema": _schema(properties, k)}
        for k, (name, properties) in enumerate(CLAUDE_CODE_TOOLS.items())
    ]  # fmt: skip
    tools[-1]["cache_control"] = {"type": "ephemeral"}
    cached = {"type": "ephemeral"}
    system = [
        {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332;"},
        {"type": "text", "text": "You are Claude Code.", "cache_control": cached},
        {"type": "text", "text": "Follow the rules. " * 400, "cache_control": cached},
    ]
    history = json.loads(anthropic_body(messages, dangling=False))["messages"]
    body = {
        "model": "claude-bench",
        "messages": history,
        "system": system,
        "tools": tools,
        "metadata": {"user_id": json.dumps({"device_id": "0" * 64, "session_id": "s-1"})},
        "max_tokens": 32000,
        "thinking": {"type": "adaptive"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        "output_config": {"effort": "medium"},
        "stream": False,
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


#: The requests timed: name → (path, body for ``--messages``, whether the targets apply). The
#: targets are a clean request's (the common case); a repaired one is reported.
BODIES: dict[str, tuple[str, Callable[[int], bytes], bool]] = {
    "OpenAI Chat, clean": ("/v1/chat/completions", chat_body, True),
    "Anthropic, clean": ("/v1/messages", lambda n: anthropic_body(n, dangling=False), True),
    "Anthropic as Claude Code sends it, clean": ("/v1/messages", claude_code_body, True),
    "Anthropic, one call unanswered": (
        "/v1/messages",
        lambda n: anthropic_body(n, dangling=True),
        False,
    ),
}


# --- the upstream: answers after a delay -----------------------------------------------------


def serve_upstream(delay: float) -> None:
    """Serve an upstream that reads each request whole and answers ``ANSWER`` ``delay`` s later,
    on a free port of 127.0.0.1, said on stderr as the proxy says it."""
    import socket

    from aiohttp import web

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(delay)
        return web.Response(
            body=ANSWER, content_type="application/json", headers={"request-id": "req_bench"}
        )

    app = web.Application(client_max_size=2**30)
    app.router.add_route("*", "/{path:.*}", answer)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(2048)
    sys.stderr.write(f"upstream: listening on http://127.0.0.1:{listening.getsockname()[1]},\n")
    sys.stderr.flush()
    web.run_app(app, sock=listening, print=None, access_log=None)


def started(command: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """A server ``command`` started, and the URL it says it listens on."""
    process = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    found = LISTENING.search(line)
    if found is None:
        process.kill()
        raise SystemExit(f"{' '.join(command)} did not start: {line}{process.stderr.read()}")
    return process, found.group(1)


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (user and system, Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    """A process's resident memory now (``VmRSS``, Linux)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)[1])  # type: ignore[index]


# --- the clients --------------------------------------------------------------------------------


async def timed(
    urls: dict[str, str], data: bytes, *, clients: int, each: int
) -> dict[str, list[float]]:
    """``clients`` loops at once, each sending ``each`` requests to every URL, alternating: the
    seconds each request took, by URL name."""
    seconds: dict[str, list[float]] = {name: [] for name in urls}
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=4 * clients)
    async with httpx.AsyncClient(limits=limits, timeout=60, trust_env=False) as client:

        async def loop(k: int) -> None:
            names = list(urls)
            for i in range(each):
                for name in names if (i + k) % 2 == 0 else names[::-1]:
                    start = time.perf_counter()
                    answer = await client.post(urls[name], content=data, headers=HEADERS)
                    took = time.perf_counter() - start
                    if answer.status_code != 200:
                        raise SystemExit(f"{name}: {answer.status_code} {answer.text[:200]}")
                    seconds[name].append(took)

        await asyncio.gather(*(loop(k) for k in range(clients)))
    return seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="timed, per route and body")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--memory-requests", type=int, default=10_000)
    parser.add_argument("--serve-upstream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.delay_ms / 1000)
        return
    here = Path.cwd()
    upstream, upstream_url = started(
        [sys.executable, "-m", "benchmarks.proxy", "--serve-upstream", "--delay-ms",
         str(args.delay_ms)],
        here,
    )  # fmt: skip
    proxy, proxy_url = started(
        [sys.executable, "-m", "toolpatch", "proxy", "--upstream", upstream_url,
         "--listen", "127.0.0.1:0", "--isolated", "--log-format", "json"],
        here,
    )  # fmt: skip
    try:
        each = max(1, args.requests // args.clients)
        print(
            f"{args.clients} clients at once, {each * args.clients} requests per route and body, "
            f"{args.messages} messages each, the upstream answering after {args.delay_ms:g} ms\n"
        )
        print("| body | route | median (ms) | p99 (ms) |\n|---|---|---:|---:|")
        verdicts = []
        cpu: dict[str, tuple[float, float]] = {}
        for name, (path, made, targets) in BODIES.items():
            urls = {"straight": upstream_url + path, "proxy": proxy_url + path}
            data = made(args.messages)
            asyncio.run(timed(urls, data, clients=args.clients, each=WARM_UP // args.clients + 1))
            used = {process.pid: cpu_seconds(process.pid) for process in (upstream, proxy)}
            seconds = asyncio.run(timed(urls, data, clients=args.clients, each=each))
            spent = {pid: cpu_seconds(pid) - before for pid, before in used.items()}
            cpu[name] = (
                spent[proxy.pid] / (each * args.clients),
                spent[upstream.pid] / (2 * each * args.clients),
            )
            medians = {route: statistics.median(s) for route, s in seconds.items()}
            p99s = {route: percentile(s, 0.99) for route, s in seconds.items()}
            for route in urls:
                print(
                    f"| {name} ({len(data) // 1024} KiB) | {route} | "
                    f"{medians[route] * 1000:.1f} | {p99s[route] * 1000:.1f} |"
                )
            for what, ratio, bound in (
                ("median", medians["proxy"] / medians["straight"], MEDIAN_RATIO),
                ("p99", p99s["proxy"] / p99s["straight"], P99_RATIO),
            ):
                verdict = ("PASS" if ratio <= bound else "MISS") if targets else "(reported)"
                limit = f" (≤ {bound})" if targets else ""
                verdicts.append(f"- {name}, {what}: {ratio:.2f}x straight{limit} {verdict}")
        print("\nCPU time per request: " + "; ".join(
            f"{name}, the proxy {p * 1000:.2f} ms (the upstream {u * 1000:.2f} ms)"
            for name, (p, u) in cpu.items()
        ))  # fmt: skip
        clean = chat_body(args.messages)
        proxy_only = {"proxy": f"{proxy_url}/v1/chat/completions"}
        first = max(args.clients, args.memory_requests // 10)
        asyncio.run(timed(proxy_only, clean, clients=args.clients, each=first // args.clients))
        early = rss_kb(proxy.pid)
        rest = max(0, args.memory_requests - first)
        asyncio.run(timed(proxy_only, clean, clients=args.clients, each=rest // args.clients))
        late = rss_kb(proxy.pid)
        growth = late / early
        print(
            f"\nthe proxy's resident memory: {early / 1024:.1f} MiB after {first:,} requests, "
            f"{late / 1024:.1f} MiB after {args.memory_requests:,}\n"
        )
        verdict = "PASS" if growth <= MEMORY_GROWTH else "MISS"
        verdicts.append(f"- memory over {args.memory_requests:,} requests: {growth:.2f}x "
                        f"(≤ {MEMORY_GROWTH}) {verdict}")  # fmt: skip
        print("\n".join(verdicts))
    finally:
        for process in (proxy, upstream):
            process.terminate()
            process.wait(30)
            if process.stderr is not None:
                process.stderr.close()


if __name__ == "__main__":
    main()
