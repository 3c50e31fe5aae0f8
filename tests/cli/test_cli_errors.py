"""An input that cannot be evaluated: one error with its file, line, column and JSON pointer,
made once from the exception, reaches the text report and every machine-readable report field by
field; an error of the system (a file that cannot be opened, a repair that cannot be written)
has no location at all.

The error a parallel worker raises crosses the process boundary pickled, and keeps its fields.
"""

from __future__ import annotations

import errno
import json
import os
import pickle
import subprocess
from pathlib import Path

import jsonschema
import pytest

import patchcore
from benchmarks.corpus import lines as corpus_lines
from patchcore.errors import DecodeError, PatchcoreError, SelfCheckError, ShapeError
from patchcore.pipeline import WHOLE_LIMIT
from tests.conftest import ROOT
from tests.helpers import MODULE, clean_env, run, run_process
from toolpatch.cli.input_errors import InputError
from toolpatch.cli.output_sinks import WriteFailed
from toolpatch.cli.parallel import ProcessMapper

SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"

#: A message list whose ``tool_calls`` is no list: a shape error at line 2, column 68.
SHAPED = b'\n{"messages": [{"role": "assistant", "content": null, "tool_calls": "x"}]}\n'
NAME = "shaped.json"
REASON = "'tool_calls' must be a list, not a string"
POINTER = "/messages/0/tool_calls"
LINE, COLUMN = 2, 68
TEXT_LINE = f"{NAME}:{LINE}:{COLUMN}: error: {REASON} (at {POINTER})"
MISSING = "missing.json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / NAME).write_bytes(SHAPED)
    return tmp_path


def check(folder: Path, *args: str, name: str = NAME) -> bytes:
    """``toolpatch check ARGS NAME`` in ``folder``: an error, so exit code 2; its stdout."""
    return run(["check", "--isolated", *args, name], cwd=folder, expect=2).stdout


# --------------------------------------------------------------------------------------------
# made once from the exception


def test_a_patchcore_error_gives_its_reason_and_location() -> None:
    exc = ShapeError(REASON, path=("messages", 0, "tool_calls"), line=LINE, column=COLUMN)
    error = InputError.of(NAME, exc)
    assert error == InputError(NAME, REASON, LINE, COLUMN, POINTER)
    assert error.place == f"{NAME}:{LINE}:{COLUMN}"
    assert error.described == f"{REASON} (at {POINTER})"
    assert error.located() == exc.located()


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (OSError(errno.EACCES, "Permission denied", "h.json"), "Permission denied"),
        (OSError("the input file changed"), "the input file changed"),
        (WriteFailed("cannot write h.json: disk full"), "cannot write h.json: disk full"),
    ],
    ids=["os-error", "os-error-without-errno", "write-failed"],
)
def test_an_error_of_the_system_has_no_location(exc: Exception, message: str) -> None:
    error = InputError.of("h.json", exc)
    assert error == InputError("h.json", message)
    assert (error.line, error.column, error.pointer) == (None, None, None)
    assert error.place == "h.json"
    assert error.described == error.located() == message


def test_a_location_without_a_pointer_has_no_pointer() -> None:
    error = InputError.of(NAME, DecodeError("invalid JSON: Expecting value", line=2, column=1))
    assert (error.line, error.column, error.pointer) == (2, 1, None)
    assert error.described == "invalid JSON: Expecting value"


# --------------------------------------------------------------------------------------------
# across processes


@pytest.mark.parametrize(
    "exc",
    [
        ShapeError(REASON, path=("messages", 0, "tool_calls"), line=LINE, column=COLUMN),
        ShapeError(REASON, path=("messages", 0)).moved(40),
        DecodeError("invalid JSON: Expecting value", line=7, column=3).moved(100),
        SelfCheckError("the repair is not stable", line=5, column=1),
        PatchcoreError("no location"),
    ],
    ids=["shape", "shape-moved-without-line", "decode-moved", "self-check", "bare"],
)
def test_a_pickled_patchcore_error_keeps_its_fields(exc: PatchcoreError) -> None:
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is type(exc)
    assert vars(copy) == vars(exc)
    assert str(copy) == str(exc) == exc.located()
    assert InputError.of(NAME, copy) == InputError.of(NAME, exc)


def _shape_error_in_worker(item: int) -> int:
    """A batch function: the second item fails with a located shape error naming its process."""
    if item == 1:
        raise ShapeError(f"bad in {os.getpid()}", path=("messages", 3), line=12, column=5)
    return item


def test_the_error_a_worker_raises_keeps_its_fields() -> None:
    pool = ProcessMapper(2)  # two workers take every item
    try:
        with pytest.raises(ShapeError) as raised:
            list(pool(_shape_error_in_worker, range(4)))
    finally:
        pool.close()
    exc = raised.value
    assert exc.reason != f"bad in {os.getpid()}", "raised in the worker, not here"
    assert (exc.line, exc.column, exc.pointer, exc.path) == (12, 5, "/messages/3", ("messages", 3))
    assert InputError.of(NAME, exc) == InputError(NAME, exc.reason, 12, 5, "/messages/3")


