"""The ``toolpatch`` command: argv → options → read → patchcore → report → write → exit code."""

# No ``from __future__ import annotations`` here: Typer reads every command's annotations at each
# start, and as objects they cost it nothing, where as strings it evaluates each one (~6 ms).

import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer

import patchcore

from .console import ColorMode, Printer, stderr_printer, verbosity, wants_color
from .exit_codes import ExitCode
from .help_format import HELP_WIDTH, HelpCommand, HelpGroup
from .output_format import OutputFormat, RulesFormat, TextFormat
from .visible import visible

if TYPE_CHECKING:
    from .config_files import Config
    from .input_run import Mode

# Only what defining the command line needs is imported here; each command imports the
# machinery it runs (`cli.command_run` for check and fix), so `--help` and the listings load none of
# it, and a check loads only what its inputs need.

EXIT_CODES_HELP = (
    "Exit codes: 0 clean or everything fixed; 1 findings remain (or --check/--diff would "
    "change something); 2 unreadable input, usage error or internal error; 130 interrupted "
    "(Ctrl-C); 143 terminated (SIGTERM)."
)

app = typer.Typer(
    name="toolpatch",
    help="Find and repair dangling tool calls in serialized LLM chat histories.",
    epilog=EXIT_CODES_HELP + " For a command's options: toolpatch COMMAND --help.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # Click's plain help layout, not Rich panels (`cli.help_format`)
    cls=HelpGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_WIDTH},
)

PathsArg = Annotated[
    Optional[list[str]],  # noqa: UP045 - Typer needs the Optional spelling on Python 3.10
    typer.Argument(
        metavar="[PATH]...",
        help="Files, directories (searched for *.json, *.jsonl, *.ndjson, also .gz or .zst) or - "
        "for stdin; or store URLs, each of whose threads is an input: "
        "langgraph+sqlite:///threads.sqlite, langgraph+postgresql://user@host/db, "
        "agents+sqlite:///sessions.db (docs/stores.md). "
        "Without PATH: stdin when it holds data (a pipe, a non-empty file), else the current "
        "folder.",
        show_default=False,
    ),
]
SelectOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--select",
        metavar="CODES",
        help="Rule codes or prefixes to apply, comma-separated or repeated (ALL for every "
        "rule). Default: TP0.",
        show_default=False,
    ),
]
IgnoreOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--ignore", metavar="CODES", help="Rule codes or prefixes to leave out.", show_default=False
    ),
]


def _valued(flag: str, metavar: str, does: str) -> Any:
    """An option that takes one value, with no default shown (``None``: not given).
    typer.Option is typed as returning Any."""
    return typer.Option(flag, metavar=metavar, help=does, show_default=False)


