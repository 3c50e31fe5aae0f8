"""Files of another kind that share a history's name ending: passed over, not errors.

pre-commit passes every staged ``*.json`` file, and many are not JSON at all: ``tsconfig.json``
as ``tsc --init`` writes it and ``.vscode/*.json`` hold comments and trailing commas. Where a
file without a history is skipped rather than an error (a file found by walking a directory,
or any file with ``--skip-no-history``), a file that cannot be read as JSON or JSON Lines is
skipped too when nothing in it looks like a message history (`patchcore.raw.signs`). A broken file
that does look like one (it names ``"role"``, ``"messages"``, ``"tool_calls"``, ...) stays an
error: it is most likely a torn history, and must not pass unseen.
"""

from __future__ import annotations

from msgspec import structs

from patchcore import MissingExtra, shows_history

from .input_run import Outcome


def pass_over_foreign(outcome: Outcome) -> Outcome:
    """``outcome``, or for an input that failed but need not hold a history and shows no sign
    of one, the same input skipped, saying why.

    Only a file that failed to be read can come here without a sign of a history: every other
    failure (a message of the wrong shape, a repair that cannot be written) needs messages.
    """
    source = outcome.source
    if outcome.error is None or source.explicit or source.is_stdin:
        return outcome
    try:
        if shows_history(source.blocks()):
            return outcome
    except (OSError, MissingExtra):  # unreadable: the error stands
        return outcome
    located = outcome.error.located()
    why = f"not JSON or JSON Lines ({located}), and no sign of a message history in it"
    return structs.replace(outcome, error=None, skipped=why)
