"""Builders of agent session logs, line by line, for the session tests.

Claude Code sessions, Claude Agent SDK streams, Codex rollouts and Gemini CLI sessions are built
here in the shapes those tools write (compact JSON Lines with raw UTF-8, their session keys and
timestamps), so that a test states a whole log in a few lines and every expected value is stated
by the test, never read back from toolpatch. The shipped samples of these tools
(``samples/claude-code/`` and the like) are files on disk; these builders only serve the tests.

The uuid of a repair line Claude Code reads is the UUIDv5 of ``"<sessionId>/<first call id>"``
in `SESSION_NAMESPACE` (part of the contract: the same input always gets the same line).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tests.helpers import text
from tests.sample_cases import jsonl


def anthropic_result(template: str, name: str, call_id: str) -> dict[str, Any]:
    """The ``tool_result`` block a correct repair inserts (docs/formats.md#claude-code)."""
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": text(template, name, call_id),
        "is_error": True,
    }


def tool_use(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    """An Anthropic ``tool_use`` block."""
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


SESSION_NAMESPACE = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")


SESSION_ID = "7c1e4b52-0d3a-4f7e-9a61-2b8f0c9d4e13"


CLAUDE_SESSION = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/ana/shop",
    "sessionId": SESSION_ID,
    "version": "2.1.38",
    "gitBranch": "main",
    "slug": "brisk-orange-otter",
}


compact_jsonl = jsonl(separators=(",", ":"), ensure_ascii=False)


