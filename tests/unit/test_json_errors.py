"""The reason given for invalid JSON reads as a whole sentence.

`patchcore.raw.codec.parse` takes the reason from the standard library's ``JSONDecodeError``,
whose ``msg`` is only the first half of its text for some errors: ``Unterminated string
starting at`` and ``Invalid control character at`` go on with ``: line 3 column 12 (char 40)``
in ``str(exc)``. Every message the decoder can produce (its C scanner and its pure-Python
one) is pinned here, with its place: the error's line and column (counted from the record's
first line), never numbers inside the sentence, which a streamed input could not move to
where the record sits.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from collections.abc import Iterator

import pytest

from patchcore.errors import DecodeError
from patchcore.raw.codec import parse

#: Broken input → the whole reason, and its line and column when read from line 3 on.
CASES = [
    (b'[1,\n  "abc', "invalid JSON: unterminated string (its closing quote is missing)", 4, 3),
    (b'{"a": "b}', "invalid JSON: unterminated string (its closing quote is missing)", 3, 7),
    (
        b'["a\nb"]',
        "invalid JSON: control character U+000A inside a string (it must be written \\n)",
        3,
        4,
    ),
    (
        b'["a\tb"]',
        "invalid JSON: control character U+0009 inside a string (it must be written \\t)",
        3,
        4,
    ),
    (
        b'["\x01"]',
        "invalid JSON: control character U+0001 inside a string (it must be written \\u0001)",
        3,
        3,
    ),
    (b'["a\\qb"]', "invalid JSON: invalid escape \\q in a string", 3, 4),
    (b'["\\\\\\q"]', "invalid JSON: invalid escape \\q in a string", 3, 5),
    (b'["\\u12"]', "invalid JSON: Invalid \\uXXXX escape", 3, 4),
    (b'{"a" 1}', "invalid JSON: Expecting ':' delimiter", 3, 6),
    (b"[1 2]", "invalid JSON: Expecting ',' delimiter", 3, 4),
    (b'{"a": 1 "b": 2}', "invalid JSON: Expecting ',' delimiter", 3, 9),
    (b"{1: 2}", "invalid JSON: Expecting property name enclosed in double quotes", 3, 2),
    (b"[1,]", "invalid JSON: Expecting value", 3, 4),
    (b"", "invalid JSON: Expecting value", 3, 1),
    (b"1 2", "invalid JSON: Extra data", 3, 3),
]


@pytest.fixture(params=["C scanner", "Python scanner"])
def scanner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each of the standard library's two decoders (their messages differ slightly)."""
    if request.param == "Python scanner":
        monkeypatch.setattr(json.scanner, "make_scanner", json.scanner.py_make_scanner)
        monkeypatch.setattr(json.decoder, "scanstring", json.decoder.py_scanstring)
    yield request.param


@pytest.mark.parametrize(
    ("raw", "reason", "line", "column"), CASES, ids=[case[1] for case in CASES]
)
def test_every_json_error_reads_as_a_whole_sentence(
    raw: bytes, reason: str, line: int, column: int, scanner: str
) -> None:
    with pytest.raises(DecodeError) as caught:
        parse(raw, first_line=3)
    assert caught.value.reason == reason
    assert (caught.value.line, caught.value.column) == (line, column)
    assert not caught.value.reason.endswith((" at", " starting")), "cut off mid-sentence"


def test_the_unterminated_string_is_located_where_it_starts() -> None:
    with pytest.raises(DecodeError) as caught:
        parse(b'[\n  "ok",\n  "cut', first_line=1)
    assert caught.value.located() == (
        "3:3: invalid JSON: unterminated string (its closing quote is missing)"
    )
