"""A report's one long array written an item at a time (`StreamedArray`, docs/cli.md#reports:
reports stream) is, byte for byte, the text of the whole document: the JSON and SARIF golden
files pin the common case, this the rest (an empty array, nested values, strings with line
breaks and control characters, an array at any depth of the document)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolpatch.cli.machine_reports.records import StreamedArray, json_text

#: JSON values, their strings any text (line breaks, C0 and C1 controls, lone surrogates).
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


def placed(depth: int, array: Any, before: Any, after: Any) -> Any:
    """A document with ``array`` ``depth`` levels down, after ``before`` and before ``after``."""
    document = array
    for level in range(depth):
        document = (
            {"before": before, "level": level, "items": document, "after": after}
            if level % 2
            else [before, document]
        )
    return document


@given(st.lists(values, max_size=4), st.integers(0, 3), values, values)
def test_the_streamed_text_is_the_whole_documents(
    items: list[Any], depth: int, before: Any, after: Any
) -> None:
    array = StreamedArray(placed(depth, [StreamedArray.PLACE], before, after))
    streamed = array.head()
    for index, item in enumerate(items):
        streamed += array.item(item, first=index == 0)
    streamed += array.tail(empty=not items)
    assert streamed == json_text(placed(depth, items, before, after), indent=2)
