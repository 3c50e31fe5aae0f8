"""Dialects and layouts: what each format's histories look like and how they are repaired.

What belongs here: per-dialect findings, containers (which list is the history), LangChain
shapes and objects against langchain-core (the message-list API over them, envelopes that stay
data), Gemini's pairing by name, OpenAI's legacy functions, the agent
session logs (Claude Code, Claude Agent SDK, Codex, Gemini CLI) and streaming, ``--jobs`` and
batching. Mostly in process; a test that is about the command line goes in ``cli/``.
"""
