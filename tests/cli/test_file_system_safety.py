"""The machine toolpatch runs on, attacked through its paths (docs/cli.md#safety): an ``-o``
that is a device or a FIFO, inputs that never end, walks that meet symlinks, FIFOs, unreadable
or very deep folders, ``--jobs`` without bounds, files of other users, and a ``kill -9`` at the
worst moment of a write.

Tests that need root (a device node, another user's file) skip with the reason elsewhere; CI
runs them as root.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.helpers import MODULE, run, run_process
from tests.robustness import dangling_history

HISTORY = json.dumps(dangling_history()).encode()
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
needs_root = pytest.mark.skipif(
    not ROOT, reason="makes a device node or another user's file: root only"
)


def _history(folder: Path, name: str = "h.json") -> Path:
    path = folder / name
    path.write_bytes(HISTORY)
    return path


def _repaired(data: bytes) -> None:
    """``data`` is the repaired history: the dangling call now has its result."""
    messages = json.loads(data)
    assert len(messages) == len(dangling_history()) + 1, data[:200]


# --------------------------------------------------------------------------------------------
# -o onto what is not a regular file: written to as a stream, never replaced
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["out.json", "out.json.gz"])
def test_fix_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(tmp_path: Path, name: str) -> None:
    """The FIFO's reader gets the repair (compressed as the FIFO's name ends)."""
    source = _history(tmp_path)
    fifo = tmp_path / name
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader waits on it
    try:
        run(["fix", str(source), "-o", str(fifo)], expect=0)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
        received = b""
        while chunk := os.read(reader, 1 << 16):
            received += chunk
    finally:
        os.close(reader)
    _repaired(gzip.decompress(received) if name.endswith(".gz") else received)


def test_fix_to_dev_stdout_writes_to_stdout(tmp_path: Path) -> None:
    """``-o /dev/stdout`` while stdout is a pipe: the pipe gets the product."""
    source = _history(tmp_path)
    result = run(["fix", str(source), "-o", "/dev/stdout"], expect=0)
    _repaired(result.stdout)


@needs_root
def test_fix_to_a_device_node_writes_to_it_and_leaves_the_device(tmp_path: Path) -> None:
    """As root, a rename over a device node would turn it into a regular file (for
    ``/dev/null``: for the whole machine). A copy of ``/dev/null`` made in the test's folder
    stands for it."""
    source = _history(tmp_path)
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this container does not let root make device nodes")
    run(["fix", str(source), "-o", str(null)], expect=0)
    status = os.lstat(null)
    assert stat.S_ISCHR(status.st_mode), "the device node was replaced by a regular file"
    assert status.st_rdev == os.makedev(1, 3)
    assert set(os.listdir(tmp_path)) == {"h.json", "null"}


def test_fix_in_place_of_a_fifo_never_replaces_it(tmp_path: Path) -> None:
    """A named FIFO is read as a stream; its repair cannot go back into it in place, and the
    FIFO is never replaced by a file: an error naming it, exit 2."""
    fifo = tmp_path / "h.json"
    os.mkfifo(fifo)
    writer_pid = os.fork()
    if writer_pid == 0:  # the child feeds the FIFO, then leaves
        try:
            with open(fifo, "wb") as out:
                out.write(HISTORY)
        finally:
            os._exit(0)
    try:
        result = run(["fix", str(fifo)], expect=2)
    finally:
        os.waitpid(writer_pid, 0)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert "regular file" in result.stderr, result.show()


# --------------------------------------------------------------------------------------------
# Walks: regular files only, nothing followed out of the tree, nothing unchecked in silence
# --------------------------------------------------------------------------------------------


def test_a_walk_does_not_follow_a_symlinked_file_out_of_the_tree(tmp_path: Path) -> None:
    """``walk/link.json -> ../outside/victim.json``: fixing the walk must not rewrite the file
    outside it; the link is reported as passed over."""
    walk, outside = tmp_path / "walk", tmp_path / "outside"
    walk.mkdir()
    outside.mkdir()
    victim = _history(outside, "victim.json")
    (walk / "link.json").symlink_to(Path("..", "outside", "victim.json"))
    result = run(["fix", str(walk)], expect=0)
    assert victim.read_bytes() == HISTORY, "the file outside the walk was rewritten"
    assert (walk / "link.json").is_symlink()
    assert f"{walk / 'link.json'}: skipped: a symlink" in result.stderr, result.show()
    assert "1 file skipped (not a regular file)" in result.stderr, result.show()


def test_a_symlink_named_on_the_command_line_is_followed(tmp_path: Path) -> None:
    """Naming a link is the user's choice: its target is checked."""
    _history(tmp_path, "target.json")
    (tmp_path / "link.json").symlink_to("target.json")
    result = run(["check", str(tmp_path / "link.json")], expect=1)
    assert len(result.finding_lines) == 1, result.show()


