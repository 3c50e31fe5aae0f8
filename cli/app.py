"""The ``toolpatch`` command: argv → options → read → patchcore → report → write → exit code."""

# No ``from __future__ import annotations`` here: Typer reads every command's annotations at each
# start, and as objects they cost it nothing, where as strings it evaluates each one (~6 ms).

import atexit
import copy
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, NoReturn

import typer

import patchcore

from . import options
from .console import ColorMode, Printer, visible, wants_color
from .exit_codes import ExitCode
from .help_format import HELP_WIDTH, HelpCommand, HelpGroup
from .options import LogFormat, RulesFormat

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


@app.command(
    "check", cls=HelpCommand, short_help="Report findings; write nothing.", epilog=EXIT_CODES_HELP
)
def check(
    paths: options.Paths = None,
    select: options.Select = None,
    ignore: options.Ignore = None,
    dialect: options.DialectName = None,
    repair: options.Repair = None,
    output_format: options.ReportFormat = None,
    output: options.ReportFile = None,
    exit_zero: options.ExitZero = False,
    fix: options.AlsoFix = False,
    against: options.Against = None,
    target: options.Target = None,
    force: options.Force = False,
    keep_invalid_lines: options.KeepInvalidLines = None,
    fix_training_targets: options.FixTrainingTargets = None,
    max_record_mib: options.MaxRecordMib = None,
    config: options.Configuration = None,
    isolated: options.Isolated = False,
    skip_no_history: options.SkipNoHistory = False,
    respect_gitignore: options.RespectGitignore = None,
    force_exclude: options.ForceExclude = None,
    jobs: options.Jobs = None,
    statistics: options.Statistics = False,
    quiet: options.Quiet = False,
    silent: options.Silent = False,
    verbose: options.Verbose = False,
    stdin_filename: options.StdinFilename = None,
    thread: options.Thread = None,
    dask: options.Dask = None,
    color: options.Color = ColorMode.AUTO,
) -> int:
    """Report dangling tool calls and other pairing defects; write nothing (unless --fix)."""
    return _run("check", locals())


@app.command(
    "fix",
    cls=HelpCommand,
    short_help="Insert synthetic results, in the file's own format.",
    epilog=EXIT_CODES_HELP,
)
def fix(
    paths: options.Paths = None,
    diff: options.Diff = False,
    check: options.Check = False,
    output: options.Output = None,
    output_format: options.FixFormat = None,
    select: options.Select = None,
    ignore: options.Ignore = None,
    unsafe_fixes: options.UnsafeFixes = None,
    repair: options.Repair = None,
    target: options.Target = None,
    dialect: options.DialectName = None,
    exit_zero: options.ExitZero = False,
    exit_non_zero_on_fix: options.ExitNonZeroOnFix = False,
    force: options.Force = False,
    keep_invalid_lines: options.KeepInvalidLines = None,
    fix_training_targets: options.FixTrainingTargets = None,
    max_record_mib: options.MaxRecordMib = None,
    config: options.Configuration = None,
    isolated: options.Isolated = False,
    skip_no_history: options.SkipNoHistory = False,
    respect_gitignore: options.RespectGitignore = None,
    force_exclude: options.ForceExclude = None,
    jobs: options.Jobs = None,
    statistics: options.Statistics = False,
    quiet: options.Quiet = False,
    silent: options.Silent = False,
    verbose: options.Verbose = False,
    stdin_filename: options.StdinFilename = None,
    thread: options.Thread = None,
    dask: options.Dask = None,
    color: options.Color = ColorMode.AUTO,
) -> int:
    """Insert synthetic results for dangling tool calls, in the file's own format.

    Files are rewritten in place, atomically; files with nothing to fix are never rewritten.
    Standard input is repaired to standard output.
    """
    return _run("fix", locals())


@app.command(
    "strip",
    cls=HelpCommand,
    short_help="Remove the synthetic results toolpatch wrote.",
    epilog=EXIT_CODES_HELP,
)
def strip(
    paths: options.Paths = None,
    diff: options.Diff = False,
    check: options.Check = False,
    output: options.Output = None,
    dialect: options.DialectName = None,
    config: options.Configuration = None,
    isolated: options.Isolated = False,
    skip_no_history: options.SkipNoHistory = False,
    respect_gitignore: options.RespectGitignore = None,
    force_exclude: options.ForceExclude = None,
    jobs: options.Jobs = None,
    force: options.Force = False,
    quiet: options.Quiet = False,
    silent: options.Silent = False,
    verbose: options.Verbose = False,
    stdin_filename: options.StdinFilename = None,
    dask: options.Dask = None,
    color: options.Color = ColorMode.AUTO,
) -> int:
    """Remove the synthetic results toolpatch wrote: the history as it was before `fix`.

    A result is toolpatch's when it is the one `fix` writes for its call: the default text or
    the configured one (texts) filled in for the call, with the format's error flag. Files
    are rewritten in place, atomically; standard input is written to standard output.
    """
    return _run("strip", locals())


