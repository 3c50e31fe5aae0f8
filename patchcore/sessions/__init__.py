"""Agent session logs: whole-file layouts of JSON Lines events holding conversations.

A Claude Code session or a Codex rollout is neither one conversation per line nor one message
per line: its conversations are spread over event lines. A file is one when its first JSON object
is a line of such a layout (`session_format`); `read_session` then checks (and repairs) it as a
whole. `patchcore.document.run` tries it
before the other JSON Lines layouts.
"""

from __future__ import annotations

from typing import Any

from patchcore.analyze import Options
from patchcore.codec import Decoded, Framing
from patchcore.document import Report
from patchcore.errors import DecodeError
from patchcore.sessions.claude_code import ClaudeCode
from patchcore.sessions.codex import Codex
from patchcore.sessions.layout import SessionFormat

#: Every session layout, in the order detection tries them.
SESSION_FORMATS: tuple[SessionFormat, ...] = (ClaudeCode(), Codex())


def session_format(first: object, options: Options) -> SessionFormat | None:
    """The layout of a JSON Lines file whose first JSON object is ``first``, if it is a session
    log (a streamed reader asks this of its first line: a session is read whole)."""
    if not isinstance(first, dict):
        return None
    return next((f for f in SESSION_FORMATS if f.claims(first, options)), None)


def read_session(decoded: Decoded, *, options: Options, fix: bool) -> Report | None:
    """Check (and with ``fix``, repair) ``decoded`` if it is an agent session log, else ``None``.

    Raises:
        ShapeError: A message has a tool-related field of the wrong shape (located).
        SelfCheckError: The repaired session did not check clean (nothing is written).
    """
    if decoded.framing is not Framing.JSONL:
        return None
    layout = session_format(_first_object(decoded), options)
    return layout.report(decoded, options=options, fix=fix) if layout is not None else None


def _first_object(decoded: Decoded) -> dict[str, Any] | None:
    """The file's first JSON object (a torn or stray line before it is passed over). No fix
    changes it, so a repaired session still reads as one."""
    for record in decoded.records:
        try:
            value = record.parse()
        except DecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


__all__ = ["SESSION_FORMATS", "SessionFormat", "read_session", "session_format"]
