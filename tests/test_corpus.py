"""The real transcripts in ../shared/corpus: no crash on any, and the verdicts of SOURCES.md.

The corpus is read in place (never copied into this repository). For the LangChain and OpenAI
files, which this release reads, the findings must explain SOURCES.md: clean files report
nothing, training files report exactly their open final call (TP002), reused ids never hide or
invent a finding, and a negative control holds no history to misjudge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import patchcore
from tests.conftest import CORPUS, ROOT

ALL_FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".jsonl"))

#: Files of the formats this release reads, with SOURCES.md's verdict: expected findings.
CLEAN = [
    "langchain/deepagents-summarization-seed-lc.json",
    "langchain/deerflow-thread-90040b36.json",
    "langchain/deerflow-thread-b83fbb2a-parallel.json",
    "langchain/deerflow-thread-fe3f7974.json",
    "openai-chat/sweagent-function-calling-simple.traj.json",
    "openai-chat/sweagent-marshmallow-1867-function-calling.traj.json",
    "openai-chat/sweagent-test-repo-1c2844.traj.json",
    "openai-chat/taubench-gpt-4o-airline.json",
    "tau2/tau2-whissle-airline-run1-pr448.json",
    "inspect-ai/inspect-eval-log-browser-gpt4o-mini.json",
]
#: Fine-tuning data: every conversation that calls a tool ends on the call (the target).
TRAINING = {
    "openai-chat/foundry-stock-toolcall-sft.jsonl": 36,
    "openai-chat/foundry-zava-retail-sft-valid.jsonl": 55,
}

pytestmark = pytest.mark.usefixtures("corpus")


def read(relative: str) -> bytes:
    return (CORPUS / relative).read_bytes()


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_no_crash_on_any_corpus_file(path: Path) -> None:
    """check and fix --diff end with 0, 1, or a located error (2), never a traceback."""
    for args in (["check"], ["fix", "--diff"]):
        result = subprocess.run(
            [sys.executable, "-m", "cli", *args, str(path)],
            capture_output=True,
            cwd=ROOT,
            check=False,
        )
        stderr = result.stderr.decode()
        assert result.returncode in (0, 1, 2), stderr
        assert "Traceback" not in stderr
        assert "internal error" not in stderr
        if result.returncode == 2:
            assert stderr.startswith(f"{path}:"), stderr


@pytest.mark.parametrize("relative", CLEAN)
def test_clean_files_report_nothing_and_are_not_rewritten(relative: str) -> None:
    report = patchcore.fix_document(read(relative), filename=relative)
    assert report.findings == ()
    assert report.output is None
    assert report.lists, "the history must be found, not skipped"


@pytest.mark.parametrize(("relative", "count"), sorted(TRAINING.items()))
def test_training_files_report_only_their_final_call(relative: str, count: int) -> None:
    data = read(relative)
    report = patchcore.check_document(data, filename=relative)
    assert len(report.findings) == count
    assert {f.code for f in report.findings} == {"TP002"}
    lines = data.split(b"\n")
    for finding in report.findings:
        assert finding.line is not None
        messages = json.loads(lines[finding.line - 1])["messages"]
        assert finding.message_index == len(messages) - 1, "only the last turn is open"
    assert patchcore.check_document(data, filename=relative, ignore=["TP002"]).findings == ()


@pytest.mark.parametrize("relative", sorted(TRAINING))
def test_fixing_training_files_keeps_every_other_line(relative: str) -> None:
    data = read(relative)
    report = patchcore.fix_document(data, filename=relative)
    assert report.output is not None
    before, after = data.split(b"\n"), report.output.split(b"\n")
    assert len(before) == len(after)
    changed = {f.line for f in report.findings}
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if number not in changed:
            assert old == new, f"line {number} must be byte-identical"
    assert patchcore.check_document(report.output, filename=relative).findings == ()


def test_reused_ids_pair_with_the_nearest_open_call() -> None:
    """tau-bench reuses API-issued ids: drop the result of a reused call's second use.

    A global set of answered ids would still see the id answered (by the first use) and miss
    the defect; the DESIGN.md rule reports exactly the second call.
    """
    trajectories = json.loads(read("openai-chat/taubench-gpt-4o-airline.json"))
    for number, trajectory in enumerate(trajectories):
        messages = trajectory["traj"]
        seen: set[str] = set()
        for index, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                if call["id"] in seen:
                    answer = next(
                        k
                        for k in range(index + 1, len(messages))
                        if messages[k].get("tool_call_id") == call["id"]
                    )
                    broken = messages[:answer] + messages[answer + 1 :]
                    findings = patchcore.check_messages(broken)
                    assert [(f.message_index, f.call_id) for f in findings] == [
                        (index, call["id"])
                    ], f"trajectory {number}"
                    return
                seen.add(call["id"])
    pytest.fail("the corpus file should hold a reused id")


def test_outputs_only_replay_holds_no_history() -> None:
    """The negative control records model outputs only: nothing to misjudge, nothing found."""
    relative = "langchain/deerflow-replay-outputs-only-messages-to-dict.json"
    with pytest.raises(patchcore.NoHistoryError):
        patchcore.check_document(read(relative), filename=relative)


def test_langgraph_thread_state_has_one_history() -> None:
    """A LangGraph thread dump holds one history, at values.messages, read as LangChain."""
    report = patchcore.check_document(read("langchain/deerflow-thread-90040b36.json"))
    assert [(r.pointer, r.dialect) for r in report.lists] == [("/values/messages", "langchain")]
