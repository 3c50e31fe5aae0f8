"""TP302's fix (docs/rules.md#mistral-tool-call-id-tp302) over random ids: every id it leaves is
of Mistral's shape and distinct, and every call keeps its result."""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import patchcore

ids = st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=1, max_size=24)


@given(st.lists(ids, min_size=1, max_size=6, unique=True))
def test_tp302_fix_keeps_every_pair(call_ids: list[str]) -> None:
    """Whatever the ids, the fix leaves ids of Mistral's shape, each call with its result."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    history.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                for i in call_ids
            ],
        }
    )
    history += [{"role": "tool", "tool_call_id": i, "content": "ok"} for i in call_ids]
    options = patchcore.make_options(select=["ALL"], target="mistral", unsafe_fixes=True)
    fixed = patchcore.fix_document(json.dumps(history).encode(), options=options).output
    repaired = json.loads(fixed) if fixed is not None else history
    assert patchcore.check_document(json.dumps(repaired).encode(), options=options).findings == ()
    new = [c["id"] for c in repaired[1]["tool_calls"]]
    assert [m["tool_call_id"] for m in repaired[2:]] == new
    assert len(set(new)) == len(new)
