"""What decides, before the heavy layouts load, that an input may be one of theirs: the
session logs' first-entry signs (`patchcore.layouts.base`) and the keys every message
has (`patchcore.chat_names.MESSAGE_KEYS`). A sign that missed a real input would make it read
as another layout, so both are held to every shipped sample (docs/benchmarks.md#start-up).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from patchcore import DIALECTS, SESSION_LAYOUTS
from patchcore.chat_names import MESSAGE_KEYS
from patchcore.engine.locate import classify
from patchcore.errors import PatchcoreError
from patchcore.layouts.base import may_be_session
from tests.conftest import ROOT

SAMPLES = ROOT / "samples"
SESSION_FOLDERS = ("claude-code", "claude-agent-sdk", "codex", "gemini-cli")


def _values(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return [json.loads(text)]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, nested ones included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _first_entry(path: Path) -> Any:
    values = _values(path)
    first = values[0]
    return first[0] if path.suffix == ".json" and isinstance(first, list) and first else first


SESSION_SAMPLES = sorted(
    p
    for folder in SESSION_FOLDERS
    for p in (SAMPLES / folder).glob("*.json*")
    # Gemini CLI's whole-session documents are JSON documents its dialect reads; its log is JSONL.
    if not (folder == "gemini-cli" and p.suffix == ".json")
)
ALL_SAMPLES = sorted(p for p in SAMPLES.rglob("*.json*") if p.suffix in {".json", ".jsonl"})


@pytest.mark.parametrize("path", SESSION_SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_session_sample_shows_its_sign(path: Path) -> None:
    first = _first_entry(path)
    assert may_be_session(first)
    assert any(layout.recognises_entry(first) for layout in SESSION_LAYOUTS)


def test_a_first_entry_is_a_session_s_exactly_when_some_sign_says_so() -> None:
    """The signs are the layouts' own tests of a first entry: no layout recognises an entry
    that no sign shows (it would be decided without that layout ever being loaded)."""
    for path in ALL_SAMPLES:
        for value in _values(path):
            for entry in _objects(value):
                recognised = any(layout.recognises_entry(entry) for layout in SESSION_LAYOUTS)
                assert recognised == may_be_session(entry), (path, sorted(entry))


def test_every_message_a_dialect_reads_has_a_message_key() -> None:
    """The one-message-per-line layout is asked only about a first line with one of
    `MESSAGE_KEYS`: every object some dialect reads as a message, in every sample, has one."""
    read = 0
    for path in ALL_SAMPLES:
        for value in _values(path):
            for entry in _objects(value):
                try:
                    classified = classify([entry], DIALECTS)
                except PatchcoreError:  # a broken message: read by no dialect either way
                    classified = None
                if classified is not None:
                    read += 1
                    assert not MESSAGE_KEYS.isdisjoint(entry), (path, sorted(entry))
    assert read > 1000
