"""What every machine-readable report shares: the reporter interface and the warning entries.

An input that cannot be read is part of the report too (an error entry, a SARIF tool execution
notification, made from the outcome's `cli.input_errors.InputError` field by field), so a
consumer of the report alone sees that the run failed, not just exit code 2.
So is a part of an input that was not checked (a warning: a list mixing dialects, a session
entry kept unread, a line that is not JSON kept as it is), so that a report without findings
does not claim more than was checked; and the judgement of fine-tuning data whose examples end
on their call (`cli.file_hints.training_note`), as a warning of the whole file.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import IO, ClassVar

import patchcore

from ..file_hints import kept_message, training_note
from ..input_run import Outcome


@dataclass(frozen=True, slots=True)
class InputWarning:
    """A part of an input that was reported but not checked.

    Attributes:
        file: The input's name.
        line: The line of its JSON Lines record (or session entry); ``None`` in a JSON document.
        message: Why it was not checked.
        pointer: The JSON pointer of the list (or entry) in its record.
    """

    file: str
    line: int | None
    message: str
    pointer: str
    column: int | None = None

    @classmethod
    def all_of(cls, outcome: Outcome) -> list[InputWarning]:
        """The warnings of ``outcome``, in input order (none for an input that failed)."""
        if outcome.result is None or outcome.error is not None:
            return []
        name, result = outcome.source.name, outcome.result
        warnings = [
            cls(name, listed.line, listed.note or "", listed.pointer)
            for listed in result.conversations
            if listed.warning
        ]
        warnings += [cls(name, e.line, kept_message(e), "", e.column) for e in result.invalid_lines]
        warnings.sort(key=lambda w: w.line or 0)
        judged = patchcore.training_data(result)
        if judged is not None:
            warnings.append(cls(name, None, training_note(judged), ""))
        return warnings


class Reporter(ABC):
    """Writes one report over a run's outcomes to a binary stream."""

    needs_bytes: ClassVar[bool] = False
    """Whether the outcomes must carry the inputs' bytes and the plan of their fixes (each
    input is then read whole: `cli.input_run.process`'s ``keep_bytes``)."""
    needs_messages: ClassVar[bool] = False
    """Whether the results must carry the messages of the conversations with findings
    (`patchcore.Options.finding_messages`), for the messages around each finding."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.failure: OSError | None = None
        """What kept the report from being written other than its stream (a temporary file
        that could not be written), said once at the end as the stream's own failure is."""

    @abstractmethod
    def add(self, outcome: Outcome) -> None:
        """Take one input's outcome (formats that stream write it now)."""

    def finish(self) -> None:
        """Write what is left once every input was added (the end of a document; a format
        written a line at a time has written everything already)."""
        self.stream.flush()

    def write(self, text: str, *, flush: bool = True) -> None:
        """Write ``text`` as UTF-8 and ``flush``, so a follower of the report sees each part
        (a report written an object at a time flushes once an input's objects are written).

        A lone surrogate (a JSON ``"\\ud800"`` in the input) has no UTF-8 form; it is written
        as that same escape, which inside a JSON string is the exact value again.
        """
        self.stream.write(text.encode("utf-8", errors="backslashreplace"))
        if flush:
            self.stream.flush()
