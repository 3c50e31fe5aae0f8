"""PATHs that are fsspec URLs (``s3://bucket/prefix/``, ``gs://…``, ``az://…``, ``file://…``):
each object is one input, named by its URL, read and repaired as the same local file would be
(docs/cli.md#object-stores).

A URL that names a prefix (or a folder) is walked as a directory is: the same file endings,
compressed ones included, each folder's objects (sorted) before its subfolders (sorted),
passing over what the ``exclude`` and ``extend-exclude`` patterns name, as a folder's walk does
(the same code, `cli.exclusions`): each object is matched by its key in the bucket, as a file
by its path relative to the configuration's folder, and no ignore files are read from a bucket.
``file://`` URLs are local files, read and written as a local PATH is (atomically, in place),
only named by their URL.

An object is read as a stream (decompressed as its name ends), and ``fix`` spools its repair
to a local temporary file first: the object is replaced only whole, by one upload after the
repair is complete, and only if it is still the object that was read (its ETag, or its size
and modification time, as the store reports them); otherwise nothing is written and the input
gets an error, as a local file changed while it was fixed does.

Only the protocols of `PROTOCOLS` are read (docs/cli.md#urls): a URL of another
(``http://``, ``zip://``), or one that chains file systems (``::``), is refused before fsspec
sees it, wherever it comes from: a PATH, ``-o PREFIX``, or an object's name that would make
one. Nothing is written but to the object read (``fix`` in place) or under the ``-o PREFIX``
named: an output name is built from an object's name only when each of its segments is a
plain name (no ``..``), and under a local PREFIX only when it resolves inside it.

Credentials are fsspec's and the cloud SDKs' own (environment variables, config files,
instance roles): toolpatch takes none, and shows every URL through the one redaction
(`integrations.redaction`).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from msgspec import structs

from patchcore import MissingExtra
from toolpatch.integrations.file_io import Compression, decompressed
from toolpatch.integrations.redaction import redacted, without_secrets

from .inputs import CHUNK_BYTES, HISTORY_SUFFIXES, Source, WalkSettings, resolve
from .output_sinks import Sink, WriteFailed

#: ``scheme://``: what makes a PATH a URL (a store URL, ``langgraph+…://``, is `cli.stores`').
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_object_url(given: str) -> bool:
    """Whether a PATH argument is an fsspec URL (not a store URL, which has a ``+``)."""
    match = _URL.match(given)
    return match is not None and "+" not in match.group(0)


def split_urls(paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """The PATH arguments that are not URLs, and the URLs among them."""
    return [p for p in paths if not is_object_url(p)], [p for p in paths if is_object_url(p)]


#: The URL protocols toolpatch reads and writes (docs/cli.md#object-stores), each with the
#: extra its file system needs (``None``: none of toolpatch's): this machine's files and the
#: object stores, under their fsspec names and aliases (``s3a``, Hadoop's name for S3;
#: ``gcs``, gcsfs's for ``gs``; ``abfs``, ``abfss``, adlfs's for ``az``). Not HTTP (whose
#: "folders" are a page's links, and whose writes are requests to whoever serves it), nor
#: fsspec's archives, caches and chains.
PROTOCOLS: dict[str, str | None] = {
    "file": None,
    "s3": "s3",
    "s3a": "s3",
    "gs": None,
    "gcs": None,
    "az": None,
    "abfs": None,
    "abfss": None,
}


class RefusedURL(ValueError):
    """A URL toolpatch does not read or write: another protocol, a chain, or an output name
    that would lead outside the ``-o PREFIX`` named. Its message shows the URL redacted."""


def checked_url(url: str) -> str:
    """``url`` (or a local path), when toolpatch may hand it to fsspec.

    Raises:
        RefusedURL: Its protocol is not one of `PROTOCOLS`, or it chains file systems
            (fsspec's ``::``, which would reach another protocol from a permitted one), or it
            is a ``file://`` URL with a host or user (fsspec would read it as a relative path).
    """
    match = _URL.match(url)
    scheme = match.group(0)[:-3] if match is not None else None
    if scheme is not None and scheme.lower() not in PROTOCOLS:
        known = ", ".join(f"{name}://" for name in PROTOCOLS)
        msg = f"{scheme}:// URLs are not read or written (only {known}: docs/cli.md#object-stores)"
        raise RefusedURL(msg)
    if "::" in url:
        msg = "a chained URL ('::') is not read: name the object itself (docs/cli.md#urls)"
        raise RefusedURL(msg)
    if scheme is not None and scheme.lower() == "file" and not url[7:].startswith("/"):
        msg = "a file:// URL names a file of this machine: file:///absolute/path, no host or user"
        raise RefusedURL(msg)
    return url


def file_system(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` and the path in it: the only way toolpatch reaches
    fsspec, so only a `checked_url` does.

    Raises:
        RefusedURL: It is not a URL toolpatch reads (`checked_url`).
        MissingExtra: fsspec, or the file system's own package (``s3fs`` for ``s3://``), is
            not installed.
        OSError: Another file system's package is missing (fsspec names it).
    """
    checked_url(url)
    scheme = url.split("://", 1)[0].lower()
    extra = PROTOCOLS.get(scheme)
    try:
        import fsspec.core

        fs, path = fsspec.core.url_to_fs(url)
    except ModuleNotFoundError as missing:
        raise MissingExtra(missing, extra=extra or "s3", part=f"a {scheme}:// PATH") from None
    except ImportError as missing:  # fsspec names the package a protocol needs
        if extra is not None:
            absent = ModuleNotFoundError(str(missing), name="s3fs")
            raise MissingExtra(absent, extra=extra, part=f"a {scheme}:// PATH") from None
        msg = f"cannot read {scheme}:// URLs: {missing}"
        raise OSError(msg) from None
    return fs, str(path)


def is_local(fs: Any) -> bool:
    """Whether ``fs`` is this machine's own file system (``file://``)."""
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


class ObjectSource(Source, frozen=True):
    """One object of a store, named by its URL (``name``; ``path`` is ``None``).

    Attributes:
        url: The object's URL.
        size: Its size as listed, when known.
        target: Where ``fix`` writes its repair (a URL or a local path; ``None``: in place).
        failure: Why the URL named no object that can be read (a missing bucket, no access):
            reading it raises that, so it is the input's error wherever it is processed.
    """

    url: str = ""
    size: int | None = None
    target: str | None = None
    failure: str | None = None

    @property
    def is_stdin(self) -> bool:
        """Never: an object."""
        return False

    @property
    def compression(self) -> Compression | None:
        """How the object is compressed, as its name ends."""
        return Compression.of(self.url)

    def blocks(self) -> Iterator[bytes]:
        """The object's bytes (decompressed), a block at a time, read once."""
        with self.opened() as read:
            yield from read

    @contextmanager
    def opened(self) -> Iterator[ObjectInput]:
        """The object, open: its bytes a block at a time (decompressed), with its identity
        as it was when it was opened.

        Raises:
            OSError: It cannot be read (missing, no access, no such bucket).
        """
        if self.failure is not None:
            raise OSError(self.failure)
        fs, path = file_system(self.url)  # a checked URL: object_sources made it
        identity = _identity(fs, path)
        with fs.open(path, "rb", block_size=CHUNK_BYTES) as handle:
            read: Callable[[int], bytes] = handle.read
            blocks = _blocks(read)
            if self.compression is not None:
                blocks = decompressed(self.compression, read)
            yield ObjectInput(blocks, self, identity)

    def sink(self, read: ObjectInput) -> ObjectSink:
        """Where ``fix`` writes the repair of ``read``: its `target` (always), or the object
        itself (only over the very object that was read, and only if something changed)."""
        if self.target is not None:
            return ObjectSink(self.target, always=True, expected=None)
        return ObjectSink(self.url, always=False, expected=read.identity)


def _blocks(read: Callable[[int], bytes]) -> Iterator[bytes]:
    while block := read(CHUNK_BYTES):
        yield block


def _identity(fs: Any, path: str) -> tuple[object, ...]:
    """What tells that an object is still the one that was read: its ETag where the store
    gives one (S3, GCS, Azure), else its size and modification time, fresh from the store.

    Raises:
        OSError: It does not exist, or cannot be looked at.
    """
    fs.invalidate_cache(path)
    try:
        info = fs.info(path)
    except FileNotFoundError:
        msg = f"no such object: {path}"
        raise FileNotFoundError(msg) from None
    except (OSError, MissingExtra):
        raise
    except Exception as exc:  # a store's own error (no access, no such bucket)
        msg = f"cannot read {path}: {_named(exc)}"
        raise OSError(msg) from None
    if info.get("type") == "directory":
        msg = f"a prefix, not an object: {path}"
        raise IsADirectoryError(msg)
    etag = info.get("ETag") or info.get("etag") or info.get("md5_hash")
    if etag is not None:
        return ("etag", str(etag).strip('"'))
    modified = info.get("LastModified") or info.get("mtime") or info.get("last_modified")
    return ("size", info.get("size"), str(modified))


def _named(exc: BaseException) -> str:
    """An exception in words: its type and message (never its arguments' repr, which may hold
    request details)."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


class ObjectInput(Iterator[bytes]):
    """An open object's content, a block at a time, and its identity when it was opened."""

    def __init__(
        self, blocks: Iterator[bytes], source: ObjectSource, identity: tuple[object, ...]
    ) -> None:
        self._blocks = blocks
        self.source = source
        self.identity = identity

    def __next__(self) -> bytes:
        return next(self._blocks)


class ObjectSink(Sink):
    """A repaired object, spooled to a local temporary file and uploaded whole at the end: only
    if it changed (or always, for an ``-o`` target), and for the object itself only if it is
    still the one that was read (``expected``)."""

    def __init__(self, url: str, *, always: bool, expected: tuple[object, ...] | None) -> None:
        self._url = url
        self._always = always
        self._expected = expected
        import tempfile  # only a fix of an object spools: a run over files never needs it

        compression = Compression.of(url)
        self._compressor = None if compression is None else compression.compressor()
        self._spool = tempfile.NamedTemporaryFile(prefix="toolpatch-", delete=False)  # noqa: SIM115
        self._failure: OSError | None = None

    def write(self, piece: bytes | memoryview) -> None:
        if self._failure is not None:
            return
        try:
            self._spool.write(
                piece if self._compressor is None else self._compressor.compress(piece)
            )
        except OSError as exc:
            self._failure = exc

    def finish(self, *, changed: bool, emit: Callable[[bytes], None]) -> None:
        if not (changed or self._always):
            return
        try:
            if self._compressor is not None and self._failure is None:
                self._spool.write(self._compressor.flush())
            self._spool.flush()
        except OSError as exc:
            self._failure = self._failure or exc
        if self._failure is not None:
            msg = f"cannot write the output (spooled to a temporary file): {self._failure}"
            raise WriteFailed(msg)
        fs, path = file_system(self._url)
        if self._expected is not None:
            try:
                now: tuple[object, ...] | None = _identity(fs, path)
            except OSError:
                now = None
            if now != self._expected:
                why = "it was removed" if now is None else "its ETag or modification time changed"
                msg = (
                    f"not written: the object changed while it was being fixed ({why}); the "
                    "repair of what was read would lose that, so the object is left as it is now"
                )
                raise WriteFailed(msg)
        try:
            if is_local(fs):  # an -o folder on this machine, made as a local -o's would be
                os.makedirs(os.path.dirname(path), exist_ok=True)
            fs.put_file(self._spool.name, path)
        except Exception as exc:  # a store's own error too; an upload is whole or nothing
            msg = f"cannot write {redacted(self._url)}: {without_secrets(_named(exc), self._url)}"
            raise WriteFailed(msg) from None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._spool.close()
        os.unlink(self._spool.name)


def object_sources(
    urls: Sequence[str], *, walk: WalkSettings, output_prefix: str | None
) -> Iterator[Source]:
    """The inputs the URLs name, in order: each object (a prefix walked), or a local file for
    ``file://``, named by its URL redacted (`integrations.redaction`); a URL that names nothing
    readable, or an object whose name cannot be written safely, is one input that fails with
    why. With ``output_prefix`` (a `checked_url`), each input's ``fix`` goes there under its
    name relative to the prefix walked (a named object: its base name)."""
    for url in urls:
        try:
            fs, path = file_system(url)
            if is_local(fs):
                yield from _local(url, path, walk=walk, output_prefix=output_prefix)
                continue
            found = _listed(fs, path, url, walk=walk)
        except Exception as exc:  # OSError, MissingExtra, a store's own (no access, ...)
            yield _failed(url, without_secrets(_named(exc), url))
            continue
        for name, size, relative, explicit in found:
            try:
                target = None if output_prefix is None else _joined(output_prefix, relative)
                checked_url(name)
                _plain(relative)  # a URL with a '..' may name another object once resolved
            except RefusedURL as exc:
                yield _failed(name, str(exc))
                continue
            yield ObjectSource(
                redacted(name), None, explicit=explicit, url=name, size=size, target=target
            )


def _failed(url: str, why: str) -> ObjectSource:
    """An input that fails with ``why`` wherever it is processed, named by ``url`` redacted."""
    return ObjectSource(redacted(url), None, url=url, failure=why)


def _local(
    url: str, path: str, *, walk: WalkSettings, output_prefix: str | None
) -> Iterator[Source]:
    """A ``file://`` URL: the local file or folder, walked as a local PATH is, each file named
    by its own URL."""
    for source in resolve([path], stdin_filename=None, walk=walk):
        assert source.path is not None
        absolute = os.path.abspath(source.path)
        name = "file://" + absolute
        if output_prefix is None:
            yield structs.replace(source, name=name)
            continue
        relative = os.path.relpath(absolute, path) if os.path.isdir(path) else source.path.name
        try:
            target = _joined(output_prefix, relative.replace(os.sep, "/"))
        except RefusedURL as exc:
            yield _failed(name, str(exc))
            continue
        yield ObjectSource(name, None, explicit=source.explicit, url=name, size=None, target=target)


def _plain(relative: str) -> str:
    """``relative`` (an object's name below the prefix walked), when every segment of it is a
    plain name: none is ``..``, ``.`` or empty, none holds a backslash (a separator on Windows).

    Raises:
        RefusedURL: It is not: joined to a prefix, it could name something outside it.
    """
    parts = relative.split("/")
    if any(part in ("", ".", "..") or "\\" in part for part in parts):
        msg = (
            f"its name below the prefix, {relative!r}, has a '..', '.' or empty segment: "
            "it could lead outside the prefix, so it is neither read nor written (rename it)"
        )
        raise RefusedURL(msg)
    return relative


def _joined(prefix: str, relative: str) -> str:
    """Where ``fix -o PREFIX`` writes the input named ``relative`` below the prefix walked:
    under PREFIX, and only there (a local PREFIX: the path resolved, symlinks followed).

    Raises:
        RefusedURL: ``relative`` is not `_plain`, or the path would resolve outside PREFIX.
    """
    target = prefix.rstrip("/") + "/" + _plain(relative)
    fs, root = file_system(prefix)
    if is_local(fs):
        top = os.path.realpath(root)
        where = os.path.realpath(file_system(target)[1])
        if os.path.commonpath([top, where]) != top:
            msg = f"not written: {relative!r} resolves outside -o {prefix} (to {where})"
            raise RefusedURL(msg)
    return target


def _listed(
    fs: Any, path: str, url: str, *, walk: WalkSettings
) -> list[tuple[str, int | None, str, bool]]:
    """The objects ``url`` names: itself, or below it when it is a prefix (walked); each as
    (its URL, its size, its name relative to the prefix, whether it was named). What the
    exclusions pass over is passed over as in a folder (`WalkSettings.bucket_exclusions`:
    the same code, each object named by its key in the bucket).

    Raises:
        FileNotFoundError: Nothing is there (no such object, prefix or bucket).
    """
    from .exclusions import excluded

    exclusions = walk.bucket_exclusions()
    fs.invalidate_cache(path)
    if not url.endswith("/") and fs.isfile(path):
        if walk.force_exclude and exclusions.excludes_named(_key(path), is_dir=False):
            return []
        return [(url, fs.size(path), posixpath.basename(path), True)]
    if not fs.exists(path):
        msg = f"no such object, prefix or bucket: {url}"
        raise FileNotFoundError(msg)
    top = path.rstrip("/")
    if walk.force_exclude and exclusions.excludes_named(_key(top), is_dir=True):
        return []
    exclude, ignore_files = exclusions.walk_start(_key(top))
    found = fs.find(top, detail=True)
    base = url.rstrip("/")
    kept = []
    for key, info in found.items():
        relative = key[len(top) :].lstrip("/")
        if not relative or info.get("type") == "directory":
            continue
        if not relative.lower().endswith(HISTORY_SUFFIXES):
            continue
        parts = relative.split("/")
        inside = [_key(top + "/" + "/".join(parts[: n + 1])) for n in range(len(parts))]
        if any(
            excluded(exclude, ignore_files, where, is_dir=n < len(parts) - 1)
            for n, where in enumerate(inside)
        ):
            continue
        kept.append((f"{base}/{relative}", info.get("size"), relative, False))
    kept.sort(key=lambda entry: _walk_order(entry[2]))
    return kept


def _key(path: str) -> str:
    """An object's (or a prefix's) key in its bucket, as the path a walk matches: below ``/``
    (fsspec's path is the bucket, then the key)."""
    return "/" + path.partition("/")[2].strip("/")


def _walk_order(relative: str) -> tuple[tuple[int, str], ...]:
    """A walk's order: each folder's files (sorted) before its subfolders (sorted)."""
    parts = relative.split("/")
    return (*((1, folder) for folder in parts[:-1]), (0, parts[-1]))


def object_sink(source: Source, read: object) -> Sink:
    """Where ``fix`` writes an object's repair (`cli.input_run` asks, for a source that is
    neither a file nor standard input)."""
    assert isinstance(source, ObjectSource)
    assert isinstance(read, ObjectInput)
    return source.sink(read)
