"""How ``--help`` is laid out: Click's plain layout (as ruff's is), wrapped at spaces only.

Typer's Rich panels squeeze an option's names, its negative names, its type and its help into
five columns and cut what does not fit with an ellipsis (``--exit-non-zero…`` at 80 columns).
Click's layout puts an option's names and metavar on the left and wraps its help beside them, or
below them when the names are long; it never cuts anything. Its wrapper also breaks words at
hyphens, which would split ``--keep-invalid-lines`` or ``live-session-minutes`` over two lines:
here a hyphen inside a word is written as a non-breaking hyphen while the text is wrapped, and
turned back into ``-`` in the help printed. Help is re-wrapped to the terminal width, up to
`HELP_WIDTH` columns (docs/cli.md#help).
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Sequence

import typer
from typer.core import TyperCommand, TyperGroup

#: The widest help is laid out, on a wider terminal (ruff's stays readable so too).
HELP_WIDTH = 100


def text_width() -> int:
    """How wide the listings and explanations are wrapped: as ``--help``, to the terminal
    (``COLUMNS``) up to `HELP_WIDTH`, less a margin."""
    return min(shutil.get_terminal_size().columns, HELP_WIDTH) - 2


def wrapped(text: str, width: int, *, first: str = "", rest: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces only (never inside a
    word or at its hyphens); ``first`` and ``rest`` start the first and the other lines."""
    return textwrap.wrap(
        text,
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )


_NO_BREAK = "\u2011"
#: A hyphen that does not start a word: ``keep-invalid-lines``, the second of ``--check``.
_INNER_HYPHEN = re.compile(r"(?<=\S)-")


def _unbreakable(text: str) -> str:
    return _INNER_HYPHEN.sub(_NO_BREAK, text)


#: Click's help formatter, reached through the public `typer.Context` (Click documents
#: ``Context.formatter_class`` as the place to change it; Typer vendors Click from 0.26 on, and
#: its module path is private).
_ClickFormatter = typer.Context.formatter_class


class _Formatter(_ClickFormatter):  # type: ignore[misc,valid-type]
    """Click's help formatter, wrapping lines at spaces only."""

    def write_text(self, text: str) -> None:
        super().write_text(_unbreakable(text))

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        super().write_dl([(term, _unbreakable(text)) for term, text in rows], col_max, col_spacing)

    def getvalue(self) -> str:
        laid_out: str = super().getvalue()
        return laid_out.replace(_NO_BREAK, "-")


class _Context(typer.Context):
    formatter_class = _Formatter


class HelpCommand(TyperCommand):
    """A command whose ``--help`` wraps at spaces only, and whose usage line names a required
    argument as Click does (``show [OPTIONS] PATH``), not in Typer's braces (``{PATH}``)."""

    context_class = _Context

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return [
            piece[1:-1] if piece.startswith("{") and piece.endswith("}") else piece
            for piece in super().collect_usage_pieces(ctx)
        ]


class HelpGroup(TyperGroup):
    """The command group, with the same help layout."""

    context_class = _Context
