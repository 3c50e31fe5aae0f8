"""A parallel run's results cross from the worker processes to the main one whole.

`patchcore.fast_fields` sends the result types as their constructors and fields (faster than
a slotted dataclass's default); what arrives must be what was sent, every field of it, and the
findings a result shares with its conversations must still be shared: the main process maps
one to the other by identity when it moves a batch's findings to the input's own lines
(`patchcore.pipeline`). `Finding.placed` and `Conversation.moved` are `dataclasses.replace` of
the fields they change, faster.
"""

from __future__ import annotations

import dataclasses
import pickle

import patchcore
from patchcore.model import Delete, Finding, Fix, Insert, Replace, Verbatim
from patchcore.result import Conversation, LineCount, Result
from patchcore.rules import Applicability

FINDING = Finding(
    code="TP001",
    rule="dangling-tool-call",
    message="m",
    dialect="openai-chat",
    list_pointer=("messages",),
    message_index=3,
    message_path=("messages", 3),
    call_path=("tool_calls", 0),
    call_id="c1",
    tool_name="t",
    fix=Fix(
        Applicability.UNSAFE,
        "d",
        (
            Insert(("messages",), 4, ({"role": "tool"},)),
            Delete(("messages", 1)),
            Replace(("messages", 2), Verbatim(("messages", 5))),
        ),
    ),
    provider_error="e",
    line=7,
    column=9,
    pending=True,
    held="h",
)


def _every_field_set(value: object) -> None:
    """No field of ``value`` is at its default: a field lost on the way would show."""
    for field in dataclasses.fields(value):  # type: ignore[arg-type]
        assert getattr(value, field.name) != field.default, field.name


def test_a_finding_arrives_with_every_field() -> None:
    _every_field_set(FINDING)
    arrived = pickle.loads(pickle.dumps(FINDING))
    assert arrived == FINDING
    assert [type(e) for e in arrived.fix.edits] == [Insert, Delete, Replace]


def test_a_result_arrives_whole_its_findings_shared_with_its_conversations() -> None:
    listed = Conversation("/messages", 4, "openai-chat", 9, "n", True, (FINDING,))
    result = Result(
        "jsonl",
        (listed,),
        (FINDING,),
        (FINDING,),
        (FINDING,),
        ((1, 2, b"x"),),
        b"out",
        12,
        (),
        True,
        5.0,
        LineCount(3, 1, 2),
        6,
    )
    arrived = pickle.loads(pickle.dumps(result))
    assert arrived == result
    assert arrived.conversations[0].findings[0] is arrived.findings[0] is arrived.fixed[0]


def test_a_real_batch_result_arrives_equal() -> None:
    line = (
        b'{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", '
        b'"content": null, "tool_calls": [{"id": "c1", "type": "function", "function": '
        b'{"name": "t", "arguments": "{}"}}]}, {"role": "user", "content": "and?"}]}\n'
    )
    batch = patchcore.Batch.of(line * 3)
    result = patchcore.process_batch(batch, options=patchcore.make_options(), fix=True)
    assert len(result.findings) == 3 and result.patches
    arrived = pickle.loads(pickle.dumps(result))
    assert arrived == result
    assert {id(f) for c in arrived.conversations for f in c.findings} == {
        id(f) for f in arrived.findings
    }


def test_placed_is_replace_of_the_place() -> None:
    assert FINDING.placed(1, 2) == dataclasses.replace(FINDING, line=1, column=2)
    assert FINDING.placed(None, None) == dataclasses.replace(FINDING, line=None, column=None)


def test_moved_is_replace_of_the_line_and_the_findings() -> None:
    listed = Conversation("/messages", 4, "openai-chat", 9, "n", True, (FINDING,))
    moved = FINDING.placed(17, 9)
    expected = dataclasses.replace(listed, line=14, findings=(moved,))
    assert listed.moved(10, {id(FINDING): moved}) == expected
