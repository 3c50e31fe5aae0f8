"""Time linear in the input: each operation over an input and over one twice its size.

``python -m benchmarks.scaling`` runs, each in a process of its own (`benchmarks.measure`), on a
JSON document holding one list with ``--calls`` unanswered calls and on one with twice as many:
``check`` (every finding located in its record), ``fix --diff`` (a change every few lines),
``show`` (every message drawn), and ``fix`` of the same list written on one line (each result
inserted in its neighbour's style, whose line starts at the file's start). It prints each
median and the ratio of the larger input's time to the smaller's: a linear operation takes
about twice as long (start-up aside, a little less), a quadratic one four times. The target is
at most `RATIO` (docs/benchmarks.md#scaling).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TOOLPATCH = [sys.executable, "-m", "toolpatch"]
MEASURE = [sys.executable, "-m", "benchmarks.measure"]
#: The largest time ratio, twice the input, that passes: linear is 2, quadratic 4.
RATIO = 2.6
#: Each operation: its name, its arguments before the file, and the document's indentation
#: (``None``: all on one line).
OPERATIONS: tuple[tuple[str, list[str], int | None], ...] = (
    ("check", ["check", "-j1"], 2),
    ("fix --diff", ["fix", "--diff"], 2),
    ("show", ["show"], 2),
    ("fix, one line", ["fix", "-o", "-"], None),
)


def document(calls: int, indent: int | None = 2) -> bytes:
    """One OpenAI Chat list with ``calls`` unanswered calls, each followed by a user message,
    indented by ``indent`` (``None``: on one line)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for k in range(calls):
        call = {"id": f"call_{k}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "user", "content": "next"})
    return json.dumps({"messages": messages}, indent=indent).encode()


def seconds(args: list[str], repeat: int) -> float:
    """The median wall time of ``toolpatch ARGS`` (exit 0 or 1: findings are expected)."""
    times = []
    for _ in range(repeat):
        measured = subprocess.run([*MEASURE, *TOOLPATCH, *args], capture_output=True, check=True)
        result = json.loads(measured.stdout)
        if result["exit"] not in (0, 1):
            raise SystemExit(f"toolpatch {' '.join(args)}: exit {result['exit']}")
        times.append(result["seconds"])
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolpatch-scaling-") as tmp:
        print(f"{args.calls} and {2 * args.calls} unanswered calls, {args.repeat} runs each\n")
        print("| operation | small (s) | large (s) | ratio |\n|---|---:|---:|---:|")
        verdicts = []
        for name, command, indent in OPERATIONS:
            small, large = Path(tmp, f"small-{indent}.json"), Path(tmp, f"large-{indent}.json")
            small.write_bytes(document(args.calls, indent))
            large.write_bytes(document(2 * args.calls, indent))
            low = seconds([*command, str(small)], args.repeat)
            high = seconds([*command, str(large)], args.repeat)
            ratio = high / low
            print(f"| {name} | {low:.2f} | {high:.2f} | {ratio:.2f} |")
            verdict = "PASS" if ratio <= RATIO else "MISS"
            verdicts.append(
                f"- {name}: twice the input, {ratio:.2f}x the time (≤ {RATIO}) {verdict}"
            )
        print()
        print("\n".join(verdicts))


if __name__ == "__main__":
    main()
