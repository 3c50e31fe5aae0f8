"""``toolpatch explain``: for each message list of an input, which providers would refuse it as
it stands, with the error each gives, and which would still refuse it after ``fix`` (every fix,
unsafe ones included, and each provider's own rules: docs/cli.md#explain).

The judgement is the rules' own: the input is checked and fixed once per provider that takes
some list of it (`patchcore.rules.PROVIDERS`), with every rule selected and that provider
targeted, and a provider refuses a list where a finding of the list quotes an error.
"""

from __future__ import annotations

import msgspec

from patchcore.api import check_document, fix_document
from patchcore.options import make_options
from patchcore.result import Result
from patchcore.rules import PROVIDERS


class Verdict(msgspec.Struct, frozen=True):
    """What one provider answers to one message list.

    Attributes:
        provider: The provider (`patchcore.rules.PROVIDERS`).
        pointer: The list's JSON pointer in its record (`patchcore.Conversation.pointer`).
        line: The line of its record in JSON Lines, else ``None``.
        dialect: The list's dialect.
        errors: The errors it answers the list with as it stands, each once, in order (none:
            it takes the list).
        after_fix: The errors it still answers after ``fix --unsafe-fixes --target PROVIDER``.
    """

    provider: str
    pointer: str
    line: int | None
    dialect: str
    errors: tuple[str, ...]
    after_fix: tuple[str, ...]


def _errors(result: Result) -> dict[tuple[int | None, str], tuple[str, tuple[str, ...]]]:
    """Each checked list's dialect and the errors its findings quote, by its line and pointer."""
    return {
        (c.line, c.pointer): (
            c.dialect,
            tuple(dict.fromkeys(f.provider_error for f in c.findings if f.provider_error)),
        )
        for c in result.conversations
        if c.dialect is not None and c.note is None
    }


def explain_document(data: bytes, *, filename: str | None = None) -> list[Verdict]:
    """The verdict of every provider on every list of ``data`` of a dialect it takes, in the
    lists' order, then the providers'.

    Raises:
        PatchcoreError: The input cannot be read (as `check_document` raises).
    """
    verdicts = []
    for provider, dialects in PROVIDERS.items():
        options = make_options(select=["ALL"], target=provider, unsafe_fixes=True)
        before = _errors(check_document(data, filename=filename, options=options))
        if not any(dialect in dialects for dialect, _ in before.values()):
            continue
        fixed = fix_document(data, filename=filename, options=options).output
        after = (
            before
            if fixed is None
            else _errors(check_document(fixed, filename=filename, options=options))
        )
        for (line, pointer), (dialect, errors) in before.items():
            if dialect in dialects:
                left = after.get((line, pointer), (dialect, errors))[1]
                verdicts.append(Verdict(provider, pointer, line, dialect, errors, left))
    verdicts.sort(key=lambda v: (v.line or 0, v.pointer))
    return verdicts
