"""Test data and builders shared by the test modules: small histories with and without a
dangling call, files written with an old modification time, configuration files, the kept-line
corpora, compressions. A test module imports what it shares from here (or another shared module
at the top of ``tests/``), never from another test module.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import pty
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import patchcore
from patchcore.options import Options
from patchcore.pipeline import Piece, Stream, Unchanged
from tests.helpers import CORPUS, MODULE, TP003_TEXT, clean_env, text, tp001

OLD_MTIME = 1_000_000_000  # 2001: any rewrite shows up as a new mtime


def openai_call(
    call_id: str | None, name: str | None = "get_weather", arguments: Any = "{}"
) -> dict[str, Any]:
    """One OpenAI Chat tool call entry (``name=None`` leaves the name out)."""
    function: dict[str, Any] = {} if name is None else {"name": name}
    function["arguments"] = arguments
    return {"id": call_id, "type": "function", "function": function}


def openai_assistant(*calls: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Chat assistant message making ``calls``."""
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def openai_user(content: str = "hi") -> dict[str, Any]:
    """An OpenAI Chat user message."""
    return {"role": "user", "content": content}


def openai_tool(call_id: str, content: str = "ok") -> dict[str, Any]:
    """An OpenAI Chat tool message answering ``call_id``."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def found(findings: Sequence[patchcore.Finding]) -> list[tuple[str, str | None]]:
    """Each finding's rule code and call id, in order."""
    return [(f.code, f.call_id) for f in findings]


DANGLING_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [openai_call("call_1", "get_weather")]},
    {"role": "user", "content": "Never mind."},
]


CLEAN_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [openai_call("call_9", "get_weather")]},
    {"role": "tool", "tool_call_id": "call_9", "content": "sunny"},
    {"role": "assistant", "content": "It is sunny."},
]


DANGLING = (json.dumps(DANGLING_MESSAGES, indent=2) + "\n").encode()


CLEAN = (json.dumps(CLEAN_MESSAGES, indent=2) + "\n").encode()


#: The repaired DANGLING document, as the contract says it must look.
DANGLING_FIXED = (
    json.dumps(
        [
            *DANGLING_MESSAGES[:3],
            {"role": "tool", "tool_call_id": "call_1", "content": tp001("get_weather", "call_1")},
            DANGLING_MESSAGES[3],
        ],
        indent=2,
    )
    + "\n"
).encode()


#: One message per line; the dangling call (c1, lookup) is on line 2.
JSONL_LINES = [
    b'{"role": "user", "content": "find it"}',
    b'{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", '
    b'"function": {"name": "lookup", "arguments": "{}"}}]}',
    b'{"role": "user", "content": "stop"}',
]


DANGLING_JSONL = b"\n".join(JSONL_LINES) + b"\n"


def line_of(data: bytes, needle: bytes) -> int:
    """1-based line of the first occurrence of ``needle``."""
    return data[: data.index(needle)].count(b"\n") + 1


#: Line of the dangling assistant message (its opening brace) in the pretty DANGLING document.
DANGLING_CALL_LINE = line_of(DANGLING, b'"role": "assistant"') - 1


