"""Byte-level fidelity: locating values in raw JSON, splicing inserts into it, reading bytes in.

Pins docs/pairing.md#fidelity at the library level:

* `patchcore.raw.splice` finds the exact bytes of a value along a pointer (nested documents,
  strings holding quotes and brackets, duplicate keys resolved to the last one as parsers do,
  Unicode keys, ``NaN``, big integers);
* `patchcore.raw.splice.splice` only *adds* bytes, written in the file's own style: a document made
  by ``json.dumps`` (2/4-space or tab indent, compact or default separators, CRLF, ASCII escapes
  or raw UTF-8) stays exactly what ``json.dumps`` gives for the edited value, and an insertion
  at the end of a list changes nothing but a comma on the line before;
* `patchcore.engine.apply.apply_edits` edits parsed values without mutating them;
* `patchcore.raw.codec.decode` keeps the BOM, chooses JSON vs JSON Lines framing, and locates every
  read error by 1-based line and column.
"""

from __future__ import annotations

import copy
import difflib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patchcore.engine.apply import apply_edits
from patchcore.errors import DecodeError
from patchcore.model import Insert, Pointer, Replace
from patchcore.raw.codec import UTF8_BOM, Framing, Locator, decode, line_and_column
from patchcore.raw.splice import Spans, _scan_elements, _scan_members, splice

# --------------------------------------------------------------------------------------------
# helpers


def text_at(buf: bytes, pointer: Pointer) -> bytes:
    """The raw bytes of the value at ``pointer``."""
    return Spans(buf).raw(pointer)


def elements(buf: bytes, pointer: Pointer) -> list[bytes]:
    """The raw bytes of each element of the array at ``pointer``."""
    return [buf[a:b] for a, b in Spans(buf).elements(pointer)]


def inserted_bytes(old: bytes, new: bytes) -> bytes:
    """Check ``new`` is ``old`` with bytes inserted at one place, and return what was inserted."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    rest = len(old) - prefix
    assert new[len(new) - rest :] == old[prefix:], (
        "splice changed bytes outside the insertion:\n"
        + "".join(difflib.unified_diff(_lines(old), _lines(new)))
    )
    return new[prefix : len(new) - rest]


def is_pure_insertion(old: bytes, new: bytes) -> bool:
    """Whether ``old`` is a subsequence of ``new`` made of whole runs (checked loosely)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return all(tag in ("equal", "insert") for tag, *_ in matcher.get_opcodes())


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def inserted(value: Any, pointer: Pointer, index: int, new: list[Any]) -> Any:
    """``value`` with ``new`` inserted at ``index`` of the array at ``pointer`` (deep copy)."""
    result = copy.deepcopy(value)
    node = result
    for part in pointer:
        node = node[part]
    node[index:index] = new
    return result


# --------------------------------------------------------------------------------------------
# spans (`Spans`, in patchcore/raw/splice.py)

NESTED = b"""{
  "a": {"b": [10, {"c": "x"}, [1, [2, 3]]]},
  "list": [ 1 ,\t2 ,
     "three" , {"four": 4} ],
  "empty": [],
  "tail": true
}"""


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ((), NESTED),
        (("a",), b'{"b": [10, {"c": "x"}, [1, [2, 3]]]}'),
        (("a", "b"), b'[10, {"c": "x"}, [1, [2, 3]]]'),
        (("a", "b", 0), b"10"),
        (("a", "b", 1, "c"), b'"x"'),
        (("a", "b", 2, 1, 1), b"3"),
        (("list", 2), b'"three"'),
        (("list", 3), b'{"four": 4}'),
        (("empty",), b"[]"),
        (("tail",), b"true"),
    ],
)
def test_value_start_on_nested_document(pointer: Pointer, expected: bytes) -> None:
    assert text_at(NESTED, pointer) == expected


def test_array_span_of_spaced_array() -> None:
    assert elements(NESTED, ("list",)) == [b"1", b"2", b'"three"', b'{"four": 4}']
    start, end = Spans(NESTED).span(("list",))
    assert NESTED[start:end].startswith(b"[ 1 ,")
    assert NESTED[end - 1 : end] == b"]"
    assert elements(NESTED, ("empty",)) == []


