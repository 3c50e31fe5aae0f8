"""OpenTelemetry GenAI spans in OTLP-JSON trace exports (docs/formats.md#opentelemetry-genai-spans):
each span's ``gen_ai.input.messages`` paired by the engine, an open call reported at the
attribute that holds it, and nothing ever written into the trace."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patchcore
from tests.builders import found
from tests.sample_cases import SAMPLES

REFUSED = SAMPLES / "otel/refused-request.json"
RUN = SAMPLES / "otel/agent-run.jsonl"
#: The input messages of the refused request (span 2 of the document sample).
SENT = [
    {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
    {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"x": 1}}
        ],
    },
    {"role": "user", "parts": [{"type": "text", "content": "Never mind."}]},
]


def export(*attributes: dict[str, Any]) -> bytes:
    """A one-span export holding ``attributes``, as the Collector's file exporter writes it."""
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "chat m", "attributes": attributes}
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    return json.dumps(document).encode() + b"\n"


def messages(value: object) -> dict[str, Any]:
    """The ``gen_ai.input.messages`` attribute, as a JSON string."""
    return {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(value)}}


def any_value(value: object) -> dict[str, Any]:
    """``value`` as an OTLP ``AnyValue`` in the JSON mapping (a structured attribute)."""
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if isinstance(value, dict):
        pairs = [{"key": k, "value": any_value(v)} for k, v in value.items()]
        return {"kvlistValue": {"values": pairs}}
    if isinstance(value, bool):
        return {"boolValue": value}
    return {"intValue": str(value)}


def test_a_refused_request_is_reported_at_its_span_and_never_fixed() -> None:
    data = REFUSED.read_bytes()
    report = patchcore.fix_document(data, filename=REFUSED.name)
    assert report.layout == "otlp-traces"
    (finding,) = report.findings
    assert (finding.code, finding.call_id, finding.dialect) == (
        "TP001",
        "call_VSPygqKTWdrhaFErNvMV18Yl",
        "otel-genai",
    )
    attribute = ("resourceSpans", 0, "scopeSpans", 0, "spans", 1, "attributes", 3, "value")
    assert finding.pointer == attribute
    keys = [n for n, text in enumerate(data.splitlines(), 1) if b"gen_ai.input.messages" in text]
    assert (finding.line, finding.column) == (keys[1] + 1, 28)  # the second span's value
    assert "message 1 of gen_ai.input.messages of span 'chat gpt-4' (53995c3f42cd8ad8)" in (
        finding.message
    )
    assert "a trace records what was sent to the model" in finding.message
    assert finding.fix is None
    assert report.output is None


def test_the_replys_calls_are_answered_in_the_next_span_not_reported() -> None:
    """Span 1 of each sample ends on the model's calls (its output messages): the application
    answers them in its next request, so only a request sent without an answer is a finding."""
    report = patchcore.check_document(RUN.read_bytes(), filename=RUN.name)
    assert found(report.findings) == [("TP002", "call_R0m3x")]
    assert report.findings[0].line == 2
    assert [c.line for c in report.conversations] == [1, 2, 3]


def test_every_rule_finds_nothing_in_a_complete_history() -> None:
    lines = RUN.read_bytes().splitlines(keepends=True)
    options = patchcore.make_options(select=["ALL"])
    report = patchcore.check_document(lines[2], filename="run.jsonl", options=options)
    assert report.findings == ()


def test_a_structured_attribute_is_read_as_its_json_string_would_be() -> None:
    """The conventions allow the structured form (an ``AnyValue`` array) where it is
    supported, the JSON string where it is not: both are the same history."""
    structured = {"key": "gen_ai.input.messages", "value": any_value(SENT)}
    as_text = patchcore.check_document(export(messages(SENT)), filename="t.jsonl")
    as_value = patchcore.check_document(export(structured), filename="t.jsonl")
    assert found(as_text.findings) == found(as_value.findings) == [("TP001", "call_1")]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"stringValue": "[{not json"}, "holds no list of GenAI messages"),
        ({"stringValue": '[{"role": "user", "content": "hi"}]'}, "holds no list"),
        ({"intValue": "3"}, "holds no list"),
    ],
)
def test_an_attribute_that_holds_no_genai_messages_is_said_unread(
    value: dict[str, Any], said: str
) -> None:
    attributes = [{"key": "gen_ai.input.messages", "value": value}, messages(SENT)]
    report = patchcore.check_document(export(*attributes), filename="t.jsonl")
    assert found(report.findings) == [("TP001", "call_1")]
    (warning,) = [c for c in report.conversations if c.warning]
    assert said in (warning.note or "")
    assert warning.pointer.endswith("/attributes/0/value")


def test_a_call_renamed_to_an_unknown_part_type_is_a_warning_or_a_refusal() -> None:
    """A part of a type the conventions do not define is read only beside their own calls: a
    history whose call was renamed is said unread (beside a span that is read), or the export
    is refused (alone); never "No findings"."""
    renamed = json.loads(json.dumps(SENT).replace('"tool_call"', '"tool_kall"'))
    with pytest.raises(patchcore.NoHistoryError, match="'tool_kall'"):
        patchcore.check_document(export(messages(renamed)), filename="t.jsonl")
    report = patchcore.check_document(export(messages(renamed), messages(SENT)), filename="t.jsonl")
    assert found(report.findings) == [("TP001", "call_1")]
    (warning,) = [c for c in report.conversations if c.warning]
    assert warning.note is not None and "'tool_kall'" in warning.note