@pytest.mark.slow  # a worker pool over a large corpus
def test_a_broken_line_deep_in_a_parallel_run_reaches_the_report(tmp_path: Path) -> None:
    lines = list(corpus_lines(dialect="openai-chat", conversations=600, seed=11))
    broken = len(lines) // 2  # amid the second of about three batches: the worker's
    lines[broken] = SHAPED.strip() + b"\n"
    data = b"".join(lines)
    assert len(data) > WHOLE_LIMIT
    (tmp_path / "corpus.jsonl").write_bytes(data)
    with pytest.raises(ShapeError) as whole:
        patchcore.check_document(data, filename="corpus.jsonl")
    assert whole.value.line == broken + 1
    result = run_process(
        ["check", "--isolated", "--jobs", "2", "--output-format", "json", "corpus.jsonl"],
        cwd=tmp_path,
        expect=2,
    )
    (record,) = json.loads(result.stdout)
    assert record == {
        "kind": "error",
        "file": "corpus.jsonl",
        "line": broken + 1,
        "column": whole.value.column,
        "message": REASON,
        "pointer": POINTER,
    }


# --------------------------------------------------------------------------------------------
# every report, field by field


def test_the_text_report_shows_each_field(folder: Path) -> None:
    result = run(["check", "--isolated", NAME], cwd=folder, expect=2)
    assert result.stderr_lines[0] == TEXT_LINE


@pytest.mark.parametrize("output_format", ["json", "jsonl"])
def test_json_error_entries_hold_each_field(folder: Path, output_format: str) -> None:
    stdout = check(folder, "--output-format", output_format)
    records = json.loads(stdout) if output_format == "json" else [json.loads(stdout)]
    assert records == [
        {
            "kind": "error",
            "file": NAME,
            "line": LINE,
            "column": COLUMN,
            "message": REASON,
            "pointer": POINTER,
        }
    ]


def test_the_github_annotation_holds_each_field(folder: Path) -> None:
    stdout = check(folder, "--output-format", "github").decode()
    assert stdout == (
        f"::error title=toolpatch (error),file={NAME},line={LINE},col={COLUMN}::{TEXT_LINE}\n"
    )


def sarif_notification(stdout: bytes) -> dict[str, object]:
    """The one tool execution notification of a SARIF log, which must be valid SARIF 2.1.0."""
    log = json.loads(stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert isinstance(notification, dict)
    return notification


def test_the_sarif_notification_holds_each_field(folder: Path) -> None:
    notification = sarif_notification(check(folder, "--output-format", "sarif"))
    assert notification == {
        "level": "error",
        "message": {"text": REASON},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": NAME, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": LINE, "startColumn": COLUMN},
                },
                "logicalLocations": [{"fullyQualifiedName": POINTER, "kind": "value"}],
            }
        ],
    }


# --------------------------------------------------------------------------------------------
# an OS error: no location in any report


def test_an_os_error_has_no_location_in_the_text_report(folder: Path) -> None:
    result = run(["check", "--isolated", MISSING], cwd=folder, expect=2)
    assert result.stderr_lines[0] == f"{MISSING}: error: No such file or directory"


@pytest.mark.parametrize("output_format", ["json", "jsonl"])
def test_an_os_error_has_no_location_in_json(folder: Path, output_format: str) -> None:
    stdout = check(folder, "--output-format", output_format, name=MISSING)
    (record,) = json.loads(stdout) if output_format == "json" else [json.loads(stdout)]
    assert record == {
        "kind": "error",
        "file": MISSING,
        "line": None,
        "column": None,
        "message": "No such file or directory",
        "pointer": None,
    }


def test_an_os_error_has_no_location_in_github(folder: Path) -> None:
    stdout = check(folder, "--output-format", "github", name=MISSING).decode()
    assert stdout == (
        f"::error title=toolpatch (error),file={MISSING}::{MISSING}: error: "
        "No such file or directory\n"
    )


def test_an_os_error_has_no_location_in_sarif(folder: Path) -> None:
    notification = sarif_notification(check(folder, "--output-format", "sarif", name=MISSING))
    assert notification["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": MISSING, "uriBaseId": "%SRCROOT%"}}}
    ]


@pytest.mark.parametrize("command", [["check"], ["fix"], ["show"]])
def test_a_removed_current_folder_is_an_error_not_a_crash(
    tmp_path: Path, command: list[str]
) -> None:
    """The shell's folder was removed under it: every name toolpatch shows and every relative
    path starts there, so the run stops with a plain error (exit 2), not an internal error."""
    gone = tmp_path / "gone"
    gone.mkdir()
    history = ROOT / "samples" / "openai-chat" / "parallel-partial-answer.json"
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    result = subprocess.run(
        ["sh", "-c", script, "sh", str(gone), *MODULE, *command, str(history)],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == "toolpatch: error: the current folder no longer exists\n"
