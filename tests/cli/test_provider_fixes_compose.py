"""The provider fixes (TP3xx) and the pairing fixes in one run: every rule selected, the unsafe
fixes on, each provider targeted, each repair policy. The repair must pass its own re-check
(readable, nothing left to fix under the same options), and a second run must change nothing
(docs/cli.md#provider-fixes-beside-the-pairing-fixes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from patchcore.rules import PROVIDERS, RULES
from tests.helpers import SAMPLES, run
from tests.sample_cases import every_case

#: Every sample input, a file or a folder (a store's), not an expected repair.
INPUTS = [case.path for case in every_case()]

#: The samples on which a provider fix and a pairing fix once collided, with the target and
#: repair policy that made them: a rename inside a result that is moved, copied or removed
#: (Mistral), a user content that gains a function response and so no longer starts Gemini's
#: current turn, a reasoning item whose call the drop repair removes (OpenAI Responses).
COLLIDED = [
    ("mistral", "strict/openai-chat/result-before-call.json", "answer"),
    ("mistral", "strict/openai-chat/tp103-duplicate.json", "answer"),
    ("mistral", "strict/openai-chat/tp103-resumed-run.json", "answer"),
    ("mistral", "strict/openai-chat/tp101-orphan.json", "answer"),
    ("mistral", "strict/openai-chat/combined.json", "answer"),
    ("mistral", "strict/openai-chat/tp102-misplaced.json", "answer"),
    ("mistral", "strict/openai-chat/moved-beside-synthetic.json", "answer"),
    ("gemini", "gemini/ids-user-text.json", "answer"),
    ("gemini", "gemini/adk-session-events.json", "answer"),
    ("gemini", "strict/gemini/tp102-not-next-turn.json", "answer"),
    ("gemini", "strict/gemini/combined.json", "answer"),
    ("openai", "openai-responses/reasoning-before-web-search.json", "drop"),
]


def _fixed_twice(sample: str, target: str, repair: str, tmp_path: Path) -> Path:
    """The sample, fixed with every rule for ``target``; asserts the repair passed its own
    re-check (nothing left to fix: no internal error) and that a second run changes nothing.
    ``--force``: a session log copied now looks live, and its fixes would be held back."""
    path = tmp_path / Path(sample).name
    if (SAMPLES / sample).is_dir():
        shutil.copytree(SAMPLES / sample, path)
    else:
        shutil.copyfile(SAMPLES / sample, path)
    options = ["--unsafe-fixes", "--select", "ALL", "--target", target, "--repair", repair]
    options.append("--force")
    first = run(["fix", "-q", *options, str(path)])
    assert first.code in (0, 1), first.stderr
    assert "internal error" not in first.stderr
    repaired = _contents(path)
    second = run(["fix", "-q", *options, str(path)])
    assert "internal error" not in second.stderr
    assert _contents(path) == repaired  # idempotent: nothing was left to fix
    return path


def _contents(path: Path) -> dict[str, bytes]:
    """The bytes of a file, or of each file of a folder, by its path there."""
    if path.is_file():
        return {"": path.read_bytes()}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("target", "sample", "repair"), COLLIDED)
def test_a_provider_fix_composes_with_the_pairing_fixes(
    target: str, sample: str, repair: str, tmp_path: Path
) -> None:
    _fixed_twice(sample, target, repair, tmp_path)


def test_a_moved_result_carries_the_new_id(tmp_path: Path) -> None:
    """TP102 moves a result whose call TP302 renames: the moved copy names the new id, and the
    rename of the original place (which the move deletes) is left out."""
    path = _fixed_twice("strict/openai-chat/tp102-misplaced.json", "mistral", "answer", tmp_path)
    text = path.read_text()
    assert "call_Wx0slo" not in text
    assert text.count('"tool_call_id"') == 1


@pytest.mark.slow  # every sample (about 190) x 4 targets x 2 repair policies, 3 runs each: minutes
@pytest.mark.parametrize("repair", ["answer", "drop"])
@pytest.mark.parametrize("target", sorted(PROVIDERS))
@pytest.mark.parametrize("sample", INPUTS)
def test_every_sample_fixes_cleanly_for_every_target(
    sample: str, target: str, repair: str, tmp_path: Path
) -> None:
    path = _fixed_twice(sample, target, repair, tmp_path)
    stripped = run(["strip", "-q", str(path)])
    assert "internal error" not in stripped.stderr


IDS = ("toolu_1", "toolu_2")


def test_an_empty_error_result_is_filled_where_the_pairing_fixes_leave_it(tmp_path: Path) -> None:
    """TP307's text composes with TP106 (the message's blocks written anew, results first),
    TP103 (a duplicate dropped) and TP101 (an orphan dropped): each filled result is where its
    block goes, none is filled twice or left empty, and a second run changes nothing."""

    def failed(ident: str, content: Any) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": ident, "content": content, "is_error": True}

    calls = [{"type": "tool_use", "id": i, "name": "bash", "input": {}} for i in IDS]
    blocks = [failed("toolu_1", ""), failed("toolu_2", []), failed("toolu_2", "")]
    history = json.dumps(
        [
            {"role": "user", "content": "Run it"},
            {"role": "assistant", "content": calls},
            {"role": "user", "content": [{"type": "text", "text": "hm"}, *blocks]},
            {"role": "user", "content": [failed("toolu_9", [])]},
        ],
        indent=2,
    )
    path = tmp_path / "h.json"
    path.write_text(history)
    options = ["--unsafe-fixes", "--select", "ALL", "--target", "anthropic"]
    first = run(["fix", "-q", *options, str(path)])
    assert first.code == 0, first.stderr
    repaired = path.read_bytes()
    assert run(["fix", "-q", *options, str(path)]).code == 0
    assert path.read_bytes() == repaired
    text = RULES["TP307"].text
    third = json.loads(repaired)[2]["content"]
    assert third == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": text, "is_error": True},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": text}],
            "is_error": True,
        },
        {"type": "text", "text": "hm"},
    ]
    assert "toolu_9" not in repaired.decode()
