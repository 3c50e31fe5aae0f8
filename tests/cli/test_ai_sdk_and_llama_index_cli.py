"""The Vercel AI SDK and LlamaIndex readings through the real entry point: ``show`` finds the
words and calls of their messages (``parts``, ``blocks``, ``tool_kwargs``), and ``formats``
lists them with the string-encoded document (docs/formats.md#vercel-ai-sdk-uimessage,
docs/formats.md#llamaindex-chatmessage, docs/formats.md#json-document-in-a-string)."""

from __future__ import annotations

import pytest

from tests.helpers import SAMPLES, run


@pytest.mark.parametrize(
    ("sample", "words"),
    [
        (
            "ai-sdk-ui/interrupted-tool.json",
            ["What is the weather in San Francisco?", "getWeather"],
        ),
        ("ai-sdk-model/dangling-call.json", ["Hello? Are you there?", "getWeather"]),
        (
            "llama-index/chat_store.json",
            ["Sunny, 21 degrees Celsius.", '{"timezone": "Europe/Paris"}'],
        ),
        ("llama-index/string-encoded.json", ["Look up order 1042.", "lookup_order"]),
    ],
)
def test_show_reads_the_words_and_calls_of_each_reading(sample: str, words: list[str]) -> None:
    result = run(["show", str(SAMPLES / sample)], expect=0)
    shown = " ".join(result.stdout.decode().split())
    for word in words:
        assert word in shown


def test_formats_lists_the_new_readings() -> None:
    listed = run(["formats"], expect=0).stdout.decode()
    for name in ("ai-sdk-ui", "ai-sdk-model", "llama-index"):
        assert f"\n{name}  " in listed
    assert "written as a JSON string" in " ".join(listed.split())
