"""Failure injection around the in-place write (docs/cli.md#writing).

A repaired file is written to a temporary file in its own folder, fsynced and renamed over the
original. Whatever goes wrong on the way (the file or its folder is read-only, the disk is full,
the process is interrupted or terminated) the original must be left exactly as it was and no
temporary file may stay behind; the exit code is 2 (130 after Ctrl-C, 143 after SIGTERM).
Several files: the others are still repaired. A symlink is written through to its target and
stays a link.

The tests run as root here. Root may write anything, so:

* a read-only *file* is refused by toolpatch itself, from its permission bits (tested as is);
* a read-only *folder* would not stop root: the CLI subprocess runs with CAP_DAC_OVERRIDE and
  CAP_DAC_READ_SEARCH dropped from its capability bounding set (``prctl(PR_CAPBSET_DROP)`` in a
  ``preexec_fn``), so the kernel checks the folder's bits as for anyone. ``setuid(nobody)`` does
  not work on this machine: the venv's interpreter lives under ``/root`` (mode 0700). When the
  tests do not run as root, nothing needs dropping. The same failure is also injected
  in-process (``os.open`` of an ``O_TMPFILE`` file, or of the named fallback's file,
  raising ``PermissionError``). The error says that the folder is not writable.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.helpers import MODULE, Result, clean_env, run, run_main, run_process
from tests.robustness import Snapshot, assert_no_leftovers, dangling_history, listing, where

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE = 1
CAP_DAC_READ_SEARCH = 2


def history_bytes(call_id: str = "call_1", padding: int = 0) -> bytes:
    """A pretty-printed history with one dangling call (and ``padding`` bytes of text)."""
    history = dangling_history(call_id)
    if padding:
        history[0]["content"] = "p" * padding
    return json.dumps(history, indent=2).encode() + b"\n"


def repaired(data: bytes) -> bytes:
    """What a successful fix writes (computed in-process)."""
    output = patchcore.fix_document(data).output
    assert output is not None
    return output


def run_as(argv: list[str], cwd: Path, preexec: Callable[[], None]) -> Result:
    """Run the CLI with a ``preexec_fn`` (limits, capabilities) applied in the child."""
    return run_process(argv, cwd=cwd, env=clean_env(PYTHONDONTWRITEBYTECODE="1"), preexec=preexec)


def drop_dac_override() -> None:
    """In the child: lose root's power to ignore permission bits (no-op for other users)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def assert_write_error(result: Result, name: str) -> None:
    """Exit 2 and one located ``cannot write`` error line for ``name``."""
    assert result.code == 2, result.show()
    errors = [line for line in result.stderr_lines if ": error: " in line]
    assert len(errors) == 1, result.show()
    assert errors[0].startswith(f"{name}: error: cannot write"), result.show()


# --------------------------------------------------------------------------------------------
# Read-only file and folder
# --------------------------------------------------------------------------------------------


