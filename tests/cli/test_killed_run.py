"""``kill -9`` of ``fix --jobs 2`` leaves no process and no file behind.

A killed main process cannot clean up: its workers must end by themselves
(`cli.parallel._die_with`: the parent-death signal and a thread watching the main process), and
the repair being written must have no name until it is complete (`AtomicFile`,
an ``O_TMPFILE`` file, linked beside the target only at commit). Tested for real: the CLI runs
as a subprocess on a corpus over the streaming threshold, is killed with SIGKILL while its
worker runs and its temporary file is open, and then every process it started (its children
and theirs, polled through ``/proc``) must be gone within seconds and the folder must hold the
original file, untouched. Both start methods the pool uses on Linux are covered: fork, and
forkserver (used when a thread already runs, as a progress display's does), where the workers
are the fork server's children.

Where ``O_TMPFILE`` is not available (the kernel or the file system refuses it) the named
temporary file is used instead, and is still removed when the write fails or is interrupted.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

import toolpatch.integrations.file_io
from benchmarks.corpus import lines as corpus_lines
from patchcore.pipeline import WHOLE_LIMIT
from tests.conftest import ROOT
from tests.helpers import clean_env, run_main
from tests.robustness import assert_no_leftovers, dangling_history, listing

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc, kills by signal")

#: Runs the CLI with the pool's start method forced: ``forkserver`` makes the pool believe a
#: thread already runs (as it does under a progress display), which is when it uses one.
LAUNCHER = """
import sys, threading
if sys.argv[1] == "forkserver":
    threading.active_count = lambda: 2
sys.argv = ["toolpatch", *sys.argv[2:]]
from toolpatch.cli.app import main
main()
"""


#: Runs ``python -m toolpatch ARGS`` with SIGINT as a terminal's foreground job has it. A process
#: inherits an ignored signal: a non-interactive shell starts its background jobs (a CI script's
#: ``... &``, ``nohup``) with SIGINT ignored, and Python then installs no KeyboardInterrupt
#: handler, so Ctrl-C is ignored as that user asked. Started so, the SIGINT test's toolpatch
#: ignored the signal, finished its repair and exited 0: the test failed in every full run of
#: the suite started that way and passed when run from a terminal.
AS_IN_A_TERMINAL = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.executable, [sys.executable, "-m", "toolpatch", *sys.argv[1:]])
"""


@pytest.fixture(scope="module")
def corpus() -> bytes:
    # long enough that a signal sent once its repair is being written arrives before the end,
    # now that the repair is written out as it is made (a third of this finished first once)
    data = b"".join(corpus_lines(dialect="openai-chat", conversations=6000, seed=5))
    assert len(data) > 4 * WHOLE_LIMIT, "streamed, in several batches"
    return data


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (children, their children, ...)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(status.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped, is not)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def writing(pid: int, folder: Path) -> bool:
    """Whether ``pid`` holds a file of ``folder`` open that is not the input (its repair)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)) and not target.endswith("big.jsonl"):
            return True
    return False


def fix_in_flight(command: list[str], path: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    """Start ``command ... fix --jobs 2 path`` and return once its worker runs and its repair
    is being written: the main process and every process it started so far."""
    main = subprocess.Popen(
        [*command, "fix", "--isolated", "--jobs", "2", str(path)],
        cwd=ROOT,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    started: set[int] = set()
    deadline = time.monotonic() + 60
    while not (started and writing(main.pid, path.parent)):
        if main.poll() is not None or time.monotonic() > deadline:
            main.kill()
            _, stderr = main.communicate(timeout=10)
            raise AssertionError(
                f"no worker and repair in flight (exit {main.returncode}): {stderr!r}"
            )
        started |= descendants(main.pid)
        time.sleep(0.002)
    return main, started | descendants(main.pid)


def assert_all_end(main: subprocess.Popen[bytes], started: set[int], code: int) -> bytes:
    """The main process exits with ``code`` and every process it started ends within seconds;
    returns its stderr."""
    try:
        _, stderr = main.communicate(timeout=30)
        assert main.returncode == code, (main.returncode, stderr)
        deadline = time.monotonic() + 10
        while (survivors := {pid for pid in started if alive(pid)}) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in survivors:  # ours, seen alive a moment ago: never leave one behind
            os.kill(pid, signal.SIGKILL)
        assert not survivors, f"still running after the main process ended: {survivors}"
    finally:
        if main.poll() is None:
            main.kill()
            main.communicate(timeout=10)
    return stderr


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_kill_9_of_a_parallel_fix_leaves_no_process_and_no_file(
    method: str, corpus: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(corpus)
    main, started = fix_in_flight([sys.executable, "-c", LAUNCHER, method], path)
    main.send_signal(signal.SIGKILL)
    assert_all_end(main, started, -signal.SIGKILL)
    assert listing(tmp_path) == {"big.jsonl"}, "a temporary file was left behind"
    assert path.read_bytes() == corpus, "the input changed although the run was killed"


@pytest.mark.parametrize(
    ("sent", "code", "said"),
    [
        (signal.SIGINT, 130, b"toolpatch: interrupted\n"),
        (signal.SIGTERM, 143, b"toolpatch: terminated\n"),
    ],
    ids=["SIGINT", "SIGTERM"],
)
def test_an_interrupted_parallel_fix_exits_like_a_shell_and_leaves_the_input(
    sent: signal.Signals, code: int, said: bytes, corpus: bytes, tmp_path: Path
) -> None:
    """Ctrl-C (SIGINT to the process) or SIGTERM amid the write of a streamed, parallel fix:
    ``python -m toolpatch`` exits 130 or 143, the input as it was, nothing else in its folder, and
    the worker gone."""
    path = tmp_path / "big.jsonl"
    path.write_bytes(corpus)
    main, started = fix_in_flight([sys.executable, "-c", AS_IN_A_TERMINAL], path)
    main.send_signal(sent)
    stderr = assert_all_end(main, started, code)
    assert stderr.endswith(said), stderr
    assert b"Traceback" not in stderr, stderr
    assert listing(tmp_path) == {"big.jsonl"}, "a temporary file was left behind"
    assert path.read_bytes() == corpus, "the input changed although the run was interrupted"


def test_the_repair_has_no_name_until_it_is_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the repair is written, nothing new is in the folder (what a kill would leave)."""
    if not toolpatch.integrations.file_io.ANONYMOUS_FILES:
        pytest.skip("this system has no anonymous temporary files (O_TMPFILE)")
    seen = _folder_at_fsync(tmp_path, monkeypatch)
    assert seen == [{"history.json"}]


