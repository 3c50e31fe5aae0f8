"""The shipped samples, defined once: each input, and its expected repair worked out by hand.

Every case is a history plus the synthetic results a correct repair inserts, stated explicitly
(``after=N``: right after the original message N), never computed by toolpatch. LangChain
messages are serialised by langchain-core itself (``messages_to_dict``, ``dumpd``,
``model_dump``), so the expected bytes are what the library writes; the test then demands that
toolpatch's byte splicing reproduces them exactly.

``python -m tests.sample_cases`` rewrites ``samples/`` from these definitions;
``tests/test_samples.py`` fails if the files and the definitions ever disagree.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_to_dict,
)

from tests.helpers import TP001_TEXT, TP002_TEXT, TP003_TEXT, text

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

TP001, TP002, TP003 = TP001_TEXT, TP002_TEXT, TP003_TEXT


@dataclass(frozen=True)
class Case:
    """One sample file.

    Attributes:
        path: Path under ``samples/``.
        records: The input records: one value for a JSON file, one per line for JSON Lines.
        dump: Serialises the records to the file's bytes.
        expected: The repaired records (same shape), or ``None`` when nothing must change.
        findings: ``(code, call_id)`` that ``check`` must report, in order (``call_id`` is
            ``None`` for a call without an id, e.g. a Gemini call paired by name).
        unfixed: The findings that have no fix (no truthful result exists, e.g. an Anthropic
            server tool or an OpenAI ``computer_call``): ``fix`` leaves them and exits 1.
        warning: Text that ``check`` must print as a ``warning:`` on stderr (a list that mixes
            dialects is reported, not repaired); ``None``: no warning at all.
        about: One line for samples/README.md.
        select: Rule selectors passed as ``--select`` to every ``check`` and ``fix`` of the
            case (e.g. ``("ALL",)`` for the provider-strict TP1xx rules); empty: the defaults.
            ``expected`` is then what ``fix`` with these selectors writes: safe fixes only, so
            TP1xx findings stay and nothing is deleted or moved.
        fixability: For each finding, in order, what ``check`` says ``fix`` can do about it:
            ``"safe"`` (``fix``), ``"unsafe"`` (only ``fix --unsafe-fixes``: it deletes or
            moves content) or ``"none"``. Empty: ``"none"`` for the ``unfixed`` findings,
            ``"safe"`` for the others.
        unsafe: The repaired records after ``fix --unsafe-fixes`` with the same selectors,
            written to ``x.unsafe.json``; ``None``: the same as without ``--unsafe-fixes``.
        cured: Findings without a fix of their own that the fixes of the others make go away
            (an id reused while its earlier call was open, once that call gets its synthetic
            result): ``check`` no longer reports them in the repaired file.
    """

    path: str
    records: Sequence[Any]
    dump: Callable[[Sequence[Any]], bytes]
    about: str
    expected: Sequence[Any] | None = None
    findings: Sequence[tuple[str, str | None]] = field(default_factory=tuple)
    unfixed: Sequence[tuple[str, str | None]] = field(default_factory=tuple)
    warning: str | None = None
    select: Sequence[str] = ()
    fixability: Sequence[str] = ()
    unsafe: Sequence[Any] | None = None
    cured: Sequence[tuple[str, str | None]] = ()

    @property
    def fixes(self) -> list[str]:
        """``safe`` / ``unsafe`` / ``none`` for each finding, in order."""
        if self.fixability:
            return list(self.fixability)
        return ["none" if f in self.unfixed else "safe" for f in self.findings]

    @property
    def selectors(self) -> list[str]:
        """The case's selectors as command-line arguments."""
        return [arg for selector in self.select for arg in ("--select", selector)]


def inserted(values: Sequence[Any], inserts: Sequence[tuple[int, Any]]) -> list[Any]:
    """``values`` with each ``(after, value)`` placed right after original element ``after``."""
    out: list[Any] = []
    for index, value in enumerate(values):
        out.append(value)
        out.extend(v for after, v in inserts if after == index)
    return out


# -- serialisers -------------------------------------------------------------------------


def json_doc(indent: int | str | None = 2, **kwargs: Any) -> Callable[[Sequence[Any]], bytes]:
    """One JSON document written by ``json.dumps`` (``records`` holds one value)."""

    def dump(records: Sequence[Any]) -> bytes:
        (value,) = records
        return (json.dumps(value, indent=indent, **kwargs) + "\n").encode("utf-8")

    return dump


def jsonl(newline: str = "\n", **kwargs: Any) -> Callable[[Sequence[Any]], bytes]:
    """JSON Lines written by ``json.dumps`` (``None`` records are blank lines)."""

    def dump(records: Sequence[Any]) -> bytes:
        lines = ["" if r is None else json.dumps(r, **kwargs) for r in records]
        return (newline.join(lines) + newline).encode("utf-8")

    return dump


Dump = Callable[[Sequence[Any]], bytes]


def literal_exponent(dump: Dump) -> Dump:
    """Write ``100.0`` as ``1e2``: a spelling orjson would not keep, and json.dumps cannot write."""
    return lambda records: dump(records).replace(b": 100.0", b": 1e2")


# -- LangChain ---------------------------------------------------------------------------


def tool_call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """A parsed LangChain tool call."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def synthetic(template: str, name: str, call_id: str) -> ToolMessage:
    """The ToolMessage a correct repair inserts."""
    return ToolMessage(
        content=text(template, name, call_id), name=name, tool_call_id=call_id, status="error"
    )


def calendar_history() -> list[BaseMessage]:
    """The seed scenario: an assistant calls a tool, the user moves on before the result."""
    return [
        SystemMessage("You are a scheduling assistant. Use the calendar tools.", id="sys-1"),
        HumanMessage("What do I have on Thursday and Friday?", id="h-1"),
        AIMessage(
            "",
            id="run-1",
            tool_calls=[tool_call("get_events_for_days", "123", days=["2026-12-03", "2026-12-04"])],
        ),
        HumanMessage("Actually, just tell me about Friday.", id="h-2"),
    ]


def weather_parallel() -> list[BaseMessage]:
    """Two parallel calls, only the first answered, then a new user message."""
    return [
        HumanMessage("Weather and local time in Paris?", id="h-1"),
        AIMessage(
            "Let me look both up.",
            id="run-1",
            tool_calls=[
                tool_call("get_weather", "call_wX1", city="Paris"),
                tool_call("get_time", "call_tZ2", tz="Europe/Paris"),
            ],
        ),
        ToolMessage("18C, sunny", name="get_weather", tool_call_id="call_wX1", id="t-1"),
        HumanMessage("Never mind the time.", id="h-2"),
        AIMessage("It is 18C and sunny in Paris.", id="run-2"),
    ]


def two_turns() -> list[BaseMessage]:
    """Two AI turns, each leaving one call without a result."""
    return [
        HumanMessage("Find flights to Oslo, then a hotel.", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("search_flights", "call_f1", to="OSL")]),
        HumanMessage("Only direct flights please.", id="h-2"),
        AIMessage(
            "",
            id="run-2",
            tool_calls=[tool_call("search_flights", "call_f2", to="OSL", direct=True)],
        ),
        ToolMessage('[{"flight": "SK4035"}]', name="search_flights", tool_call_id="call_f2"),
        AIMessage("", id="run-3", tool_calls=[tool_call("search_hotels", "call_h1", city="Oslo")]),
        HumanMessage("Stop, I will book the hotel myself.", id="h-3"),
        AIMessage("Understood. SK4035 is the direct flight.", id="run-4"),
    ]


def trailing() -> list[BaseMessage]:
    """The run stopped while the tool was executing: the last message is the call."""
    return [
        HumanMessage("Run the test suite.", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("run_tests", "call_rt1", path="tests/")]),
    ]


def invalid() -> list[BaseMessage]:
    """Output truncated at the token limit: the arguments did not parse."""
    return [
        HumanMessage("Write the report to report.md", id="h-1"),
        AIMessage(
            "",
            id="run-1",
            invalid_tool_calls=[
                {
                    "type": "invalid_tool_call",
                    "id": "call_wr1",
                    "name": "write_file",
                    "args": '{"path": "report.md", "content": "# Quarterly rep',
                    "error": "Unterminated string",
                }
            ],
        ),
        HumanMessage("Did it work?", id="h-2"),
    ]


def reused_ids() -> list[BaseMessage]:
    """An id reused in a later turn: the first call is answered, the second one is not."""
    return [
        HumanMessage("Look up order A1 and then order B2.", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("get_order", "call_0", order="A1")]),
        ToolMessage('{"status": "shipped"}', name="get_order", tool_call_id="call_0"),
        AIMessage("", id="run-2", tool_calls=[tool_call("get_order", "call_0", order="B2")]),
        HumanMessage("Hello? Is B2 shipped too?", id="h-2"),
    ]


def clean_thread() -> list[BaseMessage]:
    """Every call answered."""
    return [
        HumanMessage("Weather in Paris?", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("get_weather", "call_1", city="Paris")]),
        ToolMessage("18C, sunny", name="get_weather", tool_call_id="call_1", id="t-1"),
        AIMessage("It is 18C and sunny.", id="run-2"),
    ]


def model_dump(messages: Sequence[BaseMessage], *, exclude_none: bool = False) -> list[Any]:
    """Flat ``model_dump`` dicts (``exclude_none`` as LangSmith writes them)."""
    return [m.model_dump(exclude_none=exclude_none, mode="json") for m in messages]


def js_envelope(message: BaseMessage) -> dict[str, Any]:
    """A ``dumpd`` envelope with LangChain JS's id namespace."""
    envelope = dumpd(message)
    envelope["id"] = ["langchain_core", "messages", envelope["id"][-1]]
    return envelope


def langchain_cases() -> list[Case]:
    seed = calendar_history()
    seed_fix = [(2, synthetic(TP001, "get_events_for_days", "123"))]
    weather = weather_parallel()
    weather_fix = [(2, synthetic(TP001, "get_time", "call_tZ2"))]
    turns = two_turns()
    turns_fix = [
        (1, synthetic(TP001, "search_flights", "call_f1")),
        (5, synthetic(TP001, "search_hotels", "call_h1")),
    ]
    tail = trailing()
    tail_fix = [(1, synthetic(TP002, "run_tests", "call_rt1"))]
    broken = invalid()
    broken_fix = [(1, synthetic(TP003, "write_file", "call_wr1"))]
    reused = reused_ids()
    reused_fix = [(3, synthetic(TP001, "get_order", "call_0"))]

    chunk = [
        HumanMessage("Summarise the repository.", id="h-1"),
        AIMessageChunk(
            content="",
            id="run-1",
            tool_calls=[tool_call("list_files", "call_ls1", path=".")],
        ),
        HumanMessage("(connection dropped, retrying)", id="h-2"),
    ]
    chunk_fix = [(1, synthetic(TP001, "list_files", "call_ls1"))]

    legacy = [
        {"type": "human", "data": {"content": "Convert 10 EUR to USD and JPY", "example": False}},
        {
            "type": "ai",
            "data": {
                "content": "",
                "additional_kwargs": {
                    "tool_calls": [
                        {
                            "id": "call_cv1",
                            "type": "function",
                            "function": {"name": "convert", "arguments": '{"to": "USD"}'},
                        },
                        {
                            "id": "call_cv2",
                            "type": "function",
                            "function": {"name": "convert", "arguments": '{"to": "JP'},
                        },
                    ]
                },
                "example": False,
            },
        },
        {
            "type": "tool",
            "data": {"content": "10.84", "tool_call_id": "call_cv1", "example": False},
        },
        {"type": "human", "data": {"content": "ok", "example": False}},
    ]
    legacy_fix = [(2, messages_to_dict([synthetic(TP003, "convert", "call_cv2")])[0])]

    thread_values = model_dump(weather)
    thread = {
        "values": {"messages": thread_values, "todos": []},
        "next": [],
        "tasks": [],
        "metadata": {
            "source": "loop",
            "step": 4,
            # LangGraph server keeps the node's write delta too: a copy, not the history.
            "writes": {"model": {"messages": [thread_values[1]]}},
            "thread_id": "0b7d1c6e-3c5a-4d0f-9a55-2c9c4f1f2f10",
        },
        "created_at": "2026-11-30T09:12:44.120Z",
        "checkpoint": {"checkpoint_id": "1efab2c3-0000-6000-8000-000000000004"},
    }
    thread_fixed = json.loads(json.dumps(thread))
    thread_fixed["values"]["messages"] = inserted(
        thread_values, [(i, m.model_dump(mode="json")) for i, m in weather_fix]
    )

    chain_messages = model_dump(two_turns(), exclude_none=True)
    chain_run = {
        "id": "1f0c7a52-5b1e-4b7f-8d8a-0f3f6f0c2a11",
        "name": "travel_agent",
        "run_type": "chain",
        "inputs": {"messages": chain_messages},
        "outputs": None,
        "error": "GraphRecursionError: interrupted",
        "start_time": "2026-11-29T17:02:10.881Z",
        "end_time": "2026-11-29T17:03:55.004Z",
        "tags": ["prod"],
        "trace_id": "1f0c7a52-5b1e-4b7f-8d8a-0f3f6f0c2a11",
    }
    chain_fixed = json.loads(json.dumps(chain_run))
    chain_fixed["inputs"]["messages"] = inserted(
        chain_messages, [(i, m.model_dump(exclude_none=True, mode="json")) for i, m in turns_fix]
    )

    batch_a = [dumpd(m) for m in calendar_history()]
    batch_b = [dumpd(m) for m in clean_thread()]
    next_call = AIMessage(
        "", id="run-9", tool_calls=[tool_call("get_events_for_days", "call_next", days=[])]
    )
    llm_run = {
        "id": "0c8e0a7a-21f3-4c55-9f6e-3b1f1f1f1f1f",
        "name": "ChatOpenAI",
        "run_type": "llm",
        "inputs": {"messages": [batch_a, batch_b]},
        # The model's own output call is answered in a later run: never touched.
        "outputs": {
            "generations": [[{"text": "", "type": "ChatGeneration", "message": dumpd(next_call)}]],
            "llm_output": None,
        },
    }
    llm_fixed = json.loads(json.dumps(llm_run))
    llm_fixed["inputs"]["messages"][0] = inserted(batch_a, [(i, dumpd(m)) for i, m in seed_fix])

    def per_line(messages: Sequence[BaseMessage], **extra: Any) -> dict[str, Any]:
        return {"session_id": extra.pop("session_id"), "messages": messages_to_dict(messages)}

    conversations = [
        per_line(clean_thread(), session_id="s-001"),
        per_line(weather, session_id="s-002"),
        per_line(tail, session_id="s-003"),
        per_line(turns, session_id="s-004"),
    ]
    conversations_fixed = [
        conversations[0],
        {"session_id": "s-002", "messages": messages_to_dict(inserted(weather, weather_fix))},
        {"session_id": "s-003", "messages": messages_to_dict(inserted(tail, tail_fix))},
        {"session_id": "s-004", "messages": messages_to_dict(inserted(turns, turns_fix))},
    ]

    lines = messages_to_dict(weather)
    lines_fixed = messages_to_dict(inserted(weather, weather_fix))

    return [
        Case(
            "langchain/seed-dangling.json",
            [messages_to_dict(seed)],
            json_doc(2),
            "messages_to_dict list; the user moved on before get_events_for_days returned (TP001)",
            [messages_to_dict(inserted(seed, seed_fix))],
            [("TP001", "123")],
        ),
        Case(
            "langchain/parallel-partial-answer.json",
            [messages_to_dict(weather)],
            json_doc(2),
            "two parallel calls, one answered: the result goes after the existing ToolMessage",
            [messages_to_dict(inserted(weather, weather_fix))],
            [("TP001", "call_tZ2")],
        ),
        Case(
            "langchain/two-turns.json",
            [messages_to_dict(turns)],
            json_doc(4),
            "two AI turns each leave a call unanswered: two inserts (4-space indent)",
            [messages_to_dict(inserted(turns, turns_fix))],
            [("TP001", "call_f1"), ("TP001", "call_h1")],
        ),
        Case(
            "langchain/trailing-call.json",
            [messages_to_dict(tail)],
            json_doc(2),
            "the history ends on the AI call: pending call (TP002)",
            [messages_to_dict(inserted(tail, tail_fix))],
            [("TP002", "call_rt1")],
        ),
        Case(
            "langchain/invalid-tool-call.json",
            [messages_to_dict(broken)],
            json_doc(2),
            "truncated arguments in invalid_tool_calls (TP003)",
            [messages_to_dict(inserted(broken, broken_fix))],
            [("TP003", "call_wr1")],
        ),
        Case(
            "langchain/reused-id.json",
            [messages_to_dict(reused)],
            json_doc(2),
            "call_0 answered in turn 1, reused and left open in turn 2: only the second dangles",
            [messages_to_dict(inserted(reused, reused_fix))],
            [("TP001", "call_0")],
        ),
        Case(
            "langchain/ai-message-chunk.json",
            [messages_to_dict(chunk)],
            json_doc(2),
            "a stored AIMessageChunk (truncated stream) counts as an AI message",
            [messages_to_dict(inserted(chunk, chunk_fix))],
            [("TP001", "call_ls1")],
        ),
        Case(
            "langchain/legacy-additional-kwargs.json",
            [legacy],
            json_doc(2),
            "old file: calls only in additional_kwargs.tool_calls, one with broken JSON (TP003)",
            [inserted(legacy, legacy_fix)],
            [("TP003", "call_cv2")],
        ),
        Case(
            "langchain/dumpd-python.json",
            [[dumpd(m) for m in seed]],
            json_doc(2),
            "dumpd constructor envelopes, Python id namespace",
            [[dumpd(m) for m in inserted(seed, seed_fix)]],
            [("TP001", "123")],
        ),
        Case(
            "langchain/dumpd-js.json",
            [[js_envelope(m) for m in weather]],
            json_doc(None),
            "LangChain JS envelopes ['langchain_core', 'messages', X], one line",
            [[js_envelope(m) for m in inserted(weather, weather_fix)]],
            [("TP001", "call_tZ2")],
        ),
        Case(
            "langchain/model-dump.json",
            [model_dump(turns)],
            json_doc(2),
            "flat model_dump dicts with null keys",
            [model_dump(inserted(turns, turns_fix))],
            [("TP001", "call_f1"), ("TP001", "call_h1")],
        ),
        Case(
            "langchain/langgraph-thread-state.json",
            [thread],
            json_doc(2),
            "LangGraph server thread state: values.messages repaired, metadata.writes left alone",
            [thread_fixed],
            [("TP001", "call_tZ2")],
        ),
        Case(
            "langchain/langsmith-chain-run.json",
            [chain_run],
            json_doc(2),
            "LangSmith chain run: inputs.messages as model_dump(exclude_none=True)",
            [chain_fixed],
            [("TP001", "call_f1"), ("TP001", "call_h1")],
        ),
        Case(
            "langchain/langsmith-llm-run.json",
            [llm_run],
            json_doc(2),
            "LangSmith LLM run: inputs.messages is a list of lists; outputs are never touched",
            [llm_fixed],
            [("TP001", "123")],
        ),
        Case(
            "langchain/conversations.jsonl",
            conversations,
            jsonl(),
            "JSONL, one conversation per line: untouched lines stay byte-identical",
            conversations_fixed,
            [
                ("TP001", "call_tZ2"),
                ("TP002", "call_rt1"),
                ("TP001", "call_f1"),
                ("TP001", "call_h1"),
            ],
        ),
        Case(
            "langchain/messages.jsonl",
            lines,
            jsonl(),
            "JSONL, one messages_to_dict message per line: the file is one conversation",
            lines_fixed,
            [("TP001", "call_tZ2")],
        ),
        Case(
            "langchain/clean-thread.json",
            [{"values": {"messages": model_dump(clean_thread())}}],
            json_doc(2),
            "every call answered: check is clean, fix writes nothing",
        ),
    ]


# -- OpenAI Chat -------------------------------------------------------------------------