@pytest.mark.parametrize(
    "pointer", [("a",), ("a", "b"), ("a", "b", 1), ("a", "b", 2), ("a", "b", 2, 1), ("list",)]
)
def test_fast_split_and_scanner_agree(pointer: Pointer) -> None:
    """msgspec's split and the pure Python scanner (its fallback) find the same spans."""
    spans = Spans(NESTED)
    start, _ = spans.span(pointer)
    if NESTED[start : start + 1] == b"[":
        assert spans.elements(pointer) == _scan_elements(NESTED, start)
    else:
        assert spans.members(pointer) == _scan_members(NESTED, start)


def test_duplicate_keys_fall_back_to_the_scanner_and_follow_the_last() -> None:
    buf = b'{"m": [1], "x": 0, "m": [{"y": 2}, 3]}'
    assert text_at(buf, ("m",)) == b'[{"y": 2}, 3]'
    assert elements(buf, ("m",)) == [b'{"y": 2}', b"3"]


def test_strings_with_quotes_and_brackets() -> None:
    buf = (
        rb'{"k\"ey]": "va]l\"}", "msgs": ["x]", {"y": "[{"}, "\\", "a\\\"[", 3, '
        rb'"}\"]{\\"], "after": [1]}'
    )
    parsed = json.loads(buf)
    assert text_at(buf, ('k"ey]',)) == rb'"va]l\"}"'
    got = elements(buf, ("msgs",))
    assert [json.loads(e) for e in got] == parsed["msgs"]
    assert got == [rb'"x]"', rb'{"y": "[{"}', rb'"\\"', rb'"a\\\"["', b"3", rb'"}\"]{\\"']
    assert text_at(buf, ("after",)) == b"[1]"


def test_duplicate_keys_follow_the_last_one() -> None:
    buf = b'{"m": [1], "x": 0, "m": [2, 3], "n": {"m": [9]}}'
    assert json.loads(buf)["m"] == [2, 3]
    assert text_at(buf, ("m",)) == b"[2, 3]"
    assert elements(buf, ("m",)) == [b"2", b"3"]
    assert text_at(buf, ("n", "m")) == b"[9]"


def _scanned(buf: bytes, key: str) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """The span of member ``key`` of the object ``buf`` (its last occurrence) and its elements'
    spans, as the pure Python scanner finds them."""
    member = [m for m in _scan_members(buf, buf.index(b"{")) if m.key == key][-1]
    return (member.value_start, member.end), _scan_elements(buf, member.value_start)


@pytest.mark.parametrize(
    "buf",
    [
        # a record's list, found in one pass: its first element's bytes are placed where they
        # occur once
        b'{"id": 1, "messages": [{"role": "user"}, {"role": "assistant"}], "x": 2}',
        b'{"messages" :\n  [\n    {"a": 1},\n    {"b": 2}\n  ]\n}',
        b'{"messages": [ {"a": 1} ,{"b": 2},   {"c": 3} ]}',  # irregular: walked
        # the first element's bytes also occur elsewhere: the members are split instead
        b'{"x": {"a": 1}, "messages": [{"a": 1}, 2]}',
        b'{"messages": [{"a": 1}, {"a": 1}, 3]}',
        b'{"messages": [1, 2, 11]}',
        # a duplicated key is the last one, also where the two lists start alike or are equal
        b'{"messages": [{"a": 1}, 2], "messages": [{"a": 1}, 3]}',
        b'{"messages": [{"a": 1}, 2], "messages": [{"a": 1}, 2]}',
        b'{"messages": [{"z": 0}, 2], "y": 0, "messages": [{"a": 1}, 3]}',
        # one element, no element, not a list
        b'{"messages": [{"a": 1}]}',
        b'{"messages": []}',
        b'{"messages": {"a": [1, 2]}, "b": [1, 2]}',
    ],
)
def test_a_members_list_found_in_one_pass_is_where_the_scanner_finds_it(buf: bytes) -> None:
    expected_span, expected_elements = _scanned(buf, "messages")
    if buf[expected_span[0] : expected_span[0] + 1] != b"[":
        with pytest.raises(KeyError):
            Spans(buf).elements(("messages", 0))
        return
    spans = Spans(buf)
    assert spans.elements(("messages",)) == expected_elements
    assert spans.span(("messages",)) == expected_span


