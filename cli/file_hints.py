"""What a report says about a file besides its findings: the lines kept as they are because
they are not JSON (``--keep-invalid-lines``), and the judgement of fine-tuning data whose
examples end on their call, the training target (`patchcore.training_data`), which ``fix``
leaves as it is.

Shared by the text report and the machine reports, so that both say the same in the same words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchcore import DecodeError, TrainingData


def kept_message(error: DecodeError) -> str:
    """Why a line was kept as it is (its location is the error's)."""
    return f"not JSON ({error.reason}); kept as it is"


def training_note(judged: TrainingData) -> str:
    """What is said of a file with training targets, before anything is written
    (docs/cli.md#fine-tuning-data)."""
    examples = "example" if judged.conversations == 1 else "examples"
    end = "ends" if judged.examples == 1 else "end"
    calls, them, are = (
        ("that call", "it", "it is") if judged.targets == 1 else ("those calls", "them", "they are")
    )
    return (
        f"fine-tuning data: {judged.examples} of {judged.conversations} {examples} {end} on a "
        f"tool call, the training target; fix leaves {calls} as {are} "
        f"(--fix-training-targets answers {them}; --ignore TP002 leaves {them} unreported)"
    )
