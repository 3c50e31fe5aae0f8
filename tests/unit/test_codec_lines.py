"""Lines are cut as ``bytes.split(b"\\n")`` cuts them.

`patchcore.raw.codec.split_lines` finds the line breaks of a batch with long lines by
``bytes.find`` (faster than ``bytes.split`` on a corpus's lines of kilobytes,
`docs/benchmarks.md`); every streamed batch is read from it, so it must give exactly the same
lines, long or short: blank ones, a last line without a break, carriage returns left in place.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from patchcore.raw.codec import decode_batch, split_lines

#: Pieces of lines: the bytes that matter to a cut, and a long run (over the short-line bound).
PIECES = st.sampled_from(
    [b"\n", b"\r", b"\r\n", b" ", b"{}", b"[]", b"\xe2\x82\xac", b'"' + b"x" * 700 + b'"']
)
LINES = st.lists(PIECES, max_size=30).map(b"".join)


@given(LINES)
def test_split_lines_is_bytes_split(data: bytes) -> None:
    assert split_lines(data) == data.split(b"\n")


def test_long_and_short_first_lines() -> None:
    long = b"[" + b"1," * 400 + b"1]"
    for data in (b"", b"\n", b"\n\n", b"a", b"a\n", b"\na", long, long + b"\n", long + b"\r\n\nb"):
        assert split_lines(data) == data.split(b"\n"), data


@given(LINES)
def test_a_batch_keeps_its_lines_and_offsets(data: bytes) -> None:
    decoded = decode_batch(data, first_line=7, lenient=True)
    assert decoded.lines == data.split(b"\n")
    for record in decoded.records:
        assert data[record.offset : record.offset + len(record.raw)] == record.raw
        assert record.line == 7 + record.index
