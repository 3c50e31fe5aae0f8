"""patchcore: find and repair dangling tool calls in serialized LLM chat histories.

A pure library: no printing, no exits, no file system. It takes bytes or parsed values and
returns findings and repaired data. The ``toolpatch`` command is a thin layer over it.

>>> import patchcore
>>> result = patchcore.fix_document(open("history.json", "rb").read())  # doctest: +SKIP
>>> result.output  # repaired bytes, or None when nothing needed fixing  # doctest: +SKIP

Every name below is imported from its module on first use (PEP 562), so that importing
``patchcore`` costs nothing and a command that never needs the engine (a check of records
proven clean by `patchcore.engine.quick`) never loads it; ``check_base_messages`` /
``fix_base_messages`` import langchain-core, which nothing else does.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patchcore.against import Against
    from patchcore.api import (
        Repair,
        apply_patches,
        check_data,
        check_document,
        check_lines,
        check_messages,
        fix_data,
        fix_document,
        fix_lines,
        fix_messages,
        layout_of_head,
        load_engine,
        repair_patches,
        strip_document,
    )
    from patchcore.base_messages import check_base_messages, fix_base_messages
    from patchcore.cuts import (
        Cut,
        against_document,
        bonded_groups,
        broken_by,
        safe_cut,
    )
    from patchcore.dialects import DIALECTS, NAMED, dialect_named
    from patchcore.errors import (
        DecodeError,
        InvalidLineError,
        NoHistoryError,
        PatchcoreError,
        SelfCheckError,
        SettingError,
        ShapeError,
        UnknownDialectError,
        UnknownRepairError,
        UnknownRuleError,
        located_text,
    )
    from patchcore.event_stores import EventStore
    from patchcore.explain import Verdict, explain_document
    from patchcore.extras import MissingExtra, extra_module
    from patchcore.fix_plan import FixPlan, plan_fixes
    from patchcore.histories import HistoryResult, history_result
    from patchcore.layouts.base import Layout
    from patchcore.layouts.records import is_training_target, training_data
    from patchcore.layouts.sessions import SESSION_LAYOUTS
    from patchcore.message_changes import MessageChanges
    from patchcore.model import (
        Finding,
        Fix,
        Insert,
        Pointer,
        TrainingData,
        Verbatim,
        format_pointer,
    )
    from patchcore.options import Options, make_options
    from patchcore.pipeline import (
        Batch,
        Mapper,
        Piece,
        RandomAccess,
        Stream,
        StreamProgress,
        Unchanged,
        process_batch,
        streamed,
    )
    from patchcore.raw.signs import shows_history
    from patchcore.result import Conversation, Result
    from patchcore.rules import (
        DEFAULT_SELECT,
        DEFAULT_TEXTS,
        RULES,
        Applicability,
        Origin,
        RepairPolicy,
        Rule,
        RuleSelection,
        fill,
        rule_named,
    )
    from patchcore.wire import edit_record, finding_record, fix_record

__version__ = "0.3.0"

#: Where each public name is defined.
_MODULES = {
    **dict.fromkeys(
        [
            "Repair",
            "apply_patches",
            "check_data",
            "check_document",
            "check_lines",
            "check_messages",
            "fix_data",
            "fix_document",
            "fix_lines",
            "fix_messages",
            "layout_of_head",
            "load_engine",
            "repair_patches",
            "strip_document",
        ],
        "patchcore.api",
    ),
    **dict.fromkeys(["check_base_messages", "fix_base_messages"], "patchcore.base_messages"),
    **dict.fromkeys(["FixPlan", "plan_fixes"], "patchcore.fix_plan"),
    # the guard for context trimmers (docs/trimming.md)
    "Against": "patchcore.against",
    **dict.fromkeys(
        ["Against", "Cut", "against_document", "bonded_groups", "broken_by", "safe_cut"],
        "patchcore.cuts",
    ),
    # the tables `toolpatch formats` and `toolpatch rule` list, and what a missing extra raises
    **dict.fromkeys(["DIALECTS", "NAMED", "dialect_named"], "patchcore.dialects"),
    "SESSION_LAYOUTS": "patchcore.layouts.sessions",
    **dict.fromkeys(["MissingExtra", "extra_module"], "patchcore.extras"),
    "Layout": "patchcore.layouts.base",
    "EventStore": "patchcore.event_stores",
    # the judgement of fine-tuning data, said before anything is written
    "TrainingData": "patchcore.model",
    **dict.fromkeys(["is_training_target", "training_data"], "patchcore.layouts.records"),
    **dict.fromkeys(
        [
            "Batch",
            "Mapper",
            "MessageChanges",
            "Piece",
            "StreamProgress",
            "RandomAccess",
            "Stream",
            "Unchanged",
            "process_batch",
            "streamed",
        ],
        "patchcore.pipeline",
    ),
    **dict.fromkeys(["Conversation", "Result"], "patchcore.result"),
    **dict.fromkeys(["HistoryResult", "history_result"], "patchcore.histories"),
    "shows_history": "patchcore.raw.signs",
    **dict.fromkeys(
        [
            "DecodeError",
            "InvalidLineError",
            "NoHistoryError",
            "PatchcoreError",
            "SelfCheckError",
            "SettingError",
            "ShapeError",
            "UnknownDialectError",
            "UnknownRepairError",
            "UnknownRuleError",
            "located_text",
        ],
        "patchcore.errors",
    ),
    **dict.fromkeys(
        ["Finding", "Fix", "Insert", "Pointer", "Verbatim", "format_pointer"], "patchcore.model"
    ),
    "MessageChanges": "patchcore.message_changes",
    **dict.fromkeys(["Verdict", "explain_document"], "patchcore.explain"),
    **dict.fromkeys(["Options", "make_options"], "patchcore.options"),
    **dict.fromkeys(
        [
            "DEFAULT_SELECT",
            "DEFAULT_TEXTS",
            "RULES",
            "Applicability",
            "Origin",
            "RepairPolicy",
            "Rule",
            "RuleSelection",
            "fill",
            "rule_named",
        ],
        "patchcore.rules",
    ),
    **dict.fromkeys(["edit_record", "finding_record", "fix_record"], "patchcore.wire"),
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(import_module(module), name)
    globals()[name] = value  # found once: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "DEFAULT_SELECT",
    "DEFAULT_TEXTS",
    "DIALECTS",
    "NAMED",
    "RULES",
    "SESSION_LAYOUTS",
    "Against",
    "Applicability",
    "Batch",
    "Conversation",
    "Cut",
    "DecodeError",
    "EventStore",
    "Finding",
    "Fix",
    "FixPlan",
    "HistoryResult",
    "Insert",
    "InvalidLineError",
    "Layout",
    "Mapper",
    "MessageChanges",
    "MissingExtra",
    "NoHistoryError",
    "Options",
    "Origin",
    "PatchcoreError",
    "Piece",
    "Pointer",
    "RandomAccess",
    "Repair",
    "RepairPolicy",
    "Result",
    "Rule",
    "RuleSelection",
    "SelfCheckError",
    "SettingError",
    "ShapeError",
    "Stream",
    "StreamProgress",
    "TrainingData",
    "Unchanged",
    "UnknownDialectError",
    "UnknownRepairError",
    "UnknownRuleError",
    "Verbatim",
    "Verdict",
    "__version__",
    "against_document",
    "apply_patches",
    "bonded_groups",
    "broken_by",
    "check_base_messages",
    "check_data",
    "check_document",
    "check_lines",
    "check_messages",
    "dialect_named",
    "edit_record",
    "explain_document",
    "extra_module",
    "fill",
    "finding_record",
    "fix_base_messages",
    "fix_data",
    "fix_document",
    "fix_lines",
    "fix_messages",
    "fix_record",
    "format_pointer",
    "history_result",
    "is_training_target",
    "layout_of_head",
    "load_engine",
    "located_text",
    "make_options",
    "plan_fixes",
    "process_batch",
    "repair_patches",
    "rule_named",
    "safe_cut",
    "shows_history",
    "streamed",
    "strip_document",
    "training_data",
]
