"""Every agent-session sample with one of its escaped line breaks written raw (the line split in
two, as an agent that does not escape a tool's output leaves it: docs/cli.md#torn-lines) reads
as the sample does plus one TP201, and `fix` writes what it writes for the sample, byte for
byte: the split costs nothing and changes no repair."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import patchcore
from tests.builders import found
from tests.helpers import SAMPLES

#: The session layouts' samples (and their repairs) that hold an escaped line break.
SPLITTABLE = sorted(
    path
    for folder in ("claude-code", "claude-agent-sdk", "codex", "gemini-cli")
    for path in (SAMPLES / folder).glob("*.jsonl")
    if b"\\n" in path.read_bytes()
)
#: An escaped line break: a backslash and ``n`` not after another backslash (``\\\\n`` is a
#: backslash and a letter).
ESCAPED_BREAK = re.compile(rb"(?<!\\)\\n")


def _splits(data: bytes) -> list[bytes]:
    """``data`` once for each escaped line break in it, that break written raw."""
    return [data[: m.start()] + b"\n" + data[m.end() :] for m in ESCAPED_BREAK.finditer(data)]


def test_there_are_samples_to_split() -> None:
    assert len(SPLITTABLE) >= 4, SPLITTABLE


@pytest.mark.parametrize("sample", SPLITTABLE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_split_line_reads_as_the_sample_and_fixes_to_its_repair(sample: Path) -> None:
    data = sample.read_bytes()
    options = patchcore.make_options()
    own = patchcore.fix_document(data, filename=sample.name, options=options)
    repaired = own.output if own.output is not None else data
    for split in _splits(data):
        checked = patchcore.check_document(split, filename=sample.name, options=options)
        assert sorted(found(checked.findings)) == sorted([*found(own.findings), ("TP201", None)])
        fixed = patchcore.fix_document(split, filename=sample.name, options=options)
        assert fixed.output == repaired