DialectOpt = Annotated[
    Optional[str],  # noqa: UP045
    _valued(
        "--dialect",
        "NAME",
        "Read every message list as this dialect instead of detecting it (see "
        "`toolpatch formats`).",
    ),
]
RepairOpt = Annotated[
    Optional[str],  # noqa: UP045
    _valued(
        "--repair",
        "answer|drop",
        "What the fix of an unanswered call does: answer it with a synthetic error result "
        "(a safe fix), or drop the call (an unsafe fix, never in an agent session log). "
        "Default: answer, or the configured repair.",
    ),
]
# Flags, not counts: the report has levels (silent, quiet, normal, verbose), and -qq or -vv
# would say nothing more than -q or -v.
QuietOpt = Annotated[
    bool,
    typer.Option(
        "-q",
        "--quiet",
        help="Print only the findings, warnings and errors: no provider errors, hints or summary.",
    ),
]
SilentOpt = Annotated[
    bool,
    typer.Option(
        "-s",
        "--silent",
        help="Print nothing, errors included; the exit code still tells (repaired data and the "
        "diff still go to stdout).",
    ),
]
StatisticsOpt = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Count the findings in two tables, by rule and by file, instead of listing them.",
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "-v",
        "--verbose",
        help="Also print clean and skipped files, the message lists found and fixed findings.",
    ),
]
JobsOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "-j",
        "--jobs",
        min=1,
        metavar="N",
        help="Worker processes for large JSON Lines corpora. Default: every core; small inputs "
        "never start workers.",
        show_default=False,
    ),
]
StdinFilenameOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--stdin-filename",
        metavar="NAME",
        help="Name stdin in messages (its extension also tells .jsonl framing).",
        show_default=False,
    ),
]
ColorOpt = Annotated[
    ColorMode,
    typer.Option("--color", help="Colour output: auto (on a terminal only), always or never."),
]
ConfigOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--config",
        metavar="CONFIG",
        help="A configuration file to use instead of the one found (toolpatch.toml, or a "
        "pyproject.toml with [tool.toolpatch]), or a 'KEY = VALUE' override (repeatable).",
        show_default=False,
    ),
]
IsolatedOpt = Annotated[bool, typer.Option("--isolated", help="Ignore every configuration file.")]
ThreadOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--thread",
        metavar="ID",
        help="Only this thread (session) of the store URLs given as PATH (repeatable). Default: "
        "every thread's latest checkpoint (docs/stores.md).",
        show_default=False,
    ),
]
DaskOpt = Annotated[
    Optional[str],  # noqa: UP045
    _valued(
        "--dask",
        "ADDRESS",
        "Run every input as a task on a Dask cluster: tcp://HOST:PORT (its scheduler), or "
        "local / local:N (N worker processes here). The [dask] extra; docs/large-corpora.md.",
    ),
]
ExitZeroOpt = Annotated[
    bool,
    typer.Option("--exit-zero", help="Exit 0 even when findings remain (errors still exit 2)."),
]


def _switch(key: str, does: str, *, default: str = "off") -> Any:
    """A ``--KEY/--no-KEY`` option that overrides the configured ``KEY`` either way (``None``:
    not given). typer.Option is typed as returning Any."""
    return typer.Option(
        f"--{key}/--no-{key}",
        help=f"{does} Default: {default}, or the configured {key}.",
        show_default=False,
    )


UnsafeFixesOpt = Annotated[
    Optional[bool],  # noqa: UP045
    _switch(
        "unsafe-fixes",
        "Also apply the fixes that delete or move existing content (the TP1xx rules).",
    ),
]
#: `show` writes nothing: there the option only says which fixes to show in place.
ShowUnsafeFixesOpt = Annotated[
    Optional[bool],  # noqa: UP045
    _switch(
        "unsafe-fixes",
        "Also show what the fixes that delete or move existing content would do (nothing is "
        "written).",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Treat an agent session log as ended even if its last entry (or, where it records "
        "no time, the file) was written in the last live-session-minutes (default 10): answer "
        "its pending calls and write the file, which its agent, if still running, may go on "
        "appending to the old one.",
    ),
]
KeepInvalidLinesOpt = Annotated[
    Optional[bool],  # noqa: UP045
    _switch(
        "keep-invalid-lines",
        "In a corpus of one conversation per line, keep a line that is not JSON as it is and "
        "report it, instead of failing the file.",
    ),
]
MaxRecordOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--max-record-mib",
        min=1,
        metavar="MIB",
        help="Refuse a record (a JSON document, or a line of JSON Lines) larger than this many "
        "MiB, unread, as that input's error [default: 256].",
    ),
]
SkipNoHistoryOpt = Annotated[
    bool,
    typer.Option(
        "--skip-no-history",
        help="Skip named files that hold no message history instead of failing, as files found "
        "in a directory are (for pre-commit).",
    ),
]

