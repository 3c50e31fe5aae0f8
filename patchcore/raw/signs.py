"""Whether bytes that cannot be read as JSON still look like a message history.

A file that does not parse may be a torn history (an agent killed while it wrote), which must
stay an error, or a file of another kind that only shares the name ending (``tsconfig.json``
with its comments and trailing commas, ``.vscode/*.json``), which a run that passes over files
without a history should pass over too. What tells them apart: a history names, as JSON
strings, the keys and block types that the dialects build messages from, and configuration
files do not.
"""

from __future__ import annotations

from collections.abc import Iterable

#: JSON strings (quotes included) that message histories are made of: roles and the containers
#: of histories, OpenAI Chat calls and results, Anthropic blocks, OpenAI Responses items,
#: Gemini parts, Bedrock blocks, pydantic-ai parts (agent session logs hold ``"role"`` too).
HISTORY_SIGNS: tuple[bytes, ...] = tuple(
    f'"{name}"'.encode()
    for name in (
        "messages",
        "role",
        "tool_calls",
        "tool_call_id",
        "tool_use",
        "tool_use_id",
        "tool_result",
        "function_call",
        "function_call_output",
        "call_id",
        "functionCall",
        "functionResponse",
        "toolUse",
        "toolResult",
        "part_kind",
    )
)
#: How many bytes of one block a sign that ends in the next one can take.
_SIGN_REACH = max(len(sign) for sign in HISTORY_SIGNS) - 1


def shows_history(blocks: Iterable[bytes]) -> bool:
    """Whether the text read as ``blocks`` holds one of `HISTORY_SIGNS` (a sign may span two
    blocks; the search stops at the first block that shows one).

    NUL bytes are left out, so that UTF-16 and UTF-32 text (which toolpatch cannot read, but
    which may well be a history) is searched too.
    """
    tail = b""
    for block in blocks:
        text = tail + block.replace(b"\x00", b"")
        if any(sign in text for sign in HISTORY_SIGNS):
            return True
        tail = text[-_SIGN_REACH:]
    return False
