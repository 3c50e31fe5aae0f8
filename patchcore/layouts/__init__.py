"""Layouts: how an input holds its conversations, and how repairs are written back.

`layout_of` is the one place an input's layout is decided, from its head (`Head`): the agent
session layouts first (their first entry tells), then one message per line, one conversation
per line, a JSON document written as a string, and a JSON document. Whoever needs the layout
(the pipeline, the batcher, the Dask integration, ``toolpatch show``) asks it, with the whole
input or just its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from patchcore.chat_names import MESSAGE_KEYS
from patchcore.errors import DecodeError, InvalidLineError
from patchcore.layouts.base import Head, Layout
from patchcore.layouts.encoded import ENCODED_DOCUMENT
from patchcore.layouts.records import CONVERSATION_LINES, JSON_DOCUMENT
from patchcore.layouts.session_signs import may_be_session
from patchcore.raw.codec import (
    UTF8_BOM,
    Decoded,
    Framing,
    decode,
    decode_batch,
    nul_error,
    parse,
    torn_record,
)
from patchcore.raw.positions import skip_whitespace

if TYPE_CHECKING:
    from patchcore.options import Options


def layout_of(decoded: Decoded, options: Options) -> Layout:
    """The layout of an input (``decoded`` may be all of it, or its first lines).

    Raises:
        DecodeError: The first record is not JSON and a layout must read it to tell
            (`InvalidLineError` when the next lines make a corpus of one conversation per line,
            where ``keep_invalid_lines`` would keep it).
    """
    try:
        return _decided(Head(decoded, lenient=options.keep_invalid_lines), options)
    except DecodeError as error:
        if options.keep_invalid_lines or decoded.framing is not Framing.JSONL:
            raise
        try:
            kept = _decided(Head(decoded, lenient=True), options)
        except DecodeError:
            raise error from None
        if kept is not CONVERSATION_LINES:
            raise
        raise InvalidLineError(
            error.reason, line=error.line, column=error.column, pointer=error.pointer
        ) from None


def read_input(
    data: bytes, *, filename: str | None, options: Options
) -> tuple[Decoded, Layout, Options]:
    """An input held whole, decoded; its layout (`layout_of`); and the options it is read with.

    An agent session log with NUL bytes (a crash while it was written: docs/cli.md#torn-lines)
    is read as with ``keep_invalid_lines``: a line with NULs is kept as it is, a line of NULs
    alone is TP202's, and the rest is checked. Any other input with NUL bytes is refused.

    Raises:
        DecodeError: As `patchcore.raw.codec.decode` and `layout_of`.
    """
    lenient = options.keep_invalid_lines
    try:
        decoded = decode(
            data, filename=filename, lenient=lenient, max_record=options.max_record_bytes
        )
    except DecodeError as error:
        if lenient or nul_error(data, first_line=1) is None:
            raise
        kept = replace(options, keep_invalid_lines=True)
        try:
            decoded = decode(
                data, filename=filename, lenient=True, max_record=options.max_record_bytes
            )
            layout = layout_of(decoded, kept)
        except DecodeError:
            raise error from None
        from patchcore.layouts.sessions.layout import SessionLayout

        if not isinstance(layout, SessionLayout):
            raise error from None
        return decoded, layout, kept
    return decoded, layout_of(decoded, options), options


def _decided(head: Head, options: Options) -> Layout:
    return next(layout for layout in _candidates(head) if layout.recognises(head, options))


def _candidates(head: Head) -> Iterator[Layout]:
    """The layouts, in the order they are asked, each only for an input that shows its sign
    (a JSON document and a corpus of conversation lines are asked of no other). The session and
    message-per-line layouts are loaded only for an input that may be one
    (`patchcore.layouts.session_signs`): they import the engine, which a clean file's quick
    proof does without."""
    if may_be_session(head.first_entry):
        from patchcore.layouts.sessions import SESSION_LAYOUTS

        yield from SESSION_LAYOUTS
    if head.framing is Framing.JSONL and _may_be_message(head.first_record):
        from patchcore.layouts.message_lines import MESSAGE_LINES

        yield MESSAGE_LINES
    if OTLP_EXPORT.match(head.decoded.records[0].raw):
        from patchcore.layouts.otlp_traces import OTLP_TRACES

        yield OTLP_TRACES
    yield CONVERSATION_LINES
    if head.framing is Framing.JSON and head.decoded.body.lstrip().startswith(b'"'):
        yield ENCODED_DOCUMENT  # a document that is a string: decided from its first byte
    yield JSON_DOCUMENT


#: How an OTLP-JSON export starts (``resourceSpans`` is its one member): the cheap sign that
#: loads its layout (`patchcore.layouts.otlp_traces`), which the parsed record then decides.
OTLP_EXPORT = re.compile(rb'\s*\{\s*"resourceSpans"\s*:')


def _may_be_message(value: object) -> bool:
    """Whether a first line may be a message (which the message-per-line layout then decides,
    with every dialect): a JSON object with a key every message has one of."""
    return isinstance(value, dict) and not MESSAGE_KEYS.isdisjoint(value)


def layout_of_head(head: bytes | bytearray, *, options: Options) -> Layout | None:
    """The layout of an input that starts with ``head`` (at least its first non-blank line and
    the start of the next), when its first line is a JSON value: the input is JSON Lines, and
    `layout_of` decides from that line as it does for the whole input. ``None`` when the first
    line is not a value: a JSON document (or a broken input), which only the whole tells.
    With ``keep_invalid_lines``, a torn first line (`patchcore.raw.codec.torn_record`) is
    passed over, and the next line decides if it is an object alone.
    """
    start = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
    lenient = options.keep_invalid_lines
    for attempt in range(2 if lenient else 1):
        start = skip_whitespace(head, start)
        end = head.find(b"\n", start)
        line = bytes(head[start : end if end >= 0 else len(head)])
        try:
            value = parse(line)
        except DecodeError:
            if not lenient or attempt or end < 0 or not torn_record(line):
                return None
            start = end + 1
            continue
        if attempt and not isinstance(value, dict):
            return None
        return _decided(Head(decode_batch(line, first_line=1), first_record=value), options)
    return None
