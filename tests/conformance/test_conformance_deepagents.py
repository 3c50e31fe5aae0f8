"""Conformance with the real deepagents ``PatchToolCallsMiddleware``.

docs/pairing.md#no-global-set-of-answered-ids promises that on LangChain lists without reused ids or
results placed before their call, toolpatch inserts the ToolMessages the deepagents middleware
inserts: one per unanswered call, same ids and names, same neighbours. This file pins that promise
against the installed middleware (not a copy of it), on random histories restricted to exactly that
domain:

* every call id and every result id is fresh (no reuse, no duplicates, no ``None`` or ``""``);
* a result never comes before its call (it may come later, after an intervening message);
* orphan results carry an id that no call ever uses.

toolpatch runs twice on each history: on the ``BaseMessage`` list (``fix_base_messages``) and on
its ``messages_to_dict`` JSON file (``fix_document``). Both runs use deepagents' texts through
``texts=`` so that the synthetic messages can be compared field by field.

deepagents puts its ToolMessages right after the AI message, toolpatch after the call's existing
results; both are inside the AI message's *result block* (the run of ToolMessages that follows
it), where providers need them. So each result block is compared as a multiset and everything
outside blocks exactly.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    messages_from_dict,
    messages_to_dict,
)

import patchcore
from tests.helpers import canonical, split_inserted
from tests.langchain_builders import (
    AI_TYPES,
    CONFORMANCE,
    DEEPAGENTS_CANCELLED,
    DEEPAGENTS_MALFORMED,
    TEXTS,
    deepagents_patch,
    histories,
    tool_fields,
)

# --- generation -------------------------------------------------------------------------------


# --- comparison helpers -----------------------------------------------------------------------


def as_dicts(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The ``messages_to_dict`` form of ``messages``."""
    return messages_to_dict(list(messages))


def layout(messages: Sequence[dict[str, Any]]) -> list[tuple[str, object]]:
    """Messages as a sequence of single messages and result blocks (multisets).

    A result block is the maximal run of ToolMessages right after an AI message; its order is
    not compared. Every other message is compared in place.
    """
    out: list[tuple[str, object]] = []
    position = 0
    while position < len(messages):
        message = messages[position]
        out.append(("message", canonical(message)))
        position += 1
        if message["type"] in AI_TYPES:
            block = []
            while position < len(messages) and messages[position]["type"] == "tool":
                block.append(canonical(messages[position]))
                position += 1
            out.append(("block", sorted(block)))
    return out


def inserted_by_deepagents(
    patched: Sequence[BaseMessage], original: Sequence[BaseMessage]
) -> list[BaseMessage]:
    """The messages deepagents added (it keeps the original objects)."""
    known = {id(m) for m in original}
    return [m for m in patched if id(m) not in known]


# --- tests ------------------------------------------------------------------------------------


def test_copied_texts_are_the_installed_middlewares() -> None:
    history: list[BaseMessage] = [
        AIMessage(
            content="",
            tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
            invalid_tool_calls=[{"name": None, "args": "{", "id": "c2", "error": None}],
        ),
        HumanMessage(content="next"),
    ]
    patched = deepagents_patch(history)
    assert patched is not None, "deepagents left a dangling call alone"
    contents = [m.content for m in inserted_by_deepagents(patched, history)]
    assert contents == [
        DEEPAGENTS_CANCELLED.format(name="f", id="c1"),
        DEEPAGENTS_MALFORMED.format(name="unknown", id="c2"),
    ], "the texts copied into this test no longer match the installed deepagents"


@CONFORMANCE
@given(histories())
def test_base_messages_insert_what_deepagents_inserts(history: list[BaseMessage]) -> None:
    before = as_dicts(history)
    objects_before = list(history)

    expected = deepagents_patch(history)
    repair = patchcore.fix_base_messages(history, options=patchcore.make_options(texts=TEXTS))

    assert history == objects_before and all(
        a is b for a, b in zip(history, objects_before, strict=True)
    ), "fix_base_messages changed the input list"
    assert as_dicts(history) == before, "fix_base_messages mutated an input message"

    if expected is None:
        assert not repair.changed, f"deepagents changes nothing, toolpatch fixed {repair.fixed}"
        assert repair.value == history
        return
    assert repair.changed, "deepagents patches this history, toolpatch changes nothing"

    originals = {id(m) for m in history}
    kept = [m for m in repair.value if id(m) in originals]
    assert len(kept) == len(history) and all(a is b for a, b in zip(kept, history, strict=True)), (
        "the original message objects are not all kept, in order"
    )
    ours = [m for m in repair.value if id(m) not in originals]
    theirs = inserted_by_deepagents(expected, history)
    assert Counter(map(tool_fields, ours)) == Counter(map(tool_fields, theirs)), (
        "inserted ToolMessages differ from deepagents'"
    )
    assert len(ours) == len(repair.fixed), "one inserted message per fixed finding"
    assert layout(as_dicts(repair.value)) == layout(as_dicts(expected)), (
        "an inserted ToolMessage is not in the result block deepagents puts it in"
    )


@CONFORMANCE
@given(histories())
def test_message_files_insert_what_deepagents_inserts(history: list[BaseMessage]) -> None:
    before = as_dicts(history)
    document = json.dumps(before).encode()

    expected = deepagents_patch(history)
    report = patchcore.fix_document(document, options=patchcore.make_options(texts=TEXTS))

    assert as_dicts(history) == before, "deepagents or toolpatch mutated an input message"
    if expected is None:
        assert report.output is None, f"deepagents changes nothing, toolpatch fixed {report.fixed}"
        # deepagents looks at calls only: a result whose call is not in the history is
        # toolpatch's TP004 (docs/rules.md#unread-tool-call-tp004), which it reports, not fixes
        dangling = [f for f in report.findings if f.code != "TP004"]
        assert not dangling, f"deepagents sees no dangling call, toolpatch finds {report}"
        return
    assert report.output is not None, "deepagents patches this history, toolpatch changes nothing"

    output = json.loads(report.output)
    ours = split_inserted(output, before)
    loaded = messages_from_dict(ours)
    theirs = inserted_by_deepagents(expected, history)
    assert Counter(map(tool_fields, loaded)) == Counter(map(tool_fields, theirs)), (
        "inserted ToolMessages differ from deepagents'"
    )
    assert [canonical(m) for m in ours] == [canonical(m) for m in as_dicts(loaded)], (
        "an inserted message does not round-trip through langchain-core unchanged"
    )
    assert len(ours) == len(report.fixed), "one inserted message per fixed finding"
    assert layout(output) == layout(as_dicts(expected)), (
        "an inserted ToolMessage is not in the result block deepagents puts it in"
    )
    # The whole repaired file still loads with langchain-core.
    assert len(messages_from_dict(output)) == len(output)