def function_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """An OpenAI ``tool_calls`` entry."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool_result(call_id: str, content: str, **extra: Any) -> dict[str, Any]:
    """An OpenAI tool message."""
    return {"role": "tool", "tool_call_id": call_id, **extra, "content": content}


def openai_result(template: str, name: str, call_id: str) -> dict[str, Any]:
    """The tool message a correct repair inserts."""
    return {"role": "tool", "tool_call_id": call_id, "content": text(template, name, call_id)}


def openai_cases() -> list[Case]:
    parallel = [
        {"role": "system", "content": "You are a helpful travel assistant."},
        {"role": "user", "content": "Weather and local time in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                function_call("call_9fJ2kd", "get_weather", '{"city":"Paris"}'),
                function_call("call_Q7xLm3", "get_time", '{"tz":"Europe/Paris"}'),
            ],
        },
        tool_result("call_9fJ2kd", "18C, sunny"),
        {"role": "user", "content": "Skip the time, what should I wear?"},
    ]
    parallel_fixed = inserted(parallel, [(3, openai_result(TP001, "get_time", "call_Q7xLm3"))])

    trailing_call = [
        {"role": "user", "content": "Delete the temp files in /tmp/build."},
        {
            "role": "assistant",
            "content": "Deleting them now.",
            "tool_calls": [function_call("call_rm01", "shell", '{"cmd":"rm -rf /tmp/build/*"}')],
        },
    ]
    trailing_fixed = inserted(trailing_call, [(1, openai_result(TP002, "shell", "call_rm01"))])

    malformed = [
        {"role": "user", "content": "Save the summary."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                function_call("call_sv1", "save_note", '{"title": "Summary", "body": "The q'),
            ],
        },
        {"role": "user", "content": "Are you there?"},
        {"role": "assistant", "content": "Yes - the note could not be saved."},
    ]
    malformed_fixed = inserted(malformed, [(1, openai_result(TP003, "save_note", "call_sv1"))])

    # The legacy functions API (docs/formats.md#legacy-function_call): one function_call an
    # assistant message, no ids, answered by the {"role": "function", "name"} message right after
    # it.
    def legacy_call(name: str, arguments: str) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": None,
            "function_call": {"name": name, "arguments": arguments},
        }

    legacy = [
        {"role": "system", "content": "You are AutoGPT, you can use many tools(functions)."},
        {"role": "user", "content": "Find the Gondrand customs agency and its opening hours."},
        legacy_call("search_agencies", '{"query": "Gondrand"}'),
        {"role": "function", "name": "search_agencies", "content": '[{"id": "GDR_NC"}]'},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call("call_hr7", "opening_hours", '{"id": "GDR_NC"}')],
        },
        tool_result("call_hr7", "Mon-Fri 8:00-17:00"),
        legacy_call("agency_contact", '{"id": "GDR_NC"}'),
        {"role": "user", "content": "Just the hours are fine."},
    ]
    legacy_fixed = inserted(
        legacy,
        [
            (
                6,
                {
                    "role": "function",
                    "name": "agency_contact",
                    "content": TP001.replace(" with id {id}", "").replace(
                        "{name}", "agency_contact"
                    ),
                },
            )
        ],
    )

    hf = [
        {"role": "system", "content": "You can call tools."},
        {"role": "user", "content": "What is 12 * 7, and the weather in Rome?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "type": "function",
                    "id": "c0",
                    "function": {"name": "multiply", "arguments": {"a": 12, "b": 7}},
                },
                {
                    "type": "function",
                    "id": "c1",
                    "function": {"name": "get_weather", "arguments": {"city": "Rome"}},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c0", "name": "multiply", "content": "84"},
        {"role": "assistant", "content": "12 * 7 = 84."},
    ]
    hf_fixed = inserted(
        hf,
        [
            (
                3,
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "name": "get_weather",
                    "content": text(TP001, "get_weather", "c1"),
                },
            )
        ],
    )

    sdk_dump = [
        {"role": "user", "content": "Book the 9:00 slot."},
        {
            "content": None,
            "refusal": None,
            "role": "assistant",
            "annotations": None,
            "audio": None,
            "function_call": None,
            "tool_calls": [
                {
                    "id": "call_bk9",
                    "function": {"arguments": '{"slot":"09:00"}', "name": "book_slot"},
                    "type": "function",
                }
            ],
        },
        {"role": "user", "content": "Wait - make it 10:00."},
    ]
    sdk_fixed = inserted(sdk_dump, [(1, openai_result(TP001, "book_slot", "call_bk9"))])

    def batch(custom_id: str, messages: list[Any]) -> dict[str, Any]:
        return {
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4o-mini", "messages": messages, "max_tokens": 512},
        }

    clean = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call("call_1", "get_weather", '{"city":"Paris"}')],
        },
        tool_result("call_1", "18C, sunny"),
        {"role": "assistant", "content": "It is 18C and sunny."},
    ]
    batch_lines = [batch("req-1", clean), batch("req-2", parallel), batch("req-3", malformed)]
    batch_fixed = [
        batch("req-1", clean),
        batch("req-2", parallel_fixed),
        batch("req-3", malformed_fixed),
    ]

    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_stock_price",
                "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}},
            },
        }
    ]
    sft_open = [
        {"role": "system", "content": "You are a stock assistant."},
        {"role": "user", "content": "Price of MSFT, then NVDA?"},
        {
            "role": "assistant",
            "tool_calls": [function_call("call_1", "get_stock_price", '{"symbol": "MSFT"}')],
        },
        {"role": "user", "content": "Only NVDA, sorry."},
        {
            "role": "assistant",
            "tool_calls": [function_call("call_2", "get_stock_price", '{"symbol": "NVDA"}')],
        },
        tool_result("call_2", "131.20"),
        {"role": "assistant", "content": "NVDA trades at 131.20.", "weight": 1},
    ]
    sft_open_fixed = inserted(sft_open, [(2, openai_result(TP001, "get_stock_price", "call_1"))])
    sft_clean = [
        {"role": "user", "content": "Price of AAPL?"},
        {
            "role": "assistant",
            "tool_calls": [function_call("call_1", "get_stock_price", '{"symbol": "AAPL"}')],
        },
        tool_result("call_1", "229.87"),
        {"role": "assistant", "content": "AAPL is at 229.87."},
    ]
    finetune = [
        {"messages": sft_clean, "tools": tools, "parallel_tool_calls": False},
        {"messages": sft_open, "tools": tools, "parallel_tool_calls": False},
    ]
    finetune_fixed = [
        finetune[0],
        {"messages": sft_open_fixed, "tools": tools, "parallel_tool_calls": False},
    ]

    crlf = [
        {"messages": clean},
        None,
        {"messages": parallel},
        {
            "messages": [
                {"role": "user", "content": "No tools here."},
                {"role": "assistant", "content": "Hi!"},
            ]
        },
    ]
    crlf_fixed = [crlf[0], None, {"messages": parallel_fixed}, crlf[3]]

    swe = {
        "environment": "swe_main",
        "trajectory": [],
        "history": [
            {
                "role": "system",
                "content": "SETTING: You are an autonomous programmer.",
                "agent": "main",
                "message_type": "system_prompt",
            },
            {
                "role": "user",
                "content": "Fix the failing test in tests/test_dates.py",
                "agent": "main",
                "message_type": "observation",
            },
            {
                "role": "assistant",
                "content": "Let's look at the test first.",
                "thought": "Let's look at the test first.",
                "action": "open tests/test_dates.py",
                "agent": "main",
                "tool_calls": [
                    function_call("call_op1", "open", '{"path": "tests/test_dates.py"}')
                ],
                "message_type": "action",
            },
            {
                "role": "tool",
                "content": "[File: tests/test_dates.py (40 lines total)]",
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": ["call_op1"],
            },
            {
                "role": "assistant",
                "content": "Now run it.",
                "thought": "Now run it.",
                "action": "pytest tests/test_dates.py",
                "agent": "main",
                "tool_calls": [
                    function_call("call_py2", "bash", '{"command": "pytest tests/test_dates.py"}')
                ],
                "message_type": "action",
            },
            {
                "role": "user",
                "content": "Exit due to cost limit",
                "agent": "main",
                "message_type": "observation",
            },
        ],
    }
    swe_fixed = json.loads(json.dumps(swe))
    swe_fixed["history"] = inserted(
        swe["history"],
        [
            (
                4,
                {
                    "role": "tool",
                    "tool_call_ids": ["call_py2"],
                    "content": text(TP001, "bash", "call_py2"),
                },
            )
        ],
    )

    fidelity = {
        "messages": [
            {
                "role": "user",
                "content": "Réserve une table pour 2 à 20h \u2014 merci",
                "id": 123456789012345678901234567890,
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    function_call("call_rs1", "réserver", '{"personnes": 2, "heure": "20:00"}')
                ],
                "score": 1e2,
                "confidence": float("nan"),
            },
            {"role": "user", "content": "Annule, on mange à la maison \U0001f37d"},
        ],
        "metadata": {"zzz": 1, "aaa": [1.5e-07, -0.0]},
    }
    fidelity_fixed = json.loads(json.dumps(fidelity))
    fidelity_fixed["messages"] = inserted(
        fidelity["messages"], [(1, openai_result(TP001, "réserver", "call_rs1"))]
    )

    per_message = [{"role": "user", "content": "Find cheap flights to Lisbon"}, *parallel[2:]]
    per_message_fixed = inserted(
        per_message, [(2, openai_result(TP001, "get_time", "call_Q7xLm3"))]
    )

    return [
        Case(
            "openai-chat/parallel-partial-answer.json",
            [parallel],
            json_doc(2),
            "assistant tool_calls with two calls, one tool message, then the user moved on",
            [parallel_fixed],
            [("TP001", "call_Q7xLm3")],
        ),
        Case(
            "openai-chat/trailing-call.json",
            [{"model": "gpt-4o", "messages": trailing_call}],
            json_doc(2),
            "request body whose history ends on the call (TP002)",
            [{"model": "gpt-4o", "messages": trailing_fixed}],
            [("TP002", "call_rm01")],
        ),
        Case(
            "openai-chat/malformed-arguments.json",
            [malformed],
            json_doc("\t"),
            "arguments truncated mid-string (TP003), tab indentation",
            [malformed_fixed],
            [("TP003", "call_sv1")],
        ),
        Case(
            "openai-chat/hf-object-arguments.json",
            [{"messages": hf}],
            json_doc(2),
            "Hugging Face style: arguments as objects, tool messages carry name (copied)",
            [{"messages": hf_fixed}],
            [("TP001", "c1")],
        ),
        Case(
            "openai-chat/sdk-model-dump.json",
            [sdk_dump],
            json_doc(None, separators=(",", ":")),
            "ChatCompletionMessage.model_dump() with null keys, compact separators",
            [sdk_fixed],
            [("TP001", "call_bk9")],
        ),
        Case(
            "openai-chat/batch-requests.jsonl",
            batch_lines,
            jsonl(),
            "Batch API input: body.messages per line",
            batch_fixed,
            [("TP001", "call_Q7xLm3"), ("TP003", "call_sv1")],
        ),
        Case(
            "openai-chat/finetune.jsonl",
            finetune,
            jsonl(),
            "fine-tuning lines (messages + tools); call_1 recurs in every line, open in line 2",
            finetune_fixed,
            [("TP001", "call_1")],
        ),
        Case(
            "openai-chat/crlf-blank-lines.jsonl",
            crlf,
            jsonl("\r\n", ensure_ascii=False),
            "CRLF line ends and a blank line survive; only line 3 changes",
            crlf_fixed,
            [("TP001", "call_Q7xLm3")],
        ),
        Case(
            "openai-chat/messages.jsonl",
            per_message,
            jsonl(separators=(",", ":")),
            "one OpenAI message per line: the synthetic result is a new line",
            per_message_fixed,
            [("TP001", "call_Q7xLm3")],
        ),
        Case(
            "openai-chat/swe-agent-history.json",
            [swe],
            json_doc(2),
            "SWE-agent trajectory: history[], results keyed by tool_call_ids (copied)",
            [swe_fixed],
            [("TP001", "call_py2")],
        ),
        Case(
            "openai-chat/fidelity.json",
            [fidelity],
            literal_exponent(json_doc(4, ensure_ascii=True)),
            "big integers, 1e2, NaN, escaped non-ASCII and key order are kept byte for byte",
            [fidelity_fixed],
            [("TP001", "call_rs1")],
        ),
        Case(
            "openai-chat/clean.json",
            [{"messages": clean}],
            json_doc(2),
            "every call answered",
        ),
        Case(
            "openai-chat/no-tools.json",
            [[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]],
            json_doc(2),
            "no tools at all",
        ),
        Case(
            "openai-chat/legacy-function-call.json",
            [legacy],
            json_doc(2),
            "legacy function_call (ToolBench style, no ids) beside tool_calls: the function "
            "message answers the call right before it; the unanswered call gets a function "
            "message right after its message",
            [legacy_fixed],
            [("TP001", None)],
        ),
    ]


# -- Anthropic Messages ------------------------------------------------------------------


def anthropic_result(template: str, name: str, call_id: str) -> dict[str, Any]:
    """The ``tool_result`` block a correct repair inserts (docs/formats.md#anthropic)."""
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": text(template, name, call_id),
        "is_error": True,
    }


def tool_use(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    """An Anthropic ``tool_use`` block."""
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


ANTHROPIC_TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    },
    {
        "name": "search_flights",
        "description": "Search one-way flights between two airports on a date.",
        "input_schema": {
            "type": "object",
            "properties": {
                "origin": {"type": "string"},
                "destination": {"type": "string"},
                "date": {"type": "string", "format": "date"},
            },
            "required": ["origin", "destination", "date"],
        },
    },
]


def anthropic_cases() -> list[Case]:
    weather_id, flights_id = "toolu_01XFDUDYJgAACzvnptvVoYEL", "toolu_01KqU3kVJ5hJpJkR9GxNEzQe"
    partial_messages = [
        {
            "role": "user",
            "content": "I fly from Berlin to Lisbon on Friday. Weather there, and which flights?",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll check the weather in Lisbon and search flights."},
                tool_use(weather_id, "get_weather", city="Lisbon"),
                tool_use(
                    flights_id, "search_flights", origin="BER", destination="LIS", date="2026-12-04"
                ),
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": weather_id, "content": "21C, clear skies"},
                {"type": "text", "text": "Never mind the flights, I already booked one."},
            ],
        },
    ]

    def request(messages: list[Any]) -> dict[str, Any]:
        return {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 4096,
            "system": "You are a travel assistant. Use the tools to answer.",
            "tools": ANTHROPIC_TOOLS,
            "messages": messages,
        }

    partial_fixed = json.loads(json.dumps(partial_messages))
    # After the existing tool_result, before the user's text.
    partial_fixed[2]["content"].insert(1, anthropic_result(TP001, "search_flights", flights_id))

    read_id, reread_id = "toolu_01Hn8X7vR3cDqP2mWzL5tKbA", "toolu_01D7FwQ9sYc4uJm2RkXbNe6T"
    plain = [
        {"role": "user", "content": "Read config/settings.toml and tell me the port."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me read the file."},
                tool_use(read_id, "read_file", path="config/settings.toml"),
            ],
        },
        {"role": "user", "content": "Sorry, the file is config/app.toml."},
        {
            "role": "assistant",
            "content": [tool_use(reread_id, "read_file", path="config/app.toml")],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": reread_id,
                    "content": "[server]\nport = 8080\n",
                }
            ],
        },
        {"role": "assistant", "content": "The server listens on port 8080."},
    ]
    plain_fixed = json.loads(json.dumps(plain))
    # The plain string becomes a block list: the result first, the string kept as a text block.
    plain_fixed[2]["content"] = [
        anthropic_result(TP001, "read_file", read_id),
        {"type": "text", "text": "Sorry, the file is config/app.toml."},
    ]

    tests_id = "toolu_01AbM4nP8qRsT2uVwXyZ3c9D"
    thinking_body = {
        "model": "claude-opus-4-1-20250805",
        "max_tokens": 16000,
        "thinking": {"type": "enabled", "budget_tokens": 10000},
        "tools": [
            {
                "name": "run_tests",
                "description": "Run pytest on a path and return the summary.",
                "input_schema": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            }
        ],
        "messages": [
            {"role": "user", "content": "The CI is red on main. Can you run the unit tests?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "The user wants the unit tests run. I'll call run_tests on "
                        "tests/unit first and look at the failures.",
                        "signature": "EqQBCkgIBRABGAIiQL0mb3mXwVhk8TQpQ7rD3fG1sYk2n0yL9uRzW4c"
                        "Bj5eXo1tHqP6aV8mN2dK7fS3gJ0wZ9iE4uR1yT5oL8cQnAEgw9kX2pR7mV3sT",
                    },
                    {"type": "text", "text": "Running the unit tests now."},
                    tool_use(tests_id, "run_tests", path="tests/unit"),
                ],
            },
        ],
    }
    thinking_fixed = json.loads(json.dumps(thinking_body))
    thinking_fixed["messages"].append(
        {"role": "user", "content": [anthropic_result(TP002, "run_tests", tests_id)]}
    )

    search_id = "toolu_01Q2w3E4r5T6y7U8i9O0pLkJ"
    two_assistants = [
        {"role": "user", "content": "Any flights from SFO to JFK on December 12?"},
        {
            "role": "assistant",
            "content": [
                tool_use(
                    search_id, "search_flights", origin="SFO", destination="JFK", date="2026-12-12"
                )
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "The flight search timed out. Shall I retry?"}],
        },
        {"role": "user", "content": "Yes, please retry."},
    ]
    two_assistants_fixed = inserted(
        two_assistants,
        [(1, {"role": "user", "content": [anthropic_result(TP001, "search_flights", search_id)]})],
    )

    clean_id = "toolu_01Vx7Hk2Lm9Np4Qr6St8Uw3Y"
    clean_messages = [
        {"role": "user", "content": "Météo à Lyon ?"},
        {"role": "assistant", "content": [tool_use(clean_id, "get_weather", city="Lyon")]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": clean_id, "content": "12C, brouillard"}
            ],
        },
        {"role": "assistant", "content": "Il fait 12 °C avec du brouillard à Lyon."},
    ]
    no_tools = [
        {"role": "user", "content": "Say hi in Japanese."},
        {"role": "assistant", "content": "こんにちは!"},
    ]
    trailing_id = "toolu_01Zk3Jd8Wm5Hq2Xv7Bn4Rt6P"
    trailing_messages = [
        {"role": "user", "content": "How's the weather in Zürich?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking Zürich."},
                tool_use(trailing_id, "get_weather", city="Zürich"),
            ],
        },
    ]
    requests = [
        request(clean_messages),
        request(partial_messages),
        request(no_tools),
        request(trailing_messages),
    ]
    requests_fixed = [
        requests[0],
        request(partial_fixed),
        requests[2],
        request(
            [
                *trailing_messages,
                {"role": "user", "content": [anthropic_result(TP002, "get_weather", trailing_id)]},
            ]
        ),
    ]

    server_clean = [
        {"role": "user", "content": "What is the latest stable Python release?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                    "name": "web_search",
                    "input": {"query": "latest stable Python release"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://www.python.org/downloads/",
                            "title": "Download Python | Python.org",
                            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgx",
                            "page_age": None,
                        }
                    ],
                },
                {"type": "text", "text": "The latest stable release is listed on python.org."},
            ],
        },
        {"role": "user", "content": "Thanks!"},
        {"role": "assistant", "content": "You're welcome."},
    ]

    fetch_id = "srvtoolu_01Bq8Kd3Lm6Np9Rs2Tv5Wx7Z"
    server_open = [
        {"role": "user", "content": "Summarise the changelog of httpx 0.28."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me find the changelog."},
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01A9c4Hf7Jk2Mn5Pq8Rt3Vw6",
                    "name": "web_search",
                    "input": {"query": "httpx 0.28 changelog"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_01A9c4Hf7Jk2Mn5Pq8Rt3Vw6",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://github.com/encode/httpx/blob/master/CHANGELOG.md",
                            "title": "httpx/CHANGELOG.md at master",
                            "encrypted_content": "Eu8BCioIAhgBIiQ0ZDk2YjM3Zi1hMzE0LTQ1YzQtOWQ3",
                            "page_age": "2 weeks ago",
                        }
                    ],
                },
                {
                    "type": "server_tool_use",
                    "id": fetch_id,
                    "name": "web_fetch",
                    "input": {"url": "https://github.com/encode/httpx/blob/master/CHANGELOG.md"},
                },
            ],
        },
    ]

    return [
        Case(
            "anthropic/request-partial-answer.json",
            [request(partial_messages)],
            json_doc(2),
            "request body; two parallel tool_use, one answered, then text: the result goes "
            "after the existing tool_result, before the text",
            [request(partial_fixed)],
            [("TP001", flights_id)],
        ),
        Case(
            "anthropic/plain-string-reply.json",
            [plain],
            json_doc(4),
            "the user answered with a plain string: it becomes [tool_result, text] (4 spaces)",
            [plain_fixed],
            [("TP001", read_id)],
        ),
        Case(
            "anthropic/thinking-trailing-call.json",
            [thinking_body],
            json_doc("\t"),
            "extended thinking (signed) + tool_use ends the history: a new user message (TP002), "
            "the thinking block untouched (tabs)",
            [thinking_fixed],
            [("TP002", tests_id)],
        ),
        Case(
            "anthropic/assistant-after-call.json",
            [two_assistants],
            json_doc(None),
            "tool_use followed by another assistant message: a new user message between (one line)",
            [two_assistants_fixed],
            [("TP001", search_id)],
        ),
        Case(
            "anthropic/requests.jsonl",
            requests,
            jsonl(ensure_ascii=False),
            "JSONL of request bodies, raw UTF-8: clean lines stay byte-identical",
            requests_fixed,
            [("TP001", flights_id), ("TP002", trailing_id)],
        ),
        Case(
            "anthropic/server-tool-clean.json",
            [server_clean],
            json_doc(2),
            "server_tool_use answered by web_search_tool_result in the same message: clean",
        ),
        Case(
            "anthropic/server-tool-unanswered.json",
            [{"model": "claude-sonnet-4-5-20250929", "max_tokens": 2048, "messages": server_open}],
            json_doc(2),
            "a web_fetch server_tool_use left open (pause_turn): reported, never made up",
            None,
            [("TP002", fetch_id)],
            unfixed=[("TP002", fetch_id)],
        ),
    ]


