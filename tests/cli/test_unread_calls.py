"""No silent misread: what looks like a tool call or result and that no reading pairs is a
finding of its own (TP004, docs/rules.md#unread-tool-call-tp004), and a file whose lines would
need two readings is refused, never split (docs/formats.md#what-is-read-and-what-is-said-unread).
Through the real entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.builders import write
from tests.helpers import SAMPLES, run
from tests.sample_cases import Case, all_cases, folder_cases


def _lines(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


def _gemini_stream(*, answered_last: bool) -> bytes:
    """A Gemini CLI ``--output-format stream-json`` log, event by event as its writer emits them
    (``packages/core/src/output/stream-json-formatter.ts``, the events of the snapshot
    ``should emit appropriate events for streaming JSON output`` of
    ``packages/cli/src/nonInteractiveCli.test.ts``): the assistant's words arrive as ``delta``
    messages, each outnumbering the tool events."""
    at = "2025-10-10T12:00:0{}.000Z"
    events: list[dict[str, Any]] = [
        {"type": "init", "timestamp": at.format(0), "session_id": "s1", "model": "gemini-2.5-pro"},
        {"type": "message", "timestamp": at.format(0), "role": "user", "content": "Run the tests"},
    ]
    for word in ["I", "will", "list", "the", "files", "first", "."]:
        events.append(
            {
                "type": "message",
                "timestamp": at.format(1),
                "role": "assistant",
                "content": word + " ",
                "delta": True,
            }
        )
    events += [
        {
            "type": "tool_use",
            "timestamp": at.format(1),
            "tool_name": "list_directory",
            "tool_id": "list_directory-1",
            "parameters": {"dir_path": "."},
        },
        {
            "type": "tool_result",
            "timestamp": at.format(2),
            "tool_id": "list_directory-1",
            "status": "success",
            "output": "Listed 2 item(s).",
        },
    ]
    for word in ["Now", "I", "run", "them", "."]:
        events.append(
            {
                "type": "message",
                "timestamp": at.format(3),
                "role": "assistant",
                "content": word + " ",
                "delta": True,
            }
        )
    events.append(
        {
            "type": "tool_use",
            "timestamp": at.format(3),
            "tool_name": "run_shell_command",
            "tool_id": "run_shell_command-2",
            "parameters": {"command": "npm test"},
        }
    )
    if answered_last:
        events.append(
            {
                "type": "tool_result",
                "timestamp": at.format(4),
                "tool_id": "run_shell_command-2",
                "status": "success",
                "output": "ok",
            }
        )
    return _lines(events)


def test_a_gemini_cli_stream_whose_last_call_has_no_result_is_never_clean(tmp_path: Path) -> None:
    """It was read as OpenAI Responses messages, its tool events passed over: "No findings",
    exit 0. Without a reading of its own, each tool event is said unread; with one, its last
    call is pending. Either way ``check`` fails."""
    log = write(tmp_path / "gemini-stream.jsonl", _gemini_stream(answered_last=False))
    result = run(["check", str(log)])
    assert result.code in (1, 2), result.show()
    assert "No findings" not in result.stderr, result.show()
    codes = [line.split()[1] for line in result.finding_lines]
    assert result.code == 2 or codes, result.show()


def test_an_unread_event_is_said_with_its_place_and_can_be_ignored(tmp_path: Path) -> None:
    log = write(
        tmp_path / "events.json",
        json.dumps(
            {
                "log": [
                    {"type": "tool_use", "tool_id": "t1", "tool_name": "read_file"},
                    {"type": "tool_result", "tool_id": "t1", "output": "..."},
                    {"type": "tool_use", "tool_id": "t2", "tool_name": "write_file"},
                ]
            },
            indent=1,
        ).encode(),
    )
    result = run(["check", str(log)], expect=1)
    (line,) = result.finding_lines
    assert re.match(r".*events\.json:3:\d+: TP004 3 objects look like tool calls", line), line
    assert "the first: type 'tool_use', at /log/0" in line and line.endswith("[/log/0]"), line
    run(["check", "--ignore", "TP004", str(log)], expect=0)
    (tmp_path / "toolpatch.toml").write_text('[per-file-ignores]\n"events.json" = ["TP004"]\n')
    run(["check", "events.json"], cwd=tmp_path, expect=0)


OLD_ROLLOUT_HEAD = {
    "id": "0c6b2d2e-1f7a-4b8e-9b55-5b1c1b0f2a11",
    "timestamp": "2025-05-20T10:00:00.000Z",
    "instructions": None,
}


def _bare_items(head: dict[str, Any]) -> bytes:
    """Responses items written bare, one a line, beside lines that are none (an older Codex
    rollout wrote its items so, after a header and between ``record_type`` lines)."""
    state = {"record_type": "state"}
    return _lines(
        [
            head,
            state,
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "test"}],
            },
            {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "call_1"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
            state,
            {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "call_2"},
        ]
    )


def test_lines_that_need_two_readings_are_refused_not_split(tmp_path: Path) -> None:
    """Each bare item was read as a conversation of its own: every answered call "pending".
    A line that answers a call made on another line says the lines are one conversation."""
    log = write(tmp_path / "items.jsonl", _bare_items({"kind": "header", "version": 1}))
    result = run(["check", str(log)], expect=2)
    (error,) = result.stderr_lines[:1]
    assert re.match(
        r".*items\.jsonl:5:1: error: this line is one openai-responses message "
        r"that answers a call made on another line",
        error,
    ), result.show()
    assert "call_1" not in result.stderr, "no false pending finding"


def test_an_old_codex_rollout_is_never_split_into_false_pending_calls(tmp_path: Path) -> None:
    """Refused until a reading pairs it, then one conversation: never call_1 pending."""
    log = write(tmp_path / "rollout-2025-05-20.jsonl", _bare_items(OLD_ROLLOUT_HEAD))
    result = run(["check", str(log)])
    assert result.code in (1, 2), result.show()
    assert "call_1" not in result.stderr, result.show()


def test_a_gemini_api_response_is_a_sealed_history_of_one_message(tmp_path: Path) -> None:
    """As a stored Anthropic, Bedrock or Responses response: its call is pending (TP002), with
    no fix, since nothing can be added to a response
    (docs/formats.md#stored-responses-and-sealed-lists)."""
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Checking."},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 8},
        "modelVersion": "gemini-2.5-flash",
    }
    path = write(tmp_path / "response.json", json.dumps(response, indent=2).encode())
    result = run(["check", str(path)], expect=1)
    (line,) = result.finding_lines
    assert " TP002 tool call 'get_weather' (no id) in the last turn has no result" in line, line
    assert "the document is one message" in line and "[*]" not in line, line
    assert line.endswith("[/candidates/0/content/parts/1]"), line
    run(["fix", str(path)], expect=1)
    text_only = json.dumps(
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello."}]}}]}
    ).encode()
    run(["check", str(write(tmp_path / "hello.json", text_only))], expect=0)


