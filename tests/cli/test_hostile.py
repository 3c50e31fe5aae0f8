"""Hostile and broken input: one clear error line, exit 2, the file left alone.

Every broken input of the table goes through ``fix FILE`` (in place) and ``fix -`` (stdin), one
process each; through ``check`` (all files in one process, for speed); and through
``patchcore.check_document`` / ``fix_document`` in-process. The outcome must be:

* exactly one line ``NAME:LINE:COL: error: REASON`` per input on stderr, pointing at the place
  the input goes wrong (line and column computed here independently from a byte offset), the
  rest of stderr being the summary;
* exit code 2, no traceback, no "internal error", nothing on stdout;
* the file byte-identical, same inode, same mtime, and no temporary file left in its folder.

The second table holds inputs that are odd but still valid JSON (duplicate keys, lone surrogate
escapes, ``NaN``/``Infinity``, huge integers, ``1e400``, deep nesting within the parser's
limit): those are repaired, and every byte of the input survives around the inserted result.
Last, a 200 MB single-line document with one dangling call is repaired through the CLI.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.helpers import Result, run, run_process, tp001
from tests.robustness import (
    LOCATED_ERRORS,
    Snapshot,
    assert_no_leftovers,
    dangling_history,
    listing,
    loads_any,
    single_insertion,
    where,
)

COMPACT = json.dumps(dangling_history(), separators=(",", ":")).encode()
PRETTY = json.dumps(dangling_history(), indent=2).encode() + b"\n"


def record(history: list[dict[str, object]]) -> bytes:
    """One JSON Lines record holding a conversation."""
    return json.dumps({"messages": history}).encode()


# --------------------------------------------------------------------------------------------
# Broken input: the table
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Broken:
    """An input toolpatch must refuse.

    Attributes:
        id: Test id.
        data: The file's bytes.
        reason: A regular expression the error's reason must match.
        at: Byte offset the error must point at (its line and column are derived from it), or
            ``None`` where more than one place is a fair answer (any line and column inside the
            input is accepted then).
        name: The file name (its extension decides JSON Lines framing).
    """

    id: str
    data: bytes
    reason: str
    at: int | None
    name: str = "history.json"


def _after(data: bytes, marker: bytes) -> int:
    """Offset just after the first ``marker``."""
    assert marker in data, f"{marker!r} not in {data!r}"
    return data.index(marker) + len(marker)


def _shape(history_text: str, marker: str, reason: str, case_id: str) -> Broken:
    """A message list of the wrong shape; the error points just after ``marker``."""
    data = history_text.encode()
    return Broken(case_id, data, reason, _after(data, marker.encode()))


_CALL = '{"role":"assistant","content":null,"tool_calls":[%s]}'
_GOOD_CALL = '{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}'


def _chat(*messages: str) -> str:
    return "[" + ",".join(('{"role":"user","content":"hi"}', *messages)) + "]"


def _id_case(case_id: str, raw_id: str, kind: str) -> Broken:
    call = '{"id":' + raw_id + ',"type":"function","function":{"name":"f","arguments":"{}"}}'
    text = _chat(_CALL % call, '{"role":"user","content":"x"}')
    return _shape(
        text, '"tool_calls":[{"id":', f"tool call id must be a string, not {kind}", case_id
    )


def _content_case(case_id: str, raw_content: str, kind: str) -> Broken:
    text = _chat(_CALL % _GOOD_CALL, '{"role":"user","content":' + raw_content + "}")
    data = text.encode()
    message = data.rindex(b'{"role":"user"')
    reason = rf"message 2 \(role 'user'\) has a shape no dialect reads: its 'content' is {kind}"
    return Broken(case_id, data, reason, message)


def _truncated() -> list[Broken]:
    end = PRETTY[: PRETTY.rindex(b"]")].rstrip()  # ends on the last message's "}"
    in_string = PRETTY[: PRETTY.index(b"Never") + 3]  # ..."content": "Nev
    after_key = PRETTY[: _after(PRETTY, b'"role":')]
    return [
        Broken("truncated-before-last-bracket", end, "invalid JSON", len(end)),
        Broken(
            "truncated-inside-string",
            in_string,
            r"^invalid JSON: unterminated string \(its closing quote is missing\)$",
            in_string.rindex(b'"'),
        ),
        Broken("truncated-after-key", after_key, "invalid JSON: Expecting value", len(after_key)),
        Broken("truncated-to-one-byte", b"[", "invalid JSON", 1),
    ]


def _jsonl_broken_line() -> list[Broken]:
    good = record(dangling_history())
    broken = b'{"messages": [{"role": "user", "content": "x"}'
    data = good + b"\n" + broken + b"\n" + good + b"\n"
    end_of_broken = len(good) + 1 + len(broken)
    first_broken = broken + b"\n" + good + b"\n" + good + b"\n"
    return [
        Broken("jsonl-broken-middle-line", data, "invalid JSON", end_of_broken, "history.jsonl"),
        # Not named .jsonl: framing is detected from the first line, the error still names line 2.
        Broken("jsonl-broken-line-json-name", data, "invalid JSON", end_of_broken, "history.json"),
        Broken(
            "jsonl-broken-first-line", first_broken, "invalid JSON", len(broken), "history.jsonl"
        ),
    ]


def _encodings() -> list[Broken]:
    text = PRETTY.decode()
    latin1 = PRETTY.replace(b"Paris?", b"Par\xefs?")
    overlong = PRETTY.replace(b"Never", b"Nev\xc0\xafer")
    surrogate = PRETTY.replace(b"Never", b"Nev\xed\xa0\x80er")  # a UTF-8-encoded lone surrogate
    cut = PRETTY.replace(b"Never", b"Nev\xe2\x82")  # a multi-byte sequence cut short
    stray = PRETTY.replace(b"mind", b"mi\x80nd")  # a continuation byte on its own
    utf16le = text.encode("utf-16-le")
    utf16be = text.encode("utf-16-be")
    clean_bad = b'[{"role":"user","content":"h\xffi"},{"role":"assistant","content":"ok"}]'
    lines_bad = record(dangling_history()) + b"\n" + b'{"messages": ' + clean_bad + b"}\n"
    return [
        Broken(
            "invalid-utf8-latin1", latin1, r"invalid UTF-8 \(byte 0xef\)", latin1.index(b"\xef")
        ),
        Broken("invalid-utf8-overlong", overlong, "invalid UTF-8", overlong.index(b"\xc0")),
        Broken("invalid-utf8-surrogate", surrogate, "invalid UTF-8", surrogate.index(b"\xed")),
        Broken("invalid-utf8-cut-sequence", cut, "invalid UTF-8", cut.index(b"\xe2")),
        Broken("invalid-utf8-stray-continuation", stray, "invalid UTF-8", stray.index(b"\x80")),
        # Found by the audit: in a history with nothing to fix, the bytes msgspec skips were
        # never checked, so the quick lane passed (and `fix` rewrote) invalid UTF-8.
        Broken("invalid-utf8-clean-history", clean_bad, "invalid UTF-8", clean_bad.index(b"\xff")),
        Broken(
            "invalid-utf8-clean-jsonl-line",
            lines_bad,
            "invalid UTF-8",
            lines_bad.index(b"\xff"),
            "history.jsonl",
        ),
        Broken("utf16-le-bom", text.encode("utf-16"), "UTF-16", 0),  # Python writes LE + BOM
        Broken("utf16-be-bom", b"\xfe\xff" + utf16be, "UTF-16", 0),
        # UTF-32 is refused too (its little-endian BOM starts like UTF-16's).
        Broken("utf32-le-bom", text.encode("utf-32"), "UTF-32 is not supported", 0),
        Broken(
            "utf32-be-bom",
            b"\x00\x00\xfe\xff" + text.encode("utf-32-be"),
            "UTF-32 is not supported",
            0,
        ),
        Broken("utf16-le-no-bom", utf16le, "NUL byte", utf16le.index(b"\x00")),
        Broken("utf16-be-no-bom", utf16be, "NUL byte", utf16be.index(b"\x00")),
    ]


def _nul() -> list[Broken]:
    in_string = COMPACT.replace(b"Never", b"Nev\x00er")
    between = COMPACT.replace(
        b',{"role":"user","content":"Never', b',\x00{"role":"user","content":"Never'
    )
    trailing = PRETTY + b"\x00"
    jsonl = record(dangling_history()) + b"\n" + record(dangling_history()) + b"\x00\n"
    return [
        Broken("nul-in-string", in_string, "NUL byte", in_string.index(b"\x00")),
        Broken("nul-between-values", between, "NUL byte", between.index(b"\x00")),
        Broken("nul-after-document", trailing, "NUL byte", len(PRETTY)),
        Broken("nul-in-jsonl-line", jsonl, "NUL byte", jsonl.index(b"\x00"), "history.jsonl"),
    ]


def _empty() -> list[Broken]:
    return [
        Broken("empty-file", b"", "empty input", 0),
        Broken("whitespace-only", b"  \n\t\r\n   \n", "empty input", 0),
        Broken("bom-only", b"\xef\xbb\xbf", "empty input", 0),
        Broken("empty-jsonl", b"\n\n", "empty input", 0, "history.jsonl"),
    ]


def _scalars() -> list[Broken]:
    return [
        Broken("scalar-number", b"42\n", "the document is a number, not a message history", 0),
        Broken("scalar-float", b"-1.5e3", "the document is a number", 0),
        Broken("scalar-string", b'"hello"\n', "the document is a string", 0),
        Broken("scalar-true", b"true", "the document is a boolean", 0),
        Broken("scalar-false", b"false\n", "the document is a boolean", 0),
        Broken("scalar-null", b"null", "the document is null", 0),
        Broken("empty-object", b"{}", "no message history found", 0),
        Broken("list-of-numbers", b"[1, 2, 3]", "no message history found", 0),
        Broken("messages-not-a-list", b'{"messages": "hello"}', "no message history found", 0),
    ]


def _shapes() -> list[Broken]:
    follow = '{"role":"user","content":"x"}'
    anthropic = (
        '[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use",'
        '"id":{"x":1},"name":"f","input":{}}]},{"role":"user","content":"x"}]'
    )
    langchain = (
        '[{"type":"human","data":{"content":"a"}},{"type":"ai","data":{"content":"",'
        '"tool_calls":{"id":"c1"}}},{"type":"human","data":{"content":"x"}}]'
    )
    messages_jsonl = (
        '{"role":"user","content":"a"}\n'
        + (_CALL % _GOOD_CALL)
        + '\n{"role":"user","content":false}\n'
    ).encode()
    return [
        _shape(
            _chat('{"role":"assistant","content":null,"tool_calls":{"id":"c1"}}', follow),
            '"tool_calls":',
            "'tool_calls' must be a list, not an object",
            "tool-calls-object",
        ),
        _shape(
            _chat('{"role":"assistant","content":null,"tool_calls":"c1"}', follow),
            '"tool_calls":',
            "'tool_calls' must be a list, not a string",
            "tool-calls-string",
        ),
        _shape(
            _chat('{"role":"assistant","content":null,"tool_calls":3}', follow),
            '"tool_calls":',
            "'tool_calls' must be a list, not a number",
            "tool-calls-number",
        ),
        _shape(
            _chat('{"role":"assistant","content":null,"tool_calls":["c1"]}', follow),
            '"tool_calls":[',
            "a tool call must be an object, not a string",
            "tool-call-entry-string",
        ),
        _id_case("id-object", '{"id":"c1"}', "an object"),
        _id_case("id-boolean", "true", "a boolean"),
        _id_case("id-float", "1.5", "a number"),
        _id_case("id-list", '["c1"]', "a list"),
        _shape(
            _chat(_CALL % _GOOD_CALL, '{"role":"tool","tool_call_id":false,"content":"ok"}'),
            '"tool_call_id":',
            "tool call id must be a string, not a boolean",
            "result-id-boolean",
        ),
        _content_case("content-number", "7", "a number"),
        _content_case("content-boolean", "true", "a boolean"),
        _content_case("content-object", '{"text":"x"}', "an object"),
        _shape(anthropic, '"id":', "tool call id must be a string, not an object", "anthropic-id"),
        _shape(langchain, '"tool_calls":', "'tool_calls' must be a list", "langchain-tool-calls"),
        # A role or type that is not a string (found by the corruption property tests).
        Broken(
            "role-list-beside-a-call",
            _chat(_CALL % _GOOD_CALL, '{"role":["user"],"content":"x"}').encode(),
            ".",
            None,
        ),
        Broken("role-object-alone", b'[{"role": {}, "content": "x"}]', ".", None),
        Broken(
            "langchain-type-list",
            b'[{"type": ["human"], "data": {"content": "hi"}}, {"type": "ai", "data": '
            b'{"content": ""}}]',
            ".",
            None,
        ),
        Broken(
            "jsonl-message-per-line-bad-content",
            messages_jsonl,
            "its 'content' is a boolean",
            messages_jsonl.rindex(b'{"role":"user"'),
            "history.jsonl",
        ),
    ]


def _nesting() -> list[Broken]:
    return [
        Broken("nesting-100000-brackets", b"[" * 100_000, "nesting too deep", 0),
        Broken("nesting-100000-closed", b"[" * 100_000 + b"]" * 100_000, "nesting too deep", 0),
        Broken("nesting-100000-objects", b'{"a":' * 100_000, "nesting too deep", 0),
        Broken(
            "nesting-5000-around-history",
            b'{"a":' * 5000 + COMPACT + b"}" * 5000,
            "nesting too deep",
            0,
        ),
    ]


BROKEN: list[Broken] = [
    *_truncated(),
    *_jsonl_broken_line(),
    *_encodings(),
    *_nul(),
    *_empty(),
    *_scalars(),
    *_shapes(),
    *_nesting(),
]


def error_lines(result: Result) -> dict[str, list[tuple[int, int, str]]]:
    """Every ``NAME:LINE:COL: error: REASON`` line of a run, by file name."""
    found: dict[str, list[tuple[int, int, str]]] = {}
    for line in result.stderr_lines:
        if ": error: " not in line:
            continue
        match = re.fullmatch(r"(.+?):(\d+):(\d+): error: (.+)", line)
        assert match, f"not NAME:LINE:COL: error: REASON: {line!r}" + result.show()
        found.setdefault(match[1], []).append((int(match[2]), int(match[3]), match[4]))
    return found


def error_line(result: Result, name: str) -> tuple[int, int, str]:
    """The single error line of a run over one input, parsed; the rest is the summary."""
    errors = error_lines(result)
    assert list(errors) == [name] and len(errors[name]) == 1, (
        f"expected exactly one error line, for {name}" + result.show()
    )
    # A torn line of a conversation-per-line corpus is also told how to get past it
    # (docs/cli.md#torn-lines): that hint is part of the error, not more.
    torn_hint = f"{name}: hint: a line torn by a crash"
    others = [
        line
        for line in result.stderr_lines
        if ": error: " not in line and not line.startswith(torn_hint)
    ]
    assert others in ([], ["1 file could not be processed."]), (
        "stderr holds more than the error and the summary" + result.show()
    )
    return errors[name][0]


def problems_with(case: Broken, error: tuple[int, int, str]) -> list[str]:
    """What is wrong with the error reported for ``case`` (empty when it is right)."""
    line, column, reason = error
    problems = []
    if not re.search(case.reason, reason):
        problems.append(f"reason {reason!r} !~ {case.reason!r}")
    if case.at is None:
        if not 1 <= line <= case.data.count(b"\n") + 1 or column < 1:
            problems.append(f"the error points at {line}:{column}, outside the input")
    elif (line, column) != where(case.data, case.at):
        problems.append(
            f"the error points at {line}:{column}, the input goes wrong at "
            f"{':'.join(map(str, where(case.data, case.at)))} (byte {case.at})"
        )
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("stdin", [False, True], ids=["fix-file", "fix-stdin"])
@pytest.mark.parametrize("case", BROKEN, ids=[c.id for c in BROKEN])
def test_fix_refuses_broken_input(case: Broken, stdin: bool, tmp_path: Path) -> None:
    """``fix FILE`` and ``fix -``: one located error, exit 2, nothing written anywhere."""
    path = tmp_path / case.name
    path.write_bytes(case.data)
    before = Snapshot.of(path)
    argv = ["fix", "-", "--stdin-filename", case.name] if stdin else ["fix", case.name]
    result = run(argv, input=case.data if stdin else None, cwd=tmp_path, expect=2)

    problems = problems_with(case, error_line(result, case.name))
    assert not problems, "; ".join(problems) + result.show()
    assert "internal error" not in result.stderr, result.show()
    assert result.stdout == b"", "an error must not put anything on stdout" + result.show()
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, [case.name])


def test_check_refuses_every_broken_input(tmp_path: Path) -> None:
    """``check`` over every broken file at once (one process, for speed): one located error per
    file, every file untouched, and on stdout only the report's closing line."""
    names = {f"{k:02d}-{case.id}{Path(case.name).suffix}": case for k, case in enumerate(BROKEN)}
    snapshots = {}
    for name, case in names.items():
        (tmp_path / name).write_bytes(case.data)
        snapshots[name] = Snapshot.of(tmp_path / name)
    result = run(["check", *names], cwd=tmp_path)

    errors = error_lines(result)
    problems = []
    for name, case in names.items():
        reported = errors.get(name, [])
        if len(reported) != 1:
            problems.append(f"{name}: {len(reported)} error lines")
            continue
        problems += [f"{name}: {problem}" for problem in problems_with(case, reported[0])]
    assert not problems, "\n".join(problems) + result.show()
    assert result.code == 2, result.show()
    assert f"{len(names)} files could not be processed" in result.said, result.show()
    assert "internal error" not in result.said, result.show()
    assert len(result.stdout_lines) == 1, result.show()
    for name, snapshot in snapshots.items():
        snapshot.assert_untouched(tmp_path / name)
    assert_no_leftovers(tmp_path, names)