def read_events(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON Lines sample, one a line (to derive a variant of it)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def line_uuid(number: int) -> str:
    """A line's uuid, readable in the samples."""
    return f"6b0e4a1c-2d3f-4a5b-8c6d-{number:012x}"


def at(second: int) -> str:
    return f"2026-02-10T21:12:{second:02d}.000Z"


def one_block_message(
    model: str, message_id: str, block: dict[str, Any], usage: dict[str, int]
) -> dict[str, Any]:
    """An API response as Claude Code writes it: each content block on an entry of its own, in
    a copy of the response's message."""
    return {
        "model": model,
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }


def cc_assistant(
    number: int, parent: int, message_id: str, block: dict[str, Any], *, sidechain: bool = False
) -> dict[str, Any]:
    """One assistant line: one content block of the API message ``message_id``."""
    return {
        "parentUuid": line_uuid(parent),
        **CLAUDE_SESSION,
        "isSidechain": sidechain,
        "message": one_block_message(
            "claude-opus-4-6", message_id, block, {"input_tokens": 3, "output_tokens": 12}
        ),
        "requestId": "req_" + message_id.removeprefix("msg_"),
        "type": "assistant",
        "uuid": line_uuid(number),
        "timestamp": at(number),
    }


def cc_user(
    number: int, parent: int | None, content: Any, *, sidechain: bool = False, **extra: Any
) -> dict[str, Any]:
    """One user line (a prompt, or tool results with their ``extra`` keys)."""
    return {
        "parentUuid": None if parent is None else line_uuid(parent),
        **CLAUDE_SESSION,
        "isSidechain": sidechain,
        "type": "user",
        "message": {"role": "user", "content": content},
        "uuid": line_uuid(number),
        "timestamp": at(number),
        **extra,
    }


def cc_result(
    number: int, parent: int, call_id: str, output: str, *, source: int, sidechain: bool = False
) -> dict[str, Any]:
    """A tool result line as Claude Code writes it (hanging off the line of its call)."""
    block = {"tool_use_id": call_id, "type": "tool_result", "content": output, "is_error": False}
    return cc_user(
        number,
        parent,
        [block],
        sidechain=sidechain,
        toolUseResult={"stdout": output, "stderr": "", "interrupted": False},
        sourceToolAssistantUUID=line_uuid(source),
    )


def cc_progress(number: int, parent: int, call_id: str) -> dict[str, Any]:
    """A hook progress event of a running tool."""
    return {
        "parentUuid": line_uuid(parent),
        **CLAUDE_SESSION,
        "type": "progress",
        "data": {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash"},
        "toolUseID": call_id,
        "parentToolUseID": call_id,
        "uuid": line_uuid(number),
        "timestamp": at(number),
    }


SDK_SESSION = "3f9d6c2a-71b4-4e0a-9c85-5a2e1d7b6f40"


SDK_MODEL = "claude-sonnet-4-5-20250929"


def sdk_uuid(number: int) -> str:
    """An entry's uuid, readable in the samples."""
    return f"0c4e2f7a-9b1d-4e3c-8a5f-{number:012x}"


def sdk_init(number: int) -> dict[str, Any]:
    """The stream's first entry, as the CLI prints it."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": "/home/ana/shop",
        "session_id": SDK_SESSION,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"],
        "mcp_servers": [],
        "model": SDK_MODEL,
        "permissionMode": "default",
        "apiKeySource": "none",
        "output_style": "default",
        "uuid": sdk_uuid(number),
    }


def sdk_assistant(
    number: int, message_id: str, block: dict[str, Any], parent: str | None = None
) -> dict[str, Any]:
    """One assistant entry of the CLI's stream: one content block of API message ``message_id``."""
    return {
        "type": "assistant",
        "message": one_block_message(
            SDK_MODEL,
            message_id,
            block,
            {"input_tokens": 4, "cache_read_input_tokens": 13542, "output_tokens": 9},
        ),
        "parent_tool_use_id": parent,
        "session_id": SDK_SESSION,
        "uuid": sdk_uuid(number),
    }


def sdk_user(number: int, content: Any, parent: str | None = None) -> dict[str, Any]:
    """One user entry of the CLI's stream (a subagent's prompt, or a message sent mid-run)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": parent,
        "session_id": SDK_SESSION,
        "uuid": sdk_uuid(number),
    }


def sdk_output(number: int, call_id: str, output: str, parent: str | None = None) -> dict[str, Any]:
    """A tool result entry of the CLI's stream."""
    block = {"tool_use_id": call_id, "type": "tool_result", "content": output, "is_error": False}
    entry = sdk_user(number, [block], parent)
    entry["tool_use_result"] = {"stdout": output, "stderr": "", "interrupted": False}
    return entry


def sdk_final(number: int, subtype: str, turns: int) -> dict[str, Any]:
    """The stream's last entry."""
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": 41250,
        "num_turns": turns,
        "session_id": SDK_SESSION,
        "total_cost_usd": 0.0412,
        "permission_denials": [],
        "uuid": sdk_uuid(number),
    }


def kept(kind: str, content: list[Any], parent: str | None = None) -> dict[str, Any]:
    """One entry of a stream kept as a JSON array (the fixture's shape: no role, no ids)."""
    message: dict[str, Any] = {"content": content}
    if kind == "assistant":
        message["usage"] = {"input_tokens": 2, "output_tokens": 5}
    return {"type": kind, "parent_tool_use_id": parent, "message": message}


def rollout(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One Codex rollout line."""
    return {"timestamp": f"2026-05-12T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def codex_item(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return rollout(second, "response_item", payload)


def codex_event(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return rollout(second, "event_msg", payload)


def codex_user(second: int, prompt: str) -> list[dict[str, Any]]:
    """A user prompt: its event, and the message item the model sees."""
    return [
        codex_event(second, {"type": "user_message", "message": prompt, "images": []}),
        codex_item(
            second,
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        ),
    ]


def exec_call(call_id: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"cmd": command, "workdir": "/home/ana/shop"})
    return {
        "type": "function_call",
        "name": "exec_command",
        "arguments": arguments,
        "call_id": call_id,
    }


def stringified(records: Sequence[Any]) -> bytes:
    """``JSON.stringify(value, null, 2)``: two-space indent, raw UTF-8, no final newline."""
    (value,) = records
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")


GEMINI_CLI_SESSION = {
    "sessionId": "3f2b8c1e-7d4a-4e9b-a6f0-5c2d9e8b1a47",
    "projectHash": "9c4e1f7a2b8d3e6f0a5c9b2d7e4f1a8c3b6d9e2f5a0c7b4d1e8f3a6c9b2d5e8f",
    "startTime": "2026-03-02T08:14:05.112Z",
    "lastUpdated": "2026-03-02T08:16:41.930Z",
}


GEMINI_TOKENS = {
    "input": 9120,
    "output": 64,
    "cached": 0,
    "thoughts": 212,
    "tool": 0,
    "total": 9396,
}


def gcli_message(second: int, kind: str, content: Any, **fields: Any) -> dict[str, Any]:
    """A session message: ``id``, ``timestamp``, ``type``, ``content``, then its own fields."""
    return {
        "id": f"5b1d7e2a-0c4f-4a8e-9d3b-{second:012d}",
        "timestamp": f"2026-03-02T08:{second // 60:02d}:{second % 60:02d}.000Z",
        "type": kind,
        "content": content,
        **fields,
    }


def gcli_turn(second: int, content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``gemini`` message holding tool calls, with its thoughts, model and tokens."""
    thought = {
        "subject": "Planning the next step",
        "description": "I need to look at the project before I answer.",
        "timestamp": f"2026-03-02T08:{second // 60:02d}:{second % 60:02d}.000Z",
    }
    return gcli_message(
        second,
        "gemini",
        content,
        toolCalls=calls,
        thoughts=[thought],
        model="gemini-2.5-pro",
        tokens=GEMINI_TOKENS,
    )


def gcli_call(
    name: str,
    call_id: str,
    args: dict[str, Any],
    status: str,
    *,
    output: str | None = None,
    display: str | None = None,
    shown_as: str = "ReadFile",
) -> dict[str, Any]:
    """A ``toolCalls`` entry in the CLI's key order; ``output``: the result it recorded (none for
    a call still in flight)."""
    entry: dict[str, Any] = {"id": call_id, "name": name, "args": args}
    if output is not None:
        response = {"error" if status in ("error", "cancelled") else "output": output}
        entry["result"] = [
            {"functionResponse": {"id": call_id, "name": name, "response": response}}
        ]
    entry.update(status=status, timestamp="2026-03-02T08:15:02.000Z")
    if display is not None:
        entry["resultDisplay"] = display
    entry.update(displayName=shown_as, description=f"Runs {name}.", renderOutputAsMarkdown=False)
    return entry


def gemini_cli_session(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {**GEMINI_CLI_SESSION, "messages": messages}


#: A time as session logs write it (``"2026-02-10T21:12:11.000Z"``), quotes included.
LOGGED_TIME = re.compile(rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"')


def newest_time(data: bytes) -> float:
    """The newest time written in a log (seconds since the epoch)."""
    return max(_seconds(found) for found in LOGGED_TIME.finditer(data))


def shifted(data: bytes, seconds: float) -> bytes:
    """``data`` with every time in it moved ``seconds`` on, each written as it was."""

    def moved(found: re.Match[bytes]) -> bytes:
        when = datetime.fromtimestamp(_seconds(found) + seconds, tz=timezone.utc)
        fraction = found[2] or b""
        digits = when.strftime("%f")[: max(len(fraction) - 1, 0)]
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S") + (f".{digits}" if fraction else "")
        return b'"' + stamp.encode() + b'Z"'

    return LOGGED_TIME.sub(moved, data)


def _seconds(found: re.Match[bytes]) -> float:
    whole = datetime.strptime(found[1].decode(), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    return whole.timestamp() + float(b"0" + (found[2] or b""))


def running(data: bytes, *, ago: float = 0) -> tuple[bytes, float]:
    """A real session log as if its agent were still writing it: every time in it moved on by
    one shift (returned, for the expected output), so that its newest entry is ``ago`` seconds
    old."""
    shift = round(time.time() - ago - newest_time(data))  # whole seconds: fractions stay
    return shifted(data, shift), shift


def sdk_conversations(entries: list[Any]) -> list[list[dict[str, Any]]]:
    """Each conversation's API messages: consecutive entries of one type are one message."""
    threads: dict[object, list[dict[str, Any]]] = {}
    for entry in entries:
        role = entry.get("type")
        if role not in ("user", "assistant"):
            continue
        out = threads.setdefault(entry.get("parent_tool_use_id"), [])
        content = entry["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if out and out[-1]["role"] == role:
            out[-1]["content"] += blocks
        else:
            out.append({"role": role, "content": list(blocks)})
    return list(threads.values())


def claude_code_session(turns: int) -> bytes:
    """A Claude Code session of ``turns`` turns, each a call nobody answered and then a new
    prompt (each a finding whose repair adds a line and re-chains the prompt's line)."""
    lines = [cc_user(1, None, "go")]
    for k in range(turns):
        number = 2 + 2 * k
        lines.append(cc_assistant(number, number - 1, f"msg_{k}", tool_use(f"toolu_{k}", "Bash")))
        lines.append(cc_user(number + 1, number, "next"))
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def copilot_chat(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The main agent's messages of a GitHub Copilot CLI events.jsonl as the CLI sends them,
    rebuilt from the SDK's event types (not with toolpatch's reader)."""
    messages: list[dict[str, Any]] = []
    for row in rows:
        data = row["data"]
        if row.get("agentId"):
            continue
        if row["type"] == "user.message":
            messages.append({"role": "user", "content": data["content"]})
        elif row["type"] == "assistant.message":
            message: dict[str, Any] = {"role": "assistant", "content": data["content"]}
            if data.get("toolRequests"):
                message["tool_calls"] = [
                    {
                        "id": r["toolCallId"],
                        "type": "function",
                        "function": {"name": r["name"], "arguments": json.dumps(r["arguments"])},
                    }
                    for r in data["toolRequests"]
                ]
            messages.append(message)
        elif row["type"] == "tool.execution_complete":
            text = data["result"]["content"] if data["success"] else data["error"]["message"]
            messages.append({"role": "tool", "tool_call_id": data["toolCallId"], "content": text})
    return messages
