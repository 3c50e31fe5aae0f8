"""The machine toolpatch runs on, attacked through its paths (docs/cli.md#safety): an ``-o``
that is a device or a FIFO, inputs that never end, walks that meet symlinks, FIFOs, unreadable
or very deep folders, ``--jobs`` without bounds, files of other users, and a ``kill -9`` at the
worst moment of a write.

Tests that need root (a device node, another user's file) skip with the reason elsewhere; CI
runs them as root.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import MODULE, run
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


def test_fix_to_a_fifo_writes_into_it_and_leaves_it_a_fifo(tmp_path: Path) -> None:
    source = _history(tmp_path)
    fifo = tmp_path / "out.json"
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
    _repaired(received)


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
    result = run(["check", str(tmp_path)], expect=1, timeout=30)
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


def _as_a_normal_user(folder: Path) -> list[str] | None:
    """How to run the CLI as a user other than root on ``folder`` (made readable to all):
    ``None`` when this already is one; as root, ``setpriv`` to ``nobody``."""
    if not ROOT:
        return None
    if not Path("/usr/bin/setpriv").exists():
        pytest.skip("running as root without setpriv to become another user")
    for path in (folder, *folder.parents):
        if path.stat().st_mode & 0o005 != 0o005:
            pytest.skip(f"{path} is not open to other users")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *MODULE]


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder other users can read (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="toolpatch-walk-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def test_an_unreadable_folder_in_a_walk_is_an_error(open_folder: Path) -> None:
    """As a normal user, a subfolder it may not list is that folder's error, exit 2 (it may
    hold a defective file), not ``No input files.``"""
    secret = open_folder / "secret"
    secret.mkdir()
    _history(secret).chmod(0o644)
    secret.chmod(0o000)
    result = run(["check", "."], cwd=open_folder, command=_as_a_normal_user(open_folder), expect=2)
    assert "secret: error: cannot list the folder: Permission denied" in result.stderr, (
        result.show()
    )


def test_an_unreadable_file_in_a_walk_is_an_error(open_folder: Path) -> None:
    _history(open_folder, "a.json").chmod(0o644)
    _history(open_folder, "b.json").chmod(0o000)
    result = run(["check", "."], cwd=open_folder, command=_as_a_normal_user(open_folder), expect=2)
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
    result = run(["check", "."], cwd=tmp_path, expect=1, timeout=20)
    assert len(result.finding_lines) == 3, result.show()
