"""The provider rules (TP3xx, docs/rules.md) over the real corpus: without a target a run finds
what it found before there were provider rules (none of them), and TP302's fix, which rewrites
ids in calls and results, never changes what pairing finds (every call keeps its result)."""

from __future__ import annotations

from pathlib import Path

import patchcore

#: The rules of every provider.
PROVIDER_CODES = sorted(code for code, rule in patchcore.RULES.items() if rule.provider)


def histories(corpus: Path) -> list[Path]:
    """Every JSON and JSON Lines file of the corpus."""
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def findings(data: bytes, name: str, options: patchcore.Options) -> list[tuple[str, str | None]]:
    """The codes and call ids a check reports; none for a file with no history."""
    try:
        report = patchcore.check_document(data, filename=name, options=options)
    except patchcore.NoHistoryError:
        return []
    return [(f.code, f.call_id) for f in report.findings]


def test_no_target_no_provider_finding(corpus: Path) -> None:
    options = patchcore.make_options(select=["ALL"], keep_invalid_lines=True)
    for path in histories(corpus):
        found = findings(path.read_bytes(), path.name, options)
        assert not [f for f in found if f[0] in PROVIDER_CODES], path


def test_mistral_ids_fix_keeps_every_pair(corpus: Path) -> None:
    fixing = patchcore.make_options(
        select=["TP302"], target="mistral", unsafe_fixes=True, keep_invalid_lines=True
    )
    pairing = patchcore.make_options(select=["ALL"], keep_invalid_lines=True)
    rewritten = 0
    for path in histories(corpus):
        data = path.read_bytes()
        if not findings(data, path.name, fixing):
            continue
        fixed = patchcore.fix_document(data, filename=path.name, options=fixing).output
        if fixed is None:
            continue
        rewritten += 1
        before = [code for code, _ in findings(data, path.name, pairing)]
        after = [code for code, _ in findings(fixed, path.name, pairing)]
        assert after == before, path
        assert not findings(fixed, path.name, fixing), path
    assert rewritten > 0, "the corpus holds OpenAI-shaped ids"
