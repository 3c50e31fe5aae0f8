"""The options of a run: `Options`, and `make_options`, which validates what callers give.

A module of its own because every run builds its options before it reads a byte, and a run
whose records are all proven clean (`patchcore.engine.quick`) never needs the engine
(`patchcore.engine.check`, the dialect adapters): building options imports only the rule table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from patchcore.errors import UnknownRepairError, UnknownRuleError
from patchcore.raw.codec import MAX_RECORD_BYTES
from patchcore.rules import (
    COUNTED,
    DEFAULT_TEXTS,
    TEXT_PRESETS,
    Applicability,
    RepairPolicy,
    RuleSelection,
    template_problem,
)

if TYPE_CHECKING:
    from patchcore.against import Against
    from patchcore.dialects import Dialect
    from patchcore.model import Finding, Fix


@dataclass(frozen=True, slots=True)
class Options:
    """What to check and how to fix it (built once per run).

    Attributes:
        selection: Rule codes in force.
        texts: Synthetic-result templates by rule code; missing codes use the defaults.
        dialect: Adapter forced by the caller, or ``None`` to detect per list.
        unsafe_fixes: Apply fixes that delete or move existing content.
        with_messages: Keep each conversation's messages, as the engine read them, and the
            edits of its fixes in the result (`patchcore.result.Conversation`): what a viewer
            of the history needs, at the cost of holding every message.
        finding_messages: Keep the messages (as ``with_messages`` does) of the conversations
            that have findings only: what a report of the findings draws (the HTML report), so
            that a large, mostly clean corpus is not held in memory, and the quick lane still
            proves its clean records clean without parsing them.
        live: The input is an agent session that may still be running, as the caller judges
            it from outside (its file was written to moments ago): a call pending in its last
            turn may belong to a tool that is still running, so it is reported without a fix
            (the agent writes its result); ``strip``, which removes only what toolpatch made
            up, is not held. Where ``live_since`` is given and the log records the times of its
            entries, the log's own clock decides instead. Only the session layouts read it
            (`patchcore.layouts.sessions.layout`); the result says what they decided
            (`patchcore.result.Result.live`).
        live_since: A moment (seconds since the epoch): a session log whose newest entry is
            timestamped at or after it is live, whatever ``live`` says, and one whose newest
            entry is older is not (a copy, a checkout or an unpacked archive gives an ended
            session's file the time of now). ``None``: ``live`` decides alone. patchcore reads
            no clock: the caller says what "recent" is.
        held_open: Some process holds the session log open for writing, as the caller found
            (on Linux, under ``/proc``): the session is live whatever ``live`` and
            ``live_since`` say, however old its last entry (an agent waiting for a long tool
            call writes nothing for a while, and appends to the file it holds). patchcore
            opens no file: the caller looks.
        keep_invalid_lines: In JSON Lines with a conversation per line, a line that is not
            JSON (torn by a crash while the file was written, NUL bytes included) is kept as
            it is and reported (`patchcore.Result.invalid_lines`) instead of failing the input;
            every other line is checked and repaired.
        repair: What the fix of an unanswered call (TP001-TP003) does: answer it with a
            synthetic result (safe), or drop the call (unsafe, never in an agent session log).
        strip: Instead of checking the rules, find the results toolpatch wrote: each is a
            finding whose fix removes it. A mode, not an option a caller chooses:
            `patchcore.strip_document` (and ``toolpatch strip``, `cli.settings`) runs it.
        fix_training_targets: Fix the calls a fine-tuning example ends on, its training target
            (`patchcore.layouts.records`), as any other: by default a conversation line judged
            a fine-tuning example keeps the call it ends on as it is (reported, its fix held
            back), since a made-up result after it, or its removal, would change what the
            model is taught.
        recorded_results: The results a caller's store recorded for calls that have none in
            the history, by call id (the error a LangGraph checkpoint kept for a task that
            failed): a fix that answers such a call writes this text, with the format's error
            flag, instead of the synthetic one, and says it is recovered (`patchcore.Origin`,
            docs/pairing.md#evidence-first).
        against: The findings of the history a trimmer cut this one from: only the findings
            the cut broke are reported (`patchcore.against.Against`, ``toolpatch check
            --against``); ``None``: every finding.
        target: The provider the histories are to be sent to (`patchcore.rules.PROVIDERS`), whose
            provider rules (TP3xx) apply to the lists it takes (docs/cli.md#target); ``None``:
            none does.
        max_record_bytes: The largest record (a JSON document, or a line of JSON Lines) read;
            a larger one is the input's error, refused before anything parses it
            (`patchcore.raw.codec.too_large`), and a stream stops reading at it.
    """

    selection: RuleSelection = field(default_factory=RuleSelection.build)
    texts: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_TEXTS))
    dialect: Dialect | None = None
    unsafe_fixes: bool = False
    with_messages: bool = False
    live: bool = False
    live_since: float | None = None
    held_open: bool = False
    keep_invalid_lines: bool = False
    repair: RepairPolicy = RepairPolicy.ANSWER
    strip: bool = False
    finding_messages: bool = False
    fix_training_targets: bool = False
    max_record_bytes: int = MAX_RECORD_BYTES
    recorded_results: Mapping[str, str] = field(default_factory=dict)
    against: Against | None = None
    target: str | None = None

    def text(self, code: str) -> str:
        """The template for ``code``'s synthetic result."""
        return self.texts.get(code) or DEFAULT_TEXTS[code]

    @property
    def quick(self) -> bool:
        """Whether a clean record may be proven clean without a full parse (`patchcore.engine.quick`
        proves the counted rules only, `patchcore.rules.COUNTED`, for lists of any dialect)."""
        return (
            self.dialect is None
            and self.selection.codes <= COUNTED
            and not self.with_messages  # the lane reads no message whole
            and not self.strip  # the lane proves calls answered, not who answered them
        )

    def keeps_messages(self, findings: Sequence[Finding]) -> bool:
        """Whether a conversation with ``findings`` keeps its messages in the result."""
        return self.with_messages or (self.finding_messages and bool(findings))

    def applies(self, fix: Fix | None) -> bool:
        """Whether ``fix`` runs under these options."""
        return (
            fix is not None
            and bool(fix.edits)
            and (fix.applicability is Applicability.SAFE or self.unsafe_fixes)
        )


def make_options(
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    texts: Mapping[str, str] | str | None = None,
    dialect: str | None = None,
    unsafe_fixes: bool = False,
    with_messages: bool = False,
    live: bool = False,
    live_since: float | None = None,
    held_open: bool = False,
    keep_invalid_lines: bool = False,
    repair: str | RepairPolicy = RepairPolicy.ANSWER,
    finding_messages: bool = False,
    fix_training_targets: bool = False,
    max_record_bytes: int | None = None,
    recorded_results: Mapping[str, str] | None = None,
    against: Against | None = None,
    target: str | None = None,
) -> Options:
    """Validate and bundle the options shared by every function.

    ``texts``: templates of the synthetic results by rule code (the others keep the defaults),
    or the name of a preset (`patchcore.rules.TEXT_PRESETS`: ``"deepagents"``, the wording of
    deepagents' middleware). ``repair``: ``"answer"`` (the default) or ``"drop"``
    (`RepairPolicy`), what the fix of an
    unanswered call does. ``finding_messages``: keep the messages of the conversations with
    findings only. ``fix_training_targets``: fix the calls fine-tuning examples end on too
    (`Options.fix_training_targets`). ``max_record_bytes``: the record-size limit
    (`Options.max_record_bytes`), at least one byte; ``None``: `MAX_RECORD_BYTES` (256 MiB).
    ``recorded_results``: call id → the result text a store recorded for it
    (`Options.recorded_results`). ``against``: what the history a trimmer cut this one from
    held (`patchcore.against_document`, `Options.against`). ``target``: the provider whose
    rules apply (`Options.target`).

    Raises:
        UnknownRuleError: A selector or a text's code names no rule that inserts a text, or
            ``target`` names no provider.
        UnknownDialectError: ``dialect`` is not a known dialect.
        UnknownRepairError: ``repair`` is not a repair policy.
        ValueError: ``max_record_bytes`` is less than one, or a recorded result is not a
            non-empty text for a call id (providers reject empty results).
    """
    if max_record_bytes is None:
        max_record_bytes = MAX_RECORD_BYTES
    if max_record_bytes < 1:
        msg = f"max_record_bytes: {max_record_bytes} is not a size (at least one byte)"
        raise ValueError(msg)
    recorded = dict(recorded_results or {})
    for call, text in recorded.items():
        if not isinstance(call, str) or not isinstance(text, str) or not text.strip():
            msg = f"recorded_results: {call!r} must map a call id to a non-empty text"
            raise ValueError(msg)
    merged = dict(DEFAULT_TEXTS)
    for code, template in _texts_given(texts).items():
        if code not in DEFAULT_TEXTS:
            known = ", ".join(DEFAULT_TEXTS)
            problem = f"{code!r} is not a rule with a synthetic text (known: {known})"
            raise UnknownRuleError.named(problem, setting="texts")
        if not template.strip():
            problem = f"the template for {code} is empty (providers reject empty results)"
            raise UnknownRuleError.named(problem, setting="texts")
        wrong = template_problem(template)
        if wrong is not None:
            problem = f"the template for {code} has {wrong}"
            raise UnknownRuleError.named(problem, setting="texts")
        merged[code] = template
    forced = None
    if dialect is not None:
        from patchcore.dialects import dialect_named  # the adapters load only when one is forced

        forced = dialect_named(dialect)
    return Options(
        selection=RuleSelection.build(select=select, ignore=ignore, target=target),
        repair=repair_policy(repair),
        texts=merged,
        dialect=forced,
        unsafe_fixes=unsafe_fixes,
        with_messages=with_messages,
        live=live,
        live_since=live_since,
        held_open=held_open,
        keep_invalid_lines=keep_invalid_lines,
        finding_messages=finding_messages,
        fix_training_targets=fix_training_targets,
        max_record_bytes=max_record_bytes,
        recorded_results=recorded,
        against=against,
        target=target,
    )


def _texts_given(texts: Mapping[str, str] | str | None) -> Mapping[str, str]:
    """The templates ``texts`` names: a preset's, by its name, or the mapping as given.

    Raises:
        UnknownRuleError: ``texts`` names no preset.
    """
    if not isinstance(texts, str):
        return texts or {}
    preset = TEXT_PRESETS.get(texts)
    if preset is None:
        known = ", ".join(repr(name) for name in TEXT_PRESETS)
        problem = f"{texts!r} is not a preset of texts (known: {known})"
        raise UnknownRuleError.named(problem, setting="texts")
    return preset


def repair_policy(value: object) -> RepairPolicy:
    """``value`` as a `RepairPolicy` (its name, ``"answer"`` or ``"drop"``, or the policy).

    Raises:
        UnknownRepairError: It is neither.
    """
    if isinstance(value, RepairPolicy):
        return value
    for policy in RepairPolicy:
        if value == policy.value:
            return policy
    known = ", ".join(repr(p.value) for p in RepairPolicy)
    problem = f"{value!r} is not a repair policy (known: {known})"
    raise UnknownRepairError.named(problem, setting="repair")