# -- OpenAI Responses --------------------------------------------------------------------


def responses_output(
    template: str, name: str, call_id: str, kind: str = "function_call_output"
) -> dict[str, Any]:
    """The output item a correct repair inserts (docs/formats.md#openai-responses: no ``id``, no
    ``status``)."""
    return {"type": kind, "call_id": call_id, "output": text(template, name, call_id)}


def responses_call(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """A ``function_call`` item as the API returns it."""
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def reasoning(item_id: str, blob: str) -> dict[str, Any]:
    """A ``reasoning`` item with encrypted content (``store: false``)."""
    return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": blob}


def responses_cases() -> list[Case]:
    weather_call, flights_call = "call_Xk2fN8qLw3RzT5vY", "call_9PbQ4mJd7sHc2KaE"
    request_input = [
        {"role": "developer", "content": "You are a travel agent. Use the tools."},
        {"role": "user", "content": "Is it raining in Osaka?"},
        reasoning("rs_68a1f0c2b4e88190a1", "gAAAAABoqfX1Zk8dN0s3QmZ4YjItN2E1ZS00"),
        responses_call(
            "fc_68a1f0c3d5a48190b2", "call_Rn7Lq2Vt5Wx8Yz3A", "get_weather", '{"city":"Osaka"}'
        ),
        {
            "type": "function_call_output",
            "call_id": "call_Rn7Lq2Vt5Wx8Yz3A",
            "output": '{"temp_c": 11, "sky": "light rain"}',
        },
        {
            "type": "message",
            "id": "msg_68a1f0c5e7c08190c3",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "Yes, light rain and 11C.", "annotations": []}
            ],
        },
        {"role": "user", "content": "And Tokyo? Also find flights Osaka to Tokyo tomorrow."},
        reasoning("rs_68a1f10a2c3c8190d4", "gAAAAABoqfYKc2VhcmNoIGZsaWdodHMgYW5k"),
        responses_call("fc_68a1f10b4d5c8190e5", weather_call, "get_weather", '{"city":"Tokyo"}'),
        responses_call(
            "fc_68a1f10b4d5c8190f6",
            flights_call,
            "search_flights",
            '{"origin":"ITM","destination":"HND","date":"2026-12-05"}',
        ),
        {
            "type": "function_call_output",
            "call_id": weather_call,
            "output": '{"temp_c": 9, "sky": "cloudy"}',
        },
        {"role": "user", "content": "Forget the flights, I'll take the Shinkansen."},
    ]

    def body(items: list[Any]) -> dict[str, Any]:
        return {
            "model": "o4-mini",
            "input": items,
            "tools": [
                {
                    "type": "function",
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
                {
                    "type": "function",
                    "name": "search_flights",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "origin": {"type": "string"},
                            "destination": {"type": "string"},
                            "date": {"type": "string"},
                        },
                    },
                },
            ],
            "reasoning": {"effort": "medium"},
            "store": False,
            "include": ["reasoning.encrypted_content"],
        }

    # After the turn's existing output (item 10), never between reasoning and its calls.
    request_fixed = inserted(
        request_input, [(10, responses_output(TP001, "search_flights", flights_call))]
    )

    custom_call = "call_Vb3Nm6Qw9Er2Ty5U"
    custom = [
        {"role": "user", "content": "Run the API tests."},
        reasoning("rs_68b2a01c3d4e8190a7", "gAAAAABosqAcdGVzdHMgZm9yIHRoZSBBUEk="),
        {
            "type": "custom_tool_call",
            "id": "ctc_68b2a01d5e6f8190b8",
            "call_id": custom_call,
            "name": "run_tests",
            "input": "pytest -q tests/test_api.py",
        },
    ]
    custom_fixed = [
        *custom,
        responses_output(TP002, "run_tests", custom_call, "custom_tool_call_output"),
    ]

    # A custom tool whose item lost its name: the synthetic text says `unknown`, not
    # the item type.
    nameless_call = "call_Nm0Lp4Qr7Ts2Uv5W"
    nameless = [
        {"role": "user", "content": "Format the changelog."},
        {
            "type": "custom_tool_call",
            "id": "ctc_68b2a02e6f708190c9",
            "call_id": nameless_call,
            "input": "CHANGELOG.md",
        },
        {"role": "user", "content": "Skip it, I will do it by hand."},
    ]
    nameless_fixed = inserted(
        nameless,
        [(1, responses_output(TP001, "unknown", nameless_call, "custom_tool_call_output"))],
    )

    write_call = "call_Wr4Tq7Ys1Ux3Zb6C"
    truncated = [
        {"role": "user", "content": "Save these meeting notes to notes/meeting.md."},
        responses_call(
            "fc_68c3b12e6f708190c9",
            write_call,
            "write_file",
            '{"path": "notes/meeting.md", "content": "# Meeting notes\\n\\n- Budget appro',
        ),
        {"role": "user", "content": "Did that save?"},
    ]
    truncated_fixed = inserted(truncated, [(1, responses_output(TP003, "write_file", write_call))])

    time_call = "call_Tm8Kp3Lz6Qx1Wv4N"
    items = [
        {"role": "user", "content": "Weather and local time in Paris?"},
        reasoning("rs_68d4c23f7a818190da", "gAAAAABo1MI/d2VhdGhlciBhbmQgdGltZQ=="),
        responses_call(
            "fc_68d4c2408b928190eb", "call_Pw5Rs8Tv2Xy4Za7B", "get_weather", '{"city":"Paris"}'
        ),
        responses_call("fc_68d4c2408b928190fc", time_call, "get_time", '{"tz":"Europe/Paris"}'),
        {
            "type": "function_call_output",
            "call_id": "call_Pw5Rs8Tv2Xy4Za7B",
            "output": "18C, sunny",
        },
        {"role": "user", "content": "Actually, skip the time."},
    ]
    items_fixed = inserted(items, [(4, responses_output(TP001, "get_time", time_call))])

    computer_call = "call_Cu7Hn2Jk5Lm8Pq3R"
    computer = {
        "model": "computer-use-preview",
        "truncation": "auto",
        "tools": [
            {
                "type": "computer_use_preview",
                "display_width": 1024,
                "display_height": 768,
                "environment": "browser",
            }
        ],
        "input": [
            {"role": "user", "content": "Open bing.com and search for OpenAI news."},
            reasoning("rs_68e5d3508c938190ad", "gAAAAABo5dNQY2xpY2sgdGhlIHNlYXJjaCBiYXI="),
            {
                "type": "computer_call",
                "id": "cu_68e5d3519da48190be",
                "call_id": computer_call,
                "action": {"type": "click", "button": "left", "x": 412, "y": 318},
                "pending_safety_checks": [],
                "status": "completed",
            },
            {"role": "user", "content": "Stop, I'll do it myself."},
        ],
    }

    # A stored response (GET /v1/responses/{id}): its output is what the model returned, and
    # the pending call's output belongs in the next request's input, never in this list.
    stored_call = "call_Sr4Kw7Nq2Lp5Xt8Z"
    stored = {
        "id": "resp_68f1a2b3c4d58190a1",
        "object": "response",
        "created_at": 1765000000,
        "status": "completed",
        "model": "o4-mini-2025-04-16",
        "output": [
            reasoning("rs_68f1a2b3c4d58190b2", "gAAAAABo8aKzd2VhdGhlciBpbiBMaW1h"),
            responses_call("fc_68f1a2b3c4d58190c3", stored_call, "get_weather", '{"city":"Lima"}'),
        ],
        "usage": {"input_tokens": 52, "output_tokens": 18, "total_tokens": 70},
    }

    # An OpenAI Agents SDK run state (RunState.to_json, schema 1.13) paused on a tool approval.
    # It resumes from original_input + generated_items; session_items and model_responses
    # repeat those items. The approval item repeats the call it asks about and is never sent
    # to the model; the call awaits the decision. An earlier call lost its output, but an
    # item cannot be added to a run state (its wrappers and indexes are the SDK's).
    agent = {"name": "travel-agent"}
    weather_call, booking_call = "call_Rs1Wx4Ty7Uz0Ab3C", "call_Rs2Bk5Hn8Jm1Lp4Q"
    weather = responses_call("fc_1", weather_call, "get_weather", '{"city":"Lima"}')
    hotels = responses_call("fc_2", "call_Rs3Ht6Ls9Qw2Er5T", "find_hotels", '{"city":"Lima"}')
    found = {
        "type": "function_call_output",
        "call_id": "call_Rs3Ht6Ls9Qw2Er5T",
        "output": '["Hotel Miraflores"]',
    }
    booking = responses_call("fc_3", booking_call, "book_hotel", '{"city":"Lima","nights":2}')
    answer = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Booking now.", "annotations": []}],
    }

    def run_item(kind: str, raw: dict[str, Any]) -> dict[str, Any]:
        return {"type": kind, "raw_item": raw, "agent": agent}

    run_items = [
        run_item("tool_call_item", weather),
        run_item("tool_call_item", hotels),
        {**run_item("tool_call_output_item", found), "output": found["output"]},
        run_item("message_output_item", answer),
        run_item("tool_call_item", booking),
        run_item("tool_approval_item", booking),
    ]
    run_state = {
        "$schemaVersion": "1.13",
        "current_turn": 2,
        "current_agent": agent,
        "original_input": "Book me two nights in Lima, if the weather is fine.",
        "model_responses": [
            {"usage": {}, "output": [weather, hotels], "response_id": "resp_1"},
            {"usage": {}, "output": [answer, booking], "response_id": "resp_2"},
        ],
        "context": {"usage": {}, "approvals": {}, "context": {}},
        "max_turns": 10,
        "generated_items": run_items,
        "session_items": run_items,
        "generated_session_item_indexes": [0, 1, 2, 3, 4, 5],
        "current_step": {
            "type": "next_step_interruption",
            "data": {"interruptions": [run_item("tool_approval_item", booking)]},
        },
        "last_model_response": {"usage": {}, "output": [answer, booking], "response_id": "resp_2"},
    }

    return [
        Case(
            "openai-responses/stored-response.json",
            [stored],
            json_doc(2),
            "a stored response ending on a function_call: pending (TP002), reported, never "
            "written into the response's output",
            None,
            [("TP002", stored_call)],
            unfixed=[("TP002", stored_call)],
        ),
        Case(
            "openai-responses/agents-sdk-run-state.json",
            [run_state],
            json_doc(2),
            "Agents SDK run state paused on an approval: generated_items is the history (the "
            "approval item is no call), the other lists are copies; the pending call awaits "
            "the decision, an earlier lost output cannot be added (both reported once)",
            None,
            [("TP001", weather_call), ("TP002", booking_call)],
            unfixed=[("TP001", weather_call), ("TP002", booking_call)],
        ),
        Case(
            "openai-responses/request-reasoning-parallel.json",
            [body(request_input)],
            json_doc(2),
            "request body with reasoning items; two function_call items, one output, then the "
            "user: the output goes after the existing output, not between reasoning and call",
            [body(request_fixed)],
            [("TP001", flights_call)],
        ),
        Case(
            "openai-responses/custom-tool-trailing.json",
            [custom],
            json_doc("\t"),
            "custom_tool_call ends the history: custom_tool_call_output (TP002), tabs",
            [custom_fixed],
            [("TP002", custom_call)],
        ),
        Case(
            "openai-responses/custom-tool-no-name.json",
            [nameless],
            json_doc(2),
            "a custom_tool_call without a name, cut off by the user: the output text names the "
            "tool `unknown`, never the item type",
            [nameless_fixed],
            [("TP001", nameless_call)],
        ),
        Case(
            "openai-responses/truncated-arguments.json",
            [truncated],
            json_doc(None, separators=(",", ":")),
            "function_call whose arguments were cut off (TP003), compact separators",
            [truncated_fixed],
            [("TP003", write_call)],
        ),
        Case(
            "openai-responses/items.jsonl",
            items,
            jsonl(),
            "JSONL, one item per line: the synthetic output is a new line after the output",
            items_fixed,
            [("TP001", time_call)],
        ),
        Case(
            "openai-responses/computer-call-open.json",
            [computer],
            json_doc(2),
            "a computer_call left open: reported, never answered with a fake screenshot",
            None,
            [("TP001", computer_call)],
            unfixed=[("TP001", computer_call)],
        ),
    ]


# -- Gemini ------------------------------------------------------------------------------


def gemini_response(
    template: str, name: str, call_id: str | None = None, key: str = "functionResponse"
) -> dict[str, Any]:
    """The response part a correct repair inserts: ``id`` only when the call has one, and then
    the text names it; without an id the words `` with id {id}`` are left out."""
    if call_id is None:
        message = template.replace(" with id {id}", "").replace("{name}", name)
        return {key: {"name": name, "response": {"error": message}}}
    return {
        key: {"id": call_id, "name": name, "response": {"error": text(template, name, call_id)}}
    }


def gemini_call(name: str, call_id: str | None = None, **args: Any) -> dict[str, Any]:
    """A REST ``functionCall`` part."""
    call: dict[str, Any] = {} if call_id is None else {"id": call_id}
    return {"functionCall": {**call, "name": name, "args": args}}


GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            },
            {
                "name": "get_time",
                "description": "Local time in an IANA time zone.",
                "parameters": {"type": "OBJECT", "properties": {"timezone": {"type": "STRING"}}},
            },
        ]
    }
]


def gemini_cases() -> list[Case]:
    idless = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Compare the weather in Paris and London, and the time in Paris."}
                ],
            },
            {
                "role": "model",
                "parts": [
                    gemini_call("get_weather", city="Paris"),
                    gemini_call("get_weather", city="London"),
                    gemini_call("get_time", timezone="Europe/Paris"),
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "get_weather",
                            "response": {"output": "Paris: 14C, light rain"},
                        }
                    }
                ],
            },
            {"role": "user", "parts": [{"text": "Hurry up please."}]},
        ],
        "systemInstruction": {"parts": [{"text": "You are a concise weather assistant."}]},
        "tools": GEMINI_TOOLS,
        "generationConfig": {"temperature": 0.2},
    }
    idless_fixed = json.loads(json.dumps(idless))
    # The first get_weather response answers the first get_weather call (by name, in order);
    # the second get_weather and get_time are appended to the response turn, in call order.
    idless_fixed["contents"][2]["parts"] += [
        gemini_response(TP001, "get_weather"),
        gemini_response(TP001, "get_time"),
    ]

    # Content.model_dump(exclude_none=True, mode="json"): "parts" before "role", FunctionCall
    # fields in the SDK's order (args, name), no ids (Vertex AI).
    snake = [
        {"parts": [{"text": "Run the unit tests for the payments module."}], "role": "user"},
        {
            "parts": [
                {"text": "First I'll look at the test configuration."},
                {"function_call": {"args": {"path": "pytest.ini"}, "name": "read_file"}},
            ],
            "role": "model",
        },
        {
            "parts": [
                {
                    "function_response": {
                        "name": "read_file",
                        "response": {"output": "[pytest]\ntestpaths = tests\n"},
                    }
                }
            ],
            "role": "user",
        },
        {
            "parts": [{"function_call": {"args": {"path": "tests/payments"}, "name": "run_tests"}}],
            "role": "model",
        },
    ]
    snake_fixed = [
        *snake,
        {"parts": [gemini_response(TP002, "run_tests", key="function_response")], "role": "user"},
    ]

    book_id, weather_id = "fc_7d3a9b21e4c5", "fc_0b8e6f13a2d9"
    with_ids = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "Book Chez Janou for 4 at 20:00 tonight and check the weather."}
                ],
            },
            {
                "role": "model",
                "parts": [
                    gemini_call(
                        "book_table", book_id, restaurant="Chez Janou", party_size=4, time="20:00"
                    ),
                    gemini_call("get_weather", weather_id, city="Paris"),
                ],
            },
            {"role": "user", "parts": [{"text": "Wait, make it 5 people."}]},
        ]
    }
    with_ids_fixed = json.loads(json.dumps(with_ids))
    # The user's own turn takes the responses, first (a separate response turn before it has
    # been rejected: google/adk-python PR #6914).
    with_ids_fixed["contents"][2]["parts"][:0] = [
        gemini_response(TP001, "book_table", book_id),
        gemini_response(TP001, "get_weather", weather_id),
    ]

    signature = "CpwFAdHtim9kQ2x3Y1ZzT0JmRk5tU2hHa1p6bWdQbE9ZcGJ4dVFWd2Zl"
    signed = {
        "contents": [
            {
                "role": "user",
                "parts": [{"text": "Find a flight to Rome on Friday and the weather."}],
            },
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "name": "search_flights",
                            "args": {"destination": "FCO", "date": "2026-12-04"},
                        },
                        "thoughtSignature": signature,
                    },
                    gemini_call("get_weather", city="Rome"),
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "search_flights",
                            "response": {"output": [{"flight": "AZ 611", "price_eur": 129}]},
                        }
                    }
                ],
            },
            {"role": "user", "parts": [{"text": "Also, any hotels near Termini?"}]},
        ],
        "generationConfig": {"thinkingConfig": {"thinkingLevel": "low"}},
    }
    signed_fixed = json.loads(json.dumps(signed))
    signed_fixed["contents"][2]["parts"].append(gemini_response(TP001, "get_weather"))

    # The API returned an id; the client answered without one (ids are optional): the pair
    # matches by name within the turn, as ids are compared only when both sides have one.
    one_sided = {
        "contents": [
            {"role": "user", "parts": [{"text": "What time is it in Tokyo?"}]},
            {
                "role": "model",
                "parts": [gemini_call("get_time", "fc_5c1e8a40b7f2", timezone="Asia/Tokyo")],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "get_time",
                            "response": {"output": "2026-12-03T18:42:00+09:00"},
                        }
                    }
                ],
            },
            {"role": "model", "parts": [{"text": "It is 18:42 in Tokyo."}]},
        ],
        "tools": GEMINI_TOOLS,
    }

    # Google ADK sessions (events[].content, snake_case, no ids). A call's response goes first
    # into the user event that follows it, past an event without content (no turn of the
    # conversation ADK builds); a call followed by a model event is left: a new event around a
    # response would have to invent its ids, author and time.
    def event(number: int, author: str, role: str, *parts: dict[str, Any]) -> dict[str, Any]:
        return {
            "invocation_id": f"e-{(number + 1) // 2}",
            "author": author,
            "content": {"parts": list(parts), "role": role},
            "id": f"ev-{number:02d}",
            "timestamp": 1765000000.0 + number,
        }

    def session(*events: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "0b6d2c1e-3f4a-4b5c-8d9e-7f0a1b2c3d4e",
            "app_name": "weather_app",
            "user_id": "ana",
            "state": {"unit": "C"},
            "events": list(events),
            "last_update_time": 1765000006.0,
        }

    lisbon = {"function_call": {"args": {"city": "Lisbon"}, "name": "get_weather"}}
    state_only = event(3, "weather_agent", "model")
    del state_only["content"]
    state_only["actions"] = {"state_delta": {"unit": "C"}}
    adk = session(
        event(1, "user", "user", {"text": "Weather in Lisbon?"}),
        event(2, "weather_agent", "model", lisbon),
        state_only,
        event(4, "user", "user", {"text": "In Celsius, please."}),
    )
    adk_fixed = json.loads(json.dumps(adk))
    adk_fixed["events"][3]["content"]["parts"].insert(
        0, gemini_response(TP001, "get_weather", key="function_response")
    )
    adk_model_next = session(
        event(1, "user", "user", {"text": "Weather in Lisbon?"}),
        event(2, "weather_agent", "model", lisbon),
        event(3, "weather_agent", "model", {"text": "The weather service timed out."}),
    )

    return [
        Case(
            "gemini/adk-session-events.json",
            [adk],
            json_doc(2),
            "Google ADK session: the response goes first into the user event after the call, "
            "past an event without content (no turn)",
            [adk_fixed],
            [("TP001", None)],
        ),
        Case(
            "gemini/adk-call-then-model-event.json",
            [adk_model_next],
            json_doc(2),
            "Google ADK session: a call followed by a model event is reported, not fixable (a "
            "new event around the response would need made-up ids, author and time)",
            None,
            [("TP001", None)],
            unfixed=[("TP001", None)],
        ),
        Case(
            "gemini/rest-idless-parallel.json",
            [idless],
            json_doc(2),
            "REST request body, id-less parallel calls (two get_weather, one get_time), one "
            "answered: the missing responses are appended to the response turn in call order",
            [idless_fixed],
            [("TP001", None), ("TP001", None)],
        ),
        Case(
            "gemini/sdk-snake-case.json",
            [snake],
            json_doc(4),
            "python-genai model_dump (snake_case, parts before role) ending on the call: a new "
            "snake_case user turn (TP002)",
            [snake_fixed],
            [("TP002", None)],
        ),
        Case(
            "gemini/ids-user-text.json",
            [with_ids],
            json_doc(None, separators=(",", ":")),
            "calls with ids, the next turn is user text: the responses (with ids) go first in it",
            [with_ids_fixed],
            [("TP001", book_id), ("TP001", weather_id)],
        ),
        Case(
            "gemini/thought-signature.json",
            [signed],
            json_doc("\t"),
            "Gemini 3 thoughtSignature on the first call part is left exactly as it was (tabs)",
            [signed_fixed],
            [("TP001", None)],
        ),
        Case(
            "gemini/id-on-call-only.json",
            [one_sided],
            json_doc(2),
            "the call has an id, its response none: paired by name within the turn, clean",
        ),
    ]


