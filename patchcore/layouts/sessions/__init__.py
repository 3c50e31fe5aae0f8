"""Agent session logs: whole-file layouts of events holding conversations.

A Claude Code session, a Claude Agent SDK message stream, a Codex rollout or a Gemini CLI
session log is neither one conversation per line nor one message per line: its conversations
are spread over event entries. A file is one when its first JSON object is an entry of such a
layout (`session_format`): the first line of JSON Lines, or, for a layout kept as a JSON array
too, the array's first element; `read_session` then checks (and repairs) it as a whole.
`patchcore.document.run` tries it before the other layouts.
"""

from __future__ import annotations

from patchcore.document import Report
from patchcore.layouts.sessions.agent_sdk import AgentSdk
from patchcore.layouts.sessions.claude_code import ClaudeCode
from patchcore.layouts.sessions.codex import Codex
from patchcore.layouts.sessions.entries import first_entry
from patchcore.layouts.sessions.gemini_cli import GeminiCliLog
from patchcore.layouts.sessions.layout import SessionFormat
from patchcore.options import Options
from patchcore.raw.codec import Decoded, Framing

#: Every session layout, in the order detection tries them (the SDK's entries may carry a
#: ``uuid``, which alone would read as Claude Code's).
SESSION_FORMATS: tuple[SessionFormat, ...] = (AgentSdk(), ClaudeCode(), Codex(), GeminiCliLog())


def session_format(first: object, options: Options, *, array: bool = False) -> SessionFormat | None:
    """The layout of a file whose first JSON object is ``first``, if it is a session log: JSON
    Lines (a streamed reader asks this of its first line: a session is read whole), or with
    ``array``, a JSON document that is an array of entries."""
    if not isinstance(first, dict):
        return None
    return next(
        (f for f in SESSION_FORMATS if (f.arrays or not array) and f.claims(first, options)),
        None,
    )


def read_session(decoded: Decoded, *, options: Options, fix: bool) -> Report | None:
    """Check (and with ``fix``, repair) ``decoded`` if it is an agent session log, else ``None``.

    Raises:
        DecodeError: It is a session kept as a JSON document that does not parse.
        ShapeError: A message has a tool-related field of the wrong shape (located).
        SelfCheckError: The repaired session did not check clean (nothing is written).
    """
    array = decoded.framing is Framing.JSON
    layout = session_format(first_entry(decoded), options, array=array)
    return layout.report(decoded, options=options, fix=fix) if layout is not None else None


__all__ = ["SESSION_FORMATS", "SessionFormat", "read_session", "session_format"]
