"""Streaming, ``--jobs`` and the per-line API give exactly what a whole-input run gives.

`patchcore.Stream` is exercised with tiny limits (a few hundred bytes read whole, batches
of a few hundred bytes) so that every sample and generated corpus is cut into many batches at
arbitrary chunk boundaries; its output bytes, findings (with lines and columns) and message
lists must equal `patchcore.pipeline.run` on the whole input. The CLI is then run on a corpus
over the real streaming threshold with ``--jobs 1`` and ``--jobs 2``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import patchcore
from benchmarks.corpus import lines as corpus_lines
from patchcore.options import Options
from patchcore.pipeline import WHOLE_LIMIT, Stream, Unchanged, run
from patchcore.raw.held_lines import HeldLines
from tests.builders import InMemory, chunked, streamed
from tests.conftest import SAMPLES
from tests.helpers import run_process as toolpatch

#: Every shipped sample that is JSON Lines (conversations per line, or messages per line).
LINE_SAMPLES = sorted(p for p in SAMPLES.rglob("*.jsonl") if ".fixed." not in p.name)


def corpus(conversations: int, *, dialect: str = "langchain", seed: int = 7) -> bytes:
    return b"".join(corpus_lines(dialect=dialect, conversations=conversations, seed=seed))


def located(report: patchcore.Result) -> list[tuple[Any, ...]]:
    return [(f.code, f.line, f.column, f.call_id, f.message) for f in report.findings]


def assert_same(data: bytes, options: Options, *, fix: bool, chunk: int, batch: int) -> None:
    """A stream of chunks and a stream of a file give what the whole run gives."""
    whole = run(data, filename="input.jsonl", options=options, fix=fix)
    for file in (False, True):
        stream = streamed(data, options, fix=fix, chunk=chunk, batch=batch, file=file)
        report = stream.result
        assert located(report) == located(whole)
        assert report.conversations == whole.conversations
        assert [f.code for f in report.fixed] == [f.code for f in whole.fixed]
        assert [f.code for f in report.remaining] == [f.code for f in whole.remaining]
        if fix:
            expected = data if whole.output is None else whole.output
            assert stream.output == expected  # type: ignore[attr-defined]


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix"])
@pytest.mark.parametrize("dialect", ["langchain", "openai-chat"])
def test_a_streamed_corpus_equals_the_whole_run(dialect: str, fix: bool) -> None:
    data = corpus(40, dialect=dialect)
    for file in (False, True):
        stream = streamed(data, patchcore.make_options(), fix=fix, chunk=977, batch=5000, file=file)
        assert stream.streamed
    assert_same(data, patchcore.make_options(), fix=fix, chunk=977, batch=5000)


@pytest.mark.parametrize("file", [False, True], ids=["chunks", "file"])
@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix"])
def test_a_stream_without_every_list_counts_the_clean_lists_and_keeps_the_rest(
    fix: bool, file: bool
) -> None:
    """By default a stream keeps the lists with something to say and counts the others, the
    lane's clean lists counted where their batch is processed (a worker sends back no list it
    proved clean): the same lists, findings and output as a whole run."""
    data = corpus(40, dialect="openai-chat") + b'{"no": "history"}\n'
    whole = run(data, filename="input.jsonl", options=patchcore.make_options(), fix=fix)
    stream = Stream(
        InMemory(data) if file else chunked(data, 977),
        filename="input.jsonl",
        options=patchcore.make_options(),
        fix=fix,
        whole_limit=300,
        batch_bytes=5000,
    )
    output = b"".join(
        data[p.offset : p.offset + p.size] if isinstance(p, Unchanged) else bytes(p) for p in stream
    )
    report = stream.result
    said = [c for c in whole.conversations if c.findings or c.note or c.warning]
    assert report.conversations == tuple(said)
    assert report.clean_lists == len(whole.conversations) - len(said) > 0
    assert located(report) == located(whole)
    assert report.line_count == whole.line_count
    if fix:
        assert output == (data if whole.output is None else whole.output)


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_chunk_someone_still_holds_does_not_stop_the_stream(
    bom: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk handed to the held lines may outlive the call: Dask's profiler, on a cluster's
    worker, keeps the frames it samples, and with them their arguments. The head the stream
    empties once it is held must not be exported to such a chunk: a view of it made the
    emptying fail ("BufferError: Existing exports of data"), a cluster run's internal error."""
    kept: list[Any] = []
    add = HeldLines.add

    def holding(self: HeldLines, chunk: Any) -> None:
        kept.append(chunk)  # as a sampled frame holds it
        add(self, chunk)

    monkeypatch.setattr(HeldLines, "add", holding)
    data = bom + corpus(40, dialect="openai-chat")
    stream = Stream(
        chunked(data, 977),
        filename="input.jsonl",
        options=patchcore.make_options(),
        fix=True,
        whole_limit=300,
        batch_bytes=5000,
    )
    output = b"".join(bytes(p) for p in stream)
    whole = run(data, filename="input.jsonl", options=patchcore.make_options(), fix=True)
    assert output == whole.output
    assert kept