# -- Bedrock Converse --------------------------------------------------------------------


def bedrock_result(template: str, name: str, call_id: str) -> dict[str, Any]:
    """The ``toolResult`` block a correct repair inserts (docs/formats.md#bedrock)."""
    return {
        "toolResult": {
            "toolUseId": call_id,
            "content": [{"text": text(template, name, call_id)}],
            "status": "error",
        }
    }


def bedrock_use(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    """A Converse ``toolUse`` block."""
    return {"toolUse": {"toolUseId": call_id, "name": name, "input": arguments}}


BEDROCK_TOOLS = {
    "tools": [
        {
            "toolSpec": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "inputSchema": {
                    "json": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    }
                },
            }
        },
        {
            "toolSpec": {
                "name": "search_flights",
                "description": "One-way flights between two airports.",
                "inputSchema": {
                    "json": {
                        "type": "object",
                        "properties": {
                            "origin": {"type": "string"},
                            "destination": {"type": "string"},
                            "date": {"type": "string"},
                        },
                        "required": ["origin", "destination", "date"],
                    }
                },
            }
        },
    ]
}


def bedrock_cases() -> list[Case]:
    weather_id, flights_id = "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "tooluse_2bX9vQ4sTmK7wLp1YdRc8A"
    partial = {
        "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "system": [{"text": "You are a travel assistant."}],
        "messages": [
            {
                "role": "user",
                "content": [{"text": "Weather in Seattle, and flights SEA to SFO tomorrow?"}],
            },
            {
                "role": "assistant",
                "content": [
                    {"text": "Let me check both."},
                    bedrock_use(weather_id, "get_weather", city="Seattle"),
                    bedrock_use(
                        flights_id,
                        "search_flights",
                        origin="SEA",
                        destination="SFO",
                        date="2026-12-05",
                    ),
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": weather_id,
                            "content": [{"json": {"temp_c": 8, "conditions": "rain"}}],
                            "status": "success",
                        }
                    },
                    {"text": "Skip the flights, I'll drive."},
                ],
            },
        ],
        "toolConfig": BEDROCK_TOOLS,
        "inferenceConfig": {"maxTokens": 1024, "temperature": 0.3},
    }
    partial_fixed = json.loads(json.dumps(partial))
    # After the existing toolResult, before the text.
    partial_fixed["messages"][2]["content"].insert(
        1, bedrock_result(TP001, "search_flights", flights_id)
    )

    tests_id = "tooluse_Qm3Rt7Yx1Zc5Vb9Nk2Hs4A"
    trailing = [
        {"role": "user", "content": [{"text": "Run the integration tests."}]},
        {
            "role": "assistant",
            "content": [
                {"text": "Running them now."},
                bedrock_use(tests_id, "run_tests", path="tests/integration"),
            ],
        },
    ]
    trailing_fixed = [
        *trailing,
        {"role": "user", "content": [bedrock_result(TP002, "run_tests", tests_id)]},
    ]

    clean_id = "tooluse_Hd6Jf2Kl8Mn4Pq0Rs5Tu1V"
    clean = {
        "modelId": "amazon.nova-pro-v1:0",
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Denver?"}]},
            {"role": "assistant", "content": [bedrock_use(clean_id, "get_weather", city="Denver")]},
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": clean_id,
                            "content": [{"text": "3C, snow showers"}],
                            "status": "success",
                        }
                    }
                ],
            },
            {"role": "assistant", "content": [{"text": "It is 3C with snow showers in Denver."}]},
        ],
        "toolConfig": BEDROCK_TOOLS,
    }

    return [
        Case(
            "bedrock/converse-partial-answer.json",
            [partial],
            json_doc(2),
            "Converse request; two toolUse, one toolResult then text: the synthetic toolResult "
            "(status error) goes after the existing one, before the text",
            [partial_fixed],
            [("TP001", flights_id)],
        ),
        Case(
            "bedrock/trailing-tool-use.json",
            [trailing],
            json_doc(4),
            "the history ends on toolUse: a new user message with the toolResult (TP002)",
            [trailing_fixed],
            [("TP002", tests_id)],
        ),
        Case(
            "bedrock/clean.json",
            [clean],
            json_doc(2),
            "every toolUse answered: check is clean, fix writes nothing",
        ),
    ]


# -- Mixed dialects ----------------------------------------------------------------------


def mixed_cases() -> list[Case]:
    tool_message = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                tool_use("toolu_01Mx4Nc7Bv2Lk5Jh8Gf3Ds6A", "get_weather", city="Paris"),
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_01Mx4Nc7Bv2Lk5Jh8Gf3Ds6A", "content": "18C, sunny"},
        {"role": "assistant", "content": "It is 18C and sunny."},
    ]
    responses_item = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [tool_use("toolu_01Pq9Rs2Tu5Vw8Xy1Za4Bc7D", "get_weather", city="Paris")],
        },
        {
            "type": "function_call_output",
            "call_id": "toolu_01Pq9Rs2Tu5Vw8Xy1Za4Bc7D",
            "output": "18C, sunny",
        },
        {"role": "user", "content": "And tomorrow?"},
    ]
    return [
        Case(
            "mixed/anthropic-with-openai-tool-message.json",
            [tool_message],
            json_doc(2),
            'Anthropic tool_use answered by an OpenAI role "tool" message: a warning, no repair',
            warning="mixes dialects",
        ),
        Case(
            "mixed/anthropic-with-responses-output.json",
            [responses_item],
            json_doc(2),
            "Anthropic tool_use answered by a Responses function_call_output: a warning, no repair",
            warning="mixes dialects",
        ),
    ]


# -- Provider-strict rules (samples/strict/) ---------------------------------------------
#
# Each case is checked and fixed with --select ALL. `expected` is the output of `fix` (safe
# fixes only: synthetic results inserted, every TP1xx defect left as it was), `unsafe` the output
# of `fix --unsafe-fixes` (orphans and duplicates dropped, misplaced results moved, results put
# first, empty tool_calls dropped), both stated by hand. Findings are listed in the order
# `check` reports them: by message, and within a message its calls, then its results.

Fixability = tuple[str, str | None, str]


def strict(
    path: str,
    records: Sequence[Any],
    dump: Dump,
    about: str,
    findings: Sequence[Fixability],
    *,
    expected: Sequence[Any] | None = None,
    unsafe: Sequence[Any] | None = None,
    cured: Sequence[tuple[str, str | None]] = (),
) -> Case:
    """A case under ``--select ALL``: ``findings`` are ``(code, call id, fixability)``."""
    return Case(
        f"strict/{path}",
        records,
        dump,
        about,
        expected,
        [(code, call_id) for code, call_id, _ in findings],
        unfixed=[(code, call_id) for code, call_id, fix in findings if fix == "none"],
        select=("ALL",),
        fixability=[fix for _, _, fix in findings],
        unsafe=unsafe,
        cured=cured,
    )


def picked(values: Sequence[Any], *indexes: int) -> list[Any]:
    """The elements of ``values`` at ``indexes``, in that order (a hand-written reordering)."""
    return [values[index] for index in indexes]


def strict_openai_cases() -> list[Case]:
    def assistant(*calls: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": None, "tool_calls": list(calls)}

    # Legacy functions pair by place and name: a second function message after one call is a
    # duplicate; one of another name answers nothing, and leaves the call before it open.
    def function(name: str, words: str) -> dict[str, Any]:
        return {"role": "function", "name": name, "content": words}

    def calling(name: str) -> dict[str, Any]:
        return {"role": "assistant", "content": None, "function_call": {"name": name}}

    functions = [
        {"role": "user", "content": "Weather in Oslo, then the time there?"},
        calling("get_weather"),
        function("get_weather", "-3C"),
        function("get_weather", "-3C"),
        calling("get_time"),
        function("get_weather", "-2C"),
        {"role": "assistant", "content": "It is -3C in Oslo."},
    ]
    time_result = function(
        "get_time", TP001.replace(" with id {id}", "").replace("{name}", "get_time")
    )
    functions_fixed = inserted(functions, [(4, time_result)])
    functions_unsafe = [*picked(functions, 0, 1, 2, 4), time_result, functions[6]]

    # TP101: the front of the history was trimmed, the tool message lost its call.
    trimmed = [
        {"role": "system", "content": "You are a calendar assistant."},
        tool_result("call_Tr1mmed0ld", "Meeting 'Budget review' cancelled."),
        {"role": "assistant", "content": "Done - the budget review is cancelled."},
        {"role": "user", "content": "Thanks. What is left today?"},
        assistant(function_call("call_Ls7Ev", "list_events", '{"day":"today"}')),
        tool_result("call_Ls7Ev", "[]"),
        {"role": "assistant", "content": "Nothing else today."},
    ]

    # TP102: the user spoke between the call and its result.
    late = [
        {"role": "user", "content": "Weather in Oslo?"},
        assistant(function_call("call_Wx0slo", "get_weather", '{"city":"Oslo"}')),
        {"role": "user", "content": "In Celsius, please."},
        tool_result("call_Wx0slo", "-3C, light snow"),
        {"role": "assistant", "content": "It is -3C with light snow in Oslo."},
    ]

    # TP103: a retried tool run appended its result twice.
    twice = [
        {"role": "user", "content": "What time is it in Tokyo?"},
        assistant(function_call("call_Tk9m", "get_time", '{"tz":"Asia/Tokyo"}')),
        tool_result("call_Tk9m", "18:42"),
        tool_result("call_Tk9m", "18:42"),
        {"role": "assistant", "content": "It is 18:42 in Tokyo."},
    ]

    # TP104 in one message: an OpenAI-compatible server numbered both parallel calls alike.
    same = [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        assistant(
            function_call("call_0", "get_weather", '{"city":"Paris"}'),
            function_call("call_0", "get_weather", '{"city":"Rome"}'),
        ),
        tool_result("call_0", "18C, sunny"),
        tool_result("call_0", "24C, clear"),
        {"role": "assistant", "content": "Paris 18C, Rome 24C."},
    ]

    # TP104 across turns: call_0 reused while the first call_0 was still open. The result answers
    # the nearest open call (the second); the first dangles (TP001) and its synthetic result
    # closes it, after which the reuse is a legal one and check is clean.
    reopened = [
        {"role": "user", "content": "Look up order A1."},
        assistant(function_call("call_0", "get_order", '{"order":"A1"}')),
        {"role": "user", "content": "Actually, B2 instead."},
        assistant(function_call("call_0", "get_order", '{"order":"B2"}')),
        tool_result("call_0", '{"status": "shipped"}'),
        {"role": "assistant", "content": "B2 has shipped."},
    ]
    reopened_fixed = inserted(reopened, [(1, openai_result(TP001, "get_order", "call_0"))])

    # TP105: a proxy dropped the ids.
    keyless = [
        {"role": "user", "content": "Convert 10 EUR to USD and JPY."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": None,
                    "type": "function",
                    "function": {"name": "convert", "arguments": '{"to":"USD"}'},
                },
                {
                    "id": "",
                    "type": "function",
                    "function": {"name": "convert", "arguments": '{"to":"JPY"}'},
                },
            ],
        },
        {"role": "user", "content": "Hello?"},
    ]

    # TP107: an SDK model_dump() with an empty tool_calls list in the middle of its keys.
    empty = [
        {"role": "user", "content": "Weather in Lima?"},
        assistant(function_call("call_Lm4", "get_weather", '{"city":"Lima"}')),
        tool_result("call_Lm4", "19C, overcast"),
        {
            "content": "It is 19C and overcast in Lima.",
            "refusal": None,
            "role": "assistant",
            "tool_calls": [],
            "audio": None,
        },
        {"role": "user", "content": "Thanks!"},
    ]
    empty_unsafe = json.loads(json.dumps(empty))
    del empty_unsafe[3]["tool_calls"]

    # tau-bench: the API handed out an id already used earlier in the trajectory, after the
    # earlier call was answered. Legal, and not a finding.
    def traj_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {
            "content": None,
            "role": "assistant",
            "tool_calls": [
                {
                    "function": {"arguments": arguments, "name": name},
                    "id": call_id,
                    "type": "function",
                }
            ],
        }

    def traj_result(call_id: str, name: str, content: str) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": call_id, "name": name, "content": content}

    reused, other = "call_HGn16KZh9oNCruxsMJ4gYXan", "call_oIHazX6yQrB8hUwl4cRilFKj"
    tau = [
        {
            "task_id": 0,
            "reward": 1.0,
            "info": {"source": "user"},
            "traj": [
                {"role": "system", "content": "# Airline Agent Policy"},
                {"role": "user", "content": "I want to fly from New York to Seattle on May 20."},
                traj_call(other, "get_user_details", '{"user_id":"mia_li_3668"}'),
                traj_result(other, "get_user_details", '{"name": "Mia Li"}'),
                traj_call(reused, "search_direct_flight", '{"origin":"JFK","destination":"SEA"}'),
                traj_result(reused, "search_direct_flight", "[]"),
                traj_call(reused, "search_onestop_flight", '{"origin":"JFK","destination":"SEA"}'),
                traj_result(reused, "search_onestop_flight", '[["HAT057", "HAT039"]]'),
                traj_call(other, "calculate", '{"expression":"152 + 103"}'),
                traj_result(other, "calculate", "255.0"),
                {"content": "The one-stop fare is $255.", "role": "assistant"},
            ],
            "trial": 0,
        }
    ]

    # One history with every kind of defect: an orphan, a misplaced result, a duplicate, an
    # empty tool_calls and a dangling call, each in its own turn.
    weather, madrid, booking = "call_Rm1wX", "call_Md2wX", "call_Bk3tB"
    combined = [
        {"role": "system", "content": "You are a travel assistant."},
        tool_result("call_Ol0dTr1m", "Hotel booked."),
        {"role": "user", "content": "Weather in Rome?"},
        assistant(function_call(weather, "get_weather", '{"city":"Rome"}')),
        {"role": "user", "content": "And then Madrid."},
        tool_result(weather, "22C, sunny"),
        assistant(function_call(madrid, "get_weather", '{"city":"Madrid"}')),
        tool_result(madrid, "25C, clear"),
        tool_result(madrid, "25C, clear"),
        {"role": "assistant", "content": "Rome 22C, Madrid 25C.", "tool_calls": []},
        {"role": "user", "content": "Book a table in Madrid at 8."},
        assistant(function_call(booking, "book_table", '{"city":"Madrid","time":"20:00"}')),
        {"role": "user", "content": "Cancel that, we eat at the hotel."},
    ]
    combined_fixed = inserted(combined, [(11, openai_result(TP001, "book_table", booking))])
    answered_turn = {"role": "assistant", "content": "Rome 22C, Madrid 25C."}
    combined_unsafe = [
        *picked(combined, 0, 2, 3, 5, 4, 6, 7),
        answered_turn,
        *picked(combined, 10, 11),
        openai_result(TP001, "book_table", booking),
        combined[12],
    ]

    # A misplaced result moved back beside a sibling's synthetic result: the turn's results
    # end up in call order (docs/pairing.md#placement).
    paris_weather, paris_time = "call_Pw1", "call_Pt2"
    siblings = [
        {"role": "user", "content": "Weather and local time in Paris?"},
        assistant(
            function_call(paris_weather, "get_weather", '{"city":"Paris"}'),
            function_call(paris_time, "get_time", '{"tz":"Europe/Paris"}'),
        ),
        {"role": "user", "content": "Quick, please."},
        tool_result(paris_weather, "18C, sunny"),
        {"role": "assistant", "content": "18C and sunny."},
    ]
    siblings_fixed = inserted(siblings, [(1, openai_result(TP001, "get_time", paris_time))])
    siblings_unsafe = [
        *picked(siblings, 0, 1, 3),
        openai_result(TP001, "get_time", paris_time),
        *picked(siblings, 2, 4),
    ]

    return [
        strict(
            "openai-chat/tp101-orphan.json",
            [trimmed],
            json_doc(2),
            "a tool message whose call was trimmed away (TP101): dropped with --unsafe-fixes",
            [("TP101", "call_Tr1mmed0ld", "unsafe")],
            unsafe=[[trimmed[0], *trimmed[2:]]],
        ),
        strict(
            "openai-chat/tp102-misplaced.json",
            [late],
            json_doc(4),
            "a user message between the call and its tool message (TP102): the tool message is "
            "moved right after the call",
            [("TP102", "call_Wx0slo", "unsafe")],
            unsafe=[picked(late, 0, 1, 3, 2, 4)],
        ),
        strict(
            "openai-chat/tp103-duplicate.json",
            [twice],
            json_doc("\t"),
            "the same tool message twice (TP103): the second one is dropped (tabs)",
            [("TP103", "call_Tk9m", "unsafe")],
            unsafe=[picked(twice, 0, 1, 2, 4)],
        ),
        strict(
            "openai-chat/tp104-same-message.json",
            [same],
            json_doc(None, separators=(",", ":")),
            "one assistant message holds call_0 twice (TP104): reported, never fixed (compact)",
            [("TP104", "call_0", "none")],
        ),
        strict(
            "openai-chat/tp104-reused-while-open.json",
            [reopened],
            json_doc(2),
            "call_0 reused while the first call_0 is open (TP104, not fixable); the first one "
            "dangles (TP001): its synthetic result makes the reuse legal",
            [("TP001", "call_0", "safe"), ("TP104", "call_0", "none")],
            expected=[reopened_fixed],
            cured=[("TP104", "call_0")],
        ),
        strict(
            "openai-chat/tp105-missing-id.json",
            [keyless],
            json_doc(2),
            "calls with a null and an empty id (TP105): no id is invented, no result inserted",
            [("TP105", None, "none"), ("TP105", None, "none")],
        ),
        strict(
            "openai-chat/tp107-empty-tool-calls.json",
            [empty],
            json_doc(2),
            "model_dump() with tool_calls: [] between other keys (TP107): the key is dropped",
            [("TP107", None, "unsafe")],
            unsafe=[empty_unsafe],
        ),
        strict(
            "openai-chat/tau-bench-reused-after-answer.json",
            tau,
            json_doc(2),
            "tau-bench trajectory reusing ids after their calls were answered: clean under "
            "--select ALL",
            [],
        ),
        strict(
            "openai-chat/combined.json",
            [{"model": "gpt-4o", "messages": combined}],
            json_doc(2),
            "orphan, misplaced, duplicate, empty tool_calls and a dangling call in one request",
            [
                ("TP101", "call_Ol0dTr1m", "unsafe"),
                ("TP102", weather, "unsafe"),
                ("TP103", madrid, "unsafe"),
                ("TP107", None, "unsafe"),
                ("TP001", booking, "safe"),
            ],
            expected=[{"model": "gpt-4o", "messages": combined_fixed}],
            unsafe=[{"model": "gpt-4o", "messages": combined_unsafe}],
        ),
        strict(
            "openai-chat/moved-beside-synthetic.json",
            [siblings],
            json_doc(4),
            "a misplaced result moved back to a turn whose other call dangles: the turn's "
            "results in call order",
            [("TP001", paris_time, "safe"), ("TP102", paris_weather, "unsafe")],
            expected=[siblings_fixed],
            unsafe=[siblings_unsafe],
        ),
        strict(
            "openai-chat/legacy-function-strict.json",
            [functions],
            json_doc(2),
            "legacy function messages: one repeated (TP103), one answering a call of another "
            "name (TP101), whose own call dangles (TP001)",
            [("TP103", None, "unsafe"), ("TP001", None, "safe"), ("TP101", None, "unsafe")],
            expected=[functions_fixed],
            unsafe=[functions_unsafe],
        ),
    ]


