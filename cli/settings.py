"""A run's settings: the command line over the configuration, built and checked once.

Each command of `cli.app` says which it is (`Command`) and hands over the values its typed
parameters were given (`CommandLine`, a field per option of `cli.options`); `Settings.of` finds
and reads the configuration, puts the
command line over it and checks every value once, with the error located: a configuration's
bad value names its file and key (`cli.config_files`, which checks it as it is read), a
command line's names its option (a usage error, exit 2). The runner (`cli.command_run`) takes
the settings and returns the exit code.

Rule precedence follows ruff: a ``--select`` on the command line replaces the configured
``select`` (and drops the configured ``ignore`` with it); a ``--ignore`` adds to the configured
one; ``--dialect``, ``--[no-]unsafe-fixes``, ``--repair``, ``--[no-]keep-invalid-lines`` and
``--[no-]fix-training-targets`` replace theirs. A file whose place says which agent wrote it
(a Cline task folder), and whose content cannot say it, is read in that agent's dialect unless
a dialect is given (`cli.inputs`).
``per-file-ignores`` then leave more rules out for the files whose path (relative to the
configuration's folder) or file name matches a pattern (``fnmatch`` globs: ``*`` also crosses
``/``).

`Settings.of` builds the run's plan too (`Plan`): its inputs resolved once from its PATHs, and
where its product goes. Every usage error the two hold together is raised here, before any
input is read (check-jsonschema's split of building from running).
"""

from __future__ import annotations

import enum
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec
import typer
from msgspec import structs

import patchcore

from . import config_files as configuration
from .cluster_address import ClusterAddress
from .config_files import LIVE_SESSION_MINUTES, Config, refusal
from .console import ColorMode, verbosity, visible
from .exit_codes import ExitCode
from .input_run import Mode
from .inputs import (
    DEFAULT_EXCLUDE,
    DEFAULT_WALK,
    Source,
    WalkSettings,
    dialect_of_place,
    given_paths,
    may_be_url,
    resolve,
)
from .object_inputs import RefusedURL, checked_url, is_object_url, object_sources, split_urls
from .options import OUTPUT_FORMAT_VARIABLE, OutputFormat, TextFormat
from .output_sinks import InPlace, Target, ToFile, ToPrefix, ToStdout
from .stores import is_store_url, split_paths

if TYPE_CHECKING:
    from patchcore import Options

    from .inputs import OpenForWriting

#: The option each rule setting's command-line value comes from, for its usage error; the
#: rule selectors' errors keep the setting's name (which of the two it was).
_OPTION_OF = {
    "dialect": ("--dialect", False),
    "select": ("--select/--ignore", True),
    "ignore": ("--select/--ignore", True),
    "repair": ("--repair", False),
    "target": ("--target", False),
}


class Command(enum.Enum):
    """What a run does: the command's mode (its output is `Mode`)."""

    CHECK = "check"
    FIX = "fix"
    STRIP = "strip"
    """Find the results toolpatch wrote and remove them (`patchcore.strip_document`)."""
    SHOW = "show"


class CommandLine(msgspec.Struct, kw_only=True):
    """The values a command's options and arguments were given, a field per parameter of the
    commands of `cli.app` (its name, and its type as `cli.options` declares it); ``None`` where
    an option that overrides the configuration was not given. A command takes some of them; the
    others keep their defaults here."""

    paths: list[str] | None = None
    path: str | None = None
    """``show``'s one PATH."""
    select: list[str] | None = None
    ignore: list[str] | None = None
    dialect: str | None = None
    repair: str | None = None
    target: str | None = None
    output_format: OutputFormat | TextFormat | None = None
    output: Path | str | None = None
    """``check``'s report file, or the repaired data's file (or URL prefix)."""
    against: Path | None = None
    fix: bool = False
    """``check --fix``."""
    diff: bool = False
    check: bool = False
    quiet: bool = False
    silent: bool = False
    verbose: bool = False
    statistics: bool = False
    full: bool = False
    jobs: int | None = None
    dask: ClusterAddress | None = None
    thread: list[str] | None = None
    stdin_filename: str | None = None
    color: ColorMode = ColorMode.AUTO
    config: list[str] | None = None
    isolated: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False
    unsafe_fixes: bool | None = None
    force: bool = False
    keep_invalid_lines: bool | None = None
    fix_training_targets: bool | None = None
    max_record_mib: int | None = None
    skip_no_history: bool = False
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None


