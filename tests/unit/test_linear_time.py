"""Time linear in the input (docs/cli.md#limits): structural tests that count the work done, not
the seconds taken. The matching benchmark case (`benchmarks/scaling.py`) checks the times."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

import patchcore
from patchcore.raw import positions
from patchcore.raw.positions import Locator, line_and_column
from tests.robustness import unanswered_calls


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many bytes each `Locator.at` counted through (from where the last one stopped, or
    from the start)."""
    spans: list[int] = []
    at = Locator.at

    def counting(self: Locator, offset: int) -> tuple[int, int]:
        before = self._offset if offset >= self._offset else 0
        spans.append(offset - before)
        return at(self, offset)

    monkeypatch.setattr(positions.Locator, "at", counting)
    return spans


@pytest.mark.parametrize("with_messages", [False, True], ids=["check", "show"])
def test_findings_of_one_list_are_located_in_one_pass(
    counted: list[int], with_messages: bool
) -> None:
    """A list with thousands of unanswered calls once took seconds per thousand: each finding's
    line was counted from the start of the record (``show``, which keeps the messages, reads
    the record by the full path rather than the quick lane: both locate so)."""
    data = unanswered_calls(2000)
    options = patchcore.make_options(with_messages=with_messages)
    findings = patchcore.check_document(data, filename="h.json", options=options).findings
    assert len(findings) == 2000
    assert len(counted) >= 2000
    assert sum(counted) <= len(data)


def test_located_in_one_pass_as_one_at_a_time() -> None:
    """Offsets asked in any order, one locator: each place as if counted from the start."""
    data = "a\né\n  {x} ü\n\n[y]".encode()
    offsets = [len(data) - 1, 0, 3, 9, 5, len(data)]
    locator = Locator(data)
    assert [locator.at(o) for o in offsets] == [line_and_column(data, o) for o in offsets]


@pytest.mark.parametrize("indent", [None, 1], ids=["one-line", "pretty-printed"])
def test_inserted_results_find_their_lines_in_one_pass(
    monkeypatch: pytest.MonkeyPatch, indent: int | None
) -> None:
    """Each result inserted once looked back from its neighbour to the start of its line for
    its margin (``rfind``): to the file's start in a document on one line, and in any file
    without a CR, which it looked for too. 40k results took 26 s, 80k 27 s more than twice
    that. The line breaks are now found once for all the insertions into a record: the bytes
    searched for them add up to at most the record's size."""
    searched: list[int] = []
    pattern = positions._LINE_BREAK_BYTE

    class Counting:
        def finditer(self, buf: bytes, pos: int, endpos: int) -> Iterator[re.Match[bytes]]:
            searched.append(endpos - pos)
            return pattern.finditer(buf, pos, endpos)

    monkeypatch.setattr(positions, "_LINE_BREAK_BYTE", Counting())
    data = unanswered_calls(2000, indent=indent)
    result = patchcore.fix_document(data, filename="h.json", options=patchcore.make_options())
    assert len(result.fixed) == 2000
    assert len(searched) >= 2000
    assert sum(searched) <= len(data)
