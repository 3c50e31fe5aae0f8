"""A progress bar on stderr for runs that take more than a moment: bytes read, conversations
(message lists) and findings so far.

It is for a person watching a terminal: the report decides whether a run shows it
(`cli.command_run.RunReport.progress`: never when stderr is not a terminal, in quiet runs, with
a machine-readable report, or when the product goes to a stdout that is the same terminal). It
appears only once a run has lasted ``delay`` seconds (a pre-commit hook or a small check never
shows it), is redrawn by Rich's own refresh thread (so it moves while a long input is being
read), and is erased when the run ends. While it is shown, Rich redirects stderr so that
messages printed meanwhile (through a `Printer` looking up ``sys.stderr`` at each write)
appear above it.

Feeding it: call `Progress.advance` with what was just done, as often as convenient: after each
input (its size, its message lists, its findings), or from a streaming loop after each batch or
record. Calls are cheap, and safe from one thread while the bar refreshes.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

from .console import Printer
from .text_report import plural

#: How long a run goes before the bar appears.
DELAY_SECONDS = 0.5


class Progress:
    """Counts what a run has done and shows it once the run takes a while.

    Use as a context manager around the run; ``total_bytes`` (``None`` when unknown, as for
    stdin) sizes the bar.
    """

    def __init__(
        self,
        printer: Printer,
        *,
        total_bytes: int | None,
        delay: float = DELAY_SECONDS,
    ) -> None:
        self.printer = printer
        self.total_bytes = total_bytes
        self.delay = delay
        self.bytes_read = 0
        self.records = 0
        self.findings = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._bar: Any = None
        self._task: Any = None
        self._closed = False

    def __enter__(self) -> Progress:
        self._timer = threading.Timer(self.delay, self._show)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()

    def advance(self, *, bytes_read: int = 0, records: int = 0, findings: int = 0) -> None:
        """Count ``bytes_read`` more bytes, ``records`` more conversations (message lists) and
        ``findings`` more findings."""
        with self._lock:
            self.bytes_read += bytes_read
            self.records += records
            self.findings += findings
            if self._bar is not None:
                self._bar.update(self._task, **self._fields())

    def _fields(self) -> dict[str, Any]:
        counts = f"{plural(self.records, 'conversation')}, {plural(self.findings, 'finding')}"
        return {"completed": self.bytes_read, "counts": counts}

    def _show(self) -> None:
        """Start the bar (on the timer's thread), unless the run is already over."""
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bar

        with self._lock:
            if self._closed:
                return
            self._bar = Bar(
                SpinnerColumn(),
                BarColumn(),
                DownloadColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                console=self.printer.console(),
                transient=True,
                redirect_stdout=False,
                redirect_stderr=True,
            )
            self._task = self._bar.add_task("", total=self.total_bytes, **self._fields())
            self._bar.start()
