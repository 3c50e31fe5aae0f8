"""Random corruptions of valid histories of every dialect (property tests).

Every shipped sample input (samples/, all dialects and containers) is corrupted at random, at the
byte level (truncate, flip a bit, insert or delete bytes, insert a NUL, duplicate or drop a line)
and at the structure level (replace a value by one of another JSON type, drop a key, swap two
messages, duplicate a message), one to three times. ``patchcore.fix_document`` then either
raises a located `DecodeError`, `ShapeError` or `NoHistoryError`, or returns a report whose
output parses, has nothing fixable left and is a fixed point; a safe fix keeps every input byte
(`tests.robustness.assert_repair_invariants`). Any other exception fails the test.

A handful of corrupted files also go through the CLI: exit 0, 1 or 2, never a traceback, and a
file that could not be processed is left exactly as it was.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import patchcore
from tests.builders import write
from tests.helpers import run
from tests.robustness import (
    Snapshot,
    assert_no_leftovers,
    assert_repair_invariants,
    sample_inputs,
)

SAMPLES = [(path.name, path.read_bytes()) for path in sample_inputs()]

Corruption = Callable[[bytes, st.DrawFn], bytes]


# --------------------------------------------------------------------------------------------
# Byte-level corruptions
# --------------------------------------------------------------------------------------------


def _offset(data: bytes, draw: st.DrawFn, *, end: bool = True) -> int:
    return draw(st.integers(0, len(data) if end else max(len(data) - 1, 0)), label="offset")


def truncate(data: bytes, draw: st.DrawFn) -> bytes:
    return data[: _offset(data, draw)]


def flip_bit(data: bytes, draw: st.DrawFn) -> bytes:
    if not data:
        return data
    at = _offset(data, draw, end=False)
    bit = draw(st.integers(0, 7), label="bit")
    return data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1 :]


def insert_bytes(data: bytes, draw: st.DrawFn) -> bytes:
    at = _offset(data, draw)
    noise = draw(
        st.one_of(
            st.binary(min_size=1, max_size=8),
            st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\n", b"\r\n"]),
            st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\\u", b"NaN"]),
        ),
        label="noise",
    )
    return data[:at] + noise + data[at:]


def delete_bytes(data: bytes, draw: st.DrawFn) -> bytes:
    at = _offset(data, draw)
    length = draw(st.integers(1, 16), label="length")
    return data[:at] + data[at + length :]


def insert_nul(data: bytes, draw: st.DrawFn) -> bytes:
    at = _offset(data, draw)
    return data[:at] + b"\x00" + data[at:]


def duplicate_line(data: bytes, draw: st.DrawFn) -> bytes:
    lines = data.split(b"\n")
    at = draw(st.integers(0, len(lines) - 1), label="line")
    return b"\n".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])


def drop_line(data: bytes, draw: st.DrawFn) -> bytes:
    lines = data.split(b"\n")
    at = draw(st.integers(0, len(lines) - 1), label="line")
    return b"\n".join(lines[:at] + lines[at + 1 :])


# --------------------------------------------------------------------------------------------
# Structure-level corruptions: parse (a document or one JSON Lines line), change, re-serialise
# --------------------------------------------------------------------------------------------

Path_ = tuple[Any, ...]


def _nodes(value: Any, path: Path_ = ()) -> list[tuple[Path_, Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _nodes(child, (*path, index))
    return found


def _set(root: Any, path: Path_, new: Any) -> Any:
    if not path:
        return new
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return root


OTHER_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    2**70,
    "",
    "x",
    "call_1",
    [],
    {},
    [None],
    {"role": "user"},
    {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]},
    [{"role": "assistant", "tool_calls": "x"}],
]


def _restructure(data: bytes, draw: st.DrawFn, change: Callable[[Any, st.DrawFn], Any]) -> bytes:
    """Apply ``change`` to the parsed document, or to one parsed JSON Lines line."""
    lines = data.split(b"\n")
    candidates = [k for k, line in enumerate(lines) if line.strip()]
    try:
        whole = json.loads(data)
    except ValueError:
        whole = None
    if whole is not None or not candidates:
        target, index = whole, None
    else:
        index = draw(st.sampled_from(candidates), label="line")
        try:
            target = json.loads(lines[index])
        except ValueError:
            return data
    if target is None:
        return data
    changed = change(target, draw)
    indent = draw(st.sampled_from([None, 2, "\t"]), label="indent") if index is None else None
    text = json.dumps(changed, indent=indent, ensure_ascii=draw(st.booleans(), label="ascii"))
    # Lone surrogates (an earlier corruption may have made one) become invalid UTF-8: fine here.
    encoded = text.encode("utf-8", errors="surrogatepass")
    if index is None:
        return encoded
    lines[index] = encoded
    return b"\n".join(lines)


def replace_value(data: bytes, draw: st.DrawFn) -> bytes:
    def change(value: Any, draw: st.DrawFn) -> Any:
        path, _ = draw(st.sampled_from(_nodes(value)), label="node")
        return _set(value, path, draw(st.sampled_from(OTHER_VALUES), label="new"))

    return _restructure(data, draw, change)


def drop_key(data: bytes, draw: st.DrawFn) -> bytes:
    def change(value: Any, draw: st.DrawFn) -> Any:
        objects = [(p, v) for p, v in _nodes(value) if isinstance(v, dict) and v]
        if not objects:
            return value
        _, target = draw(st.sampled_from(objects), label="object")
        del target[draw(st.sampled_from(sorted(target)), label="key")]
        return value

    return _restructure(data, draw, change)


def _lists(value: Any, *, minimum: int) -> list[list[Any]]:
    return [v for _, v in _nodes(value) if isinstance(v, list) and len(v) >= minimum]


def swap_messages(data: bytes, draw: st.DrawFn) -> bytes:
    def change(value: Any, draw: st.DrawFn) -> Any:
        lists = _lists(value, minimum=2)
        if not lists:
            return value
        target = draw(st.sampled_from(lists), label="list")
        i = draw(st.integers(0, len(target) - 1), label="i")
        j = draw(st.integers(0, len(target) - 1), label="j")
        target[i], target[j] = target[j], target[i]
        return value

    return _restructure(data, draw, change)


def duplicate_message(data: bytes, draw: st.DrawFn) -> bytes:
    def change(value: Any, draw: st.DrawFn) -> Any:
        lists = _lists(value, minimum=1)
        if not lists:
            return value
        target = draw(st.sampled_from(lists), label="list")
        i = draw(st.integers(0, len(target) - 1), label="i")
        target.insert(i, json.loads(json.dumps(target[i])))
        return value

    return _restructure(data, draw, change)


BYTE_LEVEL: list[Corruption] = [
    truncate,
    flip_bit,
    insert_bytes,
    delete_bytes,
    insert_nul,
    duplicate_line,
    drop_line,
]
STRUCTURE_LEVEL: list[Corruption] = [replace_value, drop_key, swap_messages, duplicate_message]
#: Byte-level corruptions mostly make the JSON unreadable (one outcome, quickly found): the
#: structure-level ones, which keep it readable and reach the engine, are drawn three times
#: as often.
CORRUPTIONS: list[Corruption] = [*BYTE_LEVEL, *STRUCTURE_LEVEL * 3]

OPTION_SETS: list[dict[str, Any]] = [{}, {"select": ["ALL"], "unsafe_fixes": True}]


@st.composite
def corrupted(draw: st.DrawFn) -> tuple[str, bytes, list[str]]:
    """A sample's name, its bytes after one to three corruptions, and their names."""
    name, data = draw(st.sampled_from(SAMPLES), label="sample")
    applied = []
    for _ in range(draw(st.integers(1, 3), label="corruptions")):
        corruption = draw(st.sampled_from(CORRUPTIONS), label="corruption")
        data = corruption(data, draw)
        applied.append(corruption.__name__)
    return name, data, applied