def strict_langchain_cases() -> list[Case]:
    # TP101: a trimmed LangGraph state that starts with a ToolMessage.
    trimmed = [
        ToolMessage("3 files changed.", tool_call_id="call_Gi7Cm", id="t-0"),
        AIMessage("Committed: 3 files changed.", id="run-1"),
        HumanMessage("Push it.", id="h-1"),
    ]

    # TP102 (model_dump with nulls): the user interrupted before the result was appended.
    late = [
        HumanMessage("Search the docs for 'retry'.", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("search_docs", "call_Sd1", query="retry")]),
        HumanMessage("Only the Python docs.", id="h-2"),
        ToolMessage("3 hits in python/retry.md", tool_call_id="call_Sd1", id="t-1"),
        AIMessage("Found three hits in python/retry.md.", id="run-2"),
    ]

    # TP103 (dumpd envelopes): a ToolMessage appended twice by a replayed node.
    twice = [
        HumanMessage("Read README.md", id="h-1"),
        AIMessage(
            "", id="run-1", tool_calls=[tool_call("read_file", "call_Rf1", path="README.md")]
        ),
        ToolMessage("# toolpatch", tool_call_id="call_Rf1", id="t-1"),
        ToolMessage("# toolpatch", tool_call_id="call_Rf1", id="t-1"),
        AIMessage("The README starts with '# toolpatch'.", id="run-2"),
    ]

    # TP104: one AIMessage with two calls of one id.
    same = [
        HumanMessage("Price of MSFT and NVDA?", id="h-1"),
        AIMessage(
            "",
            id="run-1",
            tool_calls=[
                tool_call("get_price", "call_px", symbol="MSFT"),
                tool_call("get_price", "call_px", symbol="NVDA"),
            ],
        ),
        ToolMessage("415.10", tool_call_id="call_px", id="t-1"),
        ToolMessage("131.20", tool_call_id="call_px", id="t-2"),
        AIMessage("MSFT 415.10, NVDA 131.20.", id="run-2"),
    ]

    # TP105: a call without an id.
    keyless = [
        HumanMessage("List the open issues.", id="h-1"),
        AIMessage(
            "",
            id="run-1",
            tool_calls=[{"name": "list_issues", "args": {}, "id": None, "type": "tool_call"}],
        ),
        HumanMessage("Hello?", id="h-2"),
    ]

    # TP107: an old integration kept an empty additional_kwargs.tool_calls.
    empty = [
        HumanMessage("Hi!", id="h-1"),
        AIMessage("Hello! How can I help?", id="run-1", additional_kwargs={"tool_calls": []}),
        HumanMessage("Nothing, thanks.", id="h-2"),
    ]
    empty_unsafe = [empty[0], AIMessage("Hello! How can I help?", id="run-1"), empty[2]]

    weather, madrid, clock = "call_Rm1", "call_Md2", "call_Tm3"
    combined = [
        SystemMessage("You are a travel assistant.", id="sys-1"),
        ToolMessage("Hotel booked.", tool_call_id="call_Old0", id="t-0"),
        HumanMessage("Weather in Rome?", id="h-1"),
        AIMessage("", id="run-1", tool_calls=[tool_call("get_weather", weather, city="Rome")]),
        HumanMessage("And then Madrid.", id="h-2"),
        ToolMessage("22C, sunny", tool_call_id=weather, id="t-1"),
        AIMessage("", id="run-2", tool_calls=[tool_call("get_weather", madrid, city="Madrid")]),
        ToolMessage("25C, clear", tool_call_id=madrid, id="t-2"),
        ToolMessage("25C, clear", tool_call_id=madrid, id="t-3"),
        AIMessage("", id="run-3", tool_calls=[tool_call("get_time", clock, tz="Europe/Madrid")]),
        HumanMessage("Never mind the time.", id="h-3"),
    ]
    clock_fix = (9, synthetic(TP001, "get_time", clock))
    combined_unsafe = [
        *picked(combined, 0, 2, 3, 5, 4, 6, 7, 9),
        clock_fix[1],
        combined[10],
    ]

    return [
        strict(
            "langchain/tp101-orphan.json",
            [messages_to_dict(trimmed)],
            json_doc(2),
            "a trimmed state starting with a ToolMessage (TP101): dropped with --unsafe-fixes",
            [("TP101", "call_Gi7Cm", "unsafe")],
            unsafe=[messages_to_dict(trimmed[1:])],
        ),
        strict(
            "langchain/tp102-misplaced.json",
            [model_dump(late)],
            json_doc(2),
            "model_dump: a HumanMessage between the AIMessage and its ToolMessage (TP102)",
            [("TP102", "call_Sd1", "unsafe")],
            unsafe=[model_dump(picked(late, 0, 1, 3, 2, 4))],
        ),
        strict(
            "langchain/tp103-duplicate.json",
            [[dumpd(m) for m in twice]],
            json_doc(4),
            "dumpd envelopes, the same ToolMessage twice (TP103): the second is dropped",
            [("TP103", "call_Rf1", "unsafe")],
            unsafe=[[dumpd(m) for m in picked(twice, 0, 1, 2, 4)]],
        ),
        strict(
            "langchain/tp104-same-message.json",
            [messages_to_dict(same)],
            json_doc(None),
            "one AIMessage holds call_px twice (TP104): reported, never fixed (one line)",
            [("TP104", "call_px", "none")],
        ),
        strict(
            "langchain/tp105-missing-id.json",
            [messages_to_dict(keyless)],
            json_doc(2),
            "a tool call with id null (TP105): skipped by TP001, reported, not fixable",
            [("TP105", None, "none")],
        ),
        strict(
            "langchain/tp107-empty-additional-kwargs.json",
            [messages_to_dict(empty)],
            json_doc("\t"),
            "additional_kwargs.tool_calls: [] (TP107): the empty key is dropped (tabs)",
            [("TP107", None, "unsafe")],
            unsafe=[messages_to_dict(empty_unsafe)],
        ),
        strict(
            "langchain/combined.json",
            [messages_to_dict(combined)],
            json_doc(2),
            "orphan, misplaced and duplicate ToolMessages and a dangling call in one history",
            [
                ("TP101", "call_Old0", "unsafe"),
                ("TP102", weather, "unsafe"),
                ("TP103", madrid, "unsafe"),
                ("TP001", clock, "safe"),
            ],
            expected=[messages_to_dict(inserted(combined, [clock_fix]))],
            unsafe=[messages_to_dict(combined_unsafe)],
        ),
    ]


def strict_anthropic_cases() -> list[Case]:
    def result(call_id: str, content: str) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": call_id, "content": content}

    def say(words: str) -> dict[str, Any]:
        return {"type": "text", "text": words}

    weather_id = "toolu_01Wx7Kq2Lm9Np4Qr6St8Uv3Y"

    # TP101: the tool_use was compacted away, its tool_result stayed beside the user's text.
    orphan = [
        {"role": "user", "content": "Summarise what we did so far."},
        {"role": "assistant", "content": "We looked up the weather and booked a table."},
        {
            "role": "user",
            "content": [
                result("toolu_01Cmp4ct3dAwAyXyZ0123456", "Table booked for 20:00."),
                say("Great, and now the train times?"),
            ],
        },
    ]
    orphan_unsafe = json.loads(json.dumps(orphan))
    del orphan_unsafe[2]["content"][0]

    # TP102: the result is not in the very next user turn (a plain string sits there).
    late = [
        {"role": "user", "content": "Weather in Lisbon?"},
        {
            "role": "assistant",
            "content": [
                say("Checking Lisbon."),
                tool_use(weather_id, "get_weather", city="Lisbon"),
            ],
        },
        {"role": "user", "content": "In Celsius, please."},
        {"role": "assistant", "content": "Sure."},
        {"role": "user", "content": [result(weather_id, "21C, clear"), say("Here it is.")]},
    ]
    late_unsafe = json.loads(json.dumps(late))
    late_unsafe[2]["content"] = [result(weather_id, "21C, clear"), say("In Celsius, please.")]
    late_unsafe[4]["content"] = [say("Here it is.")]

    # TP102: the results of one turn split over two user messages.
    flights_id = "toolu_01Fl9Hs2Kd5Jw8Mq3Rt6Vb1N"
    split = [
        {"role": "user", "content": "Weather in Lisbon and flights from Berlin on Friday?"},
        {
            "role": "assistant",
            "content": [
                tool_use(weather_id, "get_weather", city="Lisbon"),
                tool_use(
                    flights_id, "search_flights", origin="BER", destination="LIS", date="2026-12-04"
                ),
            ],
        },
        {"role": "user", "content": [result(weather_id, "21C, clear")]},
        {"role": "user", "content": [result(flights_id, "TP 537 at 08:05"), say("Thanks!")]},
    ]
    split_unsafe = json.loads(json.dumps(split))
    split_unsafe[2]["content"].append(result(flights_id, "TP 537 at 08:05"))
    split_unsafe[3]["content"] = [say("Thanks!")]

    # TP103: the client sent the same tool_result twice.
    twice = [
        {"role": "user", "content": "Weather in Lisbon?"},
        {"role": "assistant", "content": [tool_use(weather_id, "get_weather", city="Lisbon")]},
        {
            "role": "user",
            "content": [result(weather_id, "21C, clear"), result(weather_id, "21C, clear")],
        },
        {"role": "assistant", "content": "21C and clear in Lisbon."},
    ]
    twice_unsafe = json.loads(json.dumps(twice))
    del twice_unsafe[2]["content"][1]

    # TP104: two tool_use blocks of one id (a proxy translating from another provider).
    same = [
        {"role": "user", "content": "Weather in Lisbon and Porto?"},
        {
            "role": "assistant",
            "content": [
                tool_use("toolu_get_weather_0", "get_weather", city="Lisbon"),
                tool_use("toolu_get_weather_0", "get_weather", city="Porto"),
            ],
        },
        {
            "role": "user",
            "content": [
                result("toolu_get_weather_0", "21C, clear"),
                result("toolu_get_weather_0", "17C, rain"),
            ],
        },
        {"role": "assistant", "content": "Lisbon 21C, Porto 17C."},
    ]

    # TP105: a tool_use with an empty id.
    keyless = [
        {"role": "user", "content": "Weather in Faro?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "", "name": "get_weather", "input": {}}],
        },
        {"role": "user", "content": "Still there?"},
    ]

    # TP106: the user's text comes before the tool_result.
    text_first = {
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Weather in Lisbon?"},
            {"role": "assistant", "content": [tool_use(weather_id, "get_weather", city="Lisbon")]},
            {
                "role": "user",
                "content": [say("Here is the tool output:"), result(weather_id, "21C, clear")],
            },
            {"role": "assistant", "content": "21C and clear."},
        ],
    }
    text_first_unsafe = json.loads(json.dumps(text_first))
    text_first_unsafe["messages"][2]["content"].reverse()

    # One request with an orphan, a misplaced result, a duplicate and a dangling call.
    hotel_id, calendar_id = "toolu_01Ht4Lm7Np0Qr3St6Uv9Wx2Y", "toolu_01Cl5Mn8Pq1Rs4Tu7Vw0Xy3Z"
    combined_messages = [
        {"role": "user", "content": "Plan my Friday in Lisbon."},
        {
            "role": "assistant",
            "content": [
                say("Checking the weather and flights."),
                tool_use(weather_id, "get_weather", city="Lisbon"),
                tool_use(
                    flights_id, "search_flights", origin="BER", destination="LIS", date="2026-12-04"
                ),
            ],
        },
        {
            "role": "user",
            "content": [result(weather_id, "21C, clear"), say("Morning flights only.")],
        },
        {"role": "assistant", "content": [tool_use(hotel_id, "search_hotels", city="Lisbon")]},
        {
            "role": "user",
            "content": [
                result(flights_id, "TP 537 at 08:05"),
                result(hotel_id, "Hotel Avenida, 140 EUR"),
                result(hotel_id, "Hotel Avenida, 140 EUR"),
                result("toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S", "Reminder set."),
            ],
        },
        {"role": "assistant", "content": [tool_use(calendar_id, "get_calendar", day="Friday")]},
        {"role": "user", "content": "Forget the calendar."},
    ]
    calendar_result = anthropic_result(TP001, "get_calendar", calendar_id)
    combined_fixed = json.loads(json.dumps(combined_messages))
    combined_fixed[6]["content"] = [calendar_result, say("Forget the calendar.")]
    combined_unsafe = json.loads(json.dumps(combined_fixed))
    combined_unsafe[2]["content"] = [
        result(weather_id, "21C, clear"),
        result(flights_id, "TP 537 at 08:05"),
        say("Morning flights only."),
    ]
    combined_unsafe[4]["content"] = [result(hotel_id, "Hotel Avenida, 140 EUR")]

    def request(messages: list[Any]) -> dict[str, Any]:
        return {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 4096,
            "tools": ANTHROPIC_TOOLS,
            "messages": messages,
        }

    return [
        strict(
            "anthropic/tp101-orphan.json",
            [orphan],
            json_doc(2),
            "a tool_result whose tool_use was compacted away (TP101): the block is dropped, the "
            "user's text stays",
            [("TP101", "toolu_01Cmp4ct3dAwAyXyZ0123456", "unsafe")],
            unsafe=[orphan_unsafe],
        ),
        strict(
            "anthropic/tp102-not-next-turn.json",
            [late],
            json_doc(4),
            "the tool_result two turns late (TP102): moved into the user turn right after the "
            "call, whose string becomes a text block after it",
            [("TP102", weather_id, "unsafe")],
            unsafe=[late_unsafe],
        ),
        strict(
            "anthropic/tp102-split-turns.json",
            [split],
            json_doc("\t"),
            "the results of one turn split over two user messages (TP102): joined in the first",
            [("TP102", flights_id, "unsafe")],
            unsafe=[split_unsafe],
        ),
        strict(
            "anthropic/tp103-duplicate.json",
            [twice],
            json_doc(None, separators=(",", ":")),
            "one tool_use answered twice (TP103): the second tool_result dropped (compact)",
            [("TP103", weather_id, "unsafe")],
            unsafe=[twice_unsafe],
        ),
        strict(
            "anthropic/tp104-same-message.json",
            [same],
            json_doc(2),
            "two tool_use blocks with one id (TP104): reported, never fixed",
            [("TP104", "toolu_get_weather_0", "none")],
        ),
        strict(
            "anthropic/tp105-missing-id.json",
            [keyless],
            json_doc(2),
            'a tool_use with id "" (TP105): reported, no result is made up',
            [("TP105", None, "none")],
        ),
        strict(
            "anthropic/tp106-text-first.json",
            [text_first],
            json_doc(4),
            "text before the tool_result in the user message (TP106): the result moved first",
            [("TP106", None, "unsafe")],
            unsafe=[text_first_unsafe],
        ),
        strict(
            "anthropic/combined.json",
            [request(combined_messages)],
            json_doc("\t"),
            "orphan, misplaced result, duplicate and a dangling call in one request (tabs)",
            [
                ("TP102", flights_id, "unsafe"),
                ("TP103", hotel_id, "unsafe"),
                ("TP101", "toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S", "unsafe"),
                ("TP001", calendar_id, "safe"),
            ],
            expected=[request(combined_fixed)],
            unsafe=[request(combined_unsafe)],
        ),
    ]


