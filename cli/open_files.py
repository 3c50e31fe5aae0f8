"""Which files some process holds open for writing: the evidence that an agent session log is
still being appended to, whatever the age of its last entry (docs/cli.md#live-sessions).

On Linux each process's open files are under ``/proc``: ``/proc/PID/fd/N`` is a link to the
file (its device and inode, by ``stat``), and ``/proc/PID/fdinfo/N`` gives the flags it was
opened with (``O_WRONLY`` or ``O_RDWR``: for writing). Only the processes this one may look at
are seen (its own user's, or every one as root), which includes the agent its user runs.
Elsewhere (no ``/proc``), nothing is seen and the clock alone decides.
"""

from __future__ import annotations

import os
import stat

#: Where the processes' open files are listed.
PROC = "/proc"

#: The access mode bits of a descriptor's flags, and the modes that write.
_ACCESS_MODE = 0o3
_WRITING = (os.O_WRONLY, os.O_RDWR)


class OpenForWriting:
    """The files held open for writing by some process, listed once, when first asked (one
    look over ``/proc`` for a run, however many inputs it has), by device and inode.

    The look finds every regular file open in a process (a ``stat`` of each descriptor);
    whether a descriptor was opened for writing is read only for the files asked about, as most
    of a machine's open files are not an input of the run (on a busy machine reading every
    regular file's flags was a third of the look, paid by every run)."""

    def __init__(self, proc: str = PROC) -> None:
        self._proc = proc
        self._open: dict[tuple[int, int], list[tuple[int, str]]] | None = None

    def holders(self, status: os.stat_result) -> tuple[int, ...]:
        """The processes (ids) that hold the file of ``status`` open for writing. A process
        that ends, or that may not be looked at, while it is read is passed over."""
        if self._open is None:
            self._open = _scan(self._proc)
        found: list[int] = []
        for pid, fdinfo in self._open.get((status.st_dev, status.st_ino), ()):
            try:
                writes = _writes(fdinfo)
            except (OSError, ValueError):
                continue
            if writes and pid not in found:
                found.append(pid)
        return tuple(found)


def _scan(proc: str) -> dict[tuple[int, int], list[tuple[int, str]]]:
    """Each regular file open in some process (device, inode), with the process and the
    ``fdinfo`` file of each descriptor that holds it; nothing where there is no ``proc`` (not
    Linux). A process that ends, or that may not be looked at, while it is read is passed
    over."""
    found: dict[tuple[int, int], list[tuple[int, str]]] = {}
    try:
        processes = [entry.name for entry in os.scandir(proc) if entry.name.isdigit()]
    except OSError:
        return found
    for pid in processes:
        fds = f"{proc}/{pid}/fd"
        try:
            descriptors = [entry.name for entry in os.scandir(fds)]
        except OSError:
            continue
        for fd in descriptors:
            try:
                status = os.stat(f"{fds}/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(status.st_mode):  # most descriptors are pipes and sockets
                found.setdefault((status.st_dev, status.st_ino), []).append(
                    (int(pid), f"{proc}/{pid}/fdinfo/{fd}")
                )
    return found


def _writes(fdinfo: str) -> bool:
    """Whether the descriptor ``fdinfo`` describes was opened for writing (its ``flags:``
    line, in octal).

    Raises:
        OSError: It is gone, or may not be read.
        ValueError: It has no flags line that parses.
    """
    with open(fdinfo, encoding="ascii") as info:
        for line in info:
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & _ACCESS_MODE in _WRITING
    msg = f"{fdinfo}: no flags"
    raise ValueError(msg)
