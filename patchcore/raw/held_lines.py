"""Input read from a stream but not yet cut into batches, held as the chunks it came in.

A streamed corpus (stdin, a decompressed file) arrives in chunks and leaves in batches of whole
lines (`patchcore.pipeline.Stream`). Held in one buffer that takes each chunk and gives each
batch, every byte would be copied twice more after the read (into the buffer, out into the
batch) and the rest moved down after each cut. Held as its chunks, a batch is joined once from
the chunks it spans, only the chunk it ends in being cut: on the OpenAI Chat bench corpus in
1 MiB chunks and 4 MiB batches the cutting took 27 ms that way and 16 ms this way, in a fresh
process 84 ms and 40 ms (docs/benchmarks.md).

Line breaks are searched for as the buffer's were: the last one before the batch size, else
(a line longer than a batch) the first one after it, each byte searched once however the line
grows.
"""

from __future__ import annotations

#: Chunks shorter than this are gathered into one before they are held: a stream of tiny
#: chunks (a slow pipe) must not make a batch of thousands of pieces to search and join.
_SMALL = 64 * 2**10


class HeldLines:
    """Bytes read and not yet cut, in order, as a list of pieces."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._small = bytearray()
        """Small chunks gathered after the last piece, until they make one."""
        self.size = 0
        """How many bytes are held."""
        self._searched(False)

    def _searched(self, before: bool, index: int = 0, start: int = 0, clear: int = 0) -> None:
        """Remember how far the search for a line break went: ``before``, the bytes before the
        limit hold none; then none from the limit to ``clear``, which is in piece ``index``
        (at offset ``start``) or at its start."""
        self._none_before = before
        self._scan_index = index
        self._scan_start = start
        self._clear = clear

    def add(self, chunk: bytes | bytearray | memoryview) -> None:
        """Hold ``chunk`` after what is held."""
        if len(chunk) >= _SMALL and not self._small:
            self._pieces.append(bytes(chunk))
        else:
            self._small += chunk
            if len(self._small) >= _SMALL:
                self._gather()
        self.size += len(chunk)

    def _gather(self) -> None:
        """Make the small chunks gathered so far a piece of their own."""
        if self._small:
            self._pieces.append(bytes(self._small))
            self._small = bytearray()

    def line_end(self, limit: int) -> int | None:
        """The offset of the last line break before ``limit``, else of the first one at or after
        it; ``None`` if what is held has none there (or less than ``limit`` is held). The same
        ``limit`` is asked until a `take`."""
        self._gather()
        if self.size < limit:
            return None
        if not self._none_before:
            index, start = self._piece_holding(limit - 1)
            found = self._pieces[index].rfind(b"\n", 0, limit - start)
            back, back_start = index, start
            while found < 0 and back > 0:
                back -= 1
                back_start -= len(self._pieces[back])
                found = self._pieces[back].rfind(b"\n")
            if found >= 0:
                return back_start + found
            self._searched(True, index, start, limit)
        index, start = self._scan_index, self._scan_start
        while index < len(self._pieces):
            piece = self._pieces[index]
            found = piece.find(b"\n", max(0, self._clear - start))
            if found >= 0:
                return start + found
            start += len(piece)
            index += 1
        self._searched(True, index, start, start)
        return None

    def _piece_holding(self, offset: int) -> tuple[int, int]:
        """The index of the piece that holds byte ``offset``, and that piece's own offset."""
        start = 0
        for index, piece in enumerate(self._pieces):
            if start + len(piece) > offset:
                return index, start
            start += len(piece)
        raise IndexError(offset)

    def take(self, cut: int) -> bytes:
        """The bytes before offset ``cut`` (a line break), joined; they and the break are no
        longer held."""
        self._gather()
        index, start = self._piece_holding(cut)
        local = cut - start
        piece = self._pieces[index]
        taken = b"".join([*self._pieces[:index], piece[:local]])
        rest = piece[local + 1 :]
        self._pieces = [rest, *self._pieces[index + 1 :]] if rest else self._pieces[index + 1 :]
        self.size -= cut + 1
        self._searched(False)
        return taken

    def first(self, size: int) -> bytes:
        """The first ``size`` bytes held (or all of them, if fewer), joined."""
        self._gather()
        return b"".join(self._pieces)[:size]

    def take_all(self) -> bytes:
        """Everything held, joined; nothing is held after."""
        self._gather()
        taken = b"".join(self._pieces)
        self._pieces = []
        self.size = 0
        self._searched(False)
        return taken
