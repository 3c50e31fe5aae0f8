"""Run one command and print its wall time, peak RSS and exit code as JSON.

The benchmark runner starts every case through this small process: on Linux a child's peak RSS
counts what it inherited at fork, so measuring from the runner itself (which has held a corpus
in memory) would report the runner's size for every case.

``python -m benchmarks.measure [--stdin FILE] [--stdout FILE] [--limit-mb MB] CMD [ARG ...]``:
the command's standard input is FILE (else nothing), its output FILE (else discarded): a filter
such as ``toolpatch fix -`` is measured as a shell pipeline runs it, without a shell between.
``--limit-mb`` caps the command's address space (``RLIMIT_AS``): an allocation past it fails,
as it does on a machine or container short of memory. Its standard error is printed (in the
JSON) for the tests that read what it said.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time


def main() -> None:
    argv = sys.argv[1:]
    redirects = {"--stdin": os.devnull, "--stdout": os.devnull, "--limit-mb": ""}
    while argv and argv[0] in redirects:
        redirects[argv[0]] = argv[1]
        argv = argv[2:]
    limit = int(redirects["--limit-mb"]) * 2**20 if redirects["--limit-mb"] else None

    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with open(redirects["--stdin"], "rb") as stdin, open(redirects["--stdout"], "wb") as stdout:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, preexec_fn=limited
        )
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_kb": usage.ru_maxrss,
                "exit": os.waitstatus_to_exitcode(status),
                "stderr": stderr.decode("utf-8", errors="replace"),
            }
        )
    )


if __name__ == "__main__":
    main()
