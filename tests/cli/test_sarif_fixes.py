"""The SARIF report's ``fixes`` and columns, through the real entry point.

The proof that a SARIF fix is the repair ``toolpatch fix`` writes: every replacement of every
result (a replacement two results share, once), read as SARIF says (text regions: line and
UTF-16 column of the original file, applied in order, each in the original's coordinates), turns
the original bytes into exactly the bytes ``toolpatch fix`` writes, for documents, JSON Lines of
conversations and of messages, agent session logs, CRLF and a byte-order mark; with
``unsafe-fixes`` configured, the unsafe fixes too. Every log is valid against the official SARIF
2.1.0 schema.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT
from tests.helpers import run

SAMPLES = ROOT / "samples"
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())
BOM = b"\xef\xbb\xbf"

#: Inputs whose safe fixes ``toolpatch fix`` applies: (sample, the layout it has).
SAFE_SAMPLES = {
    "openai-chat/parallel-partial-answer.json": "json",
    "openai-chat/malformed-arguments.json": "json (tab indentation)",
    "anthropic/request-partial-answer.json": "json (a request body)",
    "openai-chat/batch-requests.jsonl": "jsonl (conversation lines)",
    "openai-chat/crlf-blank-lines.jsonl": "jsonl with CRLF",
    "openai-responses/items.jsonl": "jsonl-messages",
    "claude-code/parallel-split.jsonl": "claude-code-session",
    "codex/aborted-turn.jsonl": "codex-rollout",
    "gemini-cli/parallel-cut.json": "gemini-cli session (a JSON document)",
    "claude-agent-sdk/parallel-interrupted.jsonl": "claude-agent-sdk-stream",
    "strict/openai-chat/combined.json": "json, strict findings (only the safe fix)",
}
#: Inputs whose unsafe fixes meet the safe ones (one array rebuilt, a move beside an insertion).
UNSAFE_SAMPLES = [
    "strict/openai-chat/combined.json",
    "strict/anthropic/combined.json",
    "strict/bedrock/combined.json",
    "strict/openai-responses/combined.jsonl",
    "strict/pydantic-ai/combined.json",
    "strict/openai-chat/moved-beside-synthetic.json",
]


def sarif_log(folder: Path, name: str, *args: str) -> dict[str, Any]:
    """The SARIF log of ``toolpatch check --select ALL ARGS NAME`` in ``folder``, validated."""
    result = run(["check", "--select", "ALL", "--output-format", "sarif", *args, name], cwd=folder)
    assert result.code in (0, 1), result.show()
    log: dict[str, Any] = json.loads(result.stdout)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    return log


def fixed_bytes(folder: Path, name: str, *args: str) -> bytes:
    """What ``toolpatch fix --select ALL ARGS`` writes for ``folder/name`` (on a copy)."""
    copy = folder / "fixed" / name
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(folder / name, copy)
    os.utime(copy, (time.time() - 7200,) * 2)  # not a session still being written
    run(["fix", "--select", "ALL", *args, name], cwd=copy.parent)
    return copy.read_bytes()


def copied(sample: str, folder: Path) -> str:
    """``sample`` copied into ``folder``, written two hours ago (not a live session)."""
    target = folder / Path(sample).name
    shutil.copyfile(SAMPLES / sample, target)
    os.utime(target, (time.time() - 7200,) * 2)
    return target.name


def offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of SARIF's line ``line`` (lines end at LF) and UTF-16 column
    ``column``."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    units, index = column - 1, start
    while units > 0:
        units -= 2 if ord(text[index]) > 0xFFFF else 1
        index += 1
    assert units == 0, "a column inside a surrogate pair"
    return index


def applied(original: bytes, log: dict[str, Any]) -> bytes:
    """``original`` with the replacements of every result's fixes, each distinct one once,
    applied as SARIF says (text regions; the text after a byte-order mark)."""
    bom = BOM if original.startswith(BOM) else b""
    text = original[len(bom) :].decode("utf-8")
    replacements: list[tuple[int, int, str]] = []
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            (change,) = fix["artifactChanges"]
            for replacement in change["replacements"]:
                region = replacement["deletedRegion"]
                start = offset(text, region["startLine"], region["startColumn"])
                end = offset(text, region["endLine"], region["endColumn"])
                new = replacement.get("insertedContent", {}).get("text", "")
                if (start, end, new) not in replacements:
                    replacements.append((start, end, new))
    replacements.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(replacements):
        assert end <= start, "replacements of one file never overlap"
    for start, end, new in reversed(replacements):
        text = text[:start] + new + text[end:]
    return bom + text.encode("utf-8")


def fix_applicabilities(log: dict[str, Any]) -> dict[str, set[str]]:
    """Rule code → the applicabilities of the fixes its results carry."""
    found: dict[str, set[str]] = {}
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            found.setdefault(result["ruleId"], set()).add(fix["properties"]["applicability"])
    return found


@pytest.mark.parametrize("sample", SAFE_SAMPLES, ids=SAFE_SAMPLES.values())
def test_sarif_fixes_give_the_bytes_fix_writes(tmp_path: Path, sample: str) -> None:
    name = copied(sample, tmp_path)
    log = sarif_log(tmp_path, name)
    expected = fixed_bytes(tmp_path, name)
    original = (tmp_path / name).read_bytes()
    assert expected != original, "the sample has something fix repairs"
    assert applied(original, log) == expected
    assert set().union(*fix_applicabilities(log).values()) == {"safe"}


@pytest.mark.parametrize("sample", UNSAFE_SAMPLES)
def test_with_unsafe_fixes_configured_the_unsafe_fixes_are_given_too(
    tmp_path: Path, sample: str
) -> None:
    name = copied(sample, tmp_path)
    safe_log = sarif_log(tmp_path, name)
    assert "unsafe" not in set().union(*fix_applicabilities(safe_log).values())
    (tmp_path / "toolpatch.toml").write_text("unsafe-fixes = true\n")
    (tmp_path / "fixed").mkdir()
    (tmp_path / "fixed" / "toolpatch.toml").write_text("unsafe-fixes = true\n")
    log = sarif_log(tmp_path, name)
    assert "unsafe" in set().union(*fix_applicabilities(log).values())
    original = (tmp_path / name).read_bytes()
    assert applied(original, log) == fixed_bytes(tmp_path, name)
    assert fixed_bytes(tmp_path, name) == fixed_bytes(tmp_path, name, "--unsafe-fixes")


def test_an_unsafe_fix_is_not_given_by_default(tmp_path: Path) -> None:
    """``toolpatch fix`` leaves it: a fix a viewer offers to apply is one ``fix`` makes."""
    name = copied("strict/openai-chat/tp101-orphan.json", tmp_path)
    log = sarif_log(tmp_path, name)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "TP101" and "fixes" not in result
    assert result["properties"]["fix"]["applicability"] == "unsafe", "still described"


def test_a_fix_is_its_own_replacements(tmp_path: Path) -> None:
    """Two dangling calls in two lines: each result's fix inserts its own result, where it
    belongs, with a description and the file it changes."""
    name = copied("openai-chat/batch-requests.jsonl", tmp_path)
    log = sarif_log(tmp_path, name)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["TP001", "TP003"]
    for result in results:
        (fix,) = result["fixes"]
        assert fix["description"] == {"text": "insert a synthetic error result"}
        (change,) = fix["artifactChanges"]
        assert change["artifactLocation"] == {"uri": name, "uriBaseId": "%SRCROOT%"}
        (replacement,) = change["replacements"]
        region = replacement["deletedRegion"]
        assert (
            region["startLine"]
            == region["endLine"]
            == result["locations"][0]["physicalLocation"]["region"]["startLine"]
        ), "inserted into the finding's own line"
        assert region["startColumn"] == region["endColumn"], "an insertion point"
        assert result["properties"]["callId"] in replacement["insertedContent"]["text"]


# --------------------------------------------------------------------------------------------
# UTF-16 columns

WIDE = "\U0001f600\u4e2d"  # an emoji (two UTF-16 code units) and a CJK character (one)


def wide_line() -> bytes:
    """A conversation line with the emoji and the CJK character before its dangling call (a
    recorded request, with its ``model``: no fine-tuning example, whose call would be left)."""
    call = {
        "id": "call_w",
        "type": "function",
        "function": {"name": "look", "arguments": "{}"},
    }
    messages = [
        {"role": "user", "content": WIDE},
        {"role": "assistant", "content": None, "tool_calls": [call]},
    ]
    record = {"model": "gpt-4o", "messages": messages}
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def test_sarif_columns_count_utf16_code_units(tmp_path: Path) -> None:
    (tmp_path / "wide.jsonl").write_bytes(wide_line())
    as_json = run(["check", "--output-format", "json", "wide.jsonl"], cwd=tmp_path, expect=1)
    (finding,) = json.loads(as_json.stdout)
    log = sarif_log(tmp_path, "wide.jsonl")
    (sarif_run,) = log["runs"]
    assert sarif_run["columnKind"] == "utf16CodeUnits"
    (result,) = sarif_run["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == finding["line"] == 1
    line = wide_line().decode()
    characters = line.index('{"role": "assistant"') + 1
    assert finding["column"] == characters, "the JSON report counts characters"
    assert region["startColumn"] == characters + 1, "the emoji is two code units"
    (replacement,) = result["fixes"][0]["artifactChanges"][0]["replacements"]
    inserted_at = line.rindex("]}") + 1  # after the assistant message, in characters
    assert replacement["deletedRegion"]["startColumn"] == inserted_at + 1
    assert applied(wide_line(), log) == fixed_bytes(tmp_path, "wide.jsonl")


def test_utf16_columns_after_a_byte_order_mark_and_crlf(tmp_path: Path) -> None:
    """Line 1 starts after the byte-order mark; a CRLF's CR ends its line."""
    data = BOM + wide_line().replace(b"\n", b"\r\n") * 2
    (tmp_path / "bom.jsonl").write_bytes(data)
    log = sarif_log(tmp_path, "bom.jsonl")
    results = log["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [1, 2]
    columns = {r["locations"][0]["physicalLocation"]["region"]["startColumn"] for r in results}
    assert columns == {wide_line().decode().index('{"role": "assistant"') + 2}
    assert applied(data, log) == fixed_bytes(tmp_path, "bom.jsonl")
