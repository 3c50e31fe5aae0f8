"""`toolpatch proxy` run as a real process, for the tests and the benchmark that drive it.

`running_proxy` starts ``python -m toolpatch proxy --upstream URL --listen 127.0.0.1:0``
(a free port) in a folder of its own, waits for the line that says where it listens (the socket
is listening by then: docs/proxy.md), and stops it with SIGTERM at the end; everything it
printed is kept (`RunningProxy.stdout`, `RunningProxy.stderr`), read as it comes so that the
process never blocks on a full pipe.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

#: How long the proxy may take to start listening, and to stop.
START_SECONDS = 30.0
STOP_SECONDS = 30.0
LISTENING = re.compile(r"listening on (http://\S+),")


@dataclass
class RunningProxy:
    """The proxy process, its URL and what it has printed so far."""

    process: subprocess.Popen[str]
    url: str = ""
    stdout_lines: list[str] = field(default_factory=list)
    stderr_lines: list[str] = field(default_factory=list)

    @property
    def stdout(self) -> str:
        return "".join(self.stdout_lines)

    @property
    def stderr(self) -> str:
        return "".join(self.stderr_lines)


def _read(stream: IO[str], into: list[str], listening: threading.Event) -> None:
    for line in stream:
        into.append(line)
        if LISTENING.search(line):
            listening.set()
    listening.set()  # the process ended: nobody waits for a line that will not come


@contextmanager
def running_proxy(upstream: str, *options: str, cwd: Path) -> Iterator[RunningProxy]:
    """``toolpatch proxy --upstream UPSTREAM OPTIONS`` on a free port of 127.0.0.1, run in
    ``cwd``, until the block ends (then stopped with SIGTERM and waited for)."""
    command = [sys.executable, "-m", "toolpatch", "proxy", "--upstream", upstream]
    process = subprocess.Popen(
        [*command, "--listen", "127.0.0.1:0", *options],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = RunningProxy(process)
    listening = threading.Event()
    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(target=_read, args=(process.stdout, running.stdout_lines, listening)),
        threading.Thread(target=_read, args=(process.stderr, running.stderr_lines, listening)),
    ]
    for reader in readers:
        reader.start()
    try:
        assert listening.wait(START_SECONDS), "the proxy never said where it listens"
        found = LISTENING.search(running.stderr)
        assert found is not None, f"the proxy did not start: {running.stderr}"
        running.url = found.group(1)
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for reader in readers:
            reader.join()
        process.stdout.close()
        process.stderr.close()