def test_a_streamed_result_holds_each_finding_once() -> None:
    """The findings of a batch's conversations are moved to their lines once, with the
    result's: a conversation holds the very findings the result lists, as in a whole run."""
    stream = streamed(corpus(40), patchcore.make_options(), fix=True, chunk=977, batch=5000)
    report = stream.result
    assert report.findings
    listed = {id(f) for f in report.findings}
    assert all(id(f) in listed for c in report.conversations for f in c.findings)


def test_a_streamed_file_is_copied_around_its_repairs() -> None:
    """What a fix leaves as it was is not read into the output: it comes out as `Unchanged`
    ranges (which the CLI copies file to file), and only the repaired bytes are new."""
    data = corpus(40)
    stream = Stream(
        InMemory(data),
        filename="input.jsonl",
        options=patchcore.make_options(),
        fix=True,
        whole_limit=300,
        batch_bytes=5000,
    )
    pieces = list(stream)
    copied = sum(p.size for p in pieces if isinstance(p, Unchanged))
    new = sum(len(p) for p in pieces if not isinstance(p, Unchanged))
    assert stream.result.fixed
    assert copied == len(data)  # every input byte is kept: the repairs only insert
    assert 0 < new < len(data) / 20


@pytest.mark.parametrize("file", [False, True], ids=["chunks", "file"])
def test_batches_are_about_batch_bytes_from_the_first_on(file: bool) -> None:
    """Memory in a streamed run is a batch in work: no batch is larger than ``batch_bytes`` plus
    the line it ends in, the first one included (it was once the whole head, read to tell the
    layout, however large)."""
    data = corpus(60)
    sizes: list[int] = []

    def mapper(work: Any, batches: Any) -> Iterator[Any]:
        for batch in batches:
            if batch.data is None:
                batch = replace(batch, data=data[batch.offset : batch.offset + batch.size])
            sizes.append(len(batch.data))
            yield work(batch)

    longest = max(len(line) for line in data.splitlines(keepends=True))
    stream = Stream(
        InMemory(data) if file else chunked(data, 977),
        filename="input.jsonl",
        options=patchcore.make_options(),
        fix=True,
        mapper=mapper,
        whole_limit=len(data) // 3,
        batch_bytes=5000,
    )
    list(stream)
    assert stream.streamed
    assert len(sizes) > 3
    assert max(sizes) <= 5000 + longest


def test_a_large_file_is_told_by_its_first_lines_not_its_first_megabytes() -> None:
    """A file streamed by its size is read by its batches: to tell its layout, this process
    reads its first lines before the first batch goes out, not all it would read whole, which
    the batches would then read again. A torn first line kept by ``keep_invalid_lines`` still
    has the whole head read (its second line decides)."""
    data = corpus(150)
    whole_limit = 2**20
    assert len(data) > 2 * whole_limit

    for keep in (False, True):
        file = InMemory(data)
        before_the_first_batch: list[int] = []

        def mapper(
            work: Any, batches: Any, file: InMemory = file, seen: list[int] = before_the_first_batch
        ) -> Iterator[Any]:
            for batch in batches:  # as a worker reads its batch: not through this process
                if not seen:
                    seen.append(sum(size for _, size in file.reads))
                yield work(replace(batch, data=data[batch.offset : batch.offset + batch.size]))

        options = patchcore.make_options(keep_invalid_lines=keep)
        stream = Stream(
            file,
            filename="input.jsonl",
            options=options,
            fix=False,
            mapper=mapper,
            whole_limit=whole_limit,
            batch_bytes=2**18,
        )
        list(stream)
        assert stream.streamed
        (read,) = before_the_first_batch  # the head, and the window its first cut is found in
        assert read > whole_limit if keep else read <= 2**17, file.reads[:3]
        whole = run(data, filename="input.jsonl", options=options, fix=False)
        assert located(stream.result) == located(whole)