@pytest.mark.parametrize("case", BROKEN, ids=[c.id for c in BROKEN])
def test_broken_input_raises_a_located_patchcore_error(case: Broken) -> None:
    for call in (patchcore.check_document, patchcore.fix_document):
        with pytest.raises(LOCATED_ERRORS) as caught:
            call(case.data, filename=case.name)
        error = caught.value
        problems = problems_with(case, (error.line or 0, error.column or 0, error.reason))
        assert not problems, f"{call.__name__}: {error.located()!r}: {'; '.join(problems)}"


def test_one_broken_jsonl_line_leaves_every_other_line_alone(tmp_path: Path) -> None:
    """The good lines around the broken one hold dangling calls: nothing at all is written."""
    good = record(dangling_history())
    path = tmp_path / "runs.jsonl"
    path.write_bytes(good + b"\n" + good[:-5] + b"\n" + good + b"\n")
    before = Snapshot.of(path)
    result = run(["fix", "runs.jsonl"], cwd=tmp_path, expect=2)
    line, _, _ = error_line(result, "runs.jsonl")
    assert line == 2, result.show()
    assert "Fixed" not in result.stderr, result.show()
    before.assert_untouched(path)
    assert_no_leftovers(tmp_path, ["runs.jsonl"])


# --------------------------------------------------------------------------------------------
# Odd but valid input: repaired, every other byte kept
# --------------------------------------------------------------------------------------------


