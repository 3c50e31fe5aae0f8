"""Where toolpatch lives on the web: the project's pages and each rule's documentation.

The same addresses are the ``[project.urls]`` of ``pyproject.toml`` (the package index shows
those); ``tests/unit/test_project_urls.py`` holds the two to the same values. They are constants
rather than read from the installed distribution's metadata: importing ``importlib.metadata``
costs more than the SARIF report that needs them, and a source tree run without installing has
no metadata (or has the last install's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchcore import Rule

#: The repository: the project's home page.
REPOSITORY = "https://github.com/toolpatch/toolpatch"
#: The folder of the documentation pages (``docs/`` of the main branch), ending in ``/``.
DOCUMENTATION = f"{REPOSITORY}/blob/main/docs/"
#: ``[project.urls]``, as ``pyproject.toml`` has them.
PROJECT_URLS = {
    "Homepage": REPOSITORY,
    "Documentation": DOCUMENTATION,
    "Repository": REPOSITORY,
}


def docs_url(page: str, anchor: str | None = None) -> str:
    """The address of ``docs/<page>`` (``"rules.md"``), at the heading ``anchor`` if given."""
    return DOCUMENTATION + page + (f"#{anchor}" if anchor else "")


def rule_url(rule: Rule) -> str:
    """Where a rule is explained: its section of ``docs/rules.md``."""
    from .rule_docs import rule_anchor

    return docs_url("rules.md", rule_anchor(rule))
