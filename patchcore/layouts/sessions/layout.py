"""What the agent-session layouts share: reading the entries, the warnings about the entries
they keep unread, and writing edits of entries back.

A session log is a sequence of *events* (its entries: `patchcore.layouts.sessions.entries`);
the conversations are spread over them, between events that are no messages. Each layout
(Claude Code, the Claude Agent SDK, Codex, Gemini CLI) reads its entries into message lists for
the engine (`patchcore.engine.check.check_list` with a dialect), then turns each finding back
into a place in the file (line, column, pointer inside the entry) and its fix into edits of
entries. Entries that are not JSON, not objects, or events of a type the layout does not know
are kept as they are and reported as warnings. Checking, the repair and its self-check are
`patchcore.layouts.base.WholeLayout`'s.

A session may still be running. It is while some process holds its log open for writing
(`patchcore.options.Options.held_open`, as the caller found), however old its last entry. Else
its own clock says: where the entries record when they were written (Claude Code's, Codex's
and pi's ``timestamp``, Gemini CLI's ``timestamp`` and ``lastUpdated``, Goose's
``created``), the session is live when its newest entry is at or after
`patchcore.options.Options.live_since`; a log that records no time (the Claude Agent SDK's
stream) is live as the caller judged it from outside (``live``: its file was written to moments
ago). The file's own time is no witness where the log has one: a copy, a checkout or an unpacked
archive gives an ended session the time of now, and ``cp -p`` gives a running one an old one. A
call pending in the last turn of a live session (TP002, or TP003 there) may belong to a tool
that is still running: a made-up result would be a second one once the agent writes the real
one, so such a finding is reported without a fix (`held_while_live`). Calls the history has
moved past (TP001) are answered as in any session. ``toolpatch strip`` is not held: it removes
results toolpatch made up, which leaves a call the agent may still answer pending again, as it
was. Either way the result says the session is live (`patchcore.result.Result.live`): whoever
writes a repair must not put a new file in place of a log its agent still appends to.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import structs

from patchcore.errors import json_kind
from patchcore.layouts.base import Analysis, Head, WholeLayout, held_back
from patchcore.layouts.sessions.entries import Entry, place, read_entries, relocated, write_entries
from patchcore.raw.codec import Decoded, Framing
from patchcore.result import Conversation

if TYPE_CHECKING:
    from patchcore.dialects import Dialect
    from patchcore.dialects.base import ListContext
    from patchcore.model import Edit, Finding, Fix, Pointer
    from patchcore.options import Options


def unread(entry: Entry, why: str) -> Conversation:
    """The warning for an entry that is kept as it is without being read."""
    from patchcore.model import format_pointer

    where = format_pointer(entry.root)
    return Conversation(where, entry.record.line, None, 0, f"{why}; kept as it is", warning=True)


#: What a line a crash cut short may hold and nothing else: NUL bytes, and blank space.
_NUL_LINE = b"\x00 \t\r"


def _nul_only(entry: Entry) -> bool:
    """Whether ``entry`` holds NUL bytes and blank space only, as a crash leaves a line: no
    event, and no call."""
    return not entry.record.raw.strip(_NUL_LINE)


def odd_entry(entry: Entry) -> Conversation | None:
    """The warning for an entry that is no JSON object at all, or ``None`` for an object."""
    if entry.rest_of is not None:
        return unread(entry, "the rest of a line that a raw line break split (TP201)")
    if entry.problem is not None and _nul_only(entry):
        nuls = entry.record.raw.count(b"\x00")
        return unread(entry, f"{nuls} NUL bytes and nothing else, as a crash leaves a log")
    if entry.problem is not None:
        return unread(entry, f"not JSON ({entry.problem})")
    if not isinstance(entry.value, dict):
        return unread(entry, f"{entry.one} that is {json_kind(entry.value)}, not an event")
    return None


def listed(
    first: int,
    dialect: str,
    messages: Sequence[Any],
    context: ListContext,
    found: Sequence[Finding],
    located: Sequence[Finding],
    options: Options,
    shown: Sequence[tuple[Edit, ...]] | None = None,
) -> Conversation:
    """The conversation a session layout read from its entries, starting on line ``first``:
    ``messages`` as the engine checked them (``found``), its findings ``located`` in the file;
    the messages kept for whoever shows them where ``options`` ask, with each finding's edits
    of the list (``shown``, by default the engine's own, before they were addressed to
    entries)."""
    from patchcore.result import fix_edits

    conversation = Conversation("", first, dialect, len(messages), None, False, tuple(located))
    if options.keeps_messages(found):
        edits = fix_edits(found) if shown is None else tuple(shown)
        conversation = conversation.with_messages(messages, context, edits)
    return conversation


def messages_and_notes(
    entries: Iterable[Entry], message: Callable[[Any], bool], why: str
) -> tuple[list[Entry], list[Conversation]]:
    """The entries that hold a message (``message`` says which JSON values do), and a warning
    for each other one, kept unread (``why`` says what it is)."""
    items: list[Entry] = []
    notes: list[Conversation] = []
    for entry in entries:
        odd = odd_entry(entry)
        if odd is not None:
            notes.append(odd)
        elif message(entry.value):
            items.append(entry)
        else:
            notes.append(unread(entry, why))
    return items, notes


def in_order(read: Conversation, notes: Iterable[Conversation]) -> Analysis:
    """The analysis of a session of one conversation: it and the notes about the entries kept
    unread, in the order of the file, and its findings."""
    reports = sorted([read, *notes], key=lambda r: r.line or 0)
    return Analysis(tuple(reports), read.findings)


def checked_entries(
    items: Sequence[Entry],
    messages: Sequence[Any],
    *,
    inside: Pointer,
    dialect: Dialect,
    options: Options,
    fixing: bool,
    fix: Callable[[Fix | None], Fix | None],
    recorded: Mapping[str, str] | None = None,
) -> Conversation:
    """The one conversation of a session whose messages are each held whole by one entry, at
    ``inside`` of ``items[k]`` for ``messages[k]`` (a Codex rollout's payloads, a pi branch's
    messages, an OpenHands trajectory's events themselves): checked by the engine, each finding
    located in the file and its fix turned by ``fix`` into edits of the file's entries.

    Raises:
        ShapeError: A message has a tool-related field of the wrong shape (located).
    """
    from patchcore.dialects.base import SESSION_LOG, ListContext
    from patchcore.engine.check import check_list
    from patchcore.errors import ShapeError

    context = ListContext((), kept_calls=None if options.strip else SESSION_LOG)
    try:
        found = check_list(
            messages,
            dialect=dialect,
            context=context,
            options=options,
            plan_unsafe=options.unsafe_fixes or not fixing,
            recorded=recorded,
        )
    except ShapeError as error:
        entry = items[int(error.path[0])]
        raise relocated(error, entry, (*inside, *error.path[1:])) from None
    findings = []
    for finding in found:
        row, column = place(items[finding.message_index], (*inside, *finding.call_path))
        findings.append(
            replace(
                finding,
                message_path=inside,
                line=row,
                column=column,
                fix=fix(finding.fix),
            )
        )
    first = items[0].record.line if items else 1
    return listed(first, dialect.name, messages, context, found, findings, options)


class EntryEdits(ABC):
    """Turns the engine's edits of a session's message list (`checked_entries`) into edits of
    the file's entries, each edit once, so that the fixes sharing an edit (one new entry
    answering a turn's calls) still share it. A fix with an edit the layout does not offer
    (`translated` gives ``None``) is offered without it: not at all."""

    def __init__(self) -> None:
        self._done: dict[int, tuple[Edit, ...] | None] = {}

    def fix(self, fix: Fix | None) -> Fix | None:
        """``fix`` as edits of the entries, or ``None`` where the layout does not offer it."""
        if fix is None:
            return None
        translated = [self._edits(edit) for edit in fix.edits]
        if any(edits is None for edits in translated):
            return None
        return replace(fix, edits=tuple(e for edits in translated if edits for e in edits))

    def _edits(self, edit: Edit) -> tuple[Edit, ...] | None:
        if id(edit) not in self._done:
            self._done[id(edit)] = self.translated(edit)
        return self._done[id(edit)]

    @abstractmethod
    def translated(self, edit: Edit) -> tuple[Edit, ...] | None:
        """The edits of the entries that make one edit of the list, or ``None`` where the
        layout does not offer it."""


def with_split_lines(analysis: Analysis, entries: Sequence[Entry], dialect: str) -> Analysis:
    """``analysis`` with a TP201 finding for each entry that raw line breaks inside a JSON
    string split over several lines (`patchcore.layouts.sessions.entries.split_entry`): its
    fix removes the later pieces, and the writer puts the entry back on one line, the breaks
    escaped (`patchcore.layouts.sessions.entries.write_entries`), so the text it holds is the
    same and the agent, which reads a line at a time, reads it again."""
    from patchcore.model import Delete, Finding, Fix
    from patchcore.rules import RULES, Applicability

    rule = RULES["TP201"]
    found = []
    for entry in entries:
        if not entry.pieces:
            continue
        last = entry.pieces[-1]
        lines = f"lines {entry.record.line}-{entries[last].record.line}"
        edits: tuple[Edit, ...] = tuple(Delete((k,)) for k in entry.pieces)
        fix = Fix(Applicability.SAFE, rule.fix_description or "", edits)
        message = f"{lines} hold one entry, split by a raw line break inside a JSON string"
        position = entry.position
        finding = Finding(
            rule.code, rule.name, message, dialect, (), position, (), (), None, None, fix
        )
        found.append(finding.placed(entry.record.line, entry.column))
    if not found:
        return analysis
    findings = sorted((*analysis.findings, *found), key=lambda f: (f.line or 0, f.column or 0))
    return structs.replace(analysis, findings=tuple(findings))


#: Why a pending call of a live session has no fix (after the finding's own sentence).
STILL_RUNNING = (
    "the session may still be running (its log was written to recently, or a process holds "
    "it open for writing): the tool may still be running and write its own result, so none is "
    "made up"
)


#: The longest time string read (``2026-03-02T08:03:14.123456+05:30`` has 32 characters).
_TIME_LENGTH = 40


def moment(value: object) -> float | None:
    """Seconds since the epoch of an ISO 8601 time as session logs write it
    (``2026-03-02T08:03:14.000Z``; a time without a zone is UTC), or ``None`` for anything
    else."""
    if not isinstance(value, str) or len(value) > _TIME_LENGTH:
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()


def newest(
    entries: Sequence[Entry], times: Callable[[dict[str, Any]], Iterable[object]]
) -> float | None:
    """The newest time ``times`` finds in the entries, or ``None`` when none records one (the
    newest, not the last: a subagent's entries may be written out of order)."""
    found = [
        when
        for entry in entries
        if isinstance(entry.value, dict)
        for value in times(entry.value)
        if (when := moment(value)) is not None
    ]
    return max(found, default=None)


def is_live(last_entry: float | None, options: Options) -> bool:
    """Whether a session whose newest entry is ``last_entry`` may still be running: the one
    place that decides it. Always while a process holds its log open for writing (``held_open``,
    whatever the age of that entry); else by its own clock where it has one and the caller gave
    ``live_since``, else as the caller judged."""
    if options.held_open:
        return True
    if last_entry is not None and options.live_since is not None:
        return last_entry >= options.live_since
    return options.live


def held_while_live(analysis: Analysis) -> Analysis:
    """``analysis`` with every fixable call pending in a last turn (TP002, or TP003 there:
    `patchcore.model.Finding.pending`) left without a fix, saying why (`held_back`): the
    session is live (`STILL_RUNNING`)."""
    pending = [f for f in analysis.findings if f.pending and f.fix is not None]
    conversations, findings = held_back(
        analysis.conversations, analysis.findings, pending, STILL_RUNNING
    )
    return Analysis(conversations, findings)


def unreadable_before(line: int) -> str:
    """Why an orphan result's fix is held back: line ``line``, before it, is not JSON (after the
    finding's own sentence)."""
    return f"line {line} before it is not JSON and may hold its call, so the result is kept"


def held_after_unreadable(analysis: Analysis, entries: Sequence[Entry]) -> Analysis:
    """``analysis`` with the fix of each result that answers no call (TP101, whose unsafe fix
    drops it) held back where a line before it is not JSON (`held_back`): its call may be in
    that line, which the agent skips as it reads, so the result is an orphan to it, and the
    provider refuses it; but dropping it would lose the tool's real result on the strength of
    a line nobody can read. It is reported, and kept. A line of NUL bytes, as a crash leaves
    one, holds no call."""
    first = next(
        (
            entry.record.line
            for entry in entries
            if entry.problem is not None and entry.rest_of is None and not _nul_only(entry)
        ),
        None,
    )
    if first is None:
        return analysis
    orphans = [
        f
        for f in analysis.findings
        if f.code == "TP101" and f.fix is not None and (f.line or 0) > first
    ]
    if not orphans:
        return analysis
    conversations, findings = held_back(
        analysis.conversations, analysis.findings, orphans, unreadable_before(first)
    )
    return Analysis(conversations, findings)


class SessionLayout(WholeLayout):
    """One agent-session layout: how to recognise its entries and check its conversations."""

    short_name: ClassVar[str]
    """Short name, for ``toolpatch formats``."""
    title: ClassVar[str]
    """Human name, for ``toolpatch formats``."""
    recognised_by: ClassVar[str]
    """How a file is recognised, for ``toolpatch formats``."""
    containers: ClassVar[str]
    """Where such files are found, for ``toolpatch formats``."""
    dialect: ClassVar[Dialect]
    """The dialect of its messages (``--dialect`` may name it, or nothing)."""
    arrays: ClassVar[bool] = False
    """Whether a JSON document that is an array of its entries is such a file too (else only
    JSON Lines are)."""

    def entry_times(self, value: dict[str, Any]) -> Iterable[object]:
        """The times an entry records of when it was written (`moment` reads them): its
        ``timestamp``, for Claude Code, the Claude Agent SDK and Codex."""
        return (value.get("timestamp"),)

    @abstractmethod
    def recognises_entry(self, value: dict[str, Any]) -> bool:
        """Whether a JSON object is an entry of this layout."""

    @abstractmethod
    def analyse_entries(
        self, entries: Sequence[Entry], options: Options, *, fixing: bool
    ) -> Analysis:
        """Read the conversations out of the entries and check them.

        Raises:
            ShapeError: A message has a tool-related field of the wrong shape (located).
        """

    def recognises(self, head: Head, options: Options) -> bool:
        """A session is told by its first entry (`Head.first_entry`), and ``--dialect``, if
        given, must name its messages' dialect."""
        first = head.first_entry
        forced = options.dialect
        return (
            isinstance(first, dict)
            and (self.arrays or head.framing is Framing.JSONL)
            and (forced is None or forced.name == self.dialect.name)
            and self.recognises_entry(first)
        )

    def analyse(self, decoded: Decoded, options: Options, *, fixing: bool) -> Analysis:
        entries = read_entries(decoded)
        last_entry = newest(entries, self.entry_times)
        live = is_live(last_entry, options)
        analysis = held_after_unreadable(
            self.analyse_entries(entries, options, fixing=fixing), entries
        )
        if "TP201" in options.selection:
            analysis = with_split_lines(analysis, entries, self.dialect.name)
        if live and not options.strip:
            analysis = held_while_live(analysis)
        return structs.replace(analysis, live=live, last_entry=last_entry)

    def write(self, decoded: Decoded, edits: Sequence[Edit]) -> bytes:
        return write_entries(decoded, edits)
