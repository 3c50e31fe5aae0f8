"""Every option and argument of the command line, declared once: each command's signature
names the ones it takes (`cli.app`), and `cli.settings` turns the values given into a run's
settings. The ``--output-format`` choices live here too, apart from their reporters (which load
only when used).

A flag's name here is the name of its parameter in every command and of its key in the
settings: ``--keep-invalid-lines`` is ``keep_invalid_lines`` throughout.
"""

# No ``from __future__ import annotations``: Typer reads these annotations as objects.

import enum
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NamedTuple, Optional, TypeVar

import typer

from .cluster_address import ClusterAddress, cluster_address
from .console import ColorMode

#: The environment variable that chooses ``check``'s report (and, naming a text form, ``fix``'s).
OUTPUT_FORMAT_VARIABLE = "TOOLPATCH_OUTPUT_FORMAT"


class OutputFormat(str, enum.Enum):
    """The ``--output-format`` choices."""

    CONCISE = "concise"
    """For people, on stderr: one line per finding, each rule's provider error once (ruff's)."""
    FULL = "full"
    """For people: each finding with its dialect and the provider's error under it."""
    TEXT = "text"
    """The name the concise report had before ``full`` existed; it still means ``concise``."""
    JSON = "json"
    JSONL = "jsonl"
    GITHUB = "github"
    SARIF = "sarif"
    HTML = "html"
    """One self-contained page to look at a corpus (the ``html`` extra)."""

    @property
    def for_people(self) -> bool:
        """Whether this is a text report (``concise``, ``full``, ``text``), not a machine one."""
        return self in (OutputFormat.CONCISE, OutputFormat.FULL, OutputFormat.TEXT)


class TextFormat(str, enum.Enum):
    """The ``fix --output-format`` choices: the text report's forms (`OutputFormat`'s)."""

    CONCISE = OutputFormat.CONCISE.value
    FULL = OutputFormat.FULL.value
    TEXT = OutputFormat.TEXT.value


class RulesFormat(str, enum.Enum):
    """The ``rules --output-format`` choices: the listing, or ``docs/rules.md`` itself."""

    TEXT = "text"
    MARKDOWN = "markdown"


class Param(NamedTuple):
    """One option or argument of the command line, declared once.

    Attributes:
        name: Its parameter's name, and its key in what `cli.settings.Settings.of` reads.
        declared: Its type with Typer's declaration (``Annotated[type, typer.Option(...)]``).
        default: Its value when not given (`REQUIRED`: none, it must be given).
    """

    name: str
    declared: Any
    default: Any


#: The default of a required argument.
REQUIRED = inspect.Parameter.empty

_Command = TypeVar("_Command", bound=Callable[..., int])


def takes(*params: Param) -> Callable[[_Command], _Command]:
    """Give a command (a function of ``**given``) these options and arguments, in this order
    (its ``--help``'s): Typer reads a command's options from its signature, and calls it with
    each by name."""

    def declare(command: _Command) -> _Command:
        command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                inspect.Parameter(
                    param.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=param.declared,
                    default=param.default,
                )
                for param in params
            ],
            return_annotation=int,
        )
        return command

    return declare


def _flag(name: str, *flags: str, does: str) -> Param:
    """An on/off option, off unless given."""
    return Param(name, Annotated[bool, typer.Option(*flags, help=does)], False)


def _valued(name: str, kind: Any, *flags: str, metavar: str, does: str, **more: Any) -> Param:
    """An option that takes a value of ``kind`` (``list[str]``: repeated, several), with no
    default shown (``None``: not given); ``more``: Typer's other settings (``min``)."""
    option = typer.Option(*flags, metavar=metavar, help=does, show_default=False, **more)
    return Param(name, Annotated[Optional[kind], option], None)  # noqa: UP045 - Python 3.10


def _switch(name: str, key: str, does: str, *, default: str = "off") -> Param:
    """A ``--KEY/--no-KEY`` option that overrides the configured ``KEY`` either way (``None``:
    not given)."""
    option = typer.Option(
        f"--{key}/--no-{key}",
        help=f"{does} Default: {default}, or the configured {key}.",
        show_default=False,
    )
    return Param(name, Annotated[Optional[bool], option], None)  # noqa: UP045