@pytest.mark.parametrize(
    ("buf", "key"),
    [
        ('{"ключ": [1, 2], "x": 0}'.encode(), "ключ"),
        (b'{"\\u043a\\u043b\\u044e\\u0447": [1, 2], "x": 0}', "ключ"),
        ('{"emoji 😀": [1, 2]}'.encode(), "emoji 😀"),
        (b'{"\\ud83d\\ude00": [1, 2]}', "😀"),
        (b'{"a/b~c": [1, 2]}', "a/b~c"),
        (b'{"": [1, 2]}', ""),
    ],
)
def test_unicode_and_escaped_keys(buf: bytes, key: str) -> None:
    assert key in json.loads(buf)
    assert elements(buf, (key,)) == [b"1", b"2"]


def test_nan_infinity_and_big_numbers_are_scalars() -> None:
    buf = b"[NaN, -Infinity, Infinity, 123456789012345678901234567890, 1e2, -0.0, 1E-7, null]"
    assert elements(buf, ()) == [
        b"NaN",
        b"-Infinity",
        b"Infinity",
        b"123456789012345678901234567890",
        b"1e2",
        b"-0.0",
        b"1E-7",
        b"null",
    ]


def test_big_integer_keys_are_stepped_over() -> None:
    buf = b'{"n": 123456789012345678901234567890, "v": NaN, "messages": [{"x": 1e2}]}'
    assert text_at(buf, ("messages", 0, "x")) == b"1e2"


@pytest.mark.parametrize(
    "pointer",
    [("missing",), ("list", 9), ("list", -1), ("a", 0), ("list", "key"), ("tail", "x")],
)
def test_value_start_raises_key_error_for_bad_pointers(pointer: Pointer) -> None:
    with pytest.raises(KeyError):
        Spans(NESTED).span(pointer)


@pytest.mark.parametrize(
    ("buf", "offset", "expected"),
    [
        (b"abc", 0, (1, 1)),
        (b"abc", 2, (1, 3)),
        (b"a\nbc", 2, (2, 1)),
        (b"a\r\nbc", 4, (2, 2)),
        ("é\nxéy".encode(), len("é\nxé".encode()), (2, 3)),
    ],
)
def test_line_and_column_are_one_based_characters(
    buf: bytes, offset: int, expected: tuple[int, int]
) -> None:
    assert line_and_column(buf, offset) == expected


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60),
    offsets=st.lists(st.integers(min_value=0, max_value=60), max_size=5),
)
def test_ascii_places_are_counted_as_decoded_ones(text: str, offsets: list[int]) -> None:
    """Where the caller knows a buffer is ASCII, a column is a count of bytes: the same places
    as decoding the line finds, in any order of offsets."""
    buf = text.encode("ascii")
    offsets = [min(offset, len(buf)) for offset in offsets]
    ascii_only, decoded = Locator(buf, ascii_only=True), Locator(buf)
    assert [ascii_only.at(o) for o in offsets] == [decoded.at(o) for o in offsets]


# --------------------------------------------------------------------------------------------
# splice: output equals json.dumps of the edited value

DOC: dict[str, Any] = {
    "thread": "t-1",
    "messages": [
        {"role": "user", "content": "What is on my calendar?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_events", "arguments": "{}"},
                }
            ],
        },
        {"role": "user", "content": "Never mind."},
    ],
    "meta": {"n": 1, "tags": ["a", "b"]},
}

TOOL_MESSAGE: dict[str, Any] = {
    "role": "tool",
    "tool_call_id": "c1",
    "content": "Tool call get_events with id c1 was cancelled.",
    "extra": {"nested": [1, {"deep": None}], "empty": {}, "none": []},
}

STYLES: dict[str, dict[str, Any]] = {
    "indent-2": {"indent": 2},
    "indent-4": {"indent": 4},
    "indent-tab": {"indent": "\t"},
    "indent-2-compact-colon": {"indent": 2, "separators": (",", ":")},
    "compact": {"separators": (",", ":")},
    "default-one-line": {},
}


def dumps(value: Any, **kwargs: Any) -> bytes:
    return json.dumps(value, **kwargs).encode("utf-8")


@pytest.mark.parametrize("index", [0, 1, 2, 3])
@pytest.mark.parametrize("style", list(STYLES))
def test_insert_matches_json_dumps(style: str, index: int) -> None:
    kwargs = STYLES[style]
    buf = dumps(DOC, **kwargs)
    new = splice(buf, [Insert(("messages",), index, (TOOL_MESSAGE,))])
    expected = dumps(inserted(DOC, ("messages",), index, [TOOL_MESSAGE]), **kwargs)
    assert new.decode() == expected.decode()
    inserted_bytes(buf, new)