@pytest.mark.slow  # hypothesis: every sample cut at random places
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    chunk=st.integers(min_value=1, max_value=4096),
    batch=st.integers(min_value=1, max_value=20000),
    crlf=st.booleans(),
    bom=st.booleans(),
    blank_lines=st.lists(st.integers(min_value=0, max_value=11), max_size=4),
    final_newline=st.booleans(),
)
def test_any_cut_gives_the_same_bytes(
    chunk: int, batch: int, crlf: bool, bom: bool, blank_lines: list[int], final_newline: bool
) -> None:
    """Chunk and batch sizes, CRLF line ends, a byte-order mark, blank lines and a missing
    final newline: the streamed output is byte-for-byte the whole run's."""
    lines = corpus(12, dialect="openai-chat", seed=3).splitlines()
    for index in sorted(blank_lines, reverse=True):
        lines.insert(index, b"")
    end = b"\r\n" if crlf else b"\n"
    data = (b"\xef\xbb\xbf" if bom else b"") + end.join(lines) + (end if final_newline else b"")
    assert_same(data, patchcore.make_options(), fix=True, chunk=chunk, batch=batch)


@pytest.mark.parametrize("path", LINE_SAMPLES, ids=lambda p: str(p.relative_to(SAMPLES)))
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_samples_stream_like_the_whole_run(path: Path, unsafe: bool) -> None:
    """Samples of every JSON Lines layout: those whose lines are one conversation (messages,
    session logs) are read whole by the stream, the others batch by batch; same bytes."""
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=unsafe)
    data = path.read_bytes()
    assert_same(data, options, fix=True, chunk=64, batch=200)


def test_one_message_per_line_is_never_cut() -> None:
    message = b'{"role": "user", "content": "%d"}'
    data = b"\n".join(message % n for n in range(100)) + b"\n"
    options = patchcore.make_options()
    layout = patchcore.layout_of_head(data, options=options)
    assert layout is not None and not layout.batches
    stream = streamed(data, options, fix=False, chunk=50, batch=100)
    assert not stream.streamed


@pytest.mark.parametrize("file", [False, True], ids=["chunks", "file"])
def test_a_broken_line_deep_in_a_stream_is_located(file: bool) -> None:
    lines = corpus(30).splitlines()
    lines[23] = lines[23][:-40]
    data = b"\n".join(lines) + b"\n"
    with pytest.raises(patchcore.DecodeError) as whole:
        run(data, filename="input.jsonl", options=patchcore.make_options(), fix=True)
    with pytest.raises(patchcore.DecodeError) as streamed_error:
        streamed(data, patchcore.make_options(), fix=True, chunk=1000, batch=3000, file=file)
    assert streamed_error.value.line == whole.value.line == 24
    assert streamed_error.value.located() == whole.value.located()


@pytest.mark.parametrize("file", [False, True], ids=["chunks", "file"])
def test_a_stream_without_any_history_says_so(file: bool) -> None:
    data = b'{"a": 1}\n' * 200
    with pytest.raises(patchcore.NoHistoryError):
        streamed(data, patchcore.make_options(), fix=False, chunk=100, batch=500, file=file)


def test_fix_lines_is_the_per_line_unit() -> None:
    data = corpus(20)
    options = patchcore.make_options()
    result = patchcore.fix_lines(data, options=options, first_line=101)
    whole = run(data, filename="x.jsonl", options=options, fix=True)
    assert patchcore.apply_patches(data, result.patches) == whole.output
    assert [f.line - 100 for f in result.findings if f.line] == [f.line for f in whole.findings]
    assert patchcore.check_lines(data, options=options).findings == whole.findings


# --------------------------------------------------------------------------------------------
# Through the CLI, over the real threshold


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "corpus.jsonl"
    conversations = 0
    with path.open("wb") as out:
        for line in corpus_lines(dialect="openai-chat", conversations=600, seed=11):
            out.write(line)
            conversations += 1
    assert path.stat().st_size > 1.5 * WHOLE_LIMIT
    return path