class RuleSettings(msgspec.Struct):
    """What to check and fix, before per-file ignores; makes each file's `Options`."""

    select: Sequence[str] | None
    ignore: Sequence[str]
    texts: Mapping[str, str] | str
    dialect: str | None
    unsafe_fixes: bool
    per_file_ignores: Mapping[str, tuple[str, ...]]
    root: Path
    keep_invalid_lines: bool = False
    fix_training_targets: bool = False
    repair: str = "answer"
    target: str | None = None
    max_record_mib: int | None = None
    _made: dict[tuple[tuple[str, ...], str | None], Options] = msgspec.field(default_factory=dict)

    @classmethod
    def merge(cls, config: Config, given: CommandLine) -> RuleSettings:
        """The command line's values (``given``; ``None``: not given) over ``config``'s."""
        select = _split(given.select)
        kept_ignore = [] if select is not None else list(config.ignore or ())
        return cls(
            select=select if select is not None else config.select,
            ignore=[*kept_ignore, *(_split(given.ignore) or ())],
            texts=config.texts,
            dialect=_given_or(given.dialect, config.dialect),
            unsafe_fixes=bool(_given_or(given.unsafe_fixes, config.unsafe_fixes)),
            per_file_ignores=config.per_file_ignores,
            root=config.root,
            keep_invalid_lines=bool(_given_or(given.keep_invalid_lines, config.keep_invalid_lines)),
            fix_training_targets=bool(
                _given_or(given.fix_training_targets, config.fix_training_targets)
            ),
            repair=_given_or(given.repair, config.repair) or "answer",
            target=_given_or(given.target, config.target),
            max_record_mib=_given_or(given.max_record_mib, config.max_record_mib),
        )

    def ignored_for(self, name: str) -> tuple[str, ...]:
        """The rule selectors ``per-file-ignores`` leave out for the input called ``name``: a
        file by its path relative to the configuration's folder, an object named by URL by its
        key in the bucket (a ``file://`` URL by its path)."""
        url = urlsplit(name) if "://" in name and is_object_url(name) else None
        if url is not None and url.scheme.lower() != "file":
            absolute: PurePath = PurePosixPath(url.path)
            relative = url.path.lstrip("/")
        else:
            absolute = Path(os.path.abspath(url.path if url is not None else name))
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
        the dialect its file name implies).

        Raises:
            UnknownRuleError, UnknownDialectError, UnknownRepairError: Only before `Settings.of`
                has checked the command line's values (the configuration's were checked when it
                was read).
        """
        extra = self.ignored_for(name) if name is not None else ()
        dialect = self.dialect
        if dialect is None and name is not None:
            # Cline's task files read as Anthropic messages that Cline converts before it sends
            # them: the task folder says so (``--dialect`` or the configured ``dialect``
            # overrides it, and forces ``cline`` anywhere).
            dialect = dialect_of_place(name)
        if (extra, dialect) not in self._made:
            self._made[extra, dialect] = patchcore.make_options(
                select=self.select,
                ignore=[*self.ignore, *extra],
                texts=self.texts,
                dialect=dialect,
                unsafe_fixes=self.unsafe_fixes,
                keep_invalid_lines=self.keep_invalid_lines,
                fix_training_targets=self.fix_training_targets,
                repair=self.repair,
                target=self.target,
                max_record_bytes=(
                    self.max_record_mib * 2**20 if self.max_record_mib is not None else None
                ),
            )
        return self._made[extra, dialect]


class Settings(msgspec.Struct):
    """Everything a run needs to know, checked (`Settings.of` builds it).

    Attributes:
        command: Which command runs.
        mode: What it does with what it finds: report, write, say what would change, or diff.
        paths: The PATHs given (``None``: none; `cli.inputs.given_paths` chooses).
        config: The configuration found (or named, or none).
        rules: The rule settings, command line over configuration.
        walk: What directory walks (and, with ``force_exclude``, named paths) pass over.
        output: ``check``'s report file, or the repaired data's file (or URL prefix).
        output_format: The report's format.
        verbosity: `cli.console`'s ``SILENT`` to ``VERBOSE``.
        against: What ``check --against BEFORE`` holds each input against (`against_file`).
        plan: The inputs and where the product goes (`Plan`; ``None`` for ``show``).
    """

    command: Command
    mode: Mode
    paths: list[str] | None
    config: Config
    rules: RuleSettings
    walk: WalkSettings
    output: Path | str | None = None
    output_format: OutputFormat = OutputFormat.CONCISE
    verbosity: int = 1
    color: ColorMode = ColorMode.AUTO
    stdin_filename: str | None = None
    skip_no_history: bool = False
    statistics: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False
    jobs: int | None = None
    force: bool = False
    threads: list[str] | None = None
    dask: ClusterAddress | None = None
    full: bool = False
    against: patchcore.Against | None = None
    plan: Plan | None = None

    @classmethod
    def of(cls, command: Command, given: CommandLine) -> Settings:
        """The settings of a run of ``command`` whose options were ``given``.

        Raises:
            typer.BadParameter: A command-line value cannot be used (it names the option).
            typer.Exit: The configuration cannot be used, or the current folder is gone (its
                message said why on stderr; exit 2).
        """
        paths = [given.path] if given.path is not None else given.paths
        if command is Command.SHOW and given.path is not None and is_store_url(given.path):
            msg = (
                "show takes a file; a store's thread is shown with fix --diff URL --thread ID "
                "(docs/stores.md)"
            )
            raise typer.BadParameter(msg, param_hint="PATH")
        config = _configuration(
            given.config,
            isolated=given.isolated,
            paths=paths,
            stdin_filename=given.stdin_filename,
        )
        also_fix = given.fix
        if also_fix and (
            given.output is not None or not OutputFormat(given.output_format or "text").for_people
        ):
            # -o and the machine formats are check's report; a fix reports as text, as fix does.
            msg = (
                "repairs as toolpatch fix does and reports as text: without -o or a machine format"
            )
            raise typer.BadParameter(msg, param_hint="--fix")
        output_format = _output_format(command, given.output_format, config, also_fix=also_fix)
        if given.statistics and not output_format.for_people:
            msg = f"counts in the text report, not in {output_format.value}"
            raise typer.BadParameter(msg, param_hint="--statistics")
        rules = RuleSettings.merge(config, given)
        problem = refusal(rules.options_for)
        if problem is not None:
            key, reason = problem
            hint, named = _OPTION_OF[key]
            raise typer.BadParameter(f"{key}: {reason}" if named else reason, param_hint=hint)
        if also_fix and given.against is not None:
            msg = "reports what a trimmer broke; --fix would repair every finding: not both"
            raise typer.BadParameter(msg, param_hint="--against")
        settings = cls(
            command=command,
            mode=_mode(command, given),
            paths=paths,
            config=config,
            rules=rules,
            walk=_walk(config, given),
            output=None if also_fix else given.output,
            output_format=output_format,
            verbosity=verbosity(quiet=given.quiet, verbose=given.verbose, silent=given.silent),
            color=given.color,
            stdin_filename=given.stdin_filename,
            skip_no_history=given.skip_no_history,
            statistics=given.statistics,
            exit_zero=given.exit_zero,
            exit_non_zero_on_fix=given.exit_non_zero_on_fix,
            jobs=given.jobs,
            force=given.force,
            threads=given.thread,
            dask=given.dask,
            full=given.full,
            against=against_file(given.against, rules),
        )
        if command is Command.SHOW:
            return settings
        # every PATH resolved, and the usage errors of inputs and -o raised, before any read
        return msgspec.structs.replace(
            settings, plan=plan_of(settings, strip=command is Command.STRIP)
        )

    @property
    def live_minutes(self) -> float:
        """How recently a session log may have been written to and still be taken for a running
        agent's: ``live-session-minutes`` (`LIVE_SESSION_MINUTES` when not set); 0 with
        ``--force``."""
        if self.force:
            return 0
        configured = self.config.live_session_minutes
        return LIVE_SESSION_MINUTES if configured is None else configured

    def options_for(self, source: Source, *, now: float, writers: OpenForWriting) -> Options:
        """The options for ``source``: its rules (`RuleSettings.options_for`), the command's
        mode, and the evidence of whether it is the log of an agent session that is still
        running, gathered here alone (the session layout decides from it,
        `patchcore.Result.live`; docs/cli.md#live-sessions):

        * whether a process holds the file open for writing (``writers``: on Linux, under
          ``/proc``): then it is live, however old its last entry, whatever
          ``live-session-minutes`` and ``--force`` say (`patchcore.Options.held_open`);
        * the moment ``live-session-minutes`` ago (`patchcore.Options.live_since`: a log whose
          newest entry is that recent is live, by its own clock), and for a log that records
          no time, whether the file was written to since (``live``); 0 minutes or ``--force``:
          the clock says never.

        stdin has no file, nor does a compressed file, which no agent appends to: never
        live. An event store's time is its folder's, which each new event file moves
        (`cli.event_stores`)."""
        options = self.rules.options_for(source.name)
        if self.against is not None:
            options = replace(options, against=self.against)
        if self.command is Command.STRIP:  # as patchcore.strip_document runs it
            options = replace(options, strip=True)
        if source.path is None or source.compression is not None:  # stdin, an archive
            return options
        try:
            status = source.path.stat()
        except OSError:
            return options
        if not stat.S_ISREG(status.st_mode) and not source.events:
            return options
        options = replace(options, held_open=bool(writers.holders(status)))
        minutes = self.live_minutes
        if not minutes:
            return options
        since = now - minutes * 60
        return replace(options, live=status.st_mtime >= since, live_since=since)


def against_file(before: Path | None, rules: RuleSettings) -> patchcore.Against | None:
    """What ``--against BEFORE`` holds each input against: the defects BEFORE, a trimmer's
    input, had already (`patchcore.against_document`, docs/cli.md#against). ``None``: not given.

    Raises:
        typer.BadParameter: BEFORE cannot be read, or holds no history toolpatch reads.
    """
    if before is None:
        return None
    try:
        data = before.read_bytes()
        return patchcore.against_document(
            data, filename=before.name, options=rules.options_for(str(before))
        )
    except OSError as exc:
        msg = f"cannot read {before}: {exc.strerror}"
    except patchcore.PatchcoreError as exc:
        where = patchcore.located_text(
            exc.reason, line=exc.line, column=exc.column, pointer=exc.pointer or None
        )
        msg = f"{before}: {where}"
    raise typer.BadParameter(msg, param_hint="--against")


def _given_or(given: Any, configured: Any) -> Any:
    """The command line's value over the configuration's (``None``: not given, not set)."""
    return given if given is not None else configured


def _split(values: list[str] | None) -> list[str] | None:
    """``--select A,B --select C`` → ``["A", "B", "C"]``."""
    if values is None:
        return None
    return [part for value in values for part in value.split(",") if part.strip()]


def _configuration(
    configs: list[str] | None,
    *,
    isolated: bool,
    paths: list[str] | None,
    stdin_filename: str | None,
) -> Config:
    """The run's configuration; one that cannot be used ends the run with exit code 2, and so
    does a current folder that no longer exists (removed under the shell): relative names,
    configuration discovery and the names shown all start from it."""
    try:
        os.getcwd()
    except FileNotFoundError:
        sys.stderr.write("toolpatch: error: the current folder no longer exists\n")
        raise typer.Exit(ExitCode.ERROR) from None
    try:
        return configuration.resolve(
            configs or [],
            isolated=isolated,
            paths=given_paths(paths or []),
            stdin_filename=stdin_filename,
        )
    except configuration.ConfigError as exc:
        sys.stderr.write(f"toolpatch: error: {visible(str(exc))}\n")  # it quotes the keys
        raise typer.Exit(ExitCode.ERROR) from None


def _mode(command: Command, given: CommandLine) -> Mode:
    """What the run does with what it finds."""
    if command is Command.SHOW:
        return Mode.CHECK
    if command is Command.CHECK:
        return Mode.FIX if given.fix else Mode.CHECK
    if given.diff:
        return Mode.FIX_DIFF
    return Mode.FIX_CHECK if given.check else Mode.FIX


def _output_format(
    command: Command, given: str | None, config: Config, *, also_fix: bool
) -> OutputFormat:
    """The report's format. ``check``'s: the first of ``--output-format`` (or
    ``TOOLPATCH_OUTPUT_FORMAT``, which Click reads for it) and the configured
    ``output-format``, else ``concise``. A fix's (``fix``, ``check --fix``): the first of these
    that names a text form (``concise``, ``full``, ``text``), else ``concise``; a machine
    format there is ``check``'s, passed over."""
    if command is Command.CHECK and not also_fix:
        return OutputFormat(given or config.output_format or OutputFormat.CONCISE.value)
    if command is Command.STRIP or command is Command.SHOW:
        return OutputFormat.CONCISE
    for value in (given, os.environ.get(OUTPUT_FORMAT_VARIABLE), config.output_format):
        try:
            chosen = OutputFormat(value) if value is not None else None
        except ValueError:
            continue
        if chosen is not None and chosen.for_people:
            return chosen
    return OutputFormat.CONCISE


def _walk(config: Config, given: CommandLine) -> WalkSettings:
    """What a run passes over: the command line's ``--[no-]respect-gitignore`` and
    ``--[no-]force-exclude`` over the configuration's keys."""
    respect_gitignore, force_exclude = given.respect_gitignore, given.force_exclude
    exclude = DEFAULT_EXCLUDE if config.exclude is None else config.exclude
    return WalkSettings(
        exclude=(*exclude, *config.extend_exclude),
        root=config.root,
        respect_gitignore=(
            respect_gitignore
            if respect_gitignore is not None
            else config.respect_gitignore is not False
        ),
        force_exclude=force_exclude if force_exclude is not None else bool(config.force_exclude),
    )


class Plan(msgspec.Struct, frozen=True):
    """A run's inputs, resolved once: its files, stdin and objects, its store URLs, and where
    its product goes."""

    sources: list[Source]
    stores: list[str]
    target: Target


def input_sources(
    paths: list[str] | None,
    *,
    stdin_filename: str | None,
    skip: bool,
    walk: WalkSettings | None = None,
) -> list[Source]:
    """The inputs; with ``skip``, named files without a history are skipped, not errors."""
    sources = resolve(paths or [], stdin_filename=stdin_filename, walk=walk or DEFAULT_WALK)
    return [structs.replace(source, explicit=False) for source in sources] if skip else sources


def _target(mode: Mode, output: Path | str | None, *, urls: bool) -> Target:
    """``-o`` of a run: for ``fix`` over URLs, a PREFIX each input is written under (a URL or
    a folder; ``-`` stays standard output); else ``-`` or a file.

    Raises:
        typer.BadParameter: The PREFIX is a URL toolpatch does not write (`checked_url`).
    """
    if output is None:
        return InPlace()
    if output in ("-", Path("-")):  # the one place ``-o -`` is read
        return ToStdout()
    if mode is Mode.FIX and urls:
        try:
            return ToPrefix(checked_url(str(output)))
        except RefusedURL as exc:
            raise typer.BadParameter(str(exc), param_hint="--output") from None
    return ToFile(Path(output))


def _split_paths(paths: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The PATHs as local paths (and ``-``), store URLs and object URLs, each in its order. Only
    a URL (`may_be_url`) or a folder (opencode's storage is named by its store URL) can be
    other than a local path."""
    if not any(may_be_url(path) or os.path.isdir(path) for path in paths):
        return paths, [], []
    paths, stores = split_paths(paths)
    paths, urls = split_urls(paths)
    return paths, stores, urls


def plan_of(settings: Settings, *, strip: bool) -> Plan:
    """The inputs of a run of ``check``, ``fix`` or ``strip`` (``strip``) and where its product
    goes. What the settings ask that these inputs cannot do is a usage error, located at its
    option.

    Raises:
        typer.BadParameter: ``-o``, ``--dask``, ``--thread`` or a store URL where it cannot be.
    """
    mode = settings.mode
    paths, stores, urls = _split_paths(settings.paths or [])
    target = _target(mode, settings.output, urls=bool(urls))
    prefix = target.url if isinstance(target, ToPrefix) else None
    skip = settings.skip_no_history  # a named object without a history is skipped too
    sources = (
        input_sources(paths, stdin_filename=settings.stdin_filename, skip=skip, walk=settings.walk)
        if paths or not (stores or urls)
        else []
    )
    if prefix is not None and sources:
        msg = "a PREFIX for URL inputs: name every input by its URL (file:// for local files)"
        raise typer.BadParameter(msg, param_hint="--output")
    for source in object_sources(urls, walk=settings.walk, output_prefix=prefix) if urls else ():
        sources.append(structs.replace(source, explicit=False) if skip else source)
    fixes_to = None if mode is not Mode.FIX or isinstance(target, (InPlace, ToPrefix)) else target
    if settings.dask is not None and any(source.is_stdin for source in sources):
        msg = "runs files and URLs on the cluster, not standard input"
        raise typer.BadParameter(msg, param_hint="--dask")
    if settings.dask is not None and isinstance(fixes_to, ToStdout):
        msg = "runs on the cluster, whose workers write files and objects, not this stdout"
        raise typer.BadParameter(msg, param_hint="--output")
    if settings.threads and not stores:
        msg = "names threads of a store: give a langgraph+ or agents+ URL"
        raise typer.BadParameter(msg, param_hint="--thread")
    if strip and stores:
        msg = (
            "strip reads files; a store's repair is undone by going back to the checkpoint "
            "or item before it (docs/stores.md#rolling-back)"
        )
        raise typer.BadParameter(msg, param_hint="PATH")
    if fixes_to is not None and stores:
        msg = "a store is repaired in place, not written to -o"
        raise typer.BadParameter(msg, param_hint="--output")
    if fixes_to is not None and len(sources) != 1:
        msg = f"needs exactly one input, got {len(sources)}"
        raise typer.BadParameter(msg, param_hint="--output")
    return Plan(sources, stores, target)
