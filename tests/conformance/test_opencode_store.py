"""opencode itself reads back what ``fix`` wrote into its database (docs/stores.md#opencode).

The pinned opencode 1.18.33 (tests/clients/opencode) stores each broken opencode sample in a
database of its own making (``opencode import``, into a home folder of the test's own,
offline); ``toolpatch fix opencode+sqlite://…/opencode.db`` settles the unfinished part there;
``opencode export`` then gives the session back as opencode reads it from its tables, and a
second ``opencode import`` of that export, which checks every part against opencode's schema,
takes it into a fresh database. The part comes back as ``fix`` wrote it, which is the
repair of the same session as an export file (the ``.fixed`` sample).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.test_opencode_client import opencode, stored, tool_states
from tests.helpers import run
from tests.sample_cases import SAMPLES

BROKEN = sorted(
    p.name for p in (SAMPLES / "opencode").glob("*.json") if not p.name.endswith(".fixed.json")
)


@pytest.mark.parametrize("name", BROKEN)
def test_opencode_reads_back_the_repair_of_its_database(name: str, tmp_path: Path) -> None:
    home, fresh = tmp_path / "home", tmp_path / "fresh"
    home.mkdir()
    fresh.mkdir()
    imported = opencode(home, "import", str(SAMPLES / "opencode" / name))
    assert imported.returncode == 0, imported.stderr
    database = home / "data" / "opencode" / "opencode.db"
    url = f"opencode+sqlite:///{database}"
    session = json.loads((SAMPLES / "opencode" / name).read_text())["info"]["id"]
    # opencode stored it just now: by its clock the session may still be running
    assert "may still be running" in run(["check", url], expect=0).stderr
    run(["fix", "--force", url], expect=0)
    assert "No findings" in run(["check", "--force", url], expect=0).stderr

    exported = opencode(home, "export", session)
    assert exported.returncode == 0, exported.stderr
    states = tool_states(json.loads(exported.stdout))
    fixed = json.loads((SAMPLES / "opencode" / name.replace(".json", ".fixed.json")).read_text())
    assert states == tool_states(fixed)  # as fix wrote it, the file's repair

    again = tmp_path / "export.json"
    again.write_text(exported.stdout)
    reimported = opencode(fresh, "import", str(again))
    assert reimported.returncode == 0, reimported.stderr
    assert "Expected" not in reimported.stdout + reimported.stderr
    # opencode's schema takes the settled part, less a pending part's `raw`, which its error
    # state does not have (docs/formats.md#opencode)
    settled = tool_states(json.loads(opencode(fresh, "export", session).stdout))
    assert settled == {call: stored(state) for call, state in tool_states(fixed).items()}
