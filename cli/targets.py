"""Where a run's product goes, decided once from ``-o`` (`Target`, `cli.plan`).

``-o`` means one of four things: nothing given (``fix`` writes each input over itself, stdin to
stdout; ``check`` prints its report), ``-`` (stdout), a file, or for ``fix`` over URLs a PREFIX
each input is written under (docs/cli.md#object-stores). Each is a type of its own, so that no
part of the run asks again what ``-o`` said.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from .inputs import Source


class InPlace(msgspec.Struct, frozen=True):
    """No ``-o``: ``fix`` writes each input over itself (stdin: to stdout); ``check`` prints
    its report."""


class ToStdout(msgspec.Struct, frozen=True):
    """``-o -``: the one input's repair, or the report, on stdout."""


class ToFile(msgspec.Struct, frozen=True):
    """``-o FILE``: the one input's repair, or the report, in ``path``."""

    path: Path


class ToPrefix(msgspec.Struct, frozen=True):
    """``fix -o PREFIX`` over URL inputs: each input is written under it, where its source
    says (`cli.object_inputs`); to each input, as in place."""

    url: str


Target = InPlace | ToStdout | ToFile | ToPrefix


def writes_stdout(target: Target, source: Source) -> bool:
    """Whether ``fix`` sends ``source``'s repair to stdout: ``-o -``, or stdin without ``-o``."""
    return isinstance(target, ToStdout) or (isinstance(target, InPlace) and source.is_stdin)
