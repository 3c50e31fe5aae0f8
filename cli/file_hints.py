"""What a report says about a file besides its findings: the lines kept as they are because
they are not JSON (``--keep-invalid-lines``), and the options named in the judgement of
fine-tuning data whose examples end on their call, the training target
(`patchcore.training_data`), which ``fix`` leaves as it is.

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
    """What is said of a file with training targets, before anything is written, naming the
    options that answer them or leave them unreported (`patchcore.TrainingData.note`)."""
    return judged.note(answered_by="--fix-training-targets", unreported_by="--ignore TP002")
