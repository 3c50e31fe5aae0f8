"""Check one message list: views → pairing → findings, each with its fix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchcore.dialects import Dialect
from patchcore.dialects.base import ListContext
from patchcore.engine import Dangling, pair
from patchcore.model import Applicability, Finding, Fix, ToolCall
from patchcore.rules import DEFAULT_TEXTS, RULES, RuleSelection, render_text


@dataclass(frozen=True, slots=True)
class Options:
    """What to check and how to word synthetic results (built once per run).

    Attributes:
        selection: Rule codes in force.
        texts: Synthetic-result templates by rule code; missing codes use the defaults.
        dialect: Adapter forced by the caller, or ``None`` to detect per list.
    """

    selection: RuleSelection = field(default_factory=RuleSelection.build)
    texts: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_TEXTS))
    dialect: Dialect | None = None

    def text(self, code: str) -> str:
        """The template for ``code``'s synthetic result."""
        return self.texts.get(code) or DEFAULT_TEXTS[code]


_MESSAGES = {
    "TP001": "{what} has no result, and the history goes on after it",
    "TP002": "{what} in the last turn has no result",
    "TP003": "{what} has malformed arguments and no result",
}


def _describe(dangling: Dangling) -> str:
    call = dangling.call
    tool = f"'{call.name}'" if call.name else "of unknown tool"
    ident = f"id {call.id}" if call.id else "no id"
    text = _MESSAGES[dangling.code].format(what=f"tool call {tool} ({ident})")
    if not call.answerable:
        text += "; a result of this kind cannot be truthfully made up"
    return text


def check_list(
    messages: Sequence[Any],
    *,
    dialect: Dialect,
    context: ListContext,
    options: Options,
) -> list[Finding]:
    """Find the selected defects of one message list, each with a fix where one is honest.

    ``messages`` may hold ``None`` for elements of a wrapper list that carry no message.

    Raises:
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    views = dialect.views(messages, context)
    selected = [d for d in pair(views).dangling if d.code in options.selection]
    if not selected:
        return []

    groups: dict[int, list[tuple[ToolCall, str]]] = {}
    for dangling in selected:
        call = dangling.call
        key = call.pairing_key
        assert key is not None  # the engine never reports key-less calls as dangling
        text = render_text(options.text(dangling.code), name=call.name, call_id=call.id)
        groups.setdefault(dangling.message_index, []).append((call, text))
    planned = dialect.answer(messages, views, context, list(groups.items()))
    edits_by_message = dict(zip(groups, planned, strict=True))

    findings = []
    position_in_group: dict[int, int] = {}
    for dangling in selected:
        index = dangling.message_index
        slot = position_in_group.get(index, 0)
        position_in_group[index] = slot + 1
        edits = edits_by_message[index][slot]
        findings.append(
            Finding(
                code=dangling.code,
                rule=RULES[dangling.code].name,
                message=_describe(dangling),
                dialect=dialect.name,
                list_pointer=context.pointer,
                message_index=index,
                message_path=context.message_pointer(index),
                call_path=dangling.call.path,
                call_id=dangling.call.id,
                tool_name=dangling.call.name,
                fix=Fix(Applicability.SAFE, "insert a synthetic error result", edits)
                if edits
                else None,
                provider_error=dialect.provider_error(dangling.code, dangling.call, index),
            )
        )
    return findings
