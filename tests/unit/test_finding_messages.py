"""``finding_messages`` (`patchcore.Options`): the messages of the conversations with findings
are kept, as ``with_messages`` keeps them, and no others; the findings are the same as without
it. What the HTML report draws (docs/cli.md#html-report) without holding a clean corpus.
"""

from __future__ import annotations

import json

import pytest

import patchcore
from tests.conftest import SAMPLES
from tests.sample_cases import file_samples

#: Every input sample (not an expected output), whatever its layout.
INPUTS = [
    p
    for p in file_samples("*.json*")
    if not any(part in p.name for part in (".fixed.", ".unsafe.", ".drop."))
]


def _lines(findings: int) -> bytes:
    """A corpus of one conversation per line, every other one with an unanswered call."""
    records = []
    for n in range(2 * findings):
        call = {"id": f"call_{n}", "type": "function", "function": {"name": "f", "arguments": ""}}
        messages: list[object] = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ]
        if n % 2:
            messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": "ok"})
        records.append(json.dumps({"messages": messages}))
    return "\n".join(records).encode() + b"\n"


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_messages_kept_where_there_are_findings(path):
    data = path.read_bytes()
    plain = patchcore.check_document(data, filename=path.name)
    every = patchcore.check_document(
        data, filename=path.name, options=patchcore.make_options(with_messages=True)
    )
    found = patchcore.check_document(
        data, filename=path.name, options=patchcore.make_options(finding_messages=True)
    )
    assert found.findings == plain.findings
    for kept, whole in zip(found.conversations, every.conversations, strict=True):
        if kept.findings:
            assert (kept.messages, kept.context, kept.edits) == (
                whole.messages,
                whole.context,
                whole.edits,
            )
        else:
            assert kept.messages is None


def test_quick_lane_records_with_findings_keep_their_messages():
    """Records the quick lane reads (OpenAI Chat lines): the clean ones stay unread, the ones
    with an unanswered call are read whole for their messages."""
    data = _lines(3)
    options = patchcore.make_options(finding_messages=True)
    assert options.quick
    result = patchcore.check_document(data, filename="c.jsonl", options=options)
    assert len(result.findings) == 3
    with_findings = [c for c in result.conversations if c.findings]
    assert len(with_findings) == 3
    assert all(c.messages is not None and len(c.messages) == 2 for c in with_findings)
    assert all(c.messages is None for c in result.conversations if not c.findings)
