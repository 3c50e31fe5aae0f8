"""``toolpatch explain`` (docs/cli.md#explain): which providers refuse each history of a file,
with their words, and which still would after ``fix``."""

from __future__ import annotations

from tests.helpers import SAMPLES, run

MISTRAL = SAMPLES / "providers" / "mistral-ids-from-openai.json"


def test_explain_names_the_provider_that_refuses_and_the_one_that_takes() -> None:
    out = run(["explain", str(MISTRAL)], expect=0).stdout.decode()
    assert "/messages (openai-chat)" in out
    assert "mistral: refuses it (taken after fix)" in out
    assert "Tool call id was call_tZ2xq81 but must be a-z, A-Z, 0-9, with a length of 9." in out
    assert "openai: takes it" in out


def test_explain_says_what_fix_cannot_cure() -> None:
    out = run(["explain", str(SAMPLES / "providers" / "anthropic-prefill.json")], expect=0)
    assert "anthropic: refuses it (still refused after fix)" in out.stdout.decode()


def test_explain_quotes_each_empty_error_result_and_says_fix_cures_them() -> None:
    sample = SAMPLES / "providers" / "anthropic-empty-error-result.json"
    out = run(["explain", str(sample)], expect=0).stdout.decode()
    assert "anthropic: refuses it (taken after fix)" in out
    for block in (0, 1):
        error = f"messages.2.content.{block}.tool_result: content cannot be empty if `is_error`"
        assert f"{error} is true" in out


def test_explain_reads_stdin_and_refuses_what_is_not_json() -> None:
    out = run(["explain", "-"], input=MISTRAL.read_bytes(), expect=0).stdout.decode()
    assert "mistral: refuses it" in out
    assert "toolpatch: -:" in run(["explain", "-"], input=b"not json", expect=2).stderr
