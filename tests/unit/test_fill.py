"""`patchcore.rules.fill`: one pass over a template, each ``{key}`` of the values replaced.

The reference is the regular expression it was written with: every ``{word}`` replaced by its
value when it has one, left as written when it has none, and a value never read again.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from patchcore.rules import fill

_PLACEHOLDER = re.compile(r"\{(\w+)\}")

TEXT = st.text(alphabet=st.sampled_from(list("ab {}_\\%0")) | st.characters(), max_size=30)
KEYS = st.sampled_from(["name", "id", "index", "next", "nme", "0", "__class__"])


@given(
    parts=st.lists(st.one_of(TEXT, KEYS.map(lambda k: "{" + k + "}")), max_size=8),
    values=st.dictionaries(KEYS, TEXT | KEYS.map(lambda k: "{" + k + "}"), max_size=4),
)
def test_fill_is_one_pass_of_the_placeholders(parts: list[str], values: dict[str, str]) -> None:
    template = "".join(parts)
    expected = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    assert fill(template, values) == expected
