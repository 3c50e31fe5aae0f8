"""What people read of a message (``toolpatch show``, the HTML report): its role, its words and
its calls' arguments, as each dialect reads them (`patchcore.dialects.base.Dialect.role_of`,
``text_of``, ``arguments_of``; docs/architecture.md#the-dialect-interface), through the
conversation that holds it (`patchcore.Conversation.role_of`). Pinned on a message of every
dialect's samples; goose, opencode and OpenHands keep their calls' arguments where no argument
key of theirs is declared yet, so they show none (as before the readings were the dialects')."""

from __future__ import annotations

from typing import Any

import pytest

import patchcore
from patchcore.dialects.openai_chat import OpenAIChat
from tests.conftest import SAMPLES

#: (dialect, sample, line of its conversation, message index, role, words, each call's
#: arguments). Cline's is an Anthropic history read as Cline's (forced, as its task folders are).
READ = [
    (
        "ai-sdk-model",
        "ai-sdk-model/dangling-call.json",
        None,
        2,
        "assistant",
        "Let me look that up.",
        ('{"city": "Berlin"}',),
    ),
    (
        "ai-sdk-ui",
        "ai-sdk-ui/approval-pending.json",
        None,
        1,
        "assistant",
        "step-start",
        ('{"path": "old.txt"}',),
    ),
    (
        "anthropic",
        "anthropic/plain-string-reply.json",
        None,
        1,
        "assistant",
        "Let me read the file.",
        ('{"path": "config/settings.toml"}',),
    ),
    (
        "bedrock",
        "bedrock/converse-partial-answer.json",
        None,
        1,
        "assistant",
        "Let me check both.",
        ('{"city": "Seattle"}', '{"origin": "SEA", "destination": "SFO", "date": "2026-12-05"}'),
    ),
    (
        "cline",
        "anthropic/plain-string-reply.json",
        None,
        1,
        "assistant",
        "Let me read the file.",
        ('{"path": "config/settings.toml"}',),
    ),
    (
        "gemini",
        "gemini/sdk-snake-case.json",
        None,
        1,
        "model",
        "First I'll look at the test configuration.",
        ('{"path": "pytest.ini"}',),
    ),
    (
        "gemini-cli",
        "gemini-cli/error-without-result.json",
        None,
        1,
        "gemini",
        "I'll read the checkout module.",
        ('{"absolute_path": "/home/ana/shop/src/checkout.ts"}',),
    ),
    # Gemini CLI 0.61's own shape: the call is a ``functionCall`` part of the message
    (
        "gemini-cli",
        "gemini-cli/resumed-clean.jsonl",
        4,
        2,
        "gemini",
        "",
        ('{"dir_path": "tests"}',),
    ),
    (
        "goose",
        "goose/killed-then-resumed.jsonl",
        2,
        1,
        "assistant",
        "Running the tests and reading money.ts.",
        ("", ""),
    ),
    (
        "langchain",
        "langchain/conversations.jsonl",
        2,
        1,
        "ai",
        "Let me look both up.",
        ('{"city": "Paris"}', '{"tz": "Europe/Paris"}'),
    ),
    (
        "llama-index",
        "llama-index/chat_store.json",
        None,
        1,
        "assistant",
        "",
        ('{"city": "Paris"}', '{"timezone": "Europe/Paris"}'),
    ),
    ("llama-index", "llama-index/chat_store.json", None, 3, "user", "Hello? Did that work?", ()),
    (
        "mastra",
        "mastra/thread.json",
        None,
        1,
        "assistant",
        "I'll use the weather tool for Paris now: The weather in Paris is partly cloudy.",
        ('{"location": "Paris"}',),
    ),
    (
        "openai-agents-js",
        "openai-agents-js/history-deleted-result.json",
        None,
        2,
        "function_call",
        "",
        ('{"city":"Oslo"}',),
    ),
    (
        "openai-agents-js",
        "openai-agents-js/history-deleted-result.json",
        None,
        6,
        "user",
        "Thanks.",
        (),
    ),
    (
        "openai-chat",
        "copilot/interrupted-bash.jsonl",
        2,
        1,
        "assistant",
        "Let me look at the test and run it.",
        (
            '{"path": "/home/ana/shop/tests/test_cart.py"}',
            '{"command": "pytest -q tests/test_cart.py", "description": "Run the cart tests", '
            '"sessionId": "main", "mode": "sync"}',
        ),
    ),
    (
        "openai-responses",
        "codex/aborted-turn.jsonl",
        5,
        2,
        "function_call",
        "",
        ('{"cmd": "rg -n TODO src", "workdir": "/home/ana/shop"}',),
    ),
    (
        "openai-responses",
        "codex/aborted-turn.jsonl",
        5,
        5,
        "user",
        "Never mind git, just fix the TODO.",
        (),
    ),
    (
        "opencode",
        "opencode/killed-mid-tool.json",
        None,
        1,
        "assistant",
        "I will run the tests and read money.ts.",
        ("", ""),
    ),
    (
        "openhands",
        "openhands/killed-at-the-end.json",
        2,
        1,
        "agent",
        "Reading file: /workspace",
        ("",),
    ),
    (
        "otel-genai",
        "otel/agent-run.jsonl",
        2,
        1,
        "assistant",
        "",
        ('{"location": "Paris"}', '{"location": "Rome"}'),
    ),
    ("otel-genai", "otel/agent-run.jsonl", 2, 2, "tool", "rainy, 57°F", ()),
    (
        "pi",
        "pi/compacted.jsonl",
        8,
        2,
        "assistant",
        "",
        (
            '{"path": "migrations/004_orders.sql", '
            '"content": "ALTER TABLE orders ADD COLUMN total_cents integer;"}',
        ),
    ),
    ("pi", "pi/compacted.jsonl", 8, 9, "user", "It hung, I killed pi. Is the column there?", ()),
    (
        "pydantic-ai",
        "strict/pydantic-ai/combined.json",
        None,
        1,
        "response",
        "",
        ('{"city":"Kyoto"}', '{"city":"Kyoto"}'),
    ),
    (
        "pydantic-ai",
        "strict/pydantic-ai/combined.json",
        None,
        6,
        "response",
        "9C and clear; Ryokan Yachiyo has rooms.",
        (),
    ),
]


