"""OpenAI's legacy functions (docs/formats.md#legacy-function_call): one ``function_call`` an
assistant message, no ids, answered by the ``{"role": "function", "name"}`` message right after it.

The samples (``openai-chat/legacy-function-call.json``, ``strict/openai-chat/
legacy-function-strict.json``) and the ToolBench corpus file show whole histories; these pin
the pairing rules one at a time.
"""

from __future__ import annotations

from typing import Any

import pytest

import patchcore
from tests.helpers import TP002_TEXT

USER = {"role": "user", "content": "Go on."}


def calling(name: str | None, arguments: Any = "{}") -> dict[str, Any]:
    call = {"arguments": arguments} if name is None else {"name": name, "arguments": arguments}
    return {"role": "assistant", "content": None, "function_call": call}


def reply(name: str | None) -> dict[str, Any]:
    return {"role": "function", "content": "ok"} | ({} if name is None else {"name": name})


@pytest.mark.parametrize(
    ("call_name", "reply_name"),
    [("f", "f"), ("f", None), (None, "f"), (None, None)],
)
def test_the_function_message_right_after_answers_the_call(
    call_name: str | None, reply_name: str | None
) -> None:
    """The names must match only where both have one."""
    history = [USER, calling(call_name), reply(reply_name), USER]
    assert not patchcore.check_messages(history, options=patchcore.make_options(select=["ALL"]))


def test_a_function_message_of_another_name_answers_nothing() -> None:
    history = [USER, calling("f"), reply("g"), USER]
    findings = patchcore.check_messages(history, options=patchcore.make_options(select=["ALL"]))
    assert [(f.code, f.message_index) for f in findings] == [("TP001", 1), ("TP101", 2)]
    assert findings[1].message == "tool result for 'g' (no id) answers no earlier call"


def test_a_function_message_later_than_right_after_answers_nothing() -> None:
    history = [USER, calling("f"), USER, reply("f")]
    findings = patchcore.check_messages(history, options=patchcore.make_options(select=["ALL"]))
    assert [(f.code, f.message_index) for f in findings] == [("TP001", 1), ("TP101", 3)]


def test_a_null_function_call_is_no_call() -> None:
    """SDK dumps write ``function_call: null`` beside ``tool_calls``
    (docs/formats.md#openai-chat)."""
    dump = {"role": "assistant", "content": "Hi.", "function_call": None, "tool_calls": None}
    assert not patchcore.check_messages(
        [USER, dump], options=patchcore.make_options(select=["ALL"])
    )


def test_a_pending_legacy_call_gets_a_function_message_without_an_id() -> None:
    fixed = patchcore.fix_messages([USER, calling("Finish")])
    assert fixed.value[-1] == {
        "role": "function",
        "name": "Finish",
        "content": TP002_TEXT.replace(" with id {id}", "").replace("{name}", "Finish"),
    }
    (finding,) = fixed.findings
    assert (finding.call_id, finding.pointer, finding.provider_error) == (
        None,
        (1, "function_call"),
        None,
    )


def test_malformed_legacy_arguments_are_tp003() -> None:
    (finding,) = patchcore.check_messages([USER, calling("f", '{"a": '), USER])
    assert finding.code == "TP003"


def test_a_legacy_call_that_is_not_an_object_is_a_shape_error() -> None:
    broken = {"role": "assistant", "content": None, "function_call": "f"}
    with pytest.raises(patchcore.ShapeError):
        patchcore.check_messages([USER, broken])
