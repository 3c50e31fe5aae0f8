"""OTLP-JSON trace exports: which traced model calls a provider would refuse.

An OpenTelemetry trace export is an ``ExportTraceServiceRequest`` in the protobuf JSON mapping,
``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}``: one document,
or one such document a line, as the Collector's ``file`` exporter writes. A span of a model
call instrumented by the GenAI semantic conventions carries, among its ``attributes``
(``[{"key", "value": AnyValue}]``), ``gen_ai.input.messages``: the messages the model was
sent, as a JSON string (``{"stringValue": "[...]"}``, what the conventions allow on spans) or
as a structured value (``arrayValue`` / ``kvlistValue``).

Each span's input messages are one history, read by the `patchcore.dialects.otel_genai`
dialect and paired by the engine: a ``tool_call`` with no later ``tool_call_response`` of its
id is a request the provider turns away. Only the input is checked: the output messages
(``gen_ai.output.messages``) are the model's reply, whose calls the application answers in its
next request, a later span, where a missing answer shows.

A finding is located at the attribute that holds the history (its line and column, and the
pointer to its ``value``), names the span and the message, and has no fix: a trace records what
was sent, not a history an agent resumes (`patchcore.dialects.otel_genai.TRACED`); ``fix``
leaves the file as it is. Spans without the attribute are no conversations; an attribute whose
value is no list of GenAI messages is said as a warning, kept unread.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from patchcore.errors import DecodeError, NoHistoryError, ShapeError
from patchcore.layouts.base import Analysis, Head, WholeLayout
from patchcore.raw.codec import Decoded, parse
from patchcore.result import Conversation

if TYPE_CHECKING:
    from patchcore.layouts.sessions.entries import Entry
    from patchcore.model import Edit, Finding, Pointer
    from patchcore.options import Options

#: The attribute that holds a span's history.
INPUT_MESSAGES = "gen_ai.input.messages"


def plain(value: object) -> object:
    """An OTLP ``AnyValue`` in the JSON mapping as the plain value it stands for (``None`` for
    one of no known kind): a JSON string stays a string."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value or "doubleValue" in value:
        return value.get("boolValue", value.get("doubleValue"))
    if "intValue" in value:
        number = value["intValue"]  # the JSON mapping writes 64-bit integers as strings
        return int(number) if isinstance(number, str) and number.lstrip("-").isdigit() else number
    if isinstance(value.get("arrayValue"), dict):
        return [plain(v) for v in value["arrayValue"].get("values") or []]
    if isinstance(value.get("kvlistValue"), dict):
        pairs = value["kvlistValue"].get("values") or []
        return {
            p["key"]: plain(p.get("value")) for p in pairs if isinstance(p, dict) and "key" in p
        }
    return None


