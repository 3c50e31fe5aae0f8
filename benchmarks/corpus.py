"""Deterministic benchmark corpora: JSONL, one conversation per line.

``python -m benchmarks.corpus --dialect langchain --conversations 5000 out.jsonl`` writes about
120 MB: ~12 turns per conversation, ~3 % of calls left unanswered (so about a third of the lines
need a fix), in LangChain ``messages_to_dict`` shape (``{"type", "data"}``) or OpenAI Chat.
``--unanswered 0.001`` gives the realistic corpus (0.1 % of calls unanswered: about one line in
fifty needs a fix). The same seed always gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TOOLS = ("search_flights", "get_weather", "read_file", "run_query", "lookup_customer", "fetch_url")
# fmt: off
WORDS = (
    "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "while", "analysts",
    "review", "quarterly", "revenue", "numbers", "and", "engineers", "refactor", "billing",
    "service", "before", "release", "window", "closes",
)
# fmt: on


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _langchain(kind: str, **data: Any) -> dict[str, Any]:
    """One message in ``messages_to_dict`` shape (langchain-core's key order)."""
    base: dict[str, Any] = {
        "content": data.pop("content"),
        "additional_kwargs": {},
        "response_metadata": data.pop("response_metadata", {}),
        "type": kind,
        "name": data.pop("name", None),
        "id": data.pop("id", None),
    }
    base.update(data)
    return {"type": kind, "data": base}


#: The share of tool calls the bench corpus leaves without a result.
UNANSWERED = 0.03


def conversation(
    rng: random.Random, number: int, *, dialect: str, unanswered: float = UNANSWERED
) -> list[dict[str, Any]]:
    """One conversation of about twelve turns, in ``dialect``, with about ``unanswered`` of its
    calls left without a result."""
    messages: list[dict[str, Any]] = []

    def system(content: str) -> None:
        if dialect == "langchain":
            messages.append(_langchain("system", content=content))
        else:
            messages.append({"role": "system", "content": content})

    def human(content: str) -> None:
        if dialect == "langchain":
            messages.append(_langchain("human", content=content, id=f"h-{number}-{len(messages)}"))
        else:
            messages.append({"role": "user", "content": content})

    def ai(content: str, calls: list[tuple[str, str, dict[str, Any]]]) -> None:
        if dialect == "langchain":
            messages.append(
                _langchain(
                    "ai",
                    content=content,
                    id=f"run-{number}-{len(messages)}",
                    response_metadata={"model_name": "gpt-4o", "finish_reason": "tool_calls"},
                    tool_calls=[
                        {"name": n, "args": a, "id": i, "type": "tool_call"} for i, n, a in calls
                    ],
                    invalid_tool_calls=[],
                    usage_metadata={"input_tokens": 812, "output_tokens": 64, "total_tokens": 876},
                )
            )
        else:
            messages.append(
                {
                    "role": "assistant",
                    "content": content or None,
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": n, "arguments": json.dumps(a)},
                        }
                        for i, n, a in calls
                    ]
                    or None,
                }
            )

    def tool(call_id: str, name: str, content: str) -> None:
        if dialect == "langchain":
            messages.append(
                _langchain(
                    "tool",
                    content=content,
                    name=name,
                    tool_call_id=call_id,
                    artifact=None,
                    status="success",
                )
            )
        else:
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})

    system("You are an operations assistant. " + _text(rng, 60))
    for turn in range(12):
        human(_text(rng, rng.randint(10, 40)))
        calls = [
            (f"call_{number}_{turn}_{k}", rng.choice(TOOLS), {"query": _text(rng, 12), "limit": k})
            for k in range(rng.choice((1, 1, 2)))
        ]
        ai(_text(rng, 25), calls)
        for call_id, name, _ in calls:
            if rng.random() >= unanswered:
                tool(call_id, name, _text(rng, rng.randint(40, 110)))
        ai(_text(rng, rng.randint(20, 60)), [])
    return messages


def lines(
    *, dialect: str, conversations: int, seed: int = 1, unanswered: float = UNANSWERED
) -> Iterator[bytes]:
    """The corpus, line by line."""
    rng = random.Random(seed)
    for number in range(conversations):
        messages = conversation(rng, number, dialect=dialect, unanswered=unanswered)
        record = {"session_id": f"s-{number:06d}", "messages": messages}
        yield json.dumps(record).encode("utf-8") + b"\n"


def write(
    path: Path,
    *,
    dialect: str,
    conversations: int,
    seed: int = 1,
    unanswered: float = UNANSWERED,
) -> int:
    """Write the corpus to ``path``; returns its size in bytes."""
    size = 0
    with path.open("wb") as out:
        chosen = lines(
            dialect=dialect, conversations=conversations, seed=seed, unanswered=unanswered
        )
        for line in chosen:
            out.write(line)
            size += len(line)
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--dialect", choices=("langchain", "openai-chat"), default="langchain")
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--unanswered", type=float, default=UNANSWERED)
    args = parser.parse_args()
    size = write(
        args.path,
        dialect=args.dialect,
        conversations=args.conversations,
        seed=args.seed,
        unanswered=args.unanswered,
    )
    print(f"{args.path}: {size / 1e6:.1f} MB, {args.conversations} conversations")


if __name__ == "__main__":
    main()
