"""The proxy's judgement of one request body (`toolpatch.integrations.proxy.repaired_body`,
docs/proxy.md): whatever the engine does with a body, the request goes on."""

from __future__ import annotations

import pytest

import patchcore
from toolpatch.integrations import proxy

CLEAN = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'


def test_an_engine_bug_forwards_the_body_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(data: bytes, **_: object) -> None:
        msg = "a secret from the body"
        raise RuntimeError(msg)

    monkeypatch.setattr(patchcore, "fix_document", broken)
    repaired = proxy.repaired_body(CLEAN, options=patchcore.make_options(), check_only=False)
    assert repaired.body is CLEAN
    assert repaired.verdict is proxy.Verdict.FAILED
    assert repaired.reason == "internal error: RuntimeError"  # the type, never the message


def test_a_clean_body_is_the_same_bytes() -> None:
    repaired = proxy.repaired_body(CLEAN, options=patchcore.make_options(), check_only=False)
    assert repaired.body is CLEAN
    assert repaired.verdict is proxy.Verdict.CLEAN
