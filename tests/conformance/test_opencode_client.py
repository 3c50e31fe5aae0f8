"""opencode itself takes back what ``fix`` wrote (docs/formats.md#opencode).

The pinned opencode 1.18.33 (tests/clients/opencode) imports each repaired opencode sample with
``opencode import FILE``, as a user resumes a repaired export, into a home folder of the test's
own, offline. The import checks every part against opencode's own schema (a tool state that is
not one of its four refuses the file: "Expected ToolState"), and ``opencode export`` then gives
the session back as opencode stores it: the call that had no result is settled as an error with
the text ``fix`` wrote, and every other tool part is as it was.

The client pins opencode's Linux x64 build, ``opencode-linux-x64``, the package whose binary the
``opencode-ai`` launcher runs on this machine: the launcher's lock file must name every
platform's build, which the registry here does not serve, so ``npm ci`` could not install it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.npm_clients import installed
from tests.sample_cases import SAMPLES

FIXED = sorted(p.name for p in (SAMPLES / "opencode").glob("*.fixed.json"))


def opencode(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``opencode ARGS`` with its data, config, state and cache under ``home``, offline."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
    }
    build = installed("opencode") / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
    command = [str(build), *args]
    project = home / "project"
    project.mkdir(exist_ok=True)
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=180
    )


def tool_states(export: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        part["callID"]: part["state"]
        for message in export["messages"]
        for part in message["parts"]
        if part.get("type") == "tool"
    }


@pytest.mark.parametrize("name", FIXED)
def test_opencode_imports_the_repaired_export(name: str, tmp_path: Path) -> None:
    repaired = json.loads((SAMPLES / "opencode" / name).read_text())
    original = json.loads((SAMPLES / "opencode" / name.replace(".fixed", "")).read_text())
    imported = opencode(tmp_path, "import", str(SAMPLES / "opencode" / name))
    assert imported.returncode == 0, imported.stderr
    assert "Expected" not in imported.stdout + imported.stderr
    exported = opencode(tmp_path, "export", repaired["info"]["id"])
    assert exported.returncode == 0, exported.stderr
    states = tool_states(json.loads(exported.stdout))
    assert states == {call: stored(state) for call, state in tool_states(repaired).items()}
    settled = [i for i, s in tool_states(original).items() if s != states[i]]
    assert settled, "the sample must settle a part"
    for call in settled:
        assert states[call]["status"] == "error"
        assert states[call]["error"].startswith(f"Tool call {_tool(repaired, call)} with id {call}")


def test_opencode_refuses_a_state_of_its_own_schema_broken(tmp_path: Path) -> None:
    """The import is a real check: a tool state outside opencode's schema is refused."""
    broken = json.loads((SAMPLES / "opencode" / FIXED[0]).read_text())
    for message in broken["messages"]:
        for part in message["parts"]:
            if part.get("type") == "tool" and part["state"]["status"] == "error":
                part["state"]["status"] = "interrupted"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    imported = opencode(tmp_path, "import", str(path))
    assert "Expected ToolState" in imported.stdout + imported.stderr


def stored(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` as opencode stores it: its error state has no ``raw`` (the arguments a pending
    part was still receiving), which its schema drops; the repair keeps it in the file, where
    it is the trace that the part was pending (docs/formats.md#opencode)."""
    if state["status"] != "error":
        return state
    return {key: value for key, value in state.items() if key != "raw"}


def _tool(export: dict[str, Any], call: str) -> str:
    return next(
        part["tool"]
        for message in export["messages"]
        for part in message["parts"]
        if part.get("callID") == call
    )
