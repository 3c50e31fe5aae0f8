"""``fix --diff``: a deterministic unified diff of an input and its repair (no timestamps in the
headers), and on a terminal that diff coloured line by line, git's way.

Into a pipe or a file the plain diff is written as it is, so the product never changes. For a
person (stdout is a terminal, or colour was asked for) the data's control characters are shown
as escapes (`cli.console`: the raw JSON may hold DEL and C1 controls, a file name anything),
and when colour is on each line is wrapped in an SGR escape and its reset, its text and line
ending (CRLF, tabs) untouched: with the colour stripped, a diff of data without control
characters is the plain diff byte for byte. No Rich here: Rich would expand tabs and drop CRs.
"""

from __future__ import annotations

import difflib
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Literal

from .console import Printer, is_terminal, needs_quoting, visible, visible_lines

#: A patch of the input (`patchcore.repair_patches`): start, end, the bytes put there.
Patch = tuple[int, int, bytes]

#: What turns a run of old lines into a run of new ones (``SequenceMatcher.get_opcodes``).
Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]

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


def unified_diff(
    before: bytes,
    after: bytes,
    *,
    name: str,
    patches: Sequence[Patch] | None = None,
    context: int = 3,
) -> str:
    """A ``git``-style unified diff from ``a/name`` to ``b/name`` (the name quoted as git
    quotes one that holds control characters: `diff_path`).

    Lines are compared as decoded text; a missing final newline is marked as ``diff`` does.
    ``patches`` (the repair as patches of ``before``, sorted: `patchcore.repair_patches`) say
    where the two differ: only the lines around them are read and compared (`patched_diff`),
    so the diff takes time linear in the input however many places a fix changes. Without
    them the whole inputs are compared.
    """
    if patches is not None:
        return patched_diff(
            lambda offset, size: before[offset : offset + size],
            len(before),
            patches,
            name=name,
            context=context,
        )
    old, new = _lines(before), _lines(after)
    opcodes = difflib.SequenceMatcher(None, old, new).get_opcodes()
    return _with_header(name, _hunks(old, new, opcodes, context))


def patched_diff(
    read: Callable[[int, int], bytes],
    size: int,
    patches: Sequence[Patch],
    *,
    name: str,
    context: int = 3,
) -> str:
    """The unified diff of an input of ``size`` bytes, read through ``read(offset, size)``,
    and the input with ``patches`` (sorted, of the input's bytes) applied, read a window at a
    time: the patches are grouped where hunks could join (fewer than ``2 * context + 1``
    unchanged lines apart), and only each group's lines and their context are read and
    compared. Memory holds one window and the diff, never the whole input: a file of hundreds
    of megabytes is diffed as it is read (docs/cli.md#reading-whole)."""
    lines = _LineCounter(read, size)
    groups: list[list[tuple[Patch, int, int]]] = []  # each patch with its first and last line
    for patch in patches:
        first, last = lines.line_of(patch[0]), lines.line_of(patch[1])
        if groups and first - groups[-1][-1][2] <= 2 * context + 1:
            groups[-1].append((patch, first, last))
        else:
            groups.append([(patch, first, last)])
    body: list[str] = []
    shift = 0  # how many more lines the new side has than the old one, before the window
    for group in groups:
        start = lines.back(group[0][0][0], context + 1)
        end = lines.forward(group[-1][0][1], context + 1)
        window = read(start, end - start)
        old = _lines(window)
        inside = [(a - start, b - start, new) for (a, b, new), _, _ in group]
        new_lines, opcodes = _changed_regions(window, old, inside)
        first_line = max(group[0][1] - context, 0)
        body += _hunks(old, new_lines, opcodes, context, first=(first_line, first_line + shift))
        shift += len(new_lines) - len(old)
    return _with_header(name, body)


class _LineCounter:
    """Line numbers of offsets of an input asked in increasing order, and the starts and ends
    of the lines around them, found by reading the input block by block: one pass forward over
    it for the numbers, and a few lines each way for a window."""

    def __init__(self, read: Callable[[int, int], bytes], size: int) -> None:
        self._read = read
        self._size = size
        self._offset = 0  # counted up to here
        self._line = 0  # 0-based line of `_offset`

    def line_of(self, offset: int) -> int:
        """The 0-based line that holds ``offset`` (at least the one asked before)."""
        while self._offset < offset:
            block = self._read(self._offset, min(_BLOCK, offset - self._offset))
            if not block:
                break
            self._line += block.count(b"\n")
            self._offset += len(block)
        return self._line

    def back(self, offset: int, breaks: int) -> int:
        """Where the line ``breaks - 1`` lines before the one that holds ``offset`` starts (0
        at the input's start)."""
        end = offset
        while end > 0:
            low = max(end - _BLOCK, 0)
            block = self._read(low, end - low)
            found = len(block)
            for _ in range(breaks):
                found = block.rfind(b"\n", 0, found)
                if found < 0:
                    break
                breaks -= 1
            if not breaks:
                return low + found + 1
            end = low
        return 0

    def forward(self, offset: int, breaks: int) -> int:
        """Where the ``breaks``-th line break at or after ``offset`` ends (the input's end if
        there are fewer)."""
        start = offset
        while start < self._size:
            block = self._read(start, min(_BLOCK, self._size - start))
            found = -1
            for _ in range(breaks):
                found = block.find(b"\n", found + 1)
                if found < 0:
                    break
                breaks -= 1
            if not breaks:
                return start + found + 1
            start += len(block)
        return self._size


