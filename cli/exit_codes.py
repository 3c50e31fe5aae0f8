"""Exit codes, in one place (documented in README and ``--help``)."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """What the process returns. Errors win over findings."""

    OK = 0
    """Clean, or everything was fixed."""
    FINDINGS = 1
    """Findings remain, or ``--check`` / ``--diff`` would change something."""
    ERROR = 2
    """Unreadable input, a usage error, or an internal error."""
    INTERRUPTED = 130
    """Interrupted (Ctrl-C, SIGINT): 128 + 2, what shells report and black and ruff return."""
    TERMINATED = 143
    """Terminated (SIGTERM): 128 + 15, what a shell reports for a process SIGTERM killed."""
