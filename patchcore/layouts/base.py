"""The layout interface: how an input holds its conversations, and how repairs are written back.

Every input goes through one layout (`patchcore.pipeline.layout_of` picks it from the head of the
input): a JSON document, JSON Lines with a conversation per line, JSON Lines with a message per
line, or an agent session log. A layout recognises itself from the head (`Head`), says whether
its lines can be cut into independent batches (``batches``: only then is a large input
streamed), splits the input into conversations, checks them with the engine and writes the
repairs back (`Layout.process`). The bookkeeping every layout shares is here too: which fixes
apply, their edits once each, the stability self-check, and which findings a repair leaves.

What tells an agent session log by its first entry (`Head.first_entry`) is here as well: the
entry types and the marker keys each session layout writes, one function a layout (its
``recognises_entry``). They are kept apart from the session layouts
(`patchcore.layouts.sessions`), which import the engine and every dialect adapter:
`patchcore.pipeline.layout_of` asks `may_be_session` before it loads them, so that an input which
is no session log (a JSON document, a corpus of conversation lines) is decided without importing
any of it. That is most of a small clean file's start-up (docs/benchmarks.md#start-up).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from patchcore.chat_names import openhands_event, tag
from patchcore.errors import DecodeError, SelfCheckError
from patchcore.raw.codec import Decoded, Framing, first_element, skip_whitespace
from patchcore.result import Conversation, Result

if TYPE_CHECKING:
    from patchcore.dialects import Dialect
    from patchcore.model import Edit, Finding
    from patchcore.options import Options
    from patchcore.raw.splice import Spans

_UNSET: Any = object()


class Head:
    """The start of an input, which a layout recognises itself from: its framing, its first
    record and its first entry (each parsed on first use only).

    Attributes:
        decoded: The input, or its first lines.
    """

    def __init__(
        self, decoded: Decoded, *, first_record: Any = _UNSET, lenient: bool = False
    ) -> None:
        self.decoded = decoded
        self._record: Any = first_record
        self._entry: Any = _UNSET
        self._lenient = lenient

    @property
    def framing(self) -> Framing:
        """JSON document or JSON Lines."""
        return self.decoded.framing

    @property
    def first_record(self) -> Any:
        """The value of the first record (the document, or the first non-blank line; with
        ``lenient``, the first line that is JSON: the lines that are not are kept as they are).

        Raises:
            DecodeError: It is not JSON (with ``lenient``: no line is).
        """
        if self._record is _UNSET:
            self._record = self._first_value()
        return self._record

    def _first_value(self) -> Any:
        records = self.decoded.records
        if not self._lenient or self.framing is not Framing.JSONL:
            return records[0].parse()
        first_error = None
        for record in records:
            try:
                return record.parse()
            except DecodeError as error:
                first_error = first_error or error
        assert first_error is not None
        raise first_error

    @property
    def first_entry(self) -> object:
        """What tells an agent session: the first JSON object of JSON Lines (a torn or stray
        line before it is passed over; no fix changes it, so a repaired session still reads as
        one), the first element of a document that is an array, else ``None``."""
        if self._entry is _UNSET:
            self._entry = self._find_first_entry()
        return self._entry

    def _find_first_entry(self) -> object:
        if self.framing is Framing.JSONL:
            for index, record in enumerate(self.decoded.records):
                try:
                    value = self.first_record if index == 0 else record.parse()
                except DecodeError:
                    continue
                if isinstance(value, dict):
                    return value
            return None
        raw = self.decoded.records[0].raw
        if not raw.startswith(b"[", skip_whitespace(raw, 0)):
            return None  # no other document can be a session: the session layouts stay unloaded
        return first_element(raw)


class Layout(ABC):
    """One way an input holds its conversations."""

    name: ClassVar[str]
    """What `Result.layout` says for such an input."""
    batches: ClassVar[bool] = False
    """Whether its lines can be cut into batches checked and repaired each on its own (a large
    input is then streamed); else the input is read whole."""

    @abstractmethod
    def recognises(self, head: Head, options: Options) -> bool:
        """Whether an input that starts with ``head`` has this layout (asked in the order of
        `patchcore.pipeline._candidates`: the first that says yes is the input's).

        Raises:
            DecodeError: The record it must read is not JSON.
        """

    @abstractmethod
    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        """Check (and with ``fix``, repair) an input of this layout.

        Raises:
            NoHistoryError: It holds no message list.
            DecodeError, ShapeError: A record is not JSON, or a message has a tool-related field
                of the wrong shape (located).
            SelfCheckError: The repair did not check clean (a bug: nothing may be written).
        """


class Analysis(msgspec.Struct, frozen=True):
    """What reading and checking a whole input found.

    Attributes:
        conversations: Its conversations, and a warning for each part kept unread, in order.
        findings: The selected findings, located in the file, in file order; their fixes edit
            the input as `WholeLayout.write` reads edits.
        live: The input was judged a session that may still be running (`Result.live`).
        last_entry: The newest time its entries record (`Result.last_entry`).
    """

    conversations: tuple[Conversation, ...]
    findings: tuple[Finding, ...]
    live: bool = False
    last_entry: float | None = None


class WholeLayout(Layout):
    """A layout whose conversations run across the whole input (one message per line, an agent
    session's events): read, checked and repaired as a whole."""

    @abstractmethod
    def analyse(self, decoded: Decoded, options: Options, *, fixing: bool) -> Analysis:
        """Read the conversations out of the input and check them.

        Raises:
            DecodeError, ShapeError: As `Layout.process`.
        """

    @abstractmethod
    def write(self, decoded: Decoded, edits: Sequence[Edit]) -> bytes:
        """The input (byte-order mark included) with ``edits`` applied: every byte they do not
        touch is kept."""

    def reach(self, decoded: Decoded, edit: Edit, spans: Spans | None) -> tuple[int, int]:
        """Where in the body ``write`` lands ``edit``: the bytes it changes, or the point where
        it inserts (`patchcore.raw.splice.edit_reach`, for a layout whose entries are the
        lines of JSON Lines or the elements of one document, ``spans`` its `Spans`). What
        tells a report which part of a whole repair is whose fix (`patchcore.plan_fixes`)."""
        from patchcore.raw.splice import edit_reach

        return edit_reach(decoded, edit, spans)

    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        return self.concluded(
            decoded, self.analyse(decoded, options, fixing=fix), options=options, fix=fix
        )

    def concluded(
        self, decoded: Decoded, analysis: Analysis, *, options: Options, fix: bool
    ) -> Result:
        """The result of the input ``decoded`` once ``analysis`` read and checked it: with
        ``fix``, the repair written back, re-read and checked again (the stability check)."""
        findings = analysis.findings
        conversations = analysis.conversations
        lines = len(decoded.lines)
        to_fix = tuple(applied(findings, options)) if fix else ()
        live, last_entry = analysis.live, analysis.last_entry
        if not to_fix:
            return Result(
                self.name,
                conversations,
                findings,
                remaining=findings,
                lines=lines,
                live=live,
                last_entry=last_entry,
            )
        output = self.write(decoded, unique_edits(to_fix))
        framing = decoded.framing
        try:
            redecoded = _redecoded(output, framing, lenient=options.keep_invalid_lines)
            again = self.analyse(redecoded, options, fixing=True)
        except DecodeError as error:
            msg = f"internal error: the repair is not readable ({error.reason}); nothing written"
            raise SelfCheckError(msg, line=error.line, column=error.column) from None
        after = self_checked(again.findings, options)
        remaining = still_there(findings, to_fix, after)
        patch = ((0, len(decoded.body), output[len(decoded.bom) :]),)
        return Result(
            self.name,
            conversations,
            findings,
            to_fix,
            remaining,
            patch,
            output,
            lines,
            live=live,
            last_entry=last_entry,
        )


def _redecoded(output: bytes, framing: Framing, *, lenient: bool) -> Decoded:
    """Repaired bytes, decoded with the framing of the input they came from (and as leniently:
    a line with NUL bytes kept as it is is in the repair too)."""
    from patchcore.raw.codec import decode

    name = "repaired.jsonl" if framing is Framing.JSONL else None
    return decode(output, filename=name, lenient=lenient)


def dialects_for(options: Options) -> Sequence[Dialect]:
    """The adapters detection may choose from: all of them, or the one the caller forced."""
    from patchcore.dialects import DIALECTS

    return DIALECTS if options.dialect is None else (options.dialect,)


def applied(findings: Iterable[Finding], options: Options) -> list[Finding]:
    """The findings whose fix runs under ``options``."""
    return [f for f in findings if options.applies(f.fix)]


def unique_edits(findings: Iterable[Finding]) -> list[Edit]:
    """The edits of the findings' fixes, each once (fixes may share an edit), in order."""
    from patchcore.model import distinct_edits

    return distinct_edits(e for f in findings if f.fix is not None for e in f.fix.edits)


def self_checked(after: Sequence[Finding], options: Options) -> list[Finding]:
    """Black's stability check: ``after``, the findings of the repaired data, must hold nothing
    left to fix.

    Returns:
        ``after`` (none of them fixable).

    Raises:
        SelfCheckError: One of them is still fixable (a bug: nothing may be written).
    """
    left = applied(after, options)
    if left:
        msg = "internal error: the repair still has fixable findings; nothing written"
        raise SelfCheckError(msg, line=left[0].line or 1, column=left[0].column or 1)
    return list(after)


def still_there(
    before: Sequence[Finding], fixed: Sequence[Finding], after: Sequence[Finding]
) -> tuple[Finding, ...]:
    """The findings not fixed that the re-check of the repaired data still reports (matched
    on rule and id: positions move when results are added)."""
    left = Counter((f.code, f.call_id) for f in after)
    done = {id(f) for f in fixed}
    kept = []
    for finding in before:
        key = (finding.code, finding.call_id)
        if id(finding) not in done and left[key]:
            left[key] -= 1
            kept.append(finding)
    return tuple(kept)


def held_back(
    conversations: Sequence[Conversation],
    findings: Sequence[Finding],
    chosen: Iterable[Finding],
    why: str,
) -> tuple[tuple[Conversation, ...], tuple[Finding, ...]]:
    """``conversations`` and ``findings`` with the fix of each finding ``chosen`` held back
    (planned or not: a fix the options leave unplanned is held all the same), saying ``why``
    (`patchcore.model.Finding.held`, which its sentence ends with too). A finding
    whose fix shares an edit with one of theirs (one new entry answering a turn's calls) is held
    too: applying it would apply theirs all the same.

    The one way a planned fix is held back: an agent session that may still be running
    (`patchcore.layouts.sessions.layout.held_while_live`), a training example's target
    (`patchcore.layouts.records`)."""
    from dataclasses import replace

    chosen = list(chosen)
    shared = {id(edit) for f in chosen if f.fix is not None for edit in f.fix.edits}
    ids = {id(f) for f in chosen}
    held: dict[int, Finding] = {}
    for finding in findings:
        fix = finding.fix
        if id(finding) in ids or (fix is not None and any(id(e) in shared for e in fix.edits)):
            message = f"{finding.message}; {why}"
            held[id(finding)] = replace(finding, fix=None, message=message, held=why)
    if not held:
        return tuple(conversations), tuple(findings)

    def kept(listed: Conversation) -> Conversation:
        if not any(id(f) in held for f in listed.findings):
            return listed
        edits = listed.edits and tuple(
            () if id(f) in held else e for f, e in zip(listed.findings, listed.edits, strict=True)
        )
        return replace(
            listed, findings=tuple(held.get(id(f), f) for f in listed.findings), edits=edits
        )

    return tuple(kept(c) for c in conversations), tuple(held.get(id(f), f) for f in findings)


#: The entry types of the Anthropic session logs that hold a message.
MESSAGE_TYPES = frozenset({"user", "assistant"})

#: Event lines Claude Code writes besides messages: those of versions 1.0-2.1, and those Claude
#: Code 2.1.332 writes in every session (docs/formats.md#what-else-claude-code-writes says
#: what each holds; none holds a call or a result of the conversation, only copies of them).
CLAUDE_CODE_EVENT_TYPES = frozenset(
    {
        "summary",
        "system",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "attachment",
        "atis-latch",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "last-prompt",
        "cost-state",
        "tools-used",
        "mode",
    }
)
#: Keys only Claude Code lines carry: one of them (with a known type) makes a file a session.
CLAUDE_CODE_MARKERS = frozenset({"sessionId", "uuid", "parentUuid", "leafUuid", "messageId"})
_CLAUDE_CODE_TYPES = MESSAGE_TYPES | CLAUDE_CODE_EVENT_TYPES

#: The other entries the Claude Agent SDK emits (``SDKMessage``) and its stream-json control
#: protocol.
AGENT_SDK_EVENT_TYPES = frozenset(
    {
        "system",
        "result",
        "stream_event",
        "tool_progress",
        "tool_use_summary",
        "auth_status",
        "rate_limit_event",
        "keep_alive",
        "control_request",
        "control_response",
        "control_cancel_request",
    }
)
#: Keys only the SDK's entries carry: one of them (with a known type) makes a file its stream.
AGENT_SDK_MARKERS = frozenset({"parent_tool_use_id", "session_id"})
#: Keys of Claude Code's session lines: an entry with one of them is Claude Code's.
_CLAUDE_CODE_KEYS = frozenset({"sessionId", "parentUuid"})
_AGENT_SDK_TYPES = MESSAGE_TYPES | AGENT_SDK_EVENT_TYPES

#: The line types of a Codex rollout (``world_state``, a snapshot of the thread's settings,
#: and ``token_usage_record``, a model call's token counts, as Codex CLI 0.171 writes them:
#: neither holds a message or a call).
CODEX_LINE_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "token_usage_record",
    }
)

