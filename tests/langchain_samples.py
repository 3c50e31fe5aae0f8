"""The LangChain samples, written by langchain-core itself: ``python -m tests.langchain_samples``.

Every other sample is a file stated by hand (``samples/*/cases.toml`` says what it must give).
The LangChain ones are not written by hand: their bytes are what langchain-core writes
(``messages_to_dict``, ``dumpd``, ``model_dump``), since toolpatch promises to insert exactly the
keys the library writes for a ``ToolMessage``. Each history is built here with the synthetic
results a correct repair inserts stated explicitly (``after=N``: right after the original message
N), never computed by toolpatch; langchain-core then serialises input and expected repair.

``python -m tests.langchain_samples`` rewrites ``samples/langchain/`` and
``samples/strict/langchain/`` from these definitions; ``tests/cli/test_samples.py`` fails if the
files and the definitions ever disagree (e.g. after a langchain-core upgrade changes a key).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
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

from tests.helpers import TP001_TEXT, TP002_TEXT, TP003_TEXT, langchain_result_id, text
from tests.sample_cases import SAMPLES, Dump, drop_path, fixed_path, json_doc, jsonl, unsafe_path

TP001, TP002, TP003 = TP001_TEXT, TP002_TEXT, TP003_TEXT


@dataclass(frozen=True)
class Sample:
    """The files of one LangChain sample.

    Attributes:
        path: The input's path under ``samples/``.
        records: The input records: one value for a JSON file, one per line for JSON Lines.
        dump: Serialises the records to the file's bytes.
        expected: The repaired records (same shape), or ``None`` when nothing must change.
        unsafe: The records after ``fix --unsafe-fixes``, or ``None``: the same as ``expected``.
        drop: The records after ``fix --repair drop --unsafe-fixes`` (the unanswered calls
            removed), or ``None``: no sample of that repair.
    """

    path: str
    records: Sequence[Any]
    dump: Dump
    expected: Sequence[Any] | None = None
    unsafe: Sequence[Any] | None = None
    drop: Sequence[Any] | None = None


def inserted(values: Sequence[Any], inserts: Sequence[tuple[int, Any]]) -> list[Any]:
    """``values`` with each ``(after, value)`` placed right after original element ``after``."""
    out: list[Any] = []
    for index, value in enumerate(values):
        out.append(value)
        out.extend(v for after, v in inserts if after == index)
    return out


def tool_call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """A parsed LangChain tool call."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def synthetic(template: str, name: str, call_id: str, caller: str | None = None) -> ToolMessage:
    """The ToolMessage a correct repair inserts for a call of the AI message whose id is
    ``caller``: its id is derived from that id and the call's."""
    return ToolMessage(
        content=text(template, name, call_id),
        name=name,
        tool_call_id=call_id,
        status="error",
        id=langchain_result_id(caller, call_id),
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


def weather_dropped() -> list[BaseMessage]:
    """`weather_parallel` with the unanswered call removed, as the drop repair leaves it: the
    AI message keeps its text and its answered call."""
    messages = weather_parallel()
    messages[1] = AIMessage(
        "Let me look both up.",
        id="run-1",
        tool_calls=[tool_call("get_weather", "call_wX1", city="Paris")],
    )
    return messages


def model_dump(messages: Sequence[BaseMessage], *, exclude_none: bool = False) -> list[Any]:
    """Flat ``model_dump`` dicts (``exclude_none`` as LangSmith writes them)."""
    return [m.model_dump(exclude_none=exclude_none, mode="json") for m in messages]


def js_envelope(message: BaseMessage) -> dict[str, Any]:
    """A ``dumpd`` envelope with LangChain JS's id namespace."""
    envelope = dumpd(message)
    envelope["id"] = ["langchain_core", "messages", envelope["id"][-1]]
    return envelope


def picked(values: Sequence[Any], *indexes: int) -> list[Any]:
    """The elements of ``values`` at ``indexes``, in that order (a hand-written reordering)."""
    return [values[index] for index in indexes]


def langchain_cases() -> list[Sample]:
    seed = calendar_history()
    seed_fix = [(2, synthetic(TP001, "get_events_for_days", "123", "run-1"))]
    weather = weather_parallel()
    weather_fix = [(2, synthetic(TP001, "get_time", "call_tZ2", "run-1"))]
    turns = two_turns()
    turns_fix = [
        (1, synthetic(TP001, "search_flights", "call_f1", "run-1")),
        (5, synthetic(TP001, "search_hotels", "call_h1", "run-3")),
    ]
    tail = trailing()
    tail_fix = [(1, synthetic(TP002, "run_tests", "call_rt1", "run-1"))]
    broken = invalid()
    broken_fix = [(1, synthetic(TP003, "write_file", "call_wr1", "run-1"))]
    reused = reused_ids()
    reused_fix = [(3, synthetic(TP001, "get_order", "call_0", "run-2"))]

    chunk = [
        HumanMessage("Summarise the repository.", id="h-1"),
        AIMessageChunk(
            content="",
            id="run-1",
            tool_calls=[tool_call("list_files", "call_ls1", path=".")],
        ),
        HumanMessage("(connection dropped, retrying)", id="h-2"),
    ]
    chunk_fix = [(1, synthetic(TP001, "list_files", "call_ls1", "run-1"))]

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
    # The drop repair: the seed's AI message holds nothing but its call, so it goes whole.
    seed_dropped = picked(seed, 0, 1, 3)
    conversations_dropped = [
        conversations[0],
        {"session_id": "s-002", "messages": messages_to_dict(weather_dropped())},
        {"session_id": "s-003", "messages": messages_to_dict(picked(tail, 0))},
        {"session_id": "s-004", "messages": messages_to_dict(picked(turns, 0, 2, 3, 4, 6, 7))},
    ]

    return [
        Sample(
            "langchain/seed-dangling.json",
            [messages_to_dict(seed)],
            json_doc(2),
            expected=[messages_to_dict(inserted(seed, seed_fix))],
            drop=[messages_to_dict(seed_dropped)],
        ),
        Sample(
            "langchain/parallel-partial-answer.json",
            [messages_to_dict(weather)],
            json_doc(2),
            expected=[messages_to_dict(inserted(weather, weather_fix))],
            drop=[messages_to_dict(weather_dropped())],
        ),
        Sample(
            "langchain/two-turns.json",
            [messages_to_dict(turns)],
            json_doc(4),
            expected=[messages_to_dict(inserted(turns, turns_fix))],
        ),
        Sample(
            "langchain/trailing-call.json",
            [messages_to_dict(tail)],
            json_doc(2),
            expected=[messages_to_dict(inserted(tail, tail_fix))],
        ),
        Sample(
            "langchain/invalid-tool-call.json",
            [messages_to_dict(broken)],
            json_doc(2),
            expected=[messages_to_dict(inserted(broken, broken_fix))],
        ),
        Sample(
            "langchain/reused-id.json",
            [messages_to_dict(reused)],
            json_doc(2),
            expected=[messages_to_dict(inserted(reused, reused_fix))],
        ),
        Sample(
            "langchain/ai-message-chunk.json",
            [messages_to_dict(chunk)],
            json_doc(2),
            expected=[messages_to_dict(inserted(chunk, chunk_fix))],
        ),
        Sample(
            "langchain/legacy-additional-kwargs.json",
            [legacy],
            json_doc(2),
            expected=[inserted(legacy, legacy_fix)],
        ),
        Sample(
            "langchain/dumpd-python.json",
            [[dumpd(m) for m in seed]],
            json_doc(2),
            expected=[[dumpd(m) for m in inserted(seed, seed_fix)]],
        ),
        Sample(
            "langchain/dumpd-js.json",
            [[js_envelope(m) for m in weather]],
            json_doc(None),
            expected=[[js_envelope(m) for m in inserted(weather, weather_fix)]],
            drop=[[js_envelope(m) for m in weather_dropped()]],
        ),
        Sample(
            "langchain/model-dump.json",
            [model_dump(turns)],
            json_doc(2),
            expected=[model_dump(inserted(turns, turns_fix))],
            drop=[model_dump(picked(turns, 0, 2, 3, 4, 6, 7))],
        ),
        Sample(
            "langchain/langgraph-thread-state.json", [thread], json_doc(2), expected=[thread_fixed]
        ),
        Sample(
            "langchain/langsmith-chain-run.json", [chain_run], json_doc(2), expected=[chain_fixed]
        ),
        Sample("langchain/langsmith-llm-run.json", [llm_run], json_doc(2), expected=[llm_fixed]),
        Sample(
            "langchain/conversations.jsonl",
            conversations,
            jsonl(),
            expected=conversations_fixed,
            drop=conversations_dropped,
        ),
        Sample(
            "langchain/messages.jsonl",
            lines,
            jsonl(),
            expected=lines_fixed,
            drop=messages_to_dict(weather_dropped()),
        ),
        Sample(
            "langchain/clean-thread.json",
            [{"values": {"messages": model_dump(clean_thread())}}],
            json_doc(2),
        ),
    ]


def strict_langchain_cases() -> list[Sample]:
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
    clock_fix = (9, synthetic(TP001, "get_time", clock, "run-3"))
    combined_unsafe = [
        *picked(combined, 0, 2, 3, 5, 4, 6, 7, 9),
        clock_fix[1],
        combined[10],
    ]

    return [
        Sample(
            "strict/langchain/tp101-orphan.json",
            [messages_to_dict(trimmed)],
            json_doc(2),
            unsafe=[messages_to_dict(trimmed[1:])],
        ),
        Sample(
            "strict/langchain/tp102-misplaced.json",
            [model_dump(late)],
            json_doc(2),
            unsafe=[model_dump(picked(late, 0, 1, 3, 2, 4))],
        ),
        Sample(
            "strict/langchain/tp103-duplicate.json",
            [[dumpd(m) for m in twice]],
            json_doc(4),
            unsafe=[[dumpd(m) for m in picked(twice, 0, 1, 2, 4)]],
        ),
        Sample(
            "strict/langchain/tp104-same-message.json", [messages_to_dict(same)], json_doc(None)
        ),
        Sample("strict/langchain/tp105-missing-id.json", [messages_to_dict(keyless)], json_doc(2)),
        Sample(
            "strict/langchain/tp107-empty-additional-kwargs.json",
            [messages_to_dict(empty)],
            json_doc("\t"),
            unsafe=[messages_to_dict(empty_unsafe)],
        ),
        Sample(
            "strict/langchain/combined.json",
            [messages_to_dict(combined)],
            json_doc(2),
            expected=[messages_to_dict(inserted(combined, [clock_fix]))],
            unsafe=[messages_to_dict(combined_unsafe)],
        ),
    ]


def samples() -> list[Sample]:
    """Every LangChain sample, the default ones then the provider-strict ones."""
    return langchain_cases() + strict_langchain_cases()


def files() -> dict[str, bytes]:
    """Each file of the LangChain samples (path under ``samples/``) and its bytes."""
    written: dict[str, bytes] = {}
    for sample in samples():
        written[sample.path] = sample.dump(sample.records)
        if sample.expected is not None:
            written[fixed_path(sample.path)] = sample.dump(sample.expected)
        if sample.unsafe is not None:
            written[unsafe_path(sample.path)] = sample.dump(sample.unsafe)
        if sample.drop is not None:
            written[drop_path(sample.path)] = sample.dump(sample.drop)
    return written


def main() -> None:
    """Rewrite the LangChain samples."""
    for relative, data in files().items():
        target = SAMPLES / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


if __name__ == "__main__":
    main()
