"""`patchcore.format_pointer`: RFC 6901, each part's ``~`` and ``/`` escaped (``~0``, ``~1``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from patchcore import format_pointer

PARTS = st.one_of(st.integers(0, 10**6), st.text(alphabet="ab/~0 1é", max_size=5))


@given(pointer=st.lists(PARTS, max_size=6).map(tuple))
def test_each_part_is_escaped_and_prefixed(pointer: tuple[str | int, ...]) -> None:
    expected = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in pointer)
    assert format_pointer(pointer) == expected


def test_the_record_itself_and_parts_to_escape() -> None:
    assert format_pointer(()) == ""
    assert format_pointer(("",)) == "/"
    assert format_pointer(("a/b", "m~n", 0)) == "/a~1b/m~0n/0"
