"""patchcore: find and repair dangling tool calls in serialized LLM chat histories.

A pure library: no printing, no exits, no file system. It takes bytes or parsed values and
returns findings and repaired data. The ``toolpatch`` command is a thin layer over it.

>>> import patchcore
>>> report = patchcore.fix_document(open("history.json", "rb").read())  # doctest: +SKIP
>>> report.output  # repaired bytes, or None when nothing needed fixing  # doctest: +SKIP

``check_base_messages`` / ``fix_base_messages`` work on langchain-core ``BaseMessage`` lists;
they are imported lazily so that using the rest never imports langchain-core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patchcore.api import (
    Repair,
    check_data,
    check_document,
    check_lines,
    check_messages,
    fix_data,
    fix_document,
    fix_lines,
    fix_messages,
)
from patchcore.document import ListReport, RecordsResult, Report
from patchcore.errors import (
    DecodeError,
    NoHistoryError,
    PatchcoreError,
    SelfCheckError,
    ShapeError,
    UnknownDialectError,
    UnknownRuleError,
)
from patchcore.model import Finding, Fix, Insert, format_pointer
from patchcore.options import Options, make_options
from patchcore.rules import DEFAULT_TEXTS, RULES, Applicability, Rule, RuleSelection

if TYPE_CHECKING:
    from patchcore.base_messages import check_base_messages, fix_base_messages

__version__ = "0.1.0"

_LAZY = {"check_base_messages", "fix_base_messages"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from patchcore import base_messages

        return getattr(base_messages, name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "DEFAULT_TEXTS",
    "RULES",
    "Applicability",
    "DecodeError",
    "Finding",
    "Fix",
    "Insert",
    "ListReport",
    "NoHistoryError",
    "Options",
    "PatchcoreError",
    "RecordsResult",
    "Repair",
    "Report",
    "Rule",
    "RuleSelection",
    "SelfCheckError",
    "ShapeError",
    "UnknownDialectError",
    "UnknownRuleError",
    "__version__",
    "check_base_messages",
    "check_data",
    "check_document",
    "check_lines",
    "check_messages",
    "fix_base_messages",
    "fix_data",
    "fix_document",
    "fix_lines",
    "fix_messages",
    "format_pointer",
    "make_options",
]
