"""The ``--output-format`` choices, apart from their reporters (which load only when used)."""

from __future__ import annotations

import enum


class OutputFormat(str, enum.Enum):
    """The ``--output-format`` choices."""

    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    GITHUB = "github"
    SARIF = "sarif"