def test_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(history_bytes())
    path.chmod(0o444)
    before = Snapshot.of(path)
    result = run(["fix", "history.json"], cwd=tmp_path, expect=2)
    assert_write_error(result, "history.json")
    assert "read-only" in result.stderr, result.show()
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["history.json"])


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder (mode 0555) holding a writable file with a dangling call."""
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "history.json").write_bytes(history_bytes())
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


def assert_folder_not_writable(stderr: str, name: str, folder: Path) -> None:
    """The error says it is the folder (not the file) that cannot be written, and why it
    matters: the atomic write creates a new file beside the original."""
    expected = (
        f"{name}: error: cannot write {name}: the folder {folder.resolve()} is not writable "
        "(Permission denied): a fix writes the repair to a new file beside the original and "
        "renames it over it"
    )
    assert expected in stderr.splitlines(), stderr


def test_read_only_folder_in_a_subprocess(read_only_folder: Path) -> None:
    path = read_only_folder / "history.json"
    before = Snapshot.of(path)
    result = run_as(["fix", "history.json"], read_only_folder, drop_dac_override)
    assert_write_error(result, "history.json")
    assert_folder_not_writable(result.stderr, "history.json", read_only_folder)
    before.assert_untouched(path)
    assert_no_leftovers(read_only_folder, ["history.json"])


@pytest.mark.parametrize("temporary", ["anonymous", "named"])
def test_read_only_folder_in_process(
    temporary: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The folder refuses the temporary file, whichever kind: the anonymous one (``O_TMPFILE``)
    or the named one of the fallback."""
    import toolpatch.integrations.file_io

    path = tmp_path / "history.json"
    path.write_bytes(history_bytes())
    before = Snapshot.of(path)
    refused: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> tuple[int, str]:
        refused.append(temporary)
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))

    real_open = os.open
    # The named file is created under its usual name (O_EXCL), the anonymous one with O_TMPFILE.
    flag = os.O_EXCL if temporary == "named" else getattr(os, "O_TMPFILE", 0)

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & flag == flag:
            refuse()
        return real_open(path, flags, *args, **kwargs)

    if temporary == "named":
        monkeypatch.setattr(toolpatch.integrations.file_io, "ANONYMOUS_FILES", False)
    elif not toolpatch.integrations.file_io.ANONYMOUS_FILES:
        pytest.skip("this system has no anonymous temporary files (O_TMPFILE)")
    monkeypatch.setattr(os, "open", open_)
    code = run_main(["fix", str(path)], monkeypatch)
    stderr = capsys.readouterr().err
    assert refused == [temporary], stderr
    assert code == 2, stderr
    assert_folder_not_writable(stderr, str(path), tmp_path)
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["history.json"])


# --------------------------------------------------------------------------------------------
# Full disk
# --------------------------------------------------------------------------------------------

FILE_SIZE_LIMIT = 16 * 1024


def file_size_limit(limit: int) -> Callable[[], None]:
    """For the child: no file may grow beyond ``limit`` bytes, and the write fails with EFBIG
    (instead of SIGXFSZ killing the process)."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limited


@pytest.mark.parametrize(
    ("padding", "limit"),
    [
        (4 * FILE_SIZE_LIMIT, FILE_SIZE_LIMIT),
        # Found by the audit: a repair smaller than the write buffer fails only when it is
        # flushed, and closing the temporary file flushed (and failed) again, so it stayed.
        (2000, 1024),
    ],
    ids=["large", "smaller-than-the-buffer"],
)
def test_full_disk_leaves_the_original(tmp_path: Path, padding: int, limit: int) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(history_bytes(padding=padding))
    before = Snapshot.of(path)
    result = run_as(["fix", "history.json"], tmp_path, file_size_limit(limit))
    assert_write_error(result, "history.json")
    assert "File too large" in result.stderr, result.show()
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["history.json"])


class _FullDisk:
    """A file object whose every write fails with ENOSPC."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


def test_no_space_left_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "history.json"
    path.write_bytes(history_bytes())
    before = Snapshot.of(path)
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k)))
    code = run_main(["fix", str(path)], monkeypatch)
    stderr = capsys.readouterr().err
    assert code == 2, stderr
    assert "cannot write" in stderr and "No space left on device" in stderr, stderr
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["history.json"])