@pytest.mark.parametrize("style", list(STYLES))
def test_several_values_at_one_place_and_at_two_places(style: str) -> None:
    kwargs = STYLES[style]
    buf = dumps(DOC, **kwargs)
    second = {"role": "tool", "tool_call_id": "c2", "content": "two"}
    edits = [
        Insert(("messages",), 2, (TOOL_MESSAGE,)),
        Insert(("messages",), 2, (second,)),
        Insert(("messages",), 3, ({"role": "user", "content": "end"},)),
    ]
    new = splice(buf, edits)
    expected_value = inserted(DOC, ("messages",), 3, [{"role": "user", "content": "end"}])
    expected_value = inserted(expected_value, ("messages",), 2, [TOOL_MESSAGE, second])
    assert new.decode() == dumps(expected_value, **kwargs).decode()
    assert is_pure_insertion(buf, new)


@pytest.mark.parametrize("style", ["indent-2", "indent-4", "indent-tab", "compact"])
def test_crlf_pretty_file_keeps_crlf(style: str) -> None:
    kwargs = STYLES[style]
    buf = dumps(DOC, **kwargs).replace(b"\n", b"\r\n")
    new = splice(buf, [Insert(("messages",), 2, (TOOL_MESSAGE,))])
    expected = dumps(inserted(DOC, ("messages",), 2, [TOOL_MESSAGE]), **kwargs)
    assert new == expected.replace(b"\n", b"\r\n")
    assert b"\n" not in new.replace(b"\r\n", b"")


@pytest.mark.parametrize("style", ["indent-2", "indent-4", "indent-tab", "compact"])
def test_cr_only_pretty_file_keeps_its_layout(style: str) -> None:
    """Old Mac line endings (a lone CR): the insertion is laid out as its neighbours are, on
    lines of its own, not on one line (docs/pairing.md#fidelity)."""
    kwargs = STYLES[style]
    buf = dumps(DOC, **kwargs).replace(b"\n", b"\r")
    new = splice(buf, [Insert(("messages",), 2, (TOOL_MESSAGE,))])
    expected = dumps(inserted(DOC, ("messages",), 2, [TOOL_MESSAGE]), **kwargs)
    assert new == expected.replace(b"\n", b"\r")


UNICODE_DOC: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Café ☕ naïve"}, {"role": "user", "content": "ok"}]
}
UNICODE_VALUE = {"role": "tool", "tool_call_id": "c1", "content": "Résumé — 😀"}


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_ensure_ascii_is_followed(indent: int | None, ensure_ascii: bool) -> None:
    buf = dumps(UNICODE_DOC, indent=indent, ensure_ascii=ensure_ascii)
    assert buf.isascii() is ensure_ascii
    new = splice(buf, [Insert(("messages",), 1, (UNICODE_VALUE,))])
    expected_value = inserted(UNICODE_DOC, ("messages",), 1, [UNICODE_VALUE])
    assert new == dumps(expected_value, indent=indent, ensure_ascii=ensure_ascii)
    if ensure_ascii:
        assert b"\\u00e9" in new and new.isascii()
    else:
        assert "Résumé — 😀".encode() in new


def test_ascii_file_without_any_escape_gets_escapes() -> None:
    buf = dumps({"messages": [{"role": "user", "content": "plain"}]}, indent=2)
    new = splice(buf, [Insert(("messages",), 1, ({"content": "é"},))])
    assert new.isascii()
    assert b'"\\u00e9"' in new


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_insert_at_end_of_list_only_adds_a_comma_to_the_previous_line(
    indent: int | str,
) -> None:
    buf = dumps(DOC, indent=indent)
    new = splice(buf, [Insert(("messages",), 3, (TOOL_MESSAGE,))])
    old_lines, new_lines = _lines(buf), _lines(new)
    last_element_end = Spans(buf).elements(("messages",))[-1][1]
    k = buf.count(b"\n", 0, last_element_end)
    previous = old_lines[k]
    margin = previous[: len(previous) - len(previous.lstrip())]
    rendered = margin + json.dumps(TOOL_MESSAGE, indent=indent).replace("\n", "\n" + margin)
    expected = [
        *old_lines[:k],
        previous.rstrip("\n") + ",\n",
        *(rendered + "\n").splitlines(keepends=True),
        *old_lines[k + 1 :],
    ]
    assert new_lines == expected
    removed = [
        line
        for line in difflib.unified_diff(old_lines, new_lines, n=0)
        if line.startswith("-") and not line.startswith("---")
    ]
    assert removed in ([], ["-" + previous]), f"unexpected removals: {removed}"


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_insert_in_the_middle_only_adds_lines(indent: int | str) -> None:
    buf = dumps(DOC, indent=indent)
    new = splice(buf, [Insert(("messages",), 2, (TOOL_MESSAGE,))])
    diff = list(difflib.ndiff(_lines(buf), _lines(new)))
    assert not [line for line in diff if line.startswith("- ")]
    added = [line for line in diff if line.startswith("+ ")]
    assert len(added) == len(json.dumps(TOOL_MESSAGE, indent=indent).splitlines())


