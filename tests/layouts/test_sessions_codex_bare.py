"""Codex rollouts of the 2025 layouts, items written bare
(docs/formats.md#codex-rollouts-of-2025-items-bare): read as one conversation of their items,
never one line per conversation; the meta, state and event lines kept; a new output a bare
line; the session's clock the file's."""

from __future__ import annotations

import json

import pytest

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES

FIRST = SAMPLES / "codex-bare/interrupted-shell.jsonl"
SECOND = SAMPLES / "codex-bare/pending-tests.jsonl"


def test_a_bare_rollout_is_one_conversation_of_its_items() -> None:
    """Before this layout such a file was read one line per conversation: each call line a
    conversation of its own, every call "pending"."""
    report = patchcore.check_document(FIRST.read_bytes(), filename="rollout.jsonl")
    assert report.layout == "codex-rollout-bare"
    assert [(r.line, r.dialect, r.message_count) for r in report.conversations] == [
        (3, "openai-responses", 7)
    ]
    assert found(report.findings) == [("TP001", "call_Vt41PyTest")]
    (finding,) = report.findings
    assert (finding.line, finding.column, patchcore.format_pointer(finding.pointer)) == (5, 1, "")


def test_the_second_layout_reads_its_record_types() -> None:
    report = patchcore.check_document(SECOND.read_bytes(), filename="rollout.jsonl")
    assert report.layout == "codex-rollout-bare"
    assert found(report.findings) == [("TP002", "call_Zn58PytestT")]
    assert not [r for r in report.conversations if r.warning]


def test_the_new_output_is_a_bare_line_and_nothing_else_moves() -> None:
    data = FIRST.read_bytes()
    repaired = patchcore.fix_document(data, filename="rollout.jsonl").output
    assert repaired is not None
    before, after = data.split(b"\n"), repaired.split(b"\n")
    added = [json.loads(line) for line in after if line not in before]
    assert [sorted(line) for line in added] == [["call_id", "output", "type"]]
    assert [line for line in after if line in before] == before
    assert patchcore.fix_document(repaired, filename="rollout.jsonl").output is None


def test_its_clock_is_the_files_not_the_start_of_the_session() -> None:
    """The items record no time; the meta's is when the session started: a session started
    long ago may still be running, as the caller judged from its file."""
    data = SECOND.read_bytes()
    ended = patchcore.make_options(live_since=0.0)
    live = patchcore.make_options(live=True, live_since=0.0)
    assert not patchcore.check_document(data, filename="r.jsonl", options=ended).live
    report = patchcore.check_document(data, filename="r.jsonl", options=live)
    assert report.live
    assert [f.fix for f in report.findings] == [None]


def test_a_line_of_another_record_type_is_kept_and_said() -> None:
    data = FIRST.read_bytes() + b'{"record_type":"snapshot","files":[]}\n{"note":"x"}\n'
    report = patchcore.check_document(data, filename="rollout.jsonl")
    assert [(r.line, r.note) for r in report.conversations if r.warning] == [
        (14, "a line of unknown record_type 'snapshot'; kept as it is"),
        (15, "an object without 'type'; kept as it is"),
    ]


def test_a_first_line_with_other_keys_is_no_bare_rollout() -> None:
    """Positive evidence only: an ``{id, timestamp}`` object with keys Codex never wrote there
    is not its meta line."""
    data = b'{"id":"a","timestamp":"2025-06-03T09:14:21.108Z","user":"ana"}\n' + b"\n".join(
        FIRST.read_bytes().split(b"\n")[1:]
    )
    # Read as conversation lines, its bare items would need a second reading: refused
    # (docs/formats.md#json-lines-one-conversation-per-line), never read as a rollout.
    with pytest.raises(patchcore.ShapeError, match="would need two readings"):
        patchcore.check_document(data, filename="x.jsonl")


def test_strip_takes_the_repair_back() -> None:
    fixed = (SAMPLES / "codex-bare/interrupted-shell.fixed.jsonl").read_bytes()
    assert patchcore.strip_document(fixed, filename="r.jsonl").output == FIRST.read_bytes()
