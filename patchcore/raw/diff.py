"""Deterministic unified diffs of an input and its repaired bytes (no timestamps in headers)."""

from __future__ import annotations

import difflib


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
