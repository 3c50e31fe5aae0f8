"""The ``toolpatch`` command: argv → options → read → patchcore → report → write → exit code."""

from __future__ import annotations

import signal
import sys
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import Annotated, NoReturn, Optional

import typer

import patchcore
from cli.console import ColorMode, Printer, stderr_printer, wants_color
from cli.exit_codes import ExitCode
from cli.inputs import NoInputError, resolve
from cli.report import Summary, render_outcome, render_summary
from cli.run import Mode, emit_stdout, process
from patchcore.analyze import Options
from patchcore.dialects import DIALECTS

EXIT_CODES_HELP = (
    "Exit codes: 0 clean or everything fixed; 1 findings remain (or --check/--diff would "
    "change something); 2 unreadable input, usage error or internal error."
)

app = typer.Typer(
    name="toolpatch",
    help=(
        "Find and repair dangling tool calls in serialized LLM chat histories "
        "(LangChain, OpenAI Chat, ...). " + EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

PathsArg = Annotated[
    Optional[list[str]],  # noqa: UP045 - Typer needs the Optional spelling on Python 3.10
    typer.Argument(
        help="Files, directories (searched for *.json, *.jsonl) or - for stdin. "
        "Without PATH, piped stdin is read.",
        show_default=False,
    ),
]
SelectOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--select",
        help="Rule codes or prefixes to apply, comma-separated or repeated (ALL for every "
        "rule). Default: TP0.",
        show_default=False,
    ),
]
IgnoreOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--ignore", help="Rule codes or prefixes to leave out.", show_default=False),
]
DialectOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--dialect",
        help="Read every message list as this dialect instead of detecting it (see "
        "`toolpatch formats`).",
        show_default=False,
    ),
]
QuietOpt = Annotated[int, typer.Option("-q", "--quiet", count=True, help="Print errors only.")]
VerboseOpt = Annotated[
    int,
    typer.Option(
        "-v",
        "--verbose",
        count=True,
        help="Also print clean and skipped files, the message lists found and fixed findings.",
    ),
]
StdinFilenameOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--stdin-filename",
        help="Name stdin in messages (its extension also tells .jsonl framing).",
        show_default=False,
    ),
]
ColorOpt = Annotated[
    ColorMode,
    typer.Option("--color", help="Colour messages and diffs: auto (terminal only), always, never."),
]


def _split(values: list[str] | None) -> list[str] | None:
    """``--select A,B --select C`` → ``["A", "B", "C"]``."""
    if values is None:
        return None
    return [part for value in values for part in value.split(",") if part.strip()]


def _options(
    select: list[str] | None,
    ignore: list[str] | None,
    dialect: str | None,
    *,
    unsafe_fixes: bool = False,
) -> Options:
    try:
        return patchcore.make_options(
            select=_split(select), ignore=_split(ignore), dialect=dialect, unsafe_fixes=unsafe_fixes
        )
    except patchcore.UnknownDialectError as exc:
        raise typer.BadParameter(exc.reason, param_hint="--dialect") from None
    except patchcore.UnknownRuleError as exc:
        raise typer.BadParameter(exc.reason, param_hint="--select/--ignore") from None


def _run(
    mode: Mode,
    paths: list[str] | None,
    *,
    options: Options,
    output: Path | None,
    verbosity: int,
    stdin_filename: str | None,
    color: ColorMode,
) -> int:
    printer = stderr_printer(color)
    try:
        sources = resolve(paths or [], stdin_filename=stdin_filename)
    except NoInputError:
        msg = "no input: give a PATH, or pipe data to stdin (- reads it explicitly)"
        raise typer.BadParameter(msg, param_hint="PATH") from None
    if mode is Mode.FIX and output is not None and len(sources) != 1:
        msg = f"needs exactly one input, got {len(sources)}"
        raise typer.BadParameter(msg, param_hint="--output")

    diff_printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    outcomes = []
    with ExitStack() as stack:
        report_to = None
        if mode is Mode.CHECK and output is not None:
            stream = sys.stdout if str(output) == "-" else stack.enter_context(output.open("w"))
            report_to = Printer(stream, styled=False)
        for source in sources:
            outcome = process(
                source,
                options=options,
                mode=mode,
                output=output if mode is Mode.FIX else None,
                emit=emit_stdout,
            )
            if outcome.diff is not None:
                _print_diff(diff_printer, outcome.diff)
            render_outcome(outcome, mode, printer, verbosity=verbosity, report_to=report_to)
            outcomes.append(outcome)
    summary = Summary(mode, outcomes)
    render_summary(summary, printer, verbosity=verbosity)
    return int(summary.exit_code())


_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def _print_diff(printer: Printer, diff: str) -> None:
    if not printer.styled:
        printer.raw(diff)
        return
    for line in diff.splitlines():
        style = next((s for prefix, s in _DIFF_STYLES if line.startswith(prefix)), "")
        printer.line(((line, style),))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"toolpatch {patchcore.__version__}")
        raise typer.Exit


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Find and repair dangling tool calls in serialized LLM chat histories."""


@app.command(epilog=EXIT_CODES_HELP)
def check(
    paths: PathsArg = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    dialect: DialectOpt = None,
    output: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "-o", "--output", help="Write the findings to FILE (- for stdout) instead of stderr."
        ),
    ] = None,
    quiet: QuietOpt = 0,
    verbose: VerboseOpt = 0,
    stdin_filename: StdinFilenameOpt = None,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Report dangling tool calls and other pairing defects; write nothing."""
    return _run(
        Mode.CHECK,
        paths,
        options=_options(select, ignore, dialect),
        output=output,
        verbosity=1 + verbose - quiet,
        stdin_filename=stdin_filename,
        color=color,
    )


