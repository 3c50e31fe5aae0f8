"""LlamaIndex ``ChatMessage`` dumps and the chat stores that persist them
(docs/formats.md#llamaindex-chatmessage), the string-encoded store included
(docs/formats.md#json-document-in-a-string)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.provider_rules import llama_index
from tests.sample_cases import SAMPLES

USER = {"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "Hi"}]}


def openai_call(ident: str) -> dict[str, Any]:
    function = {"arguments": "{}", "name": "get_time"}
    return {"id": ident, "function": function, "type": "function"}


def store(*messages: dict[str, Any]) -> bytes:
    body = {"store": {"user1": [USER, *messages]}, "class_name": "SimpleChatStore"}
    return json.dumps(body).encode()


def assistant(*, calls: Sequence[Any] = (), blocks: Sequence[Any] = ()) -> dict[str, Any]:
    extras = {"tool_calls": list(calls)} if calls else {}
    return {"role": "assistant", "additional_kwargs": extras, "blocks": list(blocks)}


def block_call(ident: str) -> dict[str, Any]:
    return {
        "block_type": "tool_call",
        "tool_call_id": ident,
        "tool_name": "get_time",
        "tool_kwargs": {},
    }


def test_a_call_kept_in_both_places_is_one_call() -> None:
    report = patchcore.check_document(
        store(assistant(calls=[openai_call("c1")], blocks=[block_call("c1")])), filename="s.json"
    )
    assert [c.dialect for c in report.conversations] == ["llama-index"]
    assert found(report.findings) == [("TP002", "c1")]


def test_a_tool_call_block_alone_is_a_call() -> None:
    report = patchcore.check_document(
        store(assistant(blocks=[block_call("c2")])), filename="s.json"
    )
    assert found(report.findings) == [("TP002", "c2")]


def test_an_assistant_message_naming_a_call_is_no_result() -> None:
    """A ``return_direct`` tool's answer is an assistant message holding the call's id, after
    the tool message that answers it: it answers nothing a second time."""
    tool = {"role": "tool", "additional_kwargs": {"tool_call_id": "c1"}, "blocks": []}
    direct = {"role": "assistant", "additional_kwargs": {"tool_call_id": "c1"}, "blocks": []}
    report = patchcore.check_document(
        store(assistant(calls=[openai_call("c1")]), tool, direct), filename="s.json"
    )
    assert found(report.findings) == []


def test_dropping_the_calls_removes_their_blocks_too() -> None:
    data = store(
        assistant(
            calls=[openai_call("c1"), openai_call("c2")],
            blocks=[block_call("c1"), block_call("c2")],
        )
    )
    options = patchcore.make_options(repair="drop", unsafe_fixes=True)
    report = patchcore.fix_document(data, filename="s.json", options=options)
    assert report.output is not None
    assert json.loads(report.output)["store"]["user1"] == [USER]  # nothing left of it


def test_the_string_encoded_store_is_repaired_inside_its_string() -> None:
    data = (SAMPLES / "llama-index/string-encoded.json").read_bytes()
    report = patchcore.fix_document(data, filename="chat_store.json")
    assert report.output is not None
    repaired = json.loads(json.loads(report.output))
    assert not llama_index(repaired["store"]["user1"])
    assert json.dumps(json.loads(report.output)).encode() == report.output


def test_a_string_whose_escapes_cannot_be_written_again_is_reported_not_rewritten() -> None:
    """``\\/`` is an escape neither of ``json.dump``'s encodings writes: the string could not
    be written back with its other bytes as they are."""
    inner = store(assistant(calls=[openai_call("c1")]))
    literal = json.dumps(inner.decode()).replace("SimpleChatStore", "Simple\\/ChatStore")
    report = patchcore.fix_document(literal.encode(), filename="chat_store.json")
    assert report.output is None
    assert found(report.remaining) == [("TP002", "c1")]


@pytest.mark.parametrize("text", ['"hello"', '"{not json"'])
def test_a_string_that_holds_no_document_is_still_no_history(text: str) -> None:
    with pytest.raises(patchcore.PatchcoreError):
        patchcore.check_document(text.encode(), filename="x.json")


TOOL = {
    "role": "tool",
    "additional_kwargs": {"tool_call_id": "c1"},
    "blocks": [{"block_type": "text", "text": "12:00"}],
}


@pytest.mark.parametrize(
    "tool",
    [
        {key: value for key, value in TOOL.items() if key != "additional_kwargs"},
        {**TOOL, "blocks": [{"text": "12:00"}]},
    ],
    ids=["no-additional-kwargs", "untyped-block"],
)
def test_a_result_after_calls_its_reading_does_not_read_is_never_dropped(
    tool: dict[str, Any],
) -> None:
    """A damaged tool message makes the list OpenAI Chat's, which reads neither the calls in
    ``additional_kwargs`` (TP004) nor the result's id: TP101's unsafe fix dropped the result,
    the list was then LlamaIndex's, its calls unanswered, and fix failed its own re-check
    (found by the corruption properties). The result may answer those calls: it is kept
    (docs/rules.md#orphan-tool-result-tp101)."""
    data = store(assistant(calls=[openai_call("c1")]), tool)
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    report = patchcore.fix_document(data, filename="s.json", options=options)
    assert [(f.code, f.fix) for f in report.findings] == [("TP004", None), ("TP101", None)]
    assert report.output is None