def strict_bedrock_cases() -> list[Case]:
    def result(call_id: str, words: str) -> dict[str, Any]:
        return {"toolResult": {"toolUseId": call_id, "content": [{"text": words}]}}

    weather_id, flights_id = "tooluse_Wx1aB2cD3eF4gH5iJ6kL7m", "tooluse_Fl8nO9pQ0rS1tU2vW3xY4z"
    ask = {"role": "user", "content": [{"text": "Weather in Seattle, and flights to SFO?"}]}
    both = {
        "role": "assistant",
        "content": [
            bedrock_use(weather_id, "get_weather", city="Seattle"),
            bedrock_use(
                flights_id, "search_flights", origin="SEA", destination="SFO", date="2026-12-05"
            ),
        ],
    }
    one = {"role": "assistant", "content": [bedrock_use(weather_id, "get_weather", city="Seattle")]}
    done = {"role": "assistant", "content": [{"text": "8C and rain; two morning flights."}]}

    orphan = [
        ask,
        one,
        {
            "role": "user",
            "content": [result(weather_id, "8C, rain"), result("tooluse_0rPh4nXx", "stale")],
        },
        done,
    ]
    orphan_unsafe = [ask, one, {"role": "user", "content": [result(weather_id, "8C, rain")]}, done]

    split = [
        ask,
        both,
        {"role": "user", "content": [result(weather_id, "8C, rain")]},
        {"role": "user", "content": [result(flights_id, "AS 330, DL 2870")]},
        done,
    ]
    split_unsafe = [
        ask,
        both,
        {
            "role": "user",
            "content": [result(weather_id, "8C, rain"), result(flights_id, "AS 330, DL 2870")],
        },
        done,
    ]

    twice = [
        ask,
        one,
        {"role": "user", "content": [result(weather_id, "8C, rain"), result(weather_id, "8C")]},
        done,
    ]
    twice_unsafe = [ask, one, {"role": "user", "content": [result(weather_id, "8C, rain")]}, done]

    same_id = "tooluse_get_weather_0"
    same = [
        ask,
        {
            "role": "assistant",
            "content": [
                bedrock_use(same_id, "get_weather", city="Seattle"),
                bedrock_use(same_id, "get_weather", city="Portland"),
            ],
        },
        {"role": "user", "content": [result(same_id, "8C, rain"), result(same_id, "10C, rain")]},
        done,
    ]

    keyless = [
        ask,
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "", "name": "get_weather"}}]},
        {"role": "user", "content": [{"text": "Anyone there?"}]},
    ]

    text_first = [
        ask,
        one,
        {"role": "user", "content": [{"text": "Result below."}, result(weather_id, "8C, rain")]},
        done,
    ]
    text_first_unsafe = [
        ask,
        one,
        {"role": "user", "content": [result(weather_id, "8C, rain"), {"text": "Result below."}]},
        done,
    ]

    hotel_id, calendar_id = "tooluse_Ht5aB6cD7eF8gH9iJ0kL1m", "tooluse_Cl2nO3pQ4rS5tU6vW7xY8z"
    combined = [
        ask,
        both,
        {"role": "user", "content": [{"text": "Morning flights only."}, result(weather_id, "8C")]},
        {"role": "assistant", "content": [bedrock_use(hotel_id, "search_hotels", city="SFO")]},
        {
            "role": "user",
            "content": [
                result(flights_id, "AS 330"),
                result(hotel_id, "Hotel Zephyr"),
                result(hotel_id, "Hotel Zephyr"),
                result("tooluse_0rPh4nXx", "stale"),
            ],
        },
        {"role": "assistant", "content": [bedrock_use(calendar_id, "get_calendar", day="Fri")]},
        {"role": "user", "content": [{"text": "Skip the calendar."}]},
    ]
    calendar_result = bedrock_result(TP001, "get_calendar", calendar_id)
    skip = {"text": "Skip the calendar."}
    combined_fixed = [*combined[:6], {"role": "user", "content": [calendar_result, skip]}]
    combined_unsafe = [
        ask,
        both,
        {
            "role": "user",
            "content": [
                result(weather_id, "8C"),
                result(flights_id, "AS 330"),
                {"text": "Morning flights only."},
            ],
        },
        combined[3],
        {"role": "user", "content": [result(hotel_id, "Hotel Zephyr")]},
        combined[5],
        {"role": "user", "content": [calendar_result, skip]},
    ]

    def converse(messages: list[Any]) -> dict[str, Any]:
        return {
            "modelId": "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "messages": messages,
            "toolConfig": BEDROCK_TOOLS,
        }

    return [
        strict(
            "bedrock/tp101-orphan.json",
            [orphan],
            json_doc(2),
            "a toolResult for no toolUse (TP101): the block is dropped",
            [("TP101", "tooluse_0rPh4nXx", "unsafe")],
            unsafe=[orphan_unsafe],
        ),
        strict(
            "bedrock/tp102-split-turns.json",
            [split],
            json_doc(4),
            "the toolResults of one turn in two user messages (TP102): joined, the emptied "
            "message removed",
            [("TP102", flights_id, "unsafe")],
            unsafe=[split_unsafe],
        ),
        strict(
            "bedrock/tp103-duplicate.json",
            [twice],
            json_doc(None),
            "two toolResults for one toolUse (TP103): the second dropped (one line)",
            [("TP103", weather_id, "unsafe")],
            unsafe=[twice_unsafe],
        ),
        strict(
            "bedrock/tp104-same-message.json",
            [same],
            json_doc(2),
            "two toolUse blocks with one toolUseId (TP104): reported, never fixed",
            [("TP104", same_id, "none")],
        ),
        strict(
            "bedrock/tp105-missing-id.json",
            [keyless],
            json_doc("\t"),
            'a toolUse with toolUseId "" (TP105): reported, no result made up (tabs)',
            [("TP105", None, "none")],
        ),
        strict(
            "bedrock/tp106-text-first.json",
            [text_first],
            json_doc(2),
            "text before the toolResult (TP106): the toolResult moved first",
            [("TP106", None, "unsafe")],
            unsafe=[text_first_unsafe],
        ),
        strict(
            "bedrock/combined.json",
            [converse(combined)],
            json_doc(2),
            "text before a toolResult, a toolResult a turn late, a duplicate, an orphan and a "
            "dangling toolUse in one Converse request",
            [
                ("TP106", None, "unsafe"),
                ("TP102", flights_id, "unsafe"),
                ("TP103", hotel_id, "unsafe"),
                ("TP101", "tooluse_0rPh4nXx", "unsafe"),
                ("TP001", calendar_id, "safe"),
            ],
            expected=[converse(combined_fixed)],
            unsafe=[converse(combined_unsafe)],
        ),
    ]


def strict_gemini_cases() -> list[Case]:
    def answer(name: str, call_id: str | None, output: Any) -> dict[str, Any]:
        response: dict[str, Any] = {} if call_id is None else {"id": call_id}
        return {"functionResponse": {**response, "name": name, "response": {"output": output}}}

    ask = {"role": "user", "parts": [{"text": "Weather in Oslo?"}]}
    weather_id = "fc_1a2b3c4d5e6f"
    call = {"role": "model", "parts": [gemini_call("get_weather", weather_id, city="Oslo")]}
    done = {"role": "model", "parts": [{"text": "-3C and snowing in Oslo."}]}

    orphan = [
        ask,
        call,
        {
            "role": "user",
            "parts": [
                answer("get_weather", weather_id, "-3C, snow"),
                answer("get_time", "fc_0rph4n000000", "09:12"),
            ],
        },
        done,
    ]
    orphan_unsafe = [
        ask,
        call,
        {"role": "user", "parts": [answer("get_weather", weather_id, "-3C, snow")]},
        done,
    ]

    # Id-less calls (REST, Gemini 2.x): the response two turns late pairs by name.
    idless_call = {"role": "model", "parts": [gemini_call("get_weather", city="Oslo")]}
    late = [
        ask,
        idless_call,
        {"role": "user", "parts": [{"text": "In Celsius, please."}]},
        {"role": "user", "parts": [answer("get_weather", None, "-3C, snow")]},
        done,
    ]
    # Moved into the user turn right after the call, before its text; the emptied turn goes.
    late_unsafe = [
        ask,
        idless_call,
        {"role": "user", "parts": [answer("get_weather", None, "-3C, snow"), *late[2]["parts"]]},
        done,
    ]

    twice = [
        ask,
        call,
        {
            "role": "user",
            "parts": [
                answer("get_weather", weather_id, "-3C, snow"),
                answer("get_weather", weather_id, "-3C, snow"),
            ],
        },
        done,
    ]
    twice_unsafe = orphan_unsafe

    same_id = "fc_get_weather_0"
    same = [
        {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]},
        {
            "role": "model",
            "parts": [
                gemini_call("get_weather", same_id, city="Oslo"),
                gemini_call("get_weather", same_id, city="Bergen"),
            ],
        },
        {
            "role": "user",
            "parts": [
                answer("get_weather", same_id, "-3C, snow"),
                answer("get_weather", same_id, "4C, rain"),
            ],
        },
        {"role": "model", "parts": [{"text": "Oslo -3C, Bergen 4C."}]},
    ]

    # Gemini calls need no id: answered id-less calls are no TP105.
    idless = [
        {"role": "user", "parts": [{"text": "Weather and time in Oslo?"}]},
        {
            "role": "model",
            "parts": [
                gemini_call("get_weather", city="Oslo"),
                gemini_call("get_time", timezone="Europe/Oslo"),
            ],
        },
        {
            "role": "user",
            "parts": [
                answer("get_weather", None, "-3C, snow"),
                answer("get_time", None, "09:12"),
            ],
        },
        {"role": "model", "parts": [{"text": "-3C and snowing; it is 09:12."}]},
    ]

    booking_id, time_id, calendar_id = "fc_b00k1ng0001", "fc_t1me000002", "fc_ca1end4r03"
    combined = [
        {"role": "user", "parts": [{"text": "Book dinner at 20:00 and tell me the weather."}]},
        {
            "role": "model",
            "parts": [
                gemini_call("book_table", booking_id, time="20:00"),
                gemini_call("get_weather", weather_id, city="Oslo"),
            ],
        },
        {"role": "user", "parts": [answer("get_weather", weather_id, "-3C, snow")]},
        {"role": "model", "parts": [gemini_call("get_time", time_id, timezone="Europe/Oslo")]},
        {
            "role": "user",
            "parts": [
                answer("book_table", booking_id, "Table for 2 at 20:00"),
                answer("get_time", time_id, "17:40"),
                answer("get_time", time_id, "17:40"),
                answer("get_stock", "fc_0rph4n000000", "131.20"),
            ],
        },
        {"role": "model", "parts": [gemini_call("get_calendar", calendar_id, day="today")]},
        {"role": "user", "parts": [{"text": "Forget the calendar."}]},
    ]
    # The user's own turn takes the synthetic response, first.
    calendar_turn = {
        "role": "user",
        "parts": [gemini_response(TP001, "get_calendar", calendar_id), *combined[6]["parts"]],
    }
    combined_fixed = [*combined[:6], calendar_turn]
    combined_unsafe = [
        combined[0],
        combined[1],
        {
            "role": "user",
            "parts": [
                answer("get_weather", weather_id, "-3C, snow"),
                answer("book_table", booking_id, "Table for 2 at 20:00"),
            ],
        },
        combined[3],
        {"role": "user", "parts": [answer("get_time", time_id, "17:40")]},
        combined[5],
        calendar_turn,
    ]

    def body(contents: list[Any]) -> dict[str, Any]:
        return {"contents": contents, "tools": GEMINI_TOOLS}

    return [
        strict(
            "gemini/tp101-orphan.json",
            [body(orphan)],
            json_doc(2),
            "a functionResponse no call of the call turn asked for (TP101): the part dropped",
            [("TP101", "fc_0rph4n000000", "unsafe")],
            unsafe=[body(orphan_unsafe)],
        ),
        strict(
            "gemini/tp102-not-next-turn.json",
            [body(late)],
            json_doc(4),
            "id-less call; its response comes after a user text turn (TP102): moved into that "
            "turn, before its text",
            [("TP102", None, "unsafe")],
            unsafe=[body(late_unsafe)],
        ),
        strict(
            "gemini/tp103-duplicate.json",
            [body(twice)],
            json_doc(None, separators=(",", ":")),
            "one call answered twice (TP103): the second response dropped (compact)",
            [("TP103", weather_id, "unsafe")],
            unsafe=[body(twice_unsafe)],
        ),
        strict(
            "gemini/tp104-same-message.json",
            [same],
            json_doc(2),
            "two functionCall parts with one id (TP104): reported, never fixed",
            [("TP104", same_id, "none")],
        ),
        strict(
            "gemini/idless-not-tp105.json",
            [body(idless)],
            json_doc(2),
            "id-less calls answered by name: Gemini needs no id, so no TP105",
            [],
        ),
        strict(
            "gemini/combined.json",
            [body(combined)],
            json_doc("\t"),
            "a response a turn late, a duplicate, an orphan and a dangling call in one request "
            "(tabs)",
            [
                ("TP102", booking_id, "unsafe"),
                ("TP103", time_id, "unsafe"),
                ("TP101", "fc_0rph4n000000", "unsafe"),
                ("TP001", calendar_id, "safe"),
            ],
            expected=[body(combined_fixed)],
            unsafe=[body(combined_unsafe)],
        ),
    ]


# pydantic-ai histories as ModelMessagesTypeAdapter writes them (the corpus's pydantic-deepagents
# files): requests and responses with their metadata, parts with every key. A result belongs in the
# request right after its call's response (the block providers' rule: docs/formats.md#pydantic-ai).
PA_RUN = "a844ef0a-f944-4511-a382-8cf3e2b078bc"


def pa_at(second: int) -> str:
    return f"2026-02-16T23:49:{second:02d}.000000Z"


def pa_request(second: int, *parts: dict[str, Any]) -> dict[str, Any]:
    return {
        "parts": list(parts),
        "timestamp": pa_at(second),
        "instructions": None,
        "kind": "request",
        "run_id": PA_RUN,
        "metadata": None,
    }


def pa_response(second: int, *parts: dict[str, Any]) -> dict[str, Any]:
    calls = any(part["part_kind"] == "tool-call" for part in parts)
    return {
        "parts": list(parts),
        "usage": {"input_tokens": 812, "output_tokens": 64},
        "model_name": "gpt-4.1-2025-04-14",
        "timestamp": pa_at(second),
        "kind": "response",
        "provider_name": "openai",
        "provider_details": {"finish_reason": "tool_calls" if calls else "stop"},
        "finish_reason": "tool_call" if calls else "stop",
        "run_id": PA_RUN,
        "metadata": None,
    }


def pa_user(second: int, text: str) -> dict[str, Any]:
    return {"content": text, "timestamp": pa_at(second), "part_kind": "user-prompt"}


def pa_text(text: str) -> dict[str, Any]:
    return {"content": text, "id": None, "provider_name": None, "part_kind": "text"}


def pa_call(name: str, call_id: str, args: str) -> dict[str, Any]:
    return {
        "tool_name": name,
        "args": args,
        "tool_call_id": call_id,
        "id": None,
        "provider_name": None,
        "provider_details": None,
        "part_kind": "tool-call",
    }


def pa_return(second: int, name: str, call_id: str, content: str) -> dict[str, Any]:
    return {
        "tool_name": name,
        "content": content,
        "tool_call_id": call_id,
        "metadata": None,
        "timestamp": pa_at(second),
        "part_kind": "tool-return",
    }


def strict_pydantic_ai_cases() -> list[Case]:
    weather_id, hotels_id = "call_Wk7Qp2Lm5Rt8Xv1N", "call_Ht3Jd6Fs9Gb2Kc5M"
    weather = pa_call("get_weather", weather_id, '{"city":"Kyoto"}')
    hotels = pa_call("find_hotels", hotels_id, '{"city":"Kyoto"}')
    weather_back = pa_return(3, "get_weather", weather_id, "9C, clear")
    hotels_back = pa_return(4, "find_hotels", hotels_id, '["Ryokan Yachiyo"]')
    ask = pa_request(0, pa_user(0, "Weather and a hotel in Kyoto, please."))
    both = pa_response(2, weather, hotels)
    done = pa_response(6, pa_text("9C and clear; Ryokan Yachiyo has rooms."))

    # TP101: the history was cut before the call of the first result.
    stale = pa_return(1, "get_weather", "call_0ld5Tr1mmed0Bf4", "11C, rain")
    orphan = [
        pa_request(1, stale, pa_user(1, "And now a hotel in Kyoto?")),
        pa_response(2, hotels),
        pa_request(4, hotels_back),
        done,
    ]
    orphan_unsafe = [
        pa_request(1, pa_user(1, "And now a hotel in Kyoto?")),
        *orphan[1:],
    ]

    # TP102: the user spoke before the hotel result came back; pydantic-ai wrote it into a
    # request of its own. Moved into the request right after the call, results first.
    late = [
        ask,
        both,
        pa_request(3, weather_back, pa_user(3, "Only ryokans.")),
        pa_request(4, hotels_back),
        done,
    ]
    late_unsafe = [ask, both, pa_request(3, weather_back, hotels_back, pa_user(3, "Only ryokans."))]
    late_unsafe.append(done)

    # TP103: a retried tool run returned twice.
    twice = [
        ask,
        both,
        pa_request(4, weather_back, hotels_back, pa_return(5, "find_hotels", hotels_id, "[]")),
        done,
    ]
    twice_unsafe = [ask, both, pa_request(4, weather_back, hotels_back), done]

    # All three, and a call the user moved on from (TP001): its synthetic result goes into the
    # next request after its results, with the response's timestamp and the file's part keys.
    trains_id = "call_Tr4Nq7Vx0Zb3Cd6F"
    combined = [
        ask,
        both,
        pa_request(3, weather_back, weather_back, pa_user(3, "Only ryokans.")),
        pa_request(4, hotels_back),
        pa_response(5, pa_call("train_times", trains_id, '{"from":"Osaka","to":"Kyoto"}')),
        pa_request(6, stale, pa_user(6, "Skip the trains.")),
        done,
    ]
    trains_back = {
        "tool_name": "train_times",
        "content": text(TP001, "train_times", trains_id),
        "tool_call_id": trains_id,
        "metadata": None,
        "timestamp": pa_at(5),
        "part_kind": "tool-return",
    }
    combined_fixed = json.loads(json.dumps(combined))
    combined_fixed[5]["parts"].insert(1, trains_back)
    combined_unsafe = [
        ask,
        both,
        pa_request(3, weather_back, hotels_back, pa_user(3, "Only ryokans.")),
        combined[4],
        pa_request(6, trains_back, pa_user(6, "Skip the trains.")),
        done,
    ]

    return [
        strict(
            "pydantic-ai/tp101-orphan.json",
            [orphan],
            json_doc(2),
            "a tool-return whose tool-call was cut from the history (TP101): the part is "
            "dropped, the user's prompt stays",
            [("TP101", "call_0ld5Tr1mmed0Bf4", "unsafe")],
            unsafe=[orphan_unsafe],
        ),
        strict(
            "pydantic-ai/tp102-not-next-request.json",
            [late],
            json_doc(2),
            "a tool-return in a request of its own after the user's (TP102): moved into the "
            "request right after its call, results first; the emptied request removed",
            [("TP102", hotels_id, "unsafe")],
            unsafe=[late_unsafe],
        ),
        strict(
            "pydantic-ai/tp103-duplicate.json",
            [twice],
            json_doc(2),
            "two tool-returns for one tool-call (TP103): the second one dropped",
            [("TP103", hotels_id, "unsafe")],
            unsafe=[twice_unsafe],
        ),
        strict(
            "pydantic-ai/combined.json",
            [combined],
            json_doc(2),
            "a duplicate, a result a request late, an orphan and a call the user moved on "
            "from: the synthetic tool-return alone without --unsafe-fixes, all four with it",
            [
                ("TP103", weather_id, "unsafe"),
                ("TP102", hotels_id, "unsafe"),
                ("TP001", trains_id, "safe"),
                ("TP101", "call_0ld5Tr1mmed0Bf4", "unsafe"),
            ],
            expected=[combined_fixed],
            unsafe=[combined_unsafe],
        ),
    ]