# --------------------------------------------------------------------------------------------
# Interrupts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "exit_code", "said"),
    [("SIGINT", 130, "toolpatch: interrupted"), ("SIGTERM", 143, "toolpatch: terminated")],
)
@pytest.mark.parametrize("step", ["fsync", "chmod", "replace"])
def test_interrupt_during_the_write(
    step: str,
    how: str,
    exit_code: int,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C (KeyboardInterrupt) or SIGTERM (to this very process, handled by toolpatch) at
    each step before the rename completes: exit 130 or 143, as shells report those signals."""
    path = tmp_path / "history.json"
    path.write_bytes(history_bytes())
    before = Snapshot.of(path)
    reached: list[str] = []

    def interrupt(*args: Any, **kwargs: Any) -> None:
        reached.append(step)
        if how == "SIGTERM":
            os.kill(os.getpid(), signal.SIGTERM)  # the handler raises here
        raise KeyboardInterrupt

    monkeypatch.setattr(os, step, interrupt)  # integrations.file_io calls os.<step>
    code = run_main(["fix", str(path)], monkeypatch)
    stderr = capsys.readouterr().err
    assert reached == [step], f"os.{step} was never called by the write"
    # The file first: a wrong exit code must not hide a lost original.
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["history.json"])
    assert "Traceback" not in stderr, stderr
    assert code == exit_code and stderr.endswith(said + "\n"), (
        f"{how} must end with exit code {exit_code} and say so; got {code}, stderr {stderr!r}"
    )


BIG = 50 * 1024 * 1024


@pytest.fixture(scope="module")
def big_history() -> tuple[bytes, bytes]:
    """A 50 MB history with one dangling call, and its repair."""
    data = history_bytes(padding=BIG)
    return data, repaired(data)


@pytest.mark.slow
def test_sigterm_at_random_moments(big_history: tuple[bytes, bytes], tmp_path: Path) -> None:
    """SIGTERM during start-up, parsing, writing or after: the file is the original or the
    complete repair, never anything in between, and no temporary file is left."""
    original, fixed = big_history
    path = tmp_path / "big.json"
    rng = random.Random(20261202)

    path.write_bytes(original)
    started = time.monotonic()
    run(["fix", "big.json"], cwd=tmp_path, expect=0)
    duration = time.monotonic() - started
    assert path.read_bytes() == fixed, "the uninterrupted run did not write the repair"

    outcomes: list[tuple[float, int, str]] = []
    messages: list[str] = []
    # Three moments anywhere in the run (start-up, reading, parsing), seven in its last 40 %,
    # where the temporary file is written, fsynced and renamed.
    moments = [rng.uniform(0, 0.6) for _ in range(3)] + [rng.uniform(0.6, 1.05) for _ in range(7)]
    for moment in moments:
        path.write_bytes(original)
        delay = duration * moment
        process = subprocess.Popen(
            [*MODULE, "fix", "big.json"],
            cwd=tmp_path,
            env=clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(delay)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
        now = path.read_bytes()
        state = "original" if now == original else "repaired" if now == fixed else "CORRUPT"
        outcomes.append((round(delay, 3), process.returncode, state))
        messages.append(err.decode("utf-8", "replace"))
        # The file and the folder are checked at once: a later attempt rewrites the file.
        assert state != "CORRUPT", f"after SIGTERM at {delay:.3f}s the file is neither: {outcomes}"
        assert path.is_file() and not path.is_symlink()
        assert_no_leftovers(tmp_path, ["big.json"])
    print("SIGTERM outcomes (delay s, exit code, file):", outcomes)
    # Killed before the handler is installed (-15), finished (0), or terminated cleanly (143).
    # Exit codes are checked after every attempt ran, so that a wrong code does not hide a
    # corrupt file in a later attempt.
    for (delay, code, state), stderr in zip(outcomes, messages, strict=True):
        assert "Traceback" not in stderr, stderr
        assert code in (0, 143, -signal.SIGTERM), (
            f"SIGTERM at {delay}s: exit code {code} (file {state}), stderr {stderr!r}; "
            f"all outcomes: {outcomes}"
        )
        if code == 143:
            assert stderr.endswith("toolpatch: terminated\n"), stderr


# --------------------------------------------------------------------------------------------
# Several files, symlinks, modes
# --------------------------------------------------------------------------------------------


def test_one_unwritable_file_does_not_stop_the_others(tmp_path: Path) -> None:
    names = ["a.json", "b.json", "c.json"]
    datas = {name: history_bytes(f"call_{name[0]}") for name in names}
    for name, data in datas.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "b.json").chmod(0o444)
    before = Snapshot.of(tmp_path / "b.json")

    result = run(["fix", *names], cwd=tmp_path, expect=2)
    assert_write_error(result, "b.json")
    for name in ("a.json", "c.json"):
        assert (tmp_path / name).read_bytes() == repaired(datas[name]), result.show()
        assert f"Fixed {name}" in result.stderr, result.show()
    before.assert_untouched(tmp_path / "b.json")
    assert_no_leftovers(tmp_path, names)


def test_one_broken_file_in_a_folder_does_not_stop_the_others(tmp_path: Path) -> None:
    folder = tmp_path / "histories"
    folder.mkdir()
    good = {
        "a.json": history_bytes("call_a"),
        "c.jsonl": json.dumps({"messages": dangling_history("call_c")}).encode() + b"\n",
    }
    for name, data in good.items():
        (folder / name).write_bytes(data)
    broken = b'[{"role": "user", "content": "cut'
    (folder / "b.json").write_bytes(broken)
    before = Snapshot.of(folder / "b.json")

    result = run(["fix", "histories"], cwd=tmp_path, expect=2)
    errors = [line for line in result.stderr_lines if ": error: " in line]
    line, column = where(broken, broken.rindex(b'"'))
    expected = (
        f"histories/b.json:{line}:{column}: error: invalid JSON: unterminated string "
        "(its closing quote is missing)"
    )
    assert errors == [expected], result.show()
    for name, data in good.items():
        assert (folder / name).read_bytes() == repaired(data), result.show()
    before.assert_untouched(folder / "b.json")
    assert_no_leftovers(folder, ["a.json", "b.json", "c.jsonl"])


def test_symlink_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real"
    links = tmp_path / "links"
    real.mkdir()
    links.mkdir()
    target = real / "history.json"
    data = history_bytes()
    target.write_bytes(data)
    target.chmod(0o640)
    link = links / "history.json"
    link.symlink_to(Path("..") / "real" / "history.json")

    result = run(["fix", "links/history.json"], cwd=tmp_path, expect=0)
    assert link.is_symlink(), "the symlink was replaced by a file" + result.show()
    assert os.readlink(link) == os.path.join("..", "real", "history.json")
    assert target.read_bytes() == repaired(data), result.show()
    assert target.stat().st_mode & 0o777 == 0o640, "the target's mode was not kept"
    assert_no_leftovers(real, ["history.json"])
    assert_no_leftovers(links, ["history.json"])


def test_symlink_to_a_read_only_file(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(history_bytes())
    target.chmod(0o444)
    link = tmp_path / "link.json"
    link.symlink_to("target.json")
    before = Snapshot.of(target)
    result = run(["fix", "link.json"], cwd=tmp_path, expect=2)
    assert_write_error(result, "link.json")
    assert link.is_symlink()
    before.assert_untouched(target)
    assert listing(tmp_path) == {"target.json", "link.json"}


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o755])
def test_mode_is_kept(mode: int, tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    data = history_bytes()
    path.write_bytes(data)
    path.chmod(mode)
    run(["fix", "history.json"], cwd=tmp_path, expect=0)
    assert path.read_bytes() == repaired(data)
    assert path.stat().st_mode & 0o7777 == mode
    assert_no_leftovers(tmp_path, ["history.json"])


# --------------------------------------------------------------------------------------------
# An input that changes while it is read
# --------------------------------------------------------------------------------------------


def test_a_file_that_shrinks_while_it_is_read_is_an_error(tmp_path: Path) -> None:
    """A streamed file is read piece by piece where it is processed (`cli.inputs.FileInput`):
    one cut short meanwhile is an error to report (read with ``pread``, not mapped into memory,
    where a vanished page would kill the process), never a short or mixed output."""
    from toolpatch.cli.inputs import Source

    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"x" * 10_000)
    with Source(str(path), path).opened() as opened:
        assert not isinstance(opened, Iterator)
        assert opened.read(9_000, 500) == b"x" * 500
        os.truncate(path, 4_000)
        expected = r"the file changed while toolpatch read it \(its size went from 10,000 to 4,000"
        with pytest.raises(OSError, match=expected):
            opened.read(3_000, 2_000)


def test_an_interrupt_during_an_import_exits_with_code_130() -> None:
    """Found by the SIGTERM test: an interrupt that passed through ``exec()`` (a dataclass made
    while a module is imported, which lazy imports do after the handler is installed) ended
    ``python -m toolpatch`` by SIGINT (-2) although toolpatch caught it and chose its exit code."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.interrupt_probe"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=Path(__file__).parents[2],
        check=False,
    )
    assert result.returncode == 130, (result.returncode, result.stderr)
    assert result.stderr == "toolpatch: interrupted\n"


