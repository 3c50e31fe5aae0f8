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
they resume into. A pi session sends the branch it resumes (`pi_messages`), a Goose session its
messages as goose formats them (`goose_chat`), an OpenHands trajectory its events as its
conversation memory turns them into messages (`openhands_chat`).

Each converter leaves out what its agent papers over when it sends (pi-ai's "No result provided",
goose's dropping of an unanswered request, OpenHands' holding back of an unanswered response):
that is written nowhere, so the file, which every later turn and every other reader sees, is
judged as it is.

The session samples are the repaired samples that toolpatch reads in a session layout, found on
disk: a new session folder without a converter here fails rather than going unchecked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import patchcore
from patchcore.layouts.sessions import SESSION_LAYOUTS
from tests.provider_rules import anthropic, gemini_cli, openai_chat, responses
from tests.sample_cases import SAMPLES
from tests.session_logs import copilot_chat, sdk_conversations

SESSION_NAMES = frozenset(layout.name for layout in SESSION_LAYOUTS)


def session_layout(path: Path) -> str | None:
    """The session layout toolpatch reads ``path`` in (``None``: no session)."""
    layout = patchcore.check_document(path.read_bytes(), filename=path.name).layout
    return layout if layout in SESSION_NAMES else None


#: Each repaired session sample, with the layout it is read in.
FIXED = {
    p.relative_to(SAMPLES).as_posix(): layout
    for p in sorted(SAMPLES.rglob("*.fixed.*"))
    if p.is_file() and (layout := session_layout(p)) is not None
}


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


def pi_branch(lines: list[Any]) -> list[dict[str, Any]]:
    """The entries pi resumes (``buildSessionContext``): the path from the root to the leaf,
    the file's last entry (a version 1 file, without ids, is one line in file order); from the
    last compaction on it, that compaction (its summary), then the entries from its first kept
    one up to it (``firstKeptEntryId``; version 1: ``firstKeptEntryIndex``, the header's index
    0), then those after it."""
    entries = lines[1:]
    if "id" not in entries[-1]:
        path = entries
    else:
        by_id = {entry["id"]: entry for entry in entries}
        path = [entries[-1]]
        while path[-1].get("parentId") is not None:
            path.append(by_id[path[-1]["parentId"]])
        path.reverse()
    cuts = [i for i, entry in enumerate(path) if entry["type"] == "compaction"]
    if not cuts:
        return path
    cut = path[cuts[-1]]
    if "firstKeptEntryId" in cut:
        kept = next(i for i, entry in enumerate(path) if entry.get("id") == cut["firstKeptEntryId"])
    else:
        kept = path.index(lines[cut["firstKeptEntryIndex"]])
    return [cut, *path[kept : cuts[-1]], *path[cuts[-1] + 1 :]]


def pi_messages(lines: list[Any]) -> list[dict[str, Any]]:
    """The Anthropic messages pi sends for a session (``convertToLlm``, pi-ai's
    ``transformMessages`` and Anthropic provider): ``message`` entries' messages, the other
    entries that are sent (``custom_message``, ``branch_summary``, the compaction summary) as
    user text; an assistant message that stopped on ``error`` or ``aborted`` left out; a
    ``toolCall`` block a ``tool_use``; consecutive ``toolResult`` messages one user message of
    ``tool_result`` blocks."""
    sent: list[dict[str, Any]] = []
    for entry in pi_branch(lines):
        if entry["type"] in ("compaction", "branch_summary"):
            sent.append({"role": "user", "content": entry["summary"]})
        elif entry["type"] == "custom_message":
            sent.append({"role": "user", "content": entry["content"]})
        if entry["type"] != "message":
            continue
        message = entry["message"]
        role = message["role"]
        if role == "assistant" and message.get("stopReason") in ("error", "aborted"):
            continue
        if role == "assistant":
            blocks = [
                {"type": "tool_use", "id": b["id"], "name": b["name"], "input": b["arguments"]}
                if b["type"] == "toolCall"
                else b
                for b in message["content"]
            ]
            sent.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            result = {
                "type": "tool_result",
                "tool_use_id": message["toolCallId"],
                "content": message["content"],
                "is_error": message["isError"],
            }
            last = sent[-1]["content"] if sent else None
            if isinstance(last, list) and last and last[-1].get("type") == "tool_result":
                sent[-1]["content"].append(result)
            else:
                sent.append({"role": "user", "content": [result]})
        else:  # a user message, or pi's own kinds (a bash execution, ...) sent as user text
            sent.append({"role": "user", "content": message.get("content", "")})
    return sent