PATHS = Param(
    "paths",
    Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer needs the Optional spelling on Python 3.10
        typer.Argument(
            metavar="[PATH]...",
            help="Files, directories (searched for *.json, *.jsonl, *.ndjson, also .gz or .zst) "
            "or - for stdin; or store URLs, each of whose threads is an input: "
            "langgraph+sqlite:///threads.sqlite, langgraph+postgresql://user@host/db, "
            "agents+sqlite:///sessions.db (docs/stores.md). "
            "Without PATH: stdin when it holds data (a pipe, a non-empty file), else the current "
            "folder.",
            show_default=False,
        ),
    ],
    None,
)
SELECT = _valued(
    "select",
    list[str],
    "--select",
    metavar="CODES",
    does="Rule codes or prefixes to apply, comma-separated or repeated (ALL for every "
    "rule). Default: TP0,TP103,TP2,TP3 (TP3: the --target provider's rules).",
)
IGNORE = _valued(
    "ignore", list[str], "--ignore", metavar="CODES", does="Rule codes or prefixes to leave out."
)
DIALECT = _valued(
    "dialect",
    str,
    "--dialect",
    metavar="NAME",
    does="Read every message list as this dialect instead of detecting it (see "
    "`toolpatch formats`).",
)
TARGET = _valued(
    "target",
    str,
    "--target",
    metavar="PROVIDER",
    does="The provider the histories are sent to (anthropic, gemini, mistral, openai): its "
    "own rules (TP3xx) apply to the lists it takes. Default: none, or the configured target.",
)
REPAIR = _valued(
    "repair",
    str,
    "--repair",
    metavar="answer|drop",
    does="What the fix of an unanswered call does: answer it with a synthetic error result "
    "(a safe fix), or drop the call (an unsafe fix, never in an agent session log). "
    "Default: answer, or the configured repair.",
)
# Flags, not counts: the report has levels (silent, quiet, normal, verbose), and -qq or -vv
# would say nothing more than -q or -v.
QUIET = _flag(
    "quiet",
    "-q",
    "--quiet",
    does="Print only the findings, warnings and errors: no provider errors, hints or summary.",
)
SILENT = _flag(
    "silent",
    "-s",
    "--silent",
    does="Print nothing, errors included; the exit code still tells (repaired data and the "
    "diff still go to stdout).",
)
STATISTICS = _flag(
    "statistics",
    "--statistics",
    does="Count the findings in two tables, by rule and by file, instead of listing them.",
)
VERBOSE = _flag(
    "verbose",
    "-v",
    "--verbose",
    does="Also print clean and skipped files, the message lists found and fixed findings.",
)
JOBS = _valued(
    "jobs",
    int,
    "-j",
    "--jobs",
    metavar="N",
    does="Worker processes for large JSON Lines corpora. Default: every core; small inputs "
    "never start workers.",
    min=1,
)
STDIN_FILENAME = _valued(
    "stdin_filename",
    str,
    "--stdin-filename",
    metavar="NAME",
    does="Name stdin in messages (its extension also tells .jsonl framing).",
)
COLOR = Param(
    "color",
    Annotated[
        ColorMode,
        typer.Option("--color", help="Colour output: auto (on a terminal only), always or never."),
    ],
    ColorMode.AUTO,
)
CONFIG = _valued(
    "config",
    list[str],
    "--config",
    metavar="CONFIG",
    does="A configuration file to use instead of the one found (toolpatch.toml, or a "
    "pyproject.toml with [tool.toolpatch]), or a 'KEY = VALUE' override (repeatable).",
)
ISOLATED = _flag(
    "isolated",
    "--isolated",
    does="Ignore every configuration file.",
)
THREAD = _valued(
    "thread",
    list[str],
    "--thread",
    metavar="ID",
    does="Only this thread (session) of the store URLs given as PATH (repeatable). "
    "Default: every thread's latest checkpoint (docs/stores.md).",
)


def _cluster_address(given: str) -> ClusterAddress:
    """``--dask``'s value checked as it is parsed: an odd one is a usage error at once."""
    try:
        return cluster_address(given)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


