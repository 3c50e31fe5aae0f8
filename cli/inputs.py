"""Which inputs a run covers: named files, directories walked for JSON/JSONL, or stdin (also
when no PATH is given and it holds data; else the current folder); and what an input's place
says of it: the dialect its folder implies (`dialect_of_place`) and whether some process still
writes it (`OpenForWriting`).

**A Cline task folder.** Cline (and Roo Code) keep each task in a folder of its own,
``<global storage>/tasks/<id>/`` (``ensureTaskDirectoryExists`` in Cline's
``src/core/storage/disk.ts``), which holds the model conversation
``api_conversation_history.json`` beside ``ui_messages.json`` (what the chat panel shows), and,
in later releases, ``context_history.json`` and ``task_metadata.json`` (``GlobalFileNames``).
Its messages read as Anthropic's, but Cline answers many calls with text and pairs them as it
sends them (docs/formats.md#cline-and-roo-code-task-histories), which no content tells. So the
folder tells: a JSON file named as Cline's history, or any other JSON file (a renamed copy, a
``.fixed`` one) in a folder that holds one of Cline's two task files, is read as the ``cline``
dialect; Cline's other task files hold no conversation and keep their reading.

**Files open for writing**: the evidence that an agent session log is still being appended
to, whatever the age of its last entry (docs/cli.md#live-sessions). On Linux each process's
open files are under ``/proc``: ``/proc/PID/fd/N`` is a link to the file (its device and inode,
by ``stat``), and ``/proc/PID/fdinfo/N`` gives the flags it was opened with (``O_WRONLY`` or
``O_RDWR``: for writing). Only the processes this one may look at are seen (its own user's, or
every one as root), which includes the agent its user runs. Elsewhere (no ``/proc``), nothing
is seen and the clock alone decides.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

import patchcore
from toolpatch.integrations.file_io import Compression, FileIdentity, file_blocks

if TYPE_CHECKING:
    from patchcore import Options

    from .exclusions import Exclusions


#: How much of an input is read at a time.
CHUNK_BYTES = 2**20
#: File endings picked up when walking a directory (also compressed: `integrations.file_io`).
HISTORY_SUFFIXES = tuple(
    plain + compressed
    for plain in (".json", ".jsonl", ".ndjson")
    for compressed in ("", *(c.value for c in Compression))
)
#: What a walk passes over unless the configuration's ``exclude`` says otherwise (gitignore
#: patterns): hidden files and folders, and the folders of installed packages and caches.
DEFAULT_EXCLUDE = (".*", "node_modules", "__pycache__", "venv", "site-packages")


class WalkSettings(msgspec.Struct, frozen=True):
    """What a run passes over (docs/cli.md#inputs; `cli.exclusions` does the matching).

    Attributes:
        exclude: Gitignore patterns: the configuration's ``exclude`` (or `DEFAULT_EXCLUDE`),
            then its ``extend-exclude``.
        root: The folder they are relative to (the configuration's; ``None``: the current one).
        respect_gitignore: Whether ``.gitignore``, ``.ignore`` and ``.git/info/exclude`` count.
        force_exclude: Whether paths named on the command line are matched too (else they are
            always processed).
    """

    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    root: Path | None = None
    respect_gitignore: bool = True
    force_exclude: bool = False

    def exclusions(self) -> Exclusions:
        """The matcher (imports pathspec)."""
        from .exclusions import Exclusions

        root = self.root if self.root is not None else Path.cwd()
        return Exclusions(self.exclude, root=root, respect_gitignore=self.respect_gitignore)

    def bucket_exclusions(self) -> Exclusions:
        """The matcher for a walk of a bucket (`cli.object_inputs`): its keys are paths below
        ``/``, matched as a folder's files are matched relative to the configuration's folder;
        no ignore file is read from a bucket."""
        from .exclusions import Exclusions

        return Exclusions(self.exclude, root=Path("/"), respect_gitignore=False)


#: The walk of a run whose configuration says nothing.
DEFAULT_WALK = WalkSettings()


class Source(msgspec.Struct, frozen=True):
    """One input.

    Attributes:
        name: How messages name it (the path as given, or the stdin name).
        path: The file, or ``None`` for standard input.
        explicit: Named on the command line (a file found by walking a directory is not; such a
            file is skipped, not an error, when it holds no message history).
        excluded: Standard input whose ``--stdin-filename`` the exclusions name, under
            ``--force-exclude``: passed over as an excluded file would be (``fix`` passes it
            through unchanged, as a filter must).
        passed_over: Why a walk found it but does not read it (a symlink, a FIFO, a device:
            docs/cli.md#safety); reported, never opened.
        unreadable: Why a walk could not look into it (a folder it may not list): the
            error of that path.
        thread: For a thread of a store named by URL, its id (``name`` is then the store's
            URL, without its secrets, and ``#`` and the id: docs/stores.md).
        events: ``path`` is a folder that is an OpenHands event store, one input
            (`cli.event_stores`).
    """

    name: str
    path: Path | None
    explicit: bool = True
    excluded: bool = False
    passed_over: str | None = None
    unreadable: str | None = None
    thread: str | None = None
    events: bool = False

    @property
    def store(self) -> str | None:
        """For a thread of a store, the store's URL (without its secrets)."""
        if self.thread is None:
            return None
        return self.name.removesuffix("#" + self.thread)

    @property
    def is_stdin(self) -> bool:
        """Whether this is standard input."""
        return self.path is None

    @property
    def compression(self) -> Compression | None:
        """How the file is compressed, as its name ends (``x.jsonl.gz``); stdin never is."""
        return None if self.path is None else Compression.of(self.path.name)

    def read(self, options: Options) -> bytes:
        """The input's bytes, decompressed, read whole within the record-size limit of
        ``options`` as a check reads them (`patchcore.Stream.read_whole`: docs/cli.md#limits).

        Raises:
            OSError: The input cannot be read.
            patchcore.DecodeError: A record or a run of blank space is over the limit, or a
                device or FIFO is no history (`history_stream`).
        """
        with self.opened() as read:
            return read_whole(read, options)

    def blocks(self) -> Iterator[bytes]:
        """The input's bytes (decompressed), a block at a time, read once."""
        with self.opened() as read:
            if isinstance(read, FileInput):
                yield from _blocks(lambda size: os.read(read.fd, size))
            else:
                yield from read

    @contextmanager
    def opened(self) -> Iterator[FileInput | Iterator[bytes]]:
        """The open input: a `FileInput` for a regular file (read at any offset), else its
        bytes a block at a time (stdin, a pipe, a device, a compressed file: `Decompressed`),
        read once.

        Raises:
            OSError: The file cannot be opened.
        """
        if self.path is None:
            blocks = _blocks(sys.stdin.buffer.read)
            yield history_stream(blocks) if _stdin_is_a_device() else blocks
            return
        if self.events:
            from .event_stores import StoreInput, read_store

            yield StoreInput(read_store(self.path))
            return
        fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            status = os.fstat(fd)
            if self.compression is not None:
                yield Decompressed(file_blocks(self.compression, fd), status)
            elif stat.S_ISREG(status.st_mode):
                yield FileInput(fd, str(self.path))
            else:  # a device, a FIFO, a socket named on the command line
                yield history_stream(_blocks(partial(os.read, fd)))
        finally:
            os.close(fd)


def read_whole(read: FileInput | Iterator[bytes], options: Options) -> bytes:
    """All of an open input (`Source.opened`), read as a check reads what it holds whole
    (`patchcore.Stream.read_whole`): within the record-size limit of ``options``."""
    return patchcore.Stream(read, filename=None, options=options, fix=False).read_whole()


class Decompressed(Iterator[bytes]):
    """A compressed file's content, decompressed a block at a time as it is read.

    Raises (while iterated):
        CorruptInput: The file is not valid in its compression, or is cut short.
        MissingExtra: A ``.zst`` file without the ``[zstd]`` extra.
    """

    def __init__(self, blocks: Iterator[bytes], status: os.stat_result) -> None:
        self._blocks = blocks
        self.status = status
        """What ``fstat`` said when it was opened (what a fix checks before it replaces it)."""

    def __next__(self) -> bytes:
        return next(self._blocks)


def _blocks(read: Callable[[int], bytes]) -> Iterator[bytes]:
    while block := read(CHUNK_BYTES):
        yield block


#: The bytes a history's first non-blank byte may be: an object, an array, a UTF-8 BOM.
_HISTORY_STARTS = (b"{", b"[", b"\xef")


def history_stream(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """``blocks`` of a device or FIFO, refused at the first byte no history can hold there: a
    first non-blank byte that opens no JSON object or array, or a NUL byte anywhere (JSON text
    never holds one raw). ``/dev/zero`` or ``/dev/urandom`` would otherwise be read forever,
    as a document is read whole before it is parsed (docs/cli.md#safety).

    Raises (while iterated):
        patchcore.DecodeError: Located at the refused byte.
    """
    line, column = 1, 0  # where the block about to be read starts (column: bytes before it)
    started = False
    for block in blocks:
        bad = block.find(b"\0")
        if not started and (start := block.lstrip(b" \t\r\n")):
            started = True
            first = len(block) - len(start)
            if not start.startswith(_HISTORY_STARTS) and (bad < 0 or first < bad):
                bad = first
        if bad >= 0:
            breaks = block.count(b"\n", 0, bad)
            where = bad - block.rfind(b"\n", 0, bad) if breaks else column + bad + 1
            if block[bad] == 0:
                what = "a NUL byte, which JSON text never holds"
            else:
                what = f"byte 0x{block[bad]:02x} where a history starts with {{ or ["
            msg = f"not a message history (a device or FIFO, read no further): {what}"
            raise patchcore.DecodeError(msg, line=line + breaks, column=where)
        yield block
        breaks = block.count(b"\n")
        line += breaks
        column = len(block) - block.rfind(b"\n") - 1 if breaks else column + len(block)


def _stdin_is_a_device() -> bool:
    """Whether standard input is a device (``< /dev/zero``), which no history comes from."""
    try:
        return stat.S_ISCHR(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError):
        return False


class FileInput:
    """A regular file, read at any offset (`patchcore.RandomAccess`), that must stay the file
    it was when it was opened.

    ``pread`` rather than a memory map: a file that shrinks while it is read is then an error
    to report, where a mapped page that is gone would kill the process. After each read its
    identity (`FileIdentity`: device, inode, size, modification time) is looked at again, so
    bytes another process wrote in place meanwhile are never taken for the ones the run began
    with (docs/cli.md#a-file-that-changes-while-it-is-read).

    ``identity``: what it must be, for a file opened again in another process (`SharedFile`);
    by default what ``fstat`` says now.
    """

    def __init__(self, fd: int, path: str, *, identity: FileIdentity | None = None) -> None:
        self.fd = fd
        self.path = path
        self.status = os.fstat(fd)
        """What ``fstat`` said when it was opened (what a fix checks before it replaces it)."""
        self.identity = identity if identity is not None else FileIdentity.of(self.status)
        self.check_unchanged()

    @property
    def size(self) -> int:
        """Its length when it was opened."""
        size: int = self.identity.size  # FileIdentity, imported by its installed name: Any
        return size

    def read(self, offset: int, size: int) -> bytes:
        """``size`` bytes from ``offset`` on (fewer only at its end).

        Raises:
            InputChanged: It is not the file it was (it changed while being read).
        """
        wanted = min(size, self.size - offset)
        data = os.pread(self.fd, wanted, offset)
        while len(data) < wanted:
            more = os.pread(self.fd, wanted - len(data), offset + len(data))
            if not more:
                break
            data += more
        self.check_unchanged()
        if len(data) < wanted:  # shorter, with a size and time as they were: still changed
            msg = InputChanged.REASON.format(change="it is shorter than it was")
            raise InputChanged(msg)
        return data

    def check_unchanged(self) -> None:
        """Raise `InputChanged` if the open file is no longer what `identity` says."""
        change = self.identity.change(FileIdentity.of(os.fstat(self.fd)))
        if change is not None:
            msg = InputChanged.REASON.format(change=change)
            raise InputChanged(msg)

    def shared(self) -> SharedFile:
        """How a worker process reads this very file (`SharedFile`)."""
        return SharedFile(self.path, os.getpid(), self.fd, self.identity)


class InputChanged(OSError):
    """The input file is no longer the one the run opened: another process replaced it or
    wrote to it while it was read. Its findings would describe bytes nobody checked, so the
    input is an error instead (exit 2)."""

    REASON = "the file changed while toolpatch read it ({change})"


class SharedFile(NamedTuple):
    """A `FileInput` as a worker process gets it (picklable): the worker reads the file the main
    process opened, not whatever has the name now.

    On Linux the worker opens the main process's own descriptor (``/proc/PID/fd/N``: the same
    file, renamed over or removed or not); elsewhere, or without ``/proc``, it opens the name.
    Either way `FileInput` then checks that it is the file the main process identified, before
    and after each read.
    """

    path: str
    owner: int
    """The main process, which holds the file open."""
    fd: int
    """Its descriptor there."""
    identity: FileIdentity

    @contextmanager
    def opened(self) -> Iterator[FileInput]:
        """The file, open in this process.

        Raises:
            InputChanged: It is not the file the main process opened.
            OSError: It cannot be opened.
        """
        fd = self._reopen()
        try:
            yield FileInput(fd, self.path, identity=self.identity)
        finally:
            os.close(fd)

    def _reopen(self) -> int:
        if sys.platform == "linux":
            try:
                return os.open(f"/proc/{self.owner}/fd/{self.fd}", os.O_RDONLY)
            except OSError:  # no /proc here (some containers): the name, checked by identity
                pass
        try:
            return os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            msg = InputChanged.REASON.format(change="it was removed or renamed")
            raise InputChanged(msg) from None


def _walk(directory: Path, exclusions: Exclusions) -> list[Source]:
    """The history files below ``directory``, each folder's files (sorted) before its
    subfolders (sorted), passing over what ``exclusions`` exclude or ignore.

    Only regular files are read, and nothing is followed out of the tree: a symlinked folder
    is not entered, and a symlink, FIFO, socket or device with a history's name is passed over
    and reported (`Source.passed_over`; a FIFO would hang the walk, a link could lead it to
    rewrite a file elsewhere). A folder that cannot be listed is that path's error
    (`Source.unreadable`), never a silent gap. The walk keeps its own stack, so a tree of any
    depth is walked (docs/cli.md#safety).
    """
    from .event_stores import is_event_store
    from .exclusions import excluded

    top = os.path.abspath(directory)
    exclude, above = exclusions.walk_start(top)
    found = []
    # Folders still to list, the next at the end: (absolute, as shown, ignore files above).
    pending = [(top, directory, above)]
    while pending:
        root, shown, outside = pending.pop()
        try:
            with os.scandir(root) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            reason = f"cannot list the folder: {exc.strerror or exc}"
            found.append(Source(str(shown), Path(shown), unreadable=reason))
            continue
        inside = outside.entering(root, {entry.name for entry in entries})
        folders = []
        for entry in entries:
            path = os.path.join(root, entry.name)
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
                kind = _passed_over(entry)
            except OSError as exc:
                reason = f"cannot look at it: {exc.strerror or exc}"
                found.append(Source(str(shown / entry.name), shown / entry.name, unreadable=reason))
                continue
            if is_folder:
                if excluded(exclude, inside, path, is_dir=True):
                    continue
                if is_event_store(Path(path)):
                    named = shown / entry.name
                    found.append(Source(str(named), named, explicit=False, events=True))
                else:
                    folders.append((path, shown / entry.name, inside))
            elif entry.name.lower().endswith(HISTORY_SUFFIXES) and not excluded(
                exclude, inside, path, is_dir=False
            ):
                named = shown / entry.name
                found.append(Source(str(named), named, explicit=False, passed_over=kind))
        pending.extend(reversed(folders))
    return found


def _passed_over(entry: os.DirEntry[str]) -> str | None:
    """Why a walk does not read the file ``entry``, or ``None`` for a regular file."""
    if entry.is_symlink():
        return "a symlink: a walk does not follow links (name it to check what it points to)"
    if entry.is_file(follow_symlinks=False):
        return None
    mode = entry.stat(follow_symlinks=False).st_mode
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"{kind}, not a regular file: a walk reads regular files only"


def stdin_has_data() -> bool:
    """Whether standard input holds data to read when no PATH is given: a pipe (or a socket,
    as some process managers connect it), or a regular file with bytes left (``< file``); not a
    terminal, ``/dev/null`` (where CI and cron leave it) or another device, nor an empty file."""
    if sys.stdin is None:
        return False
    try:
        fd = sys.stdin.fileno()
        status = os.fstat(fd)
    except (OSError, ValueError):  # closed, or not a file (io.UnsupportedOperation)
        return False
    if stat.S_ISFIFO(status.st_mode) or stat.S_ISSOCK(status.st_mode):
        return True
    if not stat.S_ISREG(status.st_mode):
        return False
    try:
        offset = os.lseek(fd, 0, os.SEEK_CUR)
    except OSError:
        offset = 0
    return status.st_size > offset


def may_be_url(given: str) -> bool:
    """Whether a PATH (or an input's name) may be a URL, a store's or an object's
    (``scheme://``, which `cli.stores` and `cli.object_inputs` tell apart): one without ``://``
    is a local path, and a run of local paths never asks them."""
    return "://" in given


def given_paths(paths: Sequence[str]) -> list[str]:
    """The PATHs of a run: as given; without any, ``-`` when standard input holds data
    (`stdin_has_data`), else the current folder ``.``, as ruff does."""
    if paths:
        return list(paths)
    return ["-"] if stdin_has_data() else ["."]


def resolve(
    paths: Sequence[str], *, stdin_filename: str | None, walk: WalkSettings = DEFAULT_WALK
) -> list[Source]:
    """Turn command-line paths into sources, in order, each file once however it is named.

    No path means standard input when it holds data, else the current folder (`given_paths`);
    ``-`` reads standard input whatever it is. Directories are walked as ``walk`` says; a named
    path is always taken, unless ``walk.force_exclude`` and it is excluded or ignored (for
    standard input, its ``stdin_filename``: then it is marked ``excluded``).
    """
    stdin = Source(stdin_filename or "-", None)
    sources: list[Source] = []
    seen: set[str] = set()
    exclusions: Exclusions | None = None  # made when first needed: it imports pathspec
    if walk.force_exclude and stdin_filename is not None:
        exclusions = walk.exclusions()
        if exclusions.excludes_named(stdin_filename, is_dir=False):
            stdin = Source(stdin_filename, None, excluded=True)
    for given in given_paths(paths):
        is_dir = given != "-" and os.path.isdir(given)
        if is_dir or (walk.force_exclude and given != "-"):
            exclusions = exclusions or walk.exclusions()
            if walk.force_exclude and exclusions.excludes_named(given, is_dir=is_dir):
                continue
        if given == "-":
            candidates = [stdin]
        elif is_dir and _is_event_store(given):
            candidates = [Source(given, Path(given), events=True)]
        elif exclusions is not None and is_dir:
            candidates = _walk(Path(given), exclusions)
        else:
            candidates = [Source(given, Path(given))]
        for source in candidates:
            key = _identity(source)
            if key not in seen:
                seen.add(key)
                sources.append(source)
    return sources


def _is_event_store(folder: str) -> bool:
    """Whether a folder named on the command line is an OpenHands event store."""
    from .event_stores import is_event_store

    return is_event_store(Path(folder))


def _identity(source: Source) -> str:
    """What makes two sources one input: the same file however it was named (``h.json``,
    ``./h.json``, found again by walking ``.``), or standard input."""
    if source.path is None:
        return "-"
    return os.path.normcase(os.path.abspath(source.path))


#: The file Cline keeps a task's model conversation in.
CLINE_HISTORY = "api_conversation_history.json"
#: Files that make a folder a Cline task folder: the history, and the chat panel's messages
#: that Cline writes beside it in every task.
CLINE_TASK_FILES = (CLINE_HISTORY, "ui_messages.json")
#: Cline's task files that hold no model conversation.
CLINE_OTHER_FILES = frozenset({"ui_messages.json", "context_history.json", "task_metadata.json"})


def dialect_of_place(name: str) -> str | None:
    """The dialect the place of the input ``name`` (a path as given, or the name given to
    standard input) implies, or ``None``: ``cline`` for a JSON file in a Cline task folder.
    Looks at the file's folder (a file name alone says it only for Cline's own name)."""
    path = Path(name)
    if path.name == CLINE_HISTORY:
        return "cline"
    if path.suffix != ".json" or path.name in CLINE_OTHER_FILES:
        return None
    try:
        in_task = any((path.parent / task_file).is_file() for task_file in CLINE_TASK_FILES)
    except OSError:
        return None
    return "cline" if in_task else None


#: Where the processes' open files are listed.
PROC = "/proc"

#: The access mode bits of a descriptor's flags, and the modes that write.
_ACCESS_MODE = 0o3
_WRITING = (os.O_WRONLY, os.O_RDWR)


class OpenForWriting:
    """The files held open for writing by some process, listed once, when first asked (one
    look over ``/proc`` for a run, however many inputs it has), by device and inode.

    The look finds every regular file open in a process (a ``stat`` of each descriptor);
    whether a descriptor was opened for writing is read only for the files asked about, as most
    of a machine's open files are not an input of the run (on a busy machine reading every
    regular file's flags was a third of the look, paid by every run)."""

    def __init__(self, proc: str = PROC) -> None:
        self._proc = proc
        self._open: dict[tuple[int, int], list[tuple[int, str]]] | None = None

    def holders(self, status: os.stat_result) -> tuple[int, ...]:
        """The processes (ids) that hold the file of ``status`` open for writing. A process
        that ends, or that may not be looked at, while it is read is passed over."""
        if self._open is None:
            self._open = _scan(self._proc)
        found: list[int] = []
        for pid, fdinfo in self._open.get((status.st_dev, status.st_ino), ()):
            try:
                writes = _writes(fdinfo)
            except (OSError, ValueError):
                continue
            if writes and pid not in found:
                found.append(pid)
        return tuple(found)


def _scan(proc: str) -> dict[tuple[int, int], list[tuple[int, str]]]:
    """Each regular file open in some process (device, inode), with the process and the
    ``fdinfo`` file of each descriptor that holds it; nothing where there is no ``proc`` (not
    Linux). A process that ends, or that may not be looked at, while it is read is passed
    over."""
    found: dict[tuple[int, int], list[tuple[int, str]]] = {}
    try:
        processes = [entry.name for entry in os.scandir(proc) if entry.name.isdigit()]
    except OSError:
        return found
    for pid in processes:
        fds = f"{proc}/{pid}/fd"
        try:
            descriptors = [entry.name for entry in os.scandir(fds)]
        except OSError:
            continue
        for fd in descriptors:
            try:
                status = os.stat(f"{fds}/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(status.st_mode):  # most descriptors are pipes and sockets
                found.setdefault((status.st_dev, status.st_ino), []).append(
                    (int(pid), f"{proc}/{pid}/fdinfo/{fd}")
                )
    return found


def _writes(fdinfo: str) -> bool:
    """Whether the descriptor ``fdinfo`` describes was opened for writing (its ``flags:``
    line, in octal).

    Raises:
        OSError: It is gone, or may not be read.
        ValueError: It has no flags line that parses.
    """
    with open(fdinfo, encoding="ascii") as info:
        for line in info:
            if line.startswith("flags:"):
                return int(line.split()[1], 8) & _ACCESS_MODE in _WRITING
    msg = f"{fdinfo}: no flags"
    raise ValueError(msg)