def write(path: Path, data: bytes, *, mtime: int | None = OLD_MTIME) -> Path:
    """Write ``data`` to ``path`` (parents made) and give it an old mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def snapshot(path: Path) -> tuple[bytes, int]:
    """What must not change when a file is left alone."""
    return path.read_bytes(), path.stat().st_mtime_ns


def pyproject(folder: Path, table: str) -> Path:
    """A ``pyproject.toml`` with a project table and ``table`` after it."""
    return write(
        folder / "pyproject.toml", f'[project]\nname = "x"\n\n{table}'.encode(), mtime=None
    )


def toolpatch_toml(folder: Path, body: str) -> Path:
    return write(folder / "toolpatch.toml", body.encode(), mtime=None)


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


PAUSE = 1.5


def plain(text: str) -> str:
    return ANSI.sub("", text)


def slow_run(folder: Path, args: list[str], *, stderr_terminal: bool) -> tuple[int, str]:
    """``toolpatch check ARGS a.json slow.jsonl`` where ``slow.jsonl`` is a named pipe filled
    after a pause; returns the exit code and everything written to stderr."""
    write(folder / "a.json", DANGLING)
    slow = folder / "slow.jsonl"
    os.mkfifo(slow)

    def fill() -> None:
        with slow.open("wb") as pipe:
            time.sleep(PAUSE)
            pipe.write(DANGLING_JSONL)

    primary, secondary = pty.openpty() if stderr_terminal else (-1, -1)
    process = subprocess.Popen(
        [*MODULE, "check", *args, "a.json", "slow.jsonl"],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=secondary if stderr_terminal else subprocess.PIPE,
        env=clean_env(),
    )
    filler = threading.Thread(target=fill)
    filler.start()
    if stderr_terminal:
        os.close(secondary)
        output = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the terminal's other side closed (Linux: EIO)
                break
            if not chunk:
                break
            output += chunk
        os.close(primary)
    else:
        assert process.stderr is not None
        with process.stderr:
            output = process.stderr.read()
    code = process.wait(timeout=60)
    filler.join(timeout=60)
    return code, output.decode("utf-8", "replace")


def chunked(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


class InMemory:
    """A `RandomAccess` input over bytes, read ``chunk`` bytes at most at a time (as a file is
    read: fewer bytes than asked for only at its end)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.reads: list[tuple[int, int]] = []

    @property
    def size(self) -> int:
        return len(self.data)

    def read(self, offset: int, size: int) -> bytes:
        self.reads.append((offset, size))
        return self.data[offset : offset + size]


def joined(pieces: Iterator[Piece], data: bytes) -> bytes:
    """The output the pieces stand for (`Unchanged` ranges copied from ``data``)."""
    return b"".join(
        data[p.offset : p.offset + p.size] if isinstance(p, Unchanged) else bytes(p) for p in pieces
    )


def streamed(
    data: bytes, options: Options, *, fix: bool, chunk: int, batch: int, file: bool = False
) -> Stream:
    """A stream over ``data`` given as chunks of ``chunk`` bytes, or (``file``) as a
    `RandomAccess` input, keeping every list (as a whole run does); its output is left in
    ``stream.output``."""
    stream = Stream(
        InMemory(data) if file else chunked(data, chunk),
        filename="input.jsonl",
        options=options,
        fix=fix,
        whole_limit=300,
        batch_bytes=batch,
        every_list=True,
    )
    stream.output = joined(iter(stream), data)  # type: ignore[attr-defined]
    return stream


def conversation(number: int, *, answered: bool = False) -> bytes:
    """An OpenAI Chat conversation line whose call the history moved past (TP001)."""
    messages: list[dict[str, object]] = [
        {"role": "user", "content": f"question {number}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{number}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": "{}"},
                }
            ],
        },
    ]
    if answered:
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": "ok"})
    messages.append({"role": "user", "content": "go on"})
    return json.dumps({"messages": messages}).encode()


TORN = conversation(2)[:41]  # cut inside a string, as a crash while writing leaves it


NULS = b"\x00" * 12 + conversation(4)[:9]


def torn_corpus() -> bytes:
    return b"\n".join([conversation(1), TORN, conversation(3), NULS, conversation(5), b""])


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a page (a repeated heading gets ``-1``, ``-2``, ... as on
    GitHub); fenced code is skipped."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def _zstd_compress(data: bytes) -> bytes:
    import zstandard  # the zstd extra: imported by the tests that use it

    return zstandard.ZstdCompressor().compress(data)


def _zstd_decompress(data: bytes) -> bytes:
    import zstandard

    # max_output_size: a frame written by a stream does not record its content size
    return zstandard.ZstdDecompressor().decompress(data, max_output_size=2**30)


#: The compressions toolpatch reads and writes back: suffix -> (compress, decompress).
COMPRESSIONS: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    ".gz": (gzip.compress, gzip.decompress),
    ".zst": (_zstd_compress, _zstd_decompress),
}


CHAT = b"""[
  {"role": "user", "content": "Weather in Paris and the time?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
    {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
  ]},
  {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
  {"role": "user", "content": "Never mind."}
]
"""


#: CHAT with call_1 dropped: its entry goes with the line it sat on, call_2's result stays.
CHAT_DROPPED = b"""[
  {"role": "user", "content": "Weather in Paris and the time?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
  ]},
  {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
  {"role": "user", "content": "Never mind."}
]
"""


DROP = patchcore.make_options(repair="drop", unsafe_fixes=True)