def strict_responses_cases() -> list[Case]:
    weather_call, time_call = "call_Wr5Hn8Jk2Lm4Np6Q", "call_Tm7Pq9Rs1Tu3Vw5X"

    def output(call_id: str, words: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": call_id, "output": words}

    ask = {"role": "user", "content": "Weather in Osaka?"}
    call = responses_call("fc_68f0a1b2c3d48190a1", weather_call, "get_weather", '{"city":"Osaka"}')
    answer = {"role": "assistant", "content": "11C and light rain."}

    orphan = [
        output("call_Pr3v10usResp0nse", "stale"),
        ask,
        call,
        output(weather_call, "11C, light rain"),
        answer,
    ]
    late = [
        ask,
        call,
        {"role": "user", "content": "In Celsius, please."},
        output(weather_call, "11C, light rain"),
        answer,
    ]
    twice = [
        ask,
        call,
        output(weather_call, "11C, light rain"),
        output(weather_call, "11C, light rain"),
        answer,
    ]
    reuse = [
        {"role": "user", "content": "Weather in Osaka?"},
        responses_call("fc_68f0a1b2c3d48190b2", "call_0", "get_weather", '{"city":"Osaka"}'),
        {"role": "user", "content": "And Kyoto."},
        responses_call("fc_68f0a1b2c3d48190c3", "call_0", "get_weather", '{"city":"Kyoto"}'),
        output("call_0", "12C, cloudy"),
        output("call_0", "11C, light rain"),
        {"role": "assistant", "content": "Osaka 11C, Kyoto 12C."},
    ]
    keyless = [
        ask,
        {"type": "function_call", "call_id": "", "name": "get_weather", "arguments": "{}"},
        {"role": "user", "content": "Hello?"},
    ]

    items = [
        output("call_Pr3v10usResp0nse", "stale"),
        {"role": "user", "content": "Weather and local time in Osaka?"},
        reasoning("rs_68f0a1b2c3d48190d4", "gAAAAABo8KGyd2VhdGhlciBhbmQgdGltZQ=="),
        call,
        responses_call("fc_68f0a1b2c3d48190e5", time_call, "get_time", '{"tz":"Asia/Tokyo"}'),
        output(weather_call, "11C, light rain"),
        output(weather_call, "11C, light rain"),
        {"role": "user", "content": "Skip the time."},
    ]
    time_output = responses_output(TP001, "get_time", time_call)
    items_fixed = inserted(items, [(6, time_output)])
    items_unsafe = [*picked(items, 1, 2, 3, 4, 5), time_output, items[7]]

    return [
        strict(
            "openai-responses/tp101-orphan.json",
            [orphan],
            json_doc(2),
            "an output whose call lives in a previous response (TP101): dropped",
            [("TP101", "call_Pr3v10usResp0nse", "unsafe")],
            unsafe=[orphan[1:]],
        ),
        strict(
            "openai-responses/no-tp102.json",
            [late],
            json_doc(2),
            "an output after a user message: the Responses API accepts outputs anywhere after "
            "their call, so no TP102",
            [],
        ),
        strict(
            "openai-responses/tp103-duplicate.json",
            [twice],
            json_doc("\t"),
            "two outputs for one call (TP103): the second dropped (tabs)",
            [("TP103", weather_call, "unsafe")],
            unsafe=[picked(twice, 0, 1, 2, 4)],
        ),
        strict(
            "openai-responses/tp104-reused-while-open.json",
            [reuse],
            json_doc(4),
            "call_0 reused while the first call_0 is open, both answered later (TP104): "
            "reported, never fixed",
            [("TP104", "call_0", "none")],
        ),
        strict(
            "openai-responses/tp105-missing-id.json",
            [keyless],
            json_doc(None),
            'a function_call with call_id "" (TP105): reported (one line)',
            [("TP105", None, "none")],
        ),
        strict(
            "openai-responses/combined.jsonl",
            items,
            jsonl(),
            "JSONL, one item per line: an orphan output, a duplicate and a dangling call; "
            "dropped lines disappear, the synthetic output is a new line",
            [
                ("TP101", "call_Pr3v10usResp0nse", "unsafe"),
                ("TP001", time_call, "safe"),
                ("TP103", weather_call, "unsafe"),
            ],
            expected=items_fixed,
            unsafe=items_unsafe,
        ),
    ]


def strict_cases() -> list[Case]:
    """The provider-strict samples (docs/rules.md): one per rule and dialect, and combined ones."""
    return (
        strict_openai_cases()
        + strict_langchain_cases()
        + strict_anthropic_cases()
        + strict_bedrock_cases()
        + strict_gemini_cases()
        + strict_responses_cases()
        + strict_pydantic_ai_cases()
    )


# -- Agent session logs (docs/formats.md#agent-session-layouts) ----------------------------
# Claude Code sessions and Codex rollouts, written compactly with raw UTF-8 as both tools write
# them. Each repair is stated in full: the new Claude Code line copies the session keys and the
# timestamp of the assistant line it follows, hangs off that line (whose children now hang off
# it), and its uuid is the UUIDv5 of "<sessionId>/<first call id>" in the namespace below (part
# of the contract: the same input always gets the same line). A Codex output line carries the
# timestamp of its call's line.

SESSION_NAMESPACE = uuid.UUID("d29615cb-3faa-4cdb-b1da-085978a7e22a")
SESSION_ID = "7c1e4b52-0d3a-4f7e-9a61-2b8f0c9d4e13"
CLAUDE_SESSION = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/ana/shop",
    "sessionId": SESSION_ID,
    "version": "2.1.38",
    "gitBranch": "main",
    "slug": "brisk-orange-otter",
}
compact_jsonl = jsonl(separators=(",", ":"), ensure_ascii=False)


def line_uuid(number: int) -> str:
    """A line's uuid, readable in the samples."""
    return f"6b0e4a1c-2d3f-4a5b-8c6d-{number:012x}"


def at(second: int) -> str:
    return f"2026-02-10T21:12:{second:02d}.000Z"


def one_block_message(
    model: str, message_id: str, block: dict[str, Any], usage: dict[str, int]
) -> dict[str, Any]:
    """An API response as Claude Code writes it: each content block on an entry of its own, in
    a copy of the response's message."""
    return {
        "model": model,
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }


def cc_assistant(
    number: int, parent: int, message_id: str, block: dict[str, Any], *, sidechain: bool = False
) -> dict[str, Any]:
    """One assistant line: one content block of the API message ``message_id``."""
    return {
        "parentUuid": line_uuid(parent),
        **CLAUDE_SESSION,
        "isSidechain": sidechain,
        "message": one_block_message(
            "claude-opus-4-6", message_id, block, {"input_tokens": 3, "output_tokens": 12}
        ),
        "requestId": "req_" + message_id.removeprefix("msg_"),
        "type": "assistant",
        "uuid": line_uuid(number),
        "timestamp": at(number),
    }


def cc_user(
    number: int, parent: int | None, content: Any, *, sidechain: bool = False, **extra: Any
) -> dict[str, Any]:
    """One user line (a prompt, or tool results with their ``extra`` keys)."""
    return {
        "parentUuid": None if parent is None else line_uuid(parent),
        **CLAUDE_SESSION,
        "isSidechain": sidechain,
        "type": "user",
        "message": {"role": "user", "content": content},
        "uuid": line_uuid(number),
        "timestamp": at(number),
        **extra,
    }


def cc_result(
    number: int, parent: int, call_id: str, output: str, *, source: int, sidechain: bool = False
) -> dict[str, Any]:
    """A tool result line as Claude Code writes it (hanging off the line of its call)."""
    block = {"tool_use_id": call_id, "type": "tool_result", "content": output, "is_error": False}
    return cc_user(
        number,
        parent,
        [block],
        sidechain=sidechain,
        toolUseResult={"stdout": output, "stderr": "", "interrupted": False},
        sourceToolAssistantUUID=line_uuid(source),
    )


def cc_progress(number: int, parent: int, call_id: str) -> dict[str, Any]:
    """A hook progress event of a running tool."""
    return {
        "parentUuid": line_uuid(parent),
        **CLAUDE_SESSION,
        "type": "progress",
        "data": {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash"},
        "toolUseID": call_id,
        "parentToolUseID": call_id,
        "uuid": line_uuid(number),
        "timestamp": at(number),
    }


def cc_repair(after: dict[str, Any], *results: tuple[str, str, str]) -> dict[str, Any]:
    """The line a correct repair adds after the assistant line ``after``: one error
    ``tool_result`` per ``(template, name, call id)``."""
    blocks = [anthropic_result(template, name, call_id) for template, name, call_id in results]
    first_call = results[0][2]
    return {
        "parentUuid": after["uuid"],
        **CLAUDE_SESSION,
        "isSidechain": after["isSidechain"],
        "type": "user",
        "message": {"role": "user", "content": blocks},
        "uuid": str(uuid.uuid5(SESSION_NAMESPACE, f"{SESSION_ID}/{first_call}")),
        "timestamp": after["timestamp"],
    }


def repointed(line: dict[str, Any], parent: dict[str, Any]) -> dict[str, Any]:
    """``line`` hanging off ``parent`` instead (only ``parentUuid`` changes)."""
    return {**line, "parentUuid": parent["uuid"]}


def claude_code_cases() -> list[Case]:
    snapshot = {
        "type": "file-history-snapshot",
        "messageId": line_uuid(1),
        "snapshot": {"messageId": line_uuid(1), "trackedFileBackups": {}, "timestamp": at(1)},
        "isSnapshotUpdate": False,
    }
    parallel = [
        snapshot,
        cc_user(1, None, "Wetter in Lissabon und Porto, und wie spät ist es in Lissabon?"),
        cc_assistant(2, 1, "msg_01Par", {"type": "thinking", "thinking": "", "signature": "EqQB"}),
        cc_assistant(3, 2, "msg_01Par", {"type": "text", "text": "Ich schaue nach."}),
        cc_assistant(4, 3, "msg_01Par", tool_use("toolu_01WxLis", "get_weather", city="Lisbon")),
        cc_progress(5, 4, "toolu_01WxLis"),
        cc_assistant(6, 5, "msg_01Par", tool_use("toolu_01WxPor", "get_weather", city="Porto")),
        cc_assistant(7, 6, "msg_01Par", tool_use("toolu_01TmLis", "get_time", tz="Europe/Lisbon")),
        cc_result(8, 4, "toolu_01WxLis", "21°C, sonnig", source=4),
        cc_result(9, 7, "toolu_01TmLis", "22:12", source=7),
        cc_assistant(10, 9, "msg_01Ans", {"type": "text", "text": "Lissabon: 21°C, 22:12 Uhr."}),
    ]
    parallel_fix = cc_repair(parallel[7], (TP001, "get_weather", "toolu_01WxPor"))
    parallel_fixed = inserted(
        [*parallel[:9], repointed(parallel[9], parallel_fix), *parallel[10:]],
        [(7, parallel_fix)],
    )

    interrupt = [
        cc_user(1, None, "Run the test suite, then commit."),
        cc_assistant(2, 1, "msg_01Run", {"type": "text", "text": "Running the tests first."}),
        cc_assistant(
            3, 2, "msg_01Run", tool_use("toolu_01PyTst", "Bash", command="pytest -x", timeout=600)
        ),
        cc_progress(4, 3, "toolu_01PyTst"),
        cc_user(5, 4, [{"type": "text", "text": "[Request interrupted by user]"}]),
        cc_user(6, 5, "Skip the tests, just commit."),
        cc_assistant(
            7, 6, "msg_01Cmt", tool_use("toolu_01GitCm", "Bash", command="git commit -am wip")
        ),
        cc_result(8, 7, "toolu_01GitCm", "[main 4f2a9c1] wip", source=7),
        cc_assistant(9, 8, "msg_01Don", {"type": "text", "text": "Committed as 4f2a9c1."}),
    ]
    interrupt_fix = cc_repair(interrupt[2], (TP001, "Bash", "toolu_01PyTst"))
    interrupt_fixed = inserted(
        [*interrupt[:3], repointed(interrupt[3], interrupt_fix), *interrupt[4:]],
        [(2, interrupt_fix)],
    )

    side = {"sidechain": True}
    sidechain = [
        cc_user(1, None, "Find the TODO comments and summarise them."),
        cc_assistant(2, 1, "msg_01Mai", {"type": "text", "text": "I'll ask an agent."}),
        cc_assistant(
            3, 2, "msg_01Mai", tool_use("toolu_01Task", "Task", prompt="List TODOs in src/")
        ),
        cc_user(11, None, "List TODOs in src/", **side),
        cc_assistant(12, 11, "msg_01Sd1", tool_use("toolu_01Grep", "Grep", pattern="TODO"), **side),
        cc_result(13, 12, "toolu_01Grep", "src/cart.py:12\nsrc/tax.py:40", source=12, **side),
        cc_assistant(
            14, 13, "msg_01Sd2", tool_use("toolu_01Read", "Read", file_path="src/cart.py"), **side
        ),
        cc_result(4, 3, "toolu_01Task", "Agent stopped before it finished.", source=3),
        cc_assistant(5, 4, "msg_01Sum", {"type": "text", "text": "Two TODOs, in cart and tax."}),
    ]
    sidechain_fix = cc_repair(sidechain[6], (TP002, "Read", "toolu_01Read"))
    return [
        Case(
            "claude-code/parallel-split.jsonl",
            parallel,
            compact_jsonl,
            "Claude Code session: one response's three parallel tool_use blocks on three lines "
            "(a hook's progress line among them); one result missing, the model answered anyway",
            parallel_fixed,
            [("TP001", "toolu_01WxPor")],
        ),
        Case(
            "claude-code/interrupt.jsonl",
            interrupt,
            compact_jsonl,
            "Claude Code session killed while a Bash call ran: the interrupt and the next prompt "
            "came without a tool_result (the new line is chained in before the progress line)",
            interrupt_fixed,
            [("TP001", "toolu_01PyTst")],
        ),
        Case(
            "claude-code/sidechain.jsonl",
            sidechain,
            compact_jsonl,
            "Claude Code session with a subagent kept inline (isSidechain): its last call has no "
            "result; the main thread, interleaved with it, is complete",
            inserted(sidechain, [(6, sidechain_fix)]),
            [("TP002", "toolu_01Read")],
        ),
    ]


# Claude Agent SDK message streams, in both framings: JSON Lines as `claude -p --output-format
# stream-json` prints them (compact, raw UTF-8, the API message with its role, `session_id` and
# `uuid` on every entry), and a JSON array as the SDK's messages are kept whole (pretty-printed,
# the entry's `type` as the role, no ids), like corpus/claude-code's vercel/ai fixture. The new
# entry answering a turn goes right after the turn's last assistant entry, in its conversation
# (`parent_tool_use_id`), with the keys of the call's entry in that entry's order; its uuid (only
# where entries carry one) is the UUIDv5 of "<session_id>/<first call id>" in SESSION_NAMESPACE.

SDK_SESSION = "3f9d6c2a-71b4-4e0a-9c85-5a2e1d7b6f40"
SDK_MODEL = "claude-sonnet-4-5-20250929"


def sdk_uuid(number: int) -> str:
    """An entry's uuid, readable in the samples."""
    return f"0c4e2f7a-9b1d-4e3c-8a5f-{number:012x}"


def sdk_init(number: int) -> dict[str, Any]:
    """The stream's first entry, as the CLI prints it."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": "/home/ana/shop",
        "session_id": SDK_SESSION,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write"],
        "mcp_servers": [],
        "model": SDK_MODEL,
        "permissionMode": "default",
        "apiKeySource": "none",
        "output_style": "default",
        "uuid": sdk_uuid(number),
    }


def sdk_assistant(
    number: int, message_id: str, block: dict[str, Any], parent: str | None = None
) -> dict[str, Any]:
    """One assistant entry of the CLI's stream: one content block of API message ``message_id``."""
    return {
        "type": "assistant",
        "message": one_block_message(
            SDK_MODEL,
            message_id,
            block,
            {"input_tokens": 4, "cache_read_input_tokens": 13542, "output_tokens": 9},
        ),
        "parent_tool_use_id": parent,
        "session_id": SDK_SESSION,
        "uuid": sdk_uuid(number),
    }


def sdk_user(number: int, content: Any, parent: str | None = None) -> dict[str, Any]:
    """One user entry of the CLI's stream (a subagent's prompt, or a message sent mid-run)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": parent,
        "session_id": SDK_SESSION,
        "uuid": sdk_uuid(number),
    }


def sdk_output(number: int, call_id: str, output: str, parent: str | None = None) -> dict[str, Any]:
    """A tool result entry of the CLI's stream."""
    block = {"tool_use_id": call_id, "type": "tool_result", "content": output, "is_error": False}
    entry = sdk_user(number, [block], parent)
    entry["tool_use_result"] = {"stdout": output, "stderr": "", "interrupted": False}
    return entry


def sdk_final(number: int, subtype: str, turns: int) -> dict[str, Any]:
    """The stream's last entry."""
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": 41250,
        "num_turns": turns,
        "session_id": SDK_SESSION,
        "total_cost_usd": 0.0412,
        "permission_denials": [],
        "uuid": sdk_uuid(number),
    }


def sdk_repair(*results: tuple[str, str, str], parent: str | None = None) -> dict[str, Any]:
    """The entry a correct repair adds to a CLI stream: one error ``tool_result`` per
    ``(template, name, call id)``."""
    blocks = [anthropic_result(template, name, call_id) for template, name, call_id in results]
    return {
        "type": "user",
        "message": {"role": "user", "content": blocks},
        "parent_tool_use_id": parent,
        "session_id": SDK_SESSION,
        "uuid": str(uuid.uuid5(SESSION_NAMESPACE, f"{SDK_SESSION}/{results[0][2]}")),
    }


def kept(kind: str, content: list[Any], parent: str | None = None) -> dict[str, Any]:
    """One entry of a stream kept as a JSON array (the fixture's shape: no role, no ids)."""
    message: dict[str, Any] = {"content": content}
    if kind == "assistant":
        message["usage"] = {"input_tokens": 2, "output_tokens": 5}
    return {"type": kind, "parent_tool_use_id": parent, "message": message}


def kept_output(call_id: str, output: str, parent: str | None = None) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": False}
    return kept("user", [block], parent)


def kept_repair(*results: tuple[str, str, str], parent: str | None = None) -> dict[str, Any]:
    """The entry a correct repair adds to a stream kept as an array."""
    blocks = [anthropic_result(template, name, call_id) for template, name, call_id in results]
    return {"type": "user", "parent_tool_use_id": parent, "message": {"content": blocks}}


def agent_sdk_cases() -> list[Case]:
    say = "Running the tests first."
    test_call = tool_use("toolu_01PyTest", "Bash", command="pytest -x", timeout=600)
    commit_call = tool_use("toolu_01GitCmt", "Bash", command="git commit -am wip")
    main = [
        sdk_init(1),
        sdk_assistant(2, "msg_01Run", {"type": "text", "text": say}),
        sdk_assistant(3, "msg_01Run", test_call),
        sdk_user(4, "Skip the tests, just commit."),
        sdk_assistant(5, "msg_01Cmt", commit_call),
        sdk_output(6, "toolu_01GitCmt", "[main 4f2a9c1] wip"),
        sdk_assistant(7, "msg_01Don", {"type": "text", "text": "Committed as 4f2a9c1."}),
        sdk_final(8, "success", 3),
    ]
    main_fix = sdk_repair((TP001, "Bash", "toolu_01PyTest"))
    kept_main = [
        kept("assistant", [{"type": "text", "text": say}]),
        kept("assistant", [test_call]),
        kept("user", [{"type": "text", "text": "Skip the tests, just commit."}]),
        kept("assistant", [commit_call]),
        kept_output("toolu_01GitCmt", "[main 4f2a9c1] wip"),
        kept("assistant", [{"type": "text", "text": "Committed as 4f2a9c1."}]),
    ]
    kept_main_fix = kept_repair((TP001, "Bash", "toolu_01PyTest"))
    printed, saved = (main, (2, main_fix)), (kept_main, (1, kept_main_fix))
    about = "a message came while a Bash call ran; the model answered it, the call got no result"
    main_thread = sdk_samples("main-thread", [("TP001", "toolu_01PyTest")], printed, saved, about)

    task = "toolu_01Task"
    task_call = tool_use(task, "Task", description="Find TODOs", prompt="List TODOs in src/")
    grep_call = tool_use("toolu_01Grep", "Grep", pattern="TODO", path="src")
    read_call = tool_use("toolu_01Read", "Read", file_path="src/cart.py")
    todos = "src/cart.py:12: # TODO: tax\nsrc/tax.py:40: # TODO: rounding"
    summary = "Zwei TODOs: Steuer in cart.py, Rundung in tax.py."
    subagent = [
        sdk_init(1),
        sdk_assistant(2, "msg_01Mai", task_call),
        sdk_user(3, [{"type": "text", "text": "List TODOs in src/"}], task),
        sdk_assistant(4, "msg_01Sd1", grep_call, task),
        sdk_output(5, "toolu_01Grep", todos, task),
        sdk_assistant(6, "msg_01Sd2", read_call, task),
        sdk_output(7, task, "Agent stopped before it finished."),
        sdk_assistant(8, "msg_01Sum", {"type": "text", "text": summary}),
        sdk_final(9, "success", 2),
    ]
    subagent_fix = sdk_repair((TP002, "Read", "toolu_01Read"), parent=task)
    kept_subagent = [
        kept("assistant", [task_call]),
        kept("user", [{"type": "text", "text": "List TODOs in src/"}], task),
        kept("assistant", [grep_call], task),
        kept_output("toolu_01Grep", todos, task),
        kept("assistant", [read_call], task),
        kept_output(task, "Agent stopped before it finished."),
        kept("assistant", [{"type": "text", "text": summary}]),
    ]
    kept_subagent_fix = kept_repair((TP002, "Read", "toolu_01Read"), parent=task)
    printed, saved = (subagent, (5, subagent_fix)), (kept_subagent, (4, kept_subagent_fix))
    about = (
        "a Task subagent (parent_tool_use_id) stopped with its Read call open; the main thread, "
        "interleaved with it, is complete"
    )
    subagents = sdk_samples("subagent", [("TP002", "toolu_01Read")], printed, saved, about)

    lisbon = tool_use("toolu_01WxLis", "get_weather", city="Lisbon")
    porto = tool_use("toolu_01WxPor", "get_weather", city="Porto")
    clock = tool_use("toolu_01TmLis", "get_time", tz="Europe/Lisbon")
    look = {"type": "text", "text": "Ich schaue nach."}
    parallel = [
        sdk_init(1),
        sdk_assistant(2, "msg_01Par", look),
        sdk_assistant(3, "msg_01Par", lisbon),
        sdk_output(4, "toolu_01WxLis", "21°C, sonnig"),
        sdk_assistant(5, "msg_01Par", porto),
        sdk_assistant(6, "msg_01Par", clock),
        sdk_final(7, "error_during_execution", 1),
    ]
    parallel_fix = sdk_repair(
        (TP002, "get_weather", "toolu_01WxPor"), (TP002, "get_time", "toolu_01TmLis")
    )
    kept_parallel = [
        kept("assistant", [look]),
        kept("assistant", [lisbon]),
        kept("assistant", [porto]),
        kept("assistant", [clock]),
        kept_output("toolu_01WxLis", "21°C, sonnig"),
    ]
    kept_parallel_fix = kept_repair(
        (TP002, "get_weather", "toolu_01WxPor"), (TP002, "get_time", "toolu_01TmLis")
    )
    printed, saved = (parallel, (5, parallel_fix)), (kept_parallel, (3, kept_parallel_fix))
    about = (
        "cut off mid-parallel-calls (one response's three calls, one result); one new entry "
        "answers both open calls"
    )
    open_calls = [("TP002", "toolu_01WxPor"), ("TP002", "toolu_01TmLis")]
    return (
        main_thread
        + subagents
        + sdk_samples("parallel-interrupted", open_calls, printed, saved, about)
    )