RespectGitignoreOpt = Annotated[
    Optional[bool],  # noqa: UP045
    _switch(
        "respect-gitignore",
        "Pass over what .gitignore, .ignore and .git/info/exclude files ignore when walking a "
        "directory.",
        default="on",
    ),
]
ForceExcludeOpt = Annotated[
    Optional[bool],  # noqa: UP045
    _switch(
        "force-exclude",
        "Pass over named paths too when exclude, extend-exclude or an ignore file excludes "
        "them (for pre-commit, which names every staged file).",
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"toolpatch {patchcore.__version__}")
        raise typer.Exit


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "-V", "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Find and repair dangling tool calls in serialized LLM chat histories."""


@app.command(cls=HelpCommand, short_help="Report findings; write nothing.", epilog=EXIT_CODES_HELP)
def check(
    paths: PathsArg = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    dialect: DialectOpt = None,
    repair: RepairOpt = None,
    output_format: Annotated[
        Optional[OutputFormat],  # noqa: UP045
        typer.Option(
            "--output-format",
            envvar="TOOLPATCH_OUTPUT_FORMAT",
            metavar="FORMAT",
            help="How to report findings: concise (for people, on stderr: a line per finding, "
            "each rule's provider errors once; text is its former name), full (each finding "
            "with its dialect and provider error), json, jsonl, github (workflow annotations), "
            "sarif or html (a self-contained page), on stdout or -o FILE. Default: concise, or "
            "the configured output-format.",
            show_default=False,
        ),
    ] = None,
    output_file: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "-o",
            "--output-file",
            "--output",
            metavar="FILE",
            help="Write the report to FILE (- for stdout) instead of stdout (machine formats) or "
            "stderr (text).",
            show_default=False,
        ),
    ] = None,
    exit_zero: ExitZeroOpt = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Repair what can be repaired, as toolpatch fix does (in place; stdin to stdout), "
            "and report what is left.",
        ),
    ] = False,
    force: ForceOpt = False,
    keep_invalid_lines: KeepInvalidLinesOpt = None,
    max_record_mib: MaxRecordOpt = None,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
    skip_no_history: SkipNoHistoryOpt = False,
    respect_gitignore: RespectGitignoreOpt = None,
    force_exclude: ForceExcludeOpt = None,
    jobs: JobsOpt = None,
    statistics: StatisticsOpt = False,
    quiet: QuietOpt = False,
    silent: SilentOpt = False,
    verbose: VerboseOpt = False,
    stdin_filename: StdinFilenameOpt = None,
    thread: ThreadOpt = None,
    dask: DaskOpt = None,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Report dangling tool calls and other pairing defects; write nothing (unless --fix)."""
    from .command_run import (
        load_configuration,
        rule_settings,
        run_inputs,
        text_format,
        walk_settings,
    )
    from .input_run import Mode

    found = load_configuration(
        config, isolated=isolated, paths=paths, stdin_filename=stdin_filename
    )
    if fix and (output_file is not None or not (output_format or OutputFormat.TEXT).for_people):
        # -o and the machine formats are check's report; a fix reports as text, as fix does.
        msg = "repairs as toolpatch fix does and reports as text: without -o or a machine format"
        raise typer.BadParameter(msg, param_hint="--fix")
    chosen = output_format or OutputFormat(found.output_format or OutputFormat.CONCISE.value)
    if statistics and not chosen.for_people and not fix:
        msg = f"counts in the text report, not in {chosen.value}"
        raise typer.BadParameter(msg, param_hint="--statistics")
    return run_inputs(
        Mode.FIX if fix else Mode.CHECK,
        paths,
        rules=rule_settings(
            found,
            select,
            ignore,
            dialect,
            keep_invalid_lines=keep_invalid_lines,
            repair=repair,
            max_record_mib=max_record_mib,
        ),
        config=found,
        output=None if fix else output_file,
        verbosity=verbosity(quiet=quiet, verbose=verbose, silent=silent),
        stdin_filename=stdin_filename,
        color=color,
        skip_no_history=skip_no_history,
        output_format=text_format(output_format, found) if fix else chosen,
        statistics=statistics,
        exit_zero=exit_zero,
        jobs=jobs,
        force=force,
        walk=walk_settings(found, respect_gitignore=respect_gitignore, force_exclude=force_exclude),
        threads=thread,
        dask=dask,
    )


DiffOpt = Annotated[
    bool, typer.Option("--diff", help="Print a unified diff of the changes; write nothing.")
]
CheckOpt = Annotated[
    bool,
    typer.Option("--check", help="Only say which files would change (exit 1); write nothing."),
]
OutputOpt = Annotated[
    Optional[str],  # noqa: UP045 - a string: a Path would fold the // of a URL prefix
    typer.Option(
        "-o",
        "--output",
        metavar="FILE",
        help="Write the changed data to FILE (- for stdout) instead of in place; with URL "
        "inputs, a PREFIX (URL or folder) each input is written under.",
    ),
]


@app.command(
    cls=HelpCommand,
    short_help="Insert synthetic results, in the file's own format.",
    epilog=EXIT_CODES_HELP,
)
def fix(
    paths: PathsArg = None,
    diff: DiffOpt = False,
    check: CheckOpt = False,
    output: OutputOpt = None,
    output_format: Annotated[
        Optional[TextFormat],  # noqa: UP045
        typer.Option(
            "--output-format",
            help="How to report what is left: concise or full, as check's. Default: "
            "TOOLPATCH_OUTPUT_FORMAT or the configured output-format when it is one of them, "
            "else concise.",
            show_default=False,
        ),
    ] = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    unsafe_fixes: UnsafeFixesOpt = None,
    repair: RepairOpt = None,
    dialect: DialectOpt = None,
    exit_zero: ExitZeroOpt = False,
    exit_non_zero_on_fix: Annotated[
        bool,
        typer.Option(
            "--exit-non-zero-on-fix",
            help="Exit 1 when anything was fixed, even if nothing remains (errors still exit 2).",
        ),
    ] = False,
    force: ForceOpt = False,
    keep_invalid_lines: KeepInvalidLinesOpt = None,
    max_record_mib: MaxRecordOpt = None,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
    skip_no_history: SkipNoHistoryOpt = False,
    respect_gitignore: RespectGitignoreOpt = None,
    force_exclude: ForceExcludeOpt = None,
    jobs: JobsOpt = None,
    statistics: StatisticsOpt = False,
    quiet: QuietOpt = False,
    silent: SilentOpt = False,
    verbose: VerboseOpt = False,
    stdin_filename: StdinFilenameOpt = None,
    thread: ThreadOpt = None,
    dask: DaskOpt = None,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Insert synthetic results for dangling tool calls, in the file's own format.

    Files are rewritten in place, atomically; files with nothing to fix are never rewritten.
    Standard input is repaired to standard output.
    """
    from .command_run import load_configuration, rule_settings, text_format
    from .input_run import Mode

    found = load_configuration(
        config, isolated=isolated, paths=paths, stdin_filename=stdin_filename
    )
    return _rewrite(
        Mode.FIX_DIFF if diff else Mode.FIX_CHECK if check else Mode.FIX,
        paths,
        found,
        rules=rule_settings(
            found,
            select,
            ignore,
            dialect,
            unsafe_fixes=unsafe_fixes,
            keep_invalid_lines=keep_invalid_lines,
            max_record_mib=max_record_mib,
            repair=repair,
        ),
        output=output,
        verbosity=verbosity(quiet=quiet, verbose=verbose, silent=silent),
        stdin_filename=stdin_filename,
        color=color,
        skip_no_history=skip_no_history,
        walk=(respect_gitignore, force_exclude),
        output_format=text_format(output_format, found),
        statistics=statistics,
        exit_zero=exit_zero,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
        jobs=jobs,
        force=force,
        threads=thread,
        dask=dask,
    )


