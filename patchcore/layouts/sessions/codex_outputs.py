"""The output Codex gave the model for a shell call, rebuilt from the call's execution event.

A rollout may keep a call's ``exec_command_end`` event (an ``event_msg`` line) and lose its
``function_call_output`` item: Codex rebuilds a resumed history from the ``response_item``
lines alone, so the call has no output when the session resumes, though the log says what the
command printed. codex-rs builds both from one ``ExecToolCallOutput`` (``core/src/tools``:
``events.rs`` ``ToolEmitter::finish`` and ``emit_exec_stage``, ``mod.rs``
``format_exec_output_for_model_structured`` / ``_freeform`` and ``format_exec_output_str``),
so where the event holds every part of the text, the output is rebuilt exactly as Codex wrote
it (docs/formats.md#codex):

* the ``shell`` tool, ``container.exec`` and a ``local_shell_call`` (``ShellHandler``, not
  freeform): the compact JSON ``{"output": formatted_output, "metadata": {"exit_code": N,
  "duration_seconds": S}}``, ``S`` the duration in seconds as an ``f32`` rounded to a tenth
  and written as serde_json writes an ``f32``;
* ``shell_command`` (``ShellCommandHandler``, freeform): ``Exit code: N``, ``Wall time: S
  seconds``, ``Output:`` and the output, one a line, only where the output was not cut (the
  event's ``formatted_output`` is its ``aggregated_output``: a cut output's text is cut
  otherwise than the event's);
* a command the user declined (``status: declined``), or one that failed to start (exit code
  -1, no time, the message as its only output): the message alone, which is what the model got.

Nothing else is rebuilt: a unified exec's output (``exec_command``, ``source``
``unified_exec_*``) is the chunk the tool returned when it yielded (a random chunk id, the time
it waited, a process still running), not what the end event holds; ``patch_apply_end`` has no
duration; other ``*_end`` events (MCP, collaboration, web search) are not shell outputs.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from patchcore.chat_names import tag

#: The function tools ``ShellHandler`` runs, whose output is the structured JSON.
STRUCTURED_TOOLS = frozenset({"shell", "container.exec"})
#: The function tool ``ShellCommandHandler`` runs, whose output is the freeform text.
FREEFORM_TOOL = "shell_command"


def _f32(value: float) -> float:
    """``value`` rounded to the nearest ``f32``, as Rust stores it."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _shortest(value: float) -> str:
    """The shortest decimal text that reads back as the ``f32`` ``value`` (what Rust's
    ``Display`` and ryu both choose), without an exponent."""
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if _f32(float(text)) == value:
            return format(Decimal(text), "f")
    return format(Decimal(repr(value)), "f")  # pragma: no cover - nine digits always suffice


def duration_seconds(secs: int, nanos: int) -> float:
    """``Duration::as_secs_f32`` rounded to a tenth in ``f32`` arithmetic, as codex-rs rounds
    it (``(d.as_secs_f32() * 10.0).round() / 10.0``, ``round`` halves away from zero)."""
    seconds = _f32(_f32(float(secs)) + _f32(_f32(float(nanos)) / _f32(1e9)))
    tenths = _f32(seconds * 10.0)
    return _f32(math.floor(tenths + 0.5) / 10.0)


def structured(output: str, exit_code: int, seconds: float) -> str:
    """``format_exec_output_for_model_structured``: serde_json's compact JSON, an ``f32``
    written by ryu (``2.2``, ``3.0``)."""
    shown = _shortest(seconds)
    number = shown if "." in shown else shown + ".0"
    text = json.dumps({"output": output}, ensure_ascii=False, separators=(",", ":"))
    return f'{text[:-1]},"metadata":{{"exit_code":{exit_code},"duration_seconds":{number}}}}}'


def freeform(output: str, exit_code: int, seconds: float) -> str:
    """``format_exec_output_for_model_freeform`` of an output that was not cut (an ``f32``
    shown by Rust's ``Display``: ``3``, ``2.2``)."""
    wall = _shortest(seconds)
    return "\n".join((f"Exit code: {exit_code}", f"Wall time: {wall} seconds", "Output:", output))


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _rebuilt(event: Mapping[str, Any], caller: Mapping[str, Any]) -> str | None:
    """The output Codex gave the model for ``caller``'s command, from its end ``event``, or
    ``None`` where the event does not say it whole (see the module docstring)."""
    if event.get("source") != "agent":
        return None
    formatted = event.get("formatted_output")
    aggregated = event.get("aggregated_output")
    exit_code = _integer(event.get("exit_code"))
    duration = event.get("duration")
    status = event.get("status")
    if not isinstance(formatted, str) or exit_code is None or not isinstance(duration, dict):
        return None
    secs, nanos = _integer(duration.get("secs")), _integer(duration.get("nanos"))
    if secs is None or nanos is None or secs < 0 or not 0 <= nanos < 1_000_000_000:
        return None
    unstarted = (
        status == "failed"
        and exit_code == -1
        and secs == nanos == 0
        and event.get("stdout") == ""
        and event.get("stderr") == aggregated == formatted
    )
    if status == "declined" or unstarted:
        return formatted or None
    if status not in ("completed", "failed"):
        return None
    seconds = duration_seconds(secs, nanos)
    kind, name = tag(caller, "type"), tag(caller, "name")
    if kind == "local_shell_call" or (kind == "function_call" and name in STRUCTURED_TOOLS):
        return structured(formatted, exit_code, seconds)
    if kind == "function_call" and name == FREEFORM_TOOL and formatted == aggregated:
        return freeform(formatted, exit_code, seconds)
    return None


def recorded_outputs(events: Iterable[Mapping[str, Any]], items: Sequence[Any]) -> dict[str, str]:
    """The outputs rebuilt from the ``exec_command_end`` ``events`` (the payloads of a rollout's
    ``event_msg`` lines) for the calls among the rollout's ``items``, by ``call_id``. A call
    with two end events that say different things gets none: which one Codex told the model is
    not known."""
    callers = {
        item["call_id"]: item
        for item in items
        if isinstance(item, dict)
        and isinstance(item.get("call_id"), str)
        and tag(item, "type") in ("function_call", "local_shell_call")
    }
    found: dict[str, str | None] = {}
    for event in events:
        call_id = event.get("call_id")
        if tag(event, "type") != "exec_command_end" or not isinstance(call_id, str):
            continue
        if call_id in callers:
            output = _rebuilt(event, callers[call_id])
            found[call_id] = output if found.get(call_id, output) == output else None
    return {call_id: output for call_id, output in found.items() if output is not None}
