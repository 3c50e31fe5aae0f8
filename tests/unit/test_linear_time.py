"""Time linear in the input (docs/cli.md#limits): structural tests that count the work done, not
the seconds taken. The matching benchmark case (`benchmarks/scaling.py`) checks the times."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import patchcore
from patchcore.raw import codec
from patchcore.raw.codec import Locator, line_and_column
from tests.robustness import unanswered_calls
from tests.session_logs import claude_code_session


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

    monkeypatch.setattr(codec.Locator, "at", counting)
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


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many bytes each search for line breaks (`LineStarts`) looked through."""
    spans: list[int] = []
    search = codec._line_starts

    def counting(buf: bytes, start: int, end: int) -> Sequence[int]:
        spans.append(end - start)
        return search(buf, start, end)

    monkeypatch.setattr(codec, "_line_starts", counting)
    return spans


@pytest.mark.parametrize("indent", [None, 1], ids=["one-line", "pretty-printed"])
def test_inserted_results_find_their_lines_in_one_pass(
    searched: list[int], indent: int | None
) -> None:
    """Each result inserted once looked back from its neighbour to the start of its line for
    its margin (``rfind``): to the file's start in a document on one line, and in any file
    without a CR, which it looked for too. 40k results took 26 s, 80k 27 s more than twice
    that. The line breaks are now found once for all the insertions into a record: the bytes
    searched for them add up to at most the record's size."""
    data = unanswered_calls(2000, indent=indent)
    result = patchcore.fix_document(data, filename="h.json", options=patchcore.make_options())
    assert len(result.fixed) == 2000
    assert len(searched) >= 2000
    assert sum(searched) <= len(data)


def test_planned_fixes_of_one_list_find_its_lines_once(searched: list[int]) -> None:
    """The SARIF report's plan spliced each fix alone into the record to tell whose patch is
    whose, each splice finding the record's line breaks again: 5,000 results into one list took
    91 s to plan. The plan's splices now share them (and the ``fix`` run's own splice finds
    them once more): the bytes searched add up to at most twice the record's size."""
    data = unanswered_calls(2000, indent=None)
    plan = patchcore.plan_fixes(data, filename="h.json", options=patchcore.make_options())
    assert len(plan.owned) == 2000
    assert sum(searched) <= 2 * len(data)


def test_a_sessions_planned_fixes_write_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole layout's plan wrote the session again for each fix alone, to diff it: 1,000
    unanswered turns of a Claude Code session took 7.5 s. Each fix's patches are now found
    from where its edits land, and the session is written once, by the ``fix`` run."""
    from patchcore.layouts.sessions import layout

    writes: list[int] = []
    write = layout.write_entries

    def counting(decoded: Any, edits: Any) -> bytes:
        writes.append(len(edits))
        return write(decoded, edits)

    monkeypatch.setattr(layout, "write_entries", counting)
    data = claude_code_session(300)
    plan = patchcore.plan_fixes(data, filename="s.jsonl", options=patchcore.make_options())
    assert len(plan.owned) == 300
    assert len(writes) == 1


@given(st.lists(st.sampled_from([b"a", b"\r", b"\n"]), max_size=40).map(b"".join), st.data())
def test_line_starts_are_past_each_line_break(buf: bytes, data: st.DataObject) -> None:
    """Whether or not the span holds a line break (most records of JSON Lines hold none, and
    are told so without the pattern), the starts found are just past each LF or CR in it."""
    start = data.draw(st.integers(0, len(buf)))
    end = data.draw(st.integers(start, len(buf)))
    expected = [k + 1 for k in range(start, end) if buf[k : k + 1] in (b"\r", b"\n")]
    assert list(codec._line_starts(buf, start, end)) == expected