#: How much of the input a diff reads at a time.
_BLOCK = 2**20


def _with_header(name: str, body: list[str]) -> str:
    """The diff: its two headers and ``body``'s lines, or nothing when there is no hunk."""
    header = [f"--- {diff_path('a', name)}\n", f"+++ {diff_path('b', name)}\n"]
    return "".join(_mark_no_newline(line) for line in (header + body if body else []))


def diff_path(side: str, name: str) -> str:
    """``side/name`` for a diff header, quoted as git quotes a path (``"a/x\\ny"``, C escapes
    inside double quotes) when the name holds a control character, a double quote, a backslash
    or a character that reorders or breaks lines (`cli.console`): a file name cannot write a
    line of its own into the diff (a CI command, say), nor hide what it is."""
    path = f"{side}/{name.lstrip('/')}"
    if not needs_quoting(path):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{visible(escaped)}"'


class _Opcodes(difflib.SequenceMatcher[str]):
    """A matcher whose opcodes are given (found region by region): its grouping into hunks is
    the standard library's."""

    def __init__(self, opcodes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._given = opcodes

    def get_opcodes(self) -> list[Opcode]:
        return self._given


def _changed_regions(
    before: bytes, old: list[str], patches: Sequence[Patch]
) -> tuple[list[str], list[Opcode]]:
    """The new lines and the opcodes from ``old`` to them, comparing only the runs of whole
    lines the patches touch (patches on the same or adjacent lines make one run)."""
    starts = _line_starts(before)
    runs: list[tuple[int, int, list[Patch]]] = []
    for patch in patches:
        first = _line_of(starts, patch[0], before)
        last = max(first, min(len(old), _line_of(starts, patch[1], before) + 1))
        if runs and first < runs[-1][1]:
            runs[-1] = (runs[-1][0], max(last, runs[-1][1]), [*runs[-1][2], patch])
        else:
            runs.append((first, last, [patch]))
    new: list[str] = []
    opcodes: list[Opcode] = []
    done = 0
    for first, last, inside in runs:
        if first > done:
            opcodes.append(("equal", done, first, len(new), len(new) + first - done))
            new += old[done:first]
        base = starts[first]
        text = bytearray(before[base : starts[last]])
        for start, end, replacement in reversed(inside):
            text[start - base : end - base] = replacement
        changed = _lines(bytes(text))
        matcher = difflib.SequenceMatcher(None, old[first:last], changed)
        at = len(new)
        opcodes += [
            (tag, i1 + first, i2 + first, j1 + at, j2 + at)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        ]
        new += changed
        done = last
    if done < len(old):
        opcodes.append(("equal", done, len(old), len(new), len(new) + len(old) - done))
        new += old[done:]
    return new, _joined(opcodes)


def _joined(opcodes: list[Opcode]) -> list[Opcode]:
    """``opcodes`` with each run of adjacent ``equal`` ones made one, as a matcher over the
    whole input gives them: the hunks' grouping trims the context of a group's first and last
    opcode only, so an unchanged line of a region beside the unchanged lines around it would
    otherwise show as a fourth line of context."""
    joined: list[Opcode] = []
    for opcode in opcodes:
        if joined and opcode[0] == "equal" and joined[-1][0] == "equal":
            _, i1, _, j1, _ = joined[-1]
            joined[-1] = ("equal", i1, opcode[2], j1, opcode[4])
        else:
            joined.append(opcode)
    return joined


def _line_starts(data: bytes) -> list[int]:
    """Where each line of ``data`` starts, and where the last one ends."""
    starts = [0]
    end = data.find(b"\n")
    while end >= 0:
        starts.append(end + 1)
        end = data.find(b"\n", end + 1)
    if starts[-1] < len(data):
        starts.append(len(data))
    return starts


def _line_of(starts: list[int], offset: int, before: bytes) -> int:
    """The line ``offset`` is on (the end of a last line without a line feed is on it)."""
    line = bisect_right(starts, offset) - 1
    lines = len(starts) - 1
    if line >= lines and lines and not before.endswith(b"\n"):
        return lines - 1
    return min(line, lines)


def _hunks(
    old: list[str],
    new: list[str],
    opcodes: list[Opcode],
    context: int,
    *,
    first: tuple[int, int] = (0, 0),
) -> list[str]:
    """The hunks of a unified diff (as ``difflib.unified_diff`` writes them, headers aside);
    ``old`` and ``new`` start at the lines ``first`` (old, new) of the inputs (a window)."""
    lines = []
    for group in _Opcodes(opcodes).get_grouped_opcodes(context):
        head, tail = group[0], group[-1]
        old_range = _range(head[1] + first[0], tail[2] + first[0])
        new_range = _range(head[3] + first[1], tail[4] + first[1])
        lines.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in old[i1:i2]]
                continue
            lines += ["-" + line for line in old[i1:i2]]
            lines += ["+" + line for line in new[j1:j2]]
    return lines


def _range(start: int, stop: int) -> str:
    """A hunk's range as ``diff -u`` writes it (1-based; an empty range names the line
    before)."""
    length = stop - start
    beginning = start + 1 if length else start
    return str(beginning) if length == 1 else f"{beginning},{length}"


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