def _with_value(raw: str, *, pretty: bool) -> bytes:
    """The dangling history with ``raw`` (any JSON text) as the first message's ``meta``."""
    history = dangling_history()
    history[0] = {**history[0], "meta": "__RAW__"}
    text = json.dumps(history, indent=2 if pretty else None)
    return text.replace('"__RAW__"', raw).encode()


@dataclass(frozen=True)
class Odd:
    """Valid but unusual input that must be repaired as if it were ordinary.

    Attributes:
        id: Test id.
        data: The file's bytes.
        call_id: The id the inserted result must carry (as a parser reads it).
        name: The tool name in the inserted text.
        wrapper: How many bytes before and after the history document wrap it (a BOM, deep
            nesting), left out when the output is parsed to compare the messages.
    """

    id: str
    data: bytes
    call_id: str = "call_1"
    name: str = "get_weather"
    wrapper: tuple[int, int] = (0, 0)


def _odd_values() -> list[Odd]:
    raws = {
        "duplicate-keys": '{"a": 1, "a": 2, "a": {"a": null}}',
        "lone-high-surrogate": '"\\ud800"',
        "lone-low-surrogate": '"x\\udfffy"',
        "reversed-surrogate-pair": '"\\ude00\\ud83d"',
        "escaped-nul": '"a\\u0000b"',
        "nan": "NaN",
        "infinity": "Infinity",
        "minus-infinity": "-Infinity",
        "nan-in-list": "[NaN, Infinity, -Infinity, 1]",
        "int-2-64": str(2**64),
        "int-minus-10-40": str(-(10**40)),
        "int-4000-digits": "9" * 4000,
        "int-5000-digits": "9" * 5000,
        "1e400": "1e400",
        "minus-1e400": "-1e400",
        "1e-400": "1e-400",
        "1E2": "1E2",
        "minus-zero": "-0.0",
        "long-fraction": "1.0000000000000000000000001",
        "denormal": "5e-324",
        "exponent-5000-digits": "1e" + "9" * 5000,
        "raw-astral": '"\U0001f600 \u00e9 \u2028 \u2029"',
        "escaped-astral": '"\\ud83d\\ude00 \\u00e9 \\/"',
    }
    return [
        Odd(f"{key}-{'pretty' if pretty else 'compact'}", _with_value(raw, pretty=pretty))
        for key, raw in raws.items()
        for pretty in (False, True)
    ]