@app.command(
    "show", cls=HelpCommand, short_help="Show a history as panels, defects and fixes marked."
)
def show(
    path: options.History,
    select: options.Select = None,
    ignore: options.Ignore = None,
    dialect: options.DialectName = None,
    unsafe_fixes: options.ShowUnsafeFixes = None,
    repair: options.Repair = None,
    target: options.Target = None,
    full: options.Full = False,
    config: options.Configuration = None,
    isolated: options.Isolated = False,
    stdin_filename: options.StdinFilename = None,
    force: options.Force = False,
    fix_training_targets: options.FixTrainingTargets = None,
    color: options.Color = ColorMode.AUTO,
) -> int:
    """Show a history as panels: defects marked, the fixes shown in place, nothing written.

    One panel per message (its text, tool calls and results); the synthetic results that `fix`
    would insert appear where it would put them. Exit 0 once shown, 2 when the file cannot be
    read.
    """
    return _run("show", locals())


@app.command(
    "proxy",
    cls=HelpCommand,
    short_help="Repair each request's history on its way to the provider.",
)
def proxy(
    upstream: options.Upstream,
    listen: options.Listen = None,
    allow_remote: options.AllowRemote = False,
    check_only: options.CheckOnly = False,
    log_format: options.LogFormatOption = LogFormat.TEXT,
    select: options.Select = None,
    ignore: options.Ignore = None,
    unsafe_fixes: options.UnsafeFixes = None,
    repair: options.Repair = None,
    target: options.Target = None,
    dialect: options.DialectName = None,
    max_record_mib: options.MaxRecordMib = None,
    config: options.Configuration = None,
    isolated: options.Isolated = False,
) -> int:
    """Forward every request to --upstream, repairing the history in the body of each message
    request (Anthropic, OpenAI Chat and Responses, Gemini) as `fix` would; everything else,
    and the answers, pass through as they are (docs/proxy.md). Point a client's base URL at it.
    Runs until stopped (Ctrl-C); needs the [proxy] extra.
    """
    from .proxy_run import serve
    from .settings import CommandLine

    given = CommandLine(
        paths=["."],  # the configuration is found from the current folder
        select=select,
        ignore=ignore,
        unsafe_fixes=unsafe_fixes,
        repair=repair,
        target=target,
        dialect=dialect,
        max_record_mib=max_record_mib,
        config=config,
        isolated=isolated,
    )
    return serve(
        given,
        upstream=upstream,
        listen=listen,
        allow_remote=allow_remote,
        check_only=check_only,
        log_format=log_format,
    )


def _run(command: str, given: dict[str, Any]) -> int:
    """Run ``command`` (a `cli.settings.Command` value) with the values its typed parameters
    were given (its ``locals()``, each a field of `cli.settings.CommandLine` of the same name):
    settings built and checked once, then the one runner. The machinery loads only here, so
    ``--help`` and the listings load none of it."""
    from .command_run import run
    from .settings import Command, CommandLine, Settings

    return run(Settings.of(Command(command), CommandLine(**given)))


_FIX_WORDS = {"safe": "safe fix", "unsafe": "unsafe fix (--unsafe-fixes)", None: "no fix"}


