"""Never trusting the data: no deserialisation, no code, no paths.

* LangChain ``lc`` envelopes (``constructor``, ``secret``, ``not_implemented``) and
  ``__lc_escaped__`` wrappers are data: with ``langchain_core.load`` (``load``, ``loads``,
  ``Reviver``), ``pickle``, ``marshal``, ``eval`` and ``exec`` booby-trapped, documents full of
  them are checked and fixed, and every envelope survives byte for byte; a secret named in the
  data is never resolved from the environment.
* No module of patchcore/ or cli/ mentions ``eval(``, ``exec(``, pickle, marshal,
  ``langchain_core.load``, subprocess or ``os.system``.
* Result templates are literal: only ``{name}`` and ``{id}`` are substituted, once.
* Paths named in the data are never opened, and the CLI resolves no secret: in
  ``tests/cli/test_security_cli.py``, which runs the real entry point.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import marshal
import pickle
import pkgutil
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import langchain_core.load
import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

import patchcore
import patchcore.base_messages
from tests.helpers import tp001
from tests.robustness import (
    CONSTRUCTOR_OF_A_MODEL,
    DOCUMENTS,
    ESCAPED,
    NOT_IMPLEMENTED,
    ROOT,
    SECRET,
    SENTINEL,
    dangling_history,
    envelope_history,
    single_insertion,
)

#: The module ``langchain_core.load.load`` (the package attribute of that name is the function).
lc_load_module = sys.modules["langchain_core.load.load"]


class Forbidden(BaseException):
    """Raised by every booby-trapped function; a BaseException, so no ``except Exception``
    inside toolpatch can swallow it."""


def _import_toolpatch() -> None:
    """Import every module of toolpatch: the engine is imported where it is first used, and
    loading a module (``marshal.loads`` of its bytecode, or ``compile`` of its source) is not
    what the traps are about."""
    import patchcore
    import toolpatch.cli
    import toolpatch.integrations

    for package in (toolpatch.cli, toolpatch.integrations, patchcore):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)


@contextmanager
def booby_traps() -> Iterator[list[str]]:
    """Make deserialisation and code execution raise while the block runs; yields the names of
    the ones that were called (the block is over before pytest reports anything)."""
    _import_toolpatch()
    called: list[str] = []

    def trap(name: str) -> Any:
        def raiser(*args: Any, **kwargs: Any) -> Any:
            called.append(name)
            raise Forbidden(name)

        return raiser

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", SENTINEL)
        for module, attribute in (
            (langchain_core.load, "load"),
            (langchain_core.load, "loads"),
            (lc_load_module, "load"),
            (lc_load_module, "loads"),
            (lc_load_module, "Reviver"),
            (pickle, "loads"),
            (pickle, "load"),
            (pickle, "Unpickler"),
            (marshal, "loads"),
            (builtins, "eval"),
            (builtins, "exec"),
            (builtins, "compile"),
        ):
            patch.setattr(module, attribute, trap(f"{module.__name__}.{attribute}"))
        try:
            yield called
        except Forbidden as error:
            raise AssertionError(f"toolpatch called {error}") from None


@pytest.mark.parametrize("name", DOCUMENTS)
def test_envelopes_are_data(name: str) -> None:
    data, filename = DOCUMENTS[name]
    with booby_traps() as called:
        checked = patchcore.check_document(data, filename=filename)
        report = patchcore.fix_document(data, filename=filename)
        again = None if report.output is None else patchcore.fix_document(report.output)
    assert not called, f"toolpatch called {called}"
    codes = sorted(f.code for f in checked.findings)
    assert codes and set(codes) <= {"TP001"}, codes
    output = report.output
    assert output is not None
    if name == "jsonl-message-per-line":  # new lines are inserted: the old ones stay verbatim
        assert set(data.splitlines()) <= set(output.splitlines())
    elif name == "jsonl-records":  # one insertion in each record's line
        assert len(data.splitlines()) == len(output.splitlines())
        for before, after in zip(data.splitlines(), output.splitlines(), strict=True):
            single_insertion(before, after)
    else:
        single_insertion(data, output)
    assert SENTINEL.encode() not in output
    for envelope in (SECRET, NOT_IMPLEMENTED, ESCAPED, CONSTRUCTOR_OF_A_MODEL):
        for style in (json.dumps(envelope), json.dumps(envelope, separators=(",", ":"))):
            assert data.count(style.encode()) == output.count(style.encode()), style
    assert again is not None and again.output is None, "fix is not idempotent"


@pytest.mark.parametrize("envelope", [SECRET, NOT_IMPLEMENTED, ESCAPED, CONSTRUCTOR_OF_A_MODEL])
def test_a_bare_envelope_is_not_a_history(envelope: dict[str, Any]) -> None:
    with booby_traps() as called, pytest.raises(patchcore.NoHistoryError) as caught:
        patchcore.fix_document(json.dumps(envelope))
    assert not called, f"toolpatch called {called}"
    assert SENTINEL not in str(caught.value)


def test_an_envelope_among_messages_is_an_error() -> None:
    """A secret where a message should be: a located shape error, not a loaded object."""
    history = [*envelope_history()[:2], SECRET, envelope_history()[2]]
    with booby_traps() as called, pytest.raises(patchcore.ShapeError) as caught:
        patchcore.fix_document(json.dumps(history, indent=2))
    assert not called, f"toolpatch called {called}"
    assert caught.value.line is not None and SENTINEL not in str(caught.value)


def test_envelopes_in_base_messages_are_left_alone() -> None:
    extra = {"secret": SECRET, "llm": NOT_IMPLEMENTED, "escaped": ESCAPED}
    history: list[BaseMessage] = [
        HumanMessage(content=[{"type": "text", "text": "hi"}], additional_kwargs=dict(extra)),
        AIMessage(
            content="",
            tool_calls=[{"name": "lookup", "args": {"key": SECRET}, "id": "call_b1"}],
            additional_kwargs={"escaped": ESCAPED},
            response_metadata={"model": CONSTRUCTOR_OF_A_MODEL},
        ),
        HumanMessage(content="stop", additional_kwargs={"secret": SECRET}),
    ]
    before = [m.model_dump() for m in history]
    with booby_traps() as called:
        repair = patchcore.fix_base_messages(history)
        checked = patchcore.check_base_messages(repair.value)
    assert not called, f"toolpatch called {called}"
    assert [f.code for f in repair.fixed] == ["TP001"] and checked == []
    assert repair.value[0] is history[0] and repair.value[1] is history[1]
    assert repair.value[3] is history[2]
    inserted = repair.value[2]
    assert isinstance(inserted, ToolMessage) and inserted.tool_call_id == "call_b1"
    assert [m.model_dump() for m in history] == before, "the input messages were mutated"
    assert SENTINEL not in json.dumps([m.model_dump() for m in repair.value], default=str)


# --------------------------------------------------------------------------------------------
# Static: no code execution, no deserialisation, no processes
# --------------------------------------------------------------------------------------------

FORBIDDEN_TEXT = (
    "eval(",
    "exec(",
    "pickle",
    "marshal",
    "langchain_core.load",
    "subprocess",
    "os.system",
    "shelve",
    "__import__(",
)
#: The library, the command line, and the modules of integrations/ the command line shares
#: (files written whole and compressed, URL redaction).
SHARED = ("file_io.py", "redaction.py")
SOURCES = sorted(
    [
        *(ROOT / "patchcore").rglob("*.py"),
        *(ROOT / "cli").rglob("*.py"),
        *(ROOT / "integrations" / name for name in SHARED),
    ]
)


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_dangerous_code(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    found = [word for word in FORBIDDEN_TEXT if word in source]
    assert not found, f"{path.relative_to(ROOT)} mentions {found}"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in ("eval", "exec", "compile", "__import__"), (
                f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}"
            )
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names]
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for imported in [module, *names]:
                assert imported not in ("pickle", "marshal", "shelve", "subprocess", "dill"), (
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {imported}"
                )


def test_the_static_scan_covers_both_packages() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in SOURCES}
    expected = {
        "patchcore/raw/codec.py",
        "patchcore/pipeline.py",
        "integrations/file_io.py",
        "cli/app.py",
    }
    assert expected <= names


# --------------------------------------------------------------------------------------------
# Templates are literal
# --------------------------------------------------------------------------------------------

TEMPLATE = (
    "A {name.__class__} B {0!s} C {name.__init__} D {name} E {id} F {{name}} G {id!r} H %s "
    "%(name)s I ${name} J {name:>10} K {} L {id[0]}"
)


def literal(template: str, name: str, call_id: str) -> str:
    """Single-pass substitution of exactly ``{name}`` and ``{id}``."""
    values = {"name": name, "id": call_id}
    return re.sub(r"\{(name|id)\}", lambda m: values[m.group(1)], template)


NAMES_AND_IDS = [
    ("get_weather", "call_1"),
    ("{id}", "{name}"),
    ("{0}", "{__class__}"),
    ("{name.__init__}", "%s"),
    ("f{}", "{{id}}"),
]


@pytest.mark.parametrize("word", ["{__class__}", "{0}", "{__globals__}", "{NAME}"])
def test_a_template_naming_another_field_is_refused(word: str) -> None:
    """What ``str.format`` would look up is no placeholder of a synthetic text: refused when
    the options are made, so that it never reaches a history."""
    with pytest.raises(patchcore.UnknownRuleError, match=re.escape(word)):
        patchcore.make_options(texts={"TP001": f"Tool {{name}} {word}"})


@pytest.mark.parametrize(("name", "call_id"), NAMES_AND_IDS)
def test_templates_substitute_only_name_and_id(name: str, call_id: str) -> None:
    history = dangling_history(call_id, name)
    expected = literal(TEMPLATE, name, call_id)
    report = patchcore.fix_document(
        json.dumps(history), options=patchcore.make_options(texts={"TP001": TEMPLATE})
    )
    assert report.output is not None
    assert json.loads(report.output)[2]["content"] == expected
    repair = patchcore.fix_messages(
        history, options=patchcore.make_options(texts={"TP001": TEMPLATE})
    )
    assert repair.value[2]["content"] == expected
    default = patchcore.fix_data({"messages": history})
    assert default.value["messages"][2]["content"] == tp001(name, call_id)


@pytest.mark.parametrize(("name", "call_id"), NAMES_AND_IDS)
def test_templates_are_literal_for_base_messages(name: str, call_id: str) -> None:
    history: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[{"name": name, "args": {}, "id": call_id}]),
        HumanMessage("stop"),
    ]
    repair = patchcore.fix_base_messages(
        history, options=patchcore.make_options(texts={"TP001": TEMPLATE})
    )
    assert repair.value[2].content == literal(TEMPLATE, name, call_id)


@pytest.mark.parametrize(("name", "call_id"), NAMES_AND_IDS)
def test_reports_quote_names_and_ids_literally(name: str, call_id: str) -> None:
    """The finding's message and the quoted provider error carry the data as it is."""
    (finding,) = patchcore.check_document(json.dumps(dangling_history(call_id, name))).findings
    assert finding.call_id == call_id and finding.tool_name == name
    assert call_id in finding.message, finding.message
    assert finding.provider_error is not None
    assert finding.provider_error.endswith(f"did not have response messages: {call_id}"), (
        f"the provider error misquotes the id {call_id!r}: {finding.provider_error!r}"
    )