@pytest.mark.parametrize("style", list(STYLES))
def test_nested_inserts_into_an_array_and_its_parent(style: str) -> None:
    kwargs = STYLES[style]
    buf = dumps(DOC, **kwargs)
    new_call = {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    edits = [
        Insert(("messages",), 2, (TOOL_MESSAGE,)),
        Insert(("messages", 1, "tool_calls"), 1, (new_call,)),
        Insert(("meta", "tags"), 0, ("z",)),
    ]
    expected_value = inserted(DOC, ("messages", 1, "tool_calls"), 1, [new_call])
    expected_value = inserted(expected_value, ("messages",), 2, [TOOL_MESSAGE])
    expected_value = inserted(expected_value, ("meta", "tags"), 0, ["z"])

    new = splice(buf, edits)
    assert new.decode() == dumps(expected_value, **kwargs).decode()
    assert is_pure_insertion(buf, new)
    # edits at different places may come in any order
    assert splice(buf, list(reversed(edits))) == new

    value = copy.deepcopy(DOC)
    assert apply_edits(value, edits) == expected_value
    assert value == DOC


@pytest.mark.parametrize(
    ("buf", "expected"),
    [
        (b"[]", b'[{"a": 1}]'),
        (b"[1]", b"[1, 2]"),
        (b"[1,2]", b"[1,2,3]"),
        (b'{"m": [ ]}', b'{"m": [{"a": 1} ]}'),
    ],
)
def test_small_arrays(buf: bytes, expected: bytes) -> None:
    pointer: Pointer = ("m",) if buf.startswith(b"{") else ()
    count = len(Spans(buf).elements(pointer))
    value: Any = {"a": 1} if not count else count + 1
    new = splice(buf, [Insert(pointer, count, (value,))])
    assert json.loads(new) == json.loads(expected)
    assert is_pure_insertion(buf, new)


# values nobody touched keep their exact bytes
FIDELITY_DOC = (
    b'{"z_first": 123456789012345678901234567890, "a_second": 1e2, "nan": NaN,\n'
    b' "inf": -Infinity, "escaped": "caf\\u00e9", "raw": "caf\xc3\xa9", "float": 1.50,\n'
    b' "neg_zero": -0, "slash": "a\\/b", "unknown": {"keep": [true, false, null]},\n'
    b' "messages": [\n'
    b'  {"role": "user", "content": "x", "n": 1E+2, "big": -99999999999999999999999},\n'
    b'  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1"}], "x": 1.0e-3}\n'
    b" ]}\n"
)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_untouched_values_keep_their_bytes(index: int) -> None:
    new = splice(FIDELITY_DOC, [Insert(("messages",), index, (UNICODE_VALUE,))])
    chunk = inserted_bytes(FIDELITY_DOC, new)
    # the file has raw non-ASCII text, so the new text is written raw too
    assert "Résumé — 😀".encode() in chunk
    for token in (
        b"123456789012345678901234567890",
        b"1e2",
        b"NaN",
        b"-Infinity",
        b'"caf\\u00e9"',
        b'"caf\xc3\xa9"',
        b"1.50",
        b"-0,",
        b'"a\\/b"',
        b"1E+2",
        b"-99999999999999999999999",
        b"1.0e-3",
    ):
        assert new.count(token) == FIDELITY_DOC.count(token), token
    keys = [b'"z_first"', b'"a_second"', b'"nan"', b'"escaped"', b'"raw"', b'"messages"']
    positions = [new.index(k) for k in keys]
    assert positions == sorted(positions), "key order changed"
    assert json.loads(new)["messages"][index] == UNICODE_VALUE


def test_apply_edits_never_mutates_and_shares_untouched_values() -> None:
    value = copy.deepcopy(DOC)
    snapshot = copy.deepcopy(value)
    edits = [
        Insert(("messages",), 3, (TOOL_MESSAGE,)),
        Insert(("messages", 1, "tool_calls"), 0, ({"id": "c0"},)),
    ]
    result = apply_edits(value, edits)
    assert value == snapshot
    assert result is not value
    assert result["messages"] is not value["messages"]
    assert result["messages"][0] is value["messages"][0]
    assert result["meta"] is value["meta"]
    assert result["messages"][1]["tool_calls"][0] == {"id": "c0"}
    assert result["messages"][3] == TOOL_MESSAGE
    assert apply_edits(value, []) == snapshot


def test_apply_edits_keeps_order_of_several_inserts_at_one_index() -> None:
    value = [1, 2, 3]
    result = apply_edits(
        value, [Insert((), 1, ("a", "b")), Insert((), 1, ("c",)), Insert((), 3, ("z",))]
    )
    assert result == [1, "a", "b", "c", 2, 3, "z"]
    assert value == [1, 2, 3]


# --------------------------------------------------------------------------------------------
# Replace of a member the object lacks: the member is added after the object's last member

RECORD: dict[str, Any] = {
    "messages": [
        {
            "id": "m1",
            "type": "gemini",
            "content": "Je regarde le caf\u00e9.",
            "toolCalls": [
                {"id": "c1", "name": "run", "args": {"cmd": "ls"}, "status": "executing"},
                {"only": 1},
            ],
        }
    ]
}
CALL: Pointer = ("messages", 0, "toolCalls", 0)
RESULT = [{"functionResponse": {"id": "c1", "name": "run", "response": {"error": "late"}}}]


def with_members(value: Any, pointer: Pointer, members: dict[str, Any]) -> Any:
    """``value`` with ``members`` set on the object at ``pointer`` (deep copy)."""
    result = copy.deepcopy(value)
    node = result
    for part in pointer:
        node = node[part]
    node.update(members)
    return result


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("style", list(STYLES))
def test_new_members_match_json_dumps(style: str, ensure_ascii: bool) -> None:
    kwargs = {**STYLES[style], "ensure_ascii": ensure_ascii}
    buf = dumps(RECORD, **kwargs)
    edits = [
        Replace((*CALL, "result"), RESULT),
        Replace((*CALL, "status"), "error"),
        Replace((*CALL, "resultDisplay"), "late \u00e9t\u00e9"),
        Replace(("messages", 0, "toolCalls", 1, "result"), None),
    ]
    new = splice(buf, edits)
    expected = with_members(
        RECORD, CALL, {"result": RESULT, "status": "error", "resultDisplay": "late \u00e9t\u00e9"}
    )
    expected = with_members(expected, ("messages", 0, "toolCalls", 1), {"result": None})
    assert new.decode() == dumps(expected, **kwargs).decode()
    assert apply_edits(RECORD, edits) == expected
    assert list(apply_edits(RECORD, edits)["messages"][0]["toolCalls"][0]) == [
        "id",
        "name",
        "args",
        "status",
        "result",
        "resultDisplay",
    ]


def test_member_of_an_empty_object_goes_on_its_line() -> None:
    buf = b'{\n  "calls": [\n    {}\n  ]\n}\n'
    new = splice(buf, [Replace(("calls", 0, "result"), [1])])
    assert new == b'{\n  "calls": [\n    {"result": [1]}\n  ]\n}\n'


def test_new_member_only_adds_lines_and_a_comma() -> None:
    buf = dumps(RECORD, indent=2)
    new = splice(buf, [Replace((*CALL, "result"), RESULT)])
    changed = [
        line for line in difflib.ndiff(_lines(buf), _lines(new)) if line.startswith(("-", "+"))
    ]
    status = " " * 10 + '"status": "executing"'
    assert changed[:2] == [f"- {status}\n", f"+ {status},\n"]
    assert all(line.startswith("+") for line in changed[2:])
    assert json.loads(new)["messages"][0]["toolCalls"][0]["result"] == RESULT


# --------------------------------------------------------------------------------------------
# splice property: any json.dumps document, any array, any position


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)


