"""Conformance: real libraries and tools judge toolpatch.

What belongs here: the deepagents middleware inserts what toolpatch inserts, repaired histories
pass the providers' rules (``tests/provider_rules.py``), the Dask integration writes what the
CLI writes, and the code passes mypy (strict) and ruff. Every test here is marked ``slow``.
"""
