"""The samples whose input is a folder: OpenHands event stores, one file an event
(docs/formats.md#openhands-event-stores), and opencode's storage files
(docs/stores.md#opencode-storage-files). Each is checked through the CLI, fixed in place (the
folder then holds what ``x.fixed/`` holds, byte for byte: the files a repair adds or rewrites,
and every other file as it was), and fixed again (nothing); an event store is stripped back to
the input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import patchcore
from tests.helpers import run
from tests.sample_cases import SAMPLES, Case, folder_cases
from toolpatch.cli.event_stores import StoreFiles, read_store
from toolpatch.cli.output_sinks import WriteFailed

CASES = folder_cases()


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.json"))}


def test_there_are_folder_samples() -> None:
    assert [case.path for case in CASES] == [
        "openhands-events/killed-at-the-end",
        "openhands-events/stopped-mid-command",
        "opencode-files/killed-mid-tool",
    ]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_check_reports_the_expected_findings(case: Case) -> None:
    result = run(["check", f"samples/{case.path}"], expect=1)
    stderr = result.said
    for code, call_id in case.findings:
        assert f"{code} [*] " in stderr
        assert call_id is not None and call_id in stderr


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path)
def test_fix_gives_the_expected_folder_and_fixing_again_nothing(case: Case, tmp_path: Path) -> None:
    folder = tmp_path / "input"
    shutil.copytree(SAMPLES / case.path, folder)
    before = tree(folder)
    run(["fix", "--force", str(folder)], expect=0)
    assert case.expected is not None
    after = tree(folder)
    assert after == tree(case.expected)
    assert set(before) <= set(after), "no file is removed"
    run(["check", str(folder)], expect=0)
    run(["fix", "--force", str(folder)], expect=0)
    assert tree(folder) == after, "fixing twice changes nothing"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.path.startswith("openhands-events/")], ids=lambda c: c.path
)
def test_an_event_store_reads_as_its_trajectory(case: Case) -> None:
    store = read_store(SAMPLES / case.path)
    report = patchcore.check_document(store.lines(), filename="events.jsonl")
    assert [(f.code, f.call_id) for f in report.findings] == [tuple(f) for f in case.findings]
    assert report.layout == "openhands-trajectory"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.path.startswith("openhands-events/")], ids=lambda c: c.path
)
def test_strip_takes_the_new_event_files_back(case: Case, tmp_path: Path) -> None:
    folder = tmp_path / "events"
    assert case.expected is not None
    shutil.copytree(case.expected, folder)
    run(["strip", "--force", str(folder)], expect=0)
    assert tree(folder) == tree(SAMPLES / case.path)


def test_a_fresh_store_is_live_and_left_as_it_is(tmp_path: Path) -> None:
    folder = tmp_path / "events"
    shutil.copytree(SAMPLES / "openhands-events/killed-at-the-end", folder)
    os.utime(folder)  # an event file written just now
    result = run(["fix", str(folder)], expect=1)
    assert "may still be running" in result.stderr
    assert tree(folder) == tree(SAMPLES / "openhands-events/killed-at-the-end")


def test_a_walk_takes_a_store_as_one_input_and_its_sibling_files_as_files(tmp_path: Path) -> None:
    conversation = tmp_path / "sessions" / "abc"
    shutil.copytree(SAMPLES / "openhands-events/killed-at-the-end", conversation / "events")
    (conversation / "metadata.json").write_text('{"conversation_id": "abc"}')
    result = run(["check", "sessions"], cwd=tmp_path, expect=1)
    assert "sessions/abc/events:" in result.said
    assert "events/5.json" not in result.said
    assert "1 file skipped (no message history)" in result.said


def test_numbered_json_files_that_are_no_events_are_walked_as_files(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for k in range(2):
        (folder / f"{k}.json").write_text(json.dumps(messages))
    result = run(["check", str(folder)], expect=0)
    assert result.stdout == b"No findings in 2 files.\n" and result.stderr == ""


def test_an_event_file_written_meanwhile_is_never_written_over(tmp_path: Path) -> None:
    folder = tmp_path / "events"
    shutil.copytree(SAMPLES / "openhands-events/killed-at-the-end", folder)
    store = read_store(folder)
    repaired = patchcore.fix_document(
        store.lines(), filename="events.jsonl", options=patchcore.make_options(live=False)
    ).output
    assert repaired is not None
    (folder / "6.json").write_text("the agent's own event")
    sink = StoreFiles(folder, store)
    sink.write(repaired)
    with pytest.raises(WriteFailed, match="written meanwhile"):
        sink.finish(changed=True, emit=lambda _: None)
    assert (folder / "6.json").read_text() == "the agent's own event"


def test_a_store_refuses_what_is_no_event_file() -> None:
    assert patchcore.EventStore.ids_of(["0.json", "12.json", "3.json"]) == [0, 3, 12]
    assert patchcore.EventStore.ids_of(["0.json", "metadata.json"]) is None
    assert patchcore.EventStore.ids_of(["01.json"]) is None
    assert patchcore.EventStore.ids_of([]) is None
    with pytest.raises(patchcore.DecodeError, match="not one line"):
        patchcore.EventStore.of({"0.json": b'{"id": 0,\n "source": "user"}'})


def test_a_repair_that_would_change_an_event_is_refused() -> None:
    event = {"id": 0, "timestamp": "t", "source": "user", "message": "hi", "action": "message"}
    store = patchcore.EventStore.of({"0.json": json.dumps(event).encode()})
    changed = json.dumps({**event, "message": "bye"}).encode()
    with pytest.raises(patchcore.DecodeError, match="change event 0"):
        store.changes(changed)


def test_show_draws_a_store_with_its_repair() -> None:
    result = run(["show", "samples/openhands-events/killed-at-the-end"], expect=0)
    shown = result.stdout.decode()
    assert "TP002" in shown
    assert "inserted by fix" in shown
