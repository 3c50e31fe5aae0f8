"""The repair policies through the command line (docs/pairing.md#repair-policies): ``--repair``
and the ``repair`` key of the configuration, the diff and ``show`` of a drop, and a corpus
streamed in batches."""

from __future__ import annotations

from pathlib import Path

import pytest

import patchcore
from tests.builders import CHAT, CHAT_DROPPED, DROP
from tests.conftest import SAMPLES
from tests.helpers import run, run_process


def test_cli_flag_and_configuration(tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    target.write_bytes(CHAT)
    run(
        ["fix", "--repair", "drop", str(target)], cwd=tmp_path, expect=1
    )  # an unsafe fix: not applied
    assert target.read_bytes() == CHAT
    run(["fix", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == CHAT_DROPPED
    target.write_bytes(CHAT)
    (tmp_path / "toolpatch.toml").write_text('repair = "drop"\nunsafe-fixes = true\n')
    run(["fix", str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == CHAT_DROPPED
    target.write_bytes(CHAT)
    run(["fix", "--repair", "answer", str(target)], cwd=tmp_path, expect=0)
    assert b"has no recorded result" in target.read_bytes()
    bad = run(["check", "--repair", "remove", str(target)], cwd=tmp_path, expect=2)
    assert "'remove' is not a repair policy" in bad.stderr
    (tmp_path / "toolpatch.toml").write_text('repair = "remove"\n')
    bad = run(["check", str(target)], cwd=tmp_path, expect=2)
    assert "repair: 'remove' is not a repair policy" in bad.stderr


def test_fix_diff_and_show_present_the_drop_as_the_other_unsafe_fixes(tmp_path: Path) -> None:
    target = tmp_path / "h.json"
    target.write_bytes(CHAT)
    diff = run(
        ["fix", "--diff", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=1
    )
    removed = [
        line
        for line in diff.stdout.decode().splitlines()
        if line.startswith("-") and "call_1" in line
    ]
    assert removed, diff.show()
    assert not [line for line in diff.stdout.decode().splitlines() if line.startswith("+ ")]
    assert target.read_bytes() == CHAT, "--diff writes nothing"
    check = run(["check", "--repair", "drop", str(target)], cwd=tmp_path, expect=1)
    assert "TP001 [~]" in check.said
    shown = run(["show", "--repair", "drop", "--unsafe-fixes", str(target)], cwd=tmp_path, expect=0)
    assert "dropped by fix" in shown.stdout.decode()


@pytest.mark.slow  # two 4.7 MB corpora through three runs each
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_corpus_streamed_in_batches_drops_and_strips(tmp_path: Path, jobs: str) -> None:
    """A conversation-per-line corpus is cut into batches (and worker processes, -j 2): the
    drop repair and strip give what they give on the whole file."""
    line = (SAMPLES / "openai-chat" / "finetune.jsonl").read_bytes()
    corpus = line * 3500  # 4.7 MB: more than one 4 MiB batch of the stream
    target = tmp_path / "corpus.jsonl"
    target.write_bytes(corpus)
    run_process(["fix", "-q", "-j", jobs, str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() != corpus
    run_process(["strip", "-q", "-j", jobs, str(target)], cwd=tmp_path, expect=0)
    assert target.read_bytes() == corpus
    run_process(
        ["fix", "--repair", "drop", "--unsafe-fixes", "-j", jobs, str(target)],
        cwd=tmp_path,
        expect=0,
    )
    whole = patchcore.fix_document(corpus, filename="corpus.jsonl", options=DROP).output
    assert target.read_bytes() == whole