SETTINGS = settings(
    max_examples=1500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("options", OPTION_SETS, ids=["default", "all-unsafe"])
@SETTINGS
@given(case=corrupted())
# Minimised from what the search found, kept so that they are always tried first: a role that
# is not a string; a Gemini call with neither a name nor an id; a JSON Lines history whose only
# message is an orphan result (the unsafe fix drops it: is the output still a history?).
@example(case=("x.json", b'[{"role": []}]', ["replace_value"]))
@example(case=("x.json", b'{"contents": [{"role": "model", "parts": [{"functionCall": {}}]}]}', []))
@example(case=("m.jsonl", b'{"role":"tool","tool_call_id":"call_1","content":"18C"}\n', []))
def test_corrupted_histories(options: dict[str, Any], case: tuple[str, bytes, list[str]]) -> None:
    name, data, _ = case
    assert_repair_invariants(data, filename=name, options=options)
    assert_repair_invariants(data, filename=None, options=options)


@pytest.mark.parametrize(("name", "data"), SAMPLES, ids=[n for n, _ in SAMPLES])
def test_every_truncation_of_every_sample(name: str, data: bytes) -> None:
    """Systematic over the offset (every 29th byte, and each of the last 16)."""
    offsets = sorted({*range(0, len(data), 29), *range(max(len(data) - 16, 0), len(data))})
    for offset in offsets:
        assert_repair_invariants(data[:offset], filename=name)


def test_uncorrupted_samples_satisfy_the_invariants() -> None:
    """The corruptions start from inputs that are themselves accepted and repaired."""
    reports = {name: assert_repair_invariants(data, filename=name) for name, data in SAMPLES}
    refused = [name for name, report in reports.items() if report is None]
    assert not refused, f"shipped samples refused: {refused}"
    assert any(report is not None and report.output for report in reports.values())


# --------------------------------------------------------------------------------------------
# The same through the CLI, for a handful of seeded corruptions
# --------------------------------------------------------------------------------------------


def seeded_corruptions(count: int, seed: int) -> list[tuple[str, str, bytes]]:
    """``count`` corrupted samples chosen by a seeded generator (no hypothesis: fixed cases)."""
    rng = random.Random(seed)
    cases = []
    for k in range(count):
        name, data = SAMPLES[rng.randrange(len(SAMPLES))]
        kind = rng.choice(["truncate", "flip", "nul", "drop-line", "insert"])
        at = rng.randrange(len(data))
        if kind == "truncate":
            data = data[:at]
        elif kind == "flip":
            data = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
        elif kind == "nul":
            data = data[:at] + b"\x00" + data[at:]
        elif kind == "drop-line":
            lines = data.split(b"\n")
            drop = rng.randrange(len(lines))
            data = b"\n".join(lines[:drop] + lines[drop + 1 :])
        else:
            data = data[:at] + rng.choice([b"{", b"]", b",", b'"', b"\xff"]) + data[at:]
        cases.append((f"{k:02d}-{kind}-{name}", name, data))
    return cases


CLI_CASES = seeded_corruptions(8, seed=5)


@pytest.mark.parametrize(("case_id", "name", "data"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_corrupted_file_through_the_cli(
    case_id: str, name: str, data: bytes, tmp_path: Path
) -> None:
    # An old file: a session log written to just now may be live, and the CLI then holds its
    # pending calls' fixes back where the library, told nothing, writes them.
    path = write(tmp_path / name, data)
    before = Snapshot.of(path)
    checked = run(["check", name], cwd=tmp_path)
    assert checked.code in (0, 1, 2), checked.show()
    fixed = run(["fix", name], cwd=tmp_path)
    assert fixed.code in (0, 1, 2), fixed.show()
    assert "internal error" not in checked.stderr + fixed.stderr, checked.show() + fixed.show()
    try:
        expected = patchcore.fix_document(data, filename=name).output
    except patchcore.PatchcoreError:
        assert fixed.code == 2 and checked.code == 2, checked.show() + fixed.show()
        assert ": error: " in fixed.stderr, fixed.show()
        before.assert_untouched(path)
    else:
        if expected is None:
            before.assert_untouched(path)
        else:
            assert path.read_bytes() == expected, fixed.show()
    assert_no_leftovers(tmp_path, [name])