#: The entry types of a pi (or openclaw) session file, its header's included
#: (pi-mono ``session-manager.ts``).
PI_ENTRY_TYPES = frozenset(
    {
        "session",
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


def claude_code_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Claude Code session line."""
    return tag(value, "type") in _CLAUDE_CODE_TYPES and not CLAUDE_CODE_MARKERS.isdisjoint(value)


def agent_sdk_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is an entry of a Claude Agent SDK message stream."""
    kind = tag(value, "type")
    if kind not in _AGENT_SDK_TYPES or AGENT_SDK_MARKERS.isdisjoint(value):
        return False
    if not _CLAUDE_CODE_KEYS.isdisjoint(value):
        return False
    message = value.get("message")
    return kind in AGENT_SDK_EVENT_TYPES or (
        isinstance(message, dict) and message.get("role", kind) == kind
    )


def codex_entry(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a line of a Codex rollout."""
    return tag(value, "type") in CODEX_LINE_TYPES


#: The keys of the first line of a rollout Codex wrote before its lines were wrapped
#: (codex-rs ``SessionMeta``, and ``git`` beside it from ``SessionMetaWithGit``).
_CODEX_BARE_META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})


def codex_bare_meta(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the first line of a rollout of the layouts Codex wrote before
    ``{timestamp, type, payload}``: ``{"record_type": "session_meta", "id", ...}``, or earlier
    the bare ``{"id", "timestamp", "instructions"?, "git"?}``."""
    if not isinstance(value.get("id"), str):
        return False
    if value.get("record_type") == "session_meta":
        return True
    return isinstance(value.get("timestamp"), str) and value.keys() <= _CODEX_BARE_META_KEYS


#: The records Kimi CLI writes in its context file besides messages, and their one other key.
KIMI_RECORDS = {"_system_prompt": "content", "_checkpoint": "id", "_usage": "token_count"}


def kimi_record(value: dict[str, Any]) -> bool:
    """Whether a JSON object is one of the records of a Kimi CLI ``context.jsonl`` that is no
    message: ``{"role": "_system_prompt", "content"}``, ``{"role": "_checkpoint", "id"}``,
    ``{"role": "_usage", "token_count"}``, those two keys and no other."""
    other = KIMI_RECORDS.get(tag(value, "role") or "")
    return other is not None and value.keys() == {"role", other}


def kimi_start(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the first record of a Kimi CLI ``context.jsonl``: its
    ``_system_prompt``, or a ``_checkpoint`` in a file older than that."""
    return kimi_record(value) and value["role"] != "_usage"


def copilot_start(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the ``session.start`` event a GitHub Copilot CLI
    ``events.jsonl`` begins with: ``{"type": "session.start", "data": {"sessionId", ...}, "id",
    "timestamp", "parentId": null}``."""
    data = value.get("data")
    return (
        value.get("type") == "session.start"
        and isinstance(data, dict)
        and isinstance(data.get("sessionId"), str)
        and isinstance(value.get("id"), str)
        and "parentId" in value
    )


#: The keys of the ``init`` event Gemini CLI's ``--output-format stream-json`` begins with.
_GEMINI_STREAM_INIT_KEYS = frozenset({"type", "timestamp", "session_id", "model"})


def gemini_stream_init(value: dict[str, Any]) -> bool:
    """Whether a JSON object is the ``init`` event of Gemini CLI's stream-json output:
    ``{"type": "init", "timestamp", "session_id", "model"}``, those keys and no other."""
    return (
        value.get("type") == "init"
        and value.keys() == _GEMINI_STREAM_INIT_KEYS
        and all(isinstance(value[key], str) for key in _GEMINI_STREAM_INIT_KEYS)
    )


def gemini_cli_metadata(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Gemini CLI session log's metadata line (a whole session
    document has ``messages`` besides)."""
    return (
        isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
        and "messages" not in value
    )


def pi_header(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a pi session file's header (what pi's loader requires,
    ``type: "session"`` and a string ``id``, and the ``cwd`` every header has)."""
    return tag(value, "type") == "session" and isinstance(value.get("id"), str) and "cwd" in value


def goose_metadata(value: dict[str, Any]) -> bool:
    """Whether a JSON object is a Goose session file's metadata line (``SessionMetadata``:
    goose requires ``description`` and ``message_count``)."""
    return (
        isinstance(value.get("description"), str)
        and isinstance(value.get("message_count"), int)
        and "role" not in value
    )


#: Every layout's sign, whatever the order the layouts are asked in.
_SIGNS: tuple[Callable[[dict[str, Any]], bool], ...] = (
    claude_code_entry,
    agent_sdk_entry,
    codex_entry,
    codex_bare_meta,
    copilot_start,
    kimi_start,
    gemini_cli_metadata,
    gemini_stream_init,
    pi_header,
    openhands_event,
    goose_metadata,
)


def may_be_session(value: object) -> bool:
    """Whether a first entry is one of some session layout (which the layout then decides,
    with the input's framing and ``--dialect``)."""
    return isinstance(value, dict) and any(sign(value) for sign in _SIGNS)