def test_an_unknown_part_beside_the_conventions_calls_is_read_and_said() -> None:
    custom = {"role": "user", "parts": [{"type": "image_ref", "ref": "s3://b/k"}]}
    report = patchcore.check_document(export(messages([custom, *SENT])), filename="t.jsonl")
    assert found(report.findings) == [("TP001", "call_1")]
    (warning,) = [c for c in report.conversations if c.warning]
    assert warning.note is not None and "'image_ref'" in warning.note


def test_an_export_without_genai_spans_holds_no_history() -> None:
    attribute = {"key": "http.method", "value": {"stringValue": "GET"}}
    with pytest.raises(patchcore.NoHistoryError, match=r"gen_ai\.input\.messages"):
        patchcore.check_document(export(attribute), filename="t.jsonl")


def test_a_call_id_of_the_wrong_type_is_located_at_its_attribute() -> None:
    broken = json.loads(json.dumps(SENT).replace('"call_1"', '{"id": 1}'))
    with pytest.raises(patchcore.ShapeError) as raised:
        patchcore.check_document(export(messages(broken)), filename="t.jsonl")
    assert raised.value.line == 1
    assert raised.value.pointer.endswith("/attributes/0/value")


def test_the_drop_repair_removes_nothing_from_a_trace() -> None:
    options = patchcore.make_options(repair="drop", unsafe_fixes=True)
    report = patchcore.fix_document(REFUSED.read_bytes(), filename=REFUSED.name, options=options)
    assert report.output is None
    assert all(f.fix is None for f in report.findings)


def test_a_list_of_genai_messages_on_its_own_is_read_on_its_markers() -> None:
    """Detection takes a list for the GenAI conventions' only on a ``tool_call`` or
    ``tool_call_response`` part; such a list is checked and never repaired either."""
    report = patchcore.fix_document(json.dumps(SENT).encode(), filename="sent.json")
    assert report.layout == "json"
    assert [(f.code, f.dialect, f.fix) for f in report.findings] == [("TP001", "otel-genai", None)]
    assert report.output is None
    plain = [SENT[0], SENT[2]]  # no marker: another dialect that reads them may take them
    report = patchcore.check_document(json.dumps(plain).encode())
    assert report.findings == ()
    assert [c.dialect for c in report.conversations] != ["otel-genai"]


def test_gemini_contents_are_never_read_as_genai_messages() -> None:
    """Gemini's parts have no ``type``: a Gemini history stays Gemini's."""
    contents = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
    ]
    report = patchcore.check_document(json.dumps(contents).encode())
    assert {c.dialect for c in report.conversations} == {"gemini"}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '[{"role": "user", "parts": [{"type": "text", "content": "\\ud800"}]}]',
    ],
    ids=["nested", "lone-surrogate"],
)
def test_hostile_attribute_text_is_read_or_said_never_a_crash(text: str) -> None:
    attribute = {"key": "gen_ai.input.messages", "value": {"stringValue": text}}
    report = patchcore.check_document(export(attribute, messages(SENT)), filename="t.jsonl")
    assert found(report.findings) == [("TP001", "call_1")]


def test_no_rule_fixes_anything_in_a_trace() -> None:
    """Every rule and unsafe fixes: an orphan response, a duplicate, nothing gets a fix."""
    answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "x", "response": 1}]}
    answered = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": 1}],
    }
    sent = [SENT[0], answer, SENT[1], answered, answered, SENT[2]]
    options = patchcore.make_options(select=["ALL"], unsafe_fixes=True)
    report = patchcore.fix_document(export(messages(sent)), filename="t.jsonl", options=options)
    assert {f.code for f in report.findings} == {"TP101", "TP103"}
    assert all(f.fix is None for f in report.findings)
    assert report.output is None


def test_a_message_no_dialect_reads_beside_calls_is_refused_at_its_attribute() -> None:
    """A history holding calls and a message of another shape is broken, not passed over
    (docs/formats.md#detection): the error points at the attribute."""
    broken = [*SENT, {"role": "assistant", "content": "plain text"}]
    with pytest.raises(patchcore.ShapeError) as raised:
        patchcore.check_document(export(messages(broken)), filename="t.jsonl")
    assert raised.value.line == 1
    assert raised.value.pointer is not None
    assert raised.value.pointer.endswith("/attributes/0/value")


def test_a_line_that_is_no_trace_export_is_said_on_its_line() -> None:
    data = export(messages(SENT)) + b'{"resourceLogs": []}\n' + b"not json\n"
    report = patchcore.check_document(data, filename="t.jsonl")
    assert found(report.findings) == [("TP001", "call_1")]
    warnings = [(c.line, c.note) for c in report.conversations if c.warning]
    assert [line for line, _ in warnings] == [2, 3]
    assert "no trace export" in (warnings[0][1] or "")
    assert "not JSON" in (warnings[1][1] or "")
