"""The rule table: codes, names, default texts, and ruff-style selection by code prefix."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

import msgspec

from patchcore.errors import UnknownRuleError, did_you_mean


class Applicability(enum.Enum):
    """Whether a fix may run by default (ruff's vocabulary)."""

    SAFE = "safe"
    """Only adds content; runs with plain ``fix``."""

    UNSAFE = "unsafe"
    """Deletes, moves or changes existing content; needs ``--unsafe-fixes``."""


class Origin(enum.Enum):
    """Where the result a fix writes comes from (docs/pairing.md#evidence-first): what a report
    says beside every fix that writes a result. A fix that writes none (a drop, a reorder,
    ``toolpatch strip``) has no origin."""

    RECOVERED = "recovered"
    """The data's own result: moved or copied into place, or built from what the data recorded
    of the call (a Codex execution event, a Gemini CLI error, an error a store kept)."""

    SYNTHESIZED = "synthesized"
    """Made up: the synthetic result text, for a call whose outcome nothing recorded."""


class RepairPolicy(enum.Enum):
    """What a fix does with a tool call that no result answers (the TP0xx rules).

    docs/pairing.md#repair-policies says when to choose which.
    """

    ANSWER = "answer"
    """Insert a synthetic error result after it (a safe fix: it only adds content)."""

    DROP = "drop"
    """Remove the call itself (an unsafe fix: it deletes what the model wrote); never in an
    agent session log, where it would rewrite what the agent did."""


class Rule(msgspec.Struct, frozen=True):
    """One rule, and its documentation: ``toolpatch rule CODE`` and docs/rules.md print these
    texts in ruff's layout (``cli/rule_docs.py``). A msgspec Struct: every command imports the
    rules, and a Struct is made at import many times faster than a dataclass
    (docs/benchmarks.md#start-up).

    Attributes:
        code: Stable code, e.g. ``"TP001"``.
        name: Kebab-case name, e.g. ``"dangling-tool-call"``.
        summary: One line for tables.
        what: What it checks ("What it does"), one paragraph.
        why: Why providers or readers care ("Why is this bad?"), one paragraph; each dialect's
            provider error (``Dialect.provider_errors``) is listed after it, not quoted here.
        fix: Applicability of its fix, ``None`` when it has none.
        fix_description: What the fix does, in a few words (a `Fix`'s description).
        fix_notes: What the fix writes and when it is not offered; for a rule without a fix,
            why there is none. One paragraph.
        example: A small JSON history the rule reports. Its repair is the engine's, computed
            when it is shown; a rule without a fix has ``use_instead``.
        use_instead: For a rule without a fix, the same history as it should be.
        fix_always: Whether the fix is offered for every finding of the rule.
        text: Default text of the synthetic result this rule's fix inserts, if it inserts one.
        provider: For a provider rule (TP3xx), the provider whose refusal it is: it applies only
            to a run that targets that provider (`RuleSelection.build`'s ``target``,
            docs/cli.md#target); ``None``: a rule of every provider.
        error: For a provider rule, the provider's error, word for word (``{id}``, ``{name}``,
            ``{index}``, ``{block}`` filled in as `Dialect.provider_errors`' are).
        source: Where that error and the rule were verified: the provider's documentation or
            SDK, named in docs/rules.md.
    """

    code: str
    name: str
    summary: str
    what: str
    why: str
    fix: Applicability | None
    fix_notes: str
    example: str
    fix_description: str | None = None
    use_instead: str | None = None
    fix_always: bool = False
    text: str | None = None
    provider: str | None = None
    error: str | None = None
    source: str | None = None

    @property
    def explanation(self) -> str:
        """What it checks, why it matters and its fix, as paragraphs (SARIF's rule help)."""
        fix = f"Fix ({self.fix.value})" if self.fix is not None else "No fix"
        return f"{self.what}\n\n{self.why}\n\n{fix}: {self.fix_notes}"


#: Why a TP0xx fix is not always offered (docs/pairing.md#calls-that-cannot-be-answered).
_UNANSWERABLE = (
    "No result is inserted for a call that has no truthful one (a call the provider runs "
    "itself, a call whose result is data such as a screenshot, a call awaiting approval), nor "
    "into a list that takes no new element (a stored model response)."
)

#: The arguments of the examples' calls, as the JSON string OpenAI Chat holds them.
_PARIS = '"{\\"city\\": \\"Paris\\"}"'


def _asked(then: str, *, call_id: str = "call_1", arguments: str = _PARIS) -> str:
    """An example history: a question, the assistant's call to answer it, then the messages
    ``then`` (JSON lines, each ending with a comma but the last)."""
    return (
        "[\n"
        '  {"role": "user", "content": "Weather in Paris?"},\n'
        '  {"role": "assistant", "content": null, "tool_calls": [\n'
        f'    {{"id": "{call_id}", "type": "function", "function":\n'
        f'      {{"name": "get_weather", "arguments": {arguments}}}}}\n'
        "  ]}" + (",\n" + then if then else "\n") + "]\n"
    )


def _paris_and_rome(second_id: str) -> str:
    """An example of two calls, both answered: the second call's id is ``second_id``."""
    return f"""\
[
  {{"role": "user", "content": "Weather in Paris and Rome?"}},
  {{"role": "assistant", "content": null, "tool_calls": [
    {{"id": "call_1", "type": "function", "function":
      {{"name": "get_weather", "arguments": "{{\\"city\\": \\"Paris\\"}}"}}}},
    {{"id": "{second_id}", "type": "function", "function":
      {{"name": "get_weather", "arguments": "{{\\"city\\": \\"Rome\\"}}"}}}}
  ]}},
  {{"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"}},
  {{"role": "tool", "tool_call_id": "{second_id}", "content": "24 C, cloudy"}}
]
"""


def _anthropic_weather(then: str) -> str:
    """An Anthropic request body: a call to a weather tool answered, then the messages
    ``then``."""
    return (
        '{"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": [\n'
        '    {"role": "user", "content": "Weather in Paris?"},\n'
        '    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",\n'
        '      "name": "get_weather", "input": {"city": "Paris"}}]},\n'
        '    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",\n'
        '      "content": "18 C"}]}' + (",\n" + then if then else "\n") + "]}\n"
    )


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule(
            code="TP001",
            name="dangling-tool-call",
            summary="a tool call with no result, followed by later messages",
            what=(
                "Checks for a tool call that no tool result answers, in a history that went on "
                "after it: the agent crashed or was interrupted while the tool ran, or a new "
                "message came in before it finished."
            ),
            why=(
                "A provider takes a history only when every tool call in it has its result: "
                "the conversation cannot be resumed, and every request that sends it again is "
                "rejected."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            fix_notes=(
                "It inserts a synthetic error result for the call right after the call's "
                "existing results, in the list's own format, telling the model that no result "
                "was recorded and that whether the tool ran is unknown, so that it checks before "
                "repeating a side effect. " + _UNANSWERABLE
            ),
            example=_asked(
                """\
  {"role": "user", "content": "Never mind, book a table instead."}
"""
            ),
            text=(
                "Tool call {name} with id {id} has no recorded result: the conversation went on "
                "before one was saved. Whether the tool ran, and what it did, is unknown; check "
                "its effects before calling it again."
            ),
        ),
        Rule(
            code="TP002",
            name="pending-tool-call",
            summary="a tool call with no result in the history's last assistant turn",
            what=(
                "Checks for a tool call in the last turn of the history that has no result yet: "
                "the run stopped while the tool was pending."
            ),
            why=(
                "Resuming the conversation sends the call to the provider unanswered, and the "
                "request is rejected. A fine-tuning example whose target is the call ends so "
                "on purpose: such a call is reported without a fix and left as it is "
                "(--fix-training-targets answers it, --ignore TP002 leaves it unreported)."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            fix_notes=(
                "It inserts a synthetic error result after the turn's existing results. It is "
                "not offered for a call pending in an agent session log whose last entry was "
                "written in the last live-session-minutes (10 by default), whose agent may "
                "still be running it, unless --force is given. " + _UNANSWERABLE
            ),
            example=_asked(""),
            text=(
                "Tool call {name} with id {id} has no recorded result: the run stopped before one "
                "was saved. Whether the tool ran, and what it did, is unknown; check its effects "
                "before calling it again."
            ),
        ),
        Rule(
            code="TP003",
            name="invalid-tool-call",
            summary="a tool call with malformed arguments and no result",
            what=(
                "Checks for a tool call whose arguments did not parse and that has no result: "
                "a LangChain `invalid_tool_calls` entry, or an OpenAI `arguments` string that "
                "is not JSON, usually an output cut at the token limit."
            ),
            why=(
                "Providers still require a result for such a call: langchain-openai sends "
                "invalid calls back as `tool_calls`, and DeepSeek answers 'insufficient tool "
                "messages following tool_calls message'."
            ),
            fix=Applicability.SAFE,
            fix_description="insert a synthetic error result",
            fix_notes=(
                "It inserts a synthetic error result saying the arguments were malformed and "
                "that whether the tool ran is unknown, right after the call's existing results. "
                "Like TP002's, it is not offered for such a call pending in the last turn of a "
                "live agent session log, unless --force is given. " + _UNANSWERABLE
            ),
            example=_asked(
                '  {"role": "user", "content": "Hello?"}\n',
                arguments='"{\\"city\\": \\"Pa"',  # cut short: not JSON
            ),
            text=(
                "Tool call {name} with id {id} has malformed or truncated arguments and no "
                "recorded result. Whether it ran is unknown; check its effects before calling it "
                "again."
            ),
        ),
        Rule(
            code="TP004",
            name="unread-tool-call",
            summary="objects that look like tool calls or results that no reading pairs",
            what=(
                "Checks for objects that look like tool calls or results (a `type` such as "
                "`tool_use`, `function_call` or `tool_result`, a key such as `tool_call_id`, "
                "`call_id`, `tool_calls` or `functionCall`) that the reading toolpatch chose "
                "for the input does not pair: outside every message list it reads (one finding "
                "per record, with their count and the first), in a message or item in which "
                "the list's dialect reads no call and no result, and a result whose call no "
                "message of its list holds (TP101 reports that one instead where it is "
                "selected)."
            ),
            why=(
                "A reading is chosen on positive evidence only, and what it does not read "
                "could be a history in a format toolpatch was not taught: its calls would pass "
                "as answered, and a log whose last call never got its result would be reported "
                "clean. Where the objects are expected (another tool's records that merely "
                "look like calls), say so with --ignore TP004 or a per-file ignore."
            ),
            fix=None,
            fix_notes=(
                "What is not read cannot be repaired: toolpatch does not guess a format. Read "
                "the file with a reading that pairs its calls (--dialect, or a newer toolpatch), "
                "or ignore the rule for it."
            ),
            example="""\
{"log": [
  {"type": "tool_use", "tool_id": "t1", "tool_name": "read_file"},
  {"type": "tool_result", "tool_id": "t1", "output": "..."}
]}
""",
            use_instead="""\
[
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}
  ]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "t1", "content": "..."}
  ]}
]
""",
        ),
        Rule(
            code="TP101",
            name="orphan-tool-result",
            summary="a result that answers no earlier call",
            what=(
                "Checks for a tool result whose id no earlier call has: its call was cut from "
                "the history, or the result came before its call. A result with no id (null or "
                "empty) answers a call with no id of its turn when its tool name and order say "
                "which (docs/pairing.md); otherwise it answers no call either."
            ),
            why="Providers reject a result that answers no call of the history.",
            fix=Applicability.UNSAFE,
            fix_description="drop the result",
            fix_notes=(
                "It drops the result, and its message when nothing else is left in it. It never "
                "drops a result whose call could be the one it answers: a result with no id "
                "after a call with no id whose tool name does not contradict its own (which of "
                "several such calls is unknown), or a result after a message that holds what "
                "looks like a call its dialect does not read, or, in an agent session log, after a "
                "line that is not JSON (the call may be in it): it is reported and kept. It is "
                "not offered when the history holds nothing else: an empty history is no "
                "better for a provider, and the results would be gone. In a Claude Code session "
                "log it drops the result from its line, or the line when nothing else is in it, "
                "and the lines that hung off that line then hang off its parent "
                "(docs/formats.md#claude-code)."
            ),
            example="""\
[
  {"role": "user", "content": "Weather in Paris?"},
  {"role": "tool", "tool_call_id": "call_0", "content": "18 C, sunny"},
  {"role": "assistant", "content": "It is 18 C and sunny in Paris."}
]
""",
        ),
        Rule(
            code="TP102",
            name="misplaced-tool-result",
            summary="a result for an earlier call, but not where the format requires it",
            what=(
                "Checks for a result that answers an earlier call but is not where the format "
                "requires it: another message sits between the call and the result (OpenAI "
                "Chat, LangChain), or the result is not in the very next user turn, or the "
                "results of one turn are split over several turns (Anthropic, Bedrock, Gemini, "
                "pydantic-ai)."
            ),
            why=(
                "Providers reject the history. OpenAI Responses accepts an output anywhere "
                "after its call, but not between a reasoning item and the item it precedes "
                "('Item 'rs_...' of type 'reasoning' was provided without its required "
                "following item')."
            ),
            fix=Applicability.UNSAFE,
            fix_description="move the result into place",
            fix_notes=(
                "It moves the result right after its call's turn, with the turn's other "
                "results. It is not offered for a result that cannot be moved alone (a message "
                "that answers several calls at once)."
            ),
            example=_asked(
                """\
  {"role": "user", "content": "In Celsius, please."},
  {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"}
"""
            ),
        ),
        Rule(
            code="TP103",
            name="duplicate-tool-result",
            summary="a second result for a call that is already answered",
            what="Checks for a result for a call that an earlier result already answered.",
            why=(
                "Providers reject a call answered twice: Anthropic, OpenAI Chat and Responses, "
                "Bedrock (two results in one message, or more results than calls) and Gemini "
                "(more responses than calls), so a history resumed after a tool ran again is "
                "refused. On by default, though its code is a TP1xx one: see the selection "
                "note at the top of docs/rules.md."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the later result",
            fix_notes=(
                "It drops the later result, and its message when nothing else is left in it. "
                "When the earlier result is the synthetic one toolpatch wrote and the later one "
                "is real (the tool finished, or the approval came, after the repair), it drops "
                "the synthetic one and keeps the real result, or drops neither where the real "
                "result alone would be out of place. It is not offered when that would empty "
                "the history."
            ),
            example=_asked(
                """\
  {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
  {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"}
"""
            ),
        ),
        Rule(
            code="TP104",
            name="duplicate-tool-call-id",
            summary="a call reuses the id of a call that is still unanswered",
            what=(
                "Checks for a call whose id is the id of an earlier call that has not been "
                "answered yet, within one message or across turns."
            ),
            why=(
                "No result can say which of the two calls it answers, and providers reject "
                "duplicate ids (Mistral: 'Not the same number of function calls and "
                "responses'). Reusing an id after the earlier call was answered is legal and is "
                "not reported: real histories do it (tau-bench, tau2)."
            ),
            fix=None,
            fix_notes=(
                "Which call each result belongs to cannot be known, so toolpatch does not "
                "guess: the history needs an id of its own for each call, and results that say "
                "which they answer."
            ),
            example=_paris_and_rome("call_1"),
            use_instead=_paris_and_rome("call_2"),
        ),
        Rule(
            code="TP105",
            name="missing-tool-call-id",
            summary="a call with no id where the format requires one",
            what=(
                "Checks for a call whose id is null or empty in a format that pairs results by "
                "id (every format but Gemini, which pairs calls without ids by name)."
            ),
            why=(
                "Providers reject it. A result with no id right after it, of the same tool (or "
                "of none named), answers it, as Gemini pairs its calls without ids "
                "(docs/pairing.md); the pairing rules skip a call that none answers, as "
                "deepagents does."
            ),
            fix=Applicability.UNSAFE,
            fix_description="give the call and its result one id",
            fix_notes=(
                "It writes one new id into the call and into the result with no id that answers "
                "it: an id derived from where the call sits in its record and its tool name, so "
                "two runs write the same one. It changes what the model wrote, so it is unsafe. "
                "It is not offered for a call that no result answers (its result would have to "
                "be made up for an id made up too), nor in a stored model response."
            ),
            example=_asked(
                '  {"role": "tool", "tool_call_id": "", "content": "18 C, sunny"}\n', call_id=""
            ),
        ),
        Rule(
            code="TP106",
            name="tool-result-not-first",
            summary="a user message holds other blocks before its tool results",
            what=(
                "Checks for a user message that answers tool calls with other blocks (text, an "
                "image) before its tool results."
            ),
            why=(
                "Anthropic and Bedrock require such a message to begin with its `tool_result` "
                "blocks. pydantic-ai sends a request's parts in their order, so a user prompt "
                "before its tool-return parts reaches Anthropic as text before the "
                "`tool_result` blocks, and OpenAI as a user message between the tool calls and "
                "their tool messages."
            ),
            fix=Applicability.UNSAFE,
            fix_description="move the results first",
            fix_notes=(
                "It moves the results first, keeping the order of the other blocks. In a Claude "
                "Code session log it moves them first in their line; a user line between a call "
                "and its result (a prompt, an `isMeta` line) is not reported, since Claude Code "
                "sends the result first (docs/formats.md#claude-code)."
            ),
            example="""\
[
  {"role": "user", "content": "Weather in Paris?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
     "input": {"city": "Paris"}}
  ]},
  {"role": "user", "content": [
    {"type": "text", "text": "Here it is:"},
    {"type": "tool_result", "tool_use_id": "toolu_1",
     "content": "18 C, sunny"}
  ]}
]
""",
        ),
        Rule(
            code="TP107",
            name="empty-tool-calls",
            summary="an assistant message with an empty tool_calls list",
            what=(
                "Checks for an OpenAI Chat assistant message with `tool_calls: []` (for "
                "LangChain, an empty `additional_kwargs.tool_calls`, which older integrations "
                "forwarded as it was)."
            ),
            why=(
                "OpenAI rejects an empty `tool_calls` array, and so does Qwen ('Empty "
                "tool_calls is not supported in message')."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the empty tool_calls key",
            fix_notes="It drops the empty key.",
            fix_always=True,
            example="""\
[
  {"role": "user", "content": "Hello!"},
  {"role": "assistant", "content": "Hi! How can I help?", "tool_calls": []}
]
""",
        ),
        Rule(
            code="TP201",
            name="split-line",
            summary="an agent session's entry split over lines by a raw line break in a string",
            what=(
                "Checks, in an agent session log (one entry a line), for lines that are no JSON "
                "on their own but one entry when joined with their line breaks escaped: a raw "
                "line break inside a JSON string (a tool's output written unescaped, a hand "
                "edit) split the entry."
            ),
            why=(
                "The agent reads its log a line at a time and skips both halves: the entry is "
                "lost to it. When it holds a tool's result, the call is left unanswered, and "
                "Claude Code leaves the call out of the history it resumes, so the model is "
                "never told it ran. toolpatch reads the joined entry, so the real result "
                "answers its call and none is made up."
            ),
            fix=Applicability.SAFE,
            fix_description="write the entry back on one line",
            fix_always=True,
            fix_notes=(
                "It writes the entry on one line with the line breaks escaped (`\\n`): the "
                "text the entry holds is the same, nothing is added or dropped. It is found only "
                "where every later piece is no JSON on its own, the first is cut inside a string, "
                "and at most 16 lines make one object."
            ),
            example=(
                '{"type":"user","message":{"role":"user","content":"List the files."},'
                '"uuid":"u1","parentUuid":null,"sessionId":"s1"}\n'
                '{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":'
                '[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},'
                '"uuid":"u2","parentUuid":"u1","sessionId":"s1"}\n'
                '{"type":"user","message":{"role":"user","content":[{"type":"tool_result",'
                '"tool_use_id":"toolu_1","content":"README.md\nsetup.py"}]},'
                '"uuid":"u3","parentUuid":"u2","sessionId":"s1"}\n'
            ),
        ),
        Rule(
            code="TP301",
            name="no-thought-signature",
            summary="Gemini 3: a function call of the current turn without its thought signature",
            what=(
                "Checks, in a Gemini `contents` list, the model turns after the last user turn "
                "that holds text (the current turn, as the API finds it): the first "
                "`functionCall` part of each must carry a `thoughtSignature`."
            ),
            why=(
                "Gemini 3 models validate the signatures of the current turn's function calls "
                "and refuse a request that leaves one out (Gemini 2.5 does not). A history "
                "rebuilt from another format, or by code that dropped unknown fields, has none. "
                "The error's position is the API's own count, which it does not document: "
                "toolpatch writes the content's index in `contents` there."
            ),
            fix=Applicability.UNSAFE,
            fix_description="write Gemini's documented skip signature",
            fix_notes=(
                "It writes `skip_thought_signature_validator`, the value Gemini's documentation "
                "gives for a signature that is not known and that Gemini CLI writes itself "
                "(`SYNTHETIC_THOUGHT_SIGNATURE`), into the part: the model then goes on "
                "without the reasoning it had. It is an opt-in fix (--unsafe-fixes): it writes "
                "a value the model did not return."
            ),
            example="""\
[
  {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
  {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
  ]},
  {"role": "user", "parts": [
    {"functionResponse": {"name": "get_weather", "response": {"output": "18 C"}}}
  ]}
]
""",
            provider="gemini",
            error=(
                "Function call is missing a thought_signature in functionCall parts. This is "
                "required for tools to work correctly, and missing thought_signature may lead "
                "to degraded model performance. Additional data, function call "
                "`default_api:{name}`, position {index}."
            ),
            source=(
                "Gemini API documentation, Thought signatures (ai.google.dev/gemini-api/docs/"
                "thought-signatures: the current turn's validation, the skip value); Gemini "
                "CLI, packages/core/src/core/geminiChat.ts (ensureActiveLoopHasThoughtSignatures)"
            ),
        ),
        Rule(
            code="TP302",
            name="mistral-tool-call-id",
            summary="Mistral: a tool call id that is not 9 letters and digits",
            what=(
                "Checks, in an OpenAI Chat list sent to Mistral, each tool call id and each "
                "tool message's `tool_call_id`: Mistral takes only ids of exactly 9 characters "
                "a-z, A-Z, 0-9. One finding per id, at its first place."
            ),
            why=(
                "Mistral refuses the request. Histories moved from OpenAI (`call_...`), "
                "Anthropic (`toolu_...`) or LangChain carry ids of other shapes."
            ),
            fix=Applicability.UNSAFE,
            fix_description="rewrite the id to Mistral's shape, in the call and its results",
            fix_notes=(
                "It writes one new id of 9 letters and digits, derived from the old one (two "
                "runs write the same), into the call and every tool message that answers it, "
                "so that they still pair; an id already in the list is never written. It "
                "changes what the model wrote, so it is unsafe. It is not offered in a list "
                "whose tool messages name their calls under a framework's own key (SWE-agent's "
                "`tool_call_ids`, tau2's `id`), which it would leave naming the old id."
            ),
            example=_asked(
                '  {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"}\n'
            ),
            provider="mistral",
            error="Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9.",
            source=(
                "mistral-common, src/mistral_common/protocol/instruct/validator.py "
                "(MistralRequestValidatorV3: _validate_tool_call, _validate_tool_message)"
            ),
        ),
        Rule(
            code="TP303",
            name="orphan-reasoning-item",
            summary="OpenAI Responses: a reasoning item without the item it led to",
            what=(
                "Checks, in an OpenAI Responses input list, for a `reasoning` item that no item "
                "of its model turn follows (a message, a call): the list ends after it, or a "
                "user message or another reasoning item comes next. A reasoning item split "
                "from its item by outputs is TP102's."
            ),
            why=(
                "The API refuses a reasoning item without its required following item. A run "
                "cut after the model reasoned, or code that dropped the call it led to, leaves "
                "one."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the reasoning item and the references to it",
            fix_notes=(
                "It drops the reasoning item and each `item_reference` to its id, as Continue "
                "and Mastra do before they send a history: the model reasons again. It is not "
                "offered where the list takes no removal (a stored model response)."
            ),
            example="""\
[
  {"role": "user", "content": "Weather in Paris?"},
  {"type": "reasoning", "id": "rs_1", "summary": []}
]
""",
            provider="openai",
            error=(
                "Item '{id}' of type 'reasoning' was provided without its required following item."
            ),
            source=(
                "the OpenAI Responses API's error, as it answers (openai-python's APIError; "
                "reports in Continue and Mastra, whose fixes drop the item)"
            ),
        ),
        Rule(
            code="TP304",
            name="assistant-prefill",
            summary="Anthropic: a request whose last message is the assistant's",
            what=(
                "Checks, in the `messages` of an Anthropic request body (an object that names "
                "its `model`), for a last message of the assistant that holds no tool call "
                "(one that does is TP002's): a prefill."
            ),
            why=(
                "Claude models from the 4.6 generation refuse a prefilled assistant turn. A "
                "stored history ends so after every reply and is sent with the user's next "
                "message, so the rule reads only request bodies, sent as they are."
            ),
            fix=None,
            fix_notes=(
                "What the user says next cannot be made up: add the user's message, or drop "
                "the prefill, before the request is sent."
            ),
            example=_anthropic_weather('    {"role": "assistant", "content": "It is 18 C and"}\n'),
            use_instead=_anthropic_weather(""),
            provider="anthropic",
            error=(
                "This model does not support assistant message prefill. The conversation must "
                "end with a user message."
            ),
            source=(
                "Anthropic's documentation, What's new in Claude 4.6, breaking changes "
                "(platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6), and "
                "the API's error as users report it"
            ),
        ),
        Rule(
            code="TP305",
            name="unstored-item",
            summary="OpenAI Responses, store false: an item named by its id alone",
            what=(
                "Checks, in the `input` of an OpenAI Responses request that sets `store: "
                "false`, for a `reasoning` item without `encrypted_content` and for an "
                "`item_reference`: items the API would look up by their id."
            ),
            why=(
                "Nothing of a request with `store: false` is kept, so the API finds no item by "
                "its id and refuses the request. A history kept without asking for "
                "`reasoning.encrypted_content` (the `include` of the request that returned "
                "it) holds such reasoning items."
            ),
            fix=Applicability.UNSAFE,
            fix_description="drop the item, and the ids that link items to it",
            fix_notes=(
                "It drops the item; for a reasoning item, also each `item_reference` to it and "
                "the `id` of the calls and assistant messages right after it, which link them "
                "to it, as Continue does before it sends a history: the model reasons again. "
                "It is not offered where the list takes no removal."
            ),
            example="""\
{"model": "o4-mini", "store": false, "input": [
  {"role": "user", "content": "Weather in Paris?"},
  {"type": "reasoning", "id": "rs_1", "summary": []},
  {"type": "function_call", "id": "fc_1", "call_id": "call_1",
   "name": "get_weather", "arguments": "{}"},
  {"type": "function_call_output", "call_id": "call_1", "output": "18 C"}
]}
""",
            provider="openai",
            error=(
                "Item with id '{id}' not found. Items are not persisted when `store` is set to "
                "false. Try again with `store` set to true, or remove this item from your input."
            ),
            source=(
                "the OpenAI Responses API's error, as users report it (opencode, oh-my-pi); "
                "Continue's core/llm/openaiTypeConverters.ts (sanitizeResponsesInput), whose "
                "fix this is"
            ),
        ),
        Rule(
            code="TP306",
            name="mistral-missing-tool-call-id",
            summary="Mistral: a tool message without a tool_call_id",
            what=(
                "Checks, in an OpenAI Chat list sent to Mistral, for a tool message whose "
                "`tool_call_id` is missing, null or empty."
            ),
            why=(
                "Mistral refuses a tool message that does not name its call. The pairing rules "
                "report the same message (TP101, or TP105 with its call), in words of their own."
            ),
            fix=None,
            fix_notes=(
                "Which call the message answers is the pairing's to say: where its call has no "
                "id either and the two pair by name and order, TP105's fix gives both one id "
                "(of Mistral's shape, when Mistral is the target); otherwise nothing says which "
                "id to write."
            ),
            example=_asked('  {"role": "tool", "content": "18 C, sunny"}\n', call_id="Ab3dE6gh9"),
            use_instead=_asked(
                '  {"role": "tool", "tool_call_id": "Ab3dE6gh9", "content": "18 C, sunny"}\n',
                call_id="Ab3dE6gh9",
            ),
            provider="mistral",
            error="Tool call id has to be defined.",
            source=(
                "mistral-common, src/mistral_common/protocol/instruct/validator.py "
                "(MistralRequestValidatorV3._validate_tool_message)"
            ),
        ),
        Rule(
            code="TP307",
            name="empty-error-tool-result",
            summary="Anthropic: a tool_result with is_error true and empty content",
            what=(
                "Checks, in an Anthropic messages list, for a `tool_result` block with "
                '`is_error: true` whose `content` is an empty string (`""`) or an empty list '
                "(`[]`). A block without `content`, or with text of spaces only, is not "
                "reported: no report shows the API refusing either with this error."
            ),
            why=(
                "The API refuses the request. A tool that failed without output (a timeout, a "
                "command that wrote nothing to stderr) leaves such a block when the agent sends "
                "the error flag with the tool's empty output; the history keeps it, so every "
                "later turn of the session is refused the same way."
            ),
            fix=Applicability.SAFE,
            fix_description="write that the tool failed and returned no output",
            fix_notes=(
                "It writes the rule's text into the empty `content`: as the string where it was "
                "an empty string, as one text block where it was an empty list. The text says "
                "only what the block itself says, that the tool failed and returned nothing; "
                "`is_error` stays. The empty value held nothing, so nothing the tool returned "
                "is removed or changed: the fix only adds text where there was none, as an "
                "answer to an unanswered call does. The same text repairs a session already "
                "refused: the next request sends the filled block."
            ),
            example=(
                '{"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": [\n'
                '    {"role": "user", "content": "Weather in Paris?"},\n'
                '    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",\n'
                '      "name": "get_weather", "input": {"city": "Paris"}}]},\n'
                '    {"role": "user", "content": [{"type": "tool_result",\n'
                '      "tool_use_id": "toolu_1", "content": "", "is_error": true}]}\n'
                "]}\n"
            ),
            fix_always=True,
            text="The tool failed and returned no output.",
            provider="anthropic",
            error=(
                "messages.{index}.content.{block}.tool_result: content cannot be empty if "
                "`is_error` is true"
            ),
            source=(
                "the Anthropic API's error as its direct users report it, each of whom fills "
                "the content with a short text: "
                "https://github.com/bytedance/trae-agent/issues/230 and "
                "https://github.com/bytedance/trae-agent/pull/231 (the API's message); "
                "https://github.com/UKGovernmentBEIS/inspect_ai/pull/169 (content required "
                'when is_error is true; falls back to "error"); '
                'https://github.com/jlevy/markform/issues/153 (both [] and "" refused); '
                "https://github.com/can1357/oh-my-pi/pull/2250 (fills it when encoding, which "
                "also repairs a session already refused)"
            ),
        ),
    )
}


def rule_named(spelling: str) -> Rule:
    """The rule whose code (in any case) or name is ``spelling``: ``TP001``, ``tp001`` or
    ``dangling-tool-call``.

    Raises:
        UnknownRuleError: No rule has that code or name; the message names the close ones (the
            codes a prefix such as ``TP1`` starts).

    >>> rule_named(" Dangling-Tool-Call ").code
    'TP001'
    """
    wanted = spelling.strip()
    for rule in RULES.values():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    known = [*RULES, *(rule.name for rule in RULES.values())]
    msg = f"{wanted!r} is not a rule code or name{did_you_mean(wanted, known)}"
    raise UnknownRuleError(msg + " (see `toolpatch rules`)")


#: Rules that run when the caller selects nothing: the pairing rules, the duplicate results
#: that every provider toolpatch writes for refuses (docs/rules.md#duplicate-tool-result-tp103
#: says why it keeps its TP1xx code), and the torn files an agent leaves (TP2xx: entries the
#: agent itself can no longer read).
DEFAULT_SELECT: tuple[str, ...] = ("TP0", "TP103", "TP2", "TP3")

#: The providers a run may target (``--target``), each with the dialects of the lists it takes:
#: a provider rule (`Rule.provider`) applies only to a run that targets its provider, and only
#: to the lists of these dialects (docs/cli.md#target). OpenAI-compatible servers (Kimi's among
#: them) take OpenAI Chat lists, and are the ``openai`` target.
PROVIDERS: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("anthropic",),
    "gemini": ("gemini",),
    "mistral": ("openai-chat",),
    "openai": ("openai-chat", "openai-responses"),
}

#: The rules that pairing's counting pass proves absent (`patchcore.engine.quick.open_keys`): a
#: call left open (TP001-TP003), a second result for an answered call (TP103); the unread
#: call-like objects (TP004), which a record the quick lane reads cannot hold (its messages are
#: read whole as far as calls go, and a value beside them that names a call sends the record down
#: the full path); and the torn-file rules (TP2xx), which no message list holds (an agent
#: session's layout finds them in the file's lines), so a record of messages is clean of them
#: whatever it holds. A selection within them lets a clean record be proven clean without a full
#: parse (`patchcore.engine.quick`) and pairing learn only the open calls.
COUNTED: frozenset[str] = frozenset({"TP001", "TP002", "TP003", "TP004", "TP103", "TP201"})

#: Default synthetic texts by rule code. They claim no outcome: a result that was never
#: recorded may belong to a tool that ran (docs/pairing.md#synthetic-results).
DEFAULT_TEXTS: Mapping[str, str] = {
    code: rule.text for code, rule in RULES.items() if rule.text is not None
}

#: Named sets of texts a caller may choose instead of the defaults (``texts = "deepagents"``).
#: ``deepagents`` is the wording of deepagents' ``PatchToolCallsMiddleware`` that toolpatch's
#: first releases wrote by default and deepagents' own tests expect: drop-in parity, at the price
#: of telling the model an outcome ("was cancelled") that nobody knows.
TEXT_PRESETS: Mapping[str, Mapping[str, str]] = {
    "deepagents": {
        "TP001": (
            "Tool call {name} with id {id} was cancelled - another message came in before it "
            "could be completed."
        ),
        "TP002": "Tool call {name} with id {id} did not complete - no result was recorded.",
        "TP003": (
            "Tool call {name} with id {id} could not be executed - arguments were malformed "
            "or truncated."
        ),
    },
}


def known_texts(code: str) -> tuple[str, ...]:
    """Every template toolpatch has shipped for ``code``: the default, then each preset's (the
    results an earlier release or a preset wrote are still toolpatch's, for ``strip``)."""
    return tuple(dict.fromkeys((DEFAULT_TEXTS[code], *(p[code] for p in TEXT_PRESETS.values()))))


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
    >>> fill("{nme} {id}", {"id": "c"})
    '{nme} c'
    """
    first, rest = _cut(template)
    filled = [first]
    append = filled.append
    for key, written, text in rest:
        append(values.get(key, written))
        append(text)
    return "".join(filled)


@lru_cache(maxsize=256)
def _cut(template: str) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """``template`` cut at its placeholders, once for all the findings that fill it: the text
    before the first, then each one's key, how it is written and the text after it (a regular
    expression's callback per placeholder took three times as long)."""
    parts = _PLACEHOLDER.split(template)
    keys = parts[1::2]
    return parts[0], tuple(zip(keys, [f"{{{k}}}" for k in keys], parts[2::2], strict=True))


def _expand(selectors: Iterable[str], *, option: str) -> set[str]:
    codes: set[str] = set()
    for raw in selectors:
        selector = raw.strip().upper()
        if not selector:
            continue
        matched = set(RULES) if selector == "ALL" else {c for c in RULES if c.startswith(selector)}
        if not matched:
            problem = f"{raw.strip()!r} matches no rule (see `toolpatch rules`)"
            raise UnknownRuleError.named(problem, setting=option)
        codes |= matched
    return codes


class RuleSelection(msgspec.Struct, frozen=True):
    """The set of rule codes in force, built from ruff-style ``select`` / ``ignore`` prefixes
    (a msgspec Struct, as `Rule`)."""

    codes: frozenset[str]

    @classmethod
    def build(
        cls,
        *,
        select: Iterable[str] | None = None,
        ignore: Iterable[str] | None = None,
        target: str | None = None,
    ) -> RuleSelection:
        """Resolve selectors: ``ALL``, a full code, or a prefix such as ``TP0``. A provider
        rule (TP3xx) stays selected only when ``target`` is its provider: without a target,
        none does, so a default run and ``--select ALL`` are what they were before there were
        provider rules.

        Raises:
            UnknownRuleError: A selector matches no rule, or ``target`` no provider.
        """
        if target is not None and target not in PROVIDERS:
            known = ", ".join(PROVIDERS)
            problem = f"{target!r} is not a provider (known: {known})"
            raise UnknownRuleError.named(problem, setting="target")
        chosen = _expand(DEFAULT_SELECT if select is None else select, option="select")
        chosen -= _expand(ignore or (), option="ignore")
        chosen = {c for c in chosen if RULES[c].provider in (None, target)}
        return cls(frozenset(chosen))

    def __contains__(self, code: object) -> bool:
        return code in self.codes
