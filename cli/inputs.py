"""Which inputs a run covers: named files, directories walked for JSON/JSONL, or stdin."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

#: How much of an input is read at a time.
CHUNK_BYTES = 2**20
#: File endings picked up when walking a directory.
HISTORY_SUFFIXES = (".json", ".jsonl", ".ndjson")
#: Directories a walk never enters (besides hidden ones), as black does.
SKIPPED_DIRECTORIES = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


@dataclass(frozen=True, slots=True)
class Source:
    """One input.

    Attributes:
        name: How messages name it (the path as given, or the stdin name).
        path: The file, or ``None`` for standard input.
        explicit: Named on the command line (a file found by walking a directory is not; such a
            file is skipped, not an error, when it holds no message history).
    """

    name: str
    path: Path | None
    explicit: bool = True

    @property
    def is_stdin(self) -> bool:
        """Whether this is standard input."""
        return self.path is None

    def read(self) -> bytes:
        """The input's bytes (raises ``OSError`` for an unreadable file)."""
        if self.path is None:
            return sys.stdin.buffer.read()
        return self.path.read_bytes()

    def chunks(self) -> Iterator[bytes]:
        """The input's bytes, a block at a time (raises ``OSError`` for an unreadable file).

        The file is opened on the first ``next``, so an unreadable file fails there.
        """
        with self.path.open("rb") if self.path is not None else nullcontext(sys.stdin.buffer) as f:
            while block := f.read(CHUNK_BYTES):
                yield block


class NoInputError(Exception):
    """Nothing to read: no path given and standard input is a terminal."""


def _walk(directory: Path) -> list[Source]:
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRECTORIES)
        for name in sorted(files):
            if name.lower().endswith(HISTORY_SUFFIXES) and not name.startswith("."):
                path = Path(root, name)
                found.append(Source(str(path), path, explicit=False))
    return found


def resolve(paths: list[str], *, stdin_filename: str | None) -> list[Source]:
    """Turn command-line paths into sources, in order, each once.

    No path means standard input when it is piped (``-`` says so explicitly).

    Raises:
        NoInputError: No path and standard input is a terminal.
    """
    stdin = Source(stdin_filename or "-", None)
    if not paths:
        if sys.stdin is None or sys.stdin.isatty():
            raise NoInputError
        return [stdin]
    sources: list[Source] = []
    seen: set[str] = set()
    for given in paths:
        if given == "-":
            candidates = [stdin]
        elif os.path.isdir(given):
            candidates = _walk(Path(given))
        else:
            candidates = [Source(given, Path(given))]
        for source in candidates:
            if source.name not in seen:
                seen.add(source.name)
                sources.append(source)
    return sources
