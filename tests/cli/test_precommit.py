"""``.pre-commit-hooks.yaml``: each hook's ``entry`` run as pre-commit runs it, on a copy of
``samples/`` (check-jsonschema tests its hook file the same way).

pre-commit itself is not run (it would build an environment from the network); what it does is
reproduced: the files a commit stages are filtered by the hook's ``files`` pattern, and the
``entry`` (with the installed ``toolpatch`` console script) gets them as arguments. Pinned: the
check hook reports every sample that has findings; the fix hook writes every expected repair
and leaves the other files alone; a staged ``package.json`` (no history) fails neither hook;
neither does a real ``tsconfig.json`` (``tsc --init``: comments, a trailing comma) or
``.vscode/extensions.json`` (VS Code's template), which the hooks exclude and which, passed to
them all the same, are skipped as not JSON without a sign of a history; a broken file that
does look like a history still fails both.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, SAMPLES
from tests.helpers import Result, console_script, run, run_process
from tests.sample_cases import all_cases, fixed_path

#: Every test starts the console script as pre-commit does, once per hook and file batch.
pytestmark = pytest.mark.slow

HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
#: JSON-with-comments files as their tools write them (``tsc --init`` of TypeScript 5.9, VS
#: Code's "Configure Recommended Extensions" template).
JSONC = ROOT / "tests" / "data" / "jsonc"
JSONC_FILES = ["tsconfig.json", ".vscode/extensions.json"]
#: The samples checked with the default rules (the strict ones need --select ALL, the provider
#: rules' samples their --target).
DEFAULT_CASES = [
    case
    for case in all_cases()
    if not case.select and case.target is None and (SAMPLES / case.path).is_file()
]


def hooks() -> dict[str, dict[str, Any]]:
    loaded = yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in loaded}


def staged(folder: Path, hook: dict[str, Any]) -> list[str]:
    """What pre-commit passes the hook: the files matching its ``files`` pattern and not its
    ``exclude`` pattern."""
    pattern, exclude = re.compile(hook["files"]), re.compile(hook.get("exclude", "^$"))
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    return [name for name in names if pattern.search(name) and not exclude.search(name)]


def run_hook(hook: dict[str, Any], folder: Path, files: list[str]) -> Result:
    """The hook's entry and args, with the real console script, on ``files``."""
    program, *entry = shlex.split(hook["entry"])
    assert program == "toolpatch"
    return run_process(
        [*entry, *hook.get("args", []), *files], cwd=folder, command=[console_script()]
    )


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    copy = tmp_path / "samples"
    shutil.copytree(SAMPLES, copy)
    return copy


def test_hook_file_defines_the_check_and_fix_hooks() -> None:
    found = hooks()
    assert set(found) == {"toolpatch-check", "toolpatch-fix"}
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["name"] and hook["description"]
        pattern = re.compile(hook["files"])
        for name in ("a.json", "dir/b.jsonl", "c.ndjson"):
            assert pattern.search(name), name
        for name in ("README.md", "a.json.bak", "notes.txt", "x.jsonc"):
            assert not pattern.search(name), name
        exclude = re.compile(hook["exclude"])
        for name in (
            "tsconfig.json",
            "web/tsconfig.build.json",
            "jsconfig.json",
            ".vscode/settings.json",
            "app/.devcontainer/devcontainer.json",
            ".devcontainer.json",
            ".eslintrc.json",
        ):
            assert exclude.search(name), name
        for name in ("history.json", "transcripts/tsconfig-notes.jsonl", "vscode/chat.json"):
            assert not exclude.search(name), name
    assert shlex.split(found["toolpatch-check"]["entry"])[:2] == ["toolpatch", "check"]
    assert shlex.split(found["toolpatch-fix"]["entry"])[:2] == ["toolpatch", "fix"]


def test_check_hook_reports_every_sample_with_findings(samples: Path) -> None:
    hook = hooks()["toolpatch-check"]
    files = staged(samples, hook)
    assert "README.md" not in files and files
    result = run_hook(hook, samples, files)
    assert result.code == 1, result.show()
    located = re.compile(r"^(?P<file>\S+):\d+:\d+: ")
    named = {m["file"] for m in map(located.match, result.stdout_lines) if m}
    with_findings = {case.path for case in DEFAULT_CASES if case.findings}
    assert with_findings <= named, sorted(with_findings - named)
    clean = {case.path for case in DEFAULT_CASES if not case.findings}
    assert not clean & named, sorted(clean & named)


def test_fix_hook_writes_the_expected_repairs(samples: Path) -> None:
    hook = hooks()["toolpatch-fix"]
    before = {p: p.read_bytes() for p in samples.rglob("*") if p.is_file()}
    result = run_hook(hook, samples, staged(samples, hook))
    # Findings no fix can answer (a computer_call, a server tool) remain, and say so with 1.
    assert any(case.unfixed for case in DEFAULT_CASES), "the samples hold unfixable findings"
    assert result.code == 1, result.show()
    assert not [line for line in result.stderr_lines if ": error: " in line], result.show()
    for case in DEFAULT_CASES:
        path = samples / case.path
        if case.expected is None:
            assert path.read_bytes() == before[path], f"{case.path} must be left alone"
        else:
            expected = (SAMPLES / fixed_path(case.path)).read_bytes()
            assert path.read_bytes() == expected, f"{case.path} was not repaired as expected"
    assert (samples / "README.md").read_bytes() == before[samples / "README.md"]
    left = run_hook(hooks()["toolpatch-check"], samples, staged(samples, hook))
    assert " [*] " not in left.said, "nothing fixable is left" + left.show()


