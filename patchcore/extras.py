"""What to install when an optional part is used without its extra.

A plain install of the distribution is the command line and the engine only (typer, rich,
orjson, msgspec), light enough for pre-commit to build on every developer's machine. The parts
that need a heavy library declare it as an extra; importing one of them without it raises
`MissingExtra`, which names the extra to install instead of only the module that is missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The name on the package index ("toolpatch" there is an unrelated project).
DISTRIBUTION = "toolpatch-cli"


class MissingExtra(ModuleNotFoundError):
    """An optional part was imported without the extra that provides what it needs."""

    def __init__(self, missing: ModuleNotFoundError, *, extra: str, part: str) -> None:
        super().__init__(
            f"{part} needs {missing.name}, which a plain install leaves out: "
            f"pip install '{DISTRIBUTION}[{extra}]'",
            name=missing.name,
        )
        self.extra = extra


def extra_module(module: str, *, extra: str, part: str) -> ModuleType:
    """The module ``module``, imported for ``part`` (say, ``"a .zst file"``), which needs the
    extra ``extra``.

    Raises:
        MissingExtra: ``module`` is not installed.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        raise MissingExtra(missing, extra=extra, part=part) from None
