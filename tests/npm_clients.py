"""Real clients from the npm registry, for the tests that resume a repair in the client itself.

A repair is judged by what the agent does next (docs/formats.md says which clients are run), so
the conformance tests install the clients their users run (Claude Code, Codex CLI, the AI SDK,
...) at pinned versions: each has a folder ``tests/clients/NAME`` holding a ``package.json`` and
its ``package-lock.json``. `installed` runs ``npm ci`` there the first time a test asks (under a
file lock, so two test processes never install at once) and then reuses ``node_modules``, which
git ignores. Nothing is installed by a plain ``pip install``: only the tests need Node.js.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent / "clients"

#: How long one ``npm ci`` may take (a client such as Codex CLI downloads a native binary).
INSTALL_SECONDS = 600


def installed(name: str) -> Path:
    """The folder of client NAME with its locked packages installed: ``npm ci`` once, then reuse.

    The install is redone when ``package-lock.json`` is newer than the last install's marker, so
    a version bump in the lock file reaches every checkout."""
    folder = CLIENTS / name
    lock = folder / "package-lock.json"
    if not lock.is_file():
        raise FileNotFoundError(f"no pinned client at {folder} (package-lock.json missing)")
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH; the client conformance tests need Node.js and npm")
    marker = folder / "node_modules" / ".toolpatch-installed"
    with open(folder / ".install.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not marker.is_file() or marker.stat().st_mtime < lock.stat().st_mtime:
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=folder,
                check=True,
                timeout=INSTALL_SECONDS,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
            marker.touch()
    return folder


def binary(name: str, command: str) -> Path:
    """The executable COMMAND that client NAME's packages install (``node_modules/.bin``)."""
    path = installed(name) / "node_modules" / ".bin" / command
    if not path.exists():
        raise FileNotFoundError(f"client {name} installs no command {command!r}")
    return path
