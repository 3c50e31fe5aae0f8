"""The reason given for invalid JSON reads as a whole sentence.

`patchcore.raw.codec.parse` takes the reason from the standard library's ``JSONDecodeError``,
whose ``msg`` is only the first half of its text for some errors: ``Unterminated string
starting at`` and ``Invalid control character at`` go on with ``: line 3 column 12 (char 40)``
in ``str(exc)``. Every message the decoder can produce (its C scanner and its pure-Python
one) is pinned here, with the place inside the sentence where the message needs one, counted
from the record's first line as the error's own line is.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
from collections.abc import Iterator

import pytest

from patchcore.errors import DecodeError
from patchcore.raw.codec import parse

#: Broken input → the whole reason, read from line 3 on (``first_line=3``).
CASES = [
    (b'[1,\n  "abc', "invalid JSON: unterminated string (it starts at line 4, column 3)"),
    (b'{"a": "b}', "invalid JSON: unterminated string (it starts at line 3, column 7)"),
    (
        b'["a\nb"]',
        "invalid JSON: control character U+000A inside a string, at line 3, column 4 "
        "(it must be written as \\n)",
    ),
    (
        b'["a\tb"]',
        "invalid JSON: control character U+0009 inside a string, at line 3, column 4 "
        "(it must be written as \\t)",
    ),
    (
        b'["\x01"]',
        "invalid JSON: control character U+0001 inside a string, at line 3, column 3 "
        "(it must be written as \\u0001)",
    ),
    (b'["a\\qb"]', "invalid JSON: invalid escape \\q in a string, at line 3, column 4"),
    (b'["\\\\\\q"]', "invalid JSON: invalid escape \\q in a string, at line 3, column 5"),
    (b'["\\u12"]', "invalid JSON: Invalid \\uXXXX escape"),
    (b'{"a" 1}', "invalid JSON: Expecting ':' delimiter"),
    (b"[1 2]", "invalid JSON: Expecting ',' delimiter"),
    (b'{"a": 1 "b": 2}', "invalid JSON: Expecting ',' delimiter"),
    (b"{1: 2}", "invalid JSON: Expecting property name enclosed in double quotes"),
    (b"[1,]", "invalid JSON: Expecting value"),
    (b"", "invalid JSON: Expecting value"),
    (b"1 2", "invalid JSON: Extra data"),
]


@pytest.fixture(params=["C scanner", "Python scanner"])
def scanner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each of the standard library's two decoders (their messages differ slightly)."""
    if request.param == "Python scanner":
        monkeypatch.setattr(json.scanner, "make_scanner", json.scanner.py_make_scanner)
        monkeypatch.setattr(json.decoder, "scanstring", json.decoder.py_scanstring)
    yield request.param


@pytest.mark.parametrize(("raw", "reason"), CASES, ids=[reason for _, reason in CASES])
def test_every_json_error_reads_as_a_whole_sentence(raw: bytes, reason: str, scanner: str) -> None:
    with pytest.raises(DecodeError) as caught:
        parse(raw, first_line=3)
    assert caught.value.reason == reason
    assert not caught.value.reason.endswith((" at", " starting")), "cut off mid-sentence"


def test_the_unterminated_string_is_located_where_it_starts() -> None:
    """The error's own place and the place in its sentence agree."""
    with pytest.raises(DecodeError) as caught:
        parse(b'[\n  "ok",\n  "cut', first_line=1)
    assert (caught.value.line, caught.value.column) == (3, 3)
    assert caught.value.reason.endswith("(it starts at line 3, column 3)")
