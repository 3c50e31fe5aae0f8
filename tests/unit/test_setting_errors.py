"""A refused setting of `patchcore.make_options` is a `patchcore.SettingError` that names the
setting and its problem as fields (docs/architecture.md#results-and-errors): a caller that names
the setting its own way (a configuration key, a command-line option) reads them, never the
message."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import patchcore


@pytest.mark.parametrize(
    ("given", "setting", "problem"),
    [
        ({"select": ["TP9"]}, "select", "'TP9' matches no rule (see `toolpatch rules`)"),
        ({"ignore": ["XX"]}, "ignore", "'XX' matches no rule (see `toolpatch rules`)"),
        ({"texts": "nope"}, "texts", "'nope' is not a preset of texts (known: 'deepagents')"),
        ({"texts": {"TP001": " "}}, "texts", "the template for TP001 is empty"),
        ({"texts": {"TP101": "x"}}, "texts", "'TP101' is not a rule with a synthetic text"),
        ({"texts": {"TP001": "{nope}"}}, "texts", "the template for TP001 has"),
        ({"repair": "remove"}, "repair", "'remove' is not a repair policy (known: 'answer'"),
        ({"dialect": "klingon"}, "dialect", "unknown dialect 'klingon'"),
        ({"target": "groq"}, "target", "'groq' is not a provider (known: anthropic"),
    ],
)
def test_a_refused_setting_names_itself_and_its_problem(
    given: dict[str, Any], setting: str, problem: str
) -> None:
    with pytest.raises(patchcore.SettingError) as caught:
        patchcore.make_options(**given)
    error = caught.value
    assert error.setting == setting
    assert error.problem.startswith(problem), error.problem
    # the message is as it was: the setting's name first, but for a dialect's own wording
    named = setting != "dialect"
    assert error.reason == (f"{setting}: {error.problem}" if named else error.problem)
    assert str(error) == error.reason
    restored = pickle.loads(pickle.dumps(error))  # raised in a worker, read in the parent
    assert (restored.setting, restored.problem) == (setting, error.problem)
    assert str(restored) == str(error)


def test_a_rule_looked_up_by_name_names_no_setting() -> None:
    with pytest.raises(patchcore.UnknownRuleError) as caught:
        patchcore.rule_named("danglin")
    assert caught.value.setting is None
    assert caught.value.problem == caught.value.reason