def _odd_calls() -> list[Odd]:
    def call(raw_id: str, raw_name: str) -> bytes:
        text = json.dumps(dangling_history("__ID__", "__NAME__"))
        return text.replace('"__ID__"', raw_id).replace('"__NAME__"', raw_name).encode()

    duplicated = COMPACT.replace(b'"content":"Never mind."', b'"content":"a","content":"Never"')
    depth = 1000
    deep = b'{"a":' * depth + json.dumps({"messages": dangling_history()}).encode() + b"}" * depth
    return [
        Odd("id-lone-surrogate", call('"\\ud800"', '"f"'), "\ud800", "f"),
        Odd("name-lone-surrogate", call('"c1"', '"\\udc00x"'), "c1", "\udc00x"),
        Odd("id-escaped-nul", call('"c\\u0000"', '"f"'), "c\x00", "f"),
        Odd("id-with-quotes-and-backslashes", call('"c\\"\\\\n"', '"f"'), 'c"\\n', "f"),
        Odd("id-integer", call("123", '"f"'), "123", "f"),
        Odd("duplicate-content-key", duplicated),
        Odd("utf8-bom", b"\xef\xbb\xbf" + PRETTY, wrapper=(3, 0)),
        Odd("nesting-1000-around-history", deep, wrapper=(5 * depth, depth)),
    ]


