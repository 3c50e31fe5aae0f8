"""An independent validator of the rules each provider enforces on a tool-using history.

Written from the providers' documented rules and the errors users report (docs/formats.md,
docs/rules.md), not from toolpatch's code: the tests run it on every repaired sample and on
generated histories, so a repair that toolpatch believes correct is judged by a second, separate
reading of the providers' rules: a repaired history must pass the provider's own rules.

One function per provider (OpenAI Chat, Anthropic, OpenAI Responses, Gemini, Bedrock), one for
LangGraph's pre-flight check of LangChain messages, one for pydantic-ai histories (held to the block
providers' rules), one for Gemini CLI sessions (held to Gemini's, through the history the CLI
resumes them into), ones for the AI SDK's and LlamaIndex's messages and one for opencode exports
(held to the AI SDK's rule, through what opencode sends) takes one message list (parsed JSON
values) and returns every `Violation`: the rule broken, the provider's error text as users report
it (as docs/rules.md quotes it, with the index and ids filled in) and the index of the offending
message. An empty list means the provider
would accept the tool structure of the history. Only the rules about tool calls and results are
checked (plus Gemini's empty ``parts``); roles, ids' character sets and other request fields are out
of scope.

Where the sources leave a choice open, the stricter reading is taken and said so in the
function's docstring (e.g. consecutive user turns are not merged before checking Anthropic's
"next message" rule).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, messages_from_dict


@dataclass(frozen=True)
class Violation:
    """One broken provider rule.

    Attributes:
        provider: Which validator found it (``"anthropic"``, ``"openai-chat"``, ...).
        rule: A short name of the rule (``"unanswered"``, ``"orphan"``, ``"duplicate"``, ...).
        index: Index of the offending message (item, content) in the list.
        error: The provider's error text for it.
    """

    provider: str
    rule: str
    index: int
    error: str

    def __str__(self) -> str:
        return f"[{self.provider}] {self.rule} at message {self.index}: {self.error}"


Messages = Sequence[Any]


def _dict(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else an empty one (a non-object has no tool fields)."""
    return value if isinstance(value, dict) else {}


def _blocks(message: Any, key: str = "content") -> list[Any]:
    """The block list of a message; a string (or missing) content has no blocks."""
    value = _dict(message).get(key)
    return value if isinstance(value, list) else []


# --- OpenAI Chat Completions (docs/formats.md#openai-chat) -----------------------------------

OPENAI_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
OPENAI_ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'."
)
OPENAI_DUPLICATE = (
    "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}' in messages[{first}] and "
    "messages[{second}]."
)
OPENAI_EMPTY = (
    "Invalid 'messages[{index}].tool_calls': empty array. Expected an array with minimum "
    "length 1, but got an empty array instead."
)
OPENAI_MISSING_ID = "Missing required parameter: 'messages[{index}].tool_calls[].id'."
# The legacy functions API (docs/formats.md#legacy-function_call) is not quoted anywhere: these say
# the rule.
OPENAI_FUNCTION_UNANSWERED = (
    "messages[{index}]: an assistant 'function_call' must be followed by a 'function' message "
    "with its name"
)
OPENAI_FUNCTION_ORPHAN = (
    "messages[{index}]: a 'function' message must answer the 'function_call' of the assistant "
    "message right before it"
)


def _openai_answers(message: Mapping[str, Any]) -> list[Any]:
    """The call ids a tool message answers: ``tool_call_id``; SWE-agent's ``tool_call_ids``
    list; tau2's ``id`` when ``tool_call_id`` is absent (OpenAI-like variants in real data)."""
    if message.get("tool_call_id") is not None:
        return [message["tool_call_id"]]
    if isinstance(message.get("tool_call_ids"), list):
        return list(message["tool_call_ids"])
    if "tool_call_id" not in message and message.get("id") is not None:
        return [message["id"]]
    return [None]


def _function_call(message: Any) -> Mapping[str, Any] | None:
    """An assistant message's legacy ``function_call`` (``null`` is none)."""
    message = _dict(message)
    call = message.get("function_call") if message.get("role") == "assistant" else None
    return call if isinstance(call, dict) else None


def _past_tool_messages(messages: Messages, index: int) -> int:
    """The index of the first message after ``index`` that is not a ``tool`` message."""
    after = index + 1
    while after < len(messages) and _dict(messages[after]).get("role") == "tool":
        after += 1
    return after


def _openai_functions(messages: Messages, add: Callable[[str, int, str], None]) -> None:
    """Legacy functions: an assistant ``function_call`` is answered by the ``function`` message
    right after it (after the tool messages of its ``tool_calls``), with its name where both
    have one; any other ``function`` message answers nothing."""
    answered: set[int] = set()
    for index, message in enumerate(messages):
        call = _function_call(message)
        if call is None:
            continue
        after = _past_tool_messages(messages, index)
        reply = _dict(messages[after]) if after < len(messages) else {}
        names = {call.get("name"), reply.get("name")} - {None}
        if reply.get("role") == "function" and len(names) <= 1:
            answered.add(after)
        else:
            add("unanswered", index, OPENAI_FUNCTION_UNANSWERED.format(index=index))
    for index, message in enumerate(messages):
        if _dict(message).get("role") == "function" and index not in answered:
            add("orphan", index, OPENAI_FUNCTION_ORPHAN.format(index=index))


