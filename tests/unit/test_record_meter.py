"""`patchcore.pipeline._RecordMeter`: however an input is cut into pieces, the meter refuses it
when it is refused whole, and never refuses what holds no line and no run of blank space longer
than the limit (docs/cli.md#blank-space).

Where it refuses, and why, may depend on the cuts: the meter looks at what it holds at the end
of each piece (the line being read, the blank space after the last ink), so a piece that ends
inside a long line refuses it there, while the same line inside a piece is left to the decoder,
which refuses it as a record too large at the same line. The property once compared the
verdicts whole, and failed on ``5 spaces`` cut after two (blank space past a limit of 1 before
the line, allowed 3 more bytes for a byte-order mark, was)."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from patchcore.errors import DecodeError
from patchcore.pipeline import _RecordMeter


def _verdict(pieces: list[bytes], limit: int) -> tuple[str, int | None] | int:
    """The error the meter raises for ``pieces`` (its message and line), or how many line
    breaks it counted."""
    meter = _RecordMeter(limit)
    try:
        for piece in pieces:
            meter.add(piece)
    except DecodeError as error:
        return str(error), error.line
    return meter._breaks


def _holds_too_much(whole: bytes, limit: int) -> bool:
    """Whether ``whole`` has a line longer than ``limit`` (the first one may be 3 bytes longer,
    for a byte-order mark) or a run of blank space longer than it."""
    lines = whole.split(b"\n")
    if any(len(line) > limit + (3 if k == 0 else 0) for k, line in enumerate(lines)):
        return True
    return any(len(run) > limit for run in re.findall(rb"[ \t\n\r\x0b\x0c]+", whole))


@settings(max_examples=300)
@given(
    data=st.binary(max_size=300).map(lambda b: b.translate(bytes(range(256)), b"\x00")),
    blanks=st.lists(st.sampled_from([b" ", b"\n", b"\t", b"\r\n", b"x", b"{}"]), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    limit=st.integers(min_value=1, max_value=40),
)
def test_pieces_are_refused_when_the_whole_is_and_only_for_cause(
    data: bytes, blanks: list[bytes], cuts: list[int], limit: int
) -> None:
    whole = data + b"".join(blanks)
    edges = sorted({0, len(whole), *(c for c in cuts if c < len(whole))})
    pieces = [whole[a:b] for a, b in itertools.pairwise(edges)]
    cut, given_whole = _verdict(pieces, limit), _verdict([whole], limit)
    if isinstance(given_whole, tuple):
        assert isinstance(cut, tuple), "refused whole, so refused in pieces"
    if isinstance(cut, tuple):
        assert _holds_too_much(whole, limit), cut
    else:
        assert cut == given_whole, "both read to the end count the same line breaks"


def test_the_cut_that_once_told_the_whole_apart() -> None:
    """Five spaces against a limit of 1, cut after two: refused in pieces as whole."""
    assert isinstance(_verdict([b"  ", b"   "], 1), tuple)
    assert isinstance(_verdict([b"     "], 1), tuple)
