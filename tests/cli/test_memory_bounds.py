"""Bounded memory (docs/cli.md#limits, docs/large-corpora.md#memory): a record over the
record-size limit is refused unread, as that input's error, however small the compressed file
that holds it; an allocation that fails is a plain error, never a crash; and streaming a corpus
holds what its batches and findings need, not a record of every line.

Each run is measured in a process of its own (`benchmarks.measure`: its peak RSS, under an
address-space limit, ``RLIMIT_AS``, as a container short of memory has).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import tempfile
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.helpers import MODULE, run
from tests.robustness import measured
from toolpatch.cli.input_run import Mode, Outcome, process
from toolpatch.cli.inputs import Source
from toolpatch.cli.machine_reports import REPORTERS, OutputFormat
from toolpatch.cli.output_sinks import InPlace

#: The address space a measured run may use: Python and its libraries take about 300 MB of it.
LIMIT_MB = 700


def one_long_line(size: int) -> Iterator[bytes]:
    """A JSON Lines record of about ``size`` bytes: a message whose text is one long word."""
    yield b'{"messages": [{"role": "user", "content": "'
    block = b"x" * 2**20
    for _ in range(size // len(block)):
        yield block
    yield b'"}]}\n'


def gzipped(pieces: Iterator[bytes], path: Path) -> Path:
    with gzip.open(path, "wb", compresslevel=1) as out:
        for piece in pieces:
            out.write(piece)
    return path


def zstd(pieces: Iterator[bytes], path: Path) -> Path:
    zstandard = pytest.importorskip("zstandard")
    compressor = zstandard.ZstdCompressor().compressobj()
    with path.open("wb") as out:
        for piece in pieces:
            out.write(compressor.compress(piece))
        out.write(compressor.flush())
    return path


@pytest.mark.parametrize("command", [["check"], ["fix"], ["fix", "--diff"]])
def test_a_record_over_the_configured_limit_is_refused_unread(
    tmp_path: Path, command: list[str]
) -> None:
    """A 24 MB line against a limit of 8 MiB: the input's error, located, nothing written."""
    path = zstd(one_long_line(24 * 2**20), tmp_path / "bomb.jsonl.zst")
    before = path.read_bytes()
    report = measured(
        [*command, "-j1", "--max-record-mib", "8", path.name], tmp_path, limit_mb=LIMIT_MB
    )
    assert report["exit"] == 2, report
    assert (
        "bomb.jsonl.zst:1:1: error: record larger than the record-size limit of 8 MiB; "
        "it is not read" in report["stderr"]
    )
    assert path.read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("stdin", [False, True], ids=["file", "pipe"])
def test_a_long_line_inside_a_streamed_corpus_is_refused_at_its_line(
    tmp_path: Path, stdin: bool
) -> None:
    """Past the first batches of a corpus read in batches (a file cut at offsets, a pipe cut as
    it comes): the line over the limit is the error, at its own line, read no further."""
    path = tmp_path / "c.jsonl"
    with path.open("wb") as out:
        out.writelines(short_lines(200_000))  # 11 MB: streamed
        out.writelines(one_long_line(12 * 2**20))
        out.writelines(short_lines(10))
    args = ["check", "-j1", "--max-record-mib", "4"]
    if stdin:
        result = run([*args, "--stdin-filename", "c.jsonl", "-"], path.read_bytes(), tmp_path)
    else:
        result = run([*args, "c.jsonl"], cwd=tmp_path)
    assert result.code == 2, result.show()
    assert "c.jsonl:200001:1: error: record larger than the record-size limit of 4 MiB" in (
        result.stderr
    )


def test_the_limit_is_a_configuration_key(tmp_path: Path) -> None:
    (tmp_path / "toolpatch.toml").write_text("max-record-mib = 1\n")
    line = b"".join(one_long_line(3 * 2**20))
    (tmp_path / "h.json").write_bytes(line)
    result = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert "record-size limit of 1 MiB" in result.stderr
    run(["check", "--max-record-mib", "4", "h.json"], cwd=tmp_path, expect=0)
    (tmp_path / "toolpatch.toml").write_text("max-record-mib = 0\n")
    bad = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert "max-record-mib: expected a whole number of MiB, 1 or more" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("compress", "suffix"), [(zstd, ".zst"), (gzipped, ".gz")])