def fields_of(message: dict) -> dict:
    """The message's own fields, whatever LangChain shape it is in."""
    if message.get("lc") == 1:
        return message["kwargs"]
    if set(message) == {"type", "data"}:
        return message["data"]
    return message


def assert_clean_history_is_not_changed(history: list[dict[str, Any]]) -> None:
    """``fix_messages`` changes nothing in a clean history and finds nothing."""
    before = copy.deepcopy(history)
    repair = patchcore.fix_messages(history)
    assert repair.changed is False
    assert repair.findings == ()
    assert repair.value == before
    assert patchcore.check_messages(history) == []
    assert history == before


def assert_invalid_call_is_tp003(history: list[dict[str, Any]]) -> None:
    """The call ``c1`` (``lookup``) with malformed arguments is TP003, answered third."""
    repair = patchcore.fix_messages(history)
    assert [f.code for f in repair.findings] == ["TP003"]
    assert fields_of(repair.value[2])["content"] == text(TP003_TEXT, "lookup", "c1")


def assert_input_is_never_mutated(case: list[dict[str, Any]]) -> None:
    """Neither checking nor fixing (with other texts, other rules) changes a copy of ``case``,
    and the result holds its very messages, in order."""
    history = copy.deepcopy(case)
    before = copy.deepcopy(history)
    ids_before = [id(m) for m in history]

    patchcore.check_messages(history)
    repair = patchcore.fix_messages(
        history, options=patchcore.make_options(texts={"TP001": "x {id}"})
    )
    patchcore.fix_messages(history, options=patchcore.make_options(select=["TP002"]))

    assert history == before, "the input list or a message in it changed"
    assert [id(m) for m in history] == ids_before
    assert repair.value is not history
    # every original message is in the result, in order, as the same object
    kept = [m for m in repair.value if any(m is original for original in history)]
    assert [id(m) for m in kept] == ids_before


def assert_fix_is_idempotent(history: list[dict[str, Any]]) -> None:
    """A fixed history checks clean and fixes to itself."""
    once = patchcore.fix_messages(history).value
    assert patchcore.check_messages(once) == []
    assert patchcore.fix_messages(once).changed is False


def json_value(path: Path) -> object:
    """A file's JSON value: its JSON document, or the list of its JSON Lines' values (blank
    lines left out: one message per line is a message list, one conversation per line a list
    of records); a document written as a JSON string is the document the string holds
    (docs/formats.md#json-document-in-a-string)."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    value = json.loads(text)
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        return json.loads(value)
    return value


def read_corpus(relative: str) -> bytes:
    """A file of the shared corpus (`tests.helpers.CORPUS`), by its path in it."""
    return (CORPUS / relative).read_bytes()


#: The tools of the fine-tuning examples below.
WEATHER_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]


def fine_tuning_example(
    number: int, *, ends_on_call: bool, parallel: int = 1, unanswered_inside: bool = False
) -> dict[str, Any]:
    """One line of an OpenAI chat fine-tuning file (docs/cli.md#fine-tuning-data): a question
    and the assistant's ``parallel`` calls, the target, where it ``ends_on_call``; else their
    answers and the final text. ``unanswered_inside``: an earlier call, before it, that the
    example goes on past without an answer (a provider refuses it: fixed as usual)."""
    calls = [openai_call(f"call_{number}_{k}") for k in range(parallel)]
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"weather in Oslo, {number}?"}]
    if unanswered_inside:
        messages += [
            openai_assistant(openai_call(f"lost_{number}")),
            {"role": "user", "content": "never mind that one; try again"},
        ]
    messages.append(openai_assistant(*calls))
    if not ends_on_call:
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": "4 degrees"} for c in calls
        ]
        messages.append({"role": "assistant", "content": "4 degrees in Oslo."})
    return {"messages": messages, "tools": WEATHER_TOOLS}


def fine_tuning_file(endings: Sequence[bool], **shape: Any) -> bytes:
    """A fine-tuning file of ``len(endings)`` examples, the ones marked ending on their call
    (`fine_tuning_example`, with ``shape``)."""
    return b"".join(
        json.dumps(fine_tuning_example(n, ends_on_call=e, **shape)).encode() + b"\n"
        for n, e in enumerate(endings)
    )


#: Twenty examples, seven of them (every third) ending on their call.
SEVEN_OF_TWENTY = [n % 3 == 0 for n in range(20)]
