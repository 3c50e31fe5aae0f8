"""The README's "30 seconds" session is what toolpatch really prints.

The console block is replayed command by command on the sample it names, in a fresh folder:
every ``$ toolpatch ...`` line must print exactly the lines under it (its stdout, then its
stderr: the product comes before the lines about it), and ``$ echo $?`` the exit code of the
command before.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

from tests.conftest import ROOT, SAMPLES
from tests.helpers import console_script, run_process

SAMPLE = SAMPLES / "openai-chat" / "parallel-partial-answer.json"
SESSION = re.compile(r"^## 30 seconds\n\n```console\n(?P<session>.*?)^```$", re.M | re.S)


def session() -> list[tuple[str, list[str]]]:
    """The block's commands, each with the lines printed under it."""
    found = SESSION.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md has no '30 seconds' console block"
    steps: list[tuple[str, list[str]]] = []
    for line in found["session"].splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def test_the_30_seconds_session_is_real(tmp_path: Path) -> None:
    shutil.copyfile(SAMPLE, tmp_path / "history.json")
    steps = session()
    assert any(command.startswith("toolpatch ") for command, _ in steps), steps
    code = None
    for command, printed in steps:
        if command == "echo $?":
            assert printed == [str(code)], command
            continue
        program, *args = shlex.split(command)
        assert program == "toolpatch"
        result = run_process(args, cwd=tmp_path, command=[console_script()])
        shown = result.stdout.decode("utf-8") + result.stderr
        assert shown.splitlines() == printed, f"README differs from what {command!r} prints"
        code = result.code


def test_the_30_seconds_session_starts_on_the_first_screen() -> None:
    """A newcomer sees what toolpatch says before scrolling: the session's first report is
    within the README's first 40 lines (a terminal's, or a repository page's first screen)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first = lines.index("$ " + session()[0][0])
    assert first + len(session()[0][1]) < 40, f"the session's first report ends on line {first}"


def test_the_readme_stays_a_tour() -> None:
    """The README is the pitch, the session, set-up, commands and recipes; the reference is in
    docs/ (docs/README.md), so it stays readable in one sitting."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


#: An install or pre-commit line that pins a ref of the repository.
PINNED = re.compile(r"toolpatch(?:\.git)?@(?P<ref>v[\w.]+)|^\s*rev: (?P<rev>\S+)", re.M)


def test_the_readme_installs_this_release() -> None:
    """Every ref the README pins (``pip install "git+https://...@REF"``, pre-commit's ``rev:``)
    is this version's tag, and where the checkout has tags the tag exists, so that the lines a
    user copies install what the README describes. No line installs the unrelated project that
    owns the name ``toolpatch`` on the package index."""
    import patchcore

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    refs = {m["ref"] or m["rev"] for m in PINNED.finditer(text)}
    assert refs == {f"v{patchcore.__version__}"}
    assert not re.search(r"pip install\s+[\"']?toolpatch(\[|\s|$|[\"'])", text, re.M)
    git = shutil.which("git")
    tags = (
        subprocess.run([git, "-C", str(ROOT), "tag"], capture_output=True, text=True).stdout
        if git
        else ""
    )
    changelog = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    if not tags.split():
        # No tag (the repository is unpublished, or this is an export): the changelog must not
        # say there are, and the README must say how to install without one.
        assert "No release is tagged yet" in changelog
        assert "toolpatch is not published yet" in text
        return
    assert refs <= set(tags.split()), f"no tag {refs} in this repository"