ODD = [*_odd_values(), *_odd_calls()]


def _messages(data: bytes, wrapper: tuple[int, int]) -> list[Any]:
    """The message list of an odd document, parsed leniently."""
    before, after = wrapper
    value = loads_any(data[before : len(data) - after])
    return value if isinstance(value, list) else value["messages"]


def assert_repaired(odd: Odd, output: bytes, how: str) -> None:
    """``output`` is ``odd.data`` plus one inserted tool result for the dangling call."""
    offset, _ = single_insertion(odd.data, output)
    assert offset > odd.data.index(b'"tool_calls"'), f"{how}: inserted before the call"
    original = _messages(odd.data, odd.wrapper)
    repaired = _messages(output, odd.wrapper)
    assert len(repaired) == len(original) + 1, f"{how}: {len(repaired)} messages"
    kept = [*repaired[:2], *repaired[3:]]
    assert json.dumps(kept) == json.dumps(original), f"{how}: the messages around changed"
    message = repaired[2]
    expected = {
        "role": "tool",
        "tool_call_id": odd.call_id,
        "content": tp001(odd.name, odd.call_id),
    }
    assert {k: message.get(k) for k in expected} == expected, f"{how}: inserted {message!r}"


@pytest.mark.parametrize("odd", ODD, ids=[o.id for o in ODD])
def test_odd_valid_input_is_repaired_in_process(odd: Odd) -> None:
    report = patchcore.fix_document(odd.data)
    assert [f.code for f in report.findings] == ["TP001"]
    assert report.output is not None
    assert_repaired(odd, report.output, "fix_document")
    assert patchcore.fix_document(report.output).output is None, "fix is not idempotent"


