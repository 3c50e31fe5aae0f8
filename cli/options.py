"""Every option and argument of the command line, declared once as a type: ``Select`` is
``Annotated[list[str] | None, typer.Option("--select", ...)]``, and each command of `cli.app`
declares the ones it takes as its own typed parameters (``select: Select = None``), in its
``--help``'s order, so mypy sees every one. `cli.settings.CommandLine` holds the values given, a
field per option, and `cli.settings.Settings.of` turns them into a run's settings. The
``--output-format`` choices live here too, apart from their reporters (which load only when used).

A flag's name here is the name of its parameter in every command and of its field in
`cli.settings.CommandLine`: ``--keep-invalid-lines`` is ``keep_invalid_lines`` throughout.
"""

# No ``from __future__ import annotations``: Typer reads these annotations as objects. Typer
# needs the ``Optional`` spelling on Python 3.10 (UP045 would write ``X | None``).
# ruff: noqa: UP045

import enum
from pathlib import Path
from typing import Annotated, Any, Optional

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


def _valued(*flags: str, metavar: str, does: str, **more: Any) -> Any:
    """An option that takes a value (a ``list``: repeated, several), with no default shown
    (``None``: not given); ``more``: Typer's other settings (``min``)."""
    return typer.Option(*flags, metavar=metavar, help=does, show_default=False, **more)


def _switch(key: str, does: str, *, default: str = "off") -> Any:
    """A ``--KEY/--no-KEY`` option that overrides the configured ``KEY`` either way (``None``:
    not given)."""
    return typer.Option(
        f"--{key}/--no-{key}",
        help=f"{does} Default: {default}, or the configured {key}.",
        show_default=False,
    )


Paths = Annotated[
    Optional[list[str]],
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
]
Select = Annotated[
    Optional[list[str]],
    _valued(
        "--select",
        metavar="CODES",
        does="Rule codes or prefixes to apply, comma-separated or repeated (ALL for every "
        "rule). Default: TP0,TP103,TP2,TP3 (TP3: the --target provider's rules).",
    ),
]
Ignore = Annotated[
    Optional[list[str]],
    _valued("--ignore", metavar="CODES", does="Rule codes or prefixes to leave out."),
]
DialectName = Annotated[
    Optional[str],
    _valued(
        "--dialect",
        metavar="NAME",
        does="Read every message list as this dialect instead of detecting it (see "
        "`toolpatch formats`).",
    ),
]
Target = Annotated[
    Optional[str],
    _valued(
        "--target",
        metavar="PROVIDER",
        does="The provider the histories are sent to (anthropic, gemini, mistral, openai): its "
        "own rules (TP3xx) apply to the lists it takes. Default: none, or the configured target.",
    ),
]
Repair = Annotated[
    Optional[str],
    _valued(
        "--repair",
        metavar="answer|drop",
        does="What the fix of an unanswered call does: answer it with a synthetic error result "
        "(a safe fix), or drop the call (an unsafe fix, never in an agent session log). "
        "Default: answer, or the configured repair.",
    ),
]
# Flags, not counts: the report has levels (silent, quiet, normal, verbose), and -qq or -vv
# would say nothing more than -q or -v.
Quiet = Annotated[
    bool,
    typer.Option(
        "-q",
        "--quiet",
        help="Print only the findings, warnings and errors: no provider errors, hints or summary.",
    ),
]
Silent = Annotated[
    bool,
    typer.Option(
        "-s",
        "--silent",
        help="Print nothing, errors included; the exit code still tells (repaired data and the "
        "diff still go to stdout).",
    ),
]
Statistics = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Count the findings in two tables, by rule and by file, instead of listing them.",
    ),
]
Verbose = Annotated[
    bool,
    typer.Option(
        "-v",
        "--verbose",
        help="Also print clean and skipped files, the message lists found and fixed findings.",
    ),
]
Jobs = Annotated[
    Optional[int],
    _valued(
        "-j",
        "--jobs",
        metavar="N",
        does="Worker processes for large JSON Lines corpora. Default: every core; small inputs "
        "never start workers.",
        min=1,
    ),
]
StdinFilename = Annotated[
    Optional[str],
    _valued(
        "--stdin-filename",
        metavar="NAME",
        does="Name stdin in messages (its extension also tells .jsonl framing).",
    ),
]
Color = Annotated[
    ColorMode,
    typer.Option("--color", help="Colour output: auto (on a terminal only), always or never."),
]
Configuration = Annotated[
    Optional[list[str]],
    _valued(
        "--config",
        metavar="CONFIG",
        does="A configuration file to use instead of the one found (toolpatch.toml, or a "
        "pyproject.toml with [tool.toolpatch]), or a 'KEY = VALUE' override (repeatable).",
    ),
]
Isolated = Annotated[bool, typer.Option("--isolated", help="Ignore every configuration file.")]
Thread = Annotated[
    Optional[list[str]],
    _valued(
        "--thread",
        metavar="ID",
        does="Only this thread (session) of the store URLs given as PATH (repeatable). "
        "Default: every thread's latest checkpoint (docs/stores.md).",
    ),
]