def conversation(dialect: str, sample: str, line: int | None) -> patchcore.Conversation:
    path = SAMPLES / sample
    forced = dialect if dialect == "cline" else None
    options = patchcore.make_options(with_messages=True, dialect=forced)
    result = patchcore.check_document(path.read_bytes(), filename=str(path), options=options)
    return next(c for c in result.conversations if c.dialect == dialect and c.line == line)


@pytest.mark.parametrize(
    ("dialect", "sample", "line", "index", "role", "words", "arguments"),
    READ,
    ids=[f"{row[0]}-{row[3]}" for row in READ],
)
def test_each_dialect_reads_role_words_and_arguments(
    dialect: str,
    sample: str,
    line: int | None,
    index: int,
    role: str,
    words: str,
    arguments: tuple[str, ...],
) -> None:
    listed = conversation(dialect, sample, line)
    assert listed.messages is not None
    message = listed.messages[index]
    view = listed.view(index)
    calls = view.calls if view is not None else ()
    assert listed.role_of(message) == role
    assert listed.text_of(message) == words
    assert tuple(listed.arguments_of(index, call) for call in calls) == arguments


def test_every_dialect_is_read_by_a_sample() -> None:
    """A new dialect adds its row to `READ` (CONTRIBUTING, "Adding a reading")."""
    assert {row[0] for row in READ} == {dialect.name for dialect in patchcore.NAMED}


def test_a_list_no_dialect_reads_is_read_message_by_message() -> None:
    """A list of mixed dialects is kept unread, its messages shown as the dialect that
    recognises each best reads it: an OpenAI Responses item by its ``type``."""
    path = SAMPLES / "mixed" / "anthropic-with-responses-output.json"
    options = patchcore.make_options(with_messages=True)
    (listed,) = patchcore.check_document(path.read_bytes(), options=options).conversations
    assert listed.dialect is None and listed.messages is not None
    roles = [listed.role_of(message) for message in listed.messages]
    assert "function_call_output" in roles and "assistant" in roles


def test_a_new_dialect_reads_role_and_content_by_default() -> None:
    """The hooks' defaults read the most common shape (``role``, ``text`` or ``content``,
    ``arguments``): a new reading declares only where its format differs."""

    class Plain(OpenAIChat):
        call_wrappers = ()

    plain = Plain()
    message: dict[str, Any] = {"role": "agent", "content": [{"text": "hi"}, {"text": "there"}]}
    assert plain.role_of(message) == "agent"
    assert plain.text_of(message) == "hi\nthere"
    assert plain.arguments_of({"arguments": {"a": 1}}) == '{"a": 1}'
    assert plain.arguments_of({"function": {"arguments": "{}"}}) == ""
    assert plain.role_of(None) == "message" and plain.text_of(None) == ""
