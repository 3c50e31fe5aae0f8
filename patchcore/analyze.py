"""Check one message list: views → pairing → findings, each with its fix."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from patchcore.dialects import Dialect
from patchcore.engine import Dangling, pair
from patchcore.model import Applicability, Finding, Fix, MessageView, Pointer, ToolCall
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
    "TP001": "tool call {tool} (id {id}) has no result, and the history goes on after it",
    "TP002": "tool call {tool} (id {id}) in the last turn has no result",
    "TP003": "tool call {tool} (id {id}) has malformed arguments and no result",
}


def _describe(dangling: Dangling) -> str:
    call = dangling.call
    tool = f"'{call.name}'" if call.name else "of unknown tool"
    return _MESSAGES[dangling.code].format(tool=tool, id=call.id)


def check_list(
    messages: list[object],
    *,
    dialect: Dialect,
    pointer: Pointer,
    options: Options,
) -> list[Finding]:
    """Find the selected defects of one message list, each with a fix where one is honest.

    Raises:
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    views: list[MessageView] = [
        dialect.view(message, (*pointer, index)) for index, message in enumerate(messages)
    ]
    selected = [d for d in pair(views).dangling if d.code in options.selection]
    if not selected:
        return []

    groups: dict[int, list[tuple[ToolCall, str]]] = {}
    for dangling in selected:
        call = dangling.call
        assert call.id is not None  # the engine never reports id-less calls as dangling
        text = render_text(options.text(dangling.code), name=call.name, call_id=call.id)
        groups.setdefault(dangling.message_index, []).append((call, text))
    planned = dialect.answer(messages, views, pointer, list(groups.items()))
    edits_by_message = dict(zip(groups, planned, strict=True))

    findings = []
    position_in_group: dict[int, int] = {}
    for dangling in selected:
        index = dangling.message_index
        slot = position_in_group.get(index, 0)
        position_in_group[index] = slot + 1
        rule = RULES[dangling.code]
        findings.append(
            Finding(
                code=dangling.code,
                rule=rule.name,
                message=_describe(dangling),
                dialect=dialect.name,
                list_pointer=pointer,
                message_index=index,
                call_path=dangling.call.path,
                call_id=dangling.call.id,
                tool_name=dangling.call.name,
                fix=Fix(
                    Applicability.SAFE,
                    "insert a synthetic error result",
                    edits_by_message[index][slot],
                ),
            )
        )
    return findings