#: Each reading's call marker, renamed to one that reading does not read (for the readings
#: whose calls are read by a key, a key another format reads: still a call to look at).
RENAMES = {
    b'"tool_use"': b'"tool_usage"',
    b'"server_tool_use"': b'"server_tool_usage"',
    b'"computer_call"': b'"computer_calling"',
    b'"function_call"': b'"function_calling"',
    b'"custom_tool_call"': b'"custom_tool_calling"',
    b'"local_shell_call"': b'"local_shell_calling"',
    b'"tool-call"': b'"tool-calling"',
    b'"tool_calls"': b'"toolCalls"',
    b'"toolCalls"': b'"tool_calls"',
    b'"toolRequests"': b'"toolCalls"',
    b'"functionCall"': b'"toolUse"',
    b'"toolUse"': b'"functionCall"',
    # An OpenTelemetry GenAI span's messages are a JSON string inside the trace; so is an older
    # LlamaIndex chat store.
    b'\\"tool_call\\"': b'\\"tool_kall\\"',
    b'\\"tool_calls\\"': b'\\"toolCalls\\"',
    # AI SDK UIMessage tool parts (5+: tool-NAME; 4: tool-invocation parts, toolInvocations)
    b'"type": "tool-': b'"type": "tolx-',
    b'"type":"tool-': b'"type":"tolx-',
    b'"tool-invocation"': b'"tool-invokation"',
    b'"toolInvocations"': b'"toolInvocationz"',
    # Goose's requests, opencode's tool parts, OpenHands' actions and observations
    b'"toolRequest"': b'"toolAsk"',
    b'"type": "tool"': b'"type": "tool_v2"',
    b'"type":"tool"': b'"type":"tool_v2"',
    b'"tool_call_metadata"': b'"tool_call_metadatum"',
}
_RENAMED = re.compile(b"|".join(re.escape(name) for name in RENAMES))