def test_odd_valid_input_is_repaired_by_the_cli(tmp_path: Path) -> None:
    """``check`` then ``fix`` over every odd file at once (one process each, for speed)."""
    names = {f"{k:02d}-{odd.id}.json": odd for k, odd in enumerate(ODD)}
    for name, odd in names.items():
        (tmp_path / name).write_bytes(odd.data)
        (tmp_path / name).chmod(0o640)

    checked = run(["check", *names], cwd=tmp_path)
    problems = [
        f"{name}: no TP001 finding reported"
        for name in names
        if not re.search(rf"^{re.escape(name)}:\d+:\d+: TP001 ", checked.said, re.MULTILINE)
    ]
    fixed = run(["fix", *names], cwd=tmp_path)
    for name, odd in names.items():
        path = tmp_path / name
        try:
            assert_repaired(odd, path.read_bytes(), "fix FILE")
        except AssertionError as error:
            problems.append(f"{name}: {str(error).splitlines()[0]}")
        if path.stat().st_mode & 0o777 != 0o640:
            problems.append(f"{name}: mode not kept")
    assert not problems, "\n".join(problems) + checked.show() + fixed.show()
    assert checked.code == 1, checked.show()
    assert fixed.code == 0, fixed.show()
    assert_no_leftovers(tmp_path, names)


