"""Helpers shared by the tests: the checkout's folders, the default synthetic texts, a
subsequence splitter, and two runners of the real ``toolpatch`` entry point (check-jsonschema's
``run_line``): `run`, in this process, the default, and `run_process`, in a new process, for
what only a real process shows.

Every run returns a `Result`; passing ``expect`` asserts the exit code and, when it is wrong,
the assertion message shows the command, stdout and stderr.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

#: The checkout; the shipped samples in it.
ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
#: Real transcripts from public projects (read in place, never copied into the repo).
CORPUS = ROOT.parent / "shared" / "corpus"

# The synthetic texts docs/pairing.md#synthetic-results fixes, written out here on purpose (not
# imported from patchcore).
TP001_TEXT = (
    "Tool call {name} with id {id} has no recorded result: the conversation went on before one "
    "was saved. Whether the tool ran, and what it did, is unknown; check its effects before "
    "calling it again."
)
TP002_TEXT = (
    "Tool call {name} with id {id} has no recorded result: the run stopped before one was saved. "
    "Whether the tool ran, and what it did, is unknown; check its effects before calling it again."
)
TP003_TEXT = (
    "Tool call {name} with id {id} has malformed or truncated arguments and no recorded result. "
    "Whether it ran is unknown; check its effects before calling it again."
)
# The texts of the "deepagents" preset (docs/pairing.md#synthetic-results): the wording of
# deepagents' middleware, which toolpatch's first releases wrote by default.
DEEPAGENTS_TP001_TEXT = (
    "Tool call {name} with id {id} was cancelled - another message came in before it could be "
    "completed."
)
DEEPAGENTS_TP002_TEXT = "Tool call {name} with id {id} did not complete - no result was recorded."
DEEPAGENTS_TP003_TEXT = (
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
    """A default synthetic text with its placeholders filled in one literal pass (the templates
    hold no other braces; a name holding ``{id}`` stays as it is)."""
    return re.sub(r"\{(name|id)\}", lambda m: name if m[1] == "name" else call_id, template)


def tp001(name: str, call_id: str) -> str:
    """The default TP001 text for a call."""
    return text(TP001_TEXT, name, call_id)


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
    def stdout_lines(self) -> list[str]:
        """Non-empty stdout lines, as text (``check``'s text report: findings and summary)."""
        text = self.stdout.decode("utf-8", errors="replace")
        return [line for line in text.splitlines() if line.strip()]

    @property
    def said(self) -> str:
        """Both streams as text, stdout first: what the run said, wherever it said it."""
        return self.stdout.decode("utf-8", errors="replace") + self.stderr

    @property
    def finding_lines(self) -> list[str]:
        """The finding lines (`FINDING_LINE`): on stdout for ``check``, on stderr for what
        ``fix`` leaves."""
        return [line for line in self.stdout_lines + self.stderr_lines if FINDING_LINE.match(line)]

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
    env: dict[str, str] | None = None,
) -> Result:
    """Run ``toolpatch ARGS`` in this process, as the console script would run it
    (`in_process`): the default runner, for everything a real process is not the point of.

    ``input`` is piped to stdin; without it stdin is ``/dev/null`` (never the terminal).
    """
    import toolpatch.cli.app  # noqa: F401 - imported before the run, in this process's environment

    argv = ["toolpatch", *args]
    with in_process(argv, input=input, cwd=cwd, env=clean_env() if env is None else env) as ran:
        code = _exit_code(argv)
    return _checked(Result(argv, code, ran.stdout, ran.stderr), expect)


def run_process(
    args: list[str],
    input: bytes | None = None,
    cwd: Path | None = None,
    *,
    expect: int | None = None,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    stdin: int | None = None,
    preexec: Callable[[], None] | None = None,
) -> Result:
    """Run ``toolpatch ARGS`` in a new process (``python -m toolpatch`` unless ``command`` says
    otherwise): for what only a real process shows (signals, worker pools, the console
    script, start-up, a run that could hang, a real pipe, file or device as a stream, limits
    set in the child by ``preexec``).

    ``input`` is piped to stdin, or ``stdin`` is the file descriptor it reads; without either
    stdin is ``/dev/null`` (never the terminal).
    """
    argv = [*(command or MODULE), *args]
    completed = subprocess.run(
        argv,
        input=input,
        stdin=stdin if stdin is not None else subprocess.DEVNULL if input is None else None,
        capture_output=True,
        cwd=cwd,
        env=clean_env() if env is None else env,
        timeout=timeout,
        preexec_fn=preexec,
        check=False,
    )
    result = Result(
        argv, completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace")
    )
    return _checked(result, expect)


def _checked(result: Result, expect: int | None) -> Result:
    """``result``, once its exit code is ``expect`` (when given) and it shows no traceback."""
    if expect is not None:
        assert result.code == expect, f"expected exit code {expect}" + result.show()
    assert "Traceback (most recent call last)" not in result.stderr, result.show()
    return result


