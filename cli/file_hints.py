"""What a report says about a file besides its findings: the lines kept as they are because
they are not JSON (``--keep-invalid-lines``), and a hint when the file looks like a fine-tuning
set whose conversations end on the call the model is to learn (there, a made-up result after
each would teach the wrong thing).

Shared by the text report and the machine reports, so that both say the same in the same words.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchcore import DecodeError, Result

#: A file is taken for a fine-tuning set when it has at least this many conversations ...
TRAINING_MIN_CONVERSATIONS = 5
#: ... and more than this share of them ends on a call of its own last turn (TP002).
TRAINING_SHARE = 0.5


def kept_message(error: DecodeError) -> str:
    """Why a line was kept as it is (its location is the error's)."""
    return f"not JSON ({error.reason}); kept as it is"


def ending_on_calls(result: Result) -> tuple[int, int]:
    """How many checked conversations of ``result`` end on a pending call of their own last
    turn (a TP002 finding), and how many were checked (those a stream counted without keeping
    them included: they have no finding)."""
    checked = [c for c in result.conversations if c.dialect is not None and c.note is None]
    ending = sum(1 for c in checked if any(f.code == "TP002" for f in c.findings))
    return ending, len(checked) + result.clean_lists


def training_hint(result: Result, name: str) -> str | None:
    """The hint for the file ``name`` most of whose conversations end on their own pending call
    (at least `TRAINING_MIN_CONVERSATIONS`, more than `TRAINING_SHARE` of them), else
    ``None``."""
    ending, checked = ending_on_calls(result)
    if checked < TRAINING_MIN_CONVERSATIONS or ending <= checked * TRAINING_SHARE:
        return None
    import json  # here: most runs give no hint

    entry = json.dumps(PurePath(name).name, ensure_ascii=False) + ' = ["TP002"]'
    return (
        f"{ending} of {checked} conversations end on a tool call of their own last turn "
        "(TP002): if this is fine-tuning data whose examples end on the target call, `fix` "
        "would append a made-up result to every example; leave TP002 out for this file "
        f"(--ignore TP002, or in per-file-ignores: {entry})"
    )