def goose_chat(lines: list[Any]) -> list[dict[str, Any]]:
    """The OpenAI Chat messages goose sends for a session's messages (the lines after the
    metadata): what ``fix_conversation`` keeps (messages visible to the agent; no request in a
    user message, no response in an assistant message, no ``frontendToolRequest``), formatted as
    its OpenAI provider formats them: an assistant message's ``toolRequest`` items its
    ``tool_calls`` (a request whose call did not parse, ``"status": "error"``, too: the
    stricter reading), a user message's ``toolResponse`` items one ``tool`` message each,
    before its text."""
    sent: list[dict[str, Any]] = []
    for message in lines[1:]:
        if (message.get("metadata") or {}).get("agentVisible") is False:
            continue
        items = message["content"]
        text = "".join(item["text"] for item in items if item["type"] == "text")
        if message["role"] == "assistant":
            calls = [
                {"id": item["id"], "type": "function", "function": item["toolCall"].get("value")}
                for item in items
                if item["type"] == "toolRequest"
            ]
            sent.append(
                {"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})}
            )
            continue
        sent += [
            {"role": "tool", "tool_call_id": item["id"], "content": json.dumps(item["toolResult"])}
            for item in items
            if item["type"] == "toolResponse"
        ]
        if text:
            sent.append({"role": "user", "content": text})
    return sent


def openhands_chat(events: list[Any]) -> list[dict[str, Any]]:
    """The OpenAI Chat messages OpenHands' ``ConversationMemory.process_events`` makes of a
    trajectory's events: a ``message`` action is its source's message, ``finish`` a plain
    assistant message; an action the model called holds back its response's message (the
    response's ``tool_calls``) until an observation (by its ``tool_call_metadata``) answers
    each of its calls, then sends it and the observations as ``tool`` messages. A response still
    held at the end is sent here at the end, with what answers it: the memory drops it
    (``_filter_unmatched_tool_calls``), silently. Events that carry no message (state changes)
    are left out."""
    sent: list[dict[str, Any]] = []
    held: dict[str, dict[str, Any]] = {}
    answers: dict[str, dict[str, Any]] = {}

    def release(response_id: str) -> None:
        message = held.pop(response_id)
        sent.append(message)
        sent.extend(answers[c["id"]] for c in message["tool_calls"] if c["id"] in answers)

    for event in events:
        metadata = event.get("tool_call_metadata")
        if event.get("action") in ("message", "finish"):
            role = "user" if event["source"] == "user" else "assistant"
            sent.append({"role": role, "content": event["message"]})
        elif "action" in event and metadata:
            response = metadata["model_response"]
            message = response["choices"][0]["message"]
            held.setdefault(
                response["id"],
                {
                    "role": "assistant",
                    "content": message["content"],
                    "tool_calls": message["tool_calls"],
                },
            )
        elif "observation" in event and metadata:
            answers[metadata["tool_call_id"]] = {
                "role": "tool",
                "tool_call_id": metadata["tool_call_id"],
                "content": event["content"],
            }
        for response_id, message in list(held.items()):
            if all(c["id"] in answers for c in message["tool_calls"]):
                release(response_id)
    for response_id in list(held):
        release(response_id)
    return sent


def as_codex_runs_it(item: dict[str, Any]) -> dict[str, Any]:
    """Codex answers a ``local_shell_call`` with a ``function_call_output``
    (docs/formats.md#codex): for the Responses rules it is a function call."""
    return {**item, "type": "function_call"} if item["type"] == "local_shell_call" else item


def codex_items(lines: list[Any]) -> list[tuple[str, list[Any]]]:
    items = [line["payload"] for line in lines if line["type"] == "response_item"]
    return [("responses", [as_codex_runs_it(item) for item in items])]


def codex_bare_items(lines: list[Any]) -> list[tuple[str, list[Any]]]:
    # RolloutRecorder::resume: every line after the first that is an item (no record_type)
    items = [line for line in lines[1:] if "record_type" not in line]
    return [("responses", [as_codex_runs_it(item) for item in items])]


def kimi_context(lines: list[Any]) -> list[tuple[str, list[Any]]]:
    # Context.restore: every line that is no _system_prompt / _checkpoint / _usage record
    return [("openai-chat", [line for line in lines if not line["role"].startswith("_")])]


#: Each session layout's conversations, as its agent sends them: (provider, messages) pairs.
CONVERSATIONS: dict[str, Callable[[list[Any]], list[tuple[str, list[Any]]]]] = {
    "claude-code-session": lambda lines: [("anthropic", t) for t in claude_threads(lines)],
    "claude-agent-sdk-stream": lambda lines: [("anthropic", t) for t in sdk_conversations(lines)],
    "codex-rollout": codex_items,
    "codex-rollout-bare": codex_bare_items,
    "copilot-events": lambda lines: [("openai-chat", copilot_chat(lines))],
    "gemini-cli-log": lambda lines: [("gemini-cli", gemini_cli_messages(lines))],
    "kimi-context": kimi_context,
    "pi-session": lambda lines: [("anthropic", pi_messages(lines))],
    "goose-session": lambda lines: [("openai-chat", goose_chat(lines))],
    "openhands-trajectory": lambda lines: [("openai-chat", openhands_chat(lines))],
}

VALIDATORS = {
    "anthropic": anthropic,
    "responses": responses,
    "gemini-cli": gemini_cli,
    "openai-chat": openai_chat,
}


def conversations(path: Path, layout: str) -> list[tuple[str, list[Any]]]:
    """A session file's conversations, read as the agent of ``layout`` sends them."""
    return CONVERSATIONS[layout](records(path))


def test_there_are_session_samples() -> None:
    assert {"claude-code-session", "pi-session", "openhands-trajectory"} <= set(FIXED.values())


def test_every_session_layout_sampled_has_its_conversations() -> None:
    missing = set(FIXED.values()) - set(CONVERSATIONS)
    assert not missing, f"session samples no converter here reads: {missing}"


@pytest.mark.parametrize("relative", sorted(FIXED))
def test_repaired_session_passes_the_provider_rules(relative: str) -> None:
    for provider, messages in conversations(SAMPLES / relative, FIXED[relative]):
        assert VALIDATORS[provider](messages) == [], f"{relative} ({provider})"


@pytest.mark.parametrize("relative", sorted(FIXED))
def test_its_input_breaks_them(relative: str) -> None:
    source = SAMPLES / relative.replace(".fixed.", ".", 1)
    broken = [
        v for kind, msgs in conversations(source, FIXED[relative]) for v in VALIDATORS[kind](msgs)
    ]
    assert broken, f"{source.name} breaks no provider rule"
