"""opencode itself reads back what ``fix`` wrote into its database (docs/stores.md#opencode).

The pinned opencode 1.18.33 (tests/clients/opencode) stores each broken opencode sample in a
database of its own making (``opencode import``, into a home folder of the test's own,
offline); ``toolpatch fix opencode+sqlite://…/opencode.db`` settles the unfinished part there;
``opencode export`` then gives the session back as opencode reads it from its tables, and a
second ``opencode import`` of that export, which checks every part against opencode's schema,
takes it into a fresh database. The part comes back as ``fix`` wrote it, which is the
repair of the same session as an export file (the ``.fixed`` sample).

And opencode resumes the repaired session (``opencode run --session ID``) offline against the
fake Anthropic API (tests/fake_anthropic.py), which refuses an unanswered or doubled result:
before the repair, opencode leaves the part running in its database for good and tells the model
"[Tool execution was interrupted]" about it on every turn, a text stored nowhere; after it, the
model is told what the database now records, and no tool runs again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.test_opencode_client import opencode, stored, tool_states
from tests.fake_anthropic import fake_anthropic
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
    assert "may still be running" in run(["check", url], expect=0).said
    run(["fix", "--force", url], expect=0)
    assert "No findings" in run(["check", "--force", url], expect=0).said

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


#: What opencode sends the model for a part it finds unfinished (its ``toModelMessages``).
INTERRUPTED = "[Tool execution was interrupted]"
KILLED = "killed-mid-tool.json"
CALL = "toolu_01Npm7TestRunQz"


def resumed(home: Path, repair: bool) -> list[dict[str, object]]:
    """The ``tool_result`` blocks the model got when opencode resumed the killed-mid-tool
    session in ``home`` (repaired first with ``repair``); the run must be accepted and end."""
    session = json.loads((SAMPLES / "opencode" / KILLED).read_text())["info"]["id"]
    assert opencode(home, "import", str(SAMPLES / "opencode" / KILLED)).returncode == 0
    if repair:
        database = home / "data" / "opencode" / "opencode.db"
        run(["fix", "--force", f"opencode+sqlite:///{database}"], expect=0)
    with fake_anthropic() as fake:
        config = home / "config" / "opencode"
        config.mkdir(parents=True, exist_ok=True)
        (config / "opencode.json").write_text(
            json.dumps(
                {
                    "provider": {
                        "anthropic": {"options": {"baseURL": fake.url + "/v1", "apiKey": "dummy"}}
                    },
                    "model": "anthropic/claude-sonnet-4-5",
                }
            )
        )
        ran = opencode(home, "run", "--session", session, "What did the tests say?")
    assert ran.returncode == 0, ran.stderr
    assert len(fake.requests) == 1 and fake.requests[0].refused is None
    assert "Done." in ran.stdout  # the model's answer: no tool is called again
    return fake.requests[0].blocks("tool_result")


def test_opencode_resumes_its_repaired_database(tmp_path: Path) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    told = {block["tool_use_id"]: block for block in resumed(before, repair=False)}
    assert told[CALL]["content"] == INTERRUPTED
    repaired = {block["tool_use_id"]: block for block in resumed(after, repair=True)}
    assert repaired.keys() == told.keys()  # one result per call, as before
    assert repaired[CALL]["is_error"] is True
    assert str(repaired[CALL]["content"]).startswith(f"Tool call bash with id {CALL}")
    assert INTERRUPTED not in json.dumps(repaired)