@app.command("rules", cls=HelpCommand, short_help="List every rule.")
def rules(
    color: options.Color = ColorMode.AUTO,
    output_format: options.RulesFormatOption = RulesFormat.TEXT,
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


@app.command("rule", cls=HelpCommand, short_help="Explain a rule.")
def rule(code: options.RuleName, color: options.Color = ColorMode.AUTO) -> int:
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


@app.command(
    "explain", cls=HelpCommand, short_help="Say which providers refuse each history, and why."
)
def explain(path: options.History, color: options.Color = ColorMode.AUTO) -> int:
    """For each history of a file, which providers would refuse it as it stands, with the
    error each gives, and which would still refuse it after `toolpatch fix --unsafe-fixes
    --target PROVIDER`. Writes nothing; exit 0 once said, 2 when the file cannot be read."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        verdicts = patchcore.explain_document(data, filename=None if path == "-" else path)
    except (OSError, patchcore.PatchcoreError) as exc:
        sys.stderr.write(f"toolpatch: {visible(path)}: {visible(str(exc))}\n")
        return int(ExitCode.ERROR)
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    shown = None
    for verdict in verdicts:
        where = (verdict.line, verdict.pointer)
        if where != shown:
            line = f"line {verdict.line} " if verdict.line is not None else ""
            printer.line(((f"{line}{verdict.pointer or '/'} ({verdict.dialect})", "bold"),))
            shown = where
        if not verdict.errors:
            printer.line(((f"  {verdict.provider}: ", "bold cyan"), ("takes it", "")))
            continue
        after = "still refused after fix" if verdict.after_fix else "taken after fix"
        printer.line(((f"  {verdict.provider}: ", "bold cyan"), (f"refuses it ({after})", "")))
        for error in verdict.errors:
            printer.text(f"    {visible(error)}")
    if not verdicts:
        printer.text("No history that a provider takes.")
    return int(ExitCode.OK)


@app.command("formats", cls=HelpCommand, short_help="List the formats toolpatch reads.")
def formats(color: options.Color = ColorMode.AUTO) -> int:
    """List the dialects toolpatch reads, where their lists sit and how each is recognised."""
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    from patchcore import NAMED, SESSION_LAYOUTS

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
        "is a JSON array of Claude Agent SDK messages. A document written as a JSON string "
        "(an older LlamaIndex chat store) is read inside the string."
    )
    for line in wrapped(closing, width):
        printer.text(line)
    from toolpatch.integrations.stores import STORES

    printer.text("")
    for line in wrapped(
        "Stores, named by a URL instead of a PATH, each session a thread (docs/stores.md):", width
    ):
        printer.text(line)
    for scheme, title, recognised_by, found_in in STORES:
        printer.text("")
        printer.line(((scheme, "bold cyan"), (f"  {title}", "bold")))
        for line in (
            *wrapped(recognised_by, width, first="  recognised by: ", rest="    "),
            *wrapped(found_in, width, first="  found in: ", rest="    "),
        ):
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


def _app_for(arguments: Sequence[str]) -> typer.Typer:
    """The command line that parses ``arguments``: when they start with a command's name, `app`
    with that command alone. Typer builds every command it holds, each option with it, at every
    start, though one runs: the seven took 4.2 ms of a 100 ms check, one takes 1.3
    (docs/benchmarks.md#start-up). Anything else (``--help``, ``--version``, a mistyped command,
    which is answered with the names of all) is parsed by all of them."""
    chosen = [c for c in app.registered_commands if arguments and c.name == arguments[0]]
    if not chosen:
        return app
    alone = copy.copy(app)
    alone.registered_commands = chosen
    return alone


def main() -> NoReturn:
    """Console entry point: runs the app and maps every outcome to its exit code (0, 1 or 2;
    130 after Ctrl-C, 143 after SIGTERM, as shells report a process those signals end).

    Raises:
        SystemExit: Always, with the exit code (`Interrupted` after an interrupt).
    """
    global _terminated
    _terminated = False
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = _app_for(sys.argv[1:])(prog_name="toolpatch", standalone_mode=False)
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


def console() -> NoReturn:
    """The ``toolpatch`` console script and ``python -m toolpatch``: `main`, and then the
    process ends at once where the interpreter would have nothing left to do but free memory.

    Freeing every module and object a run loaded is a fifth of a small file's check (25 of
    125 ms, docs/benchmarks.md#start-up), which pre-commit pays at every commit; mypy ends the
    same way. Nothing is lost by it: the standard streams are flushed first, and the shortcut
    is taken only when no thread runs beside this one (a progress display, a cluster's client)
    and no exit handler is registered (a worker pool's, a coverage tool's); otherwise, or if a
    flush fails (a closed pipe), the process exits the normal way. An interrupted run
    (`Interrupted`) has unwound everything already, and ends at once too: CPython takes an
    interrupt that went through an exec call (a dataclass being made, in an import) for an
    unhandled one even once caught, and ``python -m`` would end by SIGINT instead of with exit
    code 130.

    Raises:
        SystemExit: When the process ends the normal way, with `main`'s exit code.
    """
    try:
        main()
    except SystemExit as done:
        # `main` exits with a number; anything else is left to the interpreter to say.
        if isinstance(done.code, int) and (isinstance(done, Interrupted) or _nothing_to_clean_up()):
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except OSError:  # a closed pipe: the interpreter reports it, as it always has
                raise done from None
            os._exit(done.code)
        raise


def _nothing_to_clean_up() -> bool:
    """Whether ending the process now skips nothing but freeing memory: no other thread, and
    no exit handler (CPython's count of them; elsewhere, assume there are some)."""
    handlers = getattr(atexit, "_ncallbacks", None)
    return threading.active_count() == 1 and handlers is not None and handlers() == 0