def openai_chat(messages: Messages) -> list[Violation]:
    """OpenAI Chat Completions.

    * every id of an assistant ``tool_calls`` is answered by the contiguous run of ``tool``
      messages right after that assistant message;
    * every ``tool`` message answers a call of the assistant message its run follows;
    * no ``tool_call_id`` twice in one run (reuse across turns is real data and not reported
      as rejected, so it is not checked);
    * no empty ``tool_calls`` array;
    * every call has an id (not ``null``, not empty);
    * the legacy ``function_call`` / ``function`` pairs by adjacency (`_openai_functions`).
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("openai-chat", rule, index, error))

    _openai_functions(messages, add)

    position = 0
    while position < len(messages):
        message = _dict(messages[position])
        role = message.get("role")
        if role == "tool":
            add("orphan", position, OPENAI_ORPHAN)
            position += 1
            continue
        calls = message.get("tool_calls") if role == "assistant" else None
        if not isinstance(calls, list):
            position += 1
            continue
        if not calls:
            add("empty-tool-calls", position, OPENAI_EMPTY.format(index=position))
        if any(not _dict(call).get("id") for call in calls):
            add("missing-id", position, OPENAI_MISSING_ID.format(index=position))
        wanted = Counter(_dict(call).get("id") for call in calls)
        answered_at: dict[Any, int] = {}
        after = position + 1
        while after < len(messages) and _dict(messages[after]).get("role") == "tool":
            for answered in _openai_answers(_dict(messages[after])):
                if answered in answered_at:
                    error = OPENAI_DUPLICATE.format(
                        id=answered, first=answered_at[answered], second=after
                    )
                    add("duplicate", after, error)
                elif wanted[answered] > 0:
                    wanted[answered] -= 1
                    answered_at[answered] = after
                else:
                    add("orphan", after, OPENAI_ORPHAN)
            after += 1
        missing = [str(call_id) for call_id, left in wanted.items() for _ in range(left)]
        if missing:
            add("unanswered", position, OPENAI_UNANSWERED.format(ids=", ".join(missing)))
        position = after
    return found


# --- Anthropic Messages (docs/formats.md#anthropic) ----------------------------------------

ANTHROPIC_UNANSWERED = (
    "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
    "after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in the "
    "next message."
)
ANTHROPIC_ORPHAN = (
    "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` blocks: "
    "{id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous "
    "message."
)
ANTHROPIC_SERVER_ORPHAN = (
    "unexpected `tool_use_id` found in `{type}` blocks: {id}. Each `{type}` block must have a "
    "corresponding `server_tool_use` block before it."
)
ANTHROPIC_SERVER_UNANSWERED = (
    "`{name}` tool use with id `{id}` was found without a corresponding `{name}_tool_result` block"
)
ANTHROPIC_DUPLICATE = (
    "each tool_use must have a single result. Found multiple tool_result blocks with id: {id}"
)
ANTHROPIC_NOT_FIRST = (
    "messages.{index}: Did not find {count} `tool_result` block(s) at the beginning of this "
    "message. Messages following `tool_use` blocks must begin with a matching number of "
    "`tool_result` blocks."
)
ANTHROPIC_MISSING_ID = "messages.{index}.content: tool_use.id: Field required"
#: A synthetic result never has an empty content (docs/pairing.md#synthetic-results; the API itself
#: quotes no text for this one).
#: The API's own words, as its direct users report them (docs/rules.md, TP307).
ANTHROPIC_EMPTY_ERROR = (
    "messages.{index}.content.{block}.tool_result: content cannot be empty if `is_error` is true"
)
SERVER_CALL_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})


def _kind(block: Any) -> str | None:
    kind = _dict(block).get("type")
    return kind if isinstance(kind, str) else None


def _is_server_result(block: Any) -> bool:
    kind = _kind(block)
    return kind is not None and kind.endswith("_tool_result") and kind != "tool_result"


def _empty(content: Any) -> bool:
    return content is None or content == "" or content == []


def anthropic(messages: Messages) -> list[Violation]:
    """Anthropic Messages.

    * every ``tool_use`` of an assistant message is answered by a ``tool_result`` in the very
      next message, which is a ``user`` message (strict reading: consecutive user messages are
      not merged first, and a history may not end on an unanswered ``tool_use``);
    * that message begins with as many ``tool_result`` blocks as the previous message has
      ``tool_use`` blocks, and no ``tool_result`` comes after another kind of block;
    * every ``tool_result`` answers a ``tool_use`` of the previous message, once;
    * a ``server_tool_use`` / ``mcp_tool_use`` is answered inside the same assistant message by
      a ``*_tool_result`` after it, and every such result answers one;
    * a ``tool_result`` with ``is_error: true`` has content (strict reading: no content at all
      is refused too, which no report shows either way);
    * every ``tool_use`` has an id (not ``null``, not empty).
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("anthropic", rule, index, error))

    previous_uses: list[Any] = []
    for index, raw in enumerate(messages):
        message = _dict(raw)
        blocks = _blocks(message)
        role = message.get("role")
        positions = [k for k, b in enumerate(blocks) if _kind(b) == "tool_result"]
        expected = len(previous_uses) if role == "user" else 0
        leading = all(_kind(b) == "tool_result" for b in blocks[:expected])
        prefix = positions == list(range(len(positions)))
        if len(blocks) < expected or not leading or not prefix:
            count = max(expected, len(positions))
            add("not-first", index, ANTHROPIC_NOT_FIRST.format(index=index, count=count))
        open_uses = Counter(previous_uses) if role == "user" else Counter()
        seen: set[Any] = set()
        for k in positions:
            block = _dict(blocks[k])
            answered = block.get("tool_use_id")
            if answered in seen:
                add("duplicate", index, ANTHROPIC_DUPLICATE.format(id=answered))
            elif open_uses[answered] > 0:
                open_uses[answered] -= 1
                seen.add(answered)
            else:
                error = ANTHROPIC_ORPHAN.format(index=index, block=k, id=answered)
                add("orphan", index, error)
            if block.get("is_error") is True and _empty(block.get("content")):
                add("empty-error", index, ANTHROPIC_EMPTY_ERROR.format(index=index, block=k))
        if previous_uses:
            missing = [str(i) for i, left in open_uses.items() for _ in range(left)]
            if role != "user":
                missing = [str(i) for i in previous_uses]
            if missing:
                error = ANTHROPIC_UNANSWERED.format(index=index - 1, ids=", ".join(missing))
                add("unanswered", index - 1, error)
        if any(_kind(b) == "tool_use" and not _dict(b).get("id") for b in blocks):
            add("missing-id", index, ANTHROPIC_MISSING_ID.format(index=index))
        _anthropic_server_tools(blocks, index, add)
        previous_uses = (
            [_dict(b).get("id") for b in blocks if _kind(b) == "tool_use"]
            if role == "assistant"
            else []
        )
    if previous_uses:
        last = len(messages) - 1
        ids = ", ".join(str(i) for i in previous_uses)
        add("unanswered", last, ANTHROPIC_UNANSWERED.format(index=last, ids=ids))
    return found


