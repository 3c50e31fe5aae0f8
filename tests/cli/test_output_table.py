"""The before/after table: every sample and corpus file through the real entry point in every
output format (``check`` in each, ``fix --diff``, ``fix`` in place, ``show``), each run's exit
code, stdout, stderr and the bytes it wrote held by a golden (``tests/data/output_table.json``).

A change of the command line's internals must leave the table as it is: a row that moves is a
change a user sees. Each run is recorded as hashes (the corpus is read in place, never copied
into this repository, so neither are its outputs): of stdout, of stderr, of the file after the
run, and of both streams' lines sorted together (``said``: what was said, whichever stream it
went to, so that a line moved from one stream to the other shows as such and nothing else).

Regenerate after an intended change with ``TOOLPATCH_REGENERATE_TABLE=1`` and read the golden's
diff: it is the change.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS, SAMPLES
from tests.helpers import run

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "output_table.json"
REGENERATE = "TOOLPATCH_REGENERATE_TABLE"

#: The inputs: every sample input (not its expected outputs) and every corpus transcript.
_SAMPLE_INPUTS = sorted(
    f"samples/{path.relative_to(SAMPLES).as_posix()}"
    for path in SAMPLES.rglob("*")
    if path.is_file()
    and path.suffix in (".json", ".jsonl", ".gz", ".zst")
    and not any(f".{kind}." in path.name for kind in ("fixed", "unsafe", "drop"))
)
_CORPUS_INPUTS = sorted(
    f"corpus/{path.relative_to(CORPUS).as_posix()}"
    for path in CORPUS.rglob("*")
    if path.is_file() and path.suffix in (".json", ".jsonl")
)

#: The runs of each input: ``check`` in every output format, the fixes and ``show``.
CHECK_FORMATS = ("concise", "full", "json", "jsonl", "github", "sarif", "html")
RUNS: dict[str, list[str]] = {
    **{f"check {fmt}": ["check", "--output-format", fmt] for fmt in CHECK_FORMATS},
    "check statistics": ["check", "--statistics"],
    "fix --diff": ["fix", "--diff"],
    "fix": ["fix"],
    "show": ["show"],
}

#: Long past: no input is taken for a live agent session (docs/cli.md#live-sessions).
AT_REST = 1_500_000_000


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _source(name: str) -> Path:
    folder, _, rest = name.partition("/")
    return (SAMPLES if folder == "samples" else CORPUS) / rest


def _row(args: list[str], folder: Path, copy: Path) -> str:
    """One run of ``toolpatch ARGS`` in ``folder``, ``copy`` being the file it may write."""
    ran = run(args, cwd=folder)
    # the run's folder is a new one each time: a report that names it (SARIF's base URI)
    # names it as <cwd>
    here = str(folder).encode()
    stdout = ran.stdout.replace(here, b"<cwd>")
    stderr = ran.stderr.encode().replace(here, b"<cwd>")
    said = b"\n".join(sorted(stdout.splitlines() + stderr.splitlines()))
    written = copy.read_bytes() if copy.is_file() else b""
    return (
        f"exit={ran.code} stdout={_digest(stdout)} stderr={_digest(stderr)} "
        f"said={_digest(said)} file={_digest(written)}"
    )


def table_rows(name: str, tmp_path: Path) -> dict[str, str]:
    """Each run of ``name`` (``samples/...`` or ``corpus/...``), as one row of the table."""
    rows = {}
    for label, args in RUNS.items():
        folder = tmp_path / label.replace(" ", "_").replace("-", "")
        copy = folder / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_source(name), copy)
        os.utime(copy, (AT_REST, AT_REST))
        rows[f"{name} | {label}"] = _row([*args, name], folder, copy)
    return rows


def _golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {}


def _regenerate(rows: dict[str, str]) -> None:
    table = {**_golden(), **rows}
    text = json.dumps(dict(sorted(table.items())), indent=0, ensure_ascii=False)
    GOLDEN.write_text(text + "\n")


@pytest.mark.slow  # about a dozen runs of each of some 200 inputs
@pytest.mark.parametrize("name", _SAMPLE_INPUTS)
def test_sample_rows(name: str, tmp_path: Path) -> None:
    rows = table_rows(name, tmp_path)
    if os.environ.get(REGENERATE):
        _regenerate(rows)
    golden = _golden()
    assert {key: golden.get(key) for key in rows} == rows


@pytest.mark.parametrize("name", _CORPUS_INPUTS)
def test_corpus_rows(name: str, corpus: Path, tmp_path: Path) -> None:
    rows = table_rows(name, tmp_path)
    if os.environ.get(REGENERATE):
        _regenerate(rows)
    golden = _golden()
    assert {key: golden.get(key) for key in rows} == rows


#: The runs over the whole of ``samples/`` at once: a walk, its order and one closing line.
FOLDER_RUNS = ("check concise", "check full", "check json", "fix --diff")


def test_folder_rows(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES, tmp_path / "samples")
    for path in (tmp_path / "samples").rglob("*"):
        os.utime(path, (AT_REST, AT_REST))
    rows = {
        f"samples/ | {label}": _row([*RUNS[label], "samples"], tmp_path, tmp_path / "none")
        for label in FOLDER_RUNS
    }
    if os.environ.get(REGENERATE):
        _regenerate(rows)
    golden = _golden()
    assert {key: golden.get(key) for key in rows} == rows


def test_the_table_names_every_input() -> None:
    """The golden holds a row for every run of every input and nothing else (a renamed sample
    regenerates its rows)."""
    names = _SAMPLE_INPUTS + (_CORPUS_INPUTS if CORPUS.is_dir() else [])
    expected = {f"{name} | {label}" for name in names for label in RUNS}
    expected |= {f"samples/ | {label}" for label in FOLDER_RUNS}
    held = set(_golden())
    if not CORPUS.is_dir():
        held = {key for key in held if not key.startswith("corpus/")}
    assert held == expected
