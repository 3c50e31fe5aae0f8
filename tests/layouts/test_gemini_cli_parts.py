"""Gemini CLI 0.61's own shape in a session document (docs/formats.md#gemini-cli-session-log):
calls as ``functionCall`` parts of a ``gemini`` message's ``content``, responses as ``user``
messages of ``functionResponse`` parts, a response recorded twice word for word read once."""

from __future__ import annotations

import json
from typing import Any

import patchcore
from tests.helpers import TP001_TEXT, text
from tests.provider_rules import gemini_cli
from tests.session_logs import gcli_call, gcli_message, gemini_cli_session, stringified

NAME = "session-2026-03-02T08-14-3f2b8c1e.json"
CALL_ID = "list_directory__list_directory_1772443212118_0"
ASK = gcli_message(120, "user", [{"text": "Which tests are in the project?"}])
CALL = {"functionCall": {"id": CALL_ID, "name": "list_directory", "args": {"dir_path": "tests"}}}
TURN = gcli_message(121, "gemini", [CALL])
NEXT = gcli_message(150, "user", [{"text": "Go on."}])


def response(output: str) -> dict[str, Any]:
    body = {"output": output}
    return {"functionResponse": {"id": CALL_ID, "name": "list_directory", "response": body}}


def codes(data: bytes) -> list[str]:
    return [f"{f.code} {f.call_id}" for f in patchcore.check_document(data, filename=NAME).findings]


def document(*messages: dict[str, Any]) -> bytes:
    return stringified([gemini_cli_session(list(messages))])


def test_a_call_in_content_is_answered_with_the_response_message_the_cli_records() -> None:
    data = document(ASK, TURN, NEXT)
    assert codes(data) == [f"TP001 {CALL_ID}"]
    fixed = patchcore.fix_document(data, filename=NAME).output
    assert fixed is not None
    messages = json.loads(fixed)["messages"]
    error = {"error": text(TP001_TEXT, "list_directory", CALL_ID)}
    assert messages[2] == {
        "id": f"{TURN['id']}_response",
        "timestamp": TURN["timestamp"],
        "type": "user",
        "content": [
            {"functionResponse": {"id": CALL_ID, "name": "list_directory", "response": error}}
        ],
    }
    assert messages[3] == NEXT
    assert codes(fixed) == []
    assert gemini_cli(json.loads(data)["messages"]) != []
    assert gemini_cli(messages) == []
    assert patchcore.fix_document(fixed, filename=NAME).output is None, "fixing twice adds none"
    assert patchcore.strip_document(fixed, filename=NAME).output == data


def test_a_call_in_content_is_repaired_through_its_entry_where_one_records_it() -> None:
    entry = gcli_call("list_directory", CALL_ID, {"dir_path": "tests"}, "executing")
    data = document(ASK, {**TURN, "toolCalls": [entry]}, NEXT)
    fixed = patchcore.fix_document(data, filename=NAME).output
    assert fixed is not None
    messages = json.loads(fixed)["messages"]
    assert len(messages) == 3
    assert messages[1]["toolCalls"][0]["result"][0]["functionResponse"]["response"] == {
        "error": text(TP001_TEXT, "list_directory", CALL_ID)
    }


def test_a_response_recorded_twice_word_for_word_is_one_response() -> None:
    answer = response("tests/test_cart.py")
    first = gcli_message(122, "user", [answer])
    again = {**first, "id": f"{TURN['id']}_response"}
    assert codes(document(ASK, TURN, again, first, NEXT)) == []


def test_a_second_response_that_differs_is_a_duplicate_result() -> None:
    first = gcli_message(122, "user", [response("tests/test_cart.py")])
    other = gcli_message(123, "user", [response("nothing")])
    assert codes(document(ASK, TURN, first, other, NEXT)) == [f"TP103 {CALL_ID}"]


def test_a_response_message_answers_an_entry_that_lost_its_result() -> None:
    entry = gcli_call("list_directory", CALL_ID, {"dir_path": "tests"}, "executing")
    turn = gcli_message(121, "gemini", "", toolCalls=[entry])
    answer = gcli_message(122, "user", [response("tests/test_cart.py")])
    assert codes(document(ASK, turn, answer, NEXT)) == []
    assert codes(document(ASK, turn, NEXT)) == [f"TP001 {CALL_ID}"]


def test_a_message_whose_id_is_no_string_does_not_stop_the_repair() -> None:
    odd = {**gcli_message(110, "info", "notice"), "id": []}
    data = document(odd, ASK, TURN, NEXT)
    fixed = patchcore.fix_document(data, filename=NAME).output
    assert fixed is not None
    assert json.loads(fixed)["messages"][3]["id"] == f"{TURN['id']}_response"