def _rewrite(
    mode: "Mode",
    paths: list[str] | None,
    found: "Config",
    *,
    walk: tuple[bool | None, bool | None],
    **run: Any,
) -> int:
    """Run ``mode`` (``fix`` or ``strip``, and their ``--diff`` and ``--check``) on ``paths``
    with the configuration ``found``; ``walk``: the command line's ``--[no-]respect-gitignore``
    and ``--[no-]force-exclude``."""
    from .command_run import run_inputs, walk_settings

    respect_gitignore, force_exclude = walk
    return int(
        run_inputs(
            mode,
            paths,
            config=found,
            walk=walk_settings(
                found, respect_gitignore=respect_gitignore, force_exclude=force_exclude
            ),
            **run,
        )
    )


@app.command(
    cls=HelpCommand,
    short_help="Remove the synthetic results toolpatch wrote.",
    epilog=EXIT_CODES_HELP,
)
def strip(
    paths: PathsArg = None,
    diff: DiffOpt = False,
    check: CheckOpt = False,
    output: OutputOpt = None,
    dialect: DialectOpt = None,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
    skip_no_history: SkipNoHistoryOpt = False,
    respect_gitignore: RespectGitignoreOpt = None,
    force_exclude: ForceExcludeOpt = None,
    jobs: JobsOpt = None,
    force: ForceOpt = False,
    quiet: QuietOpt = False,
    silent: SilentOpt = False,
    verbose: VerboseOpt = False,
    stdin_filename: StdinFilenameOpt = None,
    dask: DaskOpt = None,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Remove the synthetic results toolpatch wrote: the history as it was before `fix`.

    A result is toolpatch's when it is the one `fix` writes for its call: the default text or
    the configured one (texts) filled in for the call, with the format's error flag. Files
    are rewritten in place, atomically; standard input is written to standard output.
    """
    from .command_run import load_configuration, rule_settings
    from .input_run import Mode

    found = load_configuration(
        config, isolated=isolated, paths=paths, stdin_filename=stdin_filename
    )
    return _rewrite(
        Mode.FIX_DIFF if diff else Mode.FIX_CHECK if check else Mode.FIX,
        paths,
        found,
        rules=rule_settings(found, None, None, dialect, strip=True),
        output=output,
        verbosity=verbosity(quiet=quiet, verbose=verbose, silent=silent),
        stdin_filename=stdin_filename,
        color=color,
        skip_no_history=skip_no_history,
        walk=(respect_gitignore, force_exclude),
        jobs=jobs,
        dask=dask,
        force=force,
    )


@app.command(cls=HelpCommand, short_help="Show a history as panels, defects and fixes marked.")
def show(
    path: Annotated[
        str,
        typer.Argument(metavar="PATH", help="A history file, or - for stdin.", show_default=False),
    ],
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    dialect: DialectOpt = None,
    unsafe_fixes: ShowUnsafeFixesOpt = None,
    repair: RepairOpt = None,
    full: Annotated[
        bool, typer.Option("--full", help="Show every message's text whole, not cut short.")
    ] = False,
    config: ConfigOpt = None,
    isolated: IsolatedOpt = False,
    stdin_filename: StdinFilenameOpt = None,
    force: ForceOpt = False,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Show a history as panels: defects marked, the fixes shown in place, nothing written.

    One panel per message (its text, tool calls and results); the synthetic results that `fix`
    would insert appear where it would put them. Exit 0 once shown, 2 when the file cannot be
    read.
    """
    from patchcore.extras import MissingExtra

    from .command_run import input_sources, live_options, load_configuration, rule_settings
    from .input_errors import InputError
    from .input_run import framing_name
    from .show import conversations, render
    from .stores import is_store_url
    from .text_report import error_pieces

    if is_store_url(path):
        msg = (
            "show takes a file; a store's thread is shown with fix --diff URL --thread ID "
            "(docs/stores.md)"
        )
        raise typer.BadParameter(msg, param_hint="PATH")
    found = load_configuration(
        config, isolated=isolated, paths=[path], stdin_filename=stdin_filename
    )
    rules = rule_settings(found, select, ignore, dialect, unsafe_fixes=unsafe_fixes, repair=repair)
    sources = input_sources([path], stdin_filename=stdin_filename, skip=False)
    if len(sources) != 1 or os.path.isdir(path):
        msg = "show takes one file (or - for stdin), not a directory"
        raise typer.BadParameter(msg, param_hint="PATH")
    (source,) = sources
    printer = stderr_printer(color)
    named = framing_name(source)
    options = live_options(
        source, rules.options_for(source.name), config=found, force=force, now=time.time()
    )
    try:
        found_lists = conversations(source.read(), name=named, options=options)
    except (OSError, patchcore.PatchcoreError, MissingExtra) as exc:
        printer.line(error_pieces(InputError.of(source.name, exc)))
        return int(ExitCode.ERROR)
    out = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    render(found_lists, out, name=source.name, full=full)
    return int(ExitCode.OK)


_FIX_WORDS = {"safe": "safe fix", "unsafe": "unsafe fix (--unsafe-fixes)", None: "no fix"}


@app.command(cls=HelpCommand, short_help="List every rule.")
def rules(
    color: ColorOpt = ColorMode.AUTO,
    output_format: Annotated[
        RulesFormat,
        typer.Option(
            "--output-format",
            metavar="FORMAT",
            help="text (the listing) or markdown (the rules reference, docs/rules.md).",
        ),
    ] = RulesFormat.TEXT,
) -> int:
    """List every rule: code, name, whether it is on by default, its fix, what it checks."""
    if output_format is RulesFormat.MARKDOWN:
        from .rules_markdown import rules_markdown

        sys.stdout.write(rules_markdown())
        return int(ExitCode.OK)
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    from .help_format import text_width, wrapped

    width = text_width()
    defaults = patchcore.RuleSelection.build().codes
    for rule in patchcore.RULES.values():
        fix = _FIX_WORDS[rule.fix.value if rule.fix else None]
        default = "default" if rule.code in defaults else "opt-in"
        head = (
            (rule.code, "bold cyan"),
            (f"  {rule.name:<24}", "bold"),
            (f"{default:<8}{fix:<30}", "dim"),
        )
        if sum(len(text) for text, _ in head) + len(rule.summary) <= width:
            printer.line((*head, (rule.summary, "")))
            continue
        # a narrow terminal: the summary below, indented
        printer.line((*head[:2], (f"{default:<8}{fix}", "dim")))
        for line in wrapped(rule.summary, width, first="       ", rest="       "):
            printer.text(line)
    printer.text("")
    closing = (
        "Select opt-in rules with --select TP1 or --select ALL; `toolpatch rule CODE` (or NAME) "
        "explains one."
    )
    for line in wrapped(closing, width):
        printer.text(line)
    return int(ExitCode.OK)


@app.command(cls=HelpCommand, short_help="Explain a rule.")
def rule(
    code: Annotated[
        str,
        typer.Argument(
            metavar="CODE|NAME",
            help="A rule's code or name: TP001, tp001 or dangling-tool-call.",
            show_default=False,
        ),
    ],
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Explain a rule as ruff does: what it checks, why providers reject it (each dialect's
    error), an example before and after the fix, and the fix's safety."""

    from patchcore import rule_named

    from .help_format import text_width
    from .rule_docs import rule_markdown

    try:
        found = rule_named(code)
    except patchcore.UnknownRuleError as exc:
        raise typer.BadParameter(str(exc), param_hint="CODE|NAME") from None
    width = text_width()
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    fenced = False
    for line in rule_markdown(found, width=width):
        fenced ^= line.startswith("```")
        heading = line.startswith("#") and not fenced
        printer.line(((line, "bold cyan" if heading else ""),))
    return int(ExitCode.OK)


@app.command(cls=HelpCommand, short_help="List the formats toolpatch reads.")
def formats(color: ColorOpt = ColorMode.AUTO) -> int:
    """List the dialects toolpatch reads, where their lists sit and how each is recognised."""
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    from patchcore.dialects import NAMED
    from patchcore.layouts.sessions import SESSION_LAYOUTS

    listed = [(d.name, d.title, d.recognised_by, d.containers) for d in NAMED] + [
        (s.short_name, s.title, s.recognised_by, s.containers) for s in SESSION_LAYOUTS
    ]
    from .help_format import text_width, wrapped

    width = text_width()
    for name, title, recognised_by, containers in listed:
        printer.line(((name, "bold cyan"), (f"  {title}", "bold")))
        for line in (
            *wrapped(recognised_by, width, first="  recognised by: ", rest="    "),
            *wrapped(containers, width, first="  found in: ", rest="    "),
        ):
            printer.text(line)
        printer.text("")
    closing = (
        "Detection is per message list: the first dialect (in the order above) that reads every "
        "message and sees a marker of its own wins; --dialect NAME forces one. Lists are found "
        "anywhere in a document; JSON Lines hold one conversation or one message per line, or "
        f"are an agent session log (the last {len(SESSION_LAYOUTS)} above), read as a whole, as "
        "is a JSON array of Claude Agent SDK messages."
    )
    for line in wrapped(closing, width):
        printer.text(line)
    return int(ExitCode.OK)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program runs: it unwinds as an interrupt does (an atomic write
    removes its temporary file), and the exit code says which signal it was."""


def _terminate(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGTERM unwinds like an interrupt, so an atomic write removes its temporary file."""
    global _terminated
    _terminated = True
    raise _Terminated


#: Whether SIGTERM arrived (Typer turns any ``KeyboardInterrupt`` into its ``Exit(130)``, so
#: the exception alone does not always reach `main`).
_terminated = False

#: What ``app()`` returns after a ``KeyboardInterrupt`` (Typer's ``Exit(130)``); toolpatch's
#: own commands never return it.
_TYPER_INTERRUPTED = 130


class Interrupted(SystemExit):
    """The run was interrupted (Ctrl-C: exit code 130) or terminated (SIGTERM: 143) and has
    unwound, every input left as it was."""


def main() -> None:
    """Console entry point: runs the app and maps every outcome to its exit code (0, 1 or 2;
    130 after Ctrl-C, 143 after SIGTERM, as shells report a process those signals end).

    Raises:
        SystemExit: Always, with the exit code (`Interrupted` after an interrupt).
    """
    global _terminated
    _terminated = False
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = app(prog_name="toolpatch", standalone_mode=False)
        if code == _TYPER_INTERRUPTED:  # Typer turns Ctrl-C (and our SIGTERM) into this code
            raise KeyboardInterrupt
    except typer.TyperException as exc:  # Typer's usage errors (Click's, vendored)
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            sys.stderr.write(f"Error: {exc.format_message()}\n")
        code = ExitCode.ERROR
    except (KeyboardInterrupt, typer.Abort) as exc:
        terminated = _terminated or isinstance(exc, _Terminated)
        sys.stderr.write("toolpatch: terminated\n" if terminated else "toolpatch: interrupted\n")
        code = ExitCode.TERMINATED if terminated else ExitCode.INTERRUPTED
        raise Interrupted(int(code)) from None
    except Exception as exc:  # the last line of defence: never a traceback
        sys.stderr.write(
            f"toolpatch: internal error: {type(exc).__name__}: {visible(str(exc))}\n"
            "This is a bug in toolpatch; please report it with the input that caused it.\n"
        )
        code = ExitCode.ERROR
    finally:
        # The run is over: a SIGTERM from now on (the interpreter shutting down) ends the
        # process as SIGTERM does, instead of raising into the shutdown with a traceback.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(int(code) if isinstance(code, int) else 0)
