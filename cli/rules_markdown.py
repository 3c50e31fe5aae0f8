"""``docs/rules.md``, written from the rule table (`patchcore.rules.RULES`) so it cannot drift:
each rule's section is what ``toolpatch rule CODE`` prints (`cli.rule_docs`).

``toolpatch rules --output-format markdown > docs/rules.md`` regenerates the page;
``tests/unit/test_docs.py`` fails when the file and this output differ.
"""

from __future__ import annotations

from patchcore import DEFAULT_SELECT, RULES, Rule, RuleSelection

from .rule_docs import rule_markdown

#: What ``tests/unit/test_docs.py`` tells a reader to run when ``docs/rules.md`` is stale.
REGENERATE = "toolpatch rules --output-format markdown > docs/rules.md"

_HEADER = f"""\
# Rules

<!-- Generated from patchcore.rules.RULES: do not edit. Regenerate with
     {REGENERATE} -->

Every defect toolpatch finds is a *finding* with a rule code, as in ruff. The codes come in
these families:

- **TP0xx, the pairing rules** (on by default): a tool call that no result answers. Their fix
  inserts a synthetic error result and is *safe*: it only adds content, so plain `toolpatch fix`
  applies it. With `--repair drop` it removes the call instead, an *unsafe* fix
  ([Repair policies](cli.md#repair-policies) says when to choose which).
- **TP1xx, the provider-strict rules** (opt-in, but for TP103): results without a call,
  results in the wrong place, duplicates, reused or missing ids, results not first in their
  message, empty `tool_calls`. Providers reject each of these, but the data is often acceptable
  where it lives (a log, a training set). Where they have a fix it deletes, moves or changes
  existing content, so it is *unsafe*: `fix` applies it only with `--unsafe-fixes`.
- **TP2xx, torn files** (on by default): an agent session's entry split over lines.
- **TP3xx, the provider rules**: what one provider refuses beyond pairing (Gemini 3's thought
  signatures, Mistral's tool call ids, OpenAI Responses' reasoning items and `store: false`,
  Anthropic's prefill and empty error results). Each applies only to a run that targets its
  provider (`--target PROVIDER` or the `target` setting, [cli.md](cli.md#target)), to the lists
  of the formats that provider takes; then it is on by default. Without a target none applies,
  even under `--select ALL`. Each quotes its provider's error word for word and names where it
  was verified; `toolpatch explain FILE` says which providers refuse each history of a file
  ([cli.md](cli.md#explain)).

An empty tool result is a rule only where the error flag is set. Anthropic's API refuses a
`tool_result` with `is_error: true` whose `content` is `""` or `[]`, in its own words, to users
who call it directly (TP307, whose section cites them). Without the flag, no rule:
anthropic-sdk-python's `ToolResultBlockParam` does not require `content`, and the reports of a
400 for such a result come through proxies, in Bedrock's words, or quote no error of
Anthropic's. Nor does TP307 report an error result without `content`, or with text of spaces
only: no report shows the API refusing either with its error. A tool message without
`tool_call_id` sent to OpenAI is not a rule either, as no provider documentation or SDK confirms
the refusal (the pairing rules report it: TP101, or TP105 with its call; for Mistral, whose
validator refuses it, it is TP306).

Duplicate results (TP103) are on by default: every provider toolpatch writes for refuses a call
answered twice (Anthropic, OpenAI Chat and Responses, Bedrock, Gemini), and a run resumed after
a repair that ran a tool again leaves exactly that, so a `check` that did not report it would
call a refused history clean. The rule keeps its code: a configuration that selects or ignores
`TP103` (or `TP1`) means what it meant, and only the default selection grows, as ruff promotes a
rule to its defaults. A selection given in full (`--select TP0`) still selects just that.

Selection works by code prefix, as in ruff: `--select {",".join(DEFAULT_SELECT)}` is the default;
`--select TP1`, `--select TP101,TP103` or `--select ALL` (every rule) choose others, and `--ignore`
takes the same selectors and wins over `--select`. The same keys exist in the configuration
(`select`, `ignore`, `per-file-ignores`; see [cli.md](cli.md#configuration)). How calls and
results are paired, and what the synthetic results say, is in [pairing.md](pairing.md). Each rule
below reads as `toolpatch rule CODE` prints it; its example's repair is the one `toolpatch fix`
writes, computed when this page is generated.

| code | name | default | fix | what it checks |
|---|---|---|---|---|
"""


def _fix_words(rule: Rule) -> str:
    if rule.fix is None:
        return "none"
    return rule.fix.value


def _default(rule: Rule, defaults: frozenset[str]) -> str:
    """Whether the rule is on by default: ``yes``, ``no``, or the target it needs."""
    if rule.provider is not None:
        return f"`--target {rule.provider}`"
    return "yes" if rule.code in defaults else "no"


def rules_markdown() -> str:
    """The whole of ``docs/rules.md``: the table, then each rule as ``toolpatch rule CODE``
    explains it (`cli.rule_docs`), a level down."""
    defaults = RuleSelection.build().codes
    rows = [
        f"| [{r.code}](#{r.name}-{r.code.lower()}) | `{r.name}` | "
        f"{_default(r, defaults)} | {_fix_words(r)} | {r.summary} |"
        for r in RULES.values()
    ]
    body: list[str] = []
    for rule in RULES.values():
        body += [*rule_markdown(rule, level=2), ""]
    return _HEADER + "\n".join(rows) + "\n\n" + "\n".join(body).rstrip("\n") + "\n"
