"""`patchcore.raw.held_lines`: chunks held as they came are cut where one buffer would be cut.

The reference is the buffer it replaces: each chunk added to it, each batch cut at the last line
break before the batch size (the first one after it, for a longer line) and copied out.
"""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from patchcore.raw.held_lines import HeldLines


def _buffered(chunks: list[bytes], limit: int) -> Iterator[bytes]:
    buffer = bytearray()
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= limit:
            cut = buffer.rfind(b"\n", 0, limit)
            if cut < 0:
                cut = buffer.find(b"\n", limit)
            if cut < 0:
                break
            yield bytes(buffer[:cut])
            del buffer[: cut + 1]
    yield bytes(buffer)


def _held(chunks: list[bytes], limit: int) -> Iterator[bytes]:
    held = HeldLines()
    for chunk in chunks:
        held.add(chunk)
        while held.size >= limit:
            cut = held.line_end(limit)
            if cut is None:
                break
            yield held.take(cut)
    yield held.take_all()


def _chunked(data: bytes, sizes: list[int]) -> list[bytes]:
    chunks, start = [], 0
    for size in sizes:
        chunks.append(data[start : start + size])
        start += size
    return [*chunks, data[start:]]


#: Lines of any length, short ones and some longer than a batch, with empty ones among them.
lines = st.lists(st.integers(min_value=0, max_value=300_000), max_size=12).map(
    lambda lengths: b"".join(b"x" * n + b"\n" for n in lengths)
)


@settings(max_examples=200, deadline=None)
@given(
    data=lines,
    tail=st.binary(max_size=70_000).map(lambda b: b.replace(b"\n", b"")),
    sizes=st.lists(st.integers(min_value=0, max_value=200_000), max_size=30),
    limit=st.integers(min_value=1, max_value=400_000),
)
def test_cuts_are_the_buffers(data: bytes, tail: bytes, sizes: list[int], limit: int) -> None:
    chunks = _chunked(data + tail, sizes)
    assert list(_held(chunks, limit)) == list(_buffered(chunks, limit))


@settings(max_examples=50, deadline=None)
@given(
    data=st.binary(max_size=3000).map(lambda b: b.replace(b"\r", b"\n")),
    limit=st.integers(min_value=1, max_value=500),
)
def test_a_stream_of_single_bytes_is_cut_as_one_chunk(data: bytes, limit: int) -> None:
    """Tiny chunks (a slow pipe) are gathered, and cut as the same bytes in one chunk are."""
    single = [data[k : k + 1] for k in range(len(data))]
    assert list(_held(single, limit)) == list(_buffered([data], limit))


def test_a_line_longer_than_a_batch_ends_where_its_break_comes() -> None:
    """A line of 4 MiB arriving in 4 KiB chunks, batches of 64 KiB: no break is found until
    it comes, then the line is the batch, whole."""
    held = HeldLines()
    chunk = b"y" * 4096
    for _ in range(1024):
        held.add(chunk)
        assert held.line_end(65536) is None
    held.add(b"\nz")
    cut = held.line_end(65536)
    assert cut == 4 * 2**20
    assert held.take(cut) == b"y" * (4 * 2**20)
    assert held.take_all() == b"z"
