"""`patchcore.Result.message_changes` and `Conversation.view`: what a fix does at each message
of a conversation, and each message's calls and results, as ``toolpatch show`` and the HTML
report draw them (docs/python-api.md)."""

from __future__ import annotations

import json

import patchcore

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
HISTORY = [
    {"role": "user", "content": "q"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "user", "content": "next"},
]
SHOWN = patchcore.make_options(with_messages=True)


def test_the_fix_s_result_is_inserted_after_the_calling_turn() -> None:
    result = patchcore.fix_document(json.dumps(HISTORY).encode(), options=SHOWN)
    (conversation,) = result.conversations
    changes = result.message_changes(conversation)
    assert len(changes) == len(HISTORY) + 1  # one per message, and the end of the list
    assert [bool(c.touched) for c in changes] == [False, False, True, False]
    (inserted,) = changes[2].inserted_before
    assert inserted["role"] == "tool" and inserted["tool_call_id"] == "c1"
    assert conversation.message_changes(()) == tuple(
        patchcore.MessageChanges() for _ in range(len(HISTORY) + 1)
    )


def test_a_message_s_view_is_its_dialect_s_reading() -> None:
    result = patchcore.check_document(json.dumps(HISTORY).encode(), options=SHOWN)
    (conversation,) = result.conversations
    view = conversation.view(1)
    assert view is not None and [call.id for call in view.calls] == ["c1"]
    assert conversation.view(0) is not None and not conversation.view(0).calls


def test_nothing_without_the_messages() -> None:
    result = patchcore.fix_document(json.dumps(HISTORY).encode())
    (conversation,) = result.conversations
    assert result.message_changes(conversation) == () and conversation.view(1) is None
