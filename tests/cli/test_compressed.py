"""Compressed corpora (docs/cli.md#inputs): a ``.gz`` or ``.zst`` history is checked and fixed
as the same plain file would be, and written back in its own compression.

Through the real entry point: the decompressed repair equals the plain repair byte for byte,
the report equals the plain report but for the file names, a clean file is never rewritten, a
corrupt one is a located error (exit 2) that leaves it alone, a ``.zst`` file without the
``zstandard`` package names the ``[zstd]`` extra, and a large corpus is fixed in bounded memory.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
from pathlib import Path

import pytest

from benchmarks.corpus import lines as corpus_lines
from tests.builders import COMPRESSIONS
from tests.conftest import SAMPLES
from tests.helpers import run, run_process
from tests.robustness import measured
from toolpatch.integrations.file_io import BLOCK_BYTES, Compression, decompressed

#: One of each kind: conversations per line, messages per line, agent session logs, a JSON
#: document, and a file with nothing to fix.
KINDS = (
    "openai-chat/batch-requests.jsonl",
    "openai-chat/messages.jsonl",
    "claude-code/interrupt.jsonl",
    "codex/aborted-turn.jsonl",
    "gemini-cli/session-log.jsonl",
    "anthropic/assistant-after-call.json",
    "openai-chat/clean.json",
)


def samples_into(folder: Path, suffix: str = "") -> list[Path]:
    """The samples of `KINDS` copied flat into ``folder``, compressed when ``suffix`` says."""
    folder.mkdir()
    copied = []
    for kind in KINDS:
        data = (SAMPLES / kind).read_bytes()
        target = folder / (kind.replace("/", "--") + suffix)
        target.write_bytes(COMPRESSIONS[suffix][0](data) if suffix else data)
        os.utime(target, (1e9, 1e9))  # long at rest: no session log is live
        copied.append(target)
    return copied


def plain_report(text: str, suffix: str) -> str:
    """A report on compressed files with their names as the plain files'."""
    return text.replace(suffix + ":", ":").replace(suffix + " ", " ")


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_a_compressed_corpus_is_fixed_as_the_plain_one(tmp_path: Path, suffix: str) -> None:
    """A walk picks the compressed files up; check says what it says of the plain files (at
    the same lines and columns), and fix writes the plain repair, compressed."""
    plain = samples_into(tmp_path / "plain")
    packed = samples_into(tmp_path / "packed", suffix)
    checks = [
        run(["check", folder.name], cwd=tmp_path) for folder in (plain[0].parent, packed[0].parent)
    ]
    assert checks[0].code == checks[1].code == 1, checks[1].show()
    assert plain_report(checks[1].stderr, suffix).replace("packed", "plain") == checks[0].stderr
    assert "TP0" in checks[0].said
    for folder in ("plain", "packed"):
        run(["fix", folder], cwd=tmp_path, expect=0)
    decompress = COMPRESSIONS[suffix][1]
    for before, after in zip(plain, packed, strict=True):
        assert decompress(after.read_bytes()) == before.read_bytes(), after.name
    assert plain[0].read_bytes() != (SAMPLES / KINDS[0]).read_bytes()  # something was fixed


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_a_clean_compressed_file_is_not_rewritten(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"clean.json{suffix}"
    data = COMPRESSIONS[suffix][0]((SAMPLES / "openai-chat/clean.json").read_bytes())
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    run(["fix", str(path)], expect=0)
    assert path.read_bytes() == data
    assert path.stat().st_mtime_ns == 1_000_000_000
    assert os.listdir(tmp_path) == [path.name]


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_compressed_file_is_a_located_error(
    tmp_path: Path, suffix: str, damage: str
) -> None:
    compressed = COMPRESSIONS[suffix][0]((SAMPLES / "openai-chat/messages.jsonl").read_bytes())
    data = b"not compressed at all\n" if damage == "garbage" else compressed[: len(compressed) // 2]
    path = tmp_path / f"messages.jsonl{suffix}"
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    for command in (["check"], ["fix"], ["fix", "--diff"], ["fix", "--jobs", "2"]):
        result = run([*command, path.name], cwd=tmp_path, expect=2)
        name = "gzip" if suffix == ".gz" else "zstd"
        assert f"{path.name}: error: " in result.stderr, result.show()
        assert (f"not valid {name} data" if damage == "garbage" else "cut short") in result.stderr
    assert path.read_bytes() == data
    assert path.stat().st_mtime_ns == 1_000_000_000
    assert os.listdir(tmp_path) == [path.name]


def test_zst_without_zstandard_names_the_extra(tmp_path: Path) -> None:
    """The package left out (as a plain install leaves it out): a located error, exit 2; the
    other files are still fixed."""
    path = tmp_path / "messages.jsonl.zst"
    data = COMPRESSIONS[".zst"][0]((SAMPLES / "openai-chat/messages.jsonl").read_bytes())
    path.write_bytes(data)
    other = tmp_path / "messages.jsonl.gz"
    other.write_bytes(gzip.compress((SAMPLES / "openai-chat/messages.jsonl").read_bytes()))
    without = (
        "import sys; sys.modules['zstandard'] = None\nfrom toolpatch.cli.app import main\nmain()\n"
    )
    for command in (["check"], ["fix"], ["fix", "-o", "out.jsonl.zst"]):
        names = [path.name] if "-o" in command else [path.name, other.name]
        result = run_process(
            [*command, *names], cwd=tmp_path, command=[sys.executable, "-c", without], expect=2
        )
        assert f"{path.name}: error: " in result.stderr, result.show()
        assert "pip install 'toolpatch-cli[zstd]'" in result.stderr
    shown = run_process(["show", path.name], cwd=tmp_path, command=[sys.executable, "-c", without])
    assert shown.code == 2
    assert "pip install 'toolpatch-cli[zstd]'" in shown.stderr, shown.show()
    assert path.read_bytes() == data
    assert other.read_bytes() != gzip.compress(
        (SAMPLES / "openai-chat/messages.jsonl").read_bytes()
    )
    assert sorted(os.listdir(tmp_path)) == [other.name, path.name]


def test_diff_output_and_stdin(tmp_path: Path) -> None:
    """``fix --diff`` compares the decompressed content; ``-o FILE`` is compressed as its name
    ends and ``-o -`` is plain; standard input is read as it is, never decompressed."""
    plain = (SAMPLES / "openai-chat/messages.jsonl").read_bytes()
    fixed = (SAMPLES / "openai-chat/messages.fixed.jsonl").read_bytes()
    path = tmp_path / "messages.jsonl.gz"
    path.write_bytes(gzip.compress(plain))
    diff = run(["fix", "--diff", path.name], cwd=tmp_path, expect=1).stdout.decode()
    assert diff.startswith("--- a/messages.jsonl.gz\n+++ b/messages.jsonl.gz\n")
    assert '+{"role":"tool","tool_call_id":"call_Q7xLm3"' in diff
    assert run(["fix", path.name, "-o", "-"], cwd=tmp_path, expect=0).stdout == fixed
    run(["fix", path.name, "-o", "out.jsonl.zst"], cwd=tmp_path, expect=0)
    assert COMPRESSIONS[".zst"][1]((tmp_path / "out.jsonl.zst").read_bytes()) == fixed
    run(["fix", "messages.jsonl.gz", "-o", "out.jsonl"], cwd=tmp_path, expect=0)
    assert (tmp_path / "out.jsonl").read_bytes() == fixed
    run(["fix", "out.jsonl", "-o", "again.jsonl.gz"], cwd=tmp_path, expect=0)
    assert gzip.decompress((tmp_path / "again.jsonl.gz").read_bytes()) == fixed
    (tmp_path / "abcd.jsonl").write_bytes(plain)  # names of one length: the same layout
    (tmp_path / "a.jsonl.gz").write_bytes(path.read_bytes())
    shown = [run(["show", name], cwd=tmp_path) for name in ("abcd.jsonl", "a.jsonl.gz")]
    assert shown[0].code == shown[1].code == 0
    assert shown[1].stdout.replace(b"a.jsonl.gz", b"abcd.jsonl") == shown[0].stdout
    assert b"call_Q7xLm3" in shown[0].stdout
    piped = run(["check", "--stdin-filename", "x.jsonl.gz", "-"], input=path.read_bytes())
    assert piped.code == 2
    assert piped.stderr.startswith("x.jsonl.gz:1:4: error: NUL byte: not UTF-8"), piped.show()


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_several_members_and_no_live_session(tmp_path: Path, suffix: str) -> None:
    """A file of several gzip members or zstd frames (``cat a.gz b.gz``) is read through; a
    compressed session log just written is no live session (no agent appends to it): its
    pending call is answered without ``--force``, as the plain log's is with it."""
    compress, decompress = COMPRESSIONS[suffix]
    log = (SAMPLES / "claude-code/sidechain.jsonl").read_bytes()  # a pending call at its end
    cut = log.index(b"\n", len(log) // 2) + 1
    path = tmp_path / f"sidechain.jsonl{suffix}"
    path.write_bytes(compress(log[:cut]) + compress(log[cut:]))
    plain = tmp_path / "sidechain.jsonl"
    plain.write_bytes(log)
    run(["fix", path.name], cwd=tmp_path, expect=0)
    run(["fix", "--force", plain.name], cwd=tmp_path, expect=0)
    assert plain.read_bytes() != log
    assert decompress(path.read_bytes()) == plain.read_bytes()


@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_blocks_are_bounded_and_exact(suffix: str) -> None:
    """Decompressed blocks never exceed `BLOCK_BYTES`, however well the content compresses
    (a whole multiple of the block: zlib may hold output back after taking all its input)."""
    compress = COMPRESSIONS[suffix][0]
    for content in (b"a" * (BLOCK_BYTES * 3), os.urandom(BLOCK_BYTES) * 2 + b"x", b""):
        packed = io.BytesIO(compress(content) + compress(b"tail"))
        blocks = list(decompressed(Compression.of(f"x{suffix}") or Compression.GZIP, packed.read))
        assert b"".join(blocks) == content + b"tail"
        assert max(map(len, blocks)) <= BLOCK_BYTES


def generated(conversations: int, seed: int = 3) -> bytes:
    return b"".join(corpus_lines(dialect="openai", conversations=conversations, seed=seed))


@pytest.mark.slow  # worker pools over a streamed corpus, each compressed
@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_a_streamed_corpus_with_jobs_matches_the_plain_fix(tmp_path: Path, suffix: str) -> None:
    """A corpus larger than what is read whole, cut into batches (decompressed here, sent to
    the workers as bytes), written back compressed as one process writes the plain file; and
    the plain file's streamed repair (unchanged ranges and patches) compressed by ``-o``."""
    data = generated(700)  # about 15 MB: streamed in batches
    plain = tmp_path / "corpus.jsonl"
    plain.write_bytes(data)
    packed = tmp_path / f"corpus.jsonl{suffix}"
    packed.write_bytes(COMPRESSIONS[suffix][0](data))
    run_process(
        ["fix", "--jobs", "2", plain.name, "-o", f"out.jsonl{suffix}"], cwd=tmp_path, expect=0
    )
    run_process(["fix", plain.name], cwd=tmp_path, expect=0)
    run_process(["fix", "--jobs", "2", packed.name], cwd=tmp_path, expect=0)
    assert plain.read_bytes() != data
    assert COMPRESSIONS[suffix][1](packed.read_bytes()) == plain.read_bytes()
    assert COMPRESSIONS[suffix][1]((tmp_path / f"out.jsonl{suffix}").read_bytes()) == (
        plain.read_bytes()
    )


def peak_rss_kb(args: list[str], cwd: Path) -> int:
    """The peak resident memory of ``toolpatch ARGS``, measured by `benchmarks.measure` (a
    small process between: a child's peak counts what it inherited from this large one)."""
    report = measured(args, cwd)
    assert report["exit"] == 0, report
    return int(report["peak_kb"])


@pytest.mark.slow
@pytest.mark.parametrize("suffix", list(COMPRESSIONS))
def test_a_large_compressed_corpus_is_fixed_in_bounded_memory(tmp_path: Path, suffix: str) -> None:
    """Peak memory grows far less than the decompressed size. The baseline is a corpus that is
    streamed too (about 44 MB), so the fixed cost of streaming (the head read to tell the
    layout, the batches in flight) is in both, and the growth is what grows with the size: the
    report's record of each conversation, not the content. The baseline is long enough to fill
    the pool's window of batches in flight: with half of it (22 MB) the window was not always
    full, and peak RSS was 67 MB at 1,000 conversations, 89 at 2,000, 93 at 6,000, 101 at
    12,000."""
    fast = {".gz": lambda data: gzip.compress(data, 1), ".zst": COMPRESSIONS[".zst"][0]}
    small = tmp_path / f"small.jsonl{suffix}"
    small.write_bytes(fast[suffix](generated(2000)))
    data = generated(6000)  # about 130 MB decompressed
    large = tmp_path / f"large.jsonl{suffix}"
    large.write_bytes(fast[suffix](data))
    assert large.stat().st_size < len(data) / 3
    baseline = peak_rss_kb(["fix", small.name], tmp_path)
    peak = peak_rss_kb(["fix", large.name], tmp_path)
    growth = (peak - baseline) * 1024
    assert growth < len(data) / 4, f"{growth:,} bytes more for {len(data):,} decompressed"
    plain = tmp_path / "large.jsonl"
    plain.write_bytes(data)
    del data
    run_process(["fix", plain.name], cwd=tmp_path, expect=0)
    assert COMPRESSIONS[suffix][1](large.read_bytes()) == plain.read_bytes()