def test_a_fifo_met_by_a_walk_is_passed_over_and_reported(tmp_path: Path) -> None:
    """A FIFO nobody writes to would hang the run forever if opened."""
    _history(tmp_path, "a.json")
    os.mkfifo(tmp_path / "b.jsonl")
    result = run_process(["check", str(tmp_path)], expect=1, timeout=30)
    assert len(result.finding_lines) == 1, result.show()
    assert f"{tmp_path / 'b.jsonl'}: skipped: a FIFO" in result.stderr, result.show()


def test_a_folder_1500_levels_deep_is_walked() -> None:
    """A walk down it, and a file at its bottom named (whose folders' ignore files count)."""
    # Not under pytest's tmp_path: pytest's clean-up of old runs recurses and would fail on it.
    top = Path(tempfile.mkdtemp(prefix="toolpatch-deep-"))
    try:
        folder = os.open(top, os.O_RDONLY)
        for _ in range(1500):  # one level at a time: os.makedirs itself recurses
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY, dir_fd=folder)
            os.close(folder)
            folder = inner
        made = os.open("h.json", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.close(folder)
        with os.fdopen(made, "wb") as history:
            history.write(HISTORY)
        deepest = os.path.join(top, *["d"] * 1500, "h.json")
        walked = run(["check", str(top)], expect=1)
        named = run(["check", "--force-exclude", deepest], expect=1)  # its ignore files read
    finally:
        _remove_deep(top)
    assert len(walked.finding_lines) == 1, walked.show()
    assert len(named.finding_lines) == 1, named.show()


def _remove_deep(top: Path) -> None:
    """Remove a chain of nested folders without recursing (``shutil.rmtree`` does)."""
    chain = [top]
    while below := [e for e in os.scandir(chain[-1]) if e.is_dir(follow_symlinks=False)]:
        chain.append(Path(below[0].path))
    for folder in reversed(chain):
        for entry in os.scandir(folder):
            os.unlink(entry.path)
        os.rmdir(folder)


def _bound_by_permissions() -> list[str] | None:
    """How to run the CLI so that permission bits bind it: as it is for a normal user; as
    root, without the capabilities that pass over them (``setpriv``, the bounding set)."""
    if not ROOT:
        return None
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv to drop the capabilities")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *MODULE]


def test_an_unreadable_folder_in_a_walk_is_an_error(tmp_path: Path) -> None:
    """As a normal user, a subfolder it may not list is that folder's error, exit 2 (it may
    hold a defective file), not ``No input files.``"""
    secret = tmp_path / "secret"
    secret.mkdir()
    _history(secret)
    secret.chmod(0o000)
    try:
        result = run_process(
            ["check", "."], cwd=tmp_path, command=_bound_by_permissions(), expect=2
        )
    finally:
        secret.chmod(0o755)
    assert "secret: error: cannot list the folder: Permission denied" in result.stderr, (
        result.show()
    )


def test_an_unreadable_file_in_a_walk_is_an_error(tmp_path: Path) -> None:
    _history(tmp_path, "a.json")
    _history(tmp_path, "b.json").chmod(0o000)
    result = run_process(["check", "."], cwd=tmp_path, command=_bound_by_permissions(), expect=2)
    assert "b.json: error: Permission denied" in result.stderr, result.show()
    assert len(result.finding_lines) == 1, result.show()


# --------------------------------------------------------------------------------------------
# Patterns from the repository cannot hang the walk
# --------------------------------------------------------------------------------------------

#: Twelve stars between letters: a backtracking matcher takes minutes on one long name.
HOSTILE_PATTERN = "*a" * 12 + "*b.json"


@pytest.mark.parametrize("where", ["ignore-file", "extend-exclude"])
def test_a_backtracking_pattern_does_not_hang_the_walk(tmp_path: Path, where: str) -> None:
    if where == "ignore-file":
        (tmp_path / ".ignore").write_text(HOSTILE_PATTERN + "\n")
    else:
        (tmp_path / "toolpatch.toml").write_text(f'extend-exclude = ["{HOSTILE_PATTERN}"]\n')
    for number in range(3):
        _history(tmp_path, "a" * 60 + f"{number}.json")
    _history(tmp_path, "a" * 12 + "b.json")  # the pattern's own match: excluded
    result = run_process(["check", "."], cwd=tmp_path, expect=1, timeout=20)
    assert len(result.finding_lines) == 3, result.show()


# --------------------------------------------------------------------------------------------
# --jobs is bounded, and the workers' watch on their parent has no descriptor limit
# --------------------------------------------------------------------------------------------


def _three_batches(folder: Path) -> Path:
    """A JSON Lines corpus of three 4 MB batches (patchcore.pipeline.BATCH_BYTES), one
    dangling call in its first line."""
    line = json.dumps({"messages": dangling_history()}).encode() + b"\n"
    clean = json.dumps({"messages": [{"role": "user", "content": "x" * 1000}]}).encode() + b"\n"
    path = folder / "corpus.jsonl"
    path.write_bytes(line + clean * (11 * 2**20 // len(clean)))
    return path


def _most_children(command: list[str], stdin: Path | None = None) -> tuple[int, int]:
    """Run ``command`` (reading ``stdin``, if given); return its exit code and the most child
    processes it had at once."""
    with ExitStack() as stack:
        source = stack.enter_context(stdin.open("rb")) if stdin else subprocess.DEVNULL
        process = subprocess.Popen(
            command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        return _watched(process)


def _watched(process: subprocess.Popen[bytes]) -> tuple[int, int]:
    most = 0
    while process.poll() is None:
        try:
            children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text()
        except OSError:
            break
        most = max(most, len(children.split()))
        time.sleep(0.005)
    return process.wait(timeout=120), most


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts processes in /proc")
def test_jobs_beyond_the_batches_start_no_more_workers(tmp_path: Path) -> None:
    """``-j100`` on a 3-batch file: at most three workers, one a batch."""
    corpus = _three_batches(tmp_path)
    code, most = _most_children([*MODULE, "check", "-j100", str(corpus)])
    assert code == 1
    assert most <= 3, f"{most} child processes for 3 batches"


_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts processes in /proc")
@pytest.mark.skipif((_CORES or 1) < 2, reason="one core: no workers to start")
@pytest.mark.parametrize(("command", "expect"), [("check", 1), ("fix", 0)])
def test_without_jobs_a_large_corpus_uses_every_core(
    tmp_path: Path, command: str, expect: int
) -> None:
    """No ``--jobs``: every core (docs/cli.md), as far as the batches go; a file checked, a
    pipe fixed."""
    corpus = _three_batches(tmp_path)
    piped = corpus if command == "fix" else None
    code, most = _most_children(
        [*MODULE, command, str(corpus) if piped is None else "-"], stdin=piped
    )
    assert code == expect
    assert most == min(_CORES or 1, 3), f"{most} worker processes on {_CORES} cores"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts processes in /proc")
@pytest.mark.parametrize("command", [["check"], ["fix", "--diff"]])
def test_without_jobs_a_small_input_starts_no_worker(tmp_path: Path, command: list[str]) -> None:
    """A pre-commit run's small file is one process: workers would cost more than they save."""
    small = tmp_path / "small.jsonl"
    small.write_bytes(b"\n".join([json.dumps({"messages": dangling_history()}).encode()] * 50))
    code, most = _most_children([*MODULE, *command, str(small)])
    assert code == 1
    assert most == 0, f"{most} child processes for a small file"


def test_a_huge_jobs_number_is_capped_at_the_cores(tmp_path: Path) -> None:
    """``-j100000`` was killed by the OOM killer after flooding stderr; capped at the cores
    (and the batches), it is an ordinary run."""
    corpus = _three_batches(tmp_path)
    result = run_process(["check", "-j100000", str(corpus)], expect=1, timeout=120)
    assert len(result.finding_lines) == 1, result.show()
    assert "Traceback" not in result.stderr and "out of range" not in result.stderr


WATCHER = """
import os, resource, subprocess, sys, threading, time
from toolpatch.cli import parallel

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # the pidfd comes above 1024
parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
threading.Thread(target=parallel._watch, args=(parent.pid,), daemon=True).start()
time.sleep(0.5)
parent.kill()
parent.wait()
time.sleep(10)  # the watcher kills this process long before
print("still alive")
"""


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the watcher waits on a pidfd here")
def test_the_parent_watch_works_with_descriptors_above_1024(tmp_path: Path) -> None:
    """A worker dies with the main process even when it holds more than 1,024 descriptors
    (``select`` refused them: the watcher was gone, and the worker waited forever)."""
    script = tmp_path / "watch.py"
    script.write_text(WATCHER)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr)


# --------------------------------------------------------------------------------------------
# Inputs that never end: a device or FIFO is read as a stream, refused at its first bad byte
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize(
    "command", [["check"], ["fix", "--diff"], ["check", "--output-format", "sarif"]]
)
def test_an_endless_device_is_refused_at_once(device: str, command: list[str]) -> None:
    """Refused within the time limit at its first bad byte: the first of /dev/zero; the
    first of /dev/urandom unless it drew a byte a history may start with (``[``, ``{`` or
    whitespace, one draw in forty), then one a few bytes on."""
    result = run_process([*command, device], expect=2, timeout=20)
    first = f"{device}:1:1: error: not a message history"
    if device == "/dev/zero" or first in result.stderr:
        assert first in result.stderr, result.show()
    else:
        assert re.search(rf"^{device}:\d+:\d+: error: ", result.stderr, re.M), result.show()


def test_stdin_from_an_endless_device_is_refused_at_once() -> None:
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [*MODULE, "check", "-"], stdin=zero, capture_output=True, text=True, timeout=20
        )
    assert done.returncode == 2, done.stderr
    assert "-:1:1: error: not a message history" in done.stderr


def test_a_named_fifo_that_never_ends_is_refused_at_its_first_byte(tmp_path: Path) -> None:
    """``yes > fifo``: no history starts with ``y``; the writer ends when the FIFO closes."""
    fifo = tmp_path / "h.json"
    os.mkfifo(fifo)
    with subprocess.Popen(["sh", "-c", f"yes > '{fifo}'"], stderr=subprocess.DEVNULL) as writer:
        result = run_process(["check", str(fifo)], expect=2, timeout=20)
        writer.wait(timeout=20)
    assert f"{fifo}:1:1: error: not a message history" in result.stderr, result.show()
    assert "0x79" in result.stderr


def test_a_named_fifo_holding_a_history_is_checked(tmp_path: Path) -> None:
    fifo = tmp_path / "h.json"
    os.mkfifo(fifo)
    source = tmp_path / "pretty.txt"
    source.write_text(json.dumps(dangling_history(), indent=2))
    with subprocess.Popen(["sh", "-c", f"cat '{source}' > '{fifo}'"]) as writer:
        result = run_process(["check", str(fifo)], expect=1, timeout=20)
        writer.wait(timeout=20)
    assert len(result.finding_lines) == 1, result.show()


# --------------------------------------------------------------------------------------------
# Writing: owner and group kept; a kill -9 between naming the new file and the rename
# --------------------------------------------------------------------------------------------


@needs_root
def test_root_fixing_another_users_file_keeps_its_owner_group_and_mode(tmp_path: Path) -> None:
    path = _history(tmp_path)
    os.chown(path, 65534, 65534)
    path.chmod(0o640)
    run(["fix", str(path)], expect=0)
    status = path.stat()
    assert (status.st_uid, status.st_gid) == (65534, 65534), "the file became root's"
    assert stat.S_IMODE(status.st_mode) == 0o640
    _repaired(path.read_bytes())


KILLED_AT_RENAME = """
import os, signal, sys
from toolpatch.cli import app
from toolpatch.integrations import file_io

file_io.ANONYMOUS_FILES = sys.argv[1] == "anonymous"
os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)  # the worst moment
sys.argv = ["toolpatch", "fix", sys.argv[2]]
app.main()
"""


@pytest.mark.parametrize("temporary", ["anonymous", "named"])
def test_a_kill_between_naming_and_rename_leaves_nothing_after_the_next_fix(
    tmp_path: Path, temporary: str
) -> None:
    """The complete new file, already named, is left by ``kill -9`` just before the rename;
    the next write of the same file removes it (its writer's lock died with it)."""
    folder = tmp_path / "w"
    folder.mkdir()
    path = _history(folder)
    script = tmp_path / "killed.py"
    script.write_text(KILLED_AT_RENAME)
    killed = subprocess.run(
        [sys.executable, str(script), temporary, str(path)], capture_output=True, timeout=60
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert path.read_bytes() == HISTORY  # the original stays
    assert len(os.listdir(folder)) == 2, os.listdir(folder)  # the leftover
    run(["fix", str(path)], expect=0)
    assert os.listdir(folder) == ["h.json"]
    _repaired(path.read_bytes())


def test_a_temporary_file_another_write_holds_is_left_alone(tmp_path: Path) -> None:
    """A file of the usual temporary name that its writer still holds (locked) is another
    write at work, not a leftover: untouched, and this write takes another name."""
    path = _history(tmp_path)
    busy = tmp_path / ".h.json.toolpatch.tmp"
    busy.write_bytes(b"another write's")
    with open(busy, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        run(["fix", str(path)], expect=0)
        assert busy.read_bytes() == b"another write's"
    assert sorted(os.listdir(tmp_path)) == [".h.json.toolpatch.tmp", "h.json"]
    _repaired(path.read_bytes())


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("output_format", ["concise", "json", "sarif"])
def test_a_report_to_a_full_disk_is_a_plain_error(tmp_path: Path, output_format: str) -> None:
    """``check -o /dev/full``: one error naming the report file, exit 2, no internal error."""
    source = _history(tmp_path)
    result = run(
        ["check", str(source), "--output-format", output_format, "-o", "/dev/full"], expect=2
    )
    assert "/dev/full: error: cannot write the report: No space left on device" in result.stderr
    assert "internal error" not in result.stderr, result.show()
