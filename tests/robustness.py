"""Helpers shared by the robustness tests (hostile input, failure injection, security,
corruption properties) and the atheris harness in ``tests/properties/fuzz``.

* a small history with exactly one dangling call (`dangling_history`), in OpenAI Chat shape;
* `Snapshot`: a file's bytes, mode, inode and mtime, to prove a file was left alone;
* `where`: an independent line/column computation for a byte offset;
* `single_insertion`: split repaired bytes into "original bytes" + "one inserted chunk";
* `assert_repair_invariants`: the invariants every run of ``fix_document`` must satisfy on any
  bytes whatsoever (the property tests and the fuzz harness use the same function);
* `unanswered_calls`: one list with many unanswered calls (the linear-time tests);
* `measured`: the exit code, peak RSS and stderr of a run in a process of its own, under an
  address-space limit if asked (the memory tests).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import patchcore
from tests.helpers import MODULE, ROOT, SAMPLES, clean_env
from tests.sample_cases import file_samples

#: The errors fix_document may raise on bad input: each says where the input is wrong.
LOCATED_ERRORS = (patchcore.DecodeError, patchcore.ShapeError, patchcore.NoHistoryError)


def unanswered_calls(count: int, *, indent: int = 1) -> bytes:
    """One OpenAI Chat list with ``count`` unanswered calls, each followed by a user message
    (with a non-ASCII character), pretty-printed."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for k in range(count):
        call = {"id": f"call_{k}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "user", "content": "next é"})
    return json.dumps({"messages": messages}, indent=indent, ensure_ascii=False).encode()


def measured(args: list[str], cwd: Path, *, limit_mb: int | None = None) -> dict[str, Any]:
    """``toolpatch ARGS`` measured by `benchmarks.measure` (a small process between: a child's
    peak counts what it inherited from this large one), under an address-space limit of
    ``limit_mb``: its ``exit`` code, ``peak_kb`` and ``stderr``."""
    limit = [] if limit_mb is None else ["--limit-mb", str(limit_mb)]
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.measure", *limit, *MODULE, *args],
        cwd=cwd,
        env={**clean_env(), "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
        check=True,
    )
    report: dict[str, Any] = json.loads(completed.stdout)
    assert "Traceback" not in report["stderr"], report["stderr"]
    return report


def dangling_history(call_id: str = "call_1", name: str = "get_weather") -> list[dict[str, Any]]:
    """OpenAI Chat: user, an assistant call that nobody answers, then the user moves on."""
    return [
        {"role": "user", "content": "What is the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "user", "content": "Never mind."},
    ]


def sample_inputs() -> list[Path]:
    """Every shipped sample input (the defective and the clean ones, not the expected repairs)."""
    found = [
        path
        for path in file_samples("*")
        if path.suffix in (".json", ".jsonl") and ".fixed." not in path.name
    ]
    assert found, f"no sample inputs under {SAMPLES}"
    return found


def where(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``, computed independently."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


@dataclass(frozen=True)
class Snapshot:
    """What must not change when a file is left alone."""

    data: bytes
    mode: int
    inode: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> Snapshot:
        """The file's current state (following symlinks)."""
        stat = path.stat()
        return cls(path.read_bytes(), stat.st_mode, stat.st_ino, stat.st_mtime_ns)

    def assert_untouched(self, path: Path) -> None:
        """Bytes, mode, inode and mtime are exactly as they were."""
        now = Snapshot.of(path)
        assert now.data == self.data, f"{path} was modified ({len(self.data)} -> {len(now.data)} B)"
        assert now.mtime_ns == self.mtime_ns, f"{path}: mtime changed"
        assert now.inode == self.inode, f"{path}: the file was replaced (new inode)"
        assert now.mode == self.mode, f"{path}: mode {oct(self.mode)} -> {oct(now.mode)}"


def listing(folder: Path) -> set[str]:
    """Names in ``folder`` (hidden ones included: that is where temporary files hide)."""
    return set(os.listdir(folder))


def assert_no_leftovers(folder: Path, expected: Iterable[str]) -> None:
    """The folder holds exactly ``expected``: no temporary file was left behind."""
    extra = listing(folder) - set(expected)
    assert not extra, f"left behind in {folder}: {sorted(extra)}"


def single_insertion(original: bytes, output: bytes) -> tuple[int, bytes]:
    """``(offset, chunk)`` such that ``output == original[:offset] + chunk + original[offset:]``.

    Fails when ``output`` is not the original with one contiguous chunk inserted, i.e. when some
    byte of the original was changed or lost.
    """
    assert len(output) > len(original), "nothing was inserted"
    prefix = 0
    limit = len(original)
    while prefix < limit and original[prefix] == output[prefix]:
        prefix += 1
    suffix = len(original) - prefix
    assert output.endswith(original[prefix:]), (
        f"bytes of the input were changed or lost after offset {prefix}: "
        f"{original[prefix : prefix + 80]!r} ... vs {output[prefix : prefix + 80]!r}"
    )
    return prefix, output[prefix : len(output) - suffix]


def loads_any(data: bytes | str) -> Any:
    """Parse JSON the way a lenient reader does: NaN, big integers and lone surrogates allowed."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return json.loads(text, parse_int=_integer)


def _integer(text: str) -> int | str:
    """An integer, or its text beyond Python's default conversion limit (4300 digits)."""
    return int(text) if len(text) <= 4000 else text


def is_subsequence(needle: bytes, haystack: bytes) -> bool:
    """Whether every byte of ``needle`` occurs in ``haystack``, in order."""
    position = 0
    for byte in needle:
        position = haystack.find(byte, position)
        if position < 0:
            return False
        position += 1
    return True


def fixable(findings: Iterable[patchcore.Finding], *, unsafe: bool) -> list[patchcore.Finding]:
    """The findings a fix with these options would still apply."""
    allowed = {patchcore.Applicability.SAFE}
    if unsafe:
        allowed.add(patchcore.Applicability.UNSAFE)
    return [f for f in findings if f.fix is not None and f.fix.applicability in allowed]


def assert_repair_invariants(
    data: bytes, *, filename: str | None = None, options: Mapping[str, Any] | None = None
) -> patchcore.Result | None:
    """Run ``fix_document`` on arbitrary bytes; check what any outcome must satisfy.

    * It raises only a located `DecodeError`, `ShapeError` or `NoHistoryError` (line and column
      set, both >= 1); any other exception propagates and fails the caller.
    * Or it returns a report whose output, if any, parses, has no finding left that the same
      options would fix, and is a fixed point (fixing it again changes nothing).
    * Without unsafe fixes a fix only adds: the input's bytes all survive, in order.

    Returns the report, or ``None`` when the input was rejected.
    """
    opts = dict(options or {})
    try:
        report = patchcore.fix_document(
            data, filename=filename, options=patchcore.make_options(**opts)
        )
    except LOCATED_ERRORS as error:
        assert error.line is not None and error.line >= 1, f"no line: {error!r}"
        assert error.column is not None and error.column >= 1, f"no column: {error!r}"
        assert error.reason, f"no reason: {error!r}"
        return None
    if report.output is None:
        return report
    output = report.output
    check_opts = {k: v for k, v in opts.items() if k in ("select", "ignore", "dialect")}
    rechecked = patchcore.check_document(
        output, filename=filename, options=patchcore.make_options(**check_opts)
    )
    left = fixable(rechecked.findings, unsafe=bool(opts.get("unsafe_fixes")))
    assert not left, f"fixable findings left after fix: {[(f.code, f.message) for f in left]}"
    again = patchcore.fix_document(
        output, filename=filename, options=patchcore.make_options(**opts)
    )
    assert again.output is None, "fixing the output again changed it"
    if not opts.get("unsafe_fixes"):
        if any(c.dialect == "opencode" for c in report.conversations):
            # opencode's results are the calls' own states, settled in place
            # (docs/formats.md#opencode): strip gives the input back instead
            stripped = patchcore.strip_document(output, filename=filename).output
            assert stripped == data, "strip did not give back the input an in-place fix changed"
            return report
        if report.layout in REPOINTED:
            output = repointed_back(data, output, *REPOINTED[report.layout])
        if any(c.dialect == "ai-sdk-ui" for c in report.conversations):
            data, output = stateless(data), stateless(output)
        assert is_subsequence(data, output), "a safe fix lost or reordered bytes of the input"
    return report


#: A tool part's (or AI SDK 4 invocation's) state, as a fix of an AI SDK UIMessage rewrites it.
_TOOL_STATE = re.compile(
    rb'("state"\s*:\s*)"(?:input-available|output-error|partial-call|call|result)"'
)


def stateless(data: bytes) -> bytes:
    """``data`` with every tool part's state of the kinds a UIMessage repair turns into another
    written alike: setting the state of the part it answers (``output-error``, AI SDK 4
    ``result``) is the one change besides added bytes that a safe fix makes to a UIMessage list
    (docs/formats.md#vercel-ai-sdk-uimessage); after it, the input must be a subsequence of the
    output again."""
    return _TOOL_STATE.sub(rb'\1"~"', data)


#: The session layouts whose safe fixes re-point the links of the lines after an added one,
#: with their keys: a line's own id and its parent's.
REPOINTED = {
    "claude-code-session": ("uuid", "parentUuid"),
    "pi-session": ("id", "parentId"),
    "copilot-events": ("id", "parentId"),
}


def repointed_back(data: bytes, output: bytes, own: str, parent: str) -> bytes:
    """A repaired session whose changed lines that hang off an added line are pointed back at
    that line's own parent (``own`` and ``parent`` name a line's id and its parent's):
    re-pointing the lines that hung off a response to the new result line is the one change
    besides added lines that a safe fix makes to a Claude Code, Copilot CLI or pi session
    (docs/formats.md#claude-code, docs/formats.md#pi-and-openclaw-sessions); after it, the input
    must be a subsequence of the output again."""
    before = set(data.split(b"\n"))
    # a corrupted line's uuid may be any value (a list, say): only strings name lines
    known = {
        value[own]
        for value in map(_object, before)
        if value is not None and isinstance(value.get(own), str)
    }
    added: dict[str, Any] = {}
    for line in output.split(b"\n"):
        value = _object(line) if line not in before else None
        if value is not None and isinstance(value.get(own), str) and value[own] not in known:
            added[value[own]] = value.get(parent)
    restored = []
    for line in output.split(b"\n"):
        value = _object(line) if line not in before else None
        target = value.get(parent) if value is not None else None
        if isinstance(target, str) and target in added:
            # the added lines hang off one another: the first of them off the original parent
            original = added[target]
            seen = {target}
            while isinstance(original, str) and original in added:
                assert original not in seen, f"the added lines hang off each other: {added}"
                seen.add(original)
                original = added[original]
            member = rb'("' + re.escape(parent.encode()) + rb'"\s*:\s*)'
            key = re.compile(member + re.escape(json.dumps(target).encode()))
            pointed = json.dumps(original).encode().replace(b"\\", b"\\\\")
            line = key.sub(rb"\g<1>" + pointed, line)
        restored.append(line)
    return b"\n".join(restored)


def _object(line: bytes) -> dict[str, Any] | None:
    """A JSON Lines line's object, or ``None`` for a line that is not one."""
    try:
        value = loads_any(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


#: What a reviver with ``secrets_from_env=True`` would put in place of the secret envelope.
SENTINEL = "sk-SENTINEL-must-never-appear-0123456789"


SECRET = {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}


NOT_IMPLEMENTED = {
    "lc": 1,
    "type": "not_implemented",
    "id": ["langchain_community", "llms", "openai", "OpenAI"],
    "repr": "OpenAI(model_name='gpt-4o', openai_api_key=SecretStr('**********'))",
}


CONSTRUCTOR_OF_A_MODEL = {
    "lc": 1,
    "type": "constructor",
    "id": ["langchain", "chat_models", "openai", "ChatOpenAI"],
    "kwargs": {"openai_api_key": SECRET, "model_name": "gpt-4o", "base_url": "http://evil"},
}


ESCAPED = {
    "__lc_escaped__": {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain_core", "prompts", "PromptTemplate"],
        "kwargs": {"template": "{__class__.__init__.__globals__}", "input_variables": []},
    }
}


def dumpd_message(cls: str, **kwargs: Any) -> dict[str, Any]:
    """A langchain-core ``dumpd`` envelope of a message."""
    kind = {"HumanMessage": "human", "AIMessage": "ai", "ToolMessage": "tool"}[cls]
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", cls],
        "kwargs": {"type": kind, **kwargs},
    }


def envelope_history() -> list[dict[str, Any]]:
    """A dumpd history with a dangling call, full of envelopes in every data slot."""
    return [
        dumpd_message(
            "HumanMessage",
            content=[{"type": "text", "text": "hi"}, SECRET, ESCAPED],
            additional_kwargs={"secret": SECRET, "llm": NOT_IMPLEMENTED, "escaped": ESCAPED},
            id="h1",
        ),
        dumpd_message(
            "AIMessage",
            content="",
            tool_calls=[
                {
                    "name": "lookup",
                    "args": {"key": SECRET, "model": CONSTRUCTOR_OF_A_MODEL, "wrapped": ESCAPED},
                    "id": "call_lc1",
                    "type": "tool_call",
                }
            ],
            invalid_tool_calls=[],
            additional_kwargs={"llm": NOT_IMPLEMENTED},
            response_metadata={"model": CONSTRUCTOR_OF_A_MODEL},
            id="ai1",
        ),
        dumpd_message("HumanMessage", content="stop", additional_kwargs={"k": SECRET}, id="h2"),
    ]


def documents() -> dict[str, tuple[bytes, str]]:
    """Documents full of envelopes: name -> (bytes, file name)."""
    history = envelope_history()
    state = {
        "values": {"messages": history},
        "config": {"configurable": {"api_key": SECRET, "llm": NOT_IMPLEMENTED}},
        "metadata": {"model": CONSTRUCTOR_OF_A_MODEL, "escaped": ESCAPED},
    }
    per_line = b"\n".join(json.dumps(m).encode() for m in history) + b"\n"
    records = b"\n".join(json.dumps({"messages": history, "k": SECRET}).encode() for _ in "ab")
    return {
        "dumpd-list-pretty": (json.dumps(history, indent=2).encode(), "h.json"),
        "dumpd-list-compact": (json.dumps(history, separators=(",", ":")).encode(), "h.json"),
        "thread-state": (json.dumps(state, indent=1).encode(), "state.json"),
        "jsonl-message-per-line": (per_line, "h.jsonl"),
        "jsonl-records": (records + b"\n", "h.jsonl"),
        "openai-chat-with-envelopes": (
            json.dumps(
                [
                    {"role": "user", "content": "hi", "meta": SECRET},
                    *dangling_history()[1:2],
                    {"role": "user", "content": "x", "llm": NOT_IMPLEMENTED, "e": ESCAPED},
                ]
            ).encode(),
            "h.json",
        ),
    }


DOCUMENTS = documents()
