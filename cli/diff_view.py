"""``fix --diff`` on a terminal: the unified diff coloured line by line, git's way.

Only colour is added: each line is wrapped in an SGR escape and its reset, its text and line
ending (CRLF, tabs) untouched, so with the escapes stripped the text is the plain diff byte for
byte. When colour is off (a pipe, a file, ``--color never``, NO_COLOR) the plain diff is written
as it is, so the product never changes. No Rich here: Rich would expand tabs and drop CRs.
"""

from __future__ import annotations

from cli.console import Printer

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


def print_diff(printer: Printer, diff: str) -> None:
    """Write ``diff``, coloured when ``printer`` is styled (lines split at line feeds only: a
    U+2028 inside a JSON string is not a line break)."""
    if printer.styled:
        diff = "\n".join(coloured_line(line) for line in diff.split("\n"))
    printer.raw(diff)
