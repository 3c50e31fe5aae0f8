"""Run check or fix over the inputs: read, call patchcore, write, and record each outcome."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import msgspec

import patchcore
from patchcore import MissingExtra, Stream, Unchanged
from toolpatch.integrations.file_io import Compression, FileIdentity, plain_name

from .event_stores import StoreFiles, StoreInput
from .input_errors import InputError
from .inputs import Decompressed, FileInput, Source, read_whole
from .output_sinks import (
    Discard,
    InPlace,
    ReplacedFile,
    Sink,
    Spool,
    StreamOutput,
    Target,
    ToFile,
    ToPrefix,
    WriteFailed,
    is_stream,
    writes_stdout,
)

if TYPE_CHECKING:
    from patchcore import Batch, FixPlan, Mapper, Options, Result, StreamProgress


class BatchPool(Protocol):
    """What spreads a streamed input's batches (`patchcore.Mapper`): a pool of processes here
    (`cli.parallel.ProcessMapper`, ``--jobs``) or block tasks on a Dask cluster
    (`toolpatch.integrations.dask.BlockTasks`, ``--dask``)."""

    def __call__(
        self, function: Callable[[Batch], Result], items: Iterable[Batch]
    ) -> Iterable[Result]: ...

    def reading(self, file: FileInput) -> Mapper:
        """The same map over batches of the open regular file ``file``, each read from it
        where it is processed."""


class Mode(enum.Enum):
    """What a run does with what it finds (black's ``WriteBack``)."""

    CHECK = "check"
    """Report findings; write nothing."""
    FIX = "fix"
    """Write repaired files (in place, to ``-o``, or to stdout for stdin)."""
    FIX_CHECK = "fix --check"
    """Say which files would change; write nothing."""
    FIX_DIFF = "fix --diff"
    """Print the diff of what would change; write nothing."""

    @property
    def fixes(self) -> bool:
        """Whether repaired output is computed."""
        return self is not Mode.CHECK


class Outcome(msgspec.Struct):
    """What happened to one input.

    Attributes:
        source: The input.
        result: patchcore's result, if the input could be evaluated.
        error: Why it could not (or could not be written), if so.
        skipped: Why it was passed over (a walked file without a history), if it was.
    """

    source: Source
    result: Result | None = None
    error: InputError | None = None
    skipped: str | None = None
    skipped_as: str = "no message history"
    """What the closing line counts a skipped input as, when it is not excluded or a file of
    another kind (a store's thread that never got to its first step has a kind of its own)."""
    diff: str | None = None
    """The unified diff, for ``fix --diff`` when the input would change."""
    data: bytes | None = None
    """The input's bytes, kept for a report that needs them (``keep_bytes``) until it has
    taken the outcome."""
    plan: FixPlan | None = None
    """With ``keep_bytes``, what ``fix`` would write, patch by patch (`patchcore.plan_fixes`),
    when it would change anything."""
    unplanned: str | None = None
    """Why the fixes could not be planned (an internal error ``fix`` would report too)."""
    held_back: bool = False
    """``fix`` wrote nothing over the input, a session log whose agent may still be running
    (`patchcore.Result.live`): a new file in its place would lose what the agent appends next.
    ``result`` then reports every finding as left, with the fix ``--force`` would apply."""


def unsaid(result: Result) -> None:
    """The ``judged`` of a run where nobody hears the judgement before the write (a cluster's
    worker: the runner says it once the outcome is back)."""


def process(
    source: Source,
    *,
    options: Options,
    mode: Mode,
    target: Target,
    emit: Callable[[bytes], None],
    pool: BatchPool | None = None,
    progress: StreamProgress | None = None,
    keep_bytes: bool = False,
    every_list: bool = False,
    judged: Callable[[Result], None] = unsaid,
) -> Outcome:
    """Evaluate one input and carry out ``mode``.

    The input is read as a stream (`patchcore.Stream`): a large JSON Lines corpus is
    processed batch by batch (spread over ``pool``'s workers, if given), and its output goes,
    as it comes, to a temporary file that replaces the target only when the whole input
    succeeded and something changed (or to a spool that ``emit`` copies to stdout at the end,
    for stdin and ``-o -``); what a file's repair leaves as it was is copied file to file.
    ``progress`` hears of each batch done. A diff is left in the outcome for the caller to
    print.

    With ``keep_bytes`` (a check reported in a format that shows columns and fixes as they sit
    in the bytes: SARIF), the input is read whole first, as ``fix --diff`` reads it, and its
    bytes and the plan of its fixes are left in the outcome.

    ``every_list``: a streamed input's result keeps every message list, clean ones included
    (`patchcore.Stream`), for a report that lists them all.

    ``judged`` is told the input's result once it is known and before anything is written
    (the repaired file put in place, the repair sent to stdout): what is said of fine-tuning
    data is said first (docs/cli.md#fine-tuning-data).
    """
    outcome = Outcome(source)
    if source.unreadable is not None:  # a folder a walk could not list
        outcome.error = InputError(source.name, source.unreadable)
        return outcome
    if source.passed_over is not None:  # a symlink or no regular file, found by a walk
        outcome.skipped = source.passed_over
        return outcome
    if source.is_stdin and mode is Mode.FIX and writes_stdout(target, source):
        if source.excluded or not source.explicit:
            return _filter(outcome, options, emit, progress, judged)
    elif source.excluded:
        outcome.skipped = EXCLUDED
        return outcome
    if mode is Mode.FIX_DIFF:
        return _diff(outcome, options, progress, judged)
    if keep_bytes and mode is Mode.CHECK:
        return _kept(outcome, options, pool, progress, judged)
    with (
        recorded_failure(outcome),
        source.opened() as read,
        _sink(source, mode, target, read) as sink,
    ):
        stream = Stream(
            read,
            filename=framing_name(source),
            options=options,
            fix=mode.fixes,
            mapper=_mapper(read, pool),
            progress=progress,
            every_list=every_list,
        )
        for piece in stream:
            if isinstance(piece, Unchanged):
                assert isinstance(read, FileInput)  # only a file's pieces are left in it
                sink.copy(read, piece.offset, piece.size)
            else:
                sink.write(piece)
        outcome.result = stream.result
        judged(stream.result)
        if mode is Mode.FIX and stream.result.holds_input and _replaces(source, target):
            outcome.result = stream.result.unwritten()
            outcome.held_back = True  # the sink is left unfinished: its output is thrown away
        elif mode is Mode.FIX:
            sink.finish(changed=stream.result.changed, emit=emit)
    return outcome


def _replaces(source: Source, target: Target) -> bool:
    """Whether the repair's file would be put in place of the input: the input itself, or
    ``-o`` naming it (`patchcore.Result.holds_input`). Another ``-o`` file, or stdout, leaves it
    as it is."""
    if source.path is None:
        return False
    if isinstance(target, (InPlace, ToPrefix)):
        return True
    try:
        return isinstance(target, ToFile) and target.path.samefile(source.path)
    except OSError:
        return False  # ``-o`` names no existing file: not the input


@contextmanager
def recorded_failure(outcome: Outcome) -> Iterator[None]:
    """Turn the ways an input can fail into the outcome's error (or skip) instead of raising."""
    try:
        yield
    except patchcore.NoHistoryError as exc:
        if outcome.source.explicit:
            outcome.error = InputError.of(outcome.source.name, exc)
        else:
            outcome.skipped = exc.reason
    except (patchcore.PatchcoreError, WriteFailed, OSError, MissingExtra) as exc:
        # OSError: reading the input (a corrupt compressed file too); MissingExtra: a .zst file
        # without the [zstd] extra
        outcome.error = InputError.of(outcome.source.name, exc)
    except MemoryError:  # an allocation refused (a memory limit): this input's error, no crash
        outcome.error = InputError(outcome.source.name, OUT_OF_MEMORY)


#: Why an input failed when memory ran out while it was processed.
OUT_OF_MEMORY = (
    "out of memory while reading it (a lower --max-record-mib refuses large records before "
    "they are read)"
)


def _mapper(read: FileInput | Iterator[bytes], pool: BatchPool | None) -> Mapper | None:
    """How batches of the open input ``read`` are processed: in this process (``None``), or by
    the pool's workers, which read a plain file's batches from the file this process opened
    themselves (a compressed file is decompressed here, and its batches are sent to them as
    bytes, as stdin's are)."""
    if pool is None:
        return None
    if isinstance(read, FileInput):
        return pool.reading(read)
    return pool


def framing_name(source: Source) -> str | None:
    """The name whose extension may say JSON Lines (stdin has one only if it was given), without
    a compression ending (``x.jsonl.gz`` is JSON Lines)."""
    if source.events:  # its events, one a line
        return EVENT_LINES
    if source.path is not None:
        plain: str = plain_name(source.name)  # imported by its installed name: Any to mypy
        return plain
    return source.name if source.name != "-" else None


#: The name an event store's trajectory is read under: JSON Lines (`cli.event_stores`).
EVENT_LINES = "events.jsonl"

#: Why standard input was passed over: its ``--stdin-filename`` is excluded (``--force-exclude``).
EXCLUDED = "excluded (--force-exclude)"


def _filter(
    outcome: Outcome,
    options: Options,
    emit: Callable[[bytes], None],
    progress: StreamProgress | None,
    judged: Callable[[Result], None],
) -> Outcome:
    """``fix`` of standard input to standard output that may be passed over (its
    ``--stdin-filename`` excluded, or no history with ``--skip-no-history``): a filter passes
    what it skips through unchanged (``cat a | toolpatch fix - > b`` must not leave ``b``
    empty), so the input is read whole to be written back whatever is found. Nothing is
    written when it cannot be processed."""
    source = outcome.source
    with recorded_failure(outcome):
        data = source.read(options)
        if source.excluded:
            outcome.skipped = EXCLUDED
            emit(data)
            return outcome
        try:
            result = patchcore.fix_document(data, filename=framing_name(source), options=options)
        except patchcore.NoHistoryError:
            emit(data)
            raise  # recorded as skipped: the input is not named, so it may hold no history
        outcome.result = result
        if progress is not None:
            progress(len(data), len(result.conversations), len(result.findings))
        judged(result)
        emit(data if result.output is None else result.output)
    return outcome


def _diff(
    outcome: Outcome,
    options: Options,
    progress: StreamProgress | None,
    judged: Callable[[Result], None],
) -> Outcome:
    """``fix --diff``: the input and its repair, compared (nothing is written). A regular file
    is repaired as ``fix`` repairs it (`patchcore.Stream`: a large corpus batch by batch, its
    repair as ranges of the file and new bytes) and the diff reads it a window at a time
    around the changes (`patched_diff`), so memory is that of ``fix``, not a few times the
    file's size; other inputs are read whole, within the record-size limit
    (docs/cli.md#reading-whole)."""
    from .diff_view import patched_diff, unified_diff

    source = outcome.source
    name = framing_name(source)
    with recorded_failure(outcome), source.opened() as read:
        if isinstance(read, FileInput):
            stream = Stream(read, filename=name, options=options, fix=True, progress=progress)
            patches = _file_patches(stream)
            result = outcome.result = stream.result
            judged(result)
            if not result.changed:
                return outcome
            if stream.streamed:
                outcome.diff = patched_diff(read.read, read.size, patches, name=source.name)
                return outcome
            data = read.read(0, read.size)  # read whole, by its layout or its size
        else:
            data = read_whole(read, options)
            result = outcome.result = patchcore.fix_document(data, filename=name, options=options)
            if progress is not None:
                progress(len(data), len(result.conversations), len(result.findings))
            judged(result)
        if result.output is not None:
            patches = patchcore.repair_patches(data, result)
            outcome.diff = unified_diff(data, result.output, name=source.name, patches=patches)
    return outcome


def _file_patches(stream: Stream) -> list[tuple[int, int, bytes]]:
    """The repair of a streamed file as patches of it: the pieces of a fix are ranges of the
    file left as they are (`patchcore.Unchanged`) and, between two of them, the new bytes
    that replace what lies between. (An input read whole comes as one piece: its output.)"""
    patches = []
    position = 0
    new: list[bytes] = []
    for piece in stream:
        if not stream.streamed:
            continue
        if isinstance(piece, Unchanged):
            if new:
                patches.append((position, piece.offset, b"".join(new)))
                new = []
            position = piece.offset + piece.size
        else:
            new.append(bytes(piece))
    return patches


def _kept(
    outcome: Outcome,
    options: Options,
    pool: BatchPool | None,
    progress: StreamProgress | None,
    judged: Callable[[Result], None],
) -> Outcome:
    """A check of the input read whole, its bytes kept and, if ``fix`` would change them,
    its fixes planned on those same bytes."""
    source = outcome.source
    with recorded_failure(outcome):
        data = source.read(options)
        outcome.data = data
        stream = Stream(
            [data],
            filename=framing_name(source),
            options=options,
            fix=False,
            mapper=pool,  # the bytes are read: workers, if any, are sent them
            progress=progress,
        )
        for _ in stream:
            pass
        outcome.result = stream.result
        judged(stream.result)
        if any(options.applies(f.fix) for f in stream.result.findings):
            try:
                outcome.plan = patchcore.plan_fixes(
                    data, filename=framing_name(source), options=options
                )
            except patchcore.PatchcoreError as exc:  # the check stands; only its fixes are lost
                outcome.unplanned = exc.reason
    return outcome


def _sink(source: Source, mode: Mode, target: Target, read: FileInput | Iterator[bytes]) -> Sink:
    """Where ``fix`` writes: stdout (uncompressed), ``-o FILE`` (compressed as its name ends;
    written to as a stream when it is no regular file), or the input itself (in its own
    compression)."""
    if mode is not Mode.FIX:
        return Discard()
    if writes_stdout(target, source):
        return Spool()
    if isinstance(target, ToFile):
        output = target.path
        if is_stream(output):  # a device, a FIFO, /dev/stdout: written to, never replaced
            return StreamOutput(output, compression=Compression.of(output.name))
        return ReplacedFile(output, in_place=False, compression=Compression.of(output.name))
    if source.path is None:  # an object of a store (`cli.object_inputs`)
        from .object_inputs import object_sink

        return object_sink(source, read)
    if isinstance(read, StoreInput):  # an event store: its new events' files
        return StoreFiles(source.path, read.store)
    # In place: only over the very file that was read, as it was read.
    status = read.status if isinstance(read, (FileInput, Decompressed)) else None
    expected = FileIdentity.of(status) if status is not None else None
    return ReplacedFile(
        source.path, in_place=True, expected=expected, compression=source.compression
    )


def emit_stdout(data: bytes) -> None:
    """Write product bytes to stdout."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
