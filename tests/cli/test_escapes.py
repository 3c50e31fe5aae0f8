"""Control characters in the data never reach a person's terminal raw.

A history can name a tool ``get\\x1b[2J`` (clear the screen) or give a call the id
``\\x1b]0;pwned\\x07`` (set the window title), and a file can be called anything. Everything
toolpatch shows people — finding lines, provider errors, warnings, the closing tables, ``show``
panels, a diff on a terminal — writes such characters as visible escapes (``\\x1b``,
``\\u009b``, ``\\ud800``) and never reads them as Rich markup. Machine reports carry the exact
values, escaped by their encoders, and GitHub annotations escape what workflow commands need.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Result, run
from toolpatch.cli.console import visible, visible_lines

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
CSI = "\x9b31m"
NAME = f"get{CLEAR}{CSI}\ud800"
CALL_ID = f"call_{TITLE}"
TEXT = f"line one{CLEAR}\tand a tab\nline two\x7f"
#: Colour the tool writes itself (SGR), which is all the escapes a styled run may hold.
SGR = re.compile(r"\x1b\[[0-9;]*m")
#: What must never be written raw: C0 but line feed, DEL, C1, lone surrogates.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def history() -> list[dict[str, Any]]:
    """An OpenAI Chat history with a dangling call whose name, id and text hold controls."""
    call = {"id": CALL_ID, "type": "function", "function": {"name": NAME, "arguments": "{}"}}
    return [
        {"role": "user", "content": TEXT},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": f"next{CSI}\x7f"},
    ]


def dump(value: Any) -> bytes:
    """JSON as a careless writer saves it: DEL and C1 raw, a lone surrogate as an escape."""
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")


def save(folder: Path, name: str = "h.json") -> Path:
    path = folder / name
    path.write_bytes(dump(history()).replace(b"\xed\xa0\x80", b"\\ud800"))
    return path


def shown(result: Result) -> str:
    """Everything the run wrote for people, colour removed."""
    return SGR.sub("", result.stdout.decode("utf-8", "surrogateescape") + result.stderr)


def assert_escaped(text: str) -> None:
    raw = sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})
    assert not raw, f"raw control characters {raw} in:\n{text}"
    for escaped in ("get\\x1b[2J\\u009b31m\\ud800", "call_\\x1b]0;pwned\\x07"):
        assert escaped in text, f"{escaped!r} not shown in:\n{text}"


def test_visible_escapes_controls_but_not_backslashes() -> None:
    assert visible(NAME) == "get\\x1b[2J\\u009b31m\\ud800"
    assert visible("a\tb\nc\rd\x00\x7f\x85") == "a\\tb\\nc\\rd\\x00\\x7f\\u0085"
    assert visible("C:\\Users\\ana\\h.json ü 日本") == "C:\\Users\\ana\\h.json ü 日本"
    assert visible(visible(NAME)) == visible(NAME), "escaping twice changes nothing"
    assert visible_lines(TEXT) == "line one\\x1b[2J\tand a tab\nline two\\x7f"


@pytest.mark.parametrize("color", ["never", "always"])
@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--output-format", "full"],  # the provider error under each finding
        ["check", "--select", "ALL", "-v"],
        ["fix", "--check", "-v"],
        ["fix", "-v"],
    ],
)
def test_report_lines_show_controls_as_escapes(tmp_path: Path, args: list[str], color: str) -> None:
    save(tmp_path)
    save(tmp_path, "second.json")
    result = run([*args, "--color", color, "h.json", "second.json"], cwd=tmp_path)
    assert result.code == (0 if args == ["fix", "-v"] else 1), result.show()
    assert_escaped(shown(result))


@pytest.mark.parametrize("color", ["never", "always"])
@pytest.mark.parametrize("args", [["check"], ["fix", "--check"]])
def test_statistics_tables_show_controls_as_escapes(
    tmp_path: Path, args: list[str], color: str
) -> None:
    for name in (f"a{CLEAR}.json", "[red]b.json"):
        save(tmp_path, name)
    result = run(
        [*args, "--statistics", "--color", color, f"a{CLEAR}.json", "[red]b.json"],
        cwd=tmp_path,
        expect=1,
    )
    text = shown(result)
    assert not RAW.findall(text), text
    assert "a\\x1b[2J.json" in text and "[red]b.json" in text, "the table by file" + text


@pytest.mark.parametrize("color", ["never", "always"])
def test_show_panels_show_controls_as_escapes(tmp_path: Path, color: str) -> None:
    save(tmp_path)
    result = run(["show", "--color", color, "h.json"], cwd=tmp_path, expect=0)
    text = shown(result)
    assert_escaped(text)
    assert "line one\\x1b[2J" in text and "line two\\x7f" in text, "the message's text"
    assert "\\x1b]0;pwned\\x07 has no recorded result" in text, "the synthetic result"


def test_a_diff_on_a_terminal_shows_escapes_and_a_piped_one_is_exact(tmp_path: Path) -> None:
    save(tmp_path)
    piped = run(["fix", "--diff", "h.json"], cwd=tmp_path, expect=1)
    assert f'"content": "next{CSI}\x7f"'.encode() in piped.stdout, "the product, exact"
    coloured = run(["fix", "--diff", "--color", "always", "h.json"], cwd=tmp_path, expect=1)
    text = SGR.sub("", coloured.stdout.decode())
    assert not RAW.findall(text.replace("\t", "")), text
    assert '"content": "next\\u009b31m\\x7f"' in text, text


def test_file_names_are_escaped_and_never_markup(tmp_path: Path) -> None:
    for name in (f"a{CLEAR}.json", "[red]b.json"):
        save(tmp_path, name)
    names = [f"a{CLEAR}.json", "[red]b.json"]
    checked = run(["check", "-v", "--color", "always", *names], cwd=tmp_path, expect=1)
    text = shown(checked)
    assert not RAW.findall(text), text
    assert "a\\x1b[2J.json:6:3: TP001" in text and "[red]b.json:6:3: TP001" in text, text
    assert text.count("[red]b.json") == 2, "the finding line and the list found keep the name"
    shown_file = run(["show", "--color", "always", "[red]b.json"], cwd=tmp_path, expect=0)
    assert "[red]b.json" in shown(shown_file), shown_file.show()


@pytest.mark.parametrize("output_format", ["json", "jsonl", "sarif"])
def test_machine_reports_keep_exact_values(tmp_path: Path, output_format: str) -> None:
    save(tmp_path)
    result = run(["check", "--output-format", output_format, "h.json"], cwd=tmp_path, expect=1)
    text = result.stdout.decode("utf-8")  # valid UTF-8: no lone surrogate written raw
    assert not RAW.findall(text), "C0, DEL and C1 are JSON escapes"
    report = json.loads(text)
    if output_format == "sarif":
        properties = report["runs"][0]["results"][0]["properties"]
        assert (properties["toolName"], properties["callId"]) == (NAME, CALL_ID)
    else:
        (finding,) = report if output_format == "json" else [report]
        assert (finding["tool_name"], finding["call_id"]) == (NAME, CALL_ID)


def test_github_annotations_escape_what_workflow_commands_need(tmp_path: Path) -> None:
    name = "odd, name:\n%.json"
    save(tmp_path, name)
    result = run(["check", "--output-format", "github", name], cwd=tmp_path, expect=1)
    (line,) = result.stdout.decode("utf-8").splitlines()
    assert line.startswith("::error title=toolpatch (TP001),file=odd%2C name%3A%0A%25.json,")
    # What comes from the data is shown with its controls as escapes (docs/cli.md#safety): raw,
    # ESC, BEL and C1 would reach the workflow log and the terminal that shows it.
    assert not RAW.findall(line)
    assert "TP001 [*] tool call 'get\\x1b[2J\\u009b31m\\ud800' (id call_\\x1b]0;pwned\\x07)" in line


def test_configuration_errors_show_the_path_escaped(tmp_path: Path) -> None:
    folder = tmp_path / f"repo{CLEAR}"
    folder.mkdir()
    (folder / "toolpatch.toml").write_text('colour = "red"\n')
    save(folder)
    result = run(["check", "h.json"], cwd=folder, expect=2)
    assert not RAW.findall(result.stderr), result.show()
    assert "repo\\x1b[2J/toolpatch.toml: unknown key 'colour'" in result.stderr, result.show()


def test_printable_text_has_nothing_to_escape() -> None:
    """`visible` returns printable text as it is, unread: no printable character, over all of
    Unicode, is one it would escape."""
    from toolpatch.cli.console import _CONTROLS

    printable = "".join(c for c in map(chr, range(0x110000)) if c.isprintable())
    assert re.search(_CONTROLS, printable) is None
