"""Property of fine-tuning data (docs/cli.md#fine-tuning-data): whatever a fine-tuning file
holds (examples that end on their call, on parallel calls, or on an answer; calls left
unanswered inside an example), ``fix`` without ``fix_training_targets`` never changes a
training target, under any repair policy and with unsafe fixes: every example that ended on its
call still ends on that same message, nothing after it, and a line with nothing else to fix is
byte for byte what it was. With ``fix_training_targets`` every target is answered.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import patchcore
from tests.builders import fine_tuning_example

EXAMPLES = st.lists(
    st.tuples(st.booleans(), st.integers(1, 3), st.booleans()), min_size=1, max_size=12
)


def written(shapes: list[tuple[bool, int, bool]]) -> bytes:
    return b"".join(
        json.dumps(
            fine_tuning_example(n, ends_on_call=ends, parallel=parallel, unanswered_inside=inside)
        ).encode()
        + b"\n"
        for n, (ends, parallel, inside) in enumerate(shapes)
    )


@settings(max_examples=60, deadline=None)
@given(EXAMPLES, st.sampled_from(["answer", "drop"]), st.booleans())
def test_no_training_target_is_changed_without_asking(
    shapes: list[tuple[bool, int, bool]], repair: str, unsafe: bool
) -> None:
    data = written(shapes)
    options = patchcore.make_options(repair=repair, unsafe_fixes=unsafe, select=["ALL"])
    result = patchcore.fix_document(data, filename="train.jsonl", options=options)
    after = (result.output or data).splitlines()
    for before, now, (ends, _, inside) in zip(data.splitlines(), after, shapes, strict=True):
        if not ends:
            continue
        old, new = json.loads(before)["messages"], json.loads(now)["messages"]
        assert new[-1] == old[-1], "the target is still the last message, unchanged"
        if not inside:
            assert now == before
    targets = sum(parallel for ends, parallel, _ in shapes if ends)
    judged = patchcore.training_data(result)
    assert (judged.targets if judged else 0) == targets
    asked = patchcore.make_options(repair=repair, unsafe_fixes=True, fix_training_targets=True)
    fixed = patchcore.fix_document(data, filename="train.jsonl", options=asked)
    assert patchcore.training_data(fixed) is None
    assert fixed.remaining == ()
