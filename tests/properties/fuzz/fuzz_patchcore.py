"""Coverage-guided fuzzing of patchcore's parser and engine with atheris (libFuzzer).

Run by ``tests/properties/test_fuzz.py`` for a bounded time; by hand::

    python tests/properties/fuzz/fuzz_patchcore.py CORPUS_DIR -max_total_time=60 -seed=1

patchcore is instrumented (``atheris.instrument_imports``) so that libFuzzer is guided by the
branches it reaches. Each input is fixed as a JSON document and as JSON Lines, with the default
rules and with every rule and unsafe fixes; the invariants are those of the property tests
(`tests.robustness.assert_repair_invariants`): only a located `DecodeError`, `ShapeError` or
`NoHistoryError` may be raised, and a repaired output re-checks clean and is stable. Anything
else is an uncaught exception, which libFuzzer reports as a crash (with the input saved).

Importing this module does nothing: the fuzzer only starts under ``__main__``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]

#: Option sets every input is fixed with.
OPTION_SETS: list[dict[str, Any]] = [{}, {"select": ["ALL"], "unsafe_fixes": True}]
#: File names every input is fixed under: one JSON document, or JSON Lines by name.
FILENAMES: list[str | None] = [None, "fuzz.jsonl"]


def make_target(check: Callable[..., object]) -> Callable[[bytes], None]:
    """The libFuzzer entry point: ``check`` every framing and option set on one input."""

    def test_one_input(data: bytes) -> None:
        for filename in FILENAMES:
            for options in OPTION_SETS:
                check(data, filename=filename, options=options)

    return test_one_input


def main() -> None:
    """Instrument patchcore, then hand control to libFuzzer with ``sys.argv``."""
    import atheris  # type: ignore[import-untyped]

    sys.path.insert(0, str(ROOT))
    sys.setrecursionlimit(10_000)  # deep nesting must fail in the parser, not in the harness
    with atheris.instrument_imports(include=["patchcore"]):
        import patchcore  # noqa: F401 - imported here to be instrumented
    from tests.robustness import assert_repair_invariants

    atheris.Setup(sys.argv, make_target(assert_repair_invariants))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