@pytest.mark.slow  # a process (and worker pool) per run over a corpus past the streaming threshold
@pytest.mark.parametrize("jobs", ["1", "2", "3"])
def test_cli_fix_of_a_large_corpus_matches_the_library(
    big_corpus: Path, tmp_path: Path, jobs: str
) -> None:
    expected = patchcore.fix_document(big_corpus.read_bytes(), filename=big_corpus.name)
    assert expected.output is not None
    copy = tmp_path / "corpus.jsonl"
    copy.write_bytes(big_corpus.read_bytes())
    result = toolpatch(["fix", "--jobs", jobs, str(copy)], expect=0)
    assert copy.read_bytes() == expected.output
    n = len(expected.fixed)
    assert f"Fixed {n} findings in 1 file ({n} synthesized)." in result.stderr
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.slow  # a process (and worker pool) per run over a corpus past the streaming threshold
@pytest.mark.parametrize("jobs", ["1", "2", "3"])
def test_cli_check_of_a_large_corpus_reports_every_finding_in_order(
    big_corpus: Path, jobs: str
) -> None:
    expected = patchcore.check_document(big_corpus.read_bytes(), filename=big_corpus.name)
    result = toolpatch(["check", "--jobs", jobs, str(big_corpus)], expect=1)
    lines = [line for line in result.stdout_lines if ": TP0" in line]
    assert [line.split(": ")[0] for line in lines] == [
        f"{big_corpus}:{f.line}:{f.column}" for f in expected.findings
    ]


@pytest.mark.slow  # a process (and worker pool) per run over a corpus past the streaming threshold
def test_cli_filter_of_a_large_corpus_through_stdin(big_corpus: Path) -> None:
    expected = patchcore.fix_document(big_corpus.read_bytes(), filename=big_corpus.name)
    result = toolpatch(
        ["fix", "--jobs", "2", "--stdin-filename", "corpus.jsonl", "-"],
        input=big_corpus.read_bytes(),
        expect=0,
    )
    assert result.stdout == expected.output


@pytest.mark.slow  # a process (and worker pool) per run over a corpus past the streaming threshold
def test_cli_broken_large_corpus_is_left_untouched(big_corpus: Path, tmp_path: Path) -> None:
    lines = big_corpus.read_bytes().split(b"\n")
    lines[500] = lines[500][:-3]
    broken = tmp_path / "corpus.jsonl"
    broken.write_bytes(b"\n".join(lines))
    before = broken.stat()
    result = toolpatch(["fix", "--jobs", "2", str(broken)], expect=2)
    assert f"{broken}:501:" in result.stderr
    assert broken.stat().st_mtime_ns == before.st_mtime_ns
    assert broken.read_bytes() == b"\n".join(lines)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.slow  # a process (and worker pool) per run over a corpus past the streaming threshold
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_keeps_the_torn_lines_of_a_large_corpus(
    big_corpus: Path, tmp_path: Path, jobs: str
) -> None:
    """A crash while the corpus was written: a line cut short and a run of NUL bytes. With
    ``--keep-invalid-lines`` they are kept byte for byte and reported on their own lines, and
    every other line is repaired as the library repairs it whole (exit 1: not all is well)."""
    lines = big_corpus.read_bytes().split(b"\n")
    lines[500] = lines[500][:-3]
    lines[520] = b"\x00" * 64
    torn = b"\n".join(lines)
    broken = tmp_path / "corpus.jsonl"
    broken.write_bytes(torn)
    options = patchcore.make_options(keep_invalid_lines=True)
    expected = patchcore.fix_document(torn, filename=broken.name, options=options)
    assert expected.output is not None
    assert [e.line for e in expected.invalid_lines] == [501, 521]
    result = toolpatch(["fix", "--keep-invalid-lines", "--jobs", jobs, str(broken)], expect=1)
    assert broken.read_bytes() == expected.output
    repaired = broken.read_bytes().split(b"\n")
    assert repaired[500] == lines[500] and repaired[520] == lines[520]
    column = expected.invalid_lines[0].column
    assert f"{broken}:501:{column}: warning: not JSON (invalid JSON" in result.stderr
    assert f"{broken}:521:1: warning: not JSON (NUL byte" in result.stderr
    assert f"Fixed {len(expected.fixed)} findings in 1 file" in result.stderr
    assert "2 lines kept as they are (not JSON)" in result.stderr


@pytest.mark.parametrize("file", [False, True], ids=["chunks", "file"])
def test_a_stream_is_cut_exactly_when_patchcore_streamed_says(file: bool) -> None:
    """`patchcore.streamed` is the judgement `Stream` makes of a corpus of conversation lines:
    read whole up to its whole-input limit, cut into batches past it (what ``--jobs`` and
    ``--dask`` plan their workers by)."""
    data = corpus(3)
    for limit in (len(data) - 1, len(data), len(data) + 1):
        source: Any = InMemory(data) if file else iter([data])
        stream = Stream(source, filename=None, options=Options(), fix=False, whole_limit=limit)
        for _ in stream:
            pass
        assert stream.streamed is patchcore.streamed(len(data), whole_limit=limit), limit
    assert patchcore.streamed(None)