def test_hooks_skip_json_files_without_a_history(samples: Path) -> None:
    (samples / "package.json").write_text('{"name": "app", "version": "1.0.0"}\n')
    case = next(c for c in DEFAULT_CASES if c.expected is not None and not c.unfixed)
    files = ["package.json", case.path]
    checked = run_hook(hooks()["toolpatch-check"], samples, files)
    assert checked.code == 1 and "package.json" not in checked.said, checked.show()
    fixed = run_hook(hooks()["toolpatch-fix"], samples, files)
    assert fixed.code == 0, "everything was fixed" + fixed.show()
    assert (samples / "package.json").read_text() == '{"name": "app", "version": "1.0.0"}\n'
    assert (samples / case.path).read_bytes() == (SAMPLES / fixed_path(case.path)).read_bytes()


def test_hooks_still_fail_on_broken_histories(samples: Path) -> None:
    (samples / "broken.jsonl").write_text('{"role": "user", "content": "hi"}\n{"role": \n')
    for hook in hooks().values():
        result = run_hook(hook, samples, ["broken.jsonl"])
        assert result.code == 2, result.show()
        assert "broken.jsonl:2:" in result.said


@pytest.fixture
def with_jsonc(samples: Path) -> Path:
    """The samples with the JSON-with-comments files beside them."""
    for name in JSONC_FILES:
        (samples / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(JSONC / name, samples / name)
    return samples


def test_json_with_comments_is_not_json() -> None:
    for name in JSONC_FILES:
        with pytest.raises(json.JSONDecodeError):
            json.loads((JSONC / name).read_text(encoding="utf-8"))


def test_hooks_exclude_json_with_comments(with_jsonc: Path) -> None:
    for hook in hooks().values():
        files = staged(with_jsonc, hook)
        assert not set(JSONC_FILES) & set(files), files


@pytest.mark.parametrize("hook_id", ["toolpatch-check", "toolpatch-fix"])
def test_hooks_skip_json_with_comments_passed_to_them(with_jsonc: Path, hook_id: str) -> None:
    """An ``exclude:`` of the user's replaces the hook's: the files reach toolpatch, which
    skips them (not JSON, no sign of a history) and says why with -v; with the hooks'
    --force-exclude, the one in a hidden folder is passed over before it is read, as a walk
    passes it over."""
    hook = {**hooks()[hook_id], "args": ["-v"]}
    result = run_hook(hook, with_jsonc, JSONC_FILES)
    assert result.code == 0, result.show()
    assert ".vscode" not in result.said, result.show()
    closing = result.stdout_lines if hook_id == "toolpatch-check" else result.stderr_lines
    assert "1 file skipped (no message history)." in closing[-1], result.show()
    every = run_hook({**hook, "args": ["-v", "--no-force-exclude"]}, with_jsonc, JSONC_FILES)
    assert every.code == 0, every.show()
    for name in JSONC_FILES:
        assert (with_jsonc / name).read_bytes() == (JSONC / name).read_bytes()
        (line,) = [line for line in every.stderr_lines if line.startswith(f"{name}: skipped: ")]
        assert "not JSON or JSON Lines" in line and "invalid JSON" in line, line
        assert "no sign of a message history" in line, line
    closing = every.stdout_lines if hook_id == "toolpatch-check" else every.stderr_lines
    assert "2 files skipped (no message history)." in closing[-1], every.show()
    case = next(c for c in DEFAULT_CASES if c.expected is not None and not c.unfixed)
    with_history = run_hook(hooks()[hook_id], with_jsonc, [*JSONC_FILES, case.path])
    assert with_history.code == (1 if hook_id == "toolpatch-check" else 0), with_history.show()
    assert ": error: " not in with_history.stderr, with_history.show()


def test_hooks_pass_over_staged_files_that_a_walk_passes_over(samples: Path) -> None:
    """The hooks' --force-exclude (as ruff's hooks): pre-commit names every staged file, and
    one that the configuration excludes or a .gitignore ignores is left alone, as
    ``toolpatch check`` of the folder leaves it."""
    subprocess.run(["git", "init", "-q", str(samples)], check=True, capture_output=True)
    ignored, excluded = [c for c in DEFAULT_CASES if c.expected is not None][:2]
    (samples / ".gitignore").write_text(f"/{ignored.path}\n")
    (samples / "toolpatch.toml").write_text(f'extend-exclude = ["/{excluded.path}"]\n')
    before = {case.path: (samples / case.path).read_bytes() for case in (ignored, excluded)}
    for hook in hooks().values():
        result = run_hook(hook, samples, staged(samples, hook))
        assert ignored.path not in result.said and excluded.path not in result.said
        assert {path: (samples / path).read_bytes() for path in before} == before
    walked = run(["check"], cwd=samples)
    assert ignored.path not in walked.said and excluded.path not in walked.said


@pytest.mark.parametrize(
    "broken",
    [
        b'{\n  // a torn history\n  "messages": [{"role": "user", "content": "hi"},\n',
        b'[{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "f", "args": {}, ',
        b'{"contents": [{"parts": [{"functionCall": {"name": "f"}}]}]',
    ],
    ids=["openai-messages-with-a-comment", "langchain-torn", "gemini-torn"],
)
def test_hooks_fail_on_broken_files_that_look_like_histories(samples: Path, broken: bytes) -> None:
    (samples / "torn.json").write_bytes(broken)
    for hook in hooks().values():
        result = run_hook(hook, samples, ["torn.json"])
        assert result.code == 2, result.show()
        assert result.stderr_lines[0].startswith("torn.json:"), result.show()
        assert ": error: invalid JSON" in result.stderr_lines[0], result.show()
