"""``docs/rules.md``, written from the rule table (`patchcore.rules.RULES`) so it cannot drift.

``toolpatch rules --output-format markdown > docs/rules.md`` regenerates the page;
``tests/unit/test_docs.py`` fails when the file and this output differ.
"""

from __future__ import annotations

from patchcore import DEFAULT_SELECT, RULES, Rule, RuleSelection
from patchcore.dialects import DIALECTS

#: What ``tests/unit/test_docs.py`` tells a reader to run when ``docs/rules.md`` is stale.
REGENERATE = "toolpatch rules --output-format markdown > docs/rules.md"

_HEADER = f"""\
# Rules

<!-- Generated from patchcore.rules.RULES: do not edit. Regenerate with
     {REGENERATE} -->

Every defect toolpatch finds is a *finding* with a rule code, as in ruff. The codes come in two
families:

- **TP0xx, the pairing rules** (on by default): a tool call that no result answers. Their fix
  inserts a synthetic error result and is *safe*: it only adds content, so plain `toolpatch fix`
  applies it.
- **TP1xx, the provider-strict rules** (opt-in): results without a call, results in the wrong
  place, duplicates, reused or missing ids, results not first in their message, empty
  `tool_calls`. Providers reject each of these, but the data is often acceptable where it lives
  (a log, a training set). Where they have a fix it deletes or moves existing content, so it is
  *unsafe*: `fix` applies it only with `--unsafe-fixes`.

Selection works by code prefix, as in ruff: `--select {",".join(DEFAULT_SELECT)}` is the default;
`--select TP1`, `--select TP101,TP103` or `--select ALL` (every rule) choose others, and `--ignore`
takes the same selectors and wins over `--select`. The same keys exist in the configuration
(`select`, `ignore`, `per-file-ignores`; see [cli.md](cli.md#configuration)). How calls and
results are paired, and what the synthetic results say, is in [pairing.md](pairing.md).

| code | name | default | fix | what it checks |
|---|---|---|---|---|
"""


def _fix_words(rule: Rule) -> str:
    if rule.fix is None:
        return "none"
    return rule.fix.value


def _explanation_parts(rule: Rule) -> tuple[str, list[str], str]:
    """The explanation split into its description, the provider lines and the fix line."""
    lines = rule.explanation.splitlines()
    fix_at = next(
        (k for k, line in enumerate(lines) if line.startswith(("Fix", "No fix"))), len(lines)
    )
    return lines[0], lines[1:fix_at], " ".join(lines[fix_at:])


def _section(rule: Rule, *, default: bool) -> list[str]:
    description, provider_lines, fix_line = _explanation_parts(rule)
    out = [
        f"## {rule.code} {rule.name}",
        "",
        f"*{rule.summary}.*",
        "",
        f"- Default selection: {'yes (TP0)' if default else 'no (select TP1 or ALL)'}",
        f"- Fix: {_fix_words(rule)}"
        + (f" ({rule.fix_description})" if rule.fix_description else ""),
        "",
        description,
        "",
    ]
    if provider_lines:
        out += [f"> - {line}" for line in provider_lines]
        out.append("")
    dialect_errors = [
        (d.name, d.provider_errors[rule.code]) for d in DIALECTS if rule.code in d.provider_errors
    ]
    if dialect_errors:
        out += ["What each dialect's provider answers (as toolpatch quotes it in reports):", ""]
        out += [f"- `{name}`: {error}" for name, error in dialect_errors]
        out.append("")
    if fix_line:
        out += [fix_line, ""]
    if rule.text:
        out += [f"Synthetic result text: `{rule.text}`", ""]
    return out


def rules_markdown() -> str:
    """The whole of ``docs/rules.md``."""
    defaults = RuleSelection.build().codes
    rows = [
        f"| [{r.code}](#{r.code.lower()}-{r.name}) | `{r.name}` | "
        f"{'yes' if r.code in defaults else 'no'} | {_fix_words(r)} | {r.summary} |"
        for r in RULES.values()
    ]
    body: list[str] = []
    for rule in RULES.values():
        body += _section(rule, default=rule.code in defaults)
    return _HEADER + "\n".join(rows) + "\n\n" + "\n".join(body).rstrip("\n") + "\n"
