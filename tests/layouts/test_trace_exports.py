"""Langfuse and LangSmith trace exports (docs/formats.md#langfuse-and-langsmith-trace-exports):
their message lists are plain messages, read by the existing dialects where they sit; a request
sent with a call left unanswered is found at its place, and a model's reply (a lone message in
``output``) is no history: its calls are TP004's, unread (one finding for the download)."""

from __future__ import annotations

import json
from typing import Any

import patchcore

SYSTEM = {"role": "system", "content": "You are a weather assistant."}
ASKED = {"role": "user", "content": "Weather in Paris?"}
CALLED = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_abc",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
        }
    ],
}
MOVED_ON = {"role": "user", "content": "Never mind, what about Lyon?"}


def generation(ident: str, sent: list[Any], reply: Any, level: str) -> dict[str, Any]:
    """A GENERATION observation of Langfuse's `ObservationsView` (the OpenAI integration's:
    ``input`` the messages sent, ``output`` the reply's message)."""
    return {
        "id": ident,
        "traceId": "7f3c1d2e",
        "type": "GENERATION",
        "name": "OpenAI-generation",
        "startTime": "2026-03-02T08:00:00.100Z",
        "model": "gpt-4o",
        "input": sent,
        "output": reply,
        "level": level,
        "statusMessage": None if level == "DEFAULT" else "Error code: 400",
        "parentObservationId": None,
    }


def test_a_langfuse_trace_download_reports_the_refused_generation() -> None:
    """``Download JSON`` of a trace (`TraceWithFullDetails`): the trace and its observations.
    The first generation's reply calls a tool; the second request went out without its
    result and was refused."""
    trace = {
        "id": "7f3c1d2e",
        "name": "weather-agent",
        "input": {"question": "Weather in Paris?"},
        "output": None,
        "observations": [
            generation("obs-1", [SYSTEM, ASKED], CALLED, "DEFAULT"),
            generation("obs-2", [SYSTEM, ASKED, CALLED, MOVED_ON], None, "ERROR"),
        ],
        "scores": [],
    }
    report = patchcore.check_document(json.dumps(trace, indent=2).encode())
    assert [(f.code, f.call_id, f.pointer) for f in report.findings] == [
        ("TP001", "call_abc", ("observations", 1, "input", 2, "tool_calls", 0)),
        ("TP004", None, ("observations", 0, "output")),
    ]
    assert report.findings[0].dialect == "openai-chat"


def test_a_langsmith_run_export_reports_the_refused_chat_model_run() -> None:
    """Runs as the LangSmith SDK lists them (`Run`): a chat model run's ``inputs.messages``
    is a list of lists of serialized LangChain messages, each inner list one request."""
    human = ["langchain", "schema", "messages", "HumanMessage"]
    ai = ["langchain", "schema", "messages", "AIMessage"]
    call = {"name": "get_weather", "args": {"location": "Paris"}, "id": "call_abc"}
    sent = [
        {"lc": 1, "type": "constructor", "id": human, "kwargs": {"content": "Weather?"}},
        {
            "lc": 1,
            "type": "constructor",
            "id": ai,
            "kwargs": {"content": "", "tool_calls": [{**call, "type": "tool_call"}]},
        },
        {"lc": 1, "type": "constructor", "id": human, "kwargs": {"content": "Lyon?"}},
    ]
    run = {
        "id": "1b2c3d4e",
        "name": "ChatOpenAI",
        "run_type": "llm",
        "status": "error",
        "error": "BadRequestError('Error code: 400')",
        "inputs": {"messages": [sent]},
        "outputs": None,
        "trace_id": "1b2c3d4e",
        "dotted_order": "20260302T080002000000Z1b2c3d4e",
    }
    report = patchcore.check_document(json.dumps([run]).encode())
    assert [(f.code, f.call_id, f.dialect, f.pointer) for f in report.findings] == [
        (
            "TP001",
            "call_abc",
            "langchain",
            (0, "inputs", "messages", 0, 1, "kwargs", "tool_calls", 0),
        )
    ]
    wrapped = {**run, "inputs": {"messages": [ASKED, CALLED, MOVED_ON]}}  # wrap_openai's runs
    report = patchcore.check_document(json.dumps([wrapped]).encode())
    assert [(f.code, f.dialect) for f in report.findings] == [("TP001", "openai-chat")]
