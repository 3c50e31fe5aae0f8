"""Compressed corpora: ``.jsonl.gz``, ``.jsonl.zst`` (and ``.json``/``.ndjson`` so compressed),
read as a stream of decompressed blocks and written back in their own compression
(docs/cli.md#inputs). The one home of compression: the Dask integration
(`toolpatch.integrations.dask`) reads and writes a compressed file through the same functions,
so both write the same bytes and say the same of a damaged file.

gzip comes with the standard library; zstd needs the ``zstandard`` package, the ``[zstd]``
extra. patchcore never sees a compressed byte: the input layer hands it the decompressed
content, and the output sink compresses what it writes.
"""

from __future__ import annotations

import enum
import os
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from patchcore import extra_module

#: How much compressed input is read at a time.
READ_BYTES = 2**20
#: At most how much decompressed content one block holds.
BLOCK_BYTES = 2**20


class Compression(enum.Enum):
    """A compression a history file's name can end with."""

    GZIP = ".gz"
    ZSTD = ".zst"

    @classmethod
    def of(cls, name: str) -> Compression | None:
        """The compression ``name`` ends with, if any."""
        lowered = name.lower()
        return next((c for c in cls if lowered.endswith(c.value)), None)

    def require(self) -> None:
        """Check up front that this compression can be read and written here.

        Raises:
            MissingExtra: zstd without the ``zstandard`` package.
        """
        if self is Compression.ZSTD:
            _zstandard()

    def compressor(self) -> Compressor:
        """A fresh incremental compressor (gzip: level 6, as ``gzip`` writes by default; zstd:
        zstandard's default level, 3).

        Raises:
            MissingExtra: zstd without the ``zstandard`` package.
        """
        if self is Compression.GZIP:
            return zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        zstandard = _zstandard()
        compressor: Compressor = zstandard.ZstdCompressor().compressobj()
        return compressor


def plain_name(name: str) -> str:
    """``name`` without its compression ending (``x.jsonl.gz`` → ``x.jsonl``): what tells the
    framing of the content."""
    compression = Compression.of(name)
    return name if compression is None else name[: -len(compression.value)]


class CorruptInput(OSError):
    """The compressed input cannot be decompressed (an ``OSError``: the file, not its content,
    is at fault, as for an unreadable file)."""


#: How much compressed input a zstd frame is fed at a time: zstandard's decompressor returns
#: all it can make of what it is given, with no bound, so small feeds keep each output small.
#: A zstd block of 128 KiB can be written in four bytes (a run of one byte), so 1 KiB of input
#: makes at most 32 MiB: a small file that expands to gigabytes (a bomb) is read a bounded
#: block at a time, as gzip's is. (Feeding 16 KiB at a time, one call made 500 MB.)
ZSTD_FEED_BYTES = 2**10


def decompressed(compression: Compression, read: Callable[[int], bytes]) -> Iterator[bytes]:
    """The decompressed content of what ``read`` returns (one frame or member after another,
    as ``cat a.gz b.gz`` makes them), in blocks of at most `BLOCK_BYTES`.

    Raises:
        CorruptInput: It is not ``compression``'s format, or it is cut short.
        MissingExtra: zstd without the ``zstandard`` package.
    """
    name = "gzip" if compression is Compression.GZIP else "zstd"
    errors: tuple[type[Exception], ...] = (zlib.error, EOFError)
    if compression is Compression.GZIP:

        def fresh() -> _Incremental:
            return zlib.decompressobj(16 + zlib.MAX_WBITS)

        feed = READ_BYTES
    else:
        zstandard = _zstandard()
        errors = (zstandard.ZstdError,)

        def fresh() -> _Incremental:
            made: _Incremental = zstandard.ZstdDecompressor().decompressobj()
            return made

        feed = ZSTD_FEED_BYTES
    inflate: _Incremental | None = None  # the frame being read (none yet, or one just ended)
    try:
        while data := read(READ_BYTES):
            at = 0
            while at < len(data):
                if inflate is None:
                    inflate = fresh()
                yield from _drained(inflate, data[at : at + feed])
                at += feed
                if inflate.eof:  # the next frame starts in what it left
                    data = inflate.unused_data + data[at:]
                    at = 0
                    inflate = None
    except errors as exc:
        msg = f"not valid {name} data: {exc}"
        raise CorruptInput(msg) from None
    if inflate is not None:
        msg = f"not valid {name} data: cut short (a truncated file)"
        raise CorruptInput(msg)


class Compressor(Protocol):
    """An incremental compressor (zlib's, zstandard's)."""

    def compress(self, data: bytes | memoryview, /) -> bytes: ...

    def flush(self) -> bytes: ...


class _Incremental(Protocol):
    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes, /) -> bytes: ...


_ZLIB = type(zlib.decompressobj())


def _drained(inflate: _Incremental, data: bytes) -> Iterator[bytes]:
    """Inflate ``data``, in blocks of at most `BLOCK_BYTES` (zlib's: it is asked for no more;
    zstd's: its output is cut)."""
    if isinstance(inflate, _ZLIB):
        while True:
            out = inflate.decompress(data, BLOCK_BYTES)
            if out:
                yield out
            data = inflate.unconsumed_tail
            # a full block may leave output pending in zlib even with all its input taken
            if inflate.eof or (not data and len(out) < BLOCK_BYTES):
                return
    out = inflate.decompress(data)
    for start in range(0, len(out), BLOCK_BYTES):
        yield out[start : start + BLOCK_BYTES]


def _zstandard() -> Any:
    """The ``zstandard`` module (the ``[zstd]`` extra)."""
    return extra_module("zstandard", extra="zstd", part="a .zst file")


def file_blocks(compression: Compression, fd: int) -> Iterator[bytes]:
    """The decompressed content of the open file ``fd``, read from where it stands."""
    return decompressed(compression, lambda size: os.read(fd, size))