def _items(value: object, key: str) -> list[Any]:
    """``value[key]`` where ``value`` is an object and that member a list, else nothing."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def spans(export: object) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    """Every span of an export, with its pointer in the export."""
    for r, resource in enumerate(_items(export, "resourceSpans")):
        for s, scope in enumerate(_items(resource, "scopeSpans")):
            for k, span in enumerate(_items(scope, "spans")):
                if isinstance(span, dict):
                    yield ("resourceSpans", r, "scopeSpans", s, "spans", k), span


def _histories(entry: Entry) -> Iterator[tuple[Pointer, dict[str, Any], object]]:
    """Each span of an entry that records its input messages: the pointer of the attribute's
    ``value``, the span, and the messages (a JSON string parsed; its text where it does not
    parse)."""
    for pointer, span in spans(entry.value):
        for a, attribute in enumerate(_items(span, "attributes")):
            if isinstance(attribute, dict) and attribute.get("key") == INPUT_MESSAGES:
                yield (*pointer, "attributes", a, "value"), span, _messages(attribute)


def _messages(attribute: dict[str, Any]) -> object:
    """What an attribute's value holds: a JSON string parsed as the document is (a string
    that is no JSON is kept as it is, and said unread), a structured value as its plain value
    (one nested deeper than a parse allows is no history)."""
    try:
        value = plain(attribute.get("value"))
    except RecursionError:
        return None
    if not isinstance(value, str):
        return value
    try:
        return parse(value.encode("utf-8", "surrogatepass"))
    except DecodeError:
        return value


def _named(span: dict[str, Any]) -> str:
    """How a finding names its span: its name and id, as far as they are strings."""
    name, ident = span.get("name"), span.get("spanId")
    said = f"span {name!r}" if isinstance(name, str) else "a span"
    return f"{said} ({ident})" if isinstance(ident, str) else said


class OtlpTraces(WholeLayout):
    """OTLP-JSON trace exports whose spans record GenAI messages (read-only)."""

    name = "otlp-traces"

    def recognises(self, head: Head, options: Options) -> bool:
        forced = options.dialect
        first = head.first_record
        return (
            isinstance(first, dict)
            and isinstance(first.get("resourceSpans"), list)
            and (forced is None or forced.name == "otel-genai")
        )

    def analyse(self, decoded: Decoded, options: Options, *, fixing: bool) -> Analysis:
        from patchcore.layouts.sessions.entries import Entry
        from patchcore.layouts.sessions.layout import odd_entry, unread

        conversations: list[Conversation] = []
        findings: list[Finding] = []
        for position, record in enumerate(decoded.records):
            try:
                entry = Entry(position, record, record.parse())
            except DecodeError as error:
                entry = Entry(position, record, None, error.reason)
            odd = odd_entry(entry)
            if odd is not None:
                conversations.append(odd)
            elif not isinstance(entry.value.get("resourceSpans"), list):
                conversations.append(unread(entry, "a line that is no trace export"))
            else:
                for pointer, span, messages in _histories(entry):
                    read, found = _checked(entry, pointer, span, messages, options)
                    conversations += read
                    findings += found
        if not any(c.dialect is not None for c in conversations):
            first = next((c for c in conversations if c.warning), None)
            why = "" if first is None else f": {first.note}"
            msg = f"no span of this trace export records {INPUT_MESSAGES} as GenAI messages{why}"
            line = 1 if first is None or first.line is None else first.line
            raise NoHistoryError(msg, line=line, column=1)
        return Analysis(tuple(conversations), tuple(findings))

    def write(self, decoded: Decoded, edits: Sequence[Edit]) -> bytes:
        msg = "a trace export is never written: nothing in it has a fix"
        raise AssertionError(msg)


def _checked(
    entry: Entry, pointer: Pointer, span: dict[str, Any], messages: object, options: Options
) -> tuple[list[Conversation], list[Finding]]:
    """One span's history (``messages``, held by the attribute ``value`` at ``pointer``)
    read and checked: its conversation, and a warning for what of it is kept unread, or only
    that warning where it is no list of GenAI messages; its findings, located at the
    attribute."""
    from patchcore.dialects.base import ListContext
    from patchcore.dialects.otel_genai import OtelGenAI
    from patchcore.engine.check import check_list
    from patchcore.engine.locate import classify
    from patchcore.layouts.sessions.entries import place, relocated
    from patchcore.layouts.sessions.layout import listed

    dialect = OtelGenAI()
    line, column = place(entry, pointer)
    where = _where(pointer)
    context = ListContext(())
    try:
        kind = classify(messages, (dialect,)) if isinstance(messages, list) else None
        if kind is None or kind.dialect is None or not isinstance(messages, list):
            why = f"{INPUT_MESSAGES} of {_named(span)} holds no list of GenAI messages"
            unknown = None
            if isinstance(messages, list) and messages and all(map(dialect.recognize, messages)):
                unknown = dialect.note(messages)  # typed parts, but none of its own calls
            said = f"{why} ({unknown.text})" if unknown is not None else why
            return [Conversation(where, line, None, 0, f"{said}; kept unread", True)], []
        found = check_list(messages, dialect=dialect, context=context, options=options)
    except ShapeError as error:
        raise relocated(error, entry, pointer) from None
    located = [_at_span(f, span, pointer, line, column) for f in found]
    read = [
        replace(
            listed(line, dialect.name, messages, context, found, located, options), pointer=where
        )
    ]
    note = dialect.note(messages)
    if note is not None:
        read.append(Conversation(where, line, None, 0, note.text, True))
    return read, located


def _where(pointer: Pointer) -> str:
    from patchcore.model import format_pointer

    return format_pointer(pointer)


def _at_span(
    finding: Finding, span: dict[str, Any], pointer: Pointer, line: int, column: int
) -> Finding:
    """A finding of a span's history, at the attribute that holds it: its message names the span
    and the message of the history that holds the call."""
    said, sep, why = finding.message.partition("; ")
    where = f"message {finding.message_index} of {INPUT_MESSAGES} of {_named(span)}"
    return replace(
        finding,
        message=f"{said}, in {where}{sep}{why}",
        list_pointer=pointer,
        message_path=pointer,
        call_path=(),
        line=line,
        column=column,
    )


#: The one instance `patchcore.pipeline.layout_of` asks.
OTLP_TRACES = OtlpTraces()