PIPED = [odd for odd in ODD if not odd.id.endswith("-pretty")]


@pytest.mark.parametrize("odd", PIPED, ids=[o.id for o in PIPED])
def test_odd_valid_input_is_repaired_through_stdin(odd: Odd, tmp_path: Path) -> None:
    piped = run(["fix", "-"], input=odd.data, cwd=tmp_path, expect=0)
    assert_repaired(odd, piped.stdout, "fix -")
    assert listing(tmp_path) == set(), "fix - wrote a file"


# --------------------------------------------------------------------------------------------
# A 200 MB single line
# --------------------------------------------------------------------------------------------

HUGE = 200 * 1024 * 1024


def _huge_document() -> tuple[bytes, int]:
    """A one-line history whose first message holds a 200 MB string; the offset where the
    synthetic result belongs (just after the calling message)."""
    history = dangling_history()
    head = json.dumps(history[0]["content"])[:-1].encode()  # the opening quote and text
    parts = json.dumps(history, separators=(",", ":")).encode().split(head, 1)
    data = parts[0] + head + b" " + b"x" * HUGE + b'"' + parts[1][len(b'"') :]
    insert_at = data.rindex(b',{"role":"user","content":"Never mind."}')
    return data, insert_at


@pytest.mark.slow
def test_200_mb_single_line_is_repaired(tmp_path: Path) -> None:
    data, insert_at = _huge_document()
    assert data.count(b"\n") == 0 and len(data) > HUGE
    path = tmp_path / "huge.json"
    path.write_bytes(data)
    # how fast is the benchmark's to hold (docs/benchmarks.md); the timeout only guards a hang
    result = run_process(["fix", "huge.json"], cwd=tmp_path, expect=0, timeout=600)
    assert "Fixed huge.json: TP001 x1" in result.stderr, result.show()
    output = path.read_bytes()
    added = len(output) - len(data)
    assert added > 0
    assert output[:insert_at] == data[:insert_at], "bytes before the insertion changed"
    assert output[insert_at + added :] == data[insert_at:], "bytes after the insertion changed"
    chunk = output[insert_at : insert_at + added]
    inserted = json.loads(b"[" + chunk.strip(b",") + b"]")
    assert inserted == [
        {"role": "tool", "tool_call_id": "call_1", "content": tp001("get_weather", "call_1")}
    ], chunk
    assert_no_leftovers(tmp_path, ["huge.json"])
