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

import json
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
        findings: ``(code, call_id)`` that ``check`` must report, in order.
        about: One line for samples/README.md.
    """

    path: str
    records: Sequence[Any]
    dump: Callable[[Sequence[Any]], bytes]
    about: str
    expected: Sequence[Any] | None = None
    findings: Sequence[tuple[str, str]] = field(default_factory=tuple)


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
    ]


def all_cases() -> list[Case]:
    """Every sample, in a stable order."""
    return langchain_cases() + openai_cases()


def fixed_path(path: str) -> str:
    """``a/b.json`` → ``a/b.fixed.json``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.fixed{dot}{suffix}"


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
        "| file | what it shows | `toolpatch check` reports |",
        "|---|---|---|",
    ]
    for case in all_cases():
        files[case.path] = case.dump(case.records)
        if case.expected is not None:
            files[fixed_path(case.path)] = case.dump(case.expected)
        reported = ", ".join(f"{code} `{call_id}`" for code, call_id in case.findings) or "-"
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
