"""``toolpatch --help`` and ``toolpatch COMMAND --help`` read whole on an 80-column terminal
(docs/cli.md#help), run through the real entry point.

Typer's Rich panels cut long option names with an ellipsis at 80 columns (``--exit-non-zero…``,
``--skip-no-histo…``) and showed the counted ``-q``/``-v`` as ``<int> [default: 0]``. Pinned
here: no ``…`` and no line wider than the terminal; every option name of every command (read
from the command itself, so a new option is covered) whole, on one line; ``-q``/``-v`` shown as
flags; ``show``'s ``--unsafe-fixes`` not claiming to apply anything; and help texts re-wrapped to
the terminal, never broken inside a sentence or at a hyphen.
"""

from __future__ import annotations

import re

import pytest
from typer.main import get_command

from tests.helpers import clean_env, premature_breaks, run
from toolpatch.cli.app import app
from toolpatch.cli.help_format import HELP_WIDTH, HelpCommand

COMMANDS = ["check", "fix", "strip", "show", "proxy", "rules", "rule", "explain", "formats"]
HELPS = [["--help"], *([command, "--help"] for command in COMMANDS)]


def help_text(args: list[str], columns: int) -> str:
    result = run(args, env=clean_env(COLUMNS=str(columns)), expect=0)
    assert result.stderr == "", result.show()
    return result.stdout.decode()


def option_names(command: str | None) -> list[str]:
    """Every option name of ``toolpatch COMMAND`` (or of ``toolpatch`` itself), as declared."""
    group = get_command(app)
    declared = group if command is None else group.commands[command]  # type: ignore[attr-defined]
    return [
        name
        for param in declared.params
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("-")
    ]


def test_every_command_has_its_help_checked() -> None:
    listed = help_text(["--help"], 80).split("Commands:\n", 1)[1]
    names = re.findall(r"^  ([a-z]+)  ", listed, re.MULTILINE)
    assert names == COMMANDS
    # Each is declared with ``cls=HelpCommand``: its help wraps at spaces only.
    commands = get_command(app).commands  # type: ignore[attr-defined]
    assert all(isinstance(commands[name], HelpCommand) for name in COMMANDS)


@pytest.mark.parametrize("args", HELPS, ids=" ".join)
def test_help_is_whole_at_80_columns(args: list[str]) -> None:
    shown = help_text(args, 80)
    assert "…" not in shown and "\x1b" not in shown, shown
    too_wide = [line for line in shown.splitlines() if len(line) > 80]
    assert not too_wide, shown
    # A command listed with its help cut short ends in "..." (Click's short help).
    assert not re.search(r"\w\.\.\.$", shown, re.MULTILINE), shown
    command = None if args == ["--help"] else args[0]
    for name in option_names(command):
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", shown), f"{name}:\n{shown}"


@pytest.mark.parametrize("command", ["check", "fix"])
def test_quiet_and_verbose_show_as_flags(command: str) -> None:
    shown = help_text([command, "--help"], 80)
    for flag in ("-q, --quiet", "-v, --verbose"):
        (line,) = [line for line in shown.splitlines() if line.lstrip().startswith(flag)]
        assert re.fullmatch(rf"  {flag} {{2,}}[A-Z]\w+ .*", line), line
    assert "[default: 0]" not in shown and "<int>" not in shown, shown


def option_help(shown: str, name: str) -> str:
    """The help of option ``name`` in ``shown``: its row and the lines indented under it."""
    lines = shown.splitlines()
    (start,) = [k for k, line in enumerate(lines) if line.lstrip().startswith(name)]
    block = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 10):
            break
        block.append(line)
    return " ".join(" ".join(block).split())


def test_show_unsafe_fixes_only_shows() -> None:
    described = option_help(help_text(["show", "--help"], 80), "--unsafe-fixes")
    assert "show" in described and "apply" not in described, described
    applied = option_help(help_text(["fix", "--help"], 80), "--unsafe-fixes")
    assert "apply" in applied, applied


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("args", HELPS, ids=" ".join)
def test_help_text_is_rewrapped_to_the_terminal(args: list[str], columns: int) -> None:
    """Docstrings and help texts are wrapped to the terminal (up to HELP_WIDTH), not at the line
    breaks of the source: no line ends early while the next word would have fitted."""
    shown = help_text(args, columns)
    width = min(columns, HELP_WIDTH) - 2  # Click keeps two columns free
    assert not premature_breaks(shown, width), "\n".join(premature_breaks(shown, width))
    assert max(len(line) for line in shown.splitlines()) <= width


@pytest.mark.parametrize("columns", [60, 80, 100, 120])
@pytest.mark.parametrize("command", ["check", "fix"])
def test_help_never_breaks_a_word_at_a_hyphen(command: str, columns: int) -> None:
    """``--keep-invalid-lines`` or ``live-session-minutes`` in a help text stay on one line."""
    shown = help_text([command, "--help"], columns)
    assert not re.search(r"\w-$", shown, re.MULTILINE), shown
    assert "live-session-minutes" in shown and "keep-invalid-lines" in shown


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("args", [["rules"], ["formats"]], ids=" ".join)
def test_the_listings_fit_the_terminal(args: list[str], columns: int) -> None:
    """``rules`` and ``formats`` are wrapped as ``--help`` and ``rule`` are: to ``COLUMNS``
    (up to HELP_WIDTH), at spaces only, nothing left out."""
    shown = help_text([*args, "--color", "never"], columns)
    width = min(columns, HELP_WIDTH) - 2
    assert max(len(line) for line in shown.splitlines()) <= width, shown
    assert not re.search(r"\w-$", shown, re.MULTILINE), shown
    wide = help_text([*args, "--color", "never"], 400)
    assert shown.split() == wide.split()  # the same words, in the same order


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("args", [["--help"], ["--no-such-option"]], ids=["help", "usage error"])
def test_a_command_parsed_alone_reads_as_among_all(command: str, args: list[str]) -> None:
    """`toolpatch.cli.app._app_for` builds only the command that runs (docs/benchmarks.md#start-up):
    its help and its usage errors read as the whole command line's do."""
    from typer.testing import CliRunner

    from toolpatch.cli.app import _app_for

    alone = _app_for([command, *args])
    assert [c.name for c in alone.registered_commands] == [command]
    runner = CliRunner()
    whole = runner.invoke(app, [command, *args], prog_name="toolpatch", env=clean_env())
    narrowed = runner.invoke(alone, [command, *args], prog_name="toolpatch", env=clean_env())
    assert f"Usage: toolpatch {command}" in whole.output
    assert (narrowed.exit_code, narrowed.output) == (whole.exit_code, whole.output)


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["chek"], ["-V", "check"]])
def test_anything_but_a_command_s_name_first_is_parsed_by_all_commands(args: list[str]) -> None:
    from toolpatch.cli.app import _app_for

    assert _app_for(args) is app
