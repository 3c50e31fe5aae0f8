"""Styled or plain text on a stream, decided once from ``--color``, NO_COLOR, FORCE_COLOR, TTY.

Rich is imported only when something needs it (styling, a table, a panel), so a run in CI or a
pre-commit hook (no terminal, no table) never pays for it.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

from .visible import visible

#: A line as ``(text, style)`` pieces; the style is a Rich style string or ``""``.
Pieces = Sequence[tuple[str, str]]


#: How much a run of ``check`` or ``fix`` tells people (on stderr, or in a text report file):
#: ``-s`` nothing; ``-q`` the findings, warnings and errors only; by default also the provider
#: errors, hints and the summary line; ``-v`` (2 and more) also clean and skipped files, every
#: message list found and the fixed findings. What goes to stdout as the product (repaired data,
#: the diff) is written at every level.
SILENT, QUIET, NORMAL, VERBOSE = -1, 0, 1, 2


def verbosity(*, quiet: bool, verbose: bool, silent: bool) -> int:
    """The level of the flags ``-s``, ``-q`` and ``-v``: ``-q`` and ``-v`` cancel out, ``-s``
    wins over both."""
    if silent:
        return SILENT
    return max(QUIET, NORMAL + verbose - quiet)


class ColorMode(str, enum.Enum):
    """The ``--color`` choices."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` is an interactive terminal (``TERM=dumb`` is not one)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def wants_color(mode: ColorMode, stream: IO[str]) -> bool:
    """``--color`` first, then NO_COLOR (disables), FORCE_COLOR (enables), then the terminal."""
    if mode is ColorMode.ALWAYS:
        return True
    if mode is ColorMode.NEVER or "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream)


class Printer:
    """Writes lines and Rich renderables to one stream, styled or as plain text.

    ``stream=None`` means "stderr as it is when writing": a progress display that redirects
    stderr while it is shown then receives the messages and keeps them above its bar.
    """

    def __init__(self, stream: IO[str] | None, *, styled: bool) -> None:
        self._stream = stream
        self.styled = styled
        self._rich: Any = None

    @property
    def stream(self) -> IO[str]:
        """Where the text goes now."""
        return self._stream if self._stream is not None else sys.stderr

    def line(self, pieces: Pieces) -> None:
        """Write one line made of styled pieces (`lines`)."""
        self.lines((pieces,))

    def lines(self, lines: Iterable[Pieces]) -> None:
        """Write lines made of styled pieces; unstyled, in one write (a report of thousands of
        findings is not thousands of writes to the stream).

        The pieces carry names, ids and messages from the data: their control characters are
        written as escapes (`cli.visible`), so a line stays one line and never drives the
        terminal.
        """
        if not self.styled:
            self.raw("".join([visible("".join([text for text, _ in p])) + "\n" for p in lines]))
            return
        from rich.text import Text

        for pieces in lines:
            text = Text()
            for piece, style in pieces:
                text.append(visible(piece), style=style or None)
            self.console().print(text, soft_wrap=True)

    def text(self, text: str) -> None:
        """Write a plain line."""
        self.line(((text, ""),))

    def raw(self, data: str) -> None:
        """Write text as it is (already formatted, no styling)."""
        stream = self.stream
        stream.write(data)
        stream.flush()

    def render(self, renderable: object) -> None:
        """Write a Rich renderable (a table, a panel), in colour only when styled."""
        self.console().print(renderable)

    def console(self) -> Any:
        """The Rich console for this stream (made on first use)."""
        if self._rich is None:
            from rich.console import Console

            # Colour was decided once, by `wants_color` (``--color always`` beats NO_COLOR), so
            # Rich is told, not left to decide again; whether the stream is a terminal (cursor
            # control for a progress bar) is still Rich's to detect when there is no colour.
            self._rich = Console(
                file=self._stream,
                stderr=self._stream is None,
                force_terminal=True if self.styled else None,
                no_color=not self.styled,
                color_system="auto" if self.styled else None,
                highlight=False,
            )
        return self._rich


def stderr_printer(mode: ColorMode) -> Printer:
    """The printer for messages (stderr, looked up at each write)."""
    return Printer(None, styled=wants_color(mode, sys.stderr))
