"""Text from the data made safe to show to people: control characters become visible escapes.

A tool name, a call id, a file name or a message's text is whatever the input says. Printed as
it is, an ESC or CSI in it drives the terminal (``\\x1b[2J`` clears the screen, an OSC sequence
sets the window title, others hide or rewrite what came before) and a line feed in a name forges
a line of the report. So C0 controls and DEL are shown as ``\\x1b`` (tab, line feed and carriage
return as ``\\t``, ``\\n``, ``\\r``), C1 controls as ``\\u009b``, lone surrogates, which no
stream can even encode, as ``\\udc80``, and the characters that reorder or break a line without
being controls (the bidirectional overrides such as U+202E, the separators U+2028 and U+2029) as
``\\u202e``. The backslash itself is left alone: paths keep their look, and escaping twice
changes nothing.

Machine reports (JSON, JSON Lines, SARIF) carry the exact values instead; their encoders escape.
"""

from __future__ import annotations

import re

#: What reorders or breaks the text around it without being a C0 or C1 control: the
#: bidirectional marks, embeddings, overrides and isolates (U+202E shows ``evil.json`` for
#: ``nosj.live``) and the line and paragraph separators (U+2028 ends a line in many viewers).
_INVISIBLE = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# The patterns below are compiled by `re` on first use and kept in its cache: most runs show
# nothing that needs them, and compiling both at import was 1 % of a small file's check.
#: Everything that is not shown as itself: C0, DEL, C1, lone surrogates, the above.
_CONTROLS = f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE}]"
#: The same, but for the line feeds and tabs that lay out a message's own text.
_CONTROLS_BUT_LAYOUT = f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_INVISIBLE}]"
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """``text`` as one line, every control character written as an escape. Printable text (no
    control, surrogate, format or line-separator character: what `str.isprintable` says, in C)
    has nothing to escape, and is most of a report."""
    return text if text.isprintable() else re.sub(_CONTROLS, _escape, text)


def needs_quoting(text: str) -> bool:
    """Whether ``text`` holds what `visible` escapes, or a double quote or backslash: a name
    that must be quoted to be read back (as git quotes a path in a diff header)."""
    return re.search(_CONTROLS, text) is not None or '"' in text or "\\" in text


def visible_lines(text: str) -> str:
    """``text`` with its own line feeds and tabs, every other control character written as an
    escape (a message shown whole, in a panel)."""
    return re.sub(_CONTROLS_BUT_LAYOUT, _escape, text)
