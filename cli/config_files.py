"""Project configuration: ``[tool.toolpatch]`` in ``pyproject.toml``, or a ``toolpatch.toml``.

Found as ruff finds its own: walking up from the common parent of the inputs (the current
directory for stdin and URLs), the nearest folder with a ``toolpatch.toml`` (top-level keys) or a
``pyproject.toml`` that has a ``[tool.toolpatch]`` table wins; in one folder ``toolpatch.toml``
wins. The walk stops at the repository's root or the home folder (`searched`), and a file found
that others than its owner may write, or in a folder they may write, is refused (`_trusted`).
``--config PATH`` names the file instead, ``--config 'KEY = VALUE'`` overrides one key,
``--isolated`` ignores every file. The TOML parser is imported only when there is something to
parse, and a ``pyproject.toml`` that never mentions toolpatch is not parsed at all, so a run
without configuration costs nothing.

Every value is checked here, where the file and key can still be named; unknown keys are errors.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from msgspec import structs

import patchcore

from .options import OutputFormat

#: The configuration file of toolpatch's own, and the shared one.
TOOLPATCH_TOML = "toolpatch.toml"
PYPROJECT_TOML = "pyproject.toml"

#: How many minutes after it was last written to a session log is taken for a running agent's
#: (the ``live-session-minutes`` default).
LIVE_SESSION_MINUTES = 10

#: The ``output-format`` values (the ``check --output-format`` choices).
OUTPUT_FORMATS = tuple(choice.value for choice in OutputFormat)


class ConfigError(Exception):
    """A configuration file or override that cannot be used (the message names file and key)."""


class Config(msgspec.Struct, frozen=True):
    """The settings a configuration gives; ``None`` where it says nothing.

    Attributes:
        path: The file it was read from, or ``None`` (no file, or ``--isolated``).
        select: Rule selectors to apply.
        ignore: Rule selectors to leave out.
        per_file_ignores: Glob pattern → rule selectors left out for matching files.
        texts: Rule code → template of its synthetic result, or a preset's name
            (``texts = "deepagents"``).
        dialect: Dialect forced on every list.
        unsafe_fixes: Whether ``fix`` applies unsafe fixes.
        repair: What the fix of an unanswered call does (``answer`` or ``drop``).
        target: The provider whose rules apply (``--target``, docs/cli.md#target).
        output_format: The default ``check --output-format``.
        live_session_minutes: How recently a session log may have been written to and still be
            taken for a running agent's (`LIVE_SESSION_MINUTES` when not set; 0: never).
        keep_invalid_lines: Whether a line of a corpus that is not JSON is kept as it is
            (reported) instead of failing the file.
        fix_training_targets: Whether the call a fine-tuning example ends on is answered too
            (docs/cli.md#fine-tuning-data).
        max_record_mib: The record-size limit in MiB (docs/cli.md#limits), when set.
        exclude: Gitignore patterns a walk passes over, instead of the default list.
        extend_exclude: Gitignore patterns a walk passes over, besides ``exclude``.
        respect_gitignore: Whether a walk passes over what ``.gitignore``, ``.ignore`` and
            ``.git/info/exclude`` ignore.
        force_exclude: Whether paths named on the command line are excluded too.
    """

    path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    per_file_ignores: Mapping[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    texts: Mapping[str, str] | str = msgspec.field(default_factory=dict)
    dialect: str | None = None
    unsafe_fixes: bool | None = None
    repair: str | None = None
    target: str | None = None
    output_format: str | None = None
    live_session_minutes: float | None = None
    keep_invalid_lines: bool | None = None
    fix_training_targets: bool | None = None
    max_record_mib: int | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None

    @property
    def root(self) -> Path:
        """The folder ``per-file-ignores`` and ``exclude`` patterns are relative to (the current
        one without a file)."""
        return self.path.parent if self.path is not None else Path.cwd()


def refusal(make: Callable[[], object]) -> tuple[str, str] | None:
    """What patchcore refuses in the rule settings ``make`` builds options from: the setting
    (``select``, ``ignore``, ``texts``, ``dialect``, ``repair``) and why, without its name
    (`patchcore.SettingError`); ``None`` when it takes them. A configuration's values are checked
    with it as they are read (the error names the file and key), the command line's when a
    run's settings are built (`cli.settings`: the error names the option).
    """
    try:
        make()
    except patchcore.SettingError as exc:
        assert exc.setting is not None, "make_options names the setting of every refusal"
        return exc.setting, exc.problem
    return None


def _checked(key: str, **value: Any) -> None:
    """Check one key's value with patchcore (`refusal`).

    Raises:
        ConfigError: patchcore refuses it (the message names the key).
    """
    problem = refusal(lambda: patchcore.make_options(**value))
    if problem is not None:
        msg = f"{key}: {problem[1]}"
        raise ConfigError(msg)


def _codes(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f'{key}: expected a list of rule codes, e.g. ["TP001", "TP1"]'
        raise ConfigError(msg)
    _checked(key, ignore=value)
    return tuple(value)


def _table(key: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        msg = f"{key}: expected a table"
        raise ConfigError(msg)
    return value


def _per_file_ignores(key: str, value: Any) -> dict[str, tuple[str, ...]]:
    return {
        pattern: _codes(f"{key}.{pattern!r}", codes)
        for pattern, codes in _table(key, value).items()
    }


def _texts(key: str, value: Any) -> dict[str, str] | str:
    if isinstance(value, str):  # a preset's name
        _checked(key, texts=value)
        return value
    texts = _table(key, value)
    if not all(isinstance(v, str) for v in texts.values()):
        msg = f'{key}: expected a string template per rule code, or a preset (texts = "deepagents")'
        raise ConfigError(msg)
    _checked(key, texts=texts)
    return texts


def _dialect(key: str, value: Any) -> str:
    if not isinstance(value, str):
        msg = f"{key}: expected a dialect name (see `toolpatch formats`)"
        raise ConfigError(msg)
    _checked(key, dialect=value)
    return value


def _repair(key: str, value: Any) -> str:
    _checked(key, repair=value)
    return str(value)


def _target(key: str, value: Any) -> str:
    if not isinstance(value, str):
        msg = f"{key}: expected a provider's name (anthropic, gemini, mistral, openai)"
        raise ConfigError(msg)
    _checked(key, target=value)
    return value


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        msg = f"{key}: expected true or false"
        raise ConfigError(msg)
    return value


def _patterns(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f'{key}: expected a list of gitignore patterns, e.g. ["archive/", "*.tmp.json"]'
        raise ConfigError(msg)
    from .exclusions import compile_patterns  # pathspec, only for a configuration that has these

    for pattern in value:
        try:
            compile_patterns([pattern])
        except ValueError:
            msg = f"{key}: {pattern!r} is not a gitignore pattern"
            raise ConfigError(msg) from None
    return tuple(value)


def _minutes(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        msg = f"{key}: expected a number of minutes, 0 or more (0 turns it off)"
        raise ConfigError(msg)
    return float(value)


def _mebibytes(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = f"{key}: expected a whole number of MiB, 1 or more"
        raise ConfigError(msg)
    return value


def _output_format(key: str, value: Any) -> str:
    if value not in OUTPUT_FORMATS:
        msg = f"{key}: expected one of {', '.join(OUTPUT_FORMATS)}, got {value!r}"
        raise ConfigError(msg)
    assert isinstance(value, str)
    return value


#: Each key: the `Config` field it sets and the check that turns the TOML value into it.
_KEYS: dict[str, tuple[str, Callable[[str, Any], Any]]] = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "texts": ("texts", _texts),
    "dialect": ("dialect", _dialect),
    "unsafe-fixes": ("unsafe_fixes", _flag),
    "repair": ("repair", _repair),
    "target": ("target", _target),
    "output-format": ("output_format", _output_format),
    "live-session-minutes": ("live_session_minutes", _minutes),
    "keep-invalid-lines": ("keep_invalid_lines", _flag),
    "fix-training-targets": ("fix_training_targets", _flag),
    "max-record-mib": ("max_record_mib", _mebibytes),
    "exclude": ("exclude", _patterns),
    "extend-exclude": ("extend_exclude", _patterns),
    "respect-gitignore": ("respect_gitignore", _flag),
    "force-exclude": ("force_exclude", _flag),
}


def _apply(config: Config, table: Mapping[str, Any]) -> Config:
    """``config`` with the keys of ``table`` set, each checked."""
    changes = {}
    for key, value in table.items():
        if key not in _KEYS:
            msg = f"unknown key {key!r} (known: {', '.join(_KEYS)})"
            raise ConfigError(msg)
        name, check = _KEYS[key]
        changes[name] = check(key, value)
    return structs.replace(config, **changes)


def _parse_toml(text: str) -> dict[str, Any]:
    """TOML text → a table (``tomllib`` on 3.11+, ``tomli`` before), imported on demand."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib.loads(text)


def _section(path: Path) -> dict[str, Any] | None:
    """The toolpatch table of a configuration file, or ``None`` for a ``pyproject.toml`` that
    has none."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        msg = f"{path}: cannot read: {exc.strerror or exc}"
        raise ConfigError(msg) from None
    if path.name == PYPROJECT_TOML and b"toolpatch" not in data:
        return None
    try:
        document = _parse_toml(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        msg = f"{path}: invalid TOML: {exc}"
        raise ConfigError(msg) from None
    if path.name != PYPROJECT_TOML:
        return document
    tool = document.get("tool")
    section = tool.get("toolpatch") if isinstance(tool, dict) else None
    if section is not None and not isinstance(section, dict):
        msg = f"{path}: [tool.toolpatch] must be a table"
        raise ConfigError(msg)
    return section


def _read(path: Path, table: Mapping[str, Any]) -> Config:
    where = "[tool.toolpatch] " if path.name == PYPROJECT_TOML else ""
    try:
        return _apply(Config(path=path), table)
    except ConfigError as exc:
        msg = f"{path}: {where}{exc}"
        raise ConfigError(msg) from None


#: What marks a repository's root folder, as black's ``find_project_root`` reads it.
REPOSITORY_MARKERS = (".git", ".hg")


def searched(start: Path) -> list[Path]:
    """The folders discovery looks in, nearest first: ``start`` and its parents up to the first
    that is a repository's root (it holds a `REPOSITORY_MARKERS` entry, as black bounds a
    project) or the home folder, never above it; outside both, up to the file system's root,
    as ruff walks."""
    home = Path.home()
    folders = []
    for folder in (start, *start.parents):
        folders.append(folder)
        if folder == home or any((folder / marker).exists() for marker in REPOSITORY_MARKERS):
            break
    return folders


def writable_by_others(path: Path) -> str | None:
    """Who besides its owner may write ``path`` (a file or a folder), in words, or ``None``:
    everyone (``o+w``), or a group with another member than the owner (``g+w``; a user's
    private group, named as the user and with no other listed member, is the owner alone)."""
    status = path.stat()
    if status.st_mode & 0o002:
        return "every user"
    if not status.st_mode & 0o020:
        return None
    try:
        import grp
        import pwd

        owner = pwd.getpwuid(status.st_uid).pw_name
        group = grp.getgrgid(status.st_gid)
    except (ImportError, KeyError):  # no such databases (Windows), or no name for the ids
        return "its group"
    if group.gr_name == owner and set(group.gr_mem) <= {owner}:
        return None
    return f"the group {group.gr_name}"


def _trusted(path: Path) -> Path:
    """``path``, a configuration file found by discovery, when no one but its owner may write
    it or its folder: a file planted in a shared folder (``/tmp``) must not choose the texts
    a repair writes or turn the live-session guard off.

    Raises:
        ConfigError: Someone else may (the message says who and how to go on).
    """
    for what in (path, path.parent):
        who = writable_by_others(what)
        if who is not None:
            kind = "it" if what == path else f"its folder {what}"
            msg = (
                f"{path}: not used: {kind} may be written by {who} (docs/cli.md#configuration): "
                "chmod go-w, name a file with --config, or use --isolated"
            )
            raise ConfigError(msg)
    return path


def discover(start: Path) -> Config:
    """The configuration nearest to ``start`` (a folder), among the `searched` folders; empty
    when there is none.

    Raises:
        ConfigError: The file found may be written by others than its owner (`_trusted`), is
            not valid TOML or has a bad or unknown key.
    """
    for folder in searched(start):
        for name in (TOOLPATCH_TOML, PYPROJECT_TOML):
            candidate = folder / name
            if candidate.is_file():
                section = _section(candidate)
                if section is not None:
                    return _read(_trusted(candidate), section)
    return Config()


def load(path: Path) -> Config:
    """The configuration in the file ``--config`` names (a ``pyproject.toml`` without a
    ``[tool.toolpatch]`` table gives none).

    Raises:
        ConfigError: The file is missing, is not valid TOML or has a bad or unknown key.
    """
    if not path.is_file():
        msg = f"{path}: no such configuration file"
        raise ConfigError(msg)
    return _read(path, _section(path) or {})


def override(config: Config, assignment: str) -> Config:
    """``config`` with a ``--config 'KEY = VALUE'`` override applied.

    Raises:
        ConfigError: Not a TOML assignment, or a bad or unknown key.
    """
    try:
        table = _parse_toml(assignment)
    except ValueError as exc:
        msg = f"--config {assignment!r}: not a file, nor a TOML 'KEY = VALUE' override: {exc}"
        raise ConfigError(msg) from None
    try:
        return _apply(config, table)
    except ConfigError as exc:
        msg = f"--config {assignment!r}: {exc}"
        raise ConfigError(msg) from None


def search_start(paths: Sequence[str], *, stdin_filename: str | None) -> Path:
    """Where discovery starts: the common parent of the inputs (``-`` stands for the stdin
    filename, if given), else the current directory."""
    folders = []
    for given in paths or ["-"]:
        name = stdin_filename if given == "-" else given
        if name is None or "://" in name:  # a URL (an object, a store): from the current folder
            continue
        absolute = Path(os.path.abspath(name))
        folders.append(str(absolute if absolute.is_dir() else absolute.parent))
    if not folders:
        return Path.cwd()
    return Path(os.path.commonpath(folders))


def resolve(
    configs: Sequence[str], *, isolated: bool, paths: Sequence[str], stdin_filename: str | None
) -> Config:
    """The configuration for a run: ``--config`` values, ``--isolated``, or discovery.

    A ``--config`` value that is an existing file (or ends in ``.toml``) names the file; any
    other is a ``KEY = VALUE`` override, applied in order on top of the file.

    Raises:
        ConfigError: Two files named, a file named with ``--isolated``, or a bad file or key.
    """
    files = [c for c in configs if os.path.isfile(c) or c.endswith(".toml") or "=" not in c]
    overrides = [c for c in configs if c not in files]
    if len(files) > 1:
        msg = f"--config: one configuration file at most, got {', '.join(files)}"
        raise ConfigError(msg)
    if files and isolated:
        msg = "--config FILE cannot be used with --isolated"
        raise ConfigError(msg)
    if files:
        config = load(Path(files[0]))
    elif isolated:
        config = Config()
    else:
        config = discover(search_start(paths, stdin_filename=stdin_filename))
    for assignment in overrides:
        config = override(config, assignment)
    return config
