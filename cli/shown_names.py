"""File names as people think of them: relative to the current folder, as ruff shows paths.

ruff makes every path absolute and then strips the current folder off it
(``ruff_linter::fs::relativize_path``): a file under the current folder reads relative however it
was named (``/home/ana/proj/h.json``, ``./h.json`` and ``sub/../h.json`` read ``h.json`` in
``/home/ana/proj``), and a file outside it reads absolute (``../h.json`` reads
``/home/ana/h.json``). The text report (`cli.text_report`), its errors and the diff headers
name inputs so; the machine reports keep the names as given.
"""

from __future__ import annotations

import os

from msgspec import structs

from .input_run import Outcome
from .inputs import Source, may_be_url
from .object_inputs import is_object_url


def shown_name(name: str) -> str:
    """``name`` relative to the current folder when it lies inside it, else absolute; ``-``
    (standard input without ``--stdin-filename``), a URL (an object's name) and a name whose
    folder cannot be told (the current folder was removed) stay as they are."""
    if name == "-" or (may_be_url(name) and is_object_url(name)):
        return name
    try:
        cwd = os.getcwd()
        absolute = os.path.abspath(name)
        relative = os.path.relpath(absolute, cwd)
    except (OSError, ValueError):  # no current folder; another drive (Windows)
        return name
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute
    return relative


def shown_source(source: Source) -> Source:
    """``source`` named as people are shown it (`shown_name`)."""
    name = shown_name(source.name)
    return source if name == source.name else structs.replace(source, name=name)


def renamed(outcome: Outcome, name: str) -> Outcome:
    """``outcome`` with its input called ``name``, in its error too (the diff keeps its
    headers: only ``fix --diff`` makes one, and only the text report prints it)."""
    old = outcome.source.name
    if name == old:
        return outcome
    error = outcome.error
    if error is not None and error.file == old:
        error = structs.replace(error, file=name)
    return structs.replace(outcome, source=structs.replace(outcome.source, name=name), error=error)
