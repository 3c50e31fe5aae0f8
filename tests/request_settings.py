"""Hypothesis strategies for a request's settings beside its history (tools with their JSON
Schemas, system blocks, thinking, tool choice, context management), as real clients send them
and, now and then, holding what the full path reads: a message list (in an ``enum``, a
``default``, a description that is an object, an ``anyOf``), an object that looks like a call or
result (a property named ``toolCall``, escaped or not; a setting typed ``tool_uses``; a server
tool whose type starts like a call's), or a key the API does not have.

Shared by the quick lane's equivalence test (`tests/unit/test_quick.py`) and the proof of
`patchcore.engine.request_keys` (`tests/unit/test_request_keys.py`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: Values that hold what the full path reads (a history, a call, a result).
HOSTILE = st.sampled_from(
    [
        [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}],
        [{"role": "assistant", "tool_calls": [{"id": "c9", "type": "function"}]}],
        {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {}},
        {"type": "function_call", "call_id": "c9"},
        {"tool_call_id": "c9", "content": "x"},
        [],
        [{"message": {"role": "user", "content": "x"}}, {"message": {"role": "user"}}],
    ]
)
#: Property names: ordinary ones, ones the locator or the lane looks at, and ones that name a
#: call or result (`patchcore.engine.unread`).
PROPERTY_NAMES = st.sampled_from(
    ["command", "file_path", "content", "type", "messages", "input", "role", "description"] * 3
    + ["toolCall", "function_call", "tool_call_id", "tool_calls", "tool_name", "été"]
)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["a", ""]))


def _schema(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def one(draw: st.DrawFn) -> dict[str, Any]:
        kind = draw(st.sampled_from(["object", "string", "array", "number", "integer", None]))
        schema: dict[str, Any] = {} if kind is None else {"type": kind}
        if draw(st.booleans()):
            schema["description"] = draw(st.sampled_from(["What it is.", 'Say \u2192 "it".']))
        if kind == "object":
            schema["properties"] = draw(st.dictionaries(PROPERTY_NAMES, children, max_size=3))
            schema["required"] = sorted(schema["properties"])[:1]
            schema["additionalProperties"] = draw(st.sampled_from([False, True, {}]))
        elif kind == "array":
            schema["items"] = draw(children)
        elif kind == "string" and draw(st.booleans()):
            schema["enum"] = draw(st.lists(SCALARS, max_size=3))
        extra = draw(st.integers(0, 12))
        if extra == 12:
            schema[draw(st.sampled_from(["enum", "default", "description", "anyOf"]))] = draw(
                HOSTILE
            )
        elif extra == 11:
            schema["anyOf"] = draw(st.lists(children, max_size=2))
        elif extra == 10:
            schema[draw(st.sampled_from(["x-note", "content", "const"]))] = draw(SCALARS)
        elif extra == 9:
            schema["type"] = draw(st.sampled_from(["function_call", "tool_use", ["string"]]))
        elif extra == 8:
            schema["$defs"] = {draw(PROPERTY_NAMES): draw(children)}
        return schema

    return one()


SCHEMAS = st.recursive(st.just({"type": "string"}), _schema, max_leaves=8)


@st.composite
def tool(draw: st.DrawFn) -> dict[str, Any]:
    """An Anthropic client tool, an OpenAI Chat function tool, or a server tool."""
    schema = draw(SCHEMAS)
    kind = draw(st.sampled_from(["anthropic"] * 4 + ["openai"] * 2 + ["server"]))
    if kind == "server":
        server = ["web_search_20250305", "tool_search_tool_regex_20251119"]
        return {"type": draw(st.sampled_from(server)), "name": "s"}
    if kind == "openai":
        function = {"name": "f", "description": "Does f.", "parameters": schema}
        return {"type": "function", "function": function}
    found: dict[str, Any] = {"name": "f", "description": "Does f.", "input_schema": schema}
    odd = draw(st.integers(0, 8))
    if odd == 8:
        found["cache_control"] = {"type": "ephemeral"}
    elif odd == 7:
        found["input_examples"] = [{"role": "user", "content": "x"}]
    elif odd == 6:
        found["description"] = draw(HOSTILE)
    return found


@st.composite
def system(draw: st.DrawFn) -> Any:
    """A system prompt: text, or text blocks (now and then with citations, or another block)."""
    block: dict[str, Any] = {"type": "text", "text": "Be brief."}
    odd = draw(st.integers(0, 6))
    if odd == 6:
        block["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    elif odd == 5:
        block["citations"] = []
    elif odd == 4:
        block = draw(HOSTILE)
    return draw(st.sampled_from(["Be brief.", [block], [block, {"type": "text", "text": "!"}]]))


EDITS = st.sampled_from(
    [
        {"type": "clear_thinking_20251015", "keep": "all"},
        {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 2}},
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 30000},
            "keep": {"type": "tool_uses", "value": 3},  # a count, not a call (call_like)
            "exclude_tools": ["web_search"],
        },
        {"type": "clear_tool_uses_20250919", "clear_tool_inputs": True},
        {"type": "tool_result", "keep": "all"},
    ]
)

#: One setting of a request: its key and value.
SETTING = st.one_of(
    st.tuples(st.just("tools"), st.lists(tool(), min_size=1, max_size=3)),
    st.tuples(st.just("system"), system()),
    st.tuples(
        st.just("thinking"),
        st.sampled_from(
            [
                {"type": "enabled", "budget_tokens": 1024},
                {"type": "adaptive", "display": "omitted"},
                {"type": "enabled", "budget_tokens": 1024, "messages": []},
            ]
        ),
    ),
    st.tuples(
        st.just("tool_choice"),
        st.sampled_from(
            [
                "auto",
                {"type": "auto"},
                {"type": "tool", "name": "f"},
                {"type": "function", "function": {"name": "f"}},
                {"type": "tool_use", "name": "f"},
            ]
        ),
    ),
    st.tuples(st.just("context_management"), st.builds(lambda e: {"edits": e}, st.lists(EDITS))),
    st.tuples(st.sampled_from(["tools", "system", "thinking", "output_config"]), HOSTILE),
)
#: A request's settings: keys beside ``messages``.
SETTINGS = st.lists(SETTING, max_size=3).map(dict)
