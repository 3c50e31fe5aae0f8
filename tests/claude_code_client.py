"""The real Claude Code, run offline in a home of its own against the fake Anthropic API.

`ClaudeCodeHome` is a temporary ``HOME`` (and ``CLAUDE_CONFIG_DIR``) with a project folder: each
``claude -p`` it runs talks to `tests.fake_anthropic` only (``ANTHROPIC_BASE_URL``, a dummy key,
``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``) and writes its session logs under
``.claude/projects/`` as it does for a user (docs/formats.md#claude-code-the-real-client). The
client is the pinned one of ``tests/clients/claude-code`` (`tests.npm_clients`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.fake_anthropic import FakeAnthropic, Request
from tests.npm_clients import binary

#: The tools a run may use without asking (``claude -p`` cannot ask).
TOOLS = "Bash"
#: How long one ``claude -p`` may take against the local fake (it answers at once).
RUN_SECONDS = 120


@dataclass
class ClaudeCodeHome:
    """A home folder Claude Code runs in, and the fake it talks to."""

    root: Path
    fake: FakeAnthropic

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(self.root),
            "CLAUDE_CONFIG_DIR": str(self.root / ".claude"),
            "ANTHROPIC_BASE_URL": self.fake.url,
            "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }

    def _command(self, prompt: str, resume: str | None) -> list[str]:
        again = ["--resume", resume] if resume else []
        claude = str(binary("claude-code", "claude"))
        return [
            claude,
            "-p",
            *again,
            "--output-format",
            "json",
            "--allowedTools",
            TOOLS,
            "--",
            prompt,
        ]

    def claude(
        self, prompt: str, *, resume: str | None = None
    ) -> tuple[dict[str, object], list[Request]]:
        """Run ``claude -p PROMPT`` (resuming session ``resume``) to its end: its JSON result and
        the requests the fake got meanwhile."""
        self.project.mkdir(parents=True, exist_ok=True)
        before = len(self.fake.requests)
        done = subprocess.run(
            self._command(prompt, resume),
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
        )
        assert done.stdout, f"claude printed nothing (exit {done.returncode}): {done.stderr}"
        return json.loads(done.stdout), self.fake.requests[before:]

    def killed_mid_tool(self, command: str) -> str:
        """Start ``claude -p 'run: COMMAND'`` and kill it (SIGKILL, its whole process group) while
        COMMAND runs, once the call is in the session log: the id of the session left behind."""
        self.project.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            self._command(f"run: {command}", None),
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + RUN_SECONDS
            while not any('"tool_use"' in log.read_text() for log in self.logs()):
                assert process.poll() is None, "claude ended before it ran the tool"
                assert time.monotonic() < deadline, "claude never wrote the call"
                time.sleep(0.1)
            time.sleep(0.5)  # the tool is running: its command waits for a minute
        finally:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        (log,) = self.logs()
        return log.stem

    def logs(self) -> list[Path]:
        """The main session logs Claude Code wrote (one per session)."""
        return sorted((self.root / ".claude" / "projects").glob("*/*.jsonl"))

    def log(self, session: str) -> Path:
        (found,) = [log for log in self.logs() if log.stem == session]
        return found