DASK = _valued(
    "dask",
    ClusterAddress,
    "--dask",
    metavar="ADDRESS",
    does="Run every input as a task on a Dask cluster: tcp://HOST:PORT (its scheduler), or "
    "local / local:N (N worker processes here, never more than the cores or the inputs). "
    "The [dask] extra; docs/large-corpora.md.",
    parser=_cluster_address,
)
EXIT_ZERO = _flag(
    "exit_zero",
    "--exit-zero",
    does="Exit 0 even when findings remain (errors still exit 2).",
)


UNSAFE_FIXES = _switch(
    "unsafe_fixes",
    "unsafe-fixes",
    "Also apply the fixes that delete or move existing content (the TP1xx rules).",
)
#: `show` writes nothing: there the option only says which fixes to show in place.
SHOW_UNSAFE_FIXES = _switch(
    "unsafe_fixes",
    "unsafe-fixes",
    "Also show what the fixes that delete or move existing content would do (nothing is written).",
)
FORCE = _flag(
    "force",
    "--force",
    does="Treat an agent session log as ended even if its last entry (or, where it records "
    "no time, the file) was written in the last live-session-minutes (default 10): answer "
    "its pending calls and write the file, which its agent, if still running, may go on "
    "appending to the old one.",
)
KEEP_INVALID_LINES = _switch(
    "keep_invalid_lines",
    "keep-invalid-lines",
    "In a corpus of one conversation per line, keep a line that is not JSON as it is and "
    "report it, instead of failing the file.",
)
FIX_TRAINING_TARGETS = _switch(
    "fix_training_targets",
    "fix-training-targets",
    "In fine-tuning data (one example per line), also answer the call an example ends on, its "
    "training target, which is otherwise reported and left as it is "
    "(docs/cli.md#fine-tuning-data).",
)
MAX_RECORD_MIB = Param(
    "max_record_mib",
    Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--max-record-mib",
            min=1,
            metavar="MIB",
            help="Refuse a record (a JSON document, or a line of JSON Lines) larger than this many "
            "MiB, unread, as that input's error [default: 256].",
        ),
    ],
    None,
)
SKIP_NO_HISTORY = _flag(
    "skip_no_history",
    "--skip-no-history",
    does="Skip named files that hold no message history instead of failing, as files found "
    "in a directory are (for pre-commit).",
)

RESPECT_GITIGNORE = _switch(
    "respect_gitignore",
    "respect-gitignore",
    "Pass over what .gitignore, .ignore and .git/info/exclude files ignore when walking a "
    "directory.",
    default="on",
)
FORCE_EXCLUDE = _switch(
    "force_exclude",
    "force-exclude",
    "Pass over named paths too when exclude, extend-exclude or an ignore file excludes "
    "them (for pre-commit, which names every staged file).",
)


