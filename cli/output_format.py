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


class RulesFormat(str, enum.Enum):
    """The ``rules --output-format`` choices: the listing, or ``docs/rules.md`` itself."""

    TEXT = "text"
    MARKDOWN = "markdown"
