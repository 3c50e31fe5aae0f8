"""The baselines toolpatch is measured against, each a command of its own (run by `run`).

``bare``: ``orjson.loads`` + ``orjson.dumps`` of every line, written to a file: the least any
tool that reads and writes a corpus does. ``deepagents``: what a LangChain user runs today,
deepagents' ``PatchToolCallsMiddleware`` over each conversation through langchain-core
(``messages_from_dict`` → ``before_agent`` → ``messages_to_dict``), also written to a file.

``bare-pair``: two ``bare`` processes at once, one on each half of a corpus: how much faster
than one ``bare`` on the whole this machine does the same work with two processes (its
two-process capacity, which ``--jobs 2`` is judged against).

``python -m benchmarks.baselines bare IN OUT`` / ``... deepagents IN OUT`` /
``... bare-pair HALF1 HALF2 OUT``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any


def bare(source: Path, target: Path) -> None:
    import orjson

    with source.open("rb") as lines, target.open("wb") as out:
        for line in lines:
            if line.strip():
                out.write(orjson.dumps(orjson.loads(line)) + b"\n")


def deepagents(source: Path, target: Path) -> None:
    import orjson
    from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
    from langchain_core.messages import messages_from_dict, messages_to_dict

    middleware = PatchToolCallsMiddleware()
    runtime: Any = None  # the middleware does not use it
    with source.open("rb") as lines, target.open("wb") as out:
        for line in lines:
            if not line.strip():
                continue
            record = orjson.loads(line)
            messages = messages_from_dict(record["messages"])
            update = middleware.before_agent({"messages": messages}, runtime)
            if update is not None:
                _remove_all, *messages = update["messages"]
                record["messages"] = messages_to_dict(messages)
            out.write(orjson.dumps(record) + b"\n")


def bare_pair(first: Path, second: Path, target: Path) -> None:
    """``bare`` on ``first`` and on ``second`` in two processes at once (outputs beside
    ``target``)."""
    runs = [
        subprocess.Popen([sys.executable, "-m", "benchmarks.baselines", "bare", str(half), out])
        for half, out in ((first, f"{target}.1"), (second, f"{target}.2"))
    ]
    if any(run.wait() for run in runs):
        raise SystemExit(1)


def main() -> None:
    kind, *paths = sys.argv[1:]
    if kind == "bare-pair":
        bare_pair(*(Path(p) for p in paths))
        return
    source, target = paths
    {"bare": bare, "deepagents": deepagents}[kind](Path(source), Path(target))


if __name__ == "__main__":
    main()