@app.command(epilog=EXIT_CODES_HELP)
def fix(
    paths: PathsArg = None,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print a unified diff of the fixes; write nothing.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check", help="Only say which files would change (exit 1); write nothing."),
    ] = False,
    output: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "-o",
            "--output",
            help="Write the repaired data to FILE (- for stdout) instead of in place.",
        ),
    ] = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    unsafe_fixes: Annotated[
        bool,
        typer.Option(
            "--unsafe-fixes",
            help="Also apply fixes that delete or move existing content (the TP1xx rules: "
            "orphan and duplicate results dropped, misplaced ones moved).",
        ),
    ] = False,
    dialect: DialectOpt = None,
    quiet: QuietOpt = 0,
    verbose: VerboseOpt = 0,
    stdin_filename: StdinFilenameOpt = None,
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Insert synthetic results for dangling tool calls, in the file's own format.

    Files are rewritten in place, atomically; files with nothing to fix are never rewritten.
    Standard input is repaired to standard output.
    """
    mode = Mode.FIX_DIFF if diff else Mode.FIX_CHECK if check else Mode.FIX
    return _run(
        mode,
        paths,
        options=_options(select, ignore, dialect, unsafe_fixes=unsafe_fixes),
        output=output,
        verbosity=1 + verbose - quiet,
        stdin_filename=stdin_filename,
        color=color,
    )


_PLACEHOLDERS = (("{index}", "N"), ("{next}", "N+1"), ("{id}", "<id>"), ("{name}", "<name>"))
_FIX_WORDS = {"safe": "safe fix", "unsafe": "unsafe fix (--unsafe-fixes)", None: "no fix"}


@app.command()
def rules(color: ColorOpt = ColorMode.AUTO) -> int:
    """List every rule: code, name, whether it is on by default, its fix, what it checks."""
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    defaults = patchcore.RuleSelection.build().codes
    for rule in patchcore.RULES.values():
        fix = _FIX_WORDS[rule.fix.value if rule.fix else None]
        default = "default" if rule.code in defaults else "opt-in"
        printer.line(
            (
                (rule.code, "bold cyan"),
                (f"  {rule.name:<24}", "bold"),
                (f"{default:<8}{fix:<30}", "dim"),
                (rule.summary, ""),
            )
        )
    printer.text("")
    printer.text(
        "Select opt-in rules with --select TP1 or --select ALL; `toolpatch rule CODE` explains one."
    )
    return int(ExitCode.OK)


@app.command()
def rule(
    code: Annotated[str, typer.Argument(help="A rule code, e.g. TP001.", show_default=False)],
    color: ColorOpt = ColorMode.AUTO,
) -> int:
    """Explain a rule: what it checks, the provider errors it prevents, its fix."""
    found = patchcore.RULES.get(code.strip().upper())
    if found is None:
        msg = f"{code!r} is not a rule (see `toolpatch rules`)"
        raise typer.BadParameter(msg, param_hint="CODE")
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    printer.line(((f"{found.code} {found.name}", "bold cyan"),))
    printer.text(found.summary)
    printer.text("")
    printer.text(found.explanation)
    errors = [
        (d.name, d.provider_errors[found.code]) for d in DIALECTS if found.code in d.provider_errors
    ]
    if errors:
        printer.text("")
        printer.text("What each dialect's provider answers:")
        for name, error in errors:
            for placeholder, shown in _PLACEHOLDERS:
                error = error.replace(placeholder, shown)
            printer.line(((f"  {name}: ", "bold"), (error, "")))
    printer.text("")
    printer.text(
        f"Fix: {_FIX_WORDS[found.fix.value if found.fix else None]}"
        + (f" - {found.fix_description}" if found.fix_description else "")
    )
    if found.text:
        printer.text(f"Synthetic result text: {found.text}")
    return int(ExitCode.OK)


@app.command()
def formats(color: ColorOpt = ColorMode.AUTO) -> int:
    """List the dialects toolpatch reads, where their lists sit and how each is recognised."""
    printer = Printer(sys.stdout, styled=wants_color(color, sys.stdout))
    for dialect in DIALECTS:
        printer.line(((dialect.name, "bold cyan"), (f"  {dialect.title}", "bold")))
        printer.text(f"  recognised by: {dialect.recognised_by}")
        printer.text(f"  found in: {dialect.containers}")
        printer.text("")
    printer.text(
        "Detection is per message list: the first dialect (in the order above) that reads every "
        "message and sees a marker of its own wins; --dialect NAME forces one. Lists are found "
        "anywhere in a document; JSON Lines hold one conversation or one message per line."
    )
    return int(ExitCode.OK)


def _terminate(signum: int, frame: FrameType | None) -> NoReturn:
    """SIGTERM unwinds like an interrupt, so an atomic write removes its temporary file."""
    raise KeyboardInterrupt


#: What ``app()`` returns after a ``KeyboardInterrupt`` (Typer's ``Exit(130)``); toolpatch's
#: own commands never return it, and DESIGN allows only 0, 1 and 2.
_TYPER_INTERRUPTED = 130


def main() -> None:
    """Console entry point: runs the app and maps every outcome to exit code 0, 1 or 2."""
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
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("toolpatch: interrupted\n")
        code = ExitCode.ERROR
    except Exception as exc:  # the last line of defence: never a traceback
        sys.stderr.write(
            f"toolpatch: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in toolpatch; please report it with the input that caused it.\n"
        )
        code = ExitCode.ERROR
    sys.exit(int(code) if isinstance(code, int) else 0)
