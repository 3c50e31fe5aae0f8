"""pi's own session manager resumes what ``fix`` wrote (docs/formats.md#pi-and-openclaw-sessions).

The pinned ``@mariozechner/pi-coding-agent`` (tests/clients/pi-coding-agent) opens each pi
sample, before and after its repair, exactly as ``pi --session FILE`` does
(``SessionManager.open``), and builds the context it would send (``buildSessionContext``). In
that context every call of an assistant message pi sends (not one that ended in an error or an
abort, which pi skips) must be answered by its result before the next user or assistant
message, and no result may come without its call: what the providers require, and what pi-ai
otherwise papers over at send time with a made-up "No result provided". Before the repair that
fails; after it, it holds, and the leaf pi resumes from is the file's last entry.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import patchcore
from tests.npm_clients import installed
from tests.sample_cases import SAMPLES

INPUTS = sorted(
    p.name for p in (SAMPLES / "pi").glob("*.jsonl") if not p.name.endswith(".fixed.jsonl")
)

#: Opens each session file named on the command line as pi does and prints what it would send.
CONTEXT_SCRIPT = """
import { SessionManager } from "@mariozechner/pi-coding-agent";
const out = [];
for (const path of process.argv.slice(1)) {
  const session = SessionManager.open(path);
  out.push({ leaf: session.getLeafId(), messages: session.buildSessionContext().messages });
}
console.log(JSON.stringify(out));
"""


def resumed(paths: list[Path]) -> list[dict[str, Any]]:
    """What pi's session manager resumes from each file: its leaf and the messages it sends."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the client conformance tests need Node.js")
    folder = installed("pi-coding-agent")
    command = [node, "--input-type=module", "-e", CONTEXT_SCRIPT, *map(str, paths)]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def unpaired(messages: list[dict[str, Any]]) -> list[str]:
    """The calls left without a result before the next message of another kind, and the
    results without their call, in the context pi sends."""
    problems: list[str] = []
    waiting: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "toolResult":
            if message["toolCallId"] not in waiting:
                problems.append(f"result without call {message['toolCallId']}")
            waiting.discard(message["toolCallId"])
            continue
        problems += [f"call without result {c}" for c in sorted(waiting)]
        waiting = set()
        if role == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            waiting = {b["id"] for b in message["content"] if b.get("type") == "toolCall"}
    return problems + [f"call without result {c}" for c in sorted(waiting)]


@pytest.mark.parametrize("name", INPUTS)
def test_pi_resumes_the_repaired_session_with_every_call_answered(
    name: str, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.jsonl"
    repaired = tmp_path / "repaired.jsonl"
    data = (SAMPLES / "pi" / name).read_bytes()
    broken.write_bytes(data)
    fixed = patchcore.fix_document(data, filename=name).output
    assert fixed is not None
    repaired.write_bytes(fixed)
    before, after = resumed([broken, repaired])
    assert unpaired(before["messages"]), "the sample must break what pi sends"
    assert unpaired(after["messages"]) == []
    last = json.loads(fixed.splitlines()[-1])
    if "id" in last:  # version 1 files get their ids when pi migrates them on load
        assert after["leaf"] == last["id"]
    assert len(after["messages"]) == len(before["messages"]) + 1