def _anthropic_server_tools(
    blocks: list[Any], index: int, add: Callable[[str, int, str], None]
) -> None:
    """Server and MCP tool calls are answered by a ``*_tool_result`` later in their message."""
    open_servers: dict[Any, str] = {}
    for block in blocks:
        kind = _kind(block)
        fields = _dict(block)
        if kind in SERVER_CALL_TYPES:
            open_servers[fields.get("id")] = str(fields.get("name"))
        elif _is_server_result(block):
            answered = fields.get("tool_use_id")
            if answered in open_servers:
                del open_servers[answered]
            else:
                error = ANTHROPIC_SERVER_ORPHAN.format(type=kind, id=answered)
                add("server-orphan", index, error)
    for call_id, name in open_servers.items():
        error = ANTHROPIC_SERVER_UNANSWERED.format(name=name, id=call_id)
        add("server-unanswered", index, error)


# --- OpenAI Responses (docs/formats.md#openai-responses) ------------------------------------------

#: Call item → its output item (the client-executed calls toolpatch answers).
RESPONSES_CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "apply_patch_call": "apply_patch_call_output",
}
RESPONSES_OUTPUTS = frozenset(RESPONSES_CALLS.values())
RESPONSES_UNANSWERED = "No tool output found for function call {id}."
RESPONSES_ORPHAN = "No tool call found for function call output with call_id {id}."
RESPONSES_DUPLICATE = (
    "Duplicate item found with id {id}. Remove duplicate items from your input and try again."
)
RESPONSES_REASONING = (
    "Item '{id}' of type 'reasoning' was provided without its required following item"
)
#: Items of a model response that may follow a reasoning item.
MODEL_ITEMS = frozenset(
    {
        *RESPONSES_CALLS,
        "reasoning",
        "computer_call",
        "local_shell_call",
        "shell_call",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "tool_search_call",
    }
)


def _follows_reasoning(item: Any) -> bool:
    """Whether ``item`` can be the item a reasoning item belongs to (model output)."""
    kind = _kind(item)
    if kind in MODEL_ITEMS:
        return True
    return kind in (None, "message") and _dict(item).get("role") == "assistant"