def test_a_compression_bomb_is_refused_in_bounded_memory(
    tmp_path: Path, compress: Any, suffix: str
) -> None:
    """A small file that expands to one line of 1 GB took 6.2 GB to check, and under a memory
    limit crashed inside the parser. It is refused at the default limit (256 MiB), in about
    that much memory."""
    path = compress(one_long_line(2**30), tmp_path / f"bomb.jsonl{suffix}")
    assert path.stat().st_size < 5 * 2**20
    report = measured(["check", "-j1", path.name], tmp_path, limit_mb=LIMIT_MB)
    assert report["exit"] == 2, report
    assert "record-size limit of 256 MiB" in report["stderr"]
    assert report["peak_kb"] < 450 * 1024


@pytest.mark.slow
def test_a_large_single_line_document_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 300 MB single-line document: refused (it is over 256 MiB) in far less memory."""
    path = tmp_path / "h.json"
    with path.open("wb") as out:
        out.writelines(one_long_line(300 * 2**20))
    for command in (["check", "-j1"], ["fix", "--diff"]):
        report = measured([*command, path.name], tmp_path, limit_mb=1200)
        assert report["exit"] == 2, report
        assert "h.json:1:1: error: record larger than the record-size limit" in report["stderr"]
        assert report["peak_kb"] < 800 * 1024, command


def blank(size: int, *, before: bytes = b"", line: bytes = b" " * 2**20) -> Iterator[bytes]:
    """``before``, then about ``size`` bytes of blank space made of ``line`` repeated."""
    yield before
    for _ in range(size // len(line)):
        yield line


#: A record of JSON Lines with nothing to say.
CLEAN_LINE = b'{"messages": [{"role": "user", "content": "hi"}]}\n'


@pytest.mark.slow  # measured processes under a memory limit
@pytest.mark.parametrize(
    ("pieces", "where", "error"),
    [
        (blank(2**30), "1:1", "record larger than"),  # one line of spaces
        (blank(2**30, line=b" " * 1023 + b"\n"), "1:1", "blank space longer than"),
        (blank(2**30, before=CLEAN_LINE, line=b"\n" * 2**20), "2:1", "blank space longer than"),
    ],
    ids=["spaces", "blank-lines", "blank-lines-after-a-record"],
)
def test_blank_space_counts_against_the_record_limit(
    tmp_path: Path, pieces: Iterator[bytes], where: str, error: str
) -> None:
    """A ``.gz`` of a few megabytes that expands to a gigabyte of whitespace was read whole
    (the layout waits for a record that never comes: 1.3 GB for 300 MB of spaces): whitespace
    counts as part of the record after it (docs/cli.md#blank-space), so it is refused at the
    limit, in about that much memory, by every command."""
    path = gzipped(pieces, tmp_path / "blank.jsonl.gz")
    for command in (["check", "-j1"], ["fix"], ["fix", "--diff"]):
        args = [*command, "--max-record-mib", "8", path.name]
        report = measured(args, tmp_path, limit_mb=LIMIT_MB)
        assert report["exit"] == 2, report
        assert f"blank.jsonl.gz:{where}: error: {error}" in report["stderr"], report
        assert report["peak_kb"] < 250 * 1024, report


def test_an_endless_pipe_of_spaces_is_refused(tmp_path: Path) -> None:
    """``yes ' ' | toolpatch check`` grew without end: refused once the blank space passes the
    limit."""
    with subprocess.Popen(["yes", " "], stdout=subprocess.PIPE) as spaces:
        assert spaces.stdout is not None
        try:
            completed = subprocess.run(
                [*MODULE, "check", "--max-record-mib", "1", "-"],
                stdin=spaces.stdout,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        finally:
            spaces.kill()
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith(
        "-:1:1: error: blank space longer than the record-size limit of 1 MiB"
    ), completed.stderr


@pytest.mark.slow  # measured processes under a memory limit, a gigabyte compressed
@pytest.mark.parametrize("command", [["fix", "--diff"], ["show"]])
def test_diff_and_show_read_within_the_record_limit(tmp_path: Path, command: list[str]) -> None:
    """``fix --diff`` and ``show`` read their input whole, and read it past any limit: a small
    ``.zst`` of a gigabyte-long line ran out of memory (``show``: "internal error:
    MemoryError"). They read it as ``check`` does: refused at the limit, one line, exit 2."""
    path = zstd(one_long_line(2**30), tmp_path / "bomb.jsonl.zst")
    assert path.stat().st_size < 2**20
    report = measured([*command, path.name], tmp_path, limit_mb=LIMIT_MB)
    assert report["exit"] == 2, report
    assert report["stderr"].startswith(
        "bomb.jsonl.zst:1:1: error: record larger than the record-size limit of 256 MiB"
    ), report
    assert report["peak_kb"] < 450 * 1024, report


@pytest.mark.slow  # a measured process under a memory limit
def test_an_allocation_failure_is_the_inputs_error(tmp_path: Path) -> None:
    """Under a memory limit too small for a record within the record-size limit, the run says
    so and goes on with the next input. The parser once crashed the process there (orjson:
    a segmentation fault, no message)."""
    messages = [{"role": "user", "content": f"hi {k}"} for k in range(600_000)]
    (tmp_path / "big.json").write_text(json.dumps({"messages": messages}))
    (tmp_path / "small.json").write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}')
    args = ["check", "-j1", "--select", "ALL", "-v", "big.json", "small.json"]
    report = measured(args, tmp_path, limit_mb=250)
    assert report["exit"] == 2, report
    assert "big.json: error: out of memory while reading it" in report["stderr"]
    assert "small.json: clean" in report["stderr"]
    shown = measured(["show", "big.json"], tmp_path, limit_mb=250)  # was "internal error"
    assert shown["exit"] == 2, shown
    assert shown["stderr"].startswith("big.json: error: out of memory while reading it"), shown


# --------------------------------------------------------------------------------------------
# Streaming holds the batches and the findings, not the lines


def short_lines(count: int) -> Iterator[bytes]:
    """A clean corpus of ``count`` short lines (a message list each)."""
    for k in range(count):
        yield b'{"messages": [{"role": "user", "content": "hi %d"}]}\n' % k


def dangling_lines(count: int) -> Iterator[bytes]:
    """``count`` lines of JSON Lines, each a list with one call nobody answered (a finding)."""
    for k in range(count):
        yield (
            b'{"messages": [{"role": "user", "content": "go"}, {"role": "assistant", '
            b'"tool_calls": [{"id": "c%d", "type": "function", "function": {"name": "f", '
            b'"arguments": "{}"}}]}, {"role": "user", "content": "next"}]}\n' % k
        )


def test_a_stream_keeps_only_the_lists_that_say_something() -> None:
    """A streamed corpus's result once held a record of every line (1 GB of short lines took
    1 GB to check): it keeps the lists with findings or notes, and counts the clean ones."""
    clean = b"".join(short_lines(3000))
    dangling = (
        b'{"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",'
        b' "function": {"name": "f", "arguments": "{}"}}]}]}\n'
    )
    data = clean + dangling + clean
    stream = patchcore.Stream(
        iter([data]),
        filename="c.jsonl",
        options=patchcore.make_options(),
        fix=False,
        whole_limit=1000,
        batch_bytes=10_000,
    )
    list(stream)
    assert stream.streamed
    result = stream.result
    assert [c.line for c in result.conversations] == [3001]
    assert result.clean_lists == 6000
    assert [f.line for f in result.findings] == [3001]


@pytest.mark.slow
def test_checking_many_short_lines_takes_no_memory_per_line(tmp_path: Path) -> None:
    """Peak memory of checking 600 k short lines (34 MB) stays near that of 300 k (a record of
    each line kept for the report once took about 200 bytes a line). Both fill several batches:
    a batch's own lists are held while it is checked, so a file smaller than a batch (50 k
    lines) peaks lower for that reason alone."""
    sizes = {}
    for count in (300_000, 600_000):
        path = tmp_path / f"c{count}.jsonl"
        with path.open("wb") as out:
            out.writelines(short_lines(count))
        report = measured(["check", "-j1", path.name], tmp_path, limit_mb=LIMIT_MB)
        assert report["exit"] == 0, report
        sizes[count] = report["peak_kb"]
    assert sizes[600_000] - sizes[300_000] < 8 * 1024, sizes


@pytest.mark.slow  # a measured process over an 80 MB corpus
def test_fix_diff_of_a_large_file_holds_what_fix_holds(tmp_path: Path) -> None:
    """``fix --diff`` read a file whole and held it several times over (the input, its lines
    as text, the repair: 640 MB for 100 MB). A regular file is repaired batch by batch as
    ``fix`` repairs it, and the diff reads it a window at a time around the changes."""
    path = tmp_path / "c.jsonl"
    with path.open("wb") as out:
        for _ in range(30):
            out.writelines(short_lines(50_000))  # 2.7 MB
            out.writelines(dangling_lines(1))
    assert path.stat().st_size > 80_000_000
    report = measured(["fix", "--diff", path.name], tmp_path, limit_mb=LIMIT_MB)
    assert report["exit"] == 1, report
    assert "Would fix 30 findings in 1 file" in report["stderr"], report
    assert report["peak_kb"] < 200 * 1024, report


# --------------------------------------------------------------------------------------------
# Reports stream: they hold one finding's report at a time, not the report of every finding


@pytest.mark.slow  # measured processes of 40 k findings
def test_a_report_of_many_findings_holds_what_the_check_holds(tmp_path: Path) -> None:
    """The JSON report gathered every finding's object and then the text of them all, SARIF its
    whole log (about 10 KB and 23 KB a finding: 100 k findings took 1 GB and 2.3 GB, 300 k
    ended in "internal error: MemoryError" and an empty report). Both are written as they go
    (docs/cli.md#reports): 40 k findings fit in the memory limit, the report complete.

    SARIF's fixes are planned record by record, their plan a few hundred bytes a fix: its run
    holds about what the JSON report's does. (It held a second ``fix`` run's whole result and
    repair beside the check's: 5.7 KB a finding more than JSON, 342 MB against 113 MB.)"""
    (tmp_path / "c.jsonl").write_bytes(b"".join(dangling_lines(40_000)))
    peaks = {}
    for output_format in ("json", "sarif"):
        args = ["check", "-j1", "--output-format", output_format, "-o", "report", "c.jsonl"]
        report = measured(args, tmp_path, limit_mb=LIMIT_MB)
        assert report["exit"] == 1, report
        written = json.loads((tmp_path / "report").read_bytes())
        listed = written if output_format == "json" else written["runs"][0]["results"]
        assert len(listed) == 40_000
        peaks[output_format] = report["peak_kb"]
    assert peaks["json"] < 200 * 1024, peaks
    assert peaks["sarif"] - peaks["json"] < 40_000 * 2, peaks  # under 2 KB a finding more


def report_overhead(outcome: Outcome, output_format: OutputFormat) -> int:
    """The most memory ``output_format``'s reporter takes above the outcome it is given, while
    it reports it and finishes (to ``/dev/null``): counted by ``tracemalloc``, which sees only
    what is allocated once it starts."""
    with Path(os.devnull).open("wb") as stream:
        tracemalloc.start()
        try:
            reporter = REPORTERS[output_format](stream)
            reporter.add(outcome)
            reporter.finish()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize("output_format", [OutputFormat.JSON, OutputFormat.SARIF])
def test_twice_the_findings_take_no_more_report_memory(
    tmp_path: Path, output_format: OutputFormat
) -> None:
    """What a report holds beyond the findings themselves (the engine's result, and for SARIF
    the input's bytes and the plan of its fixes) does not grow with them: 6 k findings are
    reported in what 3 k are (within a megabyte), a few megabytes either way (SARIF's results
    wait in a temporary file, in memory while small). The reports that gathered every finding
    took about 8 KB (JSON) and 20 KB (SARIF) more a finding: 23 -> 47 MB, 61 -> 123 MB."""
    overheads = []
    for count in (3000, 6000):
        path = tmp_path / f"c{count}.jsonl"
        path.write_bytes(b"".join(dangling_lines(count)))
        outcome = process(
            Source(path.name, path),
            options=patchcore.make_options(),
            mode=Mode.CHECK,
            target=InPlace(),
            emit=lambda _: None,
            keep_bytes=REPORTERS[output_format].needs_bytes,
        )
        assert outcome.result is not None
        assert len(outcome.result.findings) == count
        overheads.append(report_overhead(outcome, output_format))
    small, large = overheads
    assert large < small + 2**20, overheads
    assert large < 8 * 2**20, overheads


def test_a_sarif_report_whose_results_cannot_wait_is_a_plain_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SARIF's results wait in a temporary file; one that cannot be made (no temporary
    folder) is said as a report that cannot be written is, exit 2, no report."""
    (tmp_path / "c.jsonl").write_bytes(b"".join(dangling_lines(3000)))  # past memory's share
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    result = run(["check", "--output-format", "sarif", "c.jsonl"], cwd=tmp_path, expect=2)
    assert result.stdout == b""
    assert "-: error: cannot write the report: No such file or directory" in result.stderr