@pytest.mark.parametrize("kernel", ["copies nothing", "cannot copy"])
def test_what_the_kernel_cannot_copy_is_written_through_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """Unchanged ranges of a streamed file are copied file to file by the kernel where it can;
    between files it cannot copy (another file system, a kernel without the call) the rest is
    read and written here, and the output is the same."""
    import toolpatch.integrations.file_io
    from toolpatch.cli.inputs import FileInput
    from toolpatch.cli.output_sinks import ReplacedFile

    def refuse(source: int, target: int, offset: int, size: int) -> int:
        if kernel == "cannot copy":
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        return 0

    monkeypatch.setattr(toolpatch.integrations.file_io, "_KERNEL_COPIES", (refuse,))
    source = tmp_path / "in.jsonl"
    source.write_bytes(bytes(range(256)) * 40_000)
    target = tmp_path / "out.jsonl"
    fd = os.open(source, os.O_RDONLY)
    try:
        with ReplacedFile(target, in_place=False) as sink:
            sink.write(b"new ")
            sink.copy(FileInput(fd, str(source)), 1_000, 9_000_000)
            sink.finish(changed=True, emit=lambda data: None)
    finally:
        os.close(fd)
    assert target.read_bytes() == b"new " + source.read_bytes()[1_000:9_001_000]


