"""``--jobs``: streamed batches spread over processes, results in input order.

Only a streamed input (a large JSON Lines corpus) goes through here; the pool is started on its
first batch, so small inputs, the pre-commit case, never pay for it. The jobs are the worker
processes; this one hands the batches out and takes their results in, reads the input and
writes the output. Batches are started a few at a time (a bounded window), so a corpus of any
size holds only the batches in flight.
"""

from __future__ import annotations

import gc
import itertools
import os
import select
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import patchcore
from patchcore import Batch

if TYPE_CHECKING:  # imported when a pool starts: most runs never need one
    from concurrent.futures import Future, ProcessPoolExecutor

    from patchcore import Mapper, Result

    from .inputs import FileInput, SharedFile

T = TypeVar("T")
R = TypeVar("R")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _worker_start(parent: int) -> None:
    """In each worker, first: Ctrl-C is left to the main process (which stops the pool),
    SIGTERM kills, and the worker dies with the main process ``parent`` (`_die_with`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(parent)


#: ``prctl`` option: the signal a process gets when its parent ends (Linux).
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """End this worker when the process ``parent`` ends, however it ends (``kill -9``
    included). A worker holds both ends of its task pipe, so it would never see the pipe
    close: left alone it would wait for work forever.

    Two ways, for the two ways workers start: Linux's parent-death signal (SIGKILL when the
    process that forked this one ends: the main process with the fork start method, the fork
    server with forkserver, which itself ends when the main process does), and a thread that
    waits for ``parent`` to end (on a pidfd where the system has one, else by polling) and
    then kills this process.
    """
    if sys.platform == "linux":
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc to call: the thread below remains
            pass
    threading.Thread(target=_watch, args=(parent,), name="watch-parent", daemon=True).start()


def _watch(parent: int) -> None:
    """Wait for ``parent`` to end, then kill this process at once (its work is for nobody)."""
    try:
        pidfd = os.pidfd_open(parent)
    except ProcessLookupError:  # already gone
        pidfd = None
    except (OSError, AttributeError):  # no pidfd here: poll
        while _alive(parent):
            time.sleep(_POLL_SECONDS)
        pidfd = None
    if pidfd is not None:
        # Readable once the process has ended. ``poll``, not ``select``: a worker may hold more
        # than 1,024 descriptors, which ``select`` refuses (the watcher would be gone).
        watcher = select.poll()
        watcher.register(pidfd, select.POLLIN)
        while not watcher.poll():
            pass
    os.kill(os.getpid(), signal.SIGKILL)


#: How often a worker without a pidfd looks whether the main process is still there.
_POLL_SECONDS = 0.5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, run by someone else (a reused pid): treat as alive
        return True
    return True


def _from_file(
    function: Callable[[Batch], R], file: SharedFile, offset: int, size: int, first_line: int
) -> R:
    """In a worker: read a batch from the file the main process opened (`SharedFile`: never
    another one put under its name), then run ``function`` on it."""
    with file.opened() as read:
        data = read.read(offset, size)
    return function(Batch(data, first_line, offset, size))


#: One unit of work: a function and its arguments (run in a worker, or in this process).
_Task = tuple[Callable[..., R], tuple[Any, ...]]


class ProcessMapper:
    """An ordered map over up to ``jobs`` worker processes, started on first use. This process
    takes no item itself: it reads the input, hands the items out, rebuilds the results and
    writes the output, which on a large corpus costs it about a fifth of a worker's time (the
    output's copy alone, 81 ms for the 157 MB LangChain bench corpus). Taking every other item
    as well made it the slowest job by that much, and its executor's threads, which feed the
    workers, waited on it for the interpreter lock: two workers beside it did the corpus in
    0.61 s, against 0.66 s with one worker and this process taking its half
    (docs/benchmarks.md#latest-run). No more workers start than there are items to share (a
    3-batch file under ``-j100`` starts three; one batch, none: it is processed here): the
    first ``jobs`` items are looked at before the pool starts. Close it when done."""

    def __init__(self, jobs: int) -> None:
        assert jobs > 1, "one job needs no pool"
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._workers = 0
        """How many workers the pool has."""

    def __call__(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        return self._ordered(lambda item: (function, (item,)), items)

    def reading(self, file: FileInput) -> Mapper:
        """The same map over batches of the regular file ``file``: each worker reads its
        batch from the file (the page cache) instead of receiving it through a pipe, which
        would cost this process as much as the work saves. Each reads the file this process
        opened, and checks that it is still what it was (`cli.inputs.SharedFile`)."""
        shared = file.shared()

        def mapper(
            function: Callable[[Batch], Result], batches: Iterable[Batch]
        ) -> Iterator[Result]:
            def task(batch: Batch) -> _Task[Result]:
                if batch.data is not None:  # already read (the input is not a file)
                    return function, (batch,)
                return _from_file, (function, shared, batch.offset, batch.size, batch.first_line)

            return self._ordered(task, batches)

        return mapper

    def _ordered(self, task: Callable[[T], _Task[R]], items: Iterable[T]) -> Iterator[R]:
        """Start ``items`` a few at a time and yield results in order.

        Two items per worker are in flight: while this process hands a result on, each
        worker has the next one queued, so that none waits for a submit.
        """
        items = iter(items)
        first = list(itertools.islice(items, self.jobs))
        if len(first) < 2:  # one item at most (the rest is empty): no pool for it
            for item in first:
                function, arguments = task(item)
                yield function(*arguments)
            return
        pool = self._start(len(first))
        window: deque[Future[R]] = deque()
        for item in itertools.chain(first, items):
            function, arguments = task(item)
            window.append(pool.submit(function, *arguments))
            if len(window) > 2 * self._workers:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()

    def _start(self, workers: int) -> ProcessPoolExecutor:
        """The pool, with at least ``workers`` workers where it had fewer (an earlier input
        had fewer batches: its pool, idle between inputs, is replaced)."""
        if self._pool is not None and self._workers < workers:
            self.close()
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # A streamed corpus needs the whole engine: imported before the workers fork, it is
            # theirs at once, instead of each importing it on its first record with a defect.
            patchcore.load_engine()

            # Linux: fork, so workers start at once with everything already imported (the
            # pool forks all its workers before it starts a thread of its own), unless a thread
            # runs already (a progress display): then forkserver, as forking a process with
            # threads can deadlock the child. Elsewhere the platform's default (spawn).
            method = None
            if sys.platform == "linux":
                method = "fork" if threading.active_count() == 1 else "forkserver"
            # What is alive now stays alive: out of the collector's sight, a forked worker's
            # collections do not touch (and so copy) every page it shares with this process.
            gc.freeze()
            self._workers = workers
            self._pool = ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context(method),
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self) -> None:
        """Stop the workers; batches not started yet are dropped (after an error or Ctrl-C)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