def _exit_code(argv: list[str]) -> int:
    """Run ``toolpatch.cli.app.main`` with ``sys.argv`` set to ``argv``; its exit code."""
    import toolpatch.cli.app

    sys.argv = argv
    try:
        toolpatch.cli.app.main()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else 0 if code is None else 1
    raise AssertionError("main() returned without exiting")


@dataclass
class Streams:
    """What an in-process run wrote: stdout as bytes, stderr as text (filled on exit)."""

    stdout: bytes = b""
    stderr: str = ""


def _drain(fd: int, into: list[bytes]) -> threading.Thread:
    """A thread that reads the pipe ``fd`` to its end into ``into``, then closes it."""

    def read() -> None:
        with open(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(1 << 16):
                into.append(chunk)

    thread = threading.Thread(target=read, name=f"drain-{fd}", daemon=True)
    thread.start()
    return thread


def _feed(data: bytes) -> int:
    """The read end of a pipe a thread writes ``data`` into, then closes."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with open(write_end, "wb", buffering=0) as pipe, contextlib.suppress(BrokenPipeError):
            pipe.write(data)

    threading.Thread(target=write, name="feed-stdin", daemon=True).start()
    return read_end


@contextlib.contextmanager
def in_process(
    argv: list[str], *, input: bytes | None, cwd: Path | None, env: dict[str, str]
) -> Iterator[Streams]:
    """This process made to look, for the length of the block, like a fresh ``toolpatch``
    process started as `run_process` starts one, and put back afterwards.

    File descriptors 0, 1 and 2 are the process's own streams (``/dev/stdout`` and
    ``os.write(1, ...)`` go where ``sys.stdout`` goes): stdin is ``/dev/null`` or a pipe fed
    ``input``, stdout and stderr are pipes drained by threads, wrapped as Python wraps a
    process's pipes. The environment, the working folder, ``sys.argv``, the signal handlers and
    the caches of ``toolpatch.cli`` (which read the environment) are restored on exit. A run
    that would start a worker pool (``--jobs`` on a large JSON Lines input) is refused: forking
    the test process is no run of toolpatch, and such runs need `run_process`.
    """
    saved_fds = {fd: os.dup(fd) for fd in (0, 1, 2)}
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_argv, saved_env, saved_cwd = sys.argv, dict(os.environ), os.getcwd()
    saved_signals = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    pools: list[object] = []

    def no_pool(*args: object, **kwargs: object) -> NoReturn:
        pools.append(args)
        raise AssertionError("a worker pool in the test process")

    saved_pool = concurrent.futures.ProcessPoolExecutor
    concurrent.futures.ProcessPoolExecutor = no_pool  # type: ignore[assignment,misc]
    streams = Streams()
    out: list[bytes] = []
    err: list[bytes] = []
    drains: list[threading.Thread] = []
    for stream in saved_streams:
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        stdin = os.open(os.devnull, os.O_RDONLY) if input is None else _feed(input)
        os.dup2(stdin, 0)
        os.close(stdin)
        for fd, into in ((1, out), (2, err)):
            read_end, write_end = os.pipe()
            os.dup2(write_end, fd)
            os.close(write_end)
            drains.append(_drain(read_end, into))
        encoding = getattr(sys.__stdout__, "encoding", None) or "utf-8"
        errors = getattr(sys.__stdout__, "errors", None) or "strict"
        sys.stdin = open(0, encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
        sys.stderr = open(  # noqa: SIM115
            2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1
        )
        os.environ.clear()
        os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield streams
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        with contextlib.suppress(Exception):
            sys.stdin.close()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.close()
        for fd, saved in saved_fds.items():
            os.dup2(saved, fd)  # closes the pipes' write ends: the drains reach their end
            os.close(saved)
        for drain in drains:
            drain.join()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        for sig, handler in saved_signals.items():
            signal.signal(sig, handler)
        _clear_cli_caches()
        streams.stdout = b"".join(out)
        streams.stderr = b"".join(err).decode("utf-8", "replace")
        concurrent.futures.ProcessPoolExecutor = saved_pool  # type: ignore[misc]
        gc.unfreeze()
        assert not pools, f"{argv} starts a worker pool: run it with run_process"


def _clear_cli_caches() -> None:
    """Empty every ``functools`` cache of the modules of ``toolpatch.cli``: what they hold
    was read from the environment of one run (git's global excludes file, say)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("toolpatch.cli"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def run_main(args: list[str], monkeypatch: Any) -> int:
    """Run ``toolpatch.cli.app.main`` in-process (``monkeypatch``: pytest's, to set
    ``sys.argv``); its exit code (its SIGTERM handler is undone after)."""
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
