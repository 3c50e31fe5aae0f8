"""Errors raised by patchcore. Each carries a location; only the CLI turns them into exit codes."""

from __future__ import annotations

import copy
import difflib
from collections.abc import Iterable
from typing import Any, TypeVar

E = TypeVar("E", bound="PatchcoreError")
S = TypeVar("S", bound="SettingError")


def json_kind(value: object) -> str:
    """How JSON calls a parsed value's type, with its article ("an object", "a number")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = {dict: "an object", list: "a list", str: "a string"}
    return next((kind for cls, kind in kinds.items() if isinstance(value, cls)), "a number")


def located_text(reason: str, *, line: int | None, column: int | None, pointer: str | None) -> str:
    """``line:column: reason (at /pointer)``, each part as far as known (a column defaults to 1
    where the line is known): how an error reads to people."""
    where = f"{line}:{column if column is not None else 1}: " if line is not None else ""
    suffix = f" (at {pointer})" if pointer else ""
    return f"{where}{reason}{suffix}"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'TP101', 'TP102' or ...?"``: the ``known`` names that start with
    ``name`` (case aside), else those `difflib` finds close to it; closest first, equally close
    ones in the order of ``known``; nothing when no name is near.

    >>> did_you_mean("dangling", ["TP001", "dangling-tool-call"])
    "; did you mean 'dangling-tool-call'?"
    """
    by_lowered = {spelling.lower(): spelling for spelling in known}
    lowered = name.strip().lower()
    starting = [key for key in by_lowered if lowered and key.startswith(lowered)]
    pool, cutoff = (starting, 0.0) if starting else (list(by_lowered), 0.6)
    scored = [(difflib.SequenceMatcher(None, key, lowered).ratio(), key) for key in pool]
    close = [key for score, key in sorted(scored, key=lambda pair: -pair[0]) if score >= cutoff]
    if not close:
        return ""
    quoted = [repr(by_lowered[key]) for key in close]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"; did you mean {listed}?"


def _restored(
    cls: type[PatchcoreError], args: tuple[Any, ...], state: dict[str, Any]
) -> PatchcoreError:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class PatchcoreError(ValueError):
    """Base class: the input could not be evaluated.

    Attributes:
        reason: What is wrong, without the location.
        line: 1-based line in the input, when known.
        column: 1-based column in the input, when known.
        pointer: JSON pointer of the offending value, when known.
    """

    def __init__(
        self,
        reason: str,
        *,
        line: int | None = None,
        column: int | None = None,
        pointer: str | None = None,
    ) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.pointer = pointer
        super().__init__(self.located())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the location (a parallel run raises it in a worker process)."""
        return (_restored, (type(self), self.args, self.__dict__))

    def moved(self: E, lines: int) -> E:
        """The same error ``lines`` lines further down (found in a piece of the input that
        was numbered from its own first line)."""
        error = copy.copy(self)
        if error.line is not None:
            error.line += lines
        error.args = (error.located(),)
        return error

    def located(self) -> str:
        """The reason prefixed by ``line:column:`` (as far as known) and suffixed by the pointer:
        the error's text for people (a program reads the attributes instead)."""
        return located_text(self.reason, line=self.line, column=self.column, pointer=self.pointer)


class DecodeError(PatchcoreError):
    """The bytes are not a readable JSON or JSONL document (encoding, syntax, emptiness)."""


class InvalidLineError(DecodeError):
    """A line of a corpus of one conversation per line is not JSON (torn by a crash while the
    file was written, say): ``keep_invalid_lines`` would keep it as it is and check the
    others."""


class NoHistoryError(PatchcoreError):
    """The document is valid JSON but holds no message history that toolpatch understands."""


class ShapeError(PatchcoreError):
    """A message list has a value of the wrong shape where the dialect requires a known one.

    Attributes:
        path: Where the value is, as pointer parts relative to its record (the document layer
            turns it into a line and column).
    """

    def __init__(
        self,
        reason: str,
        *,
        path: tuple[str | int, ...] = (),
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)
        super().__init__(reason, line=line, column=column, pointer=pointer or None)


class SettingError(PatchcoreError):
    """A value given for a setting of `patchcore.make_options` that patchcore refuses.

    Attributes:
        setting: The parameter the value was given for (``select``, ``ignore``, ``texts``,
            ``dialect``, ``repair``), or ``None`` when the value was named by other means (a
            rule looked up by `patchcore.rule_named`).
        problem: Why, without the setting's name (``reason`` may start with it): what a caller
            that names the setting its own way (a configuration key, a command-line option)
            says after that name.
    """

    def __init__(
        self, reason: str, *, setting: str | None = None, problem: str | None = None
    ) -> None:
        self.setting = setting
        self.problem = reason if problem is None else problem
        super().__init__(reason)

    @classmethod
    def named(cls: type[S], problem: str, *, setting: str) -> S:
        """The error of ``problem`` with the value given for ``setting``, which its reason
        names first (``texts: the template for TP001 is empty ...``)."""
        return cls(f"{setting}: {problem}", setting=setting, problem=problem)


class UnknownRuleError(SettingError):
    """A rule selector names no rule."""


class UnknownDialectError(SettingError):
    """A dialect name is not one toolpatch knows."""


class UnknownRepairError(SettingError):
    """A repair policy is not one toolpatch knows (``answer``, ``drop``)."""


class SelfCheckError(PatchcoreError):
    """The repaired output did not pass the stability check; nothing should be written."""