def _array_pointers(value: Any, pointer: Pointer = ()) -> list[Pointer]:
    found: list[Pointer] = []
    if isinstance(value, list):
        found.append(pointer)
        for k, child in enumerate(value):
            found += _array_pointers(child, (*pointer, k))
    elif isinstance(value, dict):
        for key, child in value.items():
            found += _array_pointers(child, (*pointer, key))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    doc=st.lists(json_values, min_size=1, max_size=4).map(lambda items: {"root": items}),
    new=st.lists(json_values, min_size=1, max_size=2),
    style=st.sampled_from(list(STYLES)),
    ensure_ascii=st.booleans(),
    data=st.data(),
)
def test_splice_property(
    doc: dict[str, Any], new: list[Any], style: str, ensure_ascii: bool, data: st.DataObject
) -> None:
    buf = dumps(doc, ensure_ascii=ensure_ascii, **STYLES[style])
    pointer = data.draw(st.sampled_from(_array_pointers(doc)))
    node: Any = doc
    for part in pointer:
        node = node[part]
    index = data.draw(st.integers(min_value=0, max_value=len(node)))

    out = splice(buf, [Insert(pointer, index, tuple(new))])

    assert json.loads(out) == inserted(doc, pointer, index, new)
    inserted_bytes(buf, out)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    before=st.dictionaries(st.text(max_size=3), json_values, max_size=3),
    listed=st.lists(json_values, max_size=5),
    after=st.dictionaries(st.text(max_size=3), json_values, max_size=3),
    style=st.sampled_from(list(STYLES)),
    ensure_ascii=st.booleans(),
)
def test_a_members_list_is_found_where_the_scanner_finds_it_property(
    before: dict[str, Any],
    listed: list[Any],
    after: dict[str, Any],
    style: str,
    ensure_ascii: bool,
) -> None:
    """Any other members, before and after, with any values (the list's own among them, or
    its first element): the one-pass split places the list where the scanner does."""
    doc = {**before, "k": listed, **{key: v for key, v in after.items() if key != "k"}}
    buf = dumps(doc, ensure_ascii=ensure_ascii, **STYLES[style])
    expected_span, expected_elements = _scanned(buf, "k")
    spans = Spans(buf)
    assert spans.elements(("k",)) == expected_elements
    assert spans.span(("k",)) == expected_span


