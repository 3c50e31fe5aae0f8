"""The torn files an agent leaves behind (docs/cli.md#torn-lines). An entry split over lines by
raw line breaks inside a JSON string (TP201): read whole, reported, and written back on one line
with the breaks escaped, so the text it holds is the same byte for byte; a torn line that no
later lines complete stays a warning. NUL bytes a crash left: the log is read, the lines that
hold them kept as they are and reported; any other input with NUL bytes is still refused.

Sessions are built with the session builders (``tests/session_logs.py``), in the compact form
Claude Code writes; every expected value is stated here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.session_logs import cc_assistant, cc_result, cc_user, compact_jsonl, tool_use

NAME = "session.jsonl"
CALL = tool_use("toolu_Ls", "Bash", command="ls")


def _session(output: str) -> list[dict[str, Any]]:
    """A prompt, a ``Bash`` call and its result ``output``, and the answer after it."""
    return [
        cc_user(1, None, "List the files."),
        cc_assistant(2, 1, "msg_Ls", CALL),
        cc_result(3, 2, "toolu_Ls", output, source=2),
        cc_assistant(4, 3, "msg_Done", {"type": "text", "text": "Two files."}),
    ]


def _written_raw(output: str) -> bytes:
    """The session as an agent that wrote the output's line breaks raw leaves it."""
    return compact_jsonl(_session(output)).replace(b"\\n", b"\n")


def _check(data: bytes, **options: Any) -> patchcore.Result:
    return patchcore.check_document(data, filename=NAME, options=patchcore.make_options(**options))


def _fix(data: bytes) -> patchcore.Result:
    return patchcore.fix_document(data, filename=NAME, options=patchcore.make_options())


def test_a_result_split_in_three_is_read_whole_and_rejoined() -> None:
    """The real result answers its call (no TP001, nothing made up); the fix writes the file the
    agent meant to write, byte for byte; fixing again finds nothing."""
    data = _written_raw("README.md\nsetup.py\ntests")
    assert data.count(b"\n") == 8, "the output is in the result block and in toolUseResult"
    report = _check(data)
    assert found(report.findings) == [("TP201", None)]
    (finding,) = report.findings
    assert (finding.line, finding.column) == (3, 1)
    assert (
        finding.message
        == "lines 3-7 hold one entry, split by a raw line break inside a JSON string"
    )
    warnings = [(r.line, r.note) for r in report.conversations if r.warning]
    rest = "the rest of a line that a raw line break split (TP201); kept as it is"
    assert warnings == [(line, rest) for line in (4, 5, 6, 7)]
    fixed = _fix(data)
    assert fixed.output == compact_jsonl(_session("README.md\nsetup.py\ntests"))
    assert _check(fixed.output).findings == ()


def test_ignored_the_entry_is_still_read_whole() -> None:
    """With TP201 ignored the file is not reported for it, and its call is still answered by the
    real result (reading follows the evidence whatever is selected)."""
    report = _check(_written_raw("a\nb"), ignore=["TP201"])
    assert report.findings == ()


