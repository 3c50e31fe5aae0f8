"""Gemini's pairing by name and position, where calls carry no id.

A response answers the first call of its name that no response has answered yet, counted over
every turn that answers the same call turn; the fix must read its own output back the same way
(it re-checks it), so these cases pin what the synthetic responses look like and how they pair.
"""

from __future__ import annotations

from typing import Any

import orjson

import patchcore


def call(name: str | None, **args: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {"args": args}
    if name is not None:
        payload["name"] = name
    return {"functionCall": payload}


def response(name: str, output: str) -> dict[str, Any]:
    return {"functionResponse": {"name": name, "response": {"output": output}}}


def history(*turns: tuple[str, list[dict[str, Any]]]) -> bytes:
    return orjson.dumps({"contents": [{"role": role, "parts": parts} for role, parts in turns]})


def codes(data: bytes, **options: Any) -> list[tuple[str, tuple[str | int, ...]]]:
    found = patchcore.check_document(data, options=patchcore.make_options(**options))
    return [(f.code, f.message_path) for f in found.findings]


def test_a_nameless_call_gets_a_nameless_response_that_answers_it() -> None:
    """Found by the fuzzer: the synthetic response was named ``unknown`` and answered nothing,
    so the fix failed its own re-check."""
    data = history(("user", [{"text": "go"}]), ("model", [call(None)]))
    repaired = patchcore.fix_document(data)
    assert repaired.output is not None
    added = orjson.loads(repaired.output)["contents"][2]
    assert added["role"] == "user"
    assert list(added["parts"][0]["functionResponse"]) == ["response"]
    assert (
        patchcore.check_document(
            repaired.output, options=patchcore.make_options(select=["ALL"])
        ).findings
        == ()
    )


def test_a_response_in_a_later_turn_takes_the_first_open_call_of_its_name() -> None:
    """Three same-name calls, one response moved two turns down: it answers the first call, so
    the second and third dangle; after the safe fix the turn right after answers them by position
    and the moved response is the one out of place (found by the strict-rule properties: the
    fix's output used to re-read as still dangling)."""
    weather = [call("get_weather", n=n) for n in (1, 2, 3)]
    data = history(
        ("user", [{"text": "go"}]),
        ("model", weather),
        ("user", [{"text": "anything?"}]),
        ("model", [{"text": "waiting"}]),
        ("user", [response("get_weather", "11C"), {"text": "here"}]),
    )
    assert codes(data, select=["ALL"]) == [
        ("TP001", ("contents", 1)),
        ("TP001", ("contents", 1)),
        ("TP102", ("contents", 4)),
    ]
    repaired = patchcore.fix_document(data, options=patchcore.make_options(select=["ALL"]))
    assert repaired.output is not None
    assert [f.code for f in repaired.fixed] == ["TP001", "TP001"]
    assert codes(repaired.output, select=["ALL"]) == [("TP102", ("contents", 4))]


def test_a_second_response_for_an_answered_call_is_a_duplicate() -> None:
    data = history(
        ("model", [call("get_weather")]),
        ("user", [response("get_weather", "11C"), response("get_weather", "12C")]),
    )
    assert codes(data, select=["ALL"]) == [("TP103", ("contents", 1))]


def test_an_extra_response_never_answers_another_turns_call() -> None:
    """Found by the strict-rule properties: positional keys (name and position) were shared by
    every call turn, so a second response to the last turn's only call paired with the first
    turn's open call of that name, and the fix's output re-read as still dangling."""
    data = history(
        ("user", [response("get_weather", "stale"), {"text": "hi"}]),
        ("model", [call("get_weather", n=1), call("get_weather", n=2)]),
        ("model", [{"text": "thinking"}]),
        ("user", [{"text": "and?"}]),
        ("model", [call("get_weather", n=3)]),
        ("user", [response("get_weather", "11C"), response("get_weather", "12C")]),
    )
    assert codes(data, select=["ALL"]) == [
        ("TP101", ("contents", 0)),
        ("TP001", ("contents", 1)),
        ("TP001", ("contents", 1)),
        ("TP103", ("contents", 5)),
    ]
    messages = [
        f.message
        for f in patchcore.check_document(
            data, options=patchcore.make_options(select=["ALL"])
        ).findings
    ]
    assert messages[0] == "tool result for 'get_weather' (no id) answers no earlier call"
    repaired = patchcore.fix_document(data, options=patchcore.make_options(select=["ALL"]))
    assert repaired.output is not None
    assert codes(repaired.output, select=["ALL"]) == [
        ("TP101", ("contents", 0)),
        ("TP103", ("contents", 6)),
    ]
