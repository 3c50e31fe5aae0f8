"""The dialect adapters, in detection order (docs/formats.md#detection)."""

from __future__ import annotations

from patchcore.dialects.ai_sdk_model import AISdkModel
from patchcore.dialects.ai_sdk_ui import AISdkUI
from patchcore.dialects.anthropic import Anthropic
from patchcore.dialects.base import Dialect, Recognition
from patchcore.dialects.bedrock import Bedrock
from patchcore.dialects.cline import Cline
from patchcore.dialects.gemini import Gemini
from patchcore.dialects.gemini_cli import GeminiCli
from patchcore.dialects.goose import Goose
from patchcore.dialects.langchain import LangChain
from patchcore.dialects.llama_index import LlamaIndex
from patchcore.dialects.mastra import Mastra
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.dialects.openai_responses import OpenAIAgentsJS, OpenAIResponses
from patchcore.dialects.opencode import Opencode
from patchcore.dialects.openhands import OpenHands
from patchcore.dialects.otel_genai import OtelGenAI
from patchcore.dialects.pi import Pi
from patchcore.dialects.pydantic_ai import PydanticAI
from patchcore.errors import UnknownDialectError, did_you_mean

#: Every adapter, in the order detection tries them (a list goes to the first that recognises
#: all its messages and sees a marker of its own in one of them).
DIALECTS: tuple[Dialect, ...] = (
    LangChain(),
    Mastra(),
    AISdkUI(),
    AISdkModel(),
    LlamaIndex(),
    OpenAIAgentsJS(),
    OpenAIResponses(),
    Gemini(),
    GeminiCli(),
    Opencode(),
    Bedrock(),
    Anthropic(),
    PydanticAI(),
    OtelGenAI(),
    OpenAIChat(),
)

#: Every adapter a caller can force by name: the detected ones, then those that content cannot
#: tell from another dialect (Cline's task histories are Anthropic messages read by Cline's
#: convention; the CLI forces it by file name, docs/formats.md#cline-and-roo-code-task-histories;
#: pi's, Goose's and OpenHands' messages are read in their session files: docs/formats.md,
#: "pi and openclaw sessions", "Goose sessions", "OpenHands trajectories").
NAMED: tuple[Dialect, ...] = (*DIALECTS, Cline(), Pi(), Goose(), OpenHands())

_BY_NAME = {dialect.name: dialect for dialect in NAMED}


def dialect_named(name: str) -> Dialect:
    """Return the adapter called ``name``.

    Raises:
        UnknownDialectError: No adapter has that name.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        close = did_you_mean(name, sorted(_BY_NAME, reverse=True))  # equally close: z to a
        msg = f"unknown dialect {name!r}{close} (known: {known})"
        raise UnknownDialectError(msg, setting="dialect") from None


__all__ = ["DIALECTS", "NAMED", "Dialect", "Recognition", "dialect_named"]
