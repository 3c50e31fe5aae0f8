"""``toolpatch strip`` and `patchcore.strip_document`: the results toolpatch wrote are found by
the templates (the default texts and the configured ones, filled in for their call) and the
format's error flag, and removed; nothing else is (docs/cli.md#strip)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import patchcore
from tests.conftest import SAMPLES

ANTHROPIC = b"""[
  {"role": "user", "content": "Weather?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
  ]},
  {"role": "user", "content": "Never mind."}
]
"""

TEMPLATE = "Tool {name} ({id}) was interrupted."


def test_a_fixed_file_strips_back_to_its_bytes() -> None:
    fixed = patchcore.fix_document(ANTHROPIC, filename="h.json").output
    assert fixed is not None
    stripped = patchcore.strip_document(fixed, filename="h.json")
    assert stripped.output == ANTHROPIC
    (finding,) = stripped.findings
    assert (finding.code, finding.call_id) == ("TP001", "toolu_1")
    assert "synthetic result toolpatch writes for TP001" in finding.message
    assert finding.fix is not None
    assert finding.fix.description == "remove the synthetic result toolpatch wrote"


def test_the_configured_template_is_matched_as_it_renders() -> None:
    options = patchcore.make_options(texts={"TP001": TEMPLATE})
    fixed = patchcore.fix_document(ANTHROPIC, filename="h.json", options=options).output
    assert fixed is not None and b"Tool get_weather (toolu_1) was interrupted." in fixed
    assert patchcore.strip_document(fixed, filename="h.json", options=options).output == ANTHROPIC
    # Without the configuration the text is no template toolpatch knows: the result stays.
    assert patchcore.strip_document(fixed, filename="h.json").output is None


def test_results_an_earlier_release_or_a_preset_wrote_are_stripped() -> None:
    """A result written with the ``deepagents`` preset's text, which toolpatch's first releases
    wrote by default, is toolpatch's whatever the texts in force now
    (docs/pairing.md#synthetic-results)."""
    preset = patchcore.make_options(texts="deepagents")
    fixed = patchcore.fix_document(ANTHROPIC, filename="h.json", options=preset).output
    assert fixed is not None and b"was cancelled - another message" in fixed
    assert patchcore.strip_document(fixed, filename="h.json").output == ANTHROPIC


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'"is_error": true', b'"is_error": false'),  # no error flag: a real result
        (b"get_weather with id toolu_1", b"get_time with id toolu_1"),  # another call's text
        (b"has no recorded result", b"has no recorded reslt"),  # not the template's words
        (b'"is_error": true', b'"is_error": true, "cache_control": {"type": "ephemeral"}'),
    ],
)
def test_a_result_that_is_not_exactly_toolpatchs_stays(old: bytes, new: bytes) -> None:
    fixed = patchcore.fix_document(ANTHROPIC, filename="h.json").output
    assert fixed is not None and old in fixed
    changed = fixed.replace(old, new)
    assert patchcore.strip_document(changed, filename="h.json").output is None


def test_a_template_whose_placeholders_hold_regex_or_braces_is_matched_literally() -> None:
    data = ANTHROPIC.replace(b"get_weather", b"get.*{id}")
    options = patchcore.make_options(texts={"TP001": "({name}) [{id}] +*?"})
    fixed = patchcore.fix_document(data, filename="h.json", options=options).output
    assert fixed is not None
    assert patchcore.strip_document(fixed, filename="h.json", options=options).output == data


def test_a_session_entry_is_stripped_only_with_the_uuid_fix_derives() -> None:
    """A Claude Code line holding the very result fix writes, but under another uuid, was not
    written by toolpatch: it is reported and kept."""
    original = (SAMPLES / "claude-code" / "sidechain.jsonl").read_bytes()
    fixed = (SAMPLES / "claude-code" / "sidechain.fixed.jsonl").read_bytes()
    assert patchcore.strip_document(fixed, filename="s.jsonl").output == original
    added = [line for line in fixed.splitlines() if b'"is_error":true' in line]
    (line,) = added
    new_uuid = line.split(b',"uuid":"')[1].split(b'"')[0]
    assert new_uuid not in original
    other = fixed.replace(new_uuid, b"0b5c6a1e-4f8d-4d7e-9a2b-3c1d5e7f9a0b")
    result = patchcore.strip_document(other, filename="s.jsonl")
    assert result.output is None
    (finding,) = result.findings
    assert finding.fix is None


def test_a_live_session_log_is_stripped_too() -> None:
    """The live-session guard holds back made-up answers to calls a running agent may still
    answer (docs/cli.md#live-sessions); what strip removes is toolpatch's own result, which
    the guard is not about: a log written to moments ago is stripped as any other."""
    original = (SAMPLES / "claude-code" / "sidechain.jsonl").read_bytes()
    fixed = (SAMPLES / "claude-code" / "sidechain.fixed.jsonl").read_bytes()
    options = replace(patchcore.make_options(), live=True)
    stripped = patchcore.strip_document(fixed, filename="s.jsonl", options=options)
    assert stripped.output == original
    assert all(f.fix is not None for f in stripped.findings)