# --------------------------------------------------------------------------------------------
# codec.decode

MESSAGE_LINES = [
    {"role": "user", "content": "a"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
    {"role": "user", "content": "b"},
]
COMPACT_LINES = b"".join(dumps(m) + b"\n" for m in MESSAGE_LINES)


def test_bom_is_kept() -> None:
    body = dumps(MESSAGE_LINES, indent=2)
    decoded = decode(UTF8_BOM + body)
    assert decoded.bom == UTF8_BOM
    assert decoded.framing is Framing.JSON
    assert decoded.records[0].parse() == MESSAGE_LINES
    assert decoded.join(decoded.lines) == UTF8_BOM + body


def test_bom_is_kept_for_json_lines() -> None:
    decoded = decode(UTF8_BOM + COMPACT_LINES)
    assert decoded.bom == UTF8_BOM
    assert decoded.framing is Framing.JSONL
    assert [r.parse() for r in decoded.records] == MESSAGE_LINES
    assert decoded.join(decoded.lines) == UTF8_BOM + COMPACT_LINES


def test_no_bom() -> None:
    assert decode(COMPACT_LINES).bom == b""


@pytest.mark.parametrize(
    ("data", "filename", "framing"),
    [
        pytest.param(dumps(MESSAGE_LINES, indent=2), None, Framing.JSON, id="pretty"),
        pytest.param(dumps(MESSAGE_LINES, indent=2), "h.json", Framing.JSON, id="pretty-json"),
        pytest.param(dumps(MESSAGE_LINES), None, Framing.JSON, id="one-line-doc"),
        pytest.param(dumps(MESSAGE_LINES) + b"\n\n", None, Framing.JSON, id="one-line-blanks"),
        pytest.param(dumps(MESSAGE_LINES[0]), "h.jsonl", Framing.JSONL, id="one-line-jsonl"),
        pytest.param(dumps(MESSAGE_LINES[0]), "H.JSONL", Framing.JSONL, id="upper-case-suffix"),
        pytest.param(dumps(MESSAGE_LINES[0]), "h.ndjson", Framing.JSONL, id="ndjson"),
        pytest.param(COMPACT_LINES, None, Framing.JSONL, id="compact-lines"),
        pytest.param(COMPACT_LINES, "h.json", Framing.JSONL, id="compact-lines-named-json"),
        pytest.param(COMPACT_LINES.replace(b"\n", b"\r\n"), None, Framing.JSONL, id="compact-crlf"),
        pytest.param(
            b"\n" + COMPACT_LINES.replace(b"\n", b"\n\n"), None, Framing.JSONL, id="blank-lines"
        ),
        pytest.param(
            b'{"role": "user", "content": "a", "x": NaN}\n' + COMPACT_LINES,
            None,
            Framing.JSONL,
            id="nan-in-first-line",
        ),
        pytest.param(
            b'{"role": "user", "content": "\\ud800"}\n' + COMPACT_LINES,
            None,
            Framing.JSONL,
            id="lone-surrogate-in-first-line",
        ),
        pytest.param(
            b'{"n": 123456789012345678901234567890}\n' + COMPACT_LINES,
            None,
            Framing.JSONL,
            id="big-int-in-first-line",
        ),
    ],
)
def test_framing(data: bytes, filename: str | None, framing: Framing) -> None:
    decoded = decode(data, filename=filename)
    assert decoded.framing is framing
    assert decoded.join(decoded.lines) == data


def test_json_lines_records_keep_line_numbers_and_line_ends() -> None:
    data = b'{"a": 1}\r\n\r\n{"b": 2}\n\n\n{"c": 3}'
    decoded = decode(data)
    assert decoded.framing is Framing.JSONL
    assert [(r.line, r.index, r.parse()) for r in decoded.records] == [
        (1, 0, {"a": 1}),
        (3, 2, {"b": 2}),
        (6, 5, {"c": 3}),
    ]
    assert decoded.records[0].raw == b'{"a": 1}\r'
    assert decoded.records[2].raw == b'{"c": 3}'
    assert decoded.join(decoded.lines) == data


def test_document_keeps_exotic_values_readable() -> None:
    data = b'{"messages": [], "n": 123456789012345678901234567890, "x": NaN, "e": 1e2}'
    value = decode(data).records[0].parse()
    assert value["n"] == 123456789012345678901234567890
    assert value["x"] != value["x"]


@pytest.mark.parametrize(
    ("data", "filename", "line", "column"),
    [
        pytest.param(b'[\n  {"a": 1},\n  {"b": ', None, 3, 9, id="truncated-json"),
        pytest.param(b'[{"a": 1}', None, 1, 10, id="truncated-one-line"),
        pytest.param(
            b'{"a": 1}\n{"b": 2}\n{"role": oops}\n{"c": 3}\n', None, 3, 10, id="jsonl-third-line"
        ),
        pytest.param(
            b'{"a": 1}\n\n{"b": 2}\n{"c": \n', "x.jsonl", 4, 7, id="jsonl-truncated-fourth-line"
        ),
        pytest.param(b'[\n  {"a": "\xff"}\n]', None, 2, 10, id="invalid-utf8"),
        pytest.param(
            b'{"a": 1}\n{"b": "caf\xc3\xa9 \xff"}\n',
            "x.jsonl",
            2,
            13,
            id="invalid-utf8-jsonl-counts-characters",
        ),
        pytest.param(b"", None, 1, 1, id="empty"),
        pytest.param(b" \n\t\r\n ", None, 1, 1, id="whitespace"),
        pytest.param(UTF8_BOM, None, 1, 1, id="bom-only"),
        pytest.param(b"\xff\xfe[\x00]\x00", None, 1, 1, id="utf16-le-bom"),
        pytest.param(b"\xfe\xff\x00[\x00]", None, 1, 1, id="utf16-be-bom"),
        pytest.param(b"nope", None, 1, 1, id="not-json"),
    ],
)
def test_decode_errors_are_located(
    data: bytes, filename: str | None, line: int, column: int
) -> None:
    with pytest.raises(DecodeError) as caught:
        for record in decode(data, filename=filename).records:  # records parse when read
            record.parse()
    error = caught.value
    assert (error.line, error.column) == (line, column), error.located()
    assert error.located().startswith(f"{line}:{column}: ")
