"""A store fix writes each thread in one transaction with its re-check
(docs/stores.md#langgraph): two ``toolpatch fix`` processes over the same store at once never
write two repairs of one thread (no thread forks), and a write that fails leaves the database
as ``check`` reads it.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import run, run_process
from tests.stores import Saver, clone_thread, forked_threads, postgres_url, store, stuck_thread

__all__ = ["postgres_url", "store"]  # the fixtures, used by name

#: Threads enough for two fixes at once to meet on some (before the fix, 50 to 190 of 2,000
#: threads forked on either backend).
THREADS = 1000


@pytest.mark.slow
def test_two_fixes_at_once_never_fork_a_thread(store: tuple[str, Saver], tmp_path: Path) -> None:
    url, saver = store
    with saver() as checkpointer:
        stuck_thread(checkpointer, "stuck")
        clone_thread(checkpointer, "stuck", THREADS - 1)
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run_process, ["fix", url], cwd=tmp_path, timeout=300) for _ in "ab"]
        both = [ran.result() for ran in runs]
    for ran in both:
        assert ran.code in (0, 2), ran.show()
        for line in ran.stderr.splitlines():  # each thread: fixed, or found moved by the other
            assert (
                line.startswith("Fixed")
                or "changed while toolpatch worked" in line
                or "could not be processed" in line  # "1 thread ..." or "2 threads ..."
            ), ran.show()
    with saver() as checkpointer:
        assert forked_threads(checkpointer) == 0
    run(["check", url], cwd=tmp_path, expect=0)


@pytest.mark.slow
def test_two_fixes_at_once_never_answer_a_session_call_twice(tmp_path: Path) -> None:
    """The same for an Agents SDK session database: each session is read again and appended
    to in one transaction, so no call gets two outputs (before, 627 of 1,000 sessions did)."""
    from tests.stores import stuck_session

    stuck_session(tmp_path / "conversations.db", "stuck")
    with closing(sqlite3.connect(tmp_path / "conversations.db")) as conn:
        for i in range(THREADS - 1):
            conn.execute("INSERT INTO agent_sessions (session_id) VALUES (?)", (f"stuck-{i}",))
            conn.execute(
                "INSERT INTO agent_messages (session_id, message_data) SELECT ?, message_data "
                "FROM agent_messages WHERE session_id = 'stuck' ORDER BY id",
                (f"stuck-{i}",),
            )
        conn.commit()
    url = "agents+sqlite:///conversations.db"
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(run_process, ["fix", url], cwd=tmp_path, timeout=300) for _ in "ab"]
        assert all(ran.result().code in (0, 2) for ran in runs)
    with closing(sqlite3.connect(tmp_path / "conversations.db")) as conn:
        rows = conn.execute("SELECT session_id, message_data FROM agent_messages").fetchall()
    outputs = [
        (session, item["call_id"])
        for session, item in ((s, json.loads(data)) for s, data in rows)
        if item.get("type") == "function_call_output"
    ]
    assert len(outputs) == len(set(outputs)) == THREADS
    run(["check", url], cwd=tmp_path, expect=0)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a filesystem of its own, 8 MiB (an ext4 image mounted on a loop device), to
    fill; skips where mounting is not allowed (not root), fails in CI."""
    image, folder = tmp_path / "disk.img", tmp_path / "disk"
    with image.open("wb") as made:
        made.truncate(8 << 20)
    folder.mkdir()
    subprocess.run(["mkfs.ext4", "-q", str(image)], check=True, capture_output=True)
    mounted = subprocess.run(["mount", "-o", "loop", str(image), str(folder)], capture_output=True)
    if mounted.returncode:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a loop device in CI: {mounted.stderr.decode()}")
        pytest.skip(f"cannot mount a loop device here: {mounted.stderr.decode()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def fill(folder: Path, *, leave: int) -> Path:
    """Fill ``folder``'s filesystem, root's reserve included, but ``leave`` bytes."""
    filler = folder / "filler"
    with filler.open("wb") as written:
        try:
            while True:
                written.write(b"x" * 4096)
                written.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    os.truncate(filler, filler.stat().st_size - leave)
    return filler


def files(folder: Path) -> dict[str, bytes]:
    """The database's files in ``folder``, by name, as stored."""
    return {p.name: p.read_bytes() for p in folder.glob("threads.sqlite*")}


@pytest.mark.slow
@pytest.mark.parametrize("leave", [0, 40_000])
def test_a_full_disk_during_fix_leaves_a_database_check_reads(small_disk: Path, leave: int) -> None:
    """The disk fills up during ``fix`` (or before it could open the database): whatever the
    fix managed to write or not, the next ``check`` reads the database (the threads fixed
    clean, the others still reported), writing nothing, on the full disk; once there is room,
    ``fix`` finishes the job."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(small_disk / "threads.sqlite", check_same_thread=False)
    stuck_thread(SqliteSaver(conn), "stuck")
    clone_thread(SqliteSaver(conn), "stuck", 29)
    conn.close()
    assert set(files(small_disk)) == {"threads.sqlite"}
    url = f"langgraph+sqlite:///{small_disk / 'threads.sqlite'}"
    filler = fill(small_disk, leave=leave)
    fixed = run_process(["fix", url], cwd=small_disk)
    # SQLite itself may die of SIGBUS when its shared memory cannot be allocated
    assert fixed.code in (2, -signal.SIGBUS), fixed.show()
    before = files(small_disk)
    checked = run_process(["check", "--output-format", "json", url], cwd=small_disk)
    assert checked.code == 1, checked.show()
    found = {r["file"] for r in json.loads(checked.stdout) if r["kind"] == "finding"}
    assert 0 < len(found) <= 30
    assert files(small_disk) == before  # check wrote nothing
    filler.unlink()
    run_process(["fix", url], cwd=small_disk, expect=0)
    run_process(["check", url], cwd=small_disk, expect=0)


def test_a_database_an_application_holds_open_is_read_through_its_log(tmp_path: Path) -> None:
    """An application has the database open and writes on (its checkpoints still in the
    ``-wal`` file): ``check`` reads them through the log and its writer's ``-shm`` index,
    each time as they are now, and writes neither file
    (docs/stores.md#what-reading-does-to-a-database)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    app = sqlite3.connect(tmp_path / "threads.sqlite", check_same_thread=False)
    try:
        stuck_thread(SqliteSaver(app), "first")
        assert (tmp_path / "threads.sqlite-wal").stat().st_size > 0
        url = "langgraph+sqlite:///threads.sqlite"
        for threads in (["first"], ["first", "second"]):
            if len(threads) == 2:
                stuck_thread(SqliteSaver(app), "second")
            before = files(tmp_path)
            checked = run_process(["check", "--output-format", "json", url], cwd=tmp_path)
            assert checked.code == 1, checked.show()
            found = [r["file"] for r in json.loads(checked.stdout) if r["kind"] == "finding"]
            assert found == [f"{url}#{t}" for t in threads]
            assert files(tmp_path) == before
    finally:
        app.close()
