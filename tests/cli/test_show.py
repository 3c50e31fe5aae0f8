"""``toolpatch show FILE``: a history drawn as panels, defects marked, fixes shown in place.

Run through the real entry point with stdout piped (Rich then draws plain box characters, no
colour) and ``COLUMNS=200``. Pinned: one panel per message in order, the calls and results of
each, the finding under the calling message, the synthetic result shown where ``fix`` puts it
(a panel of its own, or a line inside the user turn it goes into) and marked as inserted, text
cut short unless ``--full``, colour only when asked, and nothing ever written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.builders import CLEAN, DANGLING, DANGLING_JSONL, snapshot, write
from tests.conftest import SAMPLES
from tests.helpers import TP001_TEXT, Result, clean_env, run, text
from tests.sample_cases import file_samples
from tests.session_logs import running

TITLE = re.compile(r"^╭─ (?P<title>.+?) ─+╮$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def show(*args: str, cwd: Path | None = None, expect: int = 0, **kwargs: object) -> Result:
    return run(["show", *args], cwd=cwd, expect=expect, **kwargs)  # type: ignore[arg-type]


def titles(result: Result) -> list[str]:
    """The panel titles, top to bottom."""
    lines = result.stdout.decode().splitlines()
    return [m["title"] for m in map(TITLE.match, lines) if m]


def panel(result: Result, title: str) -> str:
    """The text inside the panel titled ``title`` (borders stripped, lines joined by spaces)."""
    lines = result.stdout.decode().splitlines()
    start = next(
        i for i, line in enumerate(lines) if (m := TITLE.match(line)) and m["title"] == title
    )
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
    return " ".join(line.strip("│ ").strip() for line in lines[start + 1 : end])


def test_panels_in_order_with_the_synthetic_result_in_place(tmp_path: Path) -> None:
    path = write(tmp_path / "h.json", DANGLING)
    before = snapshot(path)
    result = show("h.json", cwd=tmp_path)
    assert result.stderr == ""
    assert titles(result) == [
        "#0 system",
        "#1 user",
        "#2 assistant",
        "+ tool (inserted by fix)",
        "#3 user",
    ]
    assert "You are helpful." in panel(result, "#0 system")
    call = panel(result, "#2 assistant")
    assert "→ call get_weather (id call_1) {}" in call
    assert "✗ TP001 [*] dangling-tool-call: tool call 'get_weather' (id call_1)" in call
    inserted = panel(result, "+ tool (inserted by fix)")
    assert inserted == text(TP001_TEXT, "get_weather", "call_1")
    assert snapshot(path) == before, "show writes nothing"


def test_results_are_shown_with_the_call_they_answer(tmp_path: Path) -> None:
    write(tmp_path / "c.json", CLEAN)
    result = show("c.json", cwd=tmp_path)
    assert titles(result) == ["#0 user", "#1 assistant", "#2 tool", "#3 assistant"]
    assert panel(result, "#2 tool") == "sunny ← result for call_9"
    assert "✗" not in result.stdout.decode() and "inserted" not in result.stdout.decode()


def test_a_result_inserted_into_a_user_turn_is_marked_inside_it() -> None:
    result = show(str(SAMPLES / "anthropic" / "plain-string-reply.json"))
    user = panel(result, "#2 user")
    assert user.startswith("Sorry, the file is config/app.toml.")
    assert "+ inserted by fix: Tool call read_file with id toolu_01Hn8X7vR3cDqP2mWzL5tKbA" in user
    assert "~ rewritten by fix" in user
    assert "✗ TP001 [*]" in panel(result, "#1 assistant")


def test_a_result_recorded_in_the_call_entry_is_shown_with_the_fields_set() -> None:
    result = show(str(SAMPLES / "gemini-cli" / "interrupted-executing.json"))
    turn = panel(result, "#1 gemini")
    assert "+ inserted by fix: Tool call run_shell_command with id" in turn
    assert "~ set by fix: /toolCalls/0/resultDisplay = Tool call run_shell_command" in turn
    assert "rewritten" not in turn


def test_gemini_results_without_ids_say_how_they_pair() -> None:
    result = show(str(SAMPLES / "gemini" / "rest-idless-parallel.json"))
    assert "← result (paired by name and position)" in panel(result, "#2 user")
    assert panel(result, "#1 model").count("✗ TP001") == 2


def test_unsafe_fixes_show_what_is_dropped(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "zz", "content": "stale"},
        {"role": "assistant", "content": "hello"},
    ]
    write(tmp_path / "h.json", json.dumps(history).encode())
    safe = show("--select", "ALL", "h.json", cwd=tmp_path)
    assert "✗ TP101 [~] orphan-tool-result" in panel(safe, "#1 tool")
    assert "dropped" not in safe.stdout.decode()
    unsafe = show("--select", "ALL", "--unsafe-fixes", "h.json", cwd=tmp_path)
    assert "- dropped by fix: the whole message" in panel(unsafe, "#1 tool")


def test_long_text_is_cut_unless_full(tmp_path: Path) -> None:
    words = " ".join(f"w{n:04d}" for n in range(400))
    write(tmp_path / "h.json", json.dumps([{"role": "user", "content": words}]).encode())
    cut = panel(show("h.json", cwd=tmp_path), "#0 user")
    assert "w0000" in cut and "w0399" not in cut and "more characters)" in cut
    whole = panel(show("--full", "h.json", cwd=tmp_path), "#0 user")
    assert "w0399" in whole and "more characters" not in whole


def test_every_conversation_of_json_lines_has_a_heading(tmp_path: Path) -> None:
    result = show(str(SAMPLES / "langchain" / "conversations.jsonl"), cwd=tmp_path)
    headings = [
        line for line in result.stdout.decode().splitlines() if "conversations.jsonl:" in line
    ]
    assert [h.split("conversations.jsonl:")[1].split()[0] for h in headings] == ["1", "2", "3", "4"]
    assert result.stdout.decode().count("(inserted by fix)") == 4


def test_json_lines_of_messages_are_one_conversation(tmp_path: Path) -> None:
    write(tmp_path / "m.jsonl", DANGLING_JSONL)
    result = show("m.jsonl", cwd=tmp_path)
    assert titles(result) == ["#0 user", "#1 assistant", "+ tool (inserted by fix)", "#2 user"]
    assert "✗ TP002" not in result.stdout.decode()


def test_stdin_and_selection(tmp_path: Path) -> None:
    piped = show("-", input=DANGLING)
    assert "+ tool (inserted by fix)" in titles(piped)
    ignored = show("--ignore", "TP001", "-", input=DANGLING)
    assert "✗" not in ignored.stdout.decode() and "inserted" not in ignored.stdout.decode()


def test_configured_texts_are_shown(tmp_path: Path) -> None:
    write(tmp_path / "toolpatch.toml", b'[texts]\nTP001 = "Stopped: {name}."\n', mtime=None)
    write(tmp_path / "h.json", DANGLING)
    assert (
        panel(show("h.json", cwd=tmp_path), "+ tool (inserted by fix)") == "Stopped: get_weather."
    )
    isolated = show("--isolated", "h.json", cwd=tmp_path)
    assert panel(isolated, "+ tool (inserted by fix)").startswith("Tool call get_weather")


def test_colour_only_when_asked(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    plain = show("h.json", cwd=tmp_path)
    assert "\x1b" not in plain.stdout.decode()
    always = show("--color", "always", "h.json", cwd=tmp_path)
    assert ANSI.search(always.stdout.decode())
    assert ANSI.sub("", always.stdout.decode()) == plain.stdout.decode()
    forced = show("h.json", cwd=tmp_path, env=clean_env(FORCE_COLOR="1"))
    assert ANSI.search(forced.stdout.decode())
    no_color = show("h.json", cwd=tmp_path, env=clean_env(NO_COLOR="1", FORCE_COLOR="1"))
    assert "\x1b" not in no_color.stdout.decode()


def test_unreadable_input_is_a_located_error(tmp_path: Path) -> None:
    write(tmp_path / "broken.json", b'[{"role": "user",\n  "content": }]')
    result = show("broken.json", cwd=tmp_path, expect=2)
    assert result.stdout == b""
    assert result.stderr_lines[0].startswith("broken.json:2:"), result.show()
    missing = show("missing.json", cwd=tmp_path, expect=2)
    assert "missing.json" in missing.stderr
    write(tmp_path / "config.json", b'{"name": "x"}')
    assert "no message history" in show("config.json", cwd=tmp_path, expect=2).stderr


def test_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "d" / "h.json", DANGLING)
    result = show("d", cwd=tmp_path, expect=2)
    assert result.stdout == b"" and "one file" in result.stderr


#: Every shipped input (expected repairs left out).
SAMPLE_INPUTS = [
    p
    for p in file_samples("*.json*")
    if ".fixed." not in p.name and ".unsafe." not in p.name and p.suffix in (".json", ".jsonl")
]


def panels(result: Result) -> list[tuple[str, str]]:
    """Every panel as (title, text inside it, lines joined by spaces), top to bottom."""
    lines = result.stdout.decode().splitlines()
    found = []
    for start, line in enumerate(lines):
        title = TITLE.match(line)
        if title:
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
            body = " ".join(row.strip("│ ").strip() for row in lines[start + 1 : end])
            found.append((title["title"], body))
    return found


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("path", SAMPLE_INPUTS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_show_marks_every_finding_check_reports_on_its_message(path: Path) -> None:
    """On every sample (sessions, message lines, documents, corpora of conversations), each
    finding ``check`` reports is drawn in the panel of the message it is about, and ``show``
    draws no finding ``check`` does not report."""
    selectors = ["--select", "ALL"] if path.parent.name == "strict" else []
    name = str(path.relative_to(SAMPLES))
    check = run(["check", "--output-format", "json", *selectors, name], cwd=SAMPLES)
    assert check.code in (0, 1), check.show()
    findings = [r for r in json.loads(check.stdout) if r["kind"] == "finding"]
    shown = show("--full", *selectors, name, cwd=SAMPLES, env={**clean_env(), "COLUMNS": "200"})
    drawn = panels(shown)
    for finding in findings:
        mark = f"✗ {finding['code']}"
        assert any(
            title.startswith(f"#{finding['message_index']} ")
            and mark in body
            and words(finding["message"]) in words(body)
            for title, body in drawn
        ), f"{name}: {finding['code']} {finding['call_id']} not shown on its message"
    assert sum(body.count("✗ TP") for _, body in drawn) == len(findings)


def test_show_holds_back_the_pending_calls_of_a_live_session_as_check_does(tmp_path: Path) -> None:
    """A session log whose last entry was written moments ago may belong to a running agent:
    ``show`` marks its pending call as ``check`` reports it, without a fix, and draws no result
    for it; with ``--force`` the result is drawn where ``fix --force`` puts it."""
    path = tmp_path / "live.jsonl"
    path.write_bytes(running((SAMPLES / "claude-code" / "sidechain.jsonl").read_bytes())[0])
    check = run(["check", "--output-format", "json", path.name], cwd=tmp_path, expect=1)
    (pending,) = [r for r in json.loads(check.stdout) if r["code"] == "TP002"]
    assert pending["fix"] is None
    shown = show(path.name, cwd=tmp_path, env={**clean_env(), "COLUMNS": "200"})
    drawn = " ".join(body for _, body in panels(shown))
    assert words(pending["message"]) in words(drawn)
    assert "inserted by fix" not in shown.stdout.decode()
    forced = show("--force", path.name, cwd=tmp_path, env={**clean_env(), "COLUMNS": "200"})
    assert "inserted by fix" in forced.stdout.decode()