def _cluster_address(given: str) -> ClusterAddress:
    """``--dask``'s value checked as it is parsed: an odd one is a usage error at once."""
    try:
        return cluster_address(given)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


Dask = Annotated[
    Optional[ClusterAddress],
    _valued(
        "--dask",
        metavar="ADDRESS",
        does="Run every input as a task on a Dask cluster: tcp://HOST:PORT (its scheduler), or "
        "local / local:N (N worker processes here, never more than the cores or the inputs). "
        "The [dask] extra; docs/large-corpora.md.",
        parser=_cluster_address,
    ),
]
ExitZero = Annotated[
    bool,
    typer.Option("--exit-zero", help="Exit 0 even when findings remain (errors still exit 2)."),
]
UnsafeFixes = Annotated[
    Optional[bool],
    _switch(
        "unsafe-fixes",
        "Also apply the fixes that delete or move existing content (the TP1xx rules).",
    ),
]
#: `show` writes nothing: there the option only says which fixes to show in place.
ShowUnsafeFixes = Annotated[
    Optional[bool],
    _switch(
        "unsafe-fixes",
        "Also show what the fixes that delete or move existing content would do (nothing is "
        "written).",
    ),
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Treat an agent session log as ended even if its last entry (or, where it records "
        "no time, the file) was written in the last live-session-minutes (default 10): answer "
        "its pending calls and write the file, which its agent, if still running, may go on "
        "appending to the old one.",
    ),
]
KeepInvalidLines = Annotated[
    Optional[bool],
    _switch(
        "keep-invalid-lines",
        "In a corpus of one conversation per line, keep a line that is not JSON as it is and "
        "report it, instead of failing the file.",
    ),
]
FixTrainingTargets = Annotated[
    Optional[bool],
    _switch(
        "fix-training-targets",
        "In fine-tuning data (one example per line), also answer the call an example ends on, "
        "its training target, which is otherwise reported and left as it is "
        "(docs/cli.md#fine-tuning-data).",
    ),
]
MaxRecordMib = Annotated[
    Optional[int],
    typer.Option(
        "--max-record-mib",
        min=1,
        metavar="MIB",
        help="Refuse a record (a JSON document, or a line of JSON Lines) larger than this many "
        "MiB, unread, as that input's error [default: 256].",
    ),
]
SkipNoHistory = Annotated[
    bool,
    typer.Option(
        "--skip-no-history",
        help="Skip named files that hold no message history instead of failing, as files found "
        "in a directory are (for pre-commit).",
    ),
]
RespectGitignore = Annotated[
    Optional[bool],
    _switch(
        "respect-gitignore",
        "Pass over what .gitignore, .ignore and .git/info/exclude files ignore when walking a "
        "directory.",
        default="on",
    ),
]
ForceExclude = Annotated[
    Optional[bool],
    _switch(
        "force-exclude",
        "Pass over named paths too when exclude, extend-exclude or an ignore file excludes "
        "them (for pre-commit, which names every staged file).",
    ),
]
Diff = Annotated[
    bool, typer.Option("--diff", help="Print a unified diff of the changes; write nothing.")
]
Check = Annotated[
    bool,
    typer.Option("--check", help="Only say which files would change (exit 1); write nothing."),
]
Output = Annotated[
    Optional[str],  # a string: a Path would fold the // of a URL prefix
    typer.Option(
        "-o",
        "--output",
        metavar="FILE",
        help="Write the changed data to FILE (- for stdout) instead of in place; with URL "
        "inputs, a PREFIX (URL or folder) each input is written under.",
    ),
]
ReportFormat = Annotated[
    Optional[OutputFormat],
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
]
ReportFile = Annotated[
    Optional[Path],
    _valued(
        "-o",
        "--output-file",
        "--output",
        metavar="FILE",
        does="Write the report to FILE (- for stdout) instead of stdout (machine formats) or "
        "stderr (text).",
    ),
]
Against = Annotated[
    Optional[Path],
    _valued(
        "--against",
        metavar="BEFORE",
        does="Report only what each PATH, a trimmer's output, broke that BEFORE, its input, did "
        "not have: a call cut from its result, a result from its call, a turn cut apart.",
    ),
]
AlsoFix = Annotated[
    bool,
    typer.Option(
        "--fix",
        help="Repair what can be repaired, as toolpatch fix does (in place; stdin to stdout), "
        "and report what is left.",
    ),
]
FixFormat = Annotated[
    Optional[TextFormat],
    typer.Option(
        "--output-format",
        help="How to report what is left: concise or full, as check's. Default: "
        "TOOLPATCH_OUTPUT_FORMAT or the configured output-format when it is one of them, "
        "else concise.",
        show_default=False,
    ),
]
ExitNonZeroOnFix = Annotated[
    bool,
    typer.Option(
        "--exit-non-zero-on-fix",
        help="Exit 1 when anything was fixed, even if nothing remains (errors still exit 2).",
    ),
]
History = Annotated[
    str,
    typer.Argument(metavar="PATH", help="A history file, or - for stdin.", show_default=False),
]
Full = Annotated[
    bool, typer.Option("--full", help="Show every message's text whole, not cut short.")
]
RulesFormatOption = Annotated[
    RulesFormat,
    typer.Option(
        "--output-format",
        metavar="FORMAT",
        help="text (the listing) or markdown (the rules reference, docs/rules.md).",
    ),
]
RuleName = Annotated[
    str,
    typer.Argument(
        metavar="CODE|NAME",
        help="A rule's code or name: TP001, tp001 or dangling-tool-call.",
        show_default=False,
    ),
]


