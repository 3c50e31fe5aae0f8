"""No call-like object of the real corpus passes unread (docs/rules.md#unread-tool-call-tp004):
each is paired by the file's reading, or reported as TP004, and the files where that report
is right are listed here with what they hold."""

from __future__ import annotations

from pathlib import Path

import pytest

import patchcore
from tests.builders import read_corpus as read
from tests.conftest import CORPUS

ALL_FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".json", ".jsonl"))

#: The files whose calls or results no reading of this release pairs: how many TP004
#: findings, and how many objects the first one counts.
UNREAD = {
    # Eleven tool messages and no message that issued them (docs/corpus.md): results whose
    # call is missing, one finding each.
    "inspect-ai/inspect-log-tool-call-error-orphans.json": (11, None),
    # Recorded model outputs only, each one response to an input kept as a hash: two calls.
    "langchain/deerflow-replay-outputs-only-messages-to-dict.json": (1, 2),
}

pytestmark = pytest.mark.usefixtures("corpus")


def _unread(relative: str) -> list[patchcore.Finding]:
    try:
        report = patchcore.check_document(read(relative), filename=relative)
    except patchcore.NoHistoryError:
        return []  # holds nothing a reading reads, nor anything that looks like a call
    return [f for f in report.findings if f.code == "TP004"]


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_call_like_object_is_paired_or_reported(path: Path) -> None:
    relative = str(path.relative_to(CORPUS))
    found = _unread(relative)
    count, first = UNREAD.get(relative, (0, None))
    assert len(found) == count, [f.message for f in found]
    if first is not None:
        assert found[0].message.startswith(f"{first} objects look like"), found[0].message


def test_no_corpus_file_with_calls_is_no_message_history() -> None:
    """A file refused as holding no history holds nothing that looks like a call."""
    from patchcore.engine.unread import call_like

    for path in ALL_FILES:
        relative = str(path.relative_to(CORPUS))
        try:
            patchcore.check_document(read(relative), filename=relative)
        except patchcore.NoHistoryError:
            value = _parsed(path)
            assert not _any_call_like(value, call_like), relative


def _parsed(path: Path) -> object:
    import json

    text = path.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _any_call_like(value: object, call_like: object) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if call_like(node):  # type: ignore[operator]
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
