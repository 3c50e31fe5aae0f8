"""Integrations of the toolpatch engine with other systems, each behind an extra."""
