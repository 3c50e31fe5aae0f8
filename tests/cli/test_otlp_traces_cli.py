"""OTLP-JSON trace exports through the command line (docs/formats.md#opentelemetry-genai-spans):
``check`` fails on a request a provider refused, ``fix`` writes nothing and says why, ``show``
draws the span's history, and ``formats`` lists the dialect."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.helpers import run
from tests.sample_cases import SAMPLES

REFUSED = SAMPLES / "otel/refused-request.json"


def test_fix_leaves_a_trace_as_it_is_and_says_why(tmp_path: Path) -> None:
    trace = tmp_path / "traces.json"
    shutil.copyfile(REFUSED, trace)
    result = run(["fix", str(trace)], expect=1)
    assert trace.read_bytes() == REFUSED.read_bytes()
    (line,) = result.finding_lines
    assert line.startswith(f"{trace}:92:28: TP001 ")
    assert "a trace records what was sent to the model" in line
    assert "[/resourceSpans/0/scopeSpans/0/spans/1/attributes/3/value]" in line
    assert "1 finding not fixable" in result.stderr


def test_check_fails_on_the_refused_request() -> None:
    result = run(["check", str(SAMPLES / "otel")], expect=1)
    assert len(result.finding_lines) == 2


def test_show_draws_each_spans_history() -> None:
    result = run(["show", str(REFUSED)], expect=0)
    shown = result.stdout.decode()
    assert "call get_weather (id call_VSPygqKTWdrhaFErNvMV18Yl)" in shown
    assert "Never mind, what about Lyon?" in shown


def test_formats_lists_the_genai_dialect() -> None:
    listed = run(["formats"], expect=0).stdout.decode()
    assert "otel-genai" in listed
    assert "gen_ai.input.messages" in listed
