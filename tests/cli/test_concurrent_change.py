"""A file that another process writes to while ``fix`` works on it is never replaced.

``fix`` reads a file, repairs it and replaces it with the repair; a line that another process
(an agent still running) appended meanwhile would be lost with the old contents. So before the
rename, the file must still be the one that was read: same device and inode, same size, same
modification time (`FileIdentity`). If not, nothing is written and the input
gets a located error saying what changed (exit 2), as editors refuse to save over a file that
changed on disk.

The change is made for real, in the window between the read and the replace: the test's
``os.fsync`` (which the atomic write calls on its temporary file just before the rename)
appends a line to the input, or replaces or removes it, then syncs. A whole file and a streamed
corpus (over ``patchcore.pipeline.WHOLE_LIMIT``, with ``--jobs 1`` and ``--jobs 2``) are
covered.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import lines as corpus_lines
from patchcore.pipeline import WHOLE_LIMIT
from tests.helpers import run_main
from tests.robustness import assert_no_leftovers, dangling_history

APPENDED = json.dumps({"messages": dangling_history("call_late")}).encode() + b"\n"


def small_history() -> bytes:
    return json.dumps({"messages": dangling_history()}).encode() + b"\n"


def big_corpus() -> bytes:
    data = b"".join(corpus_lines(dialect="openai-chat", conversations=600, seed=11))
    assert len(data) > WHOLE_LIMIT, "the corpus must be streamed"
    return data


def append(path: Path) -> None:
    with path.open("ab") as handle:
        handle.write(APPENDED)


def rewrite_same_size(path: Path) -> None:
    """Same size, other bytes, a later modification time."""
    data = path.read_bytes()
    stat = path.stat()
    path.write_bytes(data.replace(b"call_1", b"call_9"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def replace_with_a_copy(path: Path) -> None:
    copy = path.with_name("copy.tmp-by-test")
    copy.write_bytes(path.read_bytes())
    os.utime(copy, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    copy.replace(path)


def remove(path: Path) -> None:
    path.unlink()


@pytest.fixture
def in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str]]:
    """What an in-process run needs: to patch (``sys.argv``, ``os.fsync``) and to read stderr."""
    return monkeypatch, capsys


def fix_while(
    path: Path, data: bytes, change: Callable[[Path], None], args: list[str], pytest_: Any
) -> tuple[int, str, bytes]:
    """Write ``data`` to ``path``, run ``fix ARGS path`` and make ``change`` to ``path`` at the
    first fsync (the atomic write's, just before its rename); ``pytest_``: `in_process`.
    Returns the exit code, stderr, and what the file held after the change."""
    monkeypatch, capsys = pytest_
    path.write_bytes(data)
    real_fsync = os.fsync
    after: list[bytes] = []

    def fsync(fd: int) -> None:
        if not after:
            change(path)
            after.append(path.read_bytes() if path.exists() else b"")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    code = run_main(["fix", "--isolated", *args, str(path)], monkeypatch)
    stderr = capsys.readouterr().err
    assert after, "the write never reached its fsync: " + stderr
    return code, stderr, after[0]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (append, "its size went from {size:,} to {grown:,} bytes"),
        (rewrite_same_size, "its modification time changed"),
        (replace_with_a_copy, "another file was put in its place"),
        (remove, "it was removed or renamed"),
    ],
    ids=["appended", "rewritten", "replaced", "removed"],
)
def test_a_whole_file_changed_meanwhile_is_not_replaced(
    change: Callable[[Path], None], said: str, tmp_path: Path, in_process: Any
) -> None:
    path, data = tmp_path / "history.jsonl", small_history()
    code, stderr, after = fix_while(path, data, change, [], in_process)
    if change is not remove:
        assert path.read_bytes() == after, "what the other process wrote was lost"
    else:
        assert not path.exists(), "a removed file was written again"
    reason = said.format(size=len(data), grown=len(data) + len(APPENDED))
    expected = (
        f"{path}: error: not written: the file changed while it was being fixed ({reason}); the "
        "repair of what was read would lose that, so the file is left as it is now"
    )
    assert expected in stderr.splitlines(), stderr
    assert code == 2, stderr
    assert_no_leftovers(tmp_path, [] if change is remove else ["history.jsonl"])


@pytest.mark.slow  # a corpus past the streaming threshold, fixed twice
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_streamed_corpus_appended_to_meanwhile_is_not_replaced(
    jobs: int, tmp_path: Path, in_process: Any
) -> None:
    path, data = tmp_path / "corpus.jsonl", big_corpus()
    code, stderr, _ = fix_while(path, data, append, ["--jobs", str(jobs)], in_process)
    assert path.read_bytes() == data + APPENDED, "the appended line was lost"
    assert f"{path}: error: not written: the file changed while it was being fixed" in stderr
    assert f"(its size went from {len(data):,} to {len(data) + len(APPENDED):,} bytes" in stderr
    assert code == 2, stderr
    assert_no_leftovers(tmp_path, ["corpus.jsonl"])


def test_an_unchanged_file_is_still_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check refuses nothing that did not change (the file's own fsync-time is the same)."""
    path = tmp_path / "history.jsonl"
    path.write_bytes(small_history())
    code = run_main(["fix", "--isolated", str(path)], monkeypatch)
    stderr = capsys.readouterr().err
    assert code == 0, stderr
    assert b"call_1" in path.read_bytes() and path.read_bytes() != small_history()
    assert_no_leftovers(tmp_path, ["history.jsonl"])


@pytest.mark.slow  # a corpus past the streaming threshold, compressed, fixed twice
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_compressed_corpus_rewritten_meanwhile_is_not_replaced(
    jobs: int, tmp_path: Path, in_process: Any
) -> None:
    """A compressed file is guarded as a plain one (the identity of the compressed file)."""
    import gzip

    path, data = tmp_path / "corpus.jsonl.gz", gzip.compress(big_corpus(), 1)
    code, stderr, after = fix_while(
        path, data, rewrite_same_size, ["--jobs", str(jobs)], in_process
    )
    assert path.read_bytes() == after, "what the other process wrote was lost"
    assert f"{path}: error: not written: the file changed while it was being fixed" in stderr
    assert code == 2, stderr
    assert_no_leftovers(tmp_path, ["corpus.jsonl.gz"])