def test_a_torn_line_is_not_joined_with_whole_lines() -> None:
    """A line cut inside a string and followed by a whole entry (a torn line, then more of the
    log) is no split entry: it stays a warning, and the entry after it is read."""
    lines = compact_jsonl(_session("a")).split(b"\n")
    torn = lines[2][: len(lines[2]) // 2]
    data = b"\n".join([*lines[:2], torn, *lines[2:]])
    report = _check(data)
    assert found(report.findings) == []
    (warning,) = [r.note for r in report.conversations if r.warning]
    assert warning.startswith("not JSON (invalid JSON: unterminated string")


def test_no_more_than_sixteen_lines_make_one_entry() -> None:
    """The joins tried at a torn line are bounded (`MAX_PIECES`): a result line split into 15
    pieces is read whole; one split into 17 is left as it is, unread, and its call reported as
    unanswered. (The output is written twice on the line, so each raw break counts twice.)"""
    report = _check(_written_raw("\n".join(["x"] * 8)))
    assert found(report.findings) == [("TP201", None)]
    report = _check(_written_raw("\n".join(["x"] * 9)))
    assert found(report.findings) == [("TP001", "toolu_Ls")]
    assert len([r for r in report.conversations if r.warning]) == 17


def test_a_split_call_gets_its_result_after_its_last_piece() -> None:
    """An unanswered call on a split line: its result goes after the whole entry, never between
    its pieces, and the entry is written on one line (TP201 ignored too: an edit that follows a
    split entry writes it whole, its text unchanged)."""
    records = [
        cc_user(1, None, "List."),
        cc_assistant(2, 1, "msg_Ls", tool_use("toolu_Ls", "Bash", command="ls\npwd")),
    ]
    data = compact_jsonl(records).replace(b"\\n", b"\n")
    whole = compact_jsonl(records).split(b"\n")
    for ignore in ([], ["TP201"]):
        options = patchcore.make_options(ignore=ignore)
        fixed = patchcore.fix_document(data, filename=NAME, options=options)
        expected = {("TP002", "toolu_Ls"), *([] if ignore else [("TP201", None)])}
        assert set(found(fixed.findings)) == expected
        assert fixed.output is not None
        lines = fixed.output.split(b"\n")
        assert lines[:2] == whole[:2]
        assert b'"tool_use_id":"toolu_Ls"' in lines[2]
        assert _check(fixed.output).findings == ()


def test_a_split_line_that_hangs_off_a_call_is_re_pointed_whole() -> None:
    """A split line whose ``parentUuid`` a repair changes (it hung off the unanswered call's
    line): the change is written into the whole entry."""
    records = [
        cc_user(1, None, "List."),
        cc_assistant(2, 1, "msg_Ls", CALL),
        cc_user(3, 2, "Stop.\nList the tests instead."),
    ]
    data = compact_jsonl(records).replace(b"\\n", b"\n")
    fixed = _fix(data)
    assert found(fixed.findings) == [("TP001", "toolu_Ls"), ("TP201", None)]
    assert fixed.output is not None
    *_, result, prompt, end = fixed.output.split(b"\n")
    assert end == b""
    assert prompt == compact_jsonl(records[2:]).rstrip(b"\n").replace(
        records[2]["parentUuid"].encode(), json.loads(result)["uuid"].encode()
    )
    assert _check(fixed.output).findings == ()


def test_a_session_log_with_nul_bytes_is_read_and_they_are_kept() -> None:
    """A line of NUL bytes only (the end of a log a crash cut short, and the log the agent went
    on writing after it), and a torn line that ends in NUL bytes: each a warning, kept byte for
    byte; the rest is checked and repaired."""
    records = [cc_user(1, None, "List."), cc_assistant(2, 1, "msg_Ls", CALL)]
    lines = compact_jsonl(records).split(b"\n")
    torn = lines[1][:40] + b"\x00" * 8
    data = b"\n".join([lines[0], b"\x00" * 300, torn, lines[1], b""])
    report = _fix(data)
    warnings = [(r.line, r.note) for r in report.conversations if r.warning]
    assert warnings == [
        (2, "300 NUL bytes and nothing else, as a crash leaves a log; kept as it is"),
        (
            3,
            "not JSON (invalid JSON: control character U+0000 inside a string (it must be "
            "written \\u0000)); kept as it is",
        ),
    ]
    assert found(report.findings) == [("TP002", "toolu_Ls")]
    assert report.output is not None
    assert report.output.split(b"\n")[:4] == data.split(b"\n")[:4]


def test_other_inputs_with_nul_bytes_are_still_refused() -> None:
    """A corpus of conversation lines with a NUL line is refused as before (without
    ``keep_invalid_lines``): only an agent session log is read past them."""
    data = b'{"messages": [{"role": "user", "content": "Hi"}]}\n' + b"\x00" * 4
    with pytest.raises(patchcore.DecodeError) as refused:
        _check(data)
    assert refused.value.reason.startswith("NUL byte") and refused.value.line == 2