class LogFormat(str, enum.Enum):
    """The ``proxy --log-format`` choices."""

    TEXT = "text"
    """A line per request on stderr, for people."""
    JSON = "json"
    """A JSON object per request on stdout (JSON Lines), for a log collector."""


#: `toolpatch proxy`'s own options (docs/proxy.md).
Upstream = Annotated[
    str,
    typer.Option(
        "--upstream",
        metavar="URL",
        help="The provider's base URL every request goes on to, its path appended: "
        "https://api.anthropic.com, https://api.openai.com, "
        "https://generativelanguage.googleapis.com.",
        show_default=False,
    ),
]
Listen = Annotated[
    Optional[str],
    _valued(
        "--listen",
        metavar="HOST:PORT",
        does="Where the proxy listens (port 0: a free one, said on stderr). Default: "
        "127.0.0.1:8787. An address other than loopback needs --allow-remote.",
    ),
]
AllowRemote = Annotated[
    bool,
    typer.Option(
        "--allow-remote",
        help="Let --listen name an address other than loopback: anyone who reaches it sends "
        "requests with the credentials they bring, through this machine "
        "(docs/proxy.md#listening).",
    ),
]
CheckOnly = Annotated[
    bool,
    typer.Option(
        "--check-only",
        help="Report what each request holds, as check does; forward every body unchanged.",
    ),
]
LogFormatOption = Annotated[
    LogFormat,
    typer.Option(
        "--log-format",
        metavar="FORMAT",
        help="text (a line per request that was not clean, on stderr) or json (the same as "
        "JSON Lines, on stdout). Bodies and credentials are never logged.",
    ),
]
