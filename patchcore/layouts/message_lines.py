"""JSON Lines with one message per line: the whole file is one conversation.

New messages become new lines written in the style of their neighbours, a removed message drops
its line, and edits inside a message are spliced into its own line
(`patchcore.raw.splice.splice_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from patchcore.errors import SelfCheckError, ShapeError
from patchcore.layouts.base import Analysis, Head, WholeLayout, dialects_for
from patchcore.layouts.records import CONVERSATION_LINES, check_lists, conversation, located
from patchcore.raw.codec import Decoded, Framing, Record
from patchcore.result import Result

if TYPE_CHECKING:
    from patchcore.engine.locate import MessageList
    from patchcore.model import Edit, Finding
    from patchcore.options import Options


class MessageLines(WholeLayout):
    """JSON Lines whose first line is a chat message: each line one message of one history."""

    name = "jsonl-messages"

    def recognises(self, head: Head, options: Options) -> bool:
        from patchcore.engine.locate import classify

        return head.framing is Framing.JSONL and (
            classify([head.first_record], dialects_for(options)) is not None
        )

    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        """As `WholeLayout.process`; lines that turn out not to be one message list (the first
        line reads as a message, the others do not all go with it) are conversation lines."""
        listed = _listed(decoded, options)
        if listed is None:
            return CONVERSATION_LINES.process(decoded, options=options, fix=fix)
        analysis = _analysed(decoded, listed, options, fixing=fix)
        return self.concluded(decoded, analysis, options=options, fix=fix)

    def analyse(self, decoded: Decoded, options: Options, *, fixing: bool) -> Analysis:
        listed = _listed(decoded, options)
        if listed is None:  # only a repair can get here: `process` checked the input's lines
            msg = "internal error: the repaired lines are no longer one message list"
            raise SelfCheckError(msg, line=1, column=1)
        return _analysed(decoded, listed, options, fixing=fixing)

    def write(self, decoded: Decoded, edits: Sequence[Edit]) -> bytes:
        from patchcore.raw.splice import splice_lines

        return decoded.join(splice_lines(decoded, edits))


def _analysed(decoded: Decoded, listed: MessageList, options: Options, *, fixing: bool) -> Analysis:
    """The findings of the file's lines, read as the one message list ``listed``, each located
    on its message's line."""
    records = decoded.records
    try:
        ((_, checked),) = check_lists([listed], options, fixing=fixing)
    except ShapeError as error:
        raise _located_on_its_line(error, records) from None
    findings = [_on_its_line(f, records[f.message_index]) for f in checked]
    from patchcore.engine.locate import with_unread

    listed_conversation = conversation(listed, findings, options=options, line=records[0].line)
    warnings = tuple(
        conversation(unread, (), options=options, line=records[0].line)
        for unread in with_unread(listed)[1:]
    )
    return Analysis((listed_conversation, *warnings), listed_conversation.findings)


def _listed(decoded: Decoded, options: Options) -> MessageList | None:
    """The whole file as one message list, or ``None`` when its lines are not one."""
    from patchcore.dialects.base import ListContext
    from patchcore.engine.locate import MessageList, classify

    values = [record.parse() for record in decoded.records]
    try:
        kind = classify(values, dialects_for(options))
    except ShapeError as error:
        raise _located_on_its_line(error, decoded.records) from None
    if kind is None:
        return None
    return MessageList(ListContext(()), values, kind.dialect, kind.note, kind.warning)


def _located_on_its_line(error: ShapeError, records: Sequence[Record]) -> ShapeError:
    """``error`` about a message of a message-per-line file (its path starts with the message's
    index), located on that message's line."""
    return located(error, records[int(error.path[0])], error.path[1:])


def _on_its_line(finding: Finding, record: Record) -> Finding:
    """``finding`` located at the start of its message's line."""
    return replace(finding, line=record.line, column=len(record.raw) - len(record.raw.lstrip()) + 1)


MESSAGE_LINES = MessageLines()
