"""Time linear in the input: each operation over an input and over one twice its size.

``python -m benchmarks.scaling`` runs, each in a process of its own (`benchmarks.measure`), on a
JSON document holding one list with ``--calls`` unanswered calls and on one with twice as many:
``check`` (every finding located in its record), ``fix --diff`` (a change every few lines),
``show`` (every message drawn), ``fix`` of the same list written on one line (each result
inserted in its neighbour's style, whose line starts at the file's start) and a SARIF report of
it (each fix planned as patches of the file); and on a Claude Code session of as many
unanswered turns, ``fix --diff`` (the session's repair found as hunks of a line diff) and a
SARIF report (each fix's hunks found from where its edits land). It prints each
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
#: Each operation: its name, its arguments before the file, and the input: a document and its
#: indentation (``None``: all on one line), or ``"session"``, a Claude Code session log.
OPERATIONS: tuple[tuple[str, list[str], int | str | None], ...] = (
    ("check", ["check", "-j1"], 2),
    ("fix --diff", ["fix", "--diff"], 2),
    ("show", ["show"], 2),
    ("fix, one line", ["fix", "-o", "-"], None),
    ("check, SARIF", ["check", "-j1", "--output-format", "sarif", "-o", "/dev/null"], 2),
    ("session fix --diff", ["fix", "--diff"], "session"),
    ("session SARIF", ["check", "--output-format", "sarif", "-o", "/dev/null"], "session"),
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


def session(turns: int) -> bytes:
    """A Claude Code session log of ``turns`` turns, each a call nobody answered followed by a
    new prompt."""
    lines: list[dict[str, Any]] = []
    parent = None
    for k in range(2 * turns + 1):
        uuid = f"6b0e4a1c-2d3f-4a5b-8c6d-{k:012x}"
        line: dict[str, Any] = {"parentUuid": parent, "sessionId": "s", "uuid": uuid}
        if k % 2:
            block = {"type": "tool_use", "id": f"toolu_{k}", "name": "Bash", "input": {}}
            message = {"id": f"msg_{k}", "role": "assistant", "content": [block]}
            line.update(type="assistant", message=message)
        else:
            line.update(type="user", message={"role": "user", "content": "next"})
        lines.append(line)
        parent = uuid
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def made(calls: int, shape: int | str | None) -> bytes:
    """The input of an operation: ``calls`` unanswered calls in the ``shape`` it names."""
    return session(calls) if shape == "session" else document(calls, shape)


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
        for name, command, shape in OPERATIONS:
            suffix = "jsonl" if shape == "session" else "json"
            small, large = (
                Path(tmp, f"small-{shape}.{suffix}"),
                Path(tmp, f"large-{shape}.{suffix}"),
            )
            small.write_bytes(made(args.calls, shape))
            large.write_bytes(made(2 * args.calls, shape))
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
