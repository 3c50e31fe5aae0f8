"""Text for people: styled or plain on a stream, decided once from ``--color``, NO_COLOR,
FORCE_COLOR, TTY; and text from the data made safe to show (`visible`).

Rich is imported only when something needs it (styling, a table, a panel), so a run in CI or a
pre-commit hook (no terminal, no table) never pays for it.

A tool name, a call id, a file name or a message's text is whatever the input says. Printed as
it is, an ESC or CSI in it drives the terminal (``\\x1b[2J`` clears the screen, an OSC sequence
sets the window title, others hide or rewrite what came before) and a line feed in a name forges
a line of the report. So `visible` shows C0 controls and DEL as ``\\x1b`` (tab, line feed and
carriage return as ``\\t``, ``\\n``, ``\\r``), C1 controls as ``\\u009b``, lone surrogates,
which no stream can even encode, as ``\\udc80``, and the characters that reorder or break a
line without being controls (the bidirectional overrides such as U+202E, the separators U+2028
and U+2029) as ``\\u202e``. The backslash itself is left alone: paths keep their look, and
escaping twice changes nothing. Machine reports (JSON, JSON Lines, SARIF) carry the exact
values instead; their encoders escape.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

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
        written as escapes (`visible`), so a line stays one line and never drives the
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


#: What reorders or breaks the text around it without being a C0 or C1 control: the
#: bidirectional marks, embeddings, overrides and isolates (U+202E shows ``evil.json`` for
#: ``nosj.live``) and the line and paragraph separators (U+2028 ends a line in many viewers).
_INVISIBLE = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# The patterns below are compiled by `re` on first use and kept in its cache: most runs show
# nothing that needs them, and compiling both at import was 1 % of a small file's check.
#: Everything that is not shown as itself: C0, DEL, C1, lone surrogates, the above.
_CONTROLS = f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE}]"
#: The same, but for the line feeds and tabs that lay out a message's own text.
_CONTROLS_BUT_LAYOUT = f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE}]"
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """``text`` as one line, every control character written as an escape. Printable text (no
    control, surrogate, format or line-separator character: what `str.isprintable` says, in C)
    has nothing to escape, and is most of a report."""
    return text if text.isprintable() else re.sub(_CONTROLS, _escape, text)


def needs_quoting(text: str) -> bool:
    """Whether ``text`` holds what `visible` escapes, or a double quote or backslash: a name
    that must be quoted to be read back (as git quotes a path in a diff header)."""
    return re.search(_CONTROLS, text) is not None or '"' in text or "\\" in text


def visible_lines(text: str) -> str:
    """``text`` with its own line feeds and tabs, every other control character written as an
    escape (a message shown whole, in a panel)."""
    return re.sub(_CONTROLS_BUT_LAYOUT, _escape, text)
