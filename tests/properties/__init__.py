"""Properties: generated histories of every dialect, random corruptions, and fuzzing.

What belongs here: hypothesis properties of the fidelity promises (docs/pairing.md#fidelity)
and of the provider-strict rules, corruptions of every sample, and the bounded atheris run
(``fuzz/fuzz_patchcore.py`` is its harness). Every test here is marked ``slow``.
"""
