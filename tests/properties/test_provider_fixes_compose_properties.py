"""Provider fixes beside the pairing fixes over random histories
(docs/cli.md#provider-fixes-beside-the-pairing-fixes): whatever the ids and wherever the results
stand (in place, missing, after another message, twice, before their call, with no call), one
`fix` with every rule, the unsafe fixes and a target passes its own re-check, and a second
changes nothing."""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import patchcore

ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=14)
#: Where a call's result stands.
PLACES = ("in place", "missing", "after a user message", "twice", "before its call", "alone")
names = st.sampled_from(["get_weather", "get_time"])
#: A fix and its re-check on a shared machine: no deadline (the first example imports a lot).
PROPERTY = settings(max_examples=150, deadline=None)


def _fixed_twice(history: Any, target: str, repair: str) -> None:
    """One fix passes its re-check (it raises otherwise); a second one changes nothing."""
    options = patchcore.make_options(
        select=["ALL"], unsafe_fixes=True, target=target, repair=repair
    )
    data = json.dumps(history, indent=1).encode()
    fixed = patchcore.fix_document(data, options=options).output
    if fixed is not None:
        assert patchcore.fix_document(fixed, options=options).output is None


def _openai_chat(turns: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """An OpenAI Chat history: per turn (call id, tool name, where its result stands)."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for ident, name, place in turns:
        call = {"id": ident, "type": "function", "function": {"name": name, "arguments": "{}"}}
        result = {"role": "tool", "tool_call_id": ident, "content": "ok"}
        if place in ("before its call", "alone"):
            history.append(result)
        if place != "alone":
            history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        if place == "after a user message":
            history.append({"role": "user", "content": "and?"})
        if place in ("in place", "twice", "after a user message"):
            history.append(result)
        if place == "twice":
            history.append(dict(result, content="again"))
        history.append({"role": "user", "content": "next"})
    return history


@PROPERTY
@given(
    st.lists(st.tuples(ids, names, st.sampled_from(PLACES)), min_size=1, max_size=4),
    st.sampled_from(["mistral", "openai"]),
    st.sampled_from(["answer", "drop"]),
)
def test_openai_chat_fixes_compose(
    turns: list[tuple[str, str, str]], target: str, repair: str
) -> None:
    _fixed_twice(_openai_chat(turns), target, repair)


def _gemini(turns: list[tuple[str, str]]) -> dict[str, Any]:
    """A Gemini request: per turn (tool name, where its response stands)."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "go"}]}]
    for name, place in turns:
        response = {"functionResponse": {"name": name, "response": {"output": "ok"}}}
        if place in ("before its call", "alone"):
            contents.append({"role": "user", "parts": [response]})
        if place != "alone":
            call = {"functionCall": {"name": name, "args": {}}}
            contents.append({"role": "model", "parts": [call]})
        if place == "after a user message":
            contents.append({"role": "user", "parts": [{"text": "and?"}]})
        if place in ("in place", "twice", "after a user message"):
            contents.append({"role": "user", "parts": [response]})
        if place == "twice":
            contents.append({"role": "user", "parts": [response]})
        contents.append({"role": "user", "parts": [{"text": "next"}]})
    return {"contents": contents}


@PROPERTY
@given(
    st.lists(st.tuples(names, st.sampled_from(PLACES)), min_size=1, max_size=4),
    st.sampled_from(["answer", "drop"]),
)
def test_gemini_fixes_compose(turns: list[tuple[str, str]], repair: str) -> None:
    _fixed_twice(_gemini(turns), "gemini", repair)


#: What a failed tool's result holds: TP307's two empty contents
#: (docs/rules.md#empty-error-tool-result-tp307), or an error text.
CONTENTS = ("", [], "exit 1")


def _anthropic(turns: list[tuple[str, str, Any, bool]]) -> list[dict[str, Any]]:
    """An Anthropic history: per turn (call id, where its result stands, the result's content
    under ``is_error: true``, whether a text block comes before the result in its message)."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for ident, place, content, text_first in turns:
        call = {"type": "tool_use", "id": ident, "name": "bash", "input": {}}
        result = {"type": "tool_result", "tool_use_id": ident, "content": content, "is_error": True}
        answer = [{"type": "text", "text": "hm"}, result] if text_first else [result]
        if place in ("before its call", "alone"):
            history.append({"role": "user", "content": answer})
        if place != "alone":
            history.append({"role": "assistant", "content": [call]})
        if place == "after a user message":
            history.append({"role": "user", "content": "and?"})
            history.append({"role": "assistant", "content": "Waiting."})
        if place in ("in place", "twice", "after a user message"):
            history.append({"role": "user", "content": answer})
        if place == "twice":
            history[-1]["content"] = [*answer, dict(result)]
        history.append({"role": "assistant", "content": "Done."})
        history.append({"role": "user", "content": "next"})
    return history


@PROPERTY
@given(
    st.lists(
        st.tuples(ids, st.sampled_from(PLACES), st.sampled_from(CONTENTS), st.booleans()),
        min_size=1,
        max_size=4,
        unique_by=lambda turn: turn[0],
    ),
    st.sampled_from(["answer", "drop"]),
)
def test_anthropic_fixes_compose(turns: list[tuple[str, str, Any, bool]], repair: str) -> None:
    """TP307's text beside the pairing fixes (TP106's reorder among them): the repair passes its
    re-check, a second fix changes nothing, and no empty error result is left."""
    history = _anthropic(turns)
    _fixed_twice(history, "anthropic", repair)
    options = patchcore.make_options(
        select=["ALL"], unsafe_fixes=True, target="anthropic", repair=repair
    )
    data = json.dumps(history, indent=1).encode()
    fixed = patchcore.fix_document(data, options=options).output or data
    left = patchcore.check_document(fixed, options=options).findings
    assert [f for f in left if f.code == "TP307"] == []
