"""`patchcore.pipeline._RecordMeter`: however an input is cut into pieces, the meter refuses it
at the same line, for the same reason, as when it is given whole (docs/cli.md#blank-space)."""

from __future__ import annotations

import itertools

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


@settings(max_examples=300)
@given(
    data=st.binary(max_size=300).map(lambda b: b.translate(bytes(range(256)), b"\x00")),
    blanks=st.lists(st.sampled_from([b" ", b"\n", b"\t", b"\r\n", b"x", b"{}"]), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    limit=st.integers(min_value=1, max_value=40),
)
def test_pieces_are_judged_as_the_whole(
    data: bytes, blanks: list[bytes], cuts: list[int], limit: int
) -> None:
    whole = data + b"".join(blanks)
    edges = sorted({0, len(whole), *(c for c in cuts if c < len(whole))})
    pieces = [whole[a:b] for a, b in itertools.pairwise(edges)]
    assert _verdict(pieces, limit) == _verdict([whole], limit)
