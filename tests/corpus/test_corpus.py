"""The real transcripts in ../shared/corpus: no crash on any, and the verdicts of
docs/corpus.md.

The corpus is read in place (never copied into this repository). For the files of the dialects
toolpatch reads, the findings must explain docs/corpus.md: clean files report nothing, training
files and stored responses report exactly their open calls (TP002, not fixable where nothing can be
added), reused ids never hide or invent a finding, and a negative control holds no history to
misjudge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import patchcore
from tests.builders import read_corpus as read
from tests.conftest import CORPUS, ROOT
from tests.helpers import TP002_TEXT, checked_and_copies, text

#: The TP002 text for a call without an id (the words " with id {id}" are left out).
NO_ID_TP002 = TP002_TEXT.replace(" with id {id}", "")
ALL_FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".jsonl"))

#: Files of the formats this release reads, with their verdict (docs/corpus.md): expected findings.
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
    "anthropic/vercel-ai-anthropic-web-search-tool.1.json",
    "anthropic/vercel-ai-anthropic-advisor-20260301.1.json",
    "gemini/adk-context-update.session.json",
    "gemini/adk-flow-complex-spark.session.json",
    "gemini/inspect-live-functionresponse-in-model-turn.json",
    # Gemini CLI chat recordings: every toolCalls entry carries its result.
    "gemini/codemie-gemini-cli-session-5b959dae.json",
    "gemini/codemie-gemini-cli-session-file-ops.json",
    "pydantic-ai/pydantic-deepagents-71570e7e-history.json",
    "pydantic-ai/pydantic-deepagents-a8545ee1-history.json",
]
#: Stored responses and paused runs: their calls are open on purpose
#: (docs/corpus.md#open-by-design), reported as pending (TP002) with the ids the manifest lists, and
#: not fixable beside a single response.
OPEN_ON_PURPOSE = {
    "anthropic/vercel-ai-anthropic-programmatic-tool-calling.1.json": (
        "anthropic",
        {
            "toolu_01PMcE1JBKCeLjn83cgUCvR5",
            "toolu_01MZf5QJ1EQyd2yGyeLzBxAS",
            "toolu_01T7Upuuv8C71nq7DZ9ZPNQW",
            "toolu_016Da1tDet9Bf7dAdYTkF5Ar",
        },
    ),
    "anthropic/vercel-ai-anthropic-tool-search-bm25.1.json": (
        "anthropic",
        {"toolu_01PFQG18bVLaXcEaCxTZtX4G"},
    ),
    "bedrock/vercel-ai-bedrock-converse-multi-tooluse.json": (
        "bedrock",
        {"tool-1", "tool-2", "json-tool-id"},
    ),
}
#: Fine-tuning data: every conversation that calls a tool ends on the call (the target).
TRAINING = {
    "openai-chat/foundry-stock-toolcall-sft.jsonl": 36,
    "openai-chat/foundry-zava-retail-sft-valid.jsonl": 55,
}

pytestmark = pytest.mark.usefixtures("corpus")


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_no_crash_on_any_corpus_file(path: Path) -> None:
    """check and fix --diff end with 0, 1, or a located error (2), never a traceback."""
    for args in (["check"], ["fix", "--diff"]):
        result = subprocess.run(
            [sys.executable, "-m", "toolpatch", *args, str(path)],
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
    assert report.conversations, "the history must be found, not skipped"


@pytest.mark.parametrize("relative", sorted(OPEN_ON_PURPOSE))
def test_stored_responses_report_their_open_calls_as_pending(relative: str) -> None:
    dialect, ids = OPEN_ON_PURPOSE[relative]
    report = patchcore.fix_document(read(relative), filename=relative)
    assert {f.call_id for f in report.findings} == ids
    assert {(f.code, f.dialect) for f in report.findings} == {("TP002", dialect)}
    assert all(f.fix is None for f in report.findings), "nothing can be added beside a response"
    assert report.output is None


def test_server_tool_pairs_inside_one_message_are_answered() -> None:
    """Anthropic server tools: server_tool_use and its *_tool_result share the assistant message;
    in the programmatic-calling response the code_execution pair is closed, only the client
    tool_use blocks it issued are open."""
    relative = "anthropic/vercel-ai-anthropic-programmatic-tool-calling.1.json"
    report = patchcore.check_document(read(relative))
    assert all(f.tool_name == "rollDie" for f in report.findings)


RUN_STATE = "openai-responses/agents-sdk-runstate-pending-approval.json"


@pytest.mark.parametrize("select", [None, ["ALL"]], ids=["default", "ALL"])
def test_paused_agents_sdk_run_reports_the_pending_approval_once(select: list[str] | None) -> None:
    """The run is paused on a tool approval (docs/corpus.md#open-by-design: one open call).

    A run resumes from ``original_input`` + ``generated_items`` (the Agents SDK's RunState); the
    same call is repeated in ``session_items``, ``model_responses``, ``last_model_response`` and
    the interruption lists, which are copies: listed, never checked or repaired. In
    ``generated_items`` the ``tool_approval_item`` repeats the call it asks about and is never
    sent to the model: it is no second call (no TP104).

    The call is reported once, as TP002, and not fixed. It is pending in the plain sense of the
    rule (the last turn's call, no result), and the manifest counts it open; reporting it keeps
    the README's contract for data open on purpose (a paused run, a training target: ``--ignore
    TP002``). But it is no defect to repair: its result is for the resumed run to add once
    someone decides, and a made-up output would take that decision and make the resumed run
    write a second one. So the finding says it awaits the decision, and ``fix`` writes nothing.
    """
    data = read(RUN_STATE)
    report = patchcore.fix_document(
        data, filename=RUN_STATE, options=patchcore.make_options(select=select)
    )
    (finding,) = report.findings
    assert (finding.code, finding.call_id, finding.dialect) == (
        "TP002",
        "historical-approval-1",
        "openai-responses",
    )
    assert finding.pointer == ("generated_items", 0, "raw_item")
    assert finding.fix is None
    assert "awaits an approval decision" in finding.message
    assert report.output is None, "fix must write nothing, least of all into a model response"
    assert report.remaining == report.findings
    # Lists of one run item are run items too: the single-item copies are listed as copies.
    assert checked_and_copies(report) == (
        [("/generated_items", 1)],
        {
            "/session_items",
            "/model_responses/0/output",
            "/last_model_response/output",
            "/current_step/data/interruptions",
            "/last_processed_response/interruptions",
            "/last_processed_response/new_items",
        },
    )


def test_paused_agents_sdk_run_is_left_as_it_is_by_the_cli(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(read(RUN_STATE))
    result = subprocess.run(
        [sys.executable, "-m", "toolpatch", "fix", str(target)],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1, result.stderr.decode()
    assert target.read_bytes() == read(RUN_STATE)
    assert result.stderr.decode().count(" TP002 ") == 1


def test_adk_session_is_read_through_its_events() -> None:
    """ADK keeps the history in events[].content (snake_case, no ids); event_logs are copies."""
    report = patchcore.check_document(read("gemini/adk-context-update.session.json"))
    checked = [(r.pointer, r.dialect) for r in report.conversations if r.note is None]
    assert checked == [("/events", "gemini")]
    assert all(
        r.pointer.startswith("/event_logs/") for r in report.conversations if r.note is not None
    )


TOOLBENCH = "openai-chat/toolbench-G1-10-legacy-function-call.json"


def test_toolbench_prefixes_end_on_their_legacy_function_call() -> None:
    """docs/corpus.md#open-by-design: three growing ``train_messages`` prefixes, each ending on an
    assistant ``function_call`` (the training target, the last one the terminal ``Finish``): 6
    calls, 3 answered by the ``function`` message right after them, 3 open by design. Legacy calls
    have no id: they pair by place and name. They are pending (TP002), and a fix answers each with a
    function message after it."""
    data = read(TOOLBENCH)
    report = patchcore.fix_document(data, filename=TOOLBENCH)
    prefixes = ("answer_generation", "train_messages")
    assert [
        (f.code, f.call_id, f.tool_name, f.list_pointer, f.message_index) for f in report.findings
    ] == [
        ("TP002", None, "transitaires_for_transitaires", (*prefixes, 0), 2),
        ("TP002", None, "transitaire_for_transitaires", (*prefixes, 1), 4),
        ("TP002", None, "Finish", (*prefixes, 2), 6),
    ]
    assert all(f.fix is not None and f.provider_error is None for f in report.findings)
    assert report.output is not None
    repaired = json.loads(report.output)["answer_generation"]["train_messages"]
    original = json.loads(data)["answer_generation"]["train_messages"]
    for finding, before, after in zip(report.findings, original, repaired, strict=True):
        assert after == [
            *before,
            {
                "role": "function",
                "name": finding.tool_name,
                "content": text(
                    TP002_TEXT.replace(" with id {id}", ""), finding.tool_name or "", ""
                ),
            },
        ]
    assert patchcore.check_document(report.output, filename=TOOLBENCH).findings == ()
    assert (
        patchcore.check_document(
            data, filename=TOOLBENCH, options=patchcore.make_options(ignore=["TP002"])
        ).findings
        == ()
    )


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
    assert (
        patchcore.check_document(
            data, filename=relative, options=patchcore.make_options(ignore=["TP002"])
        ).findings
        == ()
    )


@pytest.mark.parametrize(("relative", "count"), sorted(TRAINING.items()))
def test_fixing_training_files_leaves_their_targets(relative: str, count: int) -> None:
    """docs/cli.md#fine-tuning-data: every open call is the last message of its example, a
    fine-tuning record: ``fix`` leaves the file byte for byte, and says so."""
    report = patchcore.fix_document(read(relative), filename=relative)
    assert report.output is None and report.fixed == ()
    assert all(patchcore.is_training_target(f) for f in report.findings)
    judged = patchcore.training_data(report)
    assert judged is not None and (judged.examples, judged.targets) == (count, count)
    assert judged.conversations == len(read(relative).splitlines())


def test_only_the_fine_tuning_sets_are_judged_training_data() -> None:
    """Of every readable file of the corpus (sessions captured mid-call, stored responses, a
    paused run, ToolBench's training prefixes in a JSON document), only the two fine-tuning
    sets have training targets (docs/cli.md#fine-tuning-data)."""
    judged = set()
    for path in ALL_FILES:
        try:
            report = patchcore.fix_document(path.read_bytes(), filename=path.name)
        except patchcore.PatchcoreError:
            continue  # the formats this release does not read
        if patchcore.training_data(report) is not None:
            judged.add(str(path.relative_to(CORPUS)))
    assert judged == set(TRAINING)


@pytest.mark.parametrize("relative", sorted(TRAINING))
def test_answering_training_targets_keeps_every_other_line(relative: str) -> None:
    data = read(relative)
    options = patchcore.make_options(fix_training_targets=True)
    report = patchcore.fix_document(data, filename=relative, options=options)
    assert report.output is not None
    before, after = data.split(b"\n"), report.output.split(b"\n")
    assert len(before) == len(after)
    changed = {f.line for f in report.findings}
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if number not in changed:
            assert old == new, f"line {number} must be byte-identical"
    assert (
        patchcore.check_document(report.output, filename=relative, options=options).findings == ()
    )


def test_reused_ids_pair_with_the_nearest_open_call() -> None:
    """tau-bench reuses API-issued ids: drop the result of a reused call's second use.

    A global set of answered ids would still see the id answered (by the first use) and miss the
    defect; the pairing rule (docs/pairing.md#no-global-set-of-answered-ids) reports exactly the
    second call.
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


@pytest.mark.parametrize(
    "relative",
    ["openai-chat/taubench-gpt-4o-airline.json", "tau2/tau2-whissle-airline-run1-pr448.json"],
)
def test_reused_ids_are_legal_under_every_rule(relative: str) -> None:
    """Ids reused after their earlier call was answered (hundreds in these files) are no finding
    of any rule: not TP104, not TP103, not TP101."""
    report = patchcore.check_document(
        read(relative), options=patchcore.make_options(select=["ALL"])
    )
    assert report.findings == ()


def test_strict_rules_explain_the_orphans_fixture() -> None:
    """docs/corpus.md#defects-and-controls: eleven tool messages and no assistant message issuing
    them."""
    relative = "inspect-ai/inspect-log-tool-call-error-orphans.json"
    report = patchcore.check_document(
        read(relative), options=patchcore.make_options(select=["TP1"])
    )
    assert [f.code for f in report.findings] == ["TP101"] * 11
    assert [f.call_id for f in report.findings] == [f"bash_{n}" for n in range(1, 12)]
    # Deleting all eleven would leave an empty history (and lose every result): not offered.
    assert all(f.fix is None for f in report.findings)
    repaired = patchcore.fix_document(
        read(relative), options=patchcore.make_options(select=["TP1"], unsafe_fixes=True)
    )
    assert repaired.output is None
    assert [f.code for f in repaired.remaining] == ["TP101"] * 11


def test_outputs_only_replay_says_its_calls_unread() -> None:
    """The control records model outputs only (``turns[].output``, each one model response to an
    input the file keeps only as a hash): no history to misjudge, but two calls that no reading
    pairs, said as such (TP004), never as pending and never as "no message history"."""
    relative = "langchain/deerflow-replay-outputs-only-messages-to-dict.json"
    (finding,) = patchcore.check_document(read(relative), filename=relative).findings
    assert finding.code == "TP004" and finding.message.startswith("2 objects look like"), finding
    assert finding.pointer == ("turns", 0, "output", "data"), finding


def test_langgraph_thread_state_has_one_history() -> None:
    """A LangGraph thread dump holds one history, at values.messages, read as LangChain."""
    report = patchcore.check_document(read("langchain/deerflow-thread-90040b36.json"))
    assert [(r.pointer, r.dialect) for r in report.conversations] == [
        ("/values/messages", "langchain")
    ]
