"""Shared fixtures: where the shipped samples and the shared corpus live; the ``slow`` mark.

``python -m pytest -m "not slow"`` is the fast inner loop; plain ``python -m pytest`` runs all.
Every test of a slow level (`SLOW_LEVELS`) and every test that reads the shared corpus is marked
``slow`` here; a single slow test elsewhere carries ``@pytest.mark.slow`` itself.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.helpers import CORPUS, ROOT, SAMPLES
from tests.object_store import s3_server  # noqa: F401 - the fixture, for every test folder

__all__ = ["CORPUS", "ROOT", "SAMPLES"]  # the folders, for the tests that import them from here


#: How long ago the shipped samples are taken to have been written.
AT_REST_SECONDS = 24 * 3600


@pytest.fixture(scope="session", autouse=True)
def samples_at_rest() -> None:
    """The shipped samples are logs at rest. A fresh checkout gives every file the time of the
    checkout; a session log whose entries record their times is judged by those, but one that
    records none (the Claude Agent SDK's stream) by its file's time, and written that recently
    it reads as a session still running, whose pending calls are held back
    (docs/cli.md#live-sessions). So each sample newer than a day is given a modification time a
    day back (its bytes are untouched); so is each folder, as an event store's time is its
    folder's (docs/formats.md#openhands-event-stores)."""
    old = time.time() - AT_REST_SECONDS
    for path in SAMPLES.rglob("*"):
        if path.stat().st_mtime > old:
            os.utime(path, (old, old))


@pytest.fixture
def corpus() -> Path:
    """The shared corpus, or skip when this checkout has none beside it."""
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    return CORPUS


#: The folders of tests/ whose every test is slow: generated and fuzzed input, the real corpus,
#: real libraries and tools (mypy, deepagents, Dask).
SLOW_LEVELS = ("properties", "corpus", "conformance")
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` the tests of the slow levels and every test that reads the corpus."""
    slow_folders = [TESTS / level for level in SLOW_LEVELS]
    for item in items:
        path = Path(item.path)
        reads_corpus = "corpus" in getattr(item, "fixturenames", ())
        if reads_corpus or any(path.is_relative_to(folder) for folder in slow_folders):
            item.add_marker(pytest.mark.slow)
