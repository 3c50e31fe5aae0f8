"""Agent session logs: whole-file layouts of events holding conversations.

A Claude Code session, a Claude Agent SDK message stream, a Codex rollout, a Gemini CLI
session log, a pi session, an OpenHands trajectory or a Goose session file is neither one
conversation per line nor one message per line: its conversations
are spread over event entries. A file is one when its first JSON object is an entry of such a
layout: the first line of JSON Lines or, for a layout kept as a JSON array too, the array's
first element (`patchcore.layouts.base.Head.first_entry`).
"""

from __future__ import annotations

from patchcore.layouts.sessions.agent_sdk import AgentSdk
from patchcore.layouts.sessions.claude_code import ClaudeCode
from patchcore.layouts.sessions.codex import Codex
from patchcore.layouts.sessions.codex_bare import CodexBare
from patchcore.layouts.sessions.copilot import Copilot
from patchcore.layouts.sessions.gemini_cli import GeminiCliLog
from patchcore.layouts.sessions.gemini_stream import GeminiStream
from patchcore.layouts.sessions.goose import GooseSession
from patchcore.layouts.sessions.kimi import Kimi
from patchcore.layouts.sessions.layout import SessionLayout
from patchcore.layouts.sessions.openhands import OpenHandsTrajectory
from patchcore.layouts.sessions.pi import PiSession

#: Every session layout, in the order detection tries them (the SDK's entries may carry a
#: ``uuid``, which alone would read as Claude Code's).
SESSION_LAYOUTS: tuple[SessionLayout, ...] = (
    AgentSdk(),
    ClaudeCode(),
    Codex(),
    CodexBare(),
    Copilot(),
    GeminiCliLog(),
    GeminiStream(),
    Kimi(),
    PiSession(),
    OpenHandsTrajectory(),
    GooseSession(),
)

__all__ = ["SESSION_LAYOUTS", "SessionLayout"]