def _folder_at_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """Fix a history in ``tmp_path``; what the folder held when the repair was fsynced (before
    it is named and renamed). The repair must be in place and nothing else left after."""
    import json

    path = tmp_path / "history.json"
    path.write_bytes(json.dumps(dangling_history(), indent=2).encode())
    real_fsync = os.fsync
    seen: list[set[str]] = []

    def fsync(fd: int) -> None:
        if not seen:  # the repair's (the folder's own comes after the rename)
            seen.append(listing(tmp_path))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert run_main(["fix", "--isolated", str(path)], monkeypatch) == 0
    assert b"call_1" in path.read_bytes() and b'"tool"' in path.read_bytes(), "not repaired"
    assert_no_leftovers(tmp_path, ["history.json"])
    return seen


@pytest.mark.parametrize(
    "unavailable",
    [
        pytest.param(errno.EOPNOTSUPP, id="file-system-refuses"),
        pytest.param(errno.EISDIR, id="kernel-without-O_TMPFILE"),
        pytest.param(None, id="platform-without-O_TMPFILE"),
    ],
)
def test_without_o_tmpfile_a_named_temporary_file_is_used_and_removed(
    unavailable: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if unavailable is None:
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    else:
        real_open = os.open
        flag = os.O_TMPFILE

        def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & flag == flag:
                raise OSError(unavailable, os.strerror(unavailable), str(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", open_)
    seen = _folder_at_fsync(tmp_path, monkeypatch)
    (during,) = seen
    (temporary,) = during - {"history.json"}
    assert temporary.startswith(".history.json.") and temporary.endswith(".tmp"), seen


@pytest.mark.parametrize("temporary", ["anonymous", "named"])
@pytest.mark.parametrize("step", ["fsync", "link", "replace"])
def test_an_interrupted_write_leaves_no_temporary_file(
    temporary: str,
    step: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C at each step of the commit: before the anonymous file is named, once it is named
    (the rename not done yet), and in the named fallback: nothing stays, the original is kept."""
    if temporary == "named":
        monkeypatch.setattr(toolpatch.integrations.file_io, "ANONYMOUS_FILES", False)
    elif not toolpatch.integrations.file_io.ANONYMOUS_FILES:
        pytest.skip("this system has no anonymous temporary files (O_TMPFILE)")
    path = tmp_path / "history.json"
    original = (
        b'[{"role": "user", "content": "Hi"}, '
        + b",".join(
            f'{{"role": "assistant", "tool_calls": [{{"id": "c{n}", "type": "function", '
            f'"function": {{"name": "f", "arguments": "{{}}"}}}}]}}'.encode()
            for n in range(3)
        )
        + b', {"role": "user", "content": "Bye"}]'
    )
    path.write_bytes(original)
    real = getattr(os, step)
    reached: list[str] = []

    def interrupt(*args: Any, **kwargs: Any) -> Any:
        reached.append(step)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, step, interrupt)
    code = run_main(["fix", "--isolated", str(path)], monkeypatch)
    monkeypatch.setattr(os, step, real)
    stderr = capsys.readouterr().err
    if step == "link" and temporary == "named":
        assert reached == [], "the named temporary file needs no link"
        assert code == 0, stderr
        return
    assert reached == [step], stderr
    assert code == 130, stderr
    assert path.read_bytes() == original
    assert_no_leftovers(tmp_path, ["history.json"])
    assert not list(Path(tempfile.gettempdir()).glob(".history.json.*.tmp"))
