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

# No ``from __future__ import annotations`` here: msgspec would turn the configuration struct's
# annotations from strings back into types at import, compiling and evaluating each: half
# of this module's import, paid at every start-up (docs/benchmarks.md#start-up).

import enum
import os
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

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


class ConfigError(Exception):
    """A configuration file or override that cannot be used (the message names file and key)."""


#: The types of the keys, each with what it expects in the words of an error, declared once.
Codes = Annotated[
    tuple[str, ...], msgspec.Meta(description='a list of rule codes, e.g. ["TP001", "TP1"]')
]
Patterns = Annotated[
    tuple[str, ...],
    msgspec.Meta(description='a list of gitignore patterns, e.g. ["archive/", "*.tmp.json"]'),
]
Flag = Annotated[bool, msgspec.Meta(description="true or false")]
Texts = Annotated[
    Mapping[str, str] | str,
    msgspec.Meta(description='a string template per rule code, or a preset (texts = "deepagents")'),
]
Minutes = Annotated[
    float, msgspec.Meta(ge=0, description="a number of minutes, 0 or more (0 turns it off)")
]
Mebibytes = Annotated[int, msgspec.Meta(ge=1, description="a whole number of MiB, 1 or more")]
Dialect = Annotated[str, msgspec.Meta(description="a dialect name (see `toolpatch formats`)")]
Repair = Annotated[str, msgspec.Meta(description='a repair policy, "answer" or "drop"')]
Target = Annotated[
    str, msgspec.Meta(description="a provider's name (anthropic, gemini, mistral, openai)")
]


class Config(msgspec.Struct, frozen=True, kw_only=True, rename="kebab"):
    """The settings a configuration gives; ``None`` where it says nothing. Each key of a file
    is its field's name in kebab case (``per-file-ignores``), converted to the field's type by
    `msgspec.convert` (`_apply`).

    Attributes:
        path: The file it was read from, or ``None`` (no file, or ``--isolated``); no key.
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
    select: Codes | None = None
    ignore: Codes | None = None
    per_file_ignores: Annotated[Mapping[str, Codes], msgspec.Meta(description="a table")] = (
        msgspec.field(default_factory=dict)
    )
    texts: Texts = msgspec.field(default_factory=dict)
    dialect: Dialect | None = None
    unsafe_fixes: Flag | None = None
    repair: Repair | None = None
    target: Target | None = None
    output_format: OutputFormat | None = None
    live_session_minutes: Minutes | None = None
    keep_invalid_lines: Flag | None = None
    fix_training_targets: Flag | None = None
    max_record_mib: Mebibytes | None = None
    exclude: Patterns | None = None
    extend_exclude: Patterns = ()
    respect_gitignore: Flag | None = None
    force_exclude: Flag | None = None

    @property
    def root(self) -> Path:
        """The folder ``per-file-ignores`` and ``exclude`` patterns are relative to (the current
        one without a file)."""
        return self.path.parent if self.path is not None else Path.cwd()


def refusal(make: Callable[[], object]) -> tuple[str, str] | None:
    """What patchcore refuses in the rule settings ``make`` builds options from: the setting
    (``select``, ``ignore``, ``texts``, ``dialect``, ``repair``, ``target``) and why, without
    its name (`patchcore.SettingError`); ``None`` when it takes them. A configuration's values
    are checked with it as they are read (the error names the file and key), the command line's
    when a run's settings are built (`cli.settings`: the error names the option).
    """
    try:
        make()
    except patchcore.SettingError as exc:
        assert exc.setting is not None, "make_options names the setting of every refusal"
        return exc.setting, exc.problem
    return None


#: The keys a configuration may set, by their names in it: every `Config` field but ``path``.
_KEYS = {field.encode_name: field for field in structs.fields(Config) if field.name != "path"}


def _apply(config: Config, table: Mapping[str, Any]) -> Config:
    """``config`` with the keys of ``table`` set, each converted to its field's type
    (`_converted`) and checked (`_check`).

    Raises:
        ConfigError: An unknown key, or a value of the wrong type or refused (naming the key).
    """
    changes = {}
    for key, value in table.items():
        field = _KEYS.get(key)
        if field is None:
            msg = f"unknown key {key!r} (known: {', '.join(_KEYS)})"
            raise ConfigError(msg)
        changes[field.name] = _converted(key, value, field.type)
        _check(key, field.name, changes[field.name])
    return structs.replace(config, **changes)


def _converted(key: str, value: Any, kind: Any) -> Any:
    """``value`` as the type ``kind`` (`msgspec.convert`); a table's values each as its value
    type, so that an error names the entry (``per-file-ignores.'*.json'``).

    Raises:
        ConfigError: It is not: the message says what ``key`` expects (its type's description,
            or an enumeration's values).
    """
    if typing.get_origin(kind) in (typing.Union, types.UnionType):  # X | None: X
        kind = next(k for k in typing.get_args(kind) if k is not type(None))
    base, *meta = typing.get_args(kind) if typing.get_origin(kind) is Annotated else (kind,)
    if isinstance(base, type) and issubclass(base, enum.Enum):
        expected = f"one of {', '.join(choice.value for choice in base)}, got {value!r}"
    else:
        expected = meta[0].description
    try:
        if typing.get_origin(base) is not Mapping:
            return msgspec.convert(value, type=kind)
        table = msgspec.convert(value, type=dict[str, Any])
    except msgspec.ValidationError:
        msg = f"{key}: expected {expected}"
        raise ConfigError(msg) from None
    entries = typing.get_args(base)[1]
    return {name: _converted(f"{key}.{name!r}", entry, entries) for name, entry in table.items()}


def _check(key: str, name: str, value: Any) -> None:
    """Refuse what its type lets through but patchcore (rule codes, texts, a dialect, a repair
    policy, a provider: `refusal`) or the walk (a gitignore pattern) would not take, naming the key.

    Raises:
        ConfigError: It is refused.
    """
    if name == "per_file_ignores":
        for pattern, codes in value.items():
            _check(f"{key}.{pattern!r}", "ignore", codes)
    elif name in ("select", "ignore", "texts", "dialect", "repair", "target"):
        setting = "ignore" if name == "select" else name  # both are rule selectors
        problem = refusal(lambda: patchcore.make_options(**{setting: value}))
        if problem is not None:
            msg = f"{key}: {problem[1]}"
            raise ConfigError(msg)
    elif name in ("exclude", "extend_exclude"):
        from .exclusions import compile_patterns  # pathspec, only for a configuration with these

        for pattern in value:
            try:
                compile_patterns([pattern])
            except ValueError:
                msg = f"{key}: {pattern!r} is not a gitignore pattern"
                raise ConfigError(msg) from None


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
