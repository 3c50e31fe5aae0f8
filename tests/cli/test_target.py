"""``--target PROVIDER`` and the ``target`` setting (docs/cli.md#target): the provider rules
(TP3xx) of the targeted provider apply, the command line wins over the configuration, and a
name that is no provider is a usage or configuration error."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.builders import toolpatch_toml
from tests.helpers import SAMPLES, run

MISTRAL = SAMPLES / "providers" / "mistral-ids-from-openai.json"


def copied(tmp_path: Path) -> Path:
    """The Mistral sample in a folder of its own, where a configuration may sit beside it."""
    target = tmp_path / MISTRAL.name
    shutil.copyfile(MISTRAL, target)
    return target


def test_the_configured_target_applies_its_rules(tmp_path: Path) -> None:
    history = copied(tmp_path)
    run(["check", str(history)], cwd=tmp_path, expect=0)
    toolpatch_toml(tmp_path, 'target = "mistral"\n')
    checked = run(["check", str(history)], cwd=tmp_path, expect=1)
    assert "TP302" in checked.said


def test_the_command_line_target_wins(tmp_path: Path) -> None:
    history = copied(tmp_path)
    toolpatch_toml(tmp_path, 'target = "mistral"\n')
    run(["check", "--target", "openai", str(history)], cwd=tmp_path, expect=0)


def test_a_target_that_is_no_provider_is_refused(tmp_path: Path) -> None:
    history = copied(tmp_path)
    refused = run(["check", "--target", "mistrall", str(history)], expect=2)
    assert "--target" in refused.stderr
    assert "known: anthropic, gemini, mistral, openai" in refused.stderr
    toolpatch_toml(tmp_path, 'target = "nobody"\n')
    configured = run(["check", str(history)], cwd=tmp_path, expect=2)
    assert "target" in configured.stderr


def test_select_all_without_a_target_applies_no_provider_rule() -> None:
    checked = run(["check", "--select", "ALL", str(MISTRAL)], expect=0)
    assert "TP3" not in checked.stderr