#: One entry list, and the ``(after, new entry)`` a correct repair inserts.
Repaired = tuple[list[Any], tuple[int, Any]]


def sdk_samples(
    name: str,
    findings: Sequence[tuple[str, str | None]],
    printed: Repaired,
    saved: Repaired,
    about: str,
) -> list[Case]:
    """The two samples of one story: the stream as the CLI prints it (``printed``, JSON Lines)
    and as the SDK's messages are kept whole (``saved``, a pretty-printed JSON array)."""
    (lines, line_fix), (array, array_fix) = printed, saved
    return [
        Case(
            f"claude-agent-sdk/{name}.jsonl",
            lines,
            compact_jsonl,
            f"Claude Agent SDK stream-json output: {about}",
            inserted(lines, [line_fix]),
            findings,
        ),
        Case(
            f"claude-agent-sdk/{name}.json",
            [array],
            json_doc(indent=2, ensure_ascii=False),
            f"Claude Agent SDK messages kept as a JSON array (no role, no ids): {about}",
            [inserted(array, [array_fix])],
            findings,
        ),
    ]


def rollout(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One Codex rollout line."""
    return {"timestamp": f"2026-05-12T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


def codex_item(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return rollout(second, "response_item", payload)


def codex_event(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return rollout(second, "event_msg", payload)


def codex_user(second: int, prompt: str) -> list[dict[str, Any]]:
    """A user prompt: its event, and the message item the model sees."""
    return [
        codex_event(second, {"type": "user_message", "message": prompt, "images": []}),
        codex_item(
            second,
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        ),
    ]


def exec_call(call_id: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"cmd": command, "workdir": "/home/ana/shop"})
    return {
        "type": "function_call",
        "name": "exec_command",
        "arguments": arguments,
        "call_id": call_id,
    }


def codex_output(second: int, template: str, name: str, call_id: str, kind: str) -> dict[str, Any]:
    """The output line a correct repair adds (the call line's timestamp)."""
    return codex_item(second, responses_output(template, name, call_id, kind))


def codex_cases() -> list[Case]:
    meta = rollout(
        0,
        "session_meta",
        {
            "id": "019e1695-0522-7c83-8b39-0dd379793f80",
            "timestamp": "2026-05-12T09:59:58.000Z",
            "cwd": "/home/ana/shop",
            "originator": "codex_cli_rs",
            "cli_version": "0.128.0",
            "model_provider": "openai",
        },
    )
    context = rollout(1, "turn_context", {"turn_id": "turn-1", "cwd": "/home/ana/shop"})
    aborted = [
        meta,
        codex_event(1, {"type": "task_started", "turn_id": "turn-1"}),
        context,
        *codex_user(2, "Find the TODOs and show me git status."),
        codex_item(3, {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABo0x"}),
        codex_item(4, exec_call("call_7Hq2TodoRg", "rg -n TODO src")),
        codex_item(5, exec_call("call_8Kp3GitSt", "git status --short")),
        codex_item(
            6,
            {
                "type": "function_call_output",
                "call_id": "call_7Hq2TodoRg",
                "output": "src/cart.py:12: # TODO: tax",
            },
        ),
        codex_event(6, {"type": "exec_command_end", "call_id": "call_7Hq2TodoRg", "exit_code": 0}),
        codex_event(7, {"type": "turn_aborted", "turn_id": "turn-1", "reason": "interrupted"}),
        *codex_user(9, "Never mind git, just fix the TODO."),
    ]
    aborted_fix = codex_output(5, TP001, "exec_command", "call_8Kp3GitSt", "function_call_output")
    patch = "*** Begin Patch\n*** Update File: VERSION\n-1.3.0\n+1.4.0\n*** End Patch"
    shell = {
        "type": "local_shell_call",
        "id": "lsh_68c2a1",
        "call_id": "call_9Zt4GitTag",
        "status": "in_progress",
        "action": {"type": "exec", "command": ["git", "tag", "v1.4.0"], "timeout_ms": 10000},
    }
    custom = [
        meta,
        context,
        *codex_user(2, "Bump the version to 1.4.0 and tag it."),
        codex_item(
            3,
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_5Rw1Patch",
                "name": "apply_patch",
                "input": patch,
            },
        ),
        codex_event(4, {"type": "turn_aborted", "turn_id": "turn-1", "reason": "interrupted"}),
        *codex_user(5, "Only tag it, leave VERSION alone."),
        codex_item(6, shell),
    ]
    custom_fixes = [
        (
            4,
            codex_output(3, TP001, "apply_patch", "call_5Rw1Patch", "custom_tool_call_output"),
        ),
        (
            8,
            # A local shell call has no tool name: the text says `unknown`, not the item type.
            codex_output(6, TP002, "unknown", "call_9Zt4GitTag", "function_call_output"),
        ),
    ]
    return [
        Case(
            "codex/aborted-turn.jsonl",
            aborted,
            compact_jsonl,
            "Codex rollout: a turn aborted between two parallel exec_command calls, one output "
            "recorded; the next prompt followed (event lines kept as they are)",
            inserted(aborted, [(8, aborted_fix)]),
            [("TP001", "call_8Kp3GitSt")],
        ),
        Case(
            "codex/patch-and-shell.jsonl",
            custom,
            compact_jsonl,
            "Codex rollout: an apply_patch custom_tool_call cut off by a new prompt, and a "
            "local_shell_call still running at the end (answered with a function_call_output, "
            "as Codex does)",
            inserted(custom, custom_fixes),
            [("TP001", "call_5Rw1Patch"), ("TP002", "call_9Zt4GitTag")],
        ),
    ]


# -- Gemini CLI sessions -------------------------------------------------------------------
# ~/.gemini/tmp/<project>/chats/session-*.json, written as Gemini CLI writes it:
# JSON.stringify(record, null, 2), raw UTF-8, no final newline. A call's result lives in its
# own toolCalls entry; a repair records the failure there as the CLI records a failed call
# (result: the functionResponse parts with response.error, resultDisplay: the text when the
# entry has none; the status stays as recorded), the new members after the entry's last one.


def stringified(records: Sequence[Any]) -> bytes:
    """``JSON.stringify(value, null, 2)``: two-space indent, raw UTF-8, no final newline."""
    (value,) = records
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")


GEMINI_CLI_SESSION = {
    "sessionId": "3f2b8c1e-7d4a-4e9b-a6f0-5c2d9e8b1a47",
    "projectHash": "9c4e1f7a2b8d3e6f0a5c9b2d7e4f1a8c3b6d9e2f5a0c7b4d1e8f3a6c9b2d5e8f",
    "startTime": "2026-03-02T08:14:05.112Z",
    "lastUpdated": "2026-03-02T08:16:41.930Z",
}
GEMINI_TOKENS = {
    "input": 9120,
    "output": 64,
    "cached": 0,
    "thoughts": 212,
    "tool": 0,
    "total": 9396,
}


def gcli_message(second: int, kind: str, content: Any, **fields: Any) -> dict[str, Any]:
    """A session message: ``id``, ``timestamp``, ``type``, ``content``, then its own fields."""
    return {
        "id": f"5b1d7e2a-0c4f-4a8e-9d3b-{second:012d}",
        "timestamp": f"2026-03-02T08:{second // 60:02d}:{second % 60:02d}.000Z",
        "type": kind,
        "content": content,
        **fields,
    }


def gcli_turn(second: int, content: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``gemini`` message holding tool calls, with its thoughts, model and tokens."""
    thought = {
        "subject": "Planning the next step",
        "description": "I need to look at the project before I answer.",
        "timestamp": f"2026-03-02T08:{second // 60:02d}:{second % 60:02d}.000Z",
    }
    return gcli_message(
        second,
        "gemini",
        content,
        toolCalls=calls,
        thoughts=[thought],
        model="gemini-2.5-pro",
        tokens=GEMINI_TOKENS,
    )


def gcli_call(
    name: str,
    call_id: str,
    args: dict[str, Any],
    status: str,
    *,
    output: str | None = None,
    display: str | None = None,
    shown_as: str = "ReadFile",
) -> dict[str, Any]:
    """A ``toolCalls`` entry in the CLI's key order; ``output``: the result it recorded (none for
    a call still in flight)."""
    entry: dict[str, Any] = {"id": call_id, "name": name, "args": args}
    if output is not None:
        response = {"error" if status in ("error", "cancelled") else "output": output}
        entry["result"] = [
            {"functionResponse": {"id": call_id, "name": name, "response": response}}
        ]
    entry.update(status=status, timestamp="2026-03-02T08:15:02.000Z")
    if display is not None:
        entry["resultDisplay"] = display
    entry.update(displayName=shown_as, description=f"Runs {name}.", renderOutputAsMarkdown=False)
    return entry


def gcli_failed(entry: dict[str, Any], template: str) -> dict[str, Any]:
    """The entry a correct repair writes: ``result`` and ``resultDisplay`` after its last
    member."""
    message = text(template, entry["name"], entry["id"])
    fixed = dict(entry)
    fixed["result"] = [
        {
            "functionResponse": {
                "id": entry["id"],
                "name": entry["name"],
                "response": {"error": message},
            }
        }
    ]
    fixed["resultDisplay"] = message
    return fixed


def gemini_cli_session(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {**GEMINI_CLI_SESSION, "messages": messages}


def gemini_cli_cases() -> list[Case]:
    shell_id = "run_shell_command-1772439302117-4be1c07d2f9a6"
    shell = gcli_call(
        "run_shell_command",
        shell_id,
        {"command": "npm test -- checkout", "description": "Run the checkout tests."},
        "executing",
        shown_as="Shell",
    )
    interrupted = [
        gcli_message(125, "user", "The checkout tests fail since this morning — find out why."),
        gcli_turn(128, "I'll run the checkout tests to see the failure.", [shell]),
        gcli_message(150, "user", "Go on, what did the tests say?"),
        gcli_message(
            153,
            "error",
            "[API Error: Please ensure that the number of function response parts is equal to "
            "the number of function call parts of the function call turn.]",
        ),
    ]
    interrupted_fixed = copy.deepcopy(interrupted)
    interrupted_fixed[1]["toolCalls"] = [gcli_failed(shell, TP001)]

    client_id = "read_file-1772439310401-1a6e3c9b0d2f7"
    worker_id = "read_file-1772439310402-8c2f5a1e7b3d9"
    grep_id = "search_file_content-1772439310403-6d9b2e4f1a8c5"
    client = gcli_call(
        "read_file",
        client_id,
        {"file_path": "/home/ana/shop/src/api/client.ts"},
        "success",
        output="export const client = createClient({ maxRetries: 3, backoffMs: 250 });",
        display="",
    )
    worker = gcli_call(
        "read_file", worker_id, {"file_path": "/home/ana/shop/src/worker/config.ts"}, "executing"
    )
    grep = gcli_call(
        "search_file_content",
        grep_id,
        {"pattern": "maxRetries"},
        "scheduled",
        shown_as="SearchText",
    )
    parallel = [
        gcli_message(130, "user", "Compare the retry settings of the API client and the worker."),
        gcli_turn(134, "", [client, worker, grep]),
    ]
    parallel_fixed = copy.deepcopy(parallel)
    parallel_fixed[1]["toolCalls"] = [client, gcli_failed(worker, TP002), gcli_failed(grep, TP002)]

    cancelled_id = "write_file-1772439331904-3e8a1d6c9f2b4"
    listed_id = "list_directory-1772439352710-7f4c2a9e1b6d3"
    clean = [
        gcli_message(170, "user", "Write the staging settings to config/staging.json."),
        gcli_turn(
            172,
            "",
            [
                gcli_call(
                    "write_file",
                    cancelled_id,
                    {"file_path": "/home/ana/shop/config/staging.json", "content": "{}"},
                    "cancelled",
                    output="[Operation Cancelled] Reason: User cancelled the operation.",
                    shown_as="WriteFile",
                )
            ],
        ),
        gcli_message(175, "info", "Request cancelled."),
        gcli_message(178, "user", "/stats"),
        gcli_message(181, "user", "Show me what is in config/ first."),
        gcli_turn(
            183,
            "",
            [
                gcli_call(
                    "list_directory",
                    listed_id,
                    {"dir_path": "/home/ana/shop/config"},
                    "success",
                    output="Directory listing for /home/ana/shop/config:\nproduction.json",
                    display="Listed 1 item(s).",
                    shown_as="ReadFolder",
                )
            ],
        ),
        gcli_message(
            186,
            "gemini",
            "There is only `production.json` so far; staging.json does not exist yet.",
            thoughts=[],
            model="gemini-2.5-pro",
            tokens=GEMINI_TOKENS,
        ),
    ]

    written_id = "write_file-1772439361055-2b7e9c4a1d8f6"
    lost = [
        gcli_message(190, "user", "Save the release notes to NOTES.md."),
        gcli_turn(
            192,
            "",
            [
                {
                    **gcli_call(
                        "write_file",
                        written_id,
                        {"file_path": "/home/ana/shop/NOTES.md", "content": "# 1.4.0\n"},
                        "success",
                        shown_as="WriteFile",
                    ),
                    "result": None,
                }
            ],
        ),
    ]
    tag_id = "run_shell_command-1772439377210-9a3c6e1f4b2d8"
    tag_call = gcli_call(
        "run_shell_command",
        tag_id,
        {"command": "git tag v1.4.0", "description": "Tag the release."},
        "awaiting_approval",
        shown_as="Shell",
    )
    reply = gcli_message(196, "gemini", "I'll tag the release.", model="gemini-2.5-pro")
    log = [
        {**GEMINI_CLI_SESSION, "kind": "main"},
        gcli_message(194, "user", [{"text": "Tag the release as v1.4.0."}]),
        {"$set": {"lastUpdated": "2026-03-02T08:03:14.000Z"}},
        reply,
        {**reply, "toolCalls": [tag_call], "tokens": GEMINI_TOKENS},
        {"$set": {"lastUpdated": "2026-03-02T08:03:17.000Z"}},
    ]
    log_fixed = [*log[:4], {**log[4], "toolCalls": [gcli_failed(tag_call, TP002)]}, log[5]]
    return [
        Case(
            "gemini-cli/interrupted-executing.json",
            [gemini_cli_session(interrupted)],
            stringified,
            "Gemini CLI session killed while a shell call ran (status executing, no result); "
            "resumed, the next prompt came and Gemini refused it: the failure is recorded in the "
            "call's own entry",
            [gemini_cli_session(interrupted_fixed)],
            [("TP001", shell_id)],
        ),
        Case(
            "gemini-cli/parallel-cut.json",
            [gemini_cli_session(parallel)],
            stringified,
            "Gemini CLI session cut during three parallel calls: one answered, one executing, "
            "one scheduled; each open entry gets its error result",
            [gemini_cli_session(parallel_fixed)],
            [("TP002", worker_id), ("TP002", grep_id)],
        ),
        Case(
            "gemini-cli/clean.json",
            [gemini_cli_session(clean)],
            stringified,
            "Gemini CLI session with a call the user cancelled (its result says so), a notice "
            "and a slash command: clean",
        ),
        Case(
            "gemini-cli/success-without-result.json",
            [gemini_cli_session(lost)],
            stringified,
            "a write_file recorded as success with result null: reported, never answered "
            "(the tool ran; an error result would say it had not)",
            None,
            [("TP002", written_id)],
            unfixed=[("TP002", written_id)],
        ),
        Case(
            "gemini-cli/session-log.jsonl",
            log,
            compact_jsonl,
            "Gemini CLI session log (JSON Lines, newer releases): a message appended again when "
            "its call came, which waits for approval at the end; its last version is repaired "
            "in place",
            log_fixed,
            [("TP002", tag_id)],
        ),
    ]


def all_cases() -> list[Case]:
    """Every sample, in a stable order."""
    return (
        langchain_cases()
        + openai_cases()
        + anthropic_cases()
        + responses_cases()
        + gemini_cases()
        + bedrock_cases()
        + mixed_cases()
        + strict_cases()
        + claude_code_cases()
        + agent_sdk_cases()
        + codex_cases()
        + gemini_cli_cases()
    )


def fixed_path(path: str) -> str:
    """``a/b.json`` → ``a/b.fixed.json``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.fixed{dot}{suffix}"


def unsafe_path(path: str) -> str:
    """``a/b.json`` → ``a/b.unsafe.json``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.unsafe{dot}{suffix}"


#: How samples/README.md marks a finding of a case that states its fixability (ruff's marks).
FIX_MARKS = {"safe": " [*]", "unsafe": " [~]", "none": " (not fixable)"}


def reported_finding(case: Case, finding: tuple[str, str | None], fix: str | None = None) -> str:
    """One finding as samples/README.md lists it."""
    code, call_id = finding
    shown = f"{code} `{call_id}`" if call_id is not None else f"{code} (no id)"
    if code in ("TP106", "TP107"):  # about a message's shape: no call, no id
        shown = code
    if fix is not None:
        return shown + FIX_MARKS[fix]
    return f"{shown} (not fixable)" if finding in case.unfixed else shown


def expected_files() -> dict[str, bytes]:
    """Every file of ``samples/``: inputs, expected repairs, and a README listing them."""
    files: dict[str, bytes] = {}
    readme = [
        "# Samples",
        "",
        "Real-looking transcripts for every format and container toolpatch reads. Each",
        "defective input `x.json` has its expected repair `x.fixed.json` beside it. Generated",
        "by `python -m tests.sample_cases` (the expected repairs are stated by hand there, not",
        "computed by toolpatch); `tests/test_samples.py` keeps files and definitions in step",
        "and runs every pair through the CLI.",
        "",
        "`strict/` holds the provider-strict cases (TP1xx rules), checked and fixed with",
        "`--select ALL`: `x.fixed.json` is what `fix` writes (safe fixes only: the TP1xx",
        "defects stay), `x.unsafe.json` what `fix --unsafe-fixes` writes. Their findings carry",
        "`check`'s marks: `[*]` fixable, `[~]` fixable with `--unsafe-fixes`.",
        "",
        "| file | what it shows | `toolpatch check` reports |",
        "|---|---|---|",
    ]
    for case in all_cases():
        files[case.path] = case.dump(case.records)
        if case.expected is not None:
            files[fixed_path(case.path)] = case.dump(case.expected)
        if case.unsafe is not None:
            files[unsafe_path(case.path)] = case.dump(case.unsafe)
        marks: Sequence[str | None] = case.fixability or [None] * len(case.findings)
        reported = ", ".join(
            reported_finding(case, finding, fix)
            for finding, fix in zip(case.findings, marks, strict=True)
        )
        if case.warning:
            reported = ", ".join(filter(None, (reported, f"warning: {case.warning}")))
        reported = reported or "-"
        readme.append(f"| `{case.path}` | {case.about} | {reported} |")
    files["README.md"] = ("\n".join(readme) + "\n").encode()
    return files


def main() -> None:
    """Rewrite ``samples/`` from the definitions."""
    for relative, data in expected_files().items():
        target = SAMPLES / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


if __name__ == "__main__":
    main()
