"""`patchcore.plan_fixes`: the repair ``fix`` writes, as patches owned by findings (what the
SARIF report gives as each result's fix), and `patchcore.raw.hunks`, the patches of a layout
that writes its repair line by line.

Over every shipped sample, with and without unsafe fixes: the patches, applied together, are
the expected repair of the sample's files (stated by hand, ``samples/``), every fixed finding
owns at least one of them and no other finding owns any.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import patchcore
from patchcore.fix_plan import attributed
from patchcore.raw.hunks import hunks
from patchcore.raw.splice import apply_patches
from tests.sample_cases import SAMPLES, Case, all_cases

CASES = [case for case in all_cases() if case.expected is not None or case.unsafe is not None]


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("case", CASES, ids=[case.path for case in CASES])
def test_the_patches_are_the_repair_and_each_fixed_finding_owns_some(
    case: Case, unsafe: bool
) -> None:
    data = (SAMPLES / case.path).read_bytes()
    options = case.options(unsafe_fixes=unsafe)
    plan = patchcore.plan_fixes(data, filename=case.path, options=options)
    expected = (case.unsafe if unsafe else None) or case.expected
    repaired = data if expected is None else expected.read_bytes()  # nothing safe to fix
    assert apply_patches(data, plan.patches) == repaired
    owned = {patch for patches in plan.owned.values() for patch in patches}
    assert owned == set(plan.patches), "every patch has an owner"
    result = patchcore.fix_document(data, filename=case.path, options=options)
    fixed = {id(finding) for finding in result.fixed}
    for finding in result.findings:
        assert bool(plan.of(finding)) == (id(finding) in fixed), finding.code


def test_nothing_to_fix_has_no_patches() -> None:
    data = (SAMPLES / "openai-chat" / "clean.json").read_bytes()
    plan = patchcore.plan_fixes(data, filename="clean.json", options=patchcore.make_options())
    assert plan.patches == () and not plan.owned


def test_one_insertion_two_calls_answer_is_both_findings() -> None:
    """Two calls of one message left open: one insertion (one edit) answers both, and both
    findings own it."""
    data = (SAMPLES / "gemini" / "rest-idless-parallel.json").read_bytes()
    options = patchcore.make_options()
    plan = patchcore.plan_fixes(data, filename="x.json", options=options)
    first, second = patchcore.fix_document(data, filename="x.json", options=options).fixed
    (patch,) = plan.patches
    assert plan.of(first) == plan.of(second) == (patch,)


def test_attribution_prefers_the_very_same_patch() -> None:
    """A fix owns the patch it makes alone; a merged patch is owned by every fix that meets
    it; a patch no fix meets is everybody's."""
    combined = [((0, 0, b"a"), (0, 0)), ((5, 9, b"bc"), (5, 9)), ((20, 20, b"z"), (20, 20))]
    alone = [
        [((0, 0, b"a"), (0, 0))],
        [((5, 7, b"b"), (5, 7))],
        [((9, 9, b"c"), (9, 9))],
    ]
    assert attributed(combined, alone) == [{0}, {1, 2}, {0, 1, 2}]


LINES = st.lists(
    st.sampled_from(["{}", '{"a": 1}', '{"a": "é😀"}', "  },", "", "x"]).map(
        lambda line: line.encode()
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, st.sampled_from([b"\n", b"\r\n"]), st.booleans())
def test_hunks_turn_old_into_new(
    old_lines: list[bytes], new_lines: list[bytes], eol: bytes, final: bool
) -> None:
    old = eol.join(old_lines) + (eol if final and old_lines else b"")
    new = eol.join(new_lines) + (eol if final and new_lines else b"")
    found = hunks(old, new)
    assert apply_patches(old, [patch for patch, _ in found]) == new
    ends = [0]
    for (start, end, text), (first, last) in found:
        assert ends[-1] <= start <= end, "sorted and disjoint"
        assert first <= start <= end <= last, "within its lines"
        ends.append(end)
        for at in (start, end):
            assert at == len(old) or not 0x80 <= old[at] < 0xC0, "a character is never cut"
            assert at == 0 or old[at - 1 : at + 1] != b"\r\n", "a CRLF is never cut"
        text.decode("utf-8")  # whole characters
