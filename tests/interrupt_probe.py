"""Run as ``python -m tests.interrupt_probe``: ``python -m toolpatch``, interrupted while code
made by ``exec()`` runs (as when a signal lands while an import builds a dataclass)."""

from __future__ import annotations

import runpy
from typing import Any

import toolpatch.cli.app


def interrupted_in_exec(*args: Any, **kwargs: Any) -> int:
    exec("raise KeyboardInterrupt")  # the point of the probe
    return 0


if __name__ == "__main__":
    # The command line `main` parses with is the probe: an interrupt comes out of its exec.
    toolpatch.cli.app._app_for = lambda arguments: interrupted_in_exec  # type: ignore[assignment,return-value]
    runpy.run_module("toolpatch", run_name="__main__", alter_sys=True)
