"""The provider rules' checks and fixes in process (patchcore.engine.provider_rules,
docs/rules.md): what each reads as its provider does (TP302's fix keeping every pair is a
property, tests/properties/test_provider_rules_properties.py)."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from patchcore.engine.provider_rules import MISTRAL_ID, mistral_id


def codes(value: Any, target: str, **more: Any) -> list[tuple[str, str | None]]:
    """The findings of ``value`` (a JSON value) for ``target``, as (code, call id)."""
    data = json.dumps(value).encode()
    report = patchcore.check_document(data, options=patchcore.make_options(target=target, **more))
    return [(f.code, f.call_id) for f in report.findings]


def gemini(*contents: dict[str, Any]) -> dict[str, Any]:
    return {"contents": list(contents)}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def model(*names: str, signed: bool = False) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"functionCall": {"name": n, "args": {}}} for n in names]
    if signed:
        parts[0]["thoughtSignature"] = "c2ln"
    return {"role": "model", "parts": parts}


def answer(*names: str) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [{"functionResponse": {"name": n, "response": {"output": "ok"}}} for n in names],
    }


def test_tp301_reads_only_the_current_turn_and_its_first_call_parts() -> None:
    """Calls before the last user text are not validated; of parallel calls, only the first
    part carries the signature (Gemini's documentation, docs/rules.md)."""
    history = gemini(
        user("a"), model("old"), answer("old"), user("b"), model("x", "y"), answer("x", "y")
    )
    assert codes(history, "gemini") == [("TP301", None)]
    signed = gemini(user("b"), model("x", "y", signed=True), answer("x", "y"))
    assert codes(signed, "gemini") == []


def test_tp301_is_gemini_s_only() -> None:
    history = gemini(user("b"), model("x"), answer("x"))
    assert codes(history, "openai") == []
    assert codes(history, "gemini", select=["TP0"]) == []


def test_tp303_takes_a_server_call_as_the_item_reasoning_led_to() -> None:
    items = [
        {"role": "user", "content": "news?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"role": "assistant", "content": "none"},
    ]
    assert codes(items, "openai") == []
    assert codes([*items[:2], items[0]], "openai") == [("TP303", "rs_1")]


def test_tp305_needs_a_request_that_sets_store_false() -> None:
    items = [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]
    stored = {"model": "o4-mini", "input": items}
    assert codes(stored, "openai") == []
    assert codes({**stored, "store": False}, "openai") == [("TP305", "rs_1")]
    kept = [items[0], {**items[1], "encrypted_content": "gAAA"}, *items[2:]]
    assert codes({"model": "o4-mini", "store": False, "input": kept}, "openai") == []


def test_tp304_reads_request_bodies_only() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
        {"role": "assistant", "content": "It is"},
    ]
    assert codes({"model": "claude-sonnet-4-6", "messages": messages}, "anthropic") == [
        ("TP304", None)
    ]
    assert codes({"messages": messages}, "anthropic") == []


def test_mistral_ids_are_derived_and_of_mistral_s_shape() -> None:
    assert mistral_id("call_1", set()) == mistral_id("call_1", set())
    first = mistral_id("call_1", set())
    assert MISTRAL_ID.fullmatch(first)
    assert mistral_id("call_1", {first}) != first


def _failed(content: Any = "", **more: Any) -> dict[str, Any]:
    """A request body whose call failed: its result has the error flag and ``content``
    (``...``: no content key)."""
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True}
    if content is not ...:
        result["content"] = content
    result.update(more)
    return {
        "model": "claude-sonnet-4-6",
        "messages": [
            {"role": "user", "content": "Run it"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}],
            },
            {"role": "user", "content": [result]},
        ],
    }


def test_tp307_reports_only_the_empty_contents_the_api_is_reported_refusing() -> None:
    """``""`` and ``[]`` with ``is_error: true`` (docs/rules.md#empty-error-tool-result-tp307);
    not an absent content or spaces, which no report shows refused, nor an empty result without
    the flag."""
    assert codes(_failed(""), "anthropic") == [("TP307", "toolu_1")]
    assert codes(_failed([]), "anthropic") == [("TP307", "toolu_1")]
    for kept in (_failed(...), _failed("  "), _failed("", is_error=False), _failed("exit 1")):
        assert codes(kept, "anthropic") == [], kept
    assert codes(_failed(""), "openai") == []
    assert codes(_failed(""), "anthropic", select=["TP0"]) == []


def test_tp307_fills_the_content_in_its_shape_and_keeps_the_flag() -> None:
    text = patchcore.RULES["TP307"].text
    for empty, filled in (("", text), ([], [{"type": "text", "text": text}])):
        data = json.dumps(_failed(empty)).encode()
        result = patchcore.fix_document(data, options=patchcore.make_options(target="anthropic"))
        block = json.loads(result.output)["messages"][2]["content"][0]
        assert block == {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "is_error": True,
            "content": filled,
        }


def test_tp307_writes_the_configured_text() -> None:
    """The `texts` setting (docs/cli.md#configuration), its placeholders filled for the call."""
    options = patchcore.make_options(target="anthropic", texts={"TP307": "{name} ({id}) failed."})
    result = patchcore.fix_document(json.dumps(_failed("")).encode(), options=options)
    assert json.loads(result.output)["messages"][2]["content"][0]["content"] == (
        "bash (toolu_1) failed."
    )


def test_strip_takes_out_the_text_tp307_wrote() -> None:
    """``toolpatch strip`` (docs/cli.md#strip) gives back the ``""`` or ``[]``; a real error
    text, or the same words without the error flag, is kept."""
    options = patchcore.make_options(target="anthropic")
    for empty in ("", []):
        data = json.dumps(_failed(empty)).encode()
        fixed = patchcore.fix_document(data, options=options).output
        assert fixed is not None
        assert patchcore.strip_document(fixed).output == data
    text = patchcore.RULES["TP307"].text
    for kept in (_failed("exit 1"), _failed(text, is_error=False)):
        assert patchcore.strip_document(json.dumps(kept).encode()).output is None