def _holds_calls(path: Path) -> bool:
    options = patchcore.make_options(with_messages=True)
    result = patchcore.fix_document(path.read_bytes(), filename=path.name, options=options)
    return any(
        (view := c.view(k)) is not None and view.calls
        for c in result.conversations
        for k in range(len(c.messages or ()))
    )


SAMPLES_WITH_CALLS = [c.path for c in all_cases() if _holds_calls(SAMPLES / c.path)]


@pytest.mark.slow  # every sample with calls through the CLI
def test_every_sample_with_its_calls_renamed_is_never_clean(tmp_path: Path) -> None:
    """A call under a name its reading does not know is a warning, a finding or a refusal:
    never "No findings" in silence."""
    silent = []
    for name in SAMPLES_WITH_CALLS:
        data = (SAMPLES / name).read_bytes()
        renamed = _RENAMED.sub(lambda m: RENAMES[m.group(0)], data)
        if renamed == data:
            silent.append(f"{name}: nothing renamed")
            continue
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(renamed)
        result = run(["check", "--force", str(target)])
        if result.code == 0 and "warning:" not in result.stderr:
            silent.append(f"{name}: {result.stderr.strip()}")
    assert SAMPLES_WITH_CALLS and not silent, "\n".join(silent)


@pytest.mark.slow  # every folder sample through the CLI
@pytest.mark.parametrize("case", folder_cases(), ids=lambda case: case.path)
def test_every_folder_sample_with_its_calls_renamed_is_never_clean(
    case: Case, tmp_path: Path
) -> None:
    """The same for an input that is a folder (an OpenHands event store, opencode's storage
    files): its calls renamed in every file it holds."""
    source = SAMPLES / case.path
    target = tmp_path / source.name
    renamed = 0
    for path in sorted(source.rglob("*")):
        copy = target / path.relative_to(source)
        if path.is_dir():
            copy.mkdir(parents=True, exist_ok=True)
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        copy.write_bytes(_RENAMED.sub(lambda m: RENAMES[m.group(0)], data))
        renamed += copy.read_bytes() != data
    assert renamed, "nothing renamed"
    result = run(["check", "--force", str(target)])
    assert result.code != 0 or "warning:" in result.stderr, result.stderr


def test_a_message_per_line_whose_calls_are_under_a_key_its_dialect_does_not_read(
    tmp_path: Path,
) -> None:
    """Read as OpenAI Chat, the assistant line's ``toolCalls`` (Gemini CLI's key) was passed
    over: "No findings". It is said on its line."""
    lines = _lines(
        [
            {"role": "user", "content": "List the files."},
            {"role": "assistant", "content": "", "toolCalls": [{"id": "a1", "name": "ls"}]},
            {"role": "assistant", "content": "Done."},
        ]
    )
    result = run(["check", str(write(tmp_path / "chat.jsonl", lines))], expect=1)
    (line,) = result.finding_lines
    assert re.match(
        r".*chat\.jsonl:2:1: TP004 the message holds an object that looks like a tool call or "
        r"result \(the first: key 'toolCalls'\)",
        line,
    ), line


def test_a_requests_tool_definitions_and_context_settings_are_no_calls(tmp_path: Path) -> None:
    """docs/formats.md#what-is-read-and-what-is-said-unread: a Claude Code request's tool search
    definition (``tool_search_tool_regex_20251119``) and its context management's count of
    ``tool_uses`` are typed like calls but name none; they were TP004 on every such request.
    A call typed so inside a message is still read as a call."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": [{"type": "tool_search_tool_regex_20251119", "name": "tool_search"}],
        "context_management": {
            "edits": [
                {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 3}}
            ]
        },
        "messages": [{"role": "user", "content": "hi"}],
    }
    write(tmp_path / "request.json", json.dumps(body).encode())
    result = run(["check", "--select", "ALL", "request.json"], cwd=tmp_path, expect=0)
    assert "TP004" not in result.said, result.show()
    body["messages"] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "x", "input": {}}],
        },
    ]
    write(tmp_path / "request.json", json.dumps(body).encode())
    result = run(["check", "request.json"], cwd=tmp_path, expect=1)
    assert [line.split()[1] for line in result.finding_lines] == ["TP002"], result.show()
