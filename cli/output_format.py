"""The ``--output-format`` choices, apart from their reporters (which load only when used)."""

from __future__ import annotations

import enum

#: The environment variable that chooses ``check``'s report (and, naming a text form, ``fix``'s).
OUTPUT_FORMAT_VARIABLE = "TOOLPATCH_OUTPUT_FORMAT"


class OutputFormat(str, enum.Enum):
    """The ``--output-format`` choices."""

    CONCISE = "concise"
    """For people, on stderr: one line per finding, each rule's provider error once (ruff's)."""
    FULL = "full"
    """For people: each finding with its dialect and the provider's error under it."""
    TEXT = "text"
    """The name the concise report had before ``full`` existed; it still means ``concise``."""
    JSON = "json"
    JSONL = "jsonl"
    GITHUB = "github"
    SARIF = "sarif"
    HTML = "html"
    """One self-contained page to look at a corpus (the ``html`` extra)."""

    @property
    def for_people(self) -> bool:
        """Whether this is a text report (``concise``, ``full``, ``text``), not a machine one."""
        return self in (OutputFormat.CONCISE, OutputFormat.FULL, OutputFormat.TEXT)


class TextFormat(str, enum.Enum):
    """The ``fix --output-format`` choices: the text report's forms (`OutputFormat`'s)."""

    CONCISE = OutputFormat.CONCISE.value
    FULL = OutputFormat.FULL.value
    TEXT = OutputFormat.TEXT.value


class RulesFormat(str, enum.Enum):
    """The ``rules --output-format`` choices: the listing, or ``docs/rules.md`` itself."""

    TEXT = "text"
    MARKDOWN = "markdown"
