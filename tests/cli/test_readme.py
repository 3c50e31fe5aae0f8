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
from pathlib import Path

from tests.conftest import ROOT, SAMPLES
from tests.helpers import console_script, run

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
        result = run(args, cwd=tmp_path, command=[console_script()])
        shown = result.stdout.decode("utf-8") + result.stderr
        assert shown.splitlines() == printed, f"README differs from what {command!r} prints"
        code = result.code
