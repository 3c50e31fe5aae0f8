"""The project's addresses are one set: ``[project.urls]`` in pyproject.toml (what the package
index shows) and the constants the command line links to (`toolpatch.cli.project`)."""

from __future__ import annotations

import sys

from tests.conftest import ROOT
from toolpatch.cli.project import DOCUMENTATION, PROJECT_URLS, REPOSITORY, docs_url

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def test_the_constants_are_the_project_urls_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["urls"] == PROJECT_URLS
    assert PROJECT_URLS["Documentation"] == DOCUMENTATION == f"{REPOSITORY}/blob/main/docs/"


def test_docs_url_names_a_page_of_docs() -> None:
    assert docs_url("cli.md", "output-formats") == f"{DOCUMENTATION}cli.md#output-formats"
    assert (ROOT / "docs" / "cli.md").is_file()
