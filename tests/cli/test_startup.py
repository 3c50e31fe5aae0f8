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
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_process

#: Packages the run must not load at all (their first component); pathspec (and re2, its
#: matcher) serves directory walks and --force-exclude only (cli/exclusions.py), and a named file
#: needs neither; Jinja2 (and its MarkupSafe) writes the HTML report only (the html extra);
#: aiohttp serves `toolpatch proxy` only (the proxy extra).
HEAVY_PACKAGES = (
    "langchain_core",
    "pydantic",
    "rich",
    "pathspec",
    "re2",
    "jinja2",
    "markupsafe",
    "aiohttp",
)
#: Parsers imported where they are used (docs/benchmarks.md#start-up): orjson, the codec's
#: fallback for nesting deeper than msgspec reads, and the standard library's json, which reads
#: the first element of an array alone (a bare list is asked whether it starts a session) and a
#: document held in a string. A clean file of JSON objects needs neither.
FALLBACK_PARSERS = ("orjson", "json")
#: What only the HTML report loads.
HTML_PACKAGES = ("jinja2", "markupsafe")
#: patchcore's engine: only a record that is not proven clean needs it.
ENGINE = (
    "patchcore.engine.check",
    "patchcore.api",
    "patchcore.engine.apply",
    "patchcore.dialects",
    "patchcore.engine.pairing",
    "patchcore.raw.splice",
    "patchcore.engine.locate",
    "patchcore.model",
    "patchcore.layouts.sessions",
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
    # A bare list's first element is asked whether it starts an agent session log: its signs
    # are told without loading the session layouts (docs/benchmarks.md#start-up).
    "a bare OpenAI Chat list": json.dumps(ANSWERED_CALL["messages"]).encode(),
    "a bare LangChain list, typed": b'[{"type": "human", "data": {"content": "hi"}}]',
    "conversation lines": b'{"messages": [{"role": "user", "content": "hi"}]}\n' * 3,
}


def imported_by_check(path: Path, *options: str, expect: int = 0) -> list[str]:
    """Every module ``python -m toolpatch check [OPTIONS] PATH`` imports, in order."""
    result = run_process(
        ["-X", "importtime", "-m", "toolpatch", "check", *options, path.name],
        command=[sys.executable],
        cwd=path.parent,
        expect=expect,
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


@pytest.mark.parametrize(
    "data",
    [data for data in CLEAN_FILES.values() if data.lstrip().startswith(b"{")],
    ids=[name for name, data in CLEAN_FILES.items() if data.lstrip().startswith(b"{")],
)
def test_check_of_a_small_clean_object_loads_no_fallback_parser(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(data)
    parsers = [m for m in imported_by_check(path) if m.split(".")[0] in FALLBACK_PARSERS]
    assert not parsers, f"`toolpatch check` of a clean object imported {parsers}"


@pytest.mark.parametrize("output_format", ["concise", "json", "sarif"])
def test_only_the_html_report_loads_jinja(tmp_path: Path, output_format: str) -> None:
    """The other reports of a file with findings load none of the html extra, which a plain
    install leaves out (docs/architecture.md#packaging); the HTML report does."""
    path = tmp_path / "history.json"
    dangling = {"messages": ANSWERED_CALL["messages"][:2]}
    path.write_text(json.dumps(dangling))
    modules = imported_by_check(path, "--output-format", output_format, expect=1)
    assert "patchcore.engine.check" in modules, "the file's findings were not checked"
    loaded = [m for m in modules if m.split(".")[0] in HTML_PACKAGES]
    assert not loaded, f"`toolpatch check --output-format {output_format}` imported {loaded}"
    html = imported_by_check(path, "--output-format", "html", expect=1)
    assert any(m.split(".")[0] == "jinja2" for m in html)


#: What the engine imports only where it is used: OpenSSL's hashes (a Mistral id, TP302's fix;
#: a synthetic result's id) and the `string` module (docs/benchmarks.md#start-up).
LOADED_WHERE_USED = ("hashlib", "_hashlib", "string")


def test_a_check_with_findings_loads_no_hashes(tmp_path: Path) -> None:
    """A check that finds a dangling call loads the engine, and no more than it needs: hashes
    are made only by a fix (a synthetic id) or a provider rule's id."""
    path = tmp_path / "history.json"
    path.write_text(json.dumps({"messages": ANSWERED_CALL["messages"][:2]}))
    modules = imported_by_check(path, expect=1)
    assert "patchcore.engine.check" in modules, "the file's findings were not checked"
    loaded = [m for m in modules if m in LOADED_WHERE_USED]
    assert not loaded, f"`toolpatch check` of a file with a finding imported {loaded}"


#: A run through the console entry point (`toolpatch.cli.app.console`), with what is set up
#: before it (``SETUP``), as ``python -c`` runs it.
CONSOLE = (
    "import sys\n{setup}\nfrom toolpatch.cli.app import console\n"
    "sys.argv[1:] = {args!r}\nconsole()\n"
)


def _console(tmp_path: Path, args: list[str], setup: str = "") -> subprocess.CompletedProcess[str]:
    script = CONSOLE.format(setup=setup, args=args)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )


def test_the_console_ends_without_teardown_and_loses_no_output(tmp_path: Path) -> None:
    """Ended at once (no exit handler, no other thread), the process still writes all of a
    report far larger than a pipe's buffer, and keeps the exit code."""
    path = tmp_path / "history.json"
    calls = [{"role": "assistant", "content": None, "tool_calls": [_call(n)]} for n in range(2000)]
    path.write_text(json.dumps([{"role": "user", "content": "go"}, *calls]))
    done = _console(tmp_path, ["check", "--output-format", "json", path.name])
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) > 2**20
    assert len(json.loads(done.stdout)) == 2000


@pytest.mark.parametrize(
    "setup",
    [
        "import atexit; atexit.register(lambda: print('exit handler ran'))",
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.5), print('exit handler ran'))).start()",
    ],
    ids=["an exit handler", "another thread"],
)
def test_the_console_exits_the_normal_way_when_something_is_left_to_do(
    tmp_path: Path, setup: str
) -> None:
    """A coverage tool's exit handler, a worker pool's, a thread still at work: the process
    exits the normal way, which waits for them."""
    path = tmp_path / "history.json"
    path.write_bytes(CLEAN_FILES["one line"])
    done = _console(tmp_path, ["check", path.name], setup)
    assert done.returncode == 0, done.stderr
    assert "exit handler ran" in done.stdout


def _call(number: int) -> dict[str, object]:
    return {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