def responses(items: Messages) -> list[Violation]:
    """OpenAI Responses input items.

    * every ``function_call`` / ``custom_tool_call`` / ``apply_patch_call`` has an output of
      the matching type with the same ``call_id`` later in the list;
    * every output answers an earlier, not yet answered call with its ``call_id``;
    * no two outputs for one call, no two items with one ``id``;
    * a ``reasoning`` item is followed by the model item it belongs to (a call or an assistant
      message), not by an output, a user message or the end of the list.
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("openai-responses", rule, index, error))

    open_calls: dict[tuple[str, Any], list[int]] = {}
    answered: set[tuple[str, Any]] = set()
    item_ids: set[Any] = set()
    for index, raw in enumerate(items):
        item = _dict(raw)
        kind = _kind(item)
        item_id = item.get("id")
        if item_id is not None:
            if item_id in item_ids:
                add("duplicate", index, RESPONSES_DUPLICATE.format(id=item_id))
            item_ids.add(item_id)
        if kind in RESPONSES_CALLS:
            key = (RESPONSES_CALLS[kind], item.get("call_id"))
            open_calls.setdefault(key, []).append(index)
            answered.discard(key)
        elif kind in RESPONSES_OUTPUTS:
            key = (kind, item.get("call_id"))
            if open_calls.get(key):
                open_calls[key].pop()
                answered.add(key)
            elif key in answered:
                add("duplicate", index, RESPONSES_DUPLICATE.format(id=item.get("call_id")))
            else:
                add("orphan", index, RESPONSES_ORPHAN.format(id=item.get("call_id")))
        elif kind == "reasoning":
            following = items[index + 1] if index + 1 < len(items) else None
            if following is None or not _follows_reasoning(following):
                add("reasoning-alone", index, RESPONSES_REASONING.format(id=item_id))
    for (_, call_id), positions in open_calls.items():
        for position in positions:
            add("unanswered", position, RESPONSES_UNANSWERED.format(id=call_id))
    return sorted(found, key=lambda v: v.index)


# --- OpenAI Agents SDK, JavaScript (openai/openai-agents-js) ---------------------------------

#: The JavaScript SDK's result types and the API's (the SDK respells one as the other before
#: each request: docs/formats.md#openai-agents-sdk-javascript).
AGENTS_JS_RESULTS = {
    "function_call_result": "function_call_output",
    "computer_call_result": "computer_call_output",
}
AGENTS_JS_STATUSES = frozenset({"in_progress", "completed", "incomplete"})


def _agents_js_result_shape(item: Mapping[str, Any]) -> str | None:
    """What the SDK's function result item refuses in ``item`` (``None``: nothing):
    a string ``name`` and ``callId``, a ``status`` of its enum, and an ``output`` that is a
    string, a ``{"type": "text", "text": ...}`` part or a list of parts."""
    output = item.get("output")
    text_part = isinstance(output, dict) and output.get("type") == "text"
    if not isinstance(item.get("name"), str) or not isinstance(item.get("callId"), str):
        return "function_call_result needs a string name and callId"
    if item.get("status") not in AGENTS_JS_STATUSES:
        return f"function_call_result status {item.get('status')!r} is not in the enum"
    if not (isinstance(output, (str, list)) or (text_part and isinstance(output["text"], str))):
        return "function_call_result output is no string, text part or list of parts"
    return None


def agents_js(items: Messages) -> list[Violation]:
    """JavaScript Agents SDK items: each result item has the shape the SDK validates, and
    the items, spelled as the SDK sends them to the Responses API (``callId`` → ``call_id``,
    ``function_call_result`` → ``function_call_output``), pass the Responses rules."""
    found: list[Violation] = []
    sent: list[Any] = []
    for index, raw in enumerate(items):
        item = dict(_dict(raw))
        kind = _kind(item)
        if kind == "function_call_result":
            problem = _agents_js_result_shape(item)
            if problem is not None:
                found.append(Violation("openai-agents-js", "shape", index, problem))
        if "callId" in item:
            item["call_id"] = item.pop("callId")
        if kind is not None:
            item["type"] = AGENTS_JS_RESULTS.get(kind, kind)
        sent.append(item if isinstance(raw, dict) else raw)
    return sorted([*found, *responses(sent)], key=lambda v: v.index)


# --- Google Gemini (docs/formats.md#gemini) ---------------------------------------------

GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
GEMINI_RESPONSE_PLACE = (
    "Please ensure that function response turn comes immediately after a function call turn."
)
GEMINI_CALL_PLACE = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
GEMINI_EMPTY = "GenerateContentRequest.contents[{index}].parts: contents.parts must not be empty"
#: ADK's wording for a response that answers no call of the call turn.
GEMINI_UNMATCHED = "No function call event found for function responses ids: {ids}"


def _part(part: Any, camel: str, snake: str) -> Mapping[str, Any] | None:
    fields = _dict(part)
    if camel in fields:
        return _dict(fields[camel])
    if snake in fields:
        return _dict(fields[snake])
    return None


def gemini_calls(content: Any) -> list[Mapping[str, Any]]:
    """The ``functionCall`` / ``function_call`` payloads of a turn, in order."""
    parts = (_part(p, "functionCall", "function_call") for p in _blocks(content, "parts"))
    return [p for p in parts if p is not None]


def gemini_responses(content: Any) -> list[Mapping[str, Any]]:
    """The ``functionResponse`` / ``function_response`` payloads of a turn, in order."""
    parts = (_part(p, "functionResponse", "function_response") for p in _blocks(content, "parts"))
    return [p for p in parts if p is not None]


def _gemini_unmatched(
    calls: list[Mapping[str, Any]], answers: list[Mapping[str, Any]]
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """Pair a call turn with its response turn: on ``id`` when both sides have one, then the
    rest by ``name`` as a multiset (never a call and a response that both have ids).
    Returns the calls and the responses left over."""
    calls_left = list(calls)
    answers_left: list[Mapping[str, Any]] = []
    for answer in answers:
        answer_id = answer.get("id")
        match = next(
            (c for c in calls_left if answer_id and c.get("id") == answer_id),
            None,
        )
        if match is None:
            answers_left.append(answer)
        else:
            calls_left.remove(match)
    by_name: list[Mapping[str, Any]] = []
    for answer in answers_left:
        match = next(
            (
                c
                for c in calls_left
                if c.get("name") == answer.get("name") and not (c.get("id") and answer.get("id"))
            ),
            None,
        )
        if match is None:
            by_name.append(answer)
        else:
            calls_left.remove(match)
    return calls_left, by_name


def gemini(contents: Messages) -> list[Violation]:
    """Google Gemini ``contents`` (REST camelCase and SDK snake_case).

    * a function call turn (a turn with ``functionCall`` parts) is followed immediately by a
      function response turn with as many ``functionResponse`` parts as it has call parts;
    * responses pair with calls on ``id`` when both have one, else by ``name`` (a multiset);
    * a function response turn comes immediately after a function call turn;
    * a function call turn comes after a user turn or a function response turn (or first);
    * no turn has empty ``parts``.
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("gemini", rule, index, error))

    for index, content in enumerate(contents):
        if not _blocks(content, "parts"):
            add("empty-parts", index, GEMINI_EMPTY.format(index=index))
        calls = gemini_calls(content)
        answers = gemini_responses(content)
        previous = contents[index - 1] if index > 0 else None
        if answers and (previous is None or not gemini_calls(previous)):
            add("orphan", index, GEMINI_RESPONSE_PLACE)
        if calls and previous is not None:
            after_user = _dict(previous).get("role") in ("user", "function")
            if not after_user and not gemini_responses(previous):
                add("call-place", index, GEMINI_CALL_PLACE)
        if not calls:
            continue
        following = contents[index + 1] if index + 1 < len(contents) else None
        replies = gemini_responses(following) if following is not None else []
        if len(replies) != len(calls) or _dict(following).get("role") == "model":
            add("count", index, GEMINI_COUNT)
            continue
        unmatched_calls, unmatched_replies = _gemini_unmatched(calls, replies)
        if unmatched_calls or unmatched_replies:
            names = ", ".join(f"{r.get('name')}/{r.get('id')}" for r in unmatched_replies)
            add("unmatched", index + 1, GEMINI_UNMATCHED.format(ids="{" + names + "}"))
    return found


# --- Gemini CLI sessions (docs/formats.md#gemini-cli) ------------------------------------------


#: How a user message the resume leaves out starts (a command, the context sent anew).
_CLI_UNSENT = ("/", "?", "<session_context>", "<hook_context>")


def _cli_parts(content: Any) -> list[Any]:
    """A session message's ``content`` as parts (``ensurePartArray``)."""
    if isinstance(content, str):
        return [{"text": content}] if content else []
    return content if isinstance(content, list) else [content] if isinstance(content, dict) else []


def _cli_text(content: Any) -> str:
    """A session message's words as the resume reads them (``partListUnionToString``,
    verbose: a part that is no text says its kind)."""
    said = ("thought", "functionCall", "functionResponse", "inlineData", "fileData")
    return "".join(
        "[part]" if any(key in _dict(p) for key in said) else str(_dict(p).get("text", ""))
        for p in _cli_parts(content)
    )


def _cli_response(call: Mapping[str, Any]) -> list[Any]:
    """The parts a ``toolCalls`` entry sends back: none without a (truthy) result, a string as
    ``response.output``, a part, or a list of parts."""
    result = call.get("result")
    if isinstance(result, str) and result:
        response = {"output": result}
        return [
            {
                "functionResponse": {
                    "id": call.get("id"),
                    "name": call.get("name"),
                    "response": response,
                }
            }
        ]
    if isinstance(result, list):
        return result
    return [result] if isinstance(result, dict) else []


