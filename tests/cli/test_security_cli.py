"""Never trusting the data, on the command line (``tests/unit/test_security.py`` has the rest).

* Paths named in the data are never opened: the CLI runs under an audit hook that logs every
  ``open`` (and every other audited event naming the marker folder).
* A secret named in the data is never resolved from the environment by ``toolpatch fix``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import clean_env, run
from tests.robustness import DOCUMENTS, SENTINEL, single_insertion

# --------------------------------------------------------------------------------------------
# Paths in the data are never opened
# --------------------------------------------------------------------------------------------

AUDIT = textwrap.dedent(
    """
    import sys

    marker, log_path = sys.argv[1], sys.argv[2]
    log = open(log_path, "w", encoding="utf-8")

    def text(value):
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value if isinstance(value, str) else repr(value)

    def hook(event, args):
        if event == "open":
            log.write(f"open\\t{text(args[0])}\\n")
        elif any(marker in text(a) for a in args):
            log.write(f"{event}\\t{args!r}\\n")
        log.flush()

    sys.addaudithook(hook)
    sys.argv = ["toolpatch", *sys.argv[3:]]
    from toolpatch.cli.app import main

    main()
    """
)


def path_history(markers: list[Path]) -> list[dict[str, Any]]:
    """An OpenAI history whose every field mentions the marker files."""
    first, second, folder = str(markers[0]), str(markers[1]), str(markers[0].parent)
    return [
        {"role": "system", "content": f"Read {first} and include {folder}/*"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"@{first} $(cat {second})"},
                {"type": "image_url", "image_url": {"url": f"file://{second}"}},
            ],
            "$ref": first,
            "include": second,
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": first,
                    "type": "function",
                    "function": {
                        "name": second,
                        "arguments": json.dumps({"path": first, "file": f"file://{second}"}),
                    },
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps({"path": folder})},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": f"contents of {second}"},
        {"role": "user", "content": f"Now open {first}"},
    ]


@pytest.mark.parametrize("command", [["check"], ["fix"], ["fix", "--diff"], ["check", "-o", "-"]])
def test_paths_in_the_data_are_never_opened(command: list[str], tmp_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    markers = [secrets / "marker-one.txt", secrets / "marker-two.json"]
    for marker in markers:
        marker.write_text("not to be read\n")
    work = tmp_path / "work"
    work.mkdir()
    history = work / "history.json"
    history.write_text(json.dumps(path_history(markers), indent=2))
    log = tmp_path / "audit.log"

    completed = subprocess.run(
        [sys.executable, "-c", AUDIT, str(secrets), str(log), *command, str(history)],
        cwd=work,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
    stderr = completed.stderr.decode("utf-8", "replace")
    assert completed.returncode in (0, 1), stderr
    assert "Traceback" not in stderr, stderr
    events = log.read_text(encoding="utf-8").splitlines()
    opened = [e.split("\t", 1)[1] for e in events if e.startswith("open\t")]
    assert str(history) in opened, "the audit hook did not see the history being opened"
    touching = [e for e in events if str(secrets) in e]
    assert not touching, f"toolpatch touched paths named in the data: {touching}"
    for marker in markers:
        assert marker.read_text() == "not to be read\n"
    if command == ["fix"]:
        answers = [m.get("tool_call_id") for m in json.loads(history.read_text())]
        assert str(markers[0]) in answers, "the dangling call was not answered"


def test_the_cli_does_not_resolve_secrets(tmp_path: Path) -> None:
    data, _ = DOCUMENTS["dumpd-list-pretty"]
    path = tmp_path / "h.json"
    path.write_bytes(data)
    env = clean_env(OPENAI_API_KEY=SENTINEL)
    run(["fix", "h.json"], cwd=tmp_path, expect=0, env=env)
    output = path.read_bytes()
    single_insertion(data, output)
    assert SENTINEL.encode() not in output
    piped = run(["fix", "-"], input=data, cwd=tmp_path, expect=0, env=env)
    assert piped.stdout == output
