"""What ``toolpatch check`` imports for a small clean file: the pre-commit and CI case, where
start-up is most of the run (docs/benchmarks.md#targets-and-verdicts: at most 1.5 times
``python -c "import typer"``).

Such a file is proven clean by `patchcore.engine.quick`, so the run needs neither the engine
(locating lists, the dialect adapters, pairing, splicing), nor langchain-core or pydantic, nor
Rich (text on a stream that is no terminal). This pins the imports, not the time:
``-X importtime`` lists every module the run loads, Typer's own included, so a heavy import
added anywhere on the way
shows up here.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.helpers import run

#: Packages the run must not load at all (their first component); pathspec (and re2, its
#: matcher) serves directory walks and --force-exclude only (cli/exclusions.py), and a named file
#: needs neither.
HEAVY_PACKAGES = ("langchain_core", "pydantic", "rich", "pathspec", "re2")
#: patchcore's engine: only a record that is not proven clean needs it.
ENGINE = (
    "patchcore.engine.check",
    "patchcore.api",
    "patchcore.engine.apply",
    "patchcore.engine.defects",
    "patchcore.dialects",
    "patchcore.engine.pairing",
    "patchcore.raw.jsonspan",
    "patchcore.engine.locate",
    "patchcore.model",
    "patchcore.layouts.sessions",
    "patchcore.raw.splice",
)
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \| *(?P<module>\S+)$", re.MULTILINE)

ANSWERED_CALL = {
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
        {"role": "assistant", "content": "18 C and sunny."},
    ]
}
CLEAN_FILES = {
    # What the benchmark's start-up case checks (benchmarks.run.SMALL_CLEAN).
    "one line": b'{"messages": [{"role": "user", "content": "hi"}]}\n',
    "pretty-printed, with an answered call": json.dumps(ANSWERED_CALL, indent=2).encode(),
}


def imported_by_check(path: Path) -> list[str]:
    """Every module ``python -m toolpatch check PATH`` imports, in order."""
    result = run(
        ["-X", "importtime", "-m", "toolpatch", "check", path.name],
        command=[sys.executable],
        cwd=path.parent,
        expect=0,
    )
    modules = IMPORTED.findall(result.stderr)
    assert "toolpatch.cli.app" in modules, result.show()
    return modules


@pytest.mark.parametrize("data", CLEAN_FILES.values(), ids=CLEAN_FILES.keys())
def test_check_of_a_small_clean_file_loads_no_engine_and_no_heavy_package(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(data)
    modules = imported_by_check(path)
    assert "patchcore.engine.quick" in modules, "the file was not proven clean by the quick lane"
    heavy = [m for m in modules if m.split(".")[0] in HEAVY_PACKAGES]
    assert not heavy, f"`toolpatch check` of a clean file imported {heavy}"
    engine = [m for m in modules if any(m == e or m.startswith(f"{e}.") for e in ENGINE)]
    assert not engine, f"`toolpatch check` of a clean file imported the engine: {engine}"
