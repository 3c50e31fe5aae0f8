"""Claude Code session logs written line by line, in the client's own format, for the tests that
resume a shape no run of the client leaves on its own (docs/proxy.md#claude-code).

A `SessionLog` holds the lines of one session (``~/.claude/projects/<dir>/<session>.jsonl``,
docs/formats.md#claude-code) as Claude Code 2.1.332 writes them: ``user`` and ``assistant``
lines with ``uuid`` and ``parentUuid`` (each new line hangs off the last one unless told
otherwise), one content block a line where the client writes one, the keys every line of the
client carries (``sessionId``, ``cwd``, ``version``, ...). `SessionLog.write` puts the file where
the client of a `ClaudeCodeHome` finds it for ``claude --resume`` (its project folder: the
working directory with every character but letters and digits made ``-``, as the client names
it).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.claude_code_client import ClaudeCodeHome

#: The version the lines say they were written by: the pinned client's (tests/clients/claude-code).
VERSION = "2.1.332"
#: ``parent=LEAF``: hang the new line off the last line of the chain (the default).
LEAF = "leaf"


def call(call_id: str, command: str = "echo hi") -> dict[str, Any]:
    """A ``tool_use`` block of Claude Code's ``Bash`` tool."""
    return {
        "type": "tool_use",
        "id": call_id,
        "name": "Bash",
        "input": {"command": command, "description": "Run the command"},
    }


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


@dataclass
class SessionLog:
    """The lines of one session, and the ``uuid`` of the chain's last line (its leaf)."""

    home: ClaudeCodeHome
    session: str = field(default_factory=lambda: str(uuid.uuid4()))
    lines: list[dict[str, Any]] = field(default_factory=list)
    leaf: str | None = None

    def line(self, kind: str, *, parent: str | None = LEAF, chain: bool = True, **keys: Any) -> str:
        """Append a line of type ``kind`` with ``keys``: its ``uuid``. It hangs off the leaf, or
        off ``parent`` (``None``: a root); with ``chain`` it becomes the new leaf."""
        minutes, seconds = divmod(len(self.lines), 60)
        line = {
            "parentUuid": self.leaf if parent == LEAF else parent,
            "isSidechain": False,
            "type": kind,
            "uuid": str(uuid.uuid4()),
            "timestamp": f"2026-12-07T10:{minutes:02d}:{seconds:02d}.000Z",
            **keys,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": str(self.home.project),
            "sessionId": self.session,
            "version": VERSION,
            "gitBranch": "HEAD",
        }
        self.lines.append(line)
        if chain:
            self.leaf = line["uuid"]
        return str(line["uuid"])

    def user(self, content: str | list[dict[str, Any]], **keys: Any) -> str:
        """A ``user`` line: a prompt (a string) or blocks."""
        return self.line("user", message={"role": "user", "content": content}, **keys)

    def assistant(
        self, blocks: list[dict[str, Any]], *, message_id: str | None = None, **keys: Any
    ) -> str:
        """An ``assistant`` line holding ``blocks`` of the API response ``message_id`` (the
        client writes one line a block, each with the response's id)."""
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        message = {
            "id": message_id or f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        return self.line("assistant", message=message, **keys)

    def result(
        self, call_id: str, output: str, *, call_line: str, is_error: bool = False, **keys: Any
    ) -> str:
        """The ``user`` line of one tool result, as the client writes it after running the call
        of line ``call_line``."""
        block = {
            "tool_use_id": call_id,
            "type": "tool_result",
            "content": output,
            "is_error": is_error,
        }
        shown = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
        return self.user([block], toolUseResult=shown, sourceToolAssistantUUID=call_line, **keys)

    def write(self) -> Path:
        """Write the session where the home's client looks for it: its path."""
        project = re.sub(r"[^A-Za-z0-9]", "-", str(self.home.project))
        folder = self.home.root / ".claude" / "projects" / project
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.session}.jsonl"
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in self.lines)
        path.write_text(text)
        return path
