"""The rule table: codes, names, default texts, and ruff-style selection by code prefix."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from patchcore.errors import UnknownRuleError
from patchcore.model import Applicability


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule.

    Attributes:
        code: Stable code, e.g. ``"TP001"``.
        name: Kebab-case name, e.g. ``"dangling-tool-call"``.
        summary: One line for tables.
        explanation: What it checks and why providers care, for ``toolpatch rule CODE``.
        fix: Applicability of its fix, ``None`` when it has none.
        text: Default text of the synthetic result this rule's fix inserts, if it inserts one.
    """

    code: str
    name: str
    summary: str
    explanation: str
    fix: Applicability | None
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
            text=(
                "Tool call {name} with id {id} could not be executed - arguments were malformed "
                "or truncated."
            ),
        ),
    )
}

#: Rules that run when the caller selects nothing.
DEFAULT_SELECT: tuple[str, ...] = ("TP0",)

#: Default synthetic texts by rule code.
DEFAULT_TEXTS: Mapping[str, str] = {
    code: rule.text for code, rule in RULES.items() if rule.text is not None
}

_PLACEHOLDER = re.compile(r"\{(name|id)\}")


def render_text(template: str, *, name: str | None, call_id: str | None) -> str:
    """Fill ``{name}`` and ``{id}`` in ``template`` by literal substitution.

    A single pass, so a tool name containing ``{id}`` is not expanded again; every other brace
    is kept as written (this is deliberately not ``str.format``). For a call without an id
    (Gemini pairs by name), the words `` with id {id}`` are left out.
    """
    if call_id is None:
        template = template.replace(" with id {id}", "")
    values = {"name": name or "unknown", "id": call_id or "unknown"}
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


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
