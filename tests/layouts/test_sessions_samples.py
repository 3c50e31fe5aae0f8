"""The repaired session samples pass their provider's rules, conversation by conversation.

A session's conversations run across its event lines, so they are rebuilt here the way the
issue describes Claude Code and Codex rebuilding them (not with toolpatch's reader): Claude Code
keeps the user and assistant lines of each thread (main, or sidechain) in file order, lines of
one response (``message.id``) making one assistant message and consecutive user lines one user
message; Codex keeps the ``response_item`` payloads (in the 2025 layouts, the lines after the first
that have no ``record_type``). A Claude Agent SDK stream (JSON Lines, or
one JSON array) keeps the user and assistant entries of each conversation (the main thread,
``parent_tool_use_id`` null, and each subagent's, named by that id) in file order, consecutive
entries of one type making one message. A Gemini CLI session log keeps the last version of each
message (by ``id``, in the place of its first), less what a ``$rewindTo`` dropped, a ``$set``
of messages replacing those before it; they are held to Gemini's rules through the history
they resume into.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.provider_rules import anthropic, gemini_cli, openai_chat, responses
from tests.sample_cases import SAMPLES
from tests.session_logs import copilot_chat, sdk_conversations

#: Each folder of session samples, with the names of its repaired logs (gemini-cli/ also holds
#: session documents, which are message lists).
FOLDERS = {
    "claude-code": "*.fixed.json*",
    "claude-agent-sdk": "*.fixed.json*",
    "codex": "*.fixed.json*",
    "codex-bare": "*.fixed.jsonl",
    "copilot": "interrupted-bash.fixed.jsonl",
    "kimi": "*.fixed.jsonl",
    "gemini-cli": "*.fixed.jsonl",
}
FIXED = sorted(
    p.relative_to(SAMPLES).as_posix()
    for folder, pattern in FOLDERS.items()
    for p in (SAMPLES / folder).glob(pattern)
)


def records(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        entries: list[Any] = json.loads(text)
        return entries
    return [json.loads(line) for line in text.splitlines() if line]


def claude_threads(lines: list[Any]) -> list[list[dict[str, Any]]]:
    """Each thread's API messages (the samples keep at most one sidechain inline)."""
    threads: dict[bool, list[dict[str, Any]]] = {}
    last_id: dict[bool, object] = {}
    for line in lines:
        if line.get("type") not in ("user", "assistant"):
            continue
        side = bool(line.get("isSidechain"))
        out = threads.setdefault(side, [])
        message = line["message"]
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        role = line["type"]
        joins = role == "user" or message.get("id") == last_id.get(side)
        if out and out[-1]["role"] == role and joins:
            out[-1]["content"] += blocks
        else:
            out.append({"role": role, "content": list(blocks)})
        last_id[side] = message.get("id") if role == "assistant" else None
    return list(threads.values())


def gemini_cli_messages(lines: list[Any]) -> list[Any]:
    """The messages Gemini CLI reads back from its session log (``loadConversationRecord``: one
    map by id, a ``$set`` of messages a checkpoint that replaces it)."""
    latest: dict[str, Any] = {}
    for line in lines:
        if not isinstance(line, dict):
            continue
        if isinstance(line.get("$rewindTo"), str):
            keys = list(latest)
            cut = keys.index(line["$rewindTo"]) if line["$rewindTo"] in latest else 0
            latest = {key: latest[key] for key in keys[:cut]}
        elif isinstance(line.get("id"), str):
            latest[line["id"]] = line
        elif isinstance(line.get("$set"), dict) and isinstance(line["$set"].get("messages"), list):
            latest = {m["id"]: m for m in line["$set"]["messages"] if isinstance(m.get("id"), str)}
    return list(latest.values())


def conversations(path: Path) -> list[tuple[str, list[Any]]]:
    lines = records(path)
    if path.parent.name == "gemini-cli":
        return [("gemini-cli", gemini_cli_messages(lines))]
    if path.parent.name == "claude-agent-sdk":
        return [("anthropic", thread) for thread in sdk_conversations(lines)]
    if path.parent.name == "codex":
        items = [line["payload"] for line in lines if line["type"] == "response_item"]
        return [("responses", [as_codex_runs_it(item) for item in items])]
    if path.parent.name == "kimi":
        # Context.restore: every line that is no _system_prompt / _checkpoint / _usage record
        return [("openai-chat", [line for line in lines if not line["role"].startswith("_")])]
    if path.parent.name == "copilot":
        return [("openai-chat", copilot_chat(lines))]
    if path.parent.name == "codex-bare":
        # RolloutRecorder::resume: every line after the first that is an item (no record_type)
        items = [line for line in lines[1:] if "record_type" not in line]
        return [("responses", [as_codex_runs_it(item) for item in items])]
    return [("anthropic", thread) for thread in claude_threads(lines)]


def as_codex_runs_it(item: dict[str, Any]) -> dict[str, Any]:
    """Codex answers a ``local_shell_call`` with a ``function_call_output``
    (docs/formats.md#codex): for the Responses rules it is a function call."""
    return {**item, "type": "function_call"} if item["type"] == "local_shell_call" else item


VALIDATORS = {
    "anthropic": anthropic,
    "responses": responses,
    "gemini-cli": gemini_cli,
    "openai-chat": openai_chat,
}


def test_every_session_folder_has_repaired_samples() -> None:
    assert {Path(p).parts[0] for p in FIXED} == set(FOLDERS)


@pytest.mark.parametrize("relative", FIXED)
def test_repaired_session_passes_the_provider_rules(relative: str) -> None:
    for provider, messages in conversations(SAMPLES / relative):
        assert VALIDATORS[provider](messages) == [], f"{relative} ({provider})"


@pytest.mark.parametrize("relative", FIXED)
def test_its_input_breaks_them(relative: str) -> None:
    source = SAMPLES / relative.replace(".fixed.", ".", 1)
    broken = [v for kind, msgs in conversations(source) for v in VALIDATORS[kind](msgs)]
    assert broken, f"{source.name} breaks no provider rule"
