"""setuptools' build backend (``setuptools.build_meta``), less one notice in editable installs.

``pyproject.toml`` installs the folders ``cli/`` and ``integrations/`` as ``toolpatch.cli`` and
``toolpatch.integrations`` (docs/architecture.md#packaging). That is no "simple" layout to
setuptools, so an editable install goes through an import finder, and setuptools then always
warns that a folder named like the package in the working folder may be imported instead of
it. This project keeps no such folder at its root (the package's own files are in
``src/toolpatch/`` for that very reason), so the notice would only ever be noise in the install
command of CONTRIBUTING.md; it is filtered here, and nothing else is changed.
"""

from __future__ import annotations

import warnings
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' ``build_editable``, without its "Editable installation." notice."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Editable installation")
        return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