def gemini_cli_contents(messages: Messages) -> list[dict[str, Any]]:
    """The ``contents`` ``gemini --resume`` sends for a session's ``messages``
    (``convertSessionToClientHistory``, 0.61): notices (``info``, ``error``, ``warning``) and
    user messages that are commands or the session's context left out; a user message's parts
    as they are (its recorded response turns included); each ``gemini`` message a model turn,
    its ``content`` parts when one is a call or a thought, else its text then a
    ``functionCall`` per ``toolCalls`` entry, followed, when some entry has a result, by one
    user turn of the results' parts. Turns of one role in a row go as one (as the CLI sends
    them), and a response part repeated word for word in one turn is sent once: toolpatch
    reads it as one response (docs/formats.md#gemini-cli-session-log)."""
    contents: list[dict[str, Any]] = []

    def add(role: str, parts: list[Any]) -> None:
        if contents and contents[-1]["role"] == role:
            kept = contents[-1]["parts"]
            kept += [p for p in parts if "functionResponse" not in _dict(p) or p not in kept]
        else:
            contents.append({"role": role, "parts": list(parts)})

    for message in messages:
        fields = _dict(message)
        words = _cli_text(fields.get("content")).strip()
        if fields.get("type") == "user" and words and not words.startswith(_CLI_UNSENT):
            add("user", _cli_parts(fields.get("content")))
        elif fields.get("type") == "gemini":
            calls = [_dict(c) for c in fields.get("toolCalls") or []]
            own = _cli_parts(fields.get("content"))
            if any(_dict(p).get("functionCall") or _dict(p).get("thought") for p in own):
                parts = list(own)
            else:
                parts = [p for p in own if str(_dict(p).get("text", "")).strip()]
                parts += [
                    {
                        "functionCall": {
                            "id": c.get("id"),
                            "name": c.get("name"),
                            "args": c.get("args"),
                        }
                    }
                    for c in calls
                ]
            if parts:
                add("model", parts)
                answers = [part for c in calls for part in _cli_response(c)]
                if answers:
                    add("user", answers)
    return contents


def gemini_cli(messages: Messages) -> list[Violation]:
    """Gemini's rules, held to the history a Gemini CLI session resumes into (the violations'
    indexes are those of the rebuilt ``contents``)."""
    return gemini(gemini_cli_contents(messages))


# --- AWS Bedrock Converse (docs/formats.md#bedrock) --------------------------------------

BEDROCK_EXPECTED = (
    "Expected toolResult blocks at messages.{index}.content for the following Ids: {ids}"
)
BEDROCK_EXCEEDS = (
    "The number of toolResult blocks at messages.{index}.content exceeds the number of toolUse "
    "blocks of previous turn."
)
BEDROCK_DUPLICATE = "The toolResult blocks at messages.{index}.content contain duplicate Ids: {id}"
BEDROCK_EMPTY_ERROR = (
    "The content field at messages.{index}.content.{block}.toolResult cannot be empty when "
    "status value is error."
)
BEDROCK_EMPTY_TEXT = "text content blocks must be non-empty"
BEDROCK_NOT_FIRST = (
    "messages.{index}: Did not find {count} `tool_result` block(s) at the beginning of this "
    "message. Messages following `tool_use` blocks must begin with a matching number of "
    "`tool_result` blocks."
)


def _member(block: Any, key: str) -> Mapping[str, Any] | None:
    fields = _dict(block)
    return _dict(fields[key]) if key in fields else None


BEDROCK_ALTERNATION = (
    "A conversation must alternate between user and assistant roles. Make sure the "
    "conversation alternates between user and assistant roles and try again."
)


