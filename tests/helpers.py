"""Helpers shared by the tests: the default synthetic texts, a subsequence splitter, and a runner
for the real ``toolpatch`` entry point in a subprocess (check-jsonschema's ``run_line``).

Every run returns a `Result`; passing ``expect`` asserts the exit code and, when it is wrong,
the assertion message shows the command, stdout and stderr.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

# The synthetic texts docs/pairing.md#synthetic-results fixes, written out here on purpose (not
# imported from patchcore).
TP001_TEXT = (
    "Tool call {name} with id {id} was cancelled - another message came in before it could be "
    "completed."
)
TP002_TEXT = "Tool call {name} with id {id} did not complete - no result was recorded."
TP003_TEXT = (
    "Tool call {name} with id {id} could not be executed - arguments were malformed or truncated."
)


def langchain_result_id(message_id: str | None, call_id: str) -> str | None:
    """The id of the ToolMessage toolpatch writes for ``call_id`` of the AI message
    ``message_id`` (docs/formats.md#langchain): UUIDv5, in toolpatch's namespace, of
    ``langchain/<message id>/<call id>``; ``None`` when the AI message has no id."""
    if not message_id:
        return None
    namespace = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")
    return str(uuid.uuid5(namespace, f"langchain/{message_id}/{call_id}"))


def text(template: str, name: str, call_id: str) -> str:
    """A default synthetic text with its placeholders filled (the templates hold no other
    braces)."""
    return template.replace("{name}", name).replace("{id}", call_id)


def canonical(value: Any) -> str:
    """A JSON value as comparable text (key order included)."""
    return json.dumps(value, ensure_ascii=False)


def checked_and_copies(report: Any) -> tuple[list[tuple[str, int]], set[str]]:
    """Of a `patchcore.Result`: the lists it checked (pointer, messages) and the pointers of
    those it only listed (copies, mixes)."""
    checked = [(c.pointer, c.message_count) for c in report.conversations if c.note is None]
    return checked, {c.pointer for c in report.conversations if c.note is not None}


T = TypeVar("T")


def split_inserted(
    output: Iterable[T], original: Iterable[T], key: Callable[[T], object] = canonical
) -> list[T]:
    """The elements of ``output`` that are not ``original``, which must be a subsequence of it."""
    inserted = []
    remaining = iter(original)
    pending = next(remaining, None)
    for element in output:
        if pending is not None and key(element) == key(pending):
            pending = next(remaining, None)
        else:
            inserted.append(element)
    assert pending is None, f"the input message {pending} is not in the output, in order"
    return inserted


#: ``python -m toolpatch``: the package's own entry point.
MODULE = [sys.executable, "-m", "toolpatch"]

#: A finding line of the text report, ``path:line:col: CODE ...`` (not the provider errors said
#: once per rule after the findings, which name the rule too).
FINDING_LINE = re.compile(r"^.+:\d+:\d+: TP\d{3}\b")

#: Variables that would colour or otherwise change the output behind a test's back.
_SCRUBBED = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "PY_COLORS", "TTY_COMPATIBLE")


def console_script() -> str:
    """The installed ``toolpatch`` script: beside this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name("toolpatch")
    if beside.is_file():
        return str(beside)
    found = shutil.which("toolpatch")
    assert found is not None, "the toolpatch console script is not installed"
    return found


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without colour switches, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


@dataclass(frozen=True)
class Result:
    """What one run of the command did."""

    args: list[str]
    code: int
    stdout: bytes
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        """Non-empty stderr lines."""
        return [line for line in self.stderr.splitlines() if line.strip()]

    @property
    def finding_lines(self) -> list[str]:
        """The finding lines on stderr (`FINDING_LINE`)."""
        return [line for line in self.stderr_lines if FINDING_LINE.match(line)]

    def show(self) -> str:
        """Everything about the run, for assertion messages."""
        stdout = self.stdout.decode("utf-8", errors="replace")
        return (
            f"\n$ {' '.join(self.args)}\nexit code: {self.code}\n"
            f"--- stdout ---\n{stdout}\n--- stderr ---\n{self.stderr}\n--------------"
        )


def run(
    args: list[str],
    input: bytes | None = None,
    cwd: Path | None = None,
    *,
    expect: int | None = None,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Result:
    """Run ``toolpatch ARGS`` (``python -m toolpatch`` unless ``command`` says otherwise).

    ``input`` is piped to stdin; without it stdin is ``/dev/null`` (never the terminal).
    """
    argv = [*(command or MODULE), *args]
    completed = subprocess.run(
        argv,
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,
        capture_output=True,
        cwd=cwd,
        env=clean_env() if env is None else env,
        timeout=timeout,
        check=False,
    )
    result = Result(
        argv, completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace")
    )
    if expect is not None:
        assert result.code == expect, f"expected exit code {expect}" + result.show()
    assert "Traceback (most recent call last)" not in result.stderr, result.show()
    return result


def run_main(args: list[str], monkeypatch: Any) -> int:
    """Run ``toolpatch.cli.app.main`` in-process (``monkeypatch``: pytest's, to set
    ``sys.argv``); its exit code (its SIGTERM handler is undone after)."""
    import signal

    import toolpatch.cli.app

    monkeypatch.setattr(sys, "argv", ["toolpatch", *args])
    previous = signal.getsignal(signal.SIGTERM)
    try:
        toolpatch.cli.app.main()
    except SystemExit as exit_:
        return int(exit_.code or 0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    raise AssertionError("main() returned without exiting")


def premature_breaks(shown: str, width: int) -> list[str]:
    """Lines of ``shown`` (help, or Markdown prose without its code blocks) broken before the
    ``width`` margin: the next line continues the same text (a paragraph, a list item, the help
    beside an option) and its first word would have fitted."""
    found = []
    lines = shown.splitlines()
    for above, line in itertools.pairwise(lines):
        indent = len(line) - len(line.lstrip())
        words = line.split()
        if not above.strip() or above.startswith("#") or not words or words[0].startswith("-"):
            continue  # a new paragraph, a heading's text, a new option or list item
        if "  " in line.strip():
            continue  # a row of a definition list (an option, a command), not a continuation
        continues = (
            len(above) - len(above.lstrip()) == indent  # a paragraph
            or above[indent - 2 : indent] == "  "  # the help column beside an option
            or (above.startswith("- ") and indent == 2)  # a list item
        )
        if continues and len(above) > indent and len(above) + 1 + len(words[0]) <= width:
            found.append(f"{above!r} then {line!r}")
    return found