@pytest.mark.parametrize("in_place", [True, False], ids=["in place", "an output file"])
def test_a_large_repair_in_place_is_written_out_as_it_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_place: bool
) -> None:
    """In place, every `WRITEBACK_BYTES` appended (written or copied by the kernel), the kernel
    is asked to start writing the new file to disk, so that the fsync before the rename waits
    for the last part only, and the folder is synced after the rename: the file was the only
    copy of what it held. An output file (``-o``) can be made again from its input: it is
    neither waited for nor written out early (docs/cli.md#writing). The bytes are the same."""
    import toolpatch.integrations.file_io
    from toolpatch.cli.inputs import FileInput
    from toolpatch.cli.output_sinks import ReplacedFile

    steps: list[str] = []
    start_writeback = toolpatch.integrations.file_io._start_writeback
    real_fsync = os.fsync

    def writeback(fd: int) -> None:
        steps.append(f"writeback at {os.fstat(fd).st_size}")
        start_writeback(fd)  # the real call: it must accept the file

    def fsync(fd: int) -> None:
        steps.append("fsync")
        real_fsync(fd)

    monkeypatch.setattr(toolpatch.integrations.file_io, "WRITEBACK_BYTES", 2**20)
    monkeypatch.setattr(toolpatch.integrations.file_io, "_start_writeback", writeback)
    monkeypatch.setattr(os, "fsync", fsync)
    source = tmp_path / "in.jsonl"
    source.write_bytes(bytes(range(256)) * 12_000)  # 3,072,000 bytes
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"what was there")
    fd = os.open(source, os.O_RDONLY)
    try:
        with ReplacedFile(target, in_place=in_place) as sink:
            sink.write(b"x" * 1_500_000)
            sink.copy(FileInput(fd, str(source)), 0, 3_072_000)
            sink.write(b"y" * 100)
            sink.finish(changed=True, emit=lambda data: None)
    finally:
        os.close(fd)
    assert target.read_bytes() == b"x" * 1_500_000 + source.read_bytes() + b"y" * 100
    if in_place:  # the file is synced, then (after the rename) its folder
        assert steps == ["writeback at 1500000", "writeback at 4572000", "fsync", "fsync"]
    else:
        assert steps == []
    if sys.platform == "linux":
        assert toolpatch.integrations.file_io._sync_file_range() is not None
