"""The AI SDK itself judges toolpatch's reading and repair of ``UIMessage`` and ``ModelMessage``
lists (docs/formats.md#vercel-ai-sdk-uimessage, docs/formats.md#vercel-ai-sdk-modelmessage).

The pinned npm package ``ai`` (tests/clients/ai-sdk, installed by `tests.npm_clients`) runs
``ai_sdk_judge.cjs`` beside this file: its ``validateUIMessages`` checks a UIMessage list and
``convertToModelMessages`` turns it into the model's history (its ``modelMessageSchema``
checks each ModelMessage of the other lists), and ``generateText`` (on the
SDK's mock model, no network) runs the SDK's own prompt check, which refuses a tool call
without a result (``MissingToolResultsError``). Every sample of both dialects is held to it,
found on
disk: what ``fix`` writes is accepted, with a result for every call it sends; an input with a
finding the fix answers is refused; an input whose findings have no fix (a part awaiting
approval) is refused as it is, and left so. The AI SDK 4 samples (``v4-*``), in shapes the
current SDK no longer reads, are judged by ``ai`` 4.3.19 (tests/clients/ai-sdk-4), whose
``convertToCoreMessages`` refuses an invocation without a result and whose ``CoreMessage``
schema checks the other lists (it has no check of its own for a call without a result: the
ids say it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.npm_clients import installed
from tests.sample_cases import SAMPLES

JUDGE = Path(__file__).with_name("ai_sdk_judge.cjs")
#: What the judge calls each dialect's lists.
KINDS = {"ai-sdk-ui": "ui", "ai-sdk-model": "model"}
#: The samples (inputs), AI SDK 5+ and AI SDK 4 (``v4-*``) alike.
SAMPLE_FILES = sorted(
    path
    for folder in KINDS
    for path in (SAMPLES / folder).glob("*.json")
    if path.suffixes[:1] not in ([".fixed"], [".drop"])
)


def client(path: Path) -> str:
    """The pinned SDK that judges a sample: AI SDK 4's for the ``v4-*`` ones."""
    return "ai-sdk-4" if path.name.startswith("v4-") else "ai-sdk"


def judge(kind: str, messages: list[Any], sdk: str = "ai-sdk") -> dict[str, Any]:
    """What the AI SDK (the pinned client ``sdk``) makes of a message list of ``kind`` (see
    ``ai_sdk_judge.cjs``)."""
    node = shutil.which("node")
    assert node is not None, "the AI SDK conformance tests need Node.js"
    run = subprocess.run(
        [node, str(JUDGE), str(installed(sdk))],
        input=json.dumps({"kind": kind, "messages": messages}),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    verdict: dict[str, Any] = json.loads(run.stdout)
    return verdict


def sdk_lists(data: bytes, filename: str) -> list[tuple[str, list[Any]]]:
    """The message lists toolpatch reads in ``data``, each with the judge's name of its kind."""
    report = patchcore.check_document(data, filename=filename)
    document = json.loads(data)
    lists = []
    for conversation in report.conversations:
        assert conversation.dialect in KINDS, conversation
        value = document
        for key in conversation.pointer.split("/")[1:]:
            value = value[int(key)] if isinstance(value, list) else value[key]
        lists.append((KINDS[conversation.dialect], value))
    assert lists, filename
    return lists


def accepted(verdict: dict[str, Any]) -> bool:
    """Whether the SDK takes the list and sends every call with its result."""
    return bool(verdict["valid"] and verdict["prompt"]) and set(verdict["calls"]) <= set(
        verdict["results"]
    )


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_the_sdk_accepts_what_fix_writes_and_refuses_what_it_repairs(path: Path) -> None:
    data = path.read_bytes()
    report = patchcore.fix_document(data, filename=path.name)
    repaired = report.output if report.output is not None else data
    for kind, messages in sdk_lists(repaired, path.name):
        verdict = judge(kind, messages, client(path))
        if report.remaining:  # what has no fix (an approval awaited) is refused as it is
            assert verdict["valid"], verdict
            assert not accepted(verdict), verdict
        else:
            assert accepted(verdict), verdict
    if report.fixed:
        verdicts = [judge(*listed, client(path)) for listed in sdk_lists(data, path.name)]
        assert not all(map(accepted, verdicts)), verdicts


def test_the_samples_cover_every_state_the_sdk_reads() -> None:
    """The UIMessage samples hold every state of a tool part, a dynamic tool and a provider's
    own call, so that the SDK judges each reading."""
    states, kinds, provider = set(), set(), False
    for path in SAMPLE_FILES:
        if path.name.startswith("v4-"):
            continue
        for _, messages in sdk_lists(path.read_bytes(), path.name):
            for message in messages:
                for part in message.get("parts", []):
                    if "toolCallId" in part:
                        states.add(part["state"])
                        kinds.add(part["type"] == "dynamic-tool")
                        provider |= part.get("providerExecuted") is True
    assert {"input-streaming", "input-available", "approval-requested", "output-available"} <= (
        states
    )
    assert {"output-error", "output-denied"} <= states
    assert kinds == {True, False}
    assert provider
