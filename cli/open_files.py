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
    look over ``/proc`` for a run, however many inputs it has), by device and inode."""

    def __init__(self, proc: str = PROC) -> None:
        self._proc = proc
        self._holders: dict[tuple[int, int], list[int]] | None = None

    def holders(self, status: os.stat_result) -> tuple[int, ...]:
        """The processes (ids) that hold the file of ``status`` open for writing."""
        if self._holders is None:
            self._holders = _scan(self._proc)
        return tuple(self._holders.get((status.st_dev, status.st_ino), ()))


def _scan(proc: str) -> dict[tuple[int, int], list[int]]:
    """Each file open for writing (device, inode) and the processes holding it; nothing where
    there is no ``proc`` (not Linux). A process that ends, or that may not be looked at, while
    it is read is passed over."""
    found: dict[tuple[int, int], list[int]] = {}
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
                # Most descriptors are pipes and sockets: only a regular file's flags are read.
                if not stat.S_ISREG(status.st_mode) or not _writes(f"{proc}/{pid}/fdinfo/{fd}"):
                    continue
            except (OSError, ValueError):
                continue
            holders = found.setdefault((status.st_dev, status.st_ino), [])
            if int(pid) not in holders:
                holders.append(int(pid))
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
