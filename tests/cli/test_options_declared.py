"""Each command declares its options in its own signature, typed (CONTRIBUTING.md, "The
layout"): Typer reads the signature as written, mypy checks it, and the values reach the
settings as a `toolpatch.cli.settings.CommandLine` of the same names."""

from __future__ import annotations

import inspect
import typing

import msgspec
import pytest
from typer.models import ArgumentInfo, OptionInfo

from toolpatch.cli.app import app
from toolpatch.cli.settings import CommandLine

COMMANDS = {command.name: command.callback for command in app.registered_commands}
#: The commands whose values become a run's settings (`CommandLine(**locals())`).
RUNS = ["check", "fix", "strip", "show"]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_declares_each_option_as_a_typed_parameter(name: str) -> None:
    command = COMMANDS[name]
    assert command is not None
    assert "__signature__" not in vars(command)  # no signature made up for it
    hints = typing.get_type_hints(command, include_extras=True)
    for parameter in inspect.signature(command).parameters.values():
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, parameter
        declared = hints[parameter.name]
        assert typing.get_origin(declared) is typing.Annotated, parameter
        (info,) = declared.__metadata__
        assert isinstance(info, (OptionInfo, ArgumentInfo)), parameter


@pytest.mark.parametrize("name", RUNS)
def test_a_run_s_parameters_are_command_line_fields(name: str) -> None:
    fields = {field.name: field.type for field in msgspec.structs.fields(CommandLine)}
    hints = typing.get_type_hints(COMMANDS[name], include_extras=True)
    for parameter, declared in hints.items():
        if parameter == "return":
            continue
        assert parameter in fields, parameter
        given = typing.get_args(declared)[0]
        accepted = typing.get_args(fields[parameter]) or (fields[parameter],)
        assert all(kind in accepted for kind in typing.get_args(given) or (given,)), parameter
