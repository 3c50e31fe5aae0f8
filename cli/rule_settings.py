"""The rule options of a run: command line over configuration, then per-file ignores.

Precedence follows ruff: a ``--select`` on the command line replaces the configured ``select``
(and drops the configured ``ignore`` with it); a ``--ignore`` adds to the configured one;
``--dialect``, ``--[no-]unsafe-fixes``, ``--repair`` and ``--[no-]keep-invalid-lines`` replace
theirs.
A file whose name says which agent wrote it, and whose content cannot say it, is read in that
agent's dialect unless a dialect is given (`DIALECT_BY_FILE_NAME`).
``per-file-ignores`` then leave more rules out for the files whose path (relative to the
configuration's folder) or file name matches a pattern (``fnmatch`` globs: ``*`` also crosses
``/``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

import patchcore
from patchcore import Options

from .config_files import Config

#: File names that only one agent writes, whose messages read as another dialect's: Cline's
#: (and Roo Code's) task histories are Anthropic messages that Cline converts before it sends
#: them (docs/formats.md#cline-and-roo-code-task-histories). ``--dialect`` or the configured
#: ``dialect`` overrides it, and forces ``cline`` on files of other names.
DIALECT_BY_FILE_NAME = {"api_conversation_history.json": "cline"}


@dataclass
class RuleSettings:
    """What to check and fix, before per-file ignores; makes each file's `Options`.

    Raises (from `options_for`):
        UnknownRuleError, UnknownDialectError: A command-line value is not valid (the
            configuration's values were checked when it was read).
    """

    select: Sequence[str] | None
    ignore: Sequence[str]
    texts: Mapping[str, str]
    dialect: str | None
    unsafe_fixes: bool
    per_file_ignores: Mapping[str, tuple[str, ...]]
    root: Path
    keep_invalid_lines: bool = False
    repair: str = "answer"
    strip: bool = False
    max_record_mib: int | None = None
    _made: dict[tuple[tuple[str, ...], str | None], Options] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def merge(
        cls,
        config: Config,
        *,
        select: Sequence[str] | None,
        ignore: Sequence[str] | None,
        dialect: str | None,
        unsafe_fixes: bool | None,
        keep_invalid_lines: bool | None = None,
        repair: str | None = None,
        strip: bool = False,
        max_record_mib: int | None = None,
    ) -> RuleSettings:
        """Command-line values (``None``: not given) over ``config``'s."""
        kept_ignore = [] if select is not None else list(config.ignore or ())
        return cls(
            select=select if select is not None else config.select,
            ignore=[*kept_ignore, *(ignore or ())],
            texts=config.texts,
            dialect=dialect if dialect is not None else config.dialect,
            unsafe_fixes=unsafe_fixes if unsafe_fixes is not None else bool(config.unsafe_fixes),
            per_file_ignores=config.per_file_ignores,
            root=config.root,
            keep_invalid_lines=(
                keep_invalid_lines
                if keep_invalid_lines is not None
                else bool(config.keep_invalid_lines)
            ),
            repair=repair if repair is not None else config.repair or "answer",
            strip=strip,
            max_record_mib=max_record_mib if max_record_mib is not None else config.max_record_mib,
        )

    def ignored_for(self, name: str) -> tuple[str, ...]:
        """The rule selectors ``per-file-ignores`` leave out for the input called ``name``."""
        absolute = Path(os.path.abspath(name))
        try:
            relative = absolute.relative_to(self.root).as_posix()
        except ValueError:
            relative = absolute.as_posix()
        codes: list[str] = []
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatchcase(relative, pattern) or (
                "/" not in pattern and fnmatchcase(absolute.name, pattern)
            ):
                codes += ignored
        return tuple(codes)

    def options_for(self, name: str | None = None) -> Options:
        """The options for the input called ``name`` (``None``: before per-file ignores and
        the dialect its file name implies)."""
        extra = self.ignored_for(name) if name is not None else ()
        dialect = self.dialect
        if dialect is None and name is not None:
            dialect = DIALECT_BY_FILE_NAME.get(Path(name).name)
        if (extra, dialect) not in self._made:
            self._made[extra, dialect] = patchcore.make_options(
                select=self.select,
                ignore=[*self.ignore, *extra],
                texts=self.texts,
                dialect=dialect,
                unsafe_fixes=self.unsafe_fixes,
                keep_invalid_lines=self.keep_invalid_lines,
                repair=self.repair,
                strip=self.strip,
                max_record_bytes=(
                    self.max_record_mib * 2**20 if self.max_record_mib is not None else None
                ),
            )
        return self._made[extra, dialect]