def bedrock(messages: Messages) -> list[Violation]:
    """AWS Bedrock Converse.

    * every client ``toolUse`` of an assistant message is answered by a ``toolResult`` in the
      next message, a ``user`` message, which holds all results of that turn (server tool uses,
      ``type: "server_tool_use"``, are the provider's own and need none);
    * ``toolResult`` blocks come first in their message, answer ``toolUse`` ids of the previous
      message and hold no id twice;
    * a result with ``status: "error"`` has non-empty ``content`` whose text blocks are not
      empty;
    * user and assistant messages alternate (``ValidationException``: "A conversation must
      alternate between user and assistant roles", as users report it).
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("bedrock", rule, index, error))

    roles = [_dict(m).get("role") for m in messages]
    for index in range(1, len(roles)):
        if roles[index] == roles[index - 1]:
            add("alternation", index, BEDROCK_ALTERNATION)

    previous_uses: list[Any] = []
    for index, raw in enumerate(messages):
        message = _dict(raw)
        blocks = _blocks(message)
        role = message.get("role")
        results = [
            (k, r) for k, b in enumerate(blocks) if (r := _member(b, "toolResult")) is not None
        ]
        positions = [k for k, _ in results]
        if positions != list(range(len(positions))):
            count = max(len(previous_uses), len(positions))
            add("not-first", index, BEDROCK_NOT_FIRST.format(index=index, count=count))
        open_uses = Counter(previous_uses) if role == "user" else Counter()
        seen: set[Any] = set()
        extra = False
        for k, result in results:
            answered = result.get("toolUseId")
            if answered in seen:
                add("duplicate", index, BEDROCK_DUPLICATE.format(index=index, id=answered))
            elif open_uses[answered] > 0:
                open_uses[answered] -= 1
                seen.add(answered)
            else:
                extra = True
            if result.get("status") == "error":
                content = result.get("content")
                if not isinstance(content, list) or not content:
                    add("empty-error", index, BEDROCK_EMPTY_ERROR.format(index=index, block=k))
                elif any(_dict(c).get("text") == "" for c in content):
                    add("empty-text", index, BEDROCK_EMPTY_TEXT)
        if extra:
            add("orphan", index, BEDROCK_EXCEEDS.format(index=index))
        if previous_uses:
            missing = [str(i) for i, left in open_uses.items() for _ in range(left)]
            if role != "user":
                missing = [str(i) for i in previous_uses]
            if missing:
                error = BEDROCK_EXPECTED.format(index=index, ids=", ".join(missing))
                add("unanswered", index - 1, error)
        previous_uses = []
        if role == "assistant":
            for block in blocks:
                use = _member(block, "toolUse")
                if use is not None and use.get("type") != "server_tool_use":
                    previous_uses.append(use.get("toolUseId"))
    if previous_uses:
        ids = ", ".join(str(i) for i in previous_uses)
        error = BEDROCK_EXPECTED.format(index=len(messages), ids=ids)
        add("unanswered", len(messages) - 1, error)
    return found


# --- LangGraph's pre-flight check on LangChain messages (docs/formats.md#langchain) ------

LANGGRAPH_INVALID_CHAT_HISTORY = (
    "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. Here are the "
    "first few of those tool calls: {calls}. Every tool call (LLM requesting to call a tool) in "
    "the message history MUST have a corresponding ToolMessage (result of a tool invocation to "
    "return to the LLM) - this is required by most LLM providers."
)

#: ``lc`` constructor class names → ``messages_from_dict`` types.
_LC_TYPES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "ChatMessage": "chat",
    "FunctionMessage": "function",
    "RemoveMessage": "remove",
}


def load_langchain(message: Any) -> BaseMessage:
    """Load one LangChain message dict in any of its shapes (``{"type", "data"}``, the ``lc``
    constructor envelope, flat ``model_dump``) with langchain-core itself, so that
    ``tool_calls`` are what langchain-core makes of them (legacy ``additional_kwargs``,
    ``tool_call_chunks``)."""
    fields = dict(_dict(message))
    if fields.get("lc") == 1 and fields.get("type") == "constructor":
        name = str(fields["id"][-1])
        kwargs = dict(_dict(fields.get("kwargs")))
        kind = _LC_TYPES.get(name, name)
        return messages_from_dict([{"type": kind, "data": kwargs}])[0]
    if set(fields) == {"type", "data"}:
        return messages_from_dict([fields])[0]
    return messages_from_dict([{"type": fields.get("type"), "data": fields}])[0]


def langgraph(messages: Messages) -> list[Violation]:
    """LangGraph's ``INVALID_CHAT_HISTORY`` check (``_validate_chat_history``): every id of an
    ``AIMessage.tool_calls`` is the ``tool_call_id`` of some ``ToolMessage`` (one global set,
    no position check), with the messages loaded by langchain-core.

    Calls in ``invalid_tool_calls`` are held to the same rule: LangGraph does not look at them,
    but langchain-openai sends them to the provider as ``tool_calls``, which then need results
    (docs/formats.md#langchain); they are reported with the OpenAI text.
    """
    loaded = [load_langchain(m) for m in messages]
    answered = {m.tool_call_id for m in loaded if isinstance(m, ToolMessage)}
    found: list[Violation] = []
    for index, message in enumerate(loaded):
        if not isinstance(message, AIMessage):
            continue
        missing = [c for c in message.tool_calls if c["id"] not in answered]
        if missing:
            calls = json.dumps([dict(c) for c in missing])
            error = LANGGRAPH_INVALID_CHAT_HISTORY.format(calls=calls)
            found.append(Violation("langchain", "unanswered", index, error))
        invalid = [c["id"] for c in message.invalid_tool_calls if c["id"] not in answered]
        if invalid:
            error = OPENAI_UNANSWERED.format(ids=", ".join(str(i) for i in invalid))
            found.append(Violation("langchain", "unanswered-invalid", index, error))
    return found


# --- pydantic-ai message histories (docs/formats.md#pydantic-ai: the block providers' rules) ---


def _part_kind(part: Any) -> str | None:
    kind = _dict(part).get("part_kind")
    return kind if isinstance(kind, str) else None


def _pydantic_result(part: Any) -> bool:
    """A ``tool-return``, or a ``retry-prompt`` bound to a tool (sent as an error result)."""
    kind = _part_kind(part)
    return kind == "tool-return" or (kind == "retry-prompt" and bool(_dict(part).get("tool_name")))


def pydantic_ai(messages: Messages) -> list[Violation]:
    """pydantic-ai ``ModelMessagesTypeAdapter`` histories, held to the rules of the block
    providers pydantic-ai sends them to (Anthropic's wording; Bedrock and Gemini have the same
    rules): every ``tool-call`` part of a ``response`` is answered, once, by a result part of
    the very next ``request``, results before any other part, and every result answers a call
    of the previous response; a ``builtin-tool-call`` is answered by a ``builtin-tool-return``
    later in its own response.
    """
    found: list[Violation] = []

    def add(rule: str, index: int, error: str) -> None:
        found.append(Violation("pydantic-ai", rule, index, error))

    previous_calls: list[Any] = []
    for index, raw in enumerate(messages):
        message = _dict(raw)
        parts = _blocks(message, "parts")
        kind = message.get("kind")
        positions = [k for k, p in enumerate(parts) if _pydantic_result(p)]
        if positions != list(range(len(positions))) or (
            kind == "request" and len(positions) < len(previous_calls)
        ):
            count = max(len(previous_calls), len(positions))
            add("not-first", index, ANTHROPIC_NOT_FIRST.format(index=index, count=count))
        open_calls = Counter(previous_calls) if kind == "request" else Counter()
        seen: set[Any] = set()
        for k in positions:
            answered = _dict(parts[k]).get("tool_call_id")
            if answered in seen:
                add("duplicate", index, ANTHROPIC_DUPLICATE.format(id=answered))
            elif open_calls[answered] > 0:
                open_calls[answered] -= 1
                seen.add(answered)
            else:
                add("orphan", index, ANTHROPIC_ORPHAN.format(index=index, block=k, id=answered))
        if previous_calls:
            missing = [str(i) for i, left in open_calls.items() for _ in range(left)]
            if kind != "request":
                missing = [str(i) for i in previous_calls]
            if missing:
                error = ANTHROPIC_UNANSWERED.format(index=index - 1, ids=", ".join(missing))
                add("unanswered", index - 1, error)
        open_builtin: dict[Any, str] = {}
        for part in parts:
            fields = _dict(part)
            if _part_kind(part) == "builtin-tool-call":
                open_builtin[fields.get("tool_call_id")] = str(fields.get("tool_name"))
            elif _part_kind(part) == "builtin-tool-return":
                open_builtin.pop(fields.get("tool_call_id"), None)
        for call_id, name in open_builtin.items():
            error = ANTHROPIC_SERVER_UNANSWERED.format(name=name, id=call_id)
            add("server-unanswered", index, error)
        previous_calls = (
            [_dict(p).get("tool_call_id") for p in parts if _part_kind(p) == "tool-call"]
            if kind == "response"
            else []
        )
    if previous_calls:
        last = len(messages) - 1
        ids = ", ".join(str(i) for i in previous_calls)
        add("unanswered", last, ANTHROPIC_UNANSWERED.format(index=last, ids=ids))
    return found


# --- Vercel AI SDK UIMessage (docs/formats.md#vercel-ai-sdk-uimessage) ---------------------

AI_SDK_MISSING = "AI_MissingToolResultsError: Tool result is missing for tool call {id}."
AI_SDK_4_MISSING = "AI_MessageConversionError: ToolInvocation must have a result: {id}"
#: AI SDK 5+ states in which the SDK sends the part's call with a result (or, for a decided
#: approval, the decision it answers the call with); ``input-streaming`` parts are not sent.
AI_SDK_ANSWERED = {"output-available", "output-error", "output-denied", "approval-responded"}


def ai_sdk_ui(messages: Messages) -> list[Violation]:
    """The AI SDK's check of a ``UIMessage`` list: AI SDK 5+ sends every tool part but one
    still streaming its input as a call, and refuses the prompt (``MissingToolResultsError``)
    when a call that is not the provider's has neither a result nor an approval decision;
    AI SDK 4 refuses (``convertToCoreMessages``) an invocation without a ``result``, reading
    ``parts`` when the message has them, else ``toolInvocations``. A v5+ output-error must
    carry ``errorText`` (the SDK's schema)."""
    found: list[Violation] = []
    for index, raw in enumerate(messages):
        message = _dict(raw)
        if message.get("role") != "assistant":
            continue
        parts = [_dict(p) for p in _blocks(message, "parts")]
        invocations = [p["toolInvocation"] for p in parts if "toolInvocation" in p]
        if not isinstance(message.get("parts"), list):
            invocations = list(_blocks(message, "toolInvocations"))
        for invocation in map(_dict, invocations):
            if invocation.get("state") != "result" or "result" not in invocation:
                error = AI_SDK_4_MISSING.format(id=invocation.get("toolCallId"))
                found.append(Violation("ai-sdk-ui", "unanswered", index, error))
        for part in parts:
            kind = str(part.get("type", ""))
            if "toolInvocation" in part or not kind.startswith(("tool-", "dynamic-tool")):
                continue
            state = part.get("state")
            if state == "output-error" and not isinstance(part.get("errorText"), str):
                found.append(Violation("ai-sdk-ui", "shape", index, "errorText: Required"))
            sent_alone = state not in AI_SDK_ANSWERED and state != "input-streaming"
            if sent_alone and part.get("providerExecuted") is not True:
                error = AI_SDK_MISSING.format(id=part.get("toolCallId"))
                found.append(Violation("ai-sdk-ui", "unanswered", index, error))
    return found


#: What Mastra's sanitizers keep of a stored row's tool calls before every request
#: (docs/formats.md#mastras-stored-messages-check-only): AI SDK 4 invocations but those in
#: ``call`` / ``partial-call`` (of ``toolInvocations``, the ``result`` entries only), and of
#: AI SDK 5 tool parts only ``output-available`` and ``output-error``.
MASTRA_V4_DROPPED = {"call", "partial-call"}
MASTRA_V5_KEPT = {"output-available", "output-error"}


def _mastra_keeps(part: Mapping[str, Any]) -> bool:
    """Whether Mastra's sanitizers send ``part`` of a row's ``content.parts``."""
    if "toolInvocation" in part:
        return _dict(part["toolInvocation"]).get("state") not in MASTRA_V4_DROPPED
    kind = str(part.get("type", ""))
    if kind.startswith(("tool-", "dynamic-tool")):
        return part.get("state") in MASTRA_V5_KEPT
    return True


def mastra(messages: Messages) -> list[Violation]:
    """What Mastra sends from its stored rows, checked as the AI SDK checks it: each row's
    ``content`` as a ``UIMessage``, with the calls Mastra's sanitizers drop left out."""
    sent: list[dict[str, Any]] = []
    for raw in messages:
        row = _dict(raw)
        content = _dict(row.get("content"))
        message: dict[str, Any] = {"role": row.get("role")}
        if isinstance(content.get("parts"), list):
            message["parts"] = [p for p in map(_dict, content["parts"]) if _mastra_keeps(p)]
        invocations = _blocks(content, "toolInvocations")
        message["toolInvocations"] = [
            i for i in map(_dict, invocations) if i.get("state") == "result"
        ]
        sent.append(message)
    return [replace(found, provider="mastra") for found in ai_sdk_ui(sent)]


def ai_sdk_model(messages: Messages) -> list[Violation]:
    """The AI SDK's prompt check of ``ModelMessage`` lists (``convertToLanguageModelPrompt``):
    consecutive tool messages are one; a ``tool-call`` that is not ``providerExecuted`` must
    have its ``tool-result`` before the next user or system message and the list's end, unless
    a ``tool-approval-response`` answers the ``tool-approval-request`` naming it."""
    found: list[Violation] = []
    requested: dict[Any, Any] = {}
    approved: set[Any] = set()
    for message in map(_dict, messages):
        for part in map(_dict, _blocks(message)):
            if part.get("type") == "tool-approval-request":
                requested[part.get("approvalId")] = part.get("toolCallId")
            elif part.get("type") == "tool-approval-response" and message.get("role") == "tool":
                approved.add(requested.get(part.get("approvalId")))
    open_calls: dict[Any, int] = {}

    def close(index: int) -> None:
        for ident, at in open_calls.items():
            if ident not in approved:
                found.append(
                    Violation("ai-sdk-model", "unanswered", at, AI_SDK_MISSING.format(id=ident))
                )
        open_calls.clear()

    for index, message in enumerate(map(_dict, messages)):
        role = message.get("role")
        for part in map(_dict, _blocks(message)):
            if role == "assistant" and part.get("type") == "tool-call":
                if part.get("providerExecuted") is not True:
                    open_calls[part.get("toolCallId")] = index
            elif role == "tool" and part.get("type") == "tool-result":
                open_calls.pop(part.get("toolCallId"), None)
        if role in ("user", "system"):
            close(index)
    close(len(messages))
    return found


# --- LlamaIndex ChatMessage (docs/formats.md#llamaindex-chatmessage) -------------------------


def llama_index_as_openai(messages: Messages) -> list[dict[str, Any]]:
    """The OpenAI Chat messages LlamaIndex's OpenAI integration sends for ``ChatMessage``
    dumps: an assistant message's calls are its ``additional_kwargs.tool_calls`` and its
    ``tool_call`` blocks (one per id); a tool message answers its ``tool_call_id``."""
    sent: list[dict[str, Any]] = []
    for raw in messages:
        message = _dict(raw)
        extras = _dict(message.get("additional_kwargs"))
        role = message.get("role")
        if role == "tool":
            sent.append({"role": "tool", "tool_call_id": extras.get("tool_call_id")})
            continue
        calls = [_dict(c) for c in extras.get("tool_calls") or []]
        ids = {c.get("id") for c in calls}
        for block in map(_dict, _blocks(message, "blocks")):
            if block.get("block_type") == "tool_call" and block.get("tool_call_id") not in ids:
                calls.append({"id": block.get("tool_call_id"), "type": "function"})
        sent.append({"role": role, "content": "", **({"tool_calls": calls} if calls else {})})
    return sent


def llama_index(messages: Messages) -> list[Violation]:
    """OpenAI Chat's rules, held to what LlamaIndex sends for the messages."""
    return openai_chat(llama_index_as_openai(messages))


# --- opencode (docs/formats.md#opencode) -----------------------------------------------------

#: The states in which a tool part holds its own result (message-v2.ts, ``ToolState``).
OPENCODE_SETTLED = frozenset({"completed", "error"})


def _opencode_sends(message: Mapping[str, Any]) -> bool:
    """Whether opencode's ``toModelMessages`` sends ``message``: not a message without parts,
    nor an assistant message that ended in an error, unless that error is an abort
    (``MessageAbortedError``) and the message holds more than ``step-start`` and
    ``reasoning`` parts."""
    parts = [_dict(p) for p in _blocks(message, "parts")]
    info = _dict(message.get("info"))
    if not parts:
        return False
    if info.get("role") != "assistant" or not info.get("error"):
        return True
    aborted = _dict(info.get("error")).get("name") == "MessageAbortedError"
    return aborted and any(p.get("type") not in ("step-start", "reasoning") for p in parts)


def opencode(messages: Messages) -> list[Violation]:
    """The AI SDK's rule (``AI_MissingToolResultsError``), held to what an opencode export
    holds for the messages ``toModelMessages`` sends.

    A ``tool`` part is a call and its own result: opencode sends a ``completed`` or ``error``
    state as the call and its result (``output-available`` / ``output-error``). A ``pending`` or
    ``running`` part (or one in no known state) holds a call and no result. opencode papers
    over it when it sends (an ``output-error`` "[Tool execution was interrupted]", a text
    written nowhere), as pi, goose and OpenHands paper over theirs; that text is not counted,
    so such a part is a call the provider is sent without its result. A part opencode marks
    ``providerExecuted`` is the provider's own call, answered in its response."""
    found: list[Violation] = []
    for index, message in enumerate(map(_dict, messages)):
        if _dict(message.get("info")).get("role") != "assistant" or not _opencode_sends(message):
            continue
        for part in map(_dict, _blocks(message, "parts")):
            if part.get("type") != "tool" or _dict(part.get("metadata")).get("providerExecuted"):
                continue
            if _dict(part.get("state")).get("status") not in OPENCODE_SETTLED:
                error = AI_SDK_MISSING.format(id=part.get("callID"))
                found.append(Violation("opencode", "unanswered", index, error))
    return found


# --- OpenTelemetry GenAI messages (docs/formats.md#opentelemetry-genai-spans) ---------------

#: Why a traced call is refused: the provider-neutral record says only that its result never
#: came after it (the conventions name no provider's placement rule).
_OTEL_UNANSWERED = "messages[{index}]: tool_call {id} has no later tool_call_response"


def otel_genai(messages: Messages) -> list[Violation]:
    """OpenTelemetry GenAI input messages (the conventions' ``gen-ai-input-messages.json``): a
    ``tool_call`` part is answered by a later ``tool_call_response`` part with its id; the
    ``server_tool_call`` parts are the provider's own."""
    found: list[Violation] = []
    open_calls: dict[Any, int] = {}
    for index, raw in enumerate(messages):
        for part in map(_dict, _blocks(_dict(raw), "parts")):
            if part.get("type") == "tool_call":
                open_calls[part.get("id")] = index
            elif part.get("type") == "tool_call_response":
                open_calls.pop(part.get("id"), None)
    for ident, index in open_calls.items():
        error = _OTEL_UNANSWERED.format(index=index, id=ident)
        found.append(Violation("otel-genai", "unanswered", index, error))
    return found


# --- dispatch --------------------------------------------------------------------------------

VALIDATORS: dict[str, Callable[[Messages], list[Violation]]] = {
    "openai-chat": openai_chat,
    "anthropic": anthropic,
    "openai-responses": responses,
    "openai-agents-js": agents_js,
    "gemini": gemini,
    "gemini-cli": gemini_cli,
    "bedrock": bedrock,
    "langchain": langgraph,
    "pydantic-ai": pydantic_ai,
    "ai-sdk-ui": ai_sdk_ui,
    "mastra": mastra,
    "ai-sdk-model": ai_sdk_model,
    "llama-index": llama_index,
    "opencode": opencode,
    "otel-genai": otel_genai,
}


def validate(dialect_name: str, messages: Messages) -> list[Violation]:
    """Run the validator of a dialect (toolpatch's dialect names: ``openai-chat``,
    ``anthropic``, ``openai-responses``, ``openai-agents-js``, ``gemini``, ``gemini-cli``,
    ``bedrock``, ``langchain``, ``pydantic-ai``, ``ai-sdk-ui``, ``mastra``, ``ai-sdk-model``,
    ``llama-index``, ``opencode``, ``otel-genai``).

    Raises:
        KeyError: No validator for that dialect.
    """
    return VALIDATORS[dialect_name](messages)
