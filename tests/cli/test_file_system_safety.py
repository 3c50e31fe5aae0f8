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
import stat
from pathlib import Path

import pytest

from tests.helpers import run
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