DIFF = _flag(
    "diff",
    "--diff",
    does="Print a unified diff of the changes; write nothing.",
)
CHECK = _flag(
    "check",
    "--check",
    does="Only say which files would change (exit 1); write nothing.",
)
OUTPUT = Param(
    "output",
    Annotated[
        Optional[str],  # noqa: UP045 - a string: a Path would fold the // of a URL prefix
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Write the changed data to FILE (- for stdout) instead of in place; with URL "
            "inputs, a PREFIX (URL or folder) each input is written under.",
        ),
    ],
    None,
)
REPORT_FORMAT = Param(
    "output_format",
    Annotated[
        Optional[OutputFormat],  # noqa: UP045
        typer.Option(
            "--output-format",
            envvar=OUTPUT_FORMAT_VARIABLE,
            metavar="FORMAT",
            help="How to report findings: concise (for people, on stderr: a line per finding, "
            "each rule's provider errors once; text is its former name), full (each finding "
            "with its dialect and provider error), json, jsonl, github (workflow annotations), "
            "sarif or html (a self-contained page), on stdout or -o FILE. Default: concise, or "
            "the configured output-format.",
            show_default=False,
        ),
    ],
    None,
)
REPORT_FILE = _valued(
    "output_file",
    Path,
    "-o",
    "--output-file",
    "--output",
    metavar="FILE",
    does="Write the report to FILE (- for stdout) instead of stdout (machine formats) or "
    "stderr (text).",
)
AGAINST = _valued(
    "against",
    Path,
    "--against",
    metavar="BEFORE",
    does="Report only what each PATH, a trimmer's output, broke that BEFORE, its input, did "
    "not have: a call cut from its result, a result from its call, a turn cut apart.",
)
ALSO_FIX = _flag(
    "fix",
    "--fix",
    does="Repair what can be repaired, as toolpatch fix does (in place; stdin to stdout), "
    "and report what is left.",
)
TEXT_FORMAT = Param(
    "output_format",
    Annotated[
        Optional[TextFormat],  # noqa: UP045
        typer.Option(
            "--output-format",
            help="How to report what is left: concise or full, as check's. Default: "
            "TOOLPATCH_OUTPUT_FORMAT or the configured output-format when it is one of them, "
            "else concise.",
            show_default=False,
        ),
    ],
    None,
)
EXIT_NON_ZERO_ON_FIX = _flag(
    "exit_non_zero_on_fix",
    "--exit-non-zero-on-fix",
    does="Exit 1 when anything was fixed, even if nothing remains (errors still exit 2).",
)
HISTORY = Param(
    "path",
    Annotated[
        str,
        typer.Argument(metavar="PATH", help="A history file, or - for stdin.", show_default=False),
    ],
    REQUIRED,
)
FULL = _flag(
    "full",
    "--full",
    does="Show every message's text whole, not cut short.",
)
RULES_FORMAT = Param(
    "output_format",
    Annotated[
        RulesFormat,
        typer.Option(
            "--output-format",
            metavar="FORMAT",
            help="text (the listing) or markdown (the rules reference, docs/rules.md).",
        ),
    ],
    RulesFormat.TEXT,
)
RULE = Param(
    "code",
    Annotated[
        str,
        typer.Argument(
            metavar="CODE|NAME",
            help="A rule's code or name: TP001, tp001 or dangling-tool-call.",
            show_default=False,
        ),
    ],
    REQUIRED,
)


#: Options several commands take together, in their ``--help`` order.
#: How ``fix`` and ``strip`` write: in place, or say, or diff, or to ``-o``.
WRITING = (DIFF, CHECK, OUTPUT)
#: How ``check`` and ``fix`` read an input: live sessions, torn lines, training targets, the
#: record limit.
READING = (FORCE, KEEP_INVALID_LINES, FIX_TRAINING_TARGETS, MAX_RECORD_MIB)
#: Which configuration applies, and which inputs a run takes and how many workers it starts.
FINDING = (CONFIG, ISOLATED, SKIP_NO_HISTORY, RESPECT_GITIGNORE, FORCE_EXCLUDE, JOBS)
#: How much the report says, and what it calls standard input.
TELLING = (QUIET, SILENT, VERBOSE, STDIN_FILENAME)


class LogFormat(str, enum.Enum):
    """The ``proxy --log-format`` choices."""

    TEXT = "text"
    """A line per request on stderr, for people."""
    JSON = "json"
    """A JSON object per request on stdout (JSON Lines), for a log collector."""


#: `toolpatch proxy`'s own options (docs/proxy.md).
UPSTREAM = Param(
    "upstream",
    Annotated[
        str,
        typer.Option(
            "--upstream",
            metavar="URL",
            help="The provider's base URL every request goes on to, its path appended: "
            "https://api.anthropic.com, https://api.openai.com, "
            "https://generativelanguage.googleapis.com.",
            show_default=False,
        ),
    ],
    REQUIRED,
)
LISTEN = _valued(
    "listen",
    str,
    "--listen",
    metavar="HOST:PORT",
    does="Where the proxy listens (port 0: a free one, said on stderr). Default: "
    "127.0.0.1:8787. An address other than loopback needs --allow-remote.",
)
ALLOW_REMOTE = _flag(
    "allow_remote",
    "--allow-remote",
    does="Let --listen name an address other than loopback: anyone who reaches it sends "
    "requests with the credentials they bring, through this machine (docs/proxy.md#listening).",
)
CHECK_ONLY = _flag(
    "check_only",
    "--check-only",
    does="Report what each request holds, as check does; forward every body unchanged.",
)
LOG_FORMAT = Param(
    "log_format",
    Annotated[
        LogFormat,
        typer.Option(
            "--log-format",
            metavar="FORMAT",
            help="text (a line per request that was not clean, on stderr) or json (the same as "
            "JSON Lines, on stdout). Bodies and credentials are never logged.",
        ),
    ],
    LogFormat.TEXT,
)
