"""A rule explained in ruff's layout (``ruff rule F401``), from one place for both readers:
``toolpatch rule CODE`` prints it wrapped to the terminal, docs/rules.md holds it for every rule.

The texts are the rule table's (`patchcore.rules.Rule`), the provider errors each dialect's
(`Dialect.provider_errors`, each wording once, with the dialects that answer it), and the
example's repair is the engine's own, computed here: it cannot drift from what ``fix`` writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import patchcore
from patchcore import DIALECTS, Applicability, Rule

from .help_format import wrapped
from .provider_errors import GENERIC

_SAFETY = {
    Applicability.SAFE: "This fix is safe: it only adds content, so `toolpatch fix` applies it.",
    Applicability.UNSAFE: (
        "This fix is unsafe: it deletes, moves or changes existing content, so `toolpatch fix` "
        "applies it only with `--unsafe-fixes`."
    ),
}


def provider_errors(rule: Rule) -> list[tuple[list[str], str]]:
    """What each dialect's provider answers to the rule's defect: each wording once, with the
    dialects that answer it, in detection order."""
    grouped: dict[str, list[str]] = {}
    for dialect in DIALECTS:
        error = dialect.provider_errors.get(rule.code)
        if error is not None:
            grouped.setdefault(patchcore.fill(error, GENERIC), []).append(dialect.name)
    return [(names, error) for error, names in grouped.items()]


#: When to choose which repair policy, said under each rule whose fix answers a call.
_POLICIES = (
    "With `--repair drop` (the `repair` setting) the fix removes the call instead: its entry "
    "or block, and its message when nothing else is left in it. That deletes what the model "
    "wrote, so it is unsafe (`--unsafe-fixes`), and it is never applied to an agent session "
    "log, where it would rewrite what the agent did. Choose `answer` for a history that will "
    "be resumed or sent again, and `drop` for training data, where a made-up result would be "
    "learned (the call a fine-tuning example ends on, its target, stays either way); to make "
    "nothing up at all, only `check`."
)


def repaired_example(rule: Rule, *, repair: str = "answer") -> str:
    """The rule's example as ``toolpatch fix`` repairs it (with ``--unsafe-fixes`` and the
    ``repair`` policy), or, for a rule without a fix, the history as it should be.

    Raises:
        RuntimeError: The engine does not repair the example (a bug the tests catch).
    """
    if rule.fix is None:
        assert rule.use_instead is not None, f"{rule.code} has no fix and no use_instead"
        return rule.use_instead
    options = patchcore.make_options(
        select=[rule.code], unsafe_fixes=True, repair=repair, target=rule.provider
    )
    result = patchcore.fix_document(rule.example, options=options)
    if result.output is None:
        msg = f"the example of {rule.code} is not repaired"
        raise RuntimeError(msg)
    return result.output.decode("utf-8")


def _on_by_default(rule: Rule) -> bool:
    return rule.code in patchcore.RuleSelection.build().codes


def _selection(rule: Rule) -> str:
    if rule.provider is not None:
        return (
            f"Applies when the run targets {rule.provider} (`--target {rule.provider}`, or the "
            "`target` setting), and is then on by default."
        )
    if _on_by_default(rule):
        return f"On by default (selected by `--select {','.join(patchcore.DEFAULT_SELECT)}`)."
    return (
        f"Opt-in: select it with `--select {rule.code}` (or `{rule.code[:3]}`, the family, or "
        "`ALL`)."
    )


def _fix_command(rule: Rule) -> str:
    """The ``toolpatch fix`` that repairs the example."""
    if rule.provider is not None:
        select = f" --target {rule.provider}"
    else:
        select = "" if _on_by_default(rule) else f" --select {rule.code}"
    unsafe = " --unsafe-fixes" if rule.fix is Applicability.UNSAFE else ""
    return f"`toolpatch fix{select}{unsafe}`"


def rule_title(rule: Rule) -> str:
    """The heading of a rule's explanation, as ruff titles one: ``name (CODE)``."""
    return f"{rule.name} ({rule.code})"


def rule_anchor(rule: Rule) -> str:
    """The anchor GitHub gives the title's heading in docs/rules.md (lower case, punctuation
    but ``-`` dropped, spaces made ``-``): ``dangling-tool-call-tp001``."""
    return re.sub(r"[^\w\- ]", "", rule_title(rule).lower()).replace(" ", "-")


def _blocks(rule: Rule, level: int) -> Iterator[tuple[str, str]]:
    """The explanation as ``(kind, text)`` blocks: ``title``, ``heading`` (of a section),
    ``paragraph``, ``item`` (of a list) or ``code`` (a JSON history)."""
    sub = "#" * (level + 1)
    yield "title", f"{'#' * level} {rule_title(rule)}"
    yield "paragraph", _selection(rule)
    if rule.fix is not None:
        yield "paragraph", f"Fix is {'always' if rule.fix_always else 'sometimes'} available."
    yield "heading", f"{sub} What it does"
    yield "paragraph", rule.what
    yield "heading", f"{sub} Why is this bad?"
    yield "paragraph", rule.why
    errors = provider_errors(rule)
    if rule.error is not None:
        yield "paragraph", f"What {rule.provider} answers: {patchcore.fill(rule.error, GENERIC)}"
        yield "paragraph", f"Verified against: {rule.source}."
    if errors:
        yield "paragraph", "What each dialect's provider answers:"
        for names, error in errors:
            yield "item", f"{', '.join(f'`{name}`' for name in names)}: {error}"
    yield "heading", f"{sub} Example"
    yield "code", rule.example
    if rule.fix is None:
        yield "paragraph", "Use instead:"
    else:
        yield "paragraph", f"Use instead (what {_fix_command(rule)} writes):"
    yield "code", repaired_example(rule)
    if rule.fix is None:
        yield "heading", f"{sub} No fix"
        yield "paragraph", rule.fix_notes
        return
    yield "heading", f"{sub} Fix safety"
    yield "paragraph", f"{_SAFETY[rule.fix]} {rule.fix_notes}"
    if rule.text is not None and rule.provider is not None:
        yield (
            "paragraph",
            f"The text it writes (the `texts` setting of the configuration changes it): "
            f"`{rule.text}`",
        )
    elif rule.text is not None:
        yield (
            "paragraph",
            "The synthetic result's text (the `texts` setting of the configuration changes "
            f"it): `{rule.text}`",
        )
        yield "paragraph", _POLICIES
        yield "paragraph", "What `toolpatch fix --repair drop --unsafe-fixes` writes:"
        yield "code", repaired_example(rule, repair="drop")


def rule_markdown(rule: Rule, *, width: int | None = None, level: int = 1) -> list[str]:
    """The explanation of ``rule`` as Markdown lines: its title a heading of ``level``, its
    sections one level below; prose wrapped at ``width`` columns (``None``: a paragraph per
    line), the JSON histories as they are."""
    lines: list[str] = []
    previous = ""
    for kind, text in _blocks(rule, level):
        if previous == "item" and kind != "item":
            lines.append("")  # a list ends with a blank line
        previous = kind
        if kind == "code":
            lines += ["```json", *text.splitlines(), "```", ""]
        elif kind == "title":
            lines += [text, ""]
        elif kind == "heading":
            lines.append(text)  # ruff's layout: the section's text right under its heading
        elif width is None:
            lines += ["- " + text] if kind == "item" else [text, ""]
        else:
            first, rest = ("- ", "  ") if kind == "item" else ("", "")
            lines += wrapped(text, width, first=first, rest=rest)
            lines += [] if kind == "item" else [""]
    while lines[-1:] == [""]:
        lines.pop()
    return lines
