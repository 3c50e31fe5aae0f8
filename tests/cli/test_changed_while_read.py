"""A file replaced or rewritten while ``--jobs 2`` reads it: workers read the file the main
process opened, never another one put under its name, and bytes rewritten in place are an
error for the input, never findings (docs/cli.md#a-file-that-changes-while-it-is-read).

The change lands at one injected point, not by timing: just before the worker pool starts
(`cli.parallel.ProcessMapper._start`), that is after this process opened the corpus and cut
its first batches and before any process (a worker or this one) reads a batch's bytes. The
corpus is over the streaming threshold (`patchcore.pipeline.WHOLE_LIMIT`), so its batches are
read from the file by each process.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import toolpatch.cli.parallel
from tests.cli.test_concurrent_change import big_corpus, rewrite_same_size
from tests.helpers import run_main

#: What the test puts first in the file it changes: a line that moves every other one, so that
#: a batch read at the offsets of the original would start mid-line.
PREPENDED = json.dumps({"messages": [{"role": "user", "content": "moved"}]}).encode() + b"\n"


def renamed_over(path: Path) -> None:
    """Another file, its lines moved, renamed over ``path`` (as editors and agents save)."""
    other = path.with_name("other.tmp-by-test")
    other.write_bytes(PREPENDED + path.read_bytes())
    other.replace(path)


def rewritten_moved(path: Path) -> None:
    """The same file rewritten in place, its lines moved."""
    path.write_bytes(PREPENDED + path.read_bytes())


def run_while(
    args: list[str], path: Path, change: Callable[[Path], None] | None, pytest_: Any
) -> tuple[int, str, str]:
    """Run ``ARGS PATH`` in this process, making ``change`` to ``path`` just before the worker
    pool starts. Returns the exit code, stdout and stderr."""
    monkeypatch, capsys = pytest_
    real_start = toolpatch.cli.parallel.ProcessMapper._start
    changed: list[bool] = []

    def start(self: Any, workers: int) -> Any:
        if change is not None and not changed:
            change(path)
            changed.append(True)
        return real_start(self, workers)

    monkeypatch.setattr(toolpatch.cli.parallel.ProcessMapper, "_start", start)
    code = run_main([*args, "--isolated", "--jobs", "2", str(path)], monkeypatch)
    out, err = capsys.readouterr()
    assert change is None or changed, "the pool never started: " + err
    return code, out, err


@pytest.fixture
def in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str]]:
    return monkeypatch, capsys


@pytest.mark.slow  # a corpus past the streaming threshold, checked twice
@pytest.mark.skipif(sys.platform != "linux", reason="elsewhere workers open the name: an error")
def test_a_file_renamed_over_is_checked_as_it_was_opened(tmp_path: Path, in_process: Any) -> None:
    """On Linux the workers read the main process's descriptor (``/proc/PID/fd/N``): the run
    reports what the file held when it was opened, as if nothing had happened."""
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(big_corpus())
    expected = run_while(["check", "--output-format", "json"], path, None, in_process)
    assert expected[0] == 1, expected[2]  # the corpus has findings
    got = run_while(["check", "--output-format", "json"], path, renamed_over, in_process)
    assert path.read_bytes().startswith(PREPENDED), "the change was not made"
    assert got == expected


@pytest.mark.slow  # a corpus past the streaming threshold
@pytest.mark.parametrize(
    ("change", "said"),
    [
        (rewritten_moved, "its size went from {size:,} to {grown:,} bytes"),
        (rewrite_same_size, "its modification time changed"),
    ],
    ids=["moved", "same-size"],
)
def test_a_file_rewritten_in_place_is_an_error_not_findings(
    change: Callable[[Path], None], said: str, tmp_path: Path, in_process: Any
) -> None:
    """The bytes the main process identified are gone: the input is one located error (exit 2),
    not "invalid JSON" at valid lines, nor findings about bytes nobody checked."""
    path, data = tmp_path / "corpus.jsonl", big_corpus()
    path.write_bytes(data)
    code, out, err = run_while(["check"], path, change, in_process)
    reason = said.format(size=len(data), grown=len(PREPENDED) + len(data))
    expected = f"{path}: error: the file changed while toolpatch read it ({reason})"
    assert expected in err.splitlines(), err
    assert "invalid JSON" not in out + err
    assert code == 2, err


@pytest.mark.slow  # a corpus past the streaming threshold
def test_fix_never_writes_a_repair_of_bytes_it_did_not_check(
    tmp_path: Path, in_process: Any
) -> None:
    """``fix -o OUT``: the same-size rewrite keeps every line whole, so before the workers read
    the file the main process opened, the repair mixed the old file's fixes with the new one's
    bytes. Now the input is an error and OUT is never made."""
    path, data = tmp_path / "corpus.jsonl", big_corpus()
    path.write_bytes(data)
    out_path = tmp_path / "repaired.jsonl"
    code, _, err = run_while(["fix", "-o", str(out_path)], path, rewrite_same_size, in_process)
    assert f"{path}: error: the file changed while toolpatch read it" in err, err
    assert code == 2, err
    assert not out_path.exists()
    assert sorted(os.listdir(tmp_path)) == ["corpus.jsonl"]


# The reader itself (`cli.inputs.FileInput`, `cli.inputs.SharedFile`), in one process.


def test_a_read_after_a_same_size_rewrite_is_refused(tmp_path: Path) -> None:
    """Same size, same inode: the modification time alone tells the bytes are not the ones
    the file was opened with, and the read says so rather than return them."""
    from toolpatch.cli.inputs import InputChanged, Source

    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"x" * 10_000)
    with Source(str(path), path).opened() as opened:
        assert not isinstance(opened, Iterator)
        assert opened.read(0, 100) == b"x" * 100
        rewrite_same_size(path)
        with pytest.raises(InputChanged, match=r"read it \(its modification time changed\)$"):
            opened.read(100, 100)


@pytest.mark.parametrize("proc", [True, False], ids=["descriptor", "name"])
def test_a_shared_file_is_the_one_opened_or_an_error(
    proc: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another file renamed over the input: through the main process's descriptor (Linux) the
    reader gets the bytes opened; through the name (elsewhere, or without ``/proc``) it gets
    an error, never the other file's bytes."""
    from toolpatch.cli.inputs import InputChanged, Source

    if proc and sys.platform != "linux":
        pytest.skip("only Linux has /proc/PID/fd")
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"a" * 1_000)
    with Source(str(path), path).opened() as opened:
        assert not isinstance(opened, Iterator)
        shared = opened.shared()
        other = tmp_path / "other"
        other.write_bytes(b"b" * 1_000)
        other.replace(path)
        if proc:
            with shared.opened() as read:
                assert read.read(0, 10) == b"a" * 10
            return
        monkeypatch.setattr(sys, "platform", "not-linux")
        said = r"read it \(another file was put in its place\)$"
        with pytest.raises(InputChanged, match=said), shared.opened():
            pass
