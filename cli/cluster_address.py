"""``--dask ADDRESS``, read and checked as the command line is parsed
(docs/large-corpora.md#on-a-cluster-from-the-command-line): an address that is not one of the
forms below is a usage error at once, before an input is listed or Dask is imported (``Client``
given an odd address raised, then left threads that held the exit for 20 s and a traceback).

- ``tcp://HOST:PORT``, ``tls://HOST:PORT``: a running scheduler (a host name, an IPv4 address
  or a bracketed IPv6 one, and a port from 1 to 65535; nothing else in the URL);
- ``local``, ``local:N``: a cluster of worker processes started here, bounded as ``--jobs`` is
  (`ClusterAddress.local_workers`): never more than the cores this process may run on, nor than
  the tasks the inputs may keep busy at once (an input each, a large file's batches each).
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: A scheduler's address: its protocol, host and port.
_SCHEDULER = re.compile(
    r"(?P<scheme>tcp|tls)://(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
    r":(?P<port>[0-9]{1,5})"
)
#: A local cluster, of N worker processes.
_LOCAL = re.compile(r"local(?::(?P<workers>[0-9]{1,9}))?")

#: What the forms are, for the usage error.
FORMS = "tcp://HOST:PORT or tls://HOST:PORT (a scheduler), local or local:N (N worker processes)"


class ClusterAddress(NamedTuple):
    """Where ``--dask`` runs the inputs.

    Attributes:
        scheduler: The scheduler's address (``tcp://host:port``); ``None``: a local cluster.
        workers: ``local:N``'s N (``None``: one per core); ``None`` for a scheduler.
    """

    scheduler: str | None
    workers: int | None = None

    def local_workers(self, tasks: int) -> int:
        """How many worker processes a local cluster starts for ``tasks`` tasks that may run
        at once (an input each, a large file's batches each): N (or one per core), never more
        than the cores nor than the tasks, at least one."""
        from .parallel import available_cores

        cores = available_cores()
        return max(1, min(self.workers or cores, cores, tasks))


def cluster_address(given: str) -> ClusterAddress:
    """The ``--dask`` value ``given``, checked.

    Raises:
        ValueError: It is none of the `FORMS` (Typer makes it a usage error of ``--dask``).
    """
    local = _LOCAL.fullmatch(given)
    if local is not None:
        count = local.group("workers")
        if count is not None and int(count) < 1:
            msg = f"local:N takes a number of worker processes, 1 or more, not {count!r}"
            raise ValueError(msg)
        return ClusterAddress(None, int(count) if count is not None else None)
    scheduler = _SCHEDULER.fullmatch(given)
    if scheduler is None or not 1 <= int(scheduler.group("port")) <= 65535:
        msg = f"{given!r} is not a cluster's address: expected {FORMS}"
        raise ValueError(msg)
    return ClusterAddress(given)
