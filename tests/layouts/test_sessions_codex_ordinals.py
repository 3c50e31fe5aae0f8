"""Codex rollouts whose lines are numbered (``ordinal``, Codex CLI 0.171): a new last line is
numbered on, one in the middle is not, and the line types of that release are events
(docs/formats.md#codex)."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from tests.builders import found
from tests.session_logs import codex_item, codex_user, compact_jsonl, exec_call, rollout

NAME = "rollout.jsonl"


def numbered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` as Codex 0.171 writes them: ``ordinal`` after ``timestamp``, from 0."""
    return [
        {"timestamp": r["timestamp"], "ordinal": k, **{x: r[x] for x in r if x != "timestamp"}}
        for k, r in enumerate(records)
    ]


META = rollout(0, "session_meta", {"id": "01a25057-0156", "cwd": "/home/ana/shop"})
SETTINGS = rollout(1, "world_state", {"full": True, "state": {"agents_md": {}}})
USAGE = rollout(3, "token_usage_record", {"thread_id": "01a25057-0156", "usage": {}})


def test_a_new_last_line_is_numbered_on() -> None:
    """Codex refuses to resume a rollout whose last line has no ordinal."""
    records = numbered(
        [
            META,
            SETTINGS,
            *codex_user(2, "List files."),
            USAGE,
            codex_item(4, exec_call("call_Ls", "ls")),
        ]
    )
    data = compact_jsonl(records)
    report = patchcore.fix_document(data, filename=NAME)
    assert found(report.findings) == [("TP002", "call_Ls")]
    assert [r.note for r in report.conversations if r.warning] == []
    assert report.output is not None
    new = json.loads(report.output.splitlines()[-1])
    assert list(new)[:3] == ["timestamp", "ordinal", "type"]
    assert new["ordinal"] == 6


def test_a_new_line_in_the_middle_takes_no_number() -> None:
    records = numbered(
        [
            META,
            *codex_user(1, "List files."),
            codex_item(2, exec_call("call_Ls", "ls")),
            *codex_user(3, "Never mind."),
        ]
    )
    report = patchcore.fix_document(compact_jsonl(records), filename=NAME)
    assert found(report.findings) == [("TP001", "call_Ls")]
    assert report.output is not None
    new = json.loads(report.output.splitlines()[4])
    assert "ordinal" not in new
    assert [json.loads(line).get("ordinal") for line in report.output.splitlines()] == [
        0,
        1,
        2,
        3,
        None,
        4,
        5,
    ]
