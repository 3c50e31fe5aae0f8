"""``fix --diff``: a deterministic unified diff of an input and its repair (no timestamps in the
headers), and on a terminal that diff coloured line by line, git's way.

Into a pipe or a file the plain diff is written as it is, so the product never changes. For a
person (stdout is a terminal, or colour was asked for) the data's control characters are shown
as escapes (`cli.visible`: the raw JSON may hold DEL and C1 controls, a file name anything),
and when colour is on each line is wrapped in an SGR escape and its reset, its text and line
ending (CRLF, tabs) untouched: with the colour stripped, a diff of data without control
characters is the plain diff byte for byte. No Rich here: Rich would expand tabs and drop CRs.
"""

from __future__ import annotations

import difflib

from .console import Printer, is_terminal
from .visible import visible_lines

#: Line prefix → SGR parameters; the first match wins (file headers before ``+``/``-`` lines).
DIFF_STYLES = (
    ("+++", "1"),  # bold
    ("---", "1"),
    ("@@", "36"),  # cyan
    ("+", "32"),  # green
    ("-", "31"),  # red
    ("\\", "2"),  # dim: "\ No newline at end of file"
)


def coloured_line(line: str) -> str:
    """One diff line (without its line feed; a CR stays after the reset) in its colour; context
    lines stay plain."""
    style = next((sgr for prefix, sgr in DIFF_STYLES if line.startswith(prefix)), None)
    if style is None:
        return line
    text = line.removesuffix("\r")
    return f"\x1b[{style}m{text}\x1b[0m{line[len(text) :]}"


def escaped_line(line: str) -> str:
    """One diff line (without its line feed) with its control characters shown as escapes,
    but its tabs and the CR of a CRLF line end kept."""
    text = line.removesuffix("\r")
    return visible_lines(text) + line[len(text) :]


def print_diff(printer: Printer, diff: str) -> None:
    """Write ``diff``: as it is into a pipe or a file, escaped for a person and coloured when
    ``printer`` is styled (lines split at line feeds only: a U+2028 inside a JSON string is not
    a line break)."""
    if printer.styled or is_terminal(printer.stream):
        lines = [escaped_line(line) for line in diff.split("\n")]
        if printer.styled:
            lines = [coloured_line(line) for line in lines]
        diff = "\n".join(lines)
    printer.raw(diff)


def unified_diff(before: bytes, after: bytes, *, name: str, context: int = 3) -> str:
    """A ``git``-style unified diff from ``a/name`` to ``b/name``.

    Lines are compared as decoded text; a missing final newline is marked as ``diff`` does.
    """
    old = _lines(before)
    new = _lines(after)
    diff = difflib.unified_diff(
        old, new, f"a/{name.lstrip('/')}", f"b/{name.lstrip('/')}", n=context, lineterm="\n"
    )
    return "".join(_mark_no_newline(line) for line in diff)


def _lines(data: bytes) -> list[str]:
    """Split on ``\n`` only (``str.splitlines`` would also split on U+2028 inside strings)."""
    parts = data.decode("utf-8", errors="replace").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _mark_no_newline(line: str) -> str:
    if line.endswith("\n"):
        return line
    return line + "\n\\ No newline at end of file\n"
