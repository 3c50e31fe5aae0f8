"""The dialect adapters, in detection order (docs/formats.md#detection)."""

from __future__ import annotations

import difflib

from patchcore.dialects.anthropic import Anthropic
from patchcore.dialects.base import Dialect, Recognition
from patchcore.dialects.bedrock import Bedrock
from patchcore.dialects.gemini import Gemini
from patchcore.dialects.gemini_cli import GeminiCli
from patchcore.dialects.langchain import LangChain
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.dialects.openai_responses import OpenAIAgentsJS, OpenAIResponses
from patchcore.dialects.pydantic_ai import PydanticAI
from patchcore.errors import UnknownDialectError

#: Every adapter, in the order detection tries them (a list goes to the first that recognises
#: all its messages and sees a marker of its own in one of them).
DIALECTS: tuple[Dialect, ...] = (
    LangChain(),
    OpenAIAgentsJS(),
    OpenAIResponses(),
    Gemini(),
    GeminiCli(),
    Bedrock(),
    Anthropic(),
    PydanticAI(),
    OpenAIChat(),
)

_BY_NAME = {dialect.name: dialect for dialect in DIALECTS}


def dialect_named(name: str) -> Dialect:
    """Return the adapter called ``name``.

    Raises:
        UnknownDialectError: No adapter has that name.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        msg = f"unknown dialect {name!r}{_did_you_mean(name)} (known: {known})"
        raise UnknownDialectError(msg) from None


def _did_you_mean(name: str) -> str:
    """``"; did you mean 'openai-chat', 'openai-responses' or ...?"``: the known names that start
    with ``name``, else the one spelling `difflib` finds close to it, closest first; nothing when
    no name is near."""
    lowered = name.strip().lower()
    starting = [known for known in _BY_NAME if lowered and known.startswith(lowered)]
    pool, cutoff = (starting, 0.0) if starting else (list(_BY_NAME), 0.6)
    close = difflib.get_close_matches(lowered, pool, n=len(pool), cutoff=cutoff)
    if not close:
        return ""
    quoted = [repr(known) for known in close]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"; did you mean {listed}?"


__all__ = ["DIALECTS", "Dialect", "Recognition", "dialect_named"]
