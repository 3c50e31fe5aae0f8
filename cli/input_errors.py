"""Why an input could not be evaluated or written: one error, made once from the exception and
read field by field by the text report and every machine-readable report.

A patchcore error brings its location (line, column, the JSON pointer of the offending value);
an error of the system (reading the input, writing its repair) has none.
"""

from __future__ import annotations

import msgspec

from patchcore import InvalidLineError, PatchcoreError, located_text

#: The hint under a line of a conversation-per-line corpus that is not JSON.
TORN_LINE = (
    "a line torn by a crash while the file was written? --keep-invalid-lines keeps such lines "
    "as they are and checks and repairs the others"
)


class InputError(msgspec.Struct, frozen=True):
    """An input that could not be evaluated (or written), located as far as known.

    Attributes:
        file: The input's name, as the reports show it.
        message: What is wrong, without the location.
        line: 1-based line in the input, when known.
        column: 1-based column in the input, when known.
        pointer: RFC 6901 JSON pointer of the offending value, when known.
        hint: What would get past it, when an option would (a torn corpus line:
            ``--keep-invalid-lines``).
    """

    file: str
    message: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = None
    hint: str | None = None

    @classmethod
    def of(cls, file: str, exc: Exception) -> InputError:
        """The error of the input ``file`` that raised ``exc``: a patchcore error's reason and
        location, an OS error's description, or any other's text (a failed write)."""
        if isinstance(exc, PatchcoreError):
            hint = TORN_LINE if isinstance(exc, InvalidLineError) else None
            return cls(file, exc.reason, exc.line, exc.column, exc.pointer or None, hint)
        if isinstance(exc, OSError):
            return cls(file, exc.strerror or str(exc))
        return cls(file, str(exc))

    @property
    def place(self) -> str:
        """``file:line:column``, or the file alone when the line is not known."""
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}:{self.column if self.column is not None else 1}"

    @property
    def described(self) -> str:
        """The message, followed by the pointer when known: ``reason (at /pointer)``."""
        return located_text(self.message, line=None, column=None, pointer=self.pointer)

    def located(self) -> str:
        """``line:column: reason (at /pointer)`` as far as known, without the file (for people)."""
        return located_text(self.message, line=self.line, column=self.column, pointer=self.pointer)
