"""Styled or plain text on a stream, decided once from ``--color``, NO_COLOR, FORCE_COLOR, TTY.

Rich is imported only when styling is on, so a run in CI or a pre-commit hook (no terminal)
never pays for it.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Sequence
from typing import IO, Any

#: A line as ``(text, style)`` pieces; the style is a Rich style string or ``""``.
Pieces = Sequence[tuple[str, str]]


class ColorMode(str, enum.Enum):
    """The ``--color`` choices."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def wants_color(mode: ColorMode, stream: IO[str]) -> bool:
    """``--color`` first, then NO_COLOR (disables), FORCE_COLOR (enables), then the terminal."""
    if mode is ColorMode.ALWAYS:
        return True
    if mode is ColorMode.NEVER or "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Printer:
    """Writes lines to one stream, styled with Rich or as plain text."""

    def __init__(self, stream: IO[str], *, styled: bool) -> None:
        self.stream = stream
        self.styled = styled
        self._rich: Any = None

    def line(self, pieces: Pieces) -> None:
        """Write one line made of styled pieces."""
        if not self.styled:
            self.stream.write("".join(text for text, _ in pieces) + "\n")
            self.stream.flush()
            return
        from rich.text import Text

        text = Text()
        for piece, style in pieces:
            text.append(piece, style=style or None)
        self._console().print(text, soft_wrap=True)

    def text(self, text: str) -> None:
        """Write a plain line."""
        self.line(((text, ""),))

    def raw(self, data: str) -> None:
        """Write text as it is (already formatted, no styling)."""
        self.stream.write(data)
        self.stream.flush()

    def _console(self) -> Any:
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(file=self.stream, force_terminal=True, highlight=False)
        return self._rich


def stderr_printer(mode: ColorMode) -> Printer:
    """The printer for messages (stderr)."""
    return Printer(sys.stderr, styled=wants_color(mode, sys.stderr))
