"""The rule table: codes, names, default texts, and ruff-style selection by code prefix."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from patchcore.errors import UnknownRuleError


class Applicability(enum.Enum):
    """Whether a fix may run by default (ruff's vocabulary)."""

    SAFE = "safe"
    """Only adds content; runs with plain ``fix``."""

    UNSAFE = "unsafe"
    """Deletes or moves existing content; needs ``--unsafe-fixes``."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule.

    Attributes:
        code: Stable code, e.g. ``"TP001"``.
        name: Kebab-case name, e.g. ``"dangling-tool-call"``.
        summary: One line for tables.
        explanation: What it checks and why providers care, for ``toolpatch rule CODE``.
        fix: Applicability of its fix, ``None`` when it has none.
        fix_description: What the fix does, in a few words.
        text: Default text of the synthetic result this rule's fix inserts, if it inserts one.
    """

    code: str
    name: str
    summary: str
    explanation: str
    fix: Applicability | None
    fix_description: str | None = None
    text: str | None = None


_PROVIDER_ERRORS = (
    "Anthropic: `tool_use` ids were found without `tool_result` blocks immediately after: ...\n"
    "OpenAI Chat: An assistant message with 'tool_calls' must be followed by tool messages "
    "responding to each 'tool_call_id'. The following tool_call_ids did not have response "
    "messages: ...\n"
    "OpenAI Responses: No tool output found for function call ...\n"
    "LangGraph: Found AIMessages with tool_calls that do not have a corresponding ToolMessage."
)

RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule(
            code="TP001",
            name="dangling-tool-call",
            summary="a tool call with no result, followed by later messages",
            explanation=(
                "A tool call that no later tool result answers, in a history that went on after "
                "it (the agent crashed, was interrupted or a new message came in). Every provider "
                "rejects such a history on resume:\n" + _PROVIDER_ERRORS + "\n"
                "Fix (safe): insert a synthetic error result for the call right after the call's "
                "existing results."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            text=(
                "Tool call {name} with id {id} was cancelled - another message came in before it "
                "could be completed."
            ),
        ),
        Rule(
            code="TP002",
            name="pending-tool-call",
            summary="a tool call with no result in the history's last assistant turn",
            explanation=(
                "A tool call in the last turn of the history that has no result yet: the run "
                "stopped while the tool was pending (or the file is a training example whose "
                "target is the call: ignore TP002 for such data). Resuming sends it to the "
                "provider unanswered:\n" + _PROVIDER_ERRORS + "\n"
                "Fix (safe): insert a synthetic error result after the turn's existing results."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            text="Tool call {name} with id {id} did not complete - no result was recorded.",
        ),
        Rule(
            code="TP003",
            name="invalid-tool-call",
            summary="a tool call with malformed arguments and no result",
            explanation=(
                "A tool call whose arguments did not parse (LangChain `invalid_tool_calls`, an "
                "OpenAI `arguments` string that is not JSON, usually an output truncated at the "
                "token limit) and that has no result. Providers still require a result for it "
                "(langchain-openai sends invalid calls back as `tool_calls`; DeepSeek answers "
                "'insufficient tool messages following tool_calls message').\n"
                "Fix (safe): insert a synthetic error result saying the arguments were malformed."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            text=(
                "Tool call {name} with id {id} could not be executed - arguments were malformed "
                "or truncated."
            ),
        ),
        Rule(
            code="TP101",
            name="orphan-tool-result",
            summary="a result that answers no earlier call",
            explanation=(
                "A tool result whose id no earlier call has (its call was cut from the history, "
                "or the result came before its call). Providers reject it:\n"
                "OpenAI Chat: Invalid parameter: messages with role 'tool' must be a response to "
                "a preceeding message with 'tool_calls'.\n"
                "Anthropic: unexpected `tool_use_id` found in `tool_result` blocks: ... Each "
                "`tool_result` block must have a corresponding `tool_use` block in the previous "
                "message.\n"
                "OpenAI Responses: No tool call found for function call output with call_id ...\n"
                "Bedrock: The number of toolResult blocks at messages.N.content exceeds the "
                "number of toolUse blocks of previous turn.\n"
                "Fix (unsafe, deletes content): drop the result (and its message when nothing "
                "else is left in it). Not offered when the history holds nothing else: an empty "
                "history is no better for a provider, and the results would be gone."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the result",
        ),
        Rule(
            code="TP102",
            name="misplaced-tool-result",
            summary="a result for an earlier call, but not where the format requires it",
            explanation=(
                "A result that answers an earlier call but is not in the place the format "
                "requires: another message sits between the call and it (OpenAI Chat, "
                "LangChain); it is not in the very next user turn, or the results of one turn are "
                "split over several turns (Anthropic, Bedrock, Gemini, pydantic-ai). OpenAI "
                "Responses accepts an output anywhere after its call but between a reasoning "
                "item and the item it precedes. Providers reject it:\n"
                "OpenAI Chat: An assistant message with 'tool_calls' must be followed by tool "
                "messages responding to each 'tool_call_id'.\n"
                "Anthropic: `tool_use` ids were found without `tool_result` blocks immediately "
                "after.\n"
                "Gemini: Please ensure that function response turn comes immediately after a "
                "function call turn.\n"
                "Bedrock: Expected toolResult blocks at messages.N.content for the following "
                "Ids: ...\n"
                "OpenAI Responses: Item 'rs_...' of type 'reasoning' was provided without its "
                "required following item\n"
                "Fix (unsafe, moves content): move the result right after its call's turn, with "
                "the turn's other results."
            ),
            fix=Applicability.UNSAFE,
            fix_description="move the result into place",
        ),
        Rule(
            code="TP103",
            name="duplicate-tool-result",
            summary="a second result for a call that is already answered",
            explanation=(
                "A result for a call that an earlier result already answered. Providers reject "
                "it:\n"
                "OpenAI Chat: Invalid parameter: Duplicate value for 'tool_call_id' of ... in "
                "messages[N] and messages[M].\n"
                "Anthropic: each tool_use must have a single result. Found multiple tool_result "
                "blocks with id: ...\n"
                "Bedrock: The toolResult blocks at messages.N.content contain duplicate Ids: ...\n"
                "Fix (unsafe, deletes content): drop the later result (not offered when that "
                "would empty the history)."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the later result",
        ),
        Rule(
            code="TP104",
            name="duplicate-tool-call-id",
            summary="a call reuses the id of a call that is still unanswered",
            explanation=(
                "A call whose id is the id of an earlier call that has not been answered yet "
                "(within one message or across turns): no result can say which of the two it "
                "answers, and providers reject duplicate ids (Anthropic: tool_use ids must be "
                "unique; Mistral: Not the same number of function calls and responses). Reusing "
                "an id after the earlier call was answered is legal and is not reported (real "
                "histories do it: tau-bench, tau2).\n"
                "No fix: which call the later results belong to cannot be known."
            ),
            fix=None,
        ),
        Rule(
            code="TP105",
            name="missing-tool-call-id",
            summary="a call with no id where the format requires one",
            explanation=(
                "A call whose id is null or empty in a format that pairs results by id (every "
                "format but Gemini, which pairs id-less calls by name). No result can answer it, "
                "and providers reject it (OpenAI: Missing required parameter: "
                "'messages[N].tool_calls[0].id'). The TP0xx rules skip such calls, as deepagents "
                "does.\n"
                "No fix: toolpatch does not invent ids."
            ),
            fix=None,
        ),
        Rule(
            code="TP106",
            name="tool-result-not-first",
            summary="a user message holds other blocks before its tool results",
            explanation=(
                "Anthropic and Bedrock require a user message that answers tool calls to begin "
                "with its tool_result blocks; text or other blocks must come after them:\n"
                "Anthropic: messages.N: Did not find K `tool_result` block(s) at the beginning of "
                "this message. Messages following `tool_use` blocks must begin with a matching "
                "number of `tool_result` blocks.\n"
                "pydantic-ai sends a request's parts in their order, so a user prompt before its "
                "tool-return parts is text before the tool_result blocks for Anthropic, and a "
                "user message between the tool calls and their tool messages for OpenAI (An "
                "assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id').\n"
                "Fix (unsafe, moves content): move the results first, keeping the order of the "
                "other blocks."
            ),
            fix=Applicability.UNSAFE,
            fix_description="move the results first",
        ),
        Rule(
            code="TP107",
            name="empty-tool-calls",
            summary="an assistant message with an empty tool_calls list",
            explanation=(
                "An OpenAI Chat assistant message with `tool_calls: []` (for LangChain, an empty "
                "`additional_kwargs.tool_calls`, which older integrations forwarded as is):\n"
                "OpenAI: Invalid 'messages[N].tool_calls': empty array. Expected an array with "
                "minimum length 1, but got an empty array instead.\n"
                "Qwen: Empty tool_calls is not supported in message.\n"
                "Fix (unsafe, deletes content): drop the empty key."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the empty tool_calls key",
        ),
    )
}

#: Rules that run when the caller selects nothing.
DEFAULT_SELECT: tuple[str, ...] = ("TP0",)

#: Default synthetic texts by rule code.
DEFAULT_TEXTS: Mapping[str, str] = {
    code: rule.text for code, rule in RULES.items() if rule.text is not None
}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def render_text(template: str, *, name: str | None, call_id: str | None) -> str:
    """Fill ``{name}`` and ``{id}`` in ``template`` by literal substitution.

    A single pass, so a tool name containing ``{id}`` is not expanded again; every other brace
    is kept as written (this is deliberately not ``str.format``). For a call without an id
    (Gemini pairs by name), the words `` with id {id}`` are left out.
    """
    if call_id is None:
        template = template.replace(" with id {id}", "")
    return fill(template, {"name": name or "unknown", "id": call_id or "unknown"})


#: The placeholders a template of a synthetic result may use.
PLACEHOLDERS = ("name", "id")


def template_problem(template: str) -> str | None:
    """Why ``template`` cannot be a synthetic text, or ``None`` when it can: a ``{word}`` that is
    no known placeholder (a typo such as ``{nme}`` would be written into every history as it
    stands), or a brace that opens or closes nothing. Braces around other text (``{"a": 1}``)
    are kept as written.

    >>> template_problem("Tool {nme} failed")
    "an unknown placeholder '{nme}' (known: {name}, {id})"
    >>> template_problem("Tool {name} {")
    "a '{' that is never closed (at character 13)"
    """
    for match in _PLACEHOLDER.finditer(template):
        if match.group(1) not in PLACEHOLDERS:
            known = ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
            return f"an unknown placeholder '{match.group(0)}' (known: {known})"
    opened: list[int] = []
    for position, char in enumerate(template):
        if char == "{":
            opened.append(position)
        elif char == "}" and not opened:
            return f"a '}}' that closes nothing (at character {position + 1})"
        elif char == "}":
            opened.pop()
    if opened:
        return f"a '{{' that is never closed (at character {opened[-1] + 1})"
    return None


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace each ``{key}`` of ``values`` in ``template`` in a single pass: a value that itself
    reads ``{id}`` (a tool name is data) is never expanded again, and other braces stay as written.

    >>> fill("{name} answered {id}", {"name": "{id}", "id": "call_1"})
    '{id} answered call_1'
    """
    return _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), template)


def _expand(selectors: Iterable[str], *, option: str) -> set[str]:
    codes: set[str] = set()
    for raw in selectors:
        selector = raw.strip().upper()
        if not selector:
            continue
        matched = set(RULES) if selector == "ALL" else {c for c in RULES if c.startswith(selector)}
        if not matched:
            msg = f"{option}: {raw.strip()!r} matches no rule (see `toolpatch rules`)"
            raise UnknownRuleError(msg)
        codes |= matched
    return codes


@dataclass(frozen=True, slots=True)
class RuleSelection:
    """The set of rule codes in force, built from ruff-style ``select`` / ``ignore`` prefixes."""

    codes: frozenset[str]

    @classmethod
    def build(
        cls,
        *,
        select: Iterable[str] | None = None,
        ignore: Iterable[str] | None = None,
    ) -> RuleSelection:
        """Resolve selectors: ``ALL``, a full code, or a prefix such as ``TP0``.

        Raises:
            UnknownRuleError: A selector matches no rule.
        """
        chosen = _expand(DEFAULT_SELECT if select is None else select, option="select")
        chosen -= _expand(ignore or (), option="ignore")
        return cls(frozenset(chosen))

    def __contains__(self, code: object) -> bool:
        return code in self.codes
