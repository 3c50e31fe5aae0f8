"""Check one message list: views → pairing → defects → selected findings, each with its fix.

The records `patchcore.engine.quick` read with open calls are checked here without parsing
them whole (`lane_findings`). The quick lane's structs are the engine's views of a record's
messages, and it knows which keys some call is left open for. Only the messages that issue such
calls are parsed, each on its own, and viewed by the dialect's adapter (so a call's name, path
and malformed arguments are read as the full path reads them); their views take the place of
the lane's, and the list goes through `check_list` like any other: the same pairing, rules,
plan and findings. What the adapter would learn from the other messages (how result messages
are written) the lane has read. An Anthropic list with open calls takes the full path: its
synthetic results go into the next user turn, after its results and before its other blocks
(`patchcore.dialects.anthropic`), so planning them reads messages the lane has not parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import msgspec
from msgspec import structs

from patchcore.dialects import DIALECTS, Dialect
from patchcore.dialects.base import ListContext, ResultMessageDialect
from patchcore.dialects.langchain import LangChain
from patchcore.dialects.openai_chat import OpenAIChat
from patchcore.engine.apply import apply_edits, value_at
from patchcore.engine.compose import composed, left_by
from patchcore.engine.drop import plan_drops
from patchcore.engine.locate import classify
from patchcore.engine.pairing import (
    Answer,
    CallRef,
    Dangling,
    Pairing,
    ResultRef,
    insertion_point,
    may_own,
    pair,
)
from patchcore.engine.provider_rules import (
    PROVIDER_CODES,
    filled_errors,
    provider_defects,
    provider_id,
    provider_plan,
)
from patchcore.engine.quick import Lane, View
from patchcore.engine.unread import held
from patchcore.model import (
    ANSWERED,
    Defect,
    Delete,
    Edit,
    Finding,
    Fix,
    Insert,
    MessageView,
    Pointer,
    Replace,
    ToolCall,
    ToolResult,
    derived_id,
    distinct_edits,
    format_pointer,
)
from patchcore.options import Options
from patchcore.rules import (
    COUNTED,
    RULES,
    Applicability,
    Origin,
    RepairPolicy,
    known_texts,
    render_text,
)

if TYPE_CHECKING:
    from patchcore.raw.splice import Spans

#: What the fix of an unanswered call does under the ``drop`` repair policy.
DROP_DESCRIPTION = "drop the unanswered call"
#: Why a call the ``drop`` policy would remove is left in a list that cannot lose it.
DROP_CLOSED = (
    "dropping it would change a stored model response, or remove a message whose element holds "
    "more than the message"
)
#: What the fix of an unanswered call does when the data recorded its result elsewhere.
RECORDED_DESCRIPTION = "insert the result recorded for the call"
#: What it does when the call's own result stands out of place before it.
COPIED_DESCRIPTION = "copy the call's own result into place"
#: What ``toolpatch strip`` does with a result toolpatch wrote.
STRIP_DESCRIPTION = "remove the synthetic result toolpatch wrote"
#: Why a call the ``drop`` policy would remove is left (`Dialect.drop_breaks`).
DROP_REFUSED = (
    "dropping it would leave turns in an order the provider rejects, or a list no longer read "
    "as a history"
)

#: The rules a dialect's `Dialect.shape_defects` reports.
SHAPE_RULES = frozenset({"TP106", "TP107"})


def _answerable(defect: Defect) -> bool:
    """Whether the defect is an unanswered call that a synthetic result may answer."""
    return defect.code in ANSWERED and defect.call is not None and defect.call.answerable


def _tool_name(defect: Defect) -> str | None:
    """The tool's name, from the call, or from a result that answers none (Gemini)."""
    if defect.call is not None:
        return defect.call.name
    return defect.result.name if defect.result is not None else None


def _tool(defect: Defect) -> str:
    name = _tool_name(defect)
    return f"'{name}'" if name else "of unknown tool"


def _describe(defect: Defect) -> str:
    """One sentence saying what is wrong."""
    ident = defect.ident
    what = f"tool call {_tool(defect)} ({f'id {ident}' if ident else 'no id'})"
    code = defect.code
    if code in PROVIDER_CODES and defect.reason is not None:
        return defect.reason  # a provider rule's check says what it found
    if defect.strip:
        return f"the result of {what} is the synthetic result toolpatch writes for {code}"
    if code in ANSWERED:
        text = {
            "TP001": f"{what} has no result, and the history goes on after it",
            "TP002": f"{what} in the last turn has no result",
            "TP003": f"{what} has malformed arguments and no result",
        }[code]
        if defect.call is not None and defect.call.unanswerable is not None:
            text += f"; {defect.call.unanswerable}"
        elif defect.call is not None and defect.call.note is not None:
            text += f"; {defect.call.note}"
        return text
    name = _tool_name(defect)
    if ident:
        result = f"tool result for id {ident}"
    else:
        result = f"tool result for '{name}' (no id)" if name else "tool result (no id, no name)"
    because = "" if defect.reason is None else f"; {defect.reason}"
    return {
        "TP004": f"{result} answers no call this reading reads: its call is missing, or "
        "written in a form toolpatch does not read"
        if defect.result is not None
        else f"the message holds {defect.reason}, and its dialect reads no call in it: a call "
        "it holds may be unanswered",
        "TP101": f"{result} answers no earlier call{because}",
        "TP102": f"{result} is out of place: {defect.reason}",
        "TP103": f"second {result}: its call is already answered"
        if defect.reason is None
        else f"{result} is answered twice: {defect.reason}",
        "TP104": f"{what} reuses the id of an earlier call that is still unanswered",
        "TP105": f"{what} has no id, nor has the result that answers it (by name and order)"
        if defect.result is not None
        else f"{what} has no id{because}"
        if defect.reason is not None
        else f"{what} has no id, and no result without one answers it",
        "TP106": "the message has other blocks before its tool results",
        "TP107": "the assistant message has an empty tool_calls list",
    }[code]


def answer_text(
    code: str, call: ToolCall, options: Options, recorded: Mapping[str, str]
) -> tuple[str, Origin]:
    """The text of the result that answers ``call`` (a TP0xx ``code``), and where it comes
    from: what the data recorded of the call (``recorded``, by its pairing key: what the
    layout or the dialect read in the data), what the caller's store recorded
    (`Options.recorded_results`, by its id), or else the rule's synthetic text
    (docs/pairing.md#evidence-first)."""
    for key, table in ((call.pairing_key, recorded), (call.id, options.recorded_results)):
        if key is not None and key in table:
            return table[key], Origin.RECOVERED
    return render_text(options.text(code), name=call.name, call_id=call.id), Origin.SYNTHESIZED


def unanswered(dangling: Dangling, options: Options, recorded: Mapping[str, str]) -> Defect:
    """The defect of a call no result answers, with the text of the result that answers it."""
    call = dangling.call
    text, origin = answer_text(dangling.code, call, options, recorded)
    return Defect(
        dangling.code,
        dangling.message_index,
        call.path,
        call,
        dangling.call_index,
        text=text,
        drop=options.repair is RepairPolicy.DROP,
        pending=dangling.pending,
        origin=origin,
    )


def _copies(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    pairing: Pairing,
    dialect: Dialect,
    context: ListContext,
) -> dict[int, tuple[int, Pointer]]:
    """The unanswered calls whose own result stands before them, by their index among
    ``pairing.dangling``: a result with the call's id (written in the file, not a Gemini
    name-and-position key) that answers no earlier call (a TP101 orphan), where that id is the
    only one of its kind on both sides (one such orphan, one such open call), so that which
    result is whose is not a guess, and the dialect can copy it whole (`Dialect.copyable`).
    The walk with stacks is made only when some open call's id is a result's before it; the
    orphan's message is read through the dialect (``views`` may be the quick lane's)."""
    keys = {d.call.id for d in pairing.dangling if d.call.answerable and d.call.key is None}
    last = max((d.message_index for d in pairing.dangling), default=0)
    if not any(r.key in keys for view in views[:last] for r in view.results):
        return {}
    orphans = [o for o in pair(views).orphans if o.result.key in keys]
    copies = {}
    for k, dangling in enumerate(pairing.dangling):
        key = dangling.call.id
        same = [o for o in orphans if o.result.key == key]
        if (
            key not in keys
            or len(same) != 1
            or same[0].message_index > dangling.message_index
            or sum(d.call.pairing_key == key for d in pairing.dangling) != 1
        ):
            continue
        index = same[0].message_index
        message = messages[index]
        own = dialect.view(message, context.message_pointer(index)).results
        found = [r for r in own if r.key == key and r.keyed and dialect.copyable(message, r)]
        if len(found) == 1:
            copies[k] = (index, found[0].path)
    return copies


def written_code(
    messages: Sequence[Any],
    dialect: Dialect,
    options: Options,
    style: Any,
    call: CallRef,
    where: ResultRef,
) -> str | None:
    """The TP0xx rule whose synthetic result ``where`` is, key for key, for ``call`` (the
    result the dialect writes with the rule's text, the default or the configured one, rendered
    for that call: its id, its name, the format's error flag, its shape); ``None``: a result
    toolpatch did not write. ``style``: the list's `Dialect.writing_style`."""
    value = value_at(messages[where.message_index], where.result.path)
    caller = messages[call.message_index]
    for code in sorted(ANSWERED):
        templates = dict.fromkeys((options.text(code), *known_texts(code)))
        if any(
            dialect.written_result(messages, caller, call.call, text, style) == value
            for text in (
                render_text(t, name=call.call.name, call_id=call.call.id) for t in templates
            )
        ):
            return code
    return None


def written_results(
    messages: Sequence[Any], pairing: Pairing, dialect: Dialect, options: Options
) -> list[Defect]:
    """The results toolpatch wrote (``toolpatch strip``): each answer that is the synthetic
    result of a TP0xx rule for its call (`written_code`)."""
    found = []
    style = dialect.writing_style(messages) if pairing.answers else {}
    for answer in pairing.answers:
        call, where = answer.call, answer.result
        code = written_code(messages, dialect, options, style, call, where)
        if code is not None:
            found.append(
                Defect(
                    code,
                    where.message_index,
                    where.result.path,
                    call.call,
                    call.call_index,
                    result=where.result,
                    strip=True,
                )
            )
    return found


#: Why the TP103 fix removes the earlier of two results (docs/rules.md#duplicate-tool-result-tp103).
KEEPS_THE_REAL_ONE = (
    "this first one is the synthetic result toolpatch wrote, and the real result came after it: "
    "the fix removes this one and keeps the real one"
)
#: Why it removes neither: the real result, once alone, would be out of place.
KEEPS_BOTH = (
    "this first one is the synthetic result toolpatch wrote, and the real result after it is "
    "out of place: neither is removed"
)


def duplicates(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    pairing: Pairing,
    *,
    dialect: Dialect,
    options: Options,
) -> list[Defect]:
    """The TP103 defects: each second result for an answered call, which the fix removes;
    but where the result that answered the call is toolpatch's synthetic one and the second is
    real, the synthetic one is the defect (removing the real result would lose what the tool
    returned), and where the real one would then be out of place, nothing is removed."""
    if not pairing.duplicates:
        return []
    style: Any = None
    defects = []
    for duplicate in pairing.duplicates:
        first = _answered_before(pairing, duplicate)
        defect = Defect(
            "TP103", duplicate.message_index, duplicate.result.path, result=duplicate.result
        )
        if first is not None:
            style = dialect.writing_style(messages) if style is None else style
            synthetic = written_code(messages, dialect, options, style, first.call, first.result)
            real = written_code(messages, dialect, options, style, first.call, duplicate)
            if synthetic is not None and real is None:
                placed = dialect.misplaced(messages, views, Answer(first.call, duplicate)) is None
                where = first.result
                defect = Defect(
                    "TP103",
                    where.message_index,
                    where.result.path,
                    result=where.result,
                    reason=KEEPS_THE_REAL_ONE if placed else KEEPS_BOTH,
                )
        defects.append(defect)
    return defects


def _answered_before(pairing: Pairing, duplicate: ResultRef) -> Answer | None:
    """The latest answer with the duplicate's key that came before it."""
    before = None
    for answer in pairing.answers:
        where = answer.result
        if (
            where.result.key == duplicate.result.key
            and where.message_index <= duplicate.message_index
        ):
            before = answer
    return before


#: Why an orphan result is kept (docs/pairing.md#calls-and-results-without-ids).
MAY_ANSWER = (
    "a call with no id before it, whose tool name does not contradict its own, could be the one "
    "it answers, so no fix drops it"
)


#: Why an orphan after a message holding calls its dialect does not read is kept (TP101).
MAY_ANSWER_UNREAD = (
    "a message before it holds what looks like a tool call its dialect does not read (TP004), "
    "which it may answer, so no fix drops it"
)
#: The reasons an orphan is kept: its call may be in the history.
_KEPT_ORPHANS = (MAY_ANSWER, MAY_ANSWER_UNREAD)


#: Why a call without an id that a result answers gets no id
#: (docs/pairing.md#calls-and-results-without-ids).
CONTESTED = "a result without an id that no fix drops or moves could be its own, so no id is given"


def fix_kind(defect: Defect) -> tuple[Applicability, str, Origin | None] | None:
    """The applicability, description and origin (`Fix.origin`) of the defect's fix, ``None``
    when its rule has none or the defect cannot have it: the rule's, but dropping an unanswered
    call deletes what the model wrote, so it is unsafe; removing a result toolpatch wrote
    (``toolpatch strip``, which is asked for) is not. An answer is recovered or synthesized
    (`Defect.origin`), a moved result (TP102) is the data's own, the text TP307 writes into an
    empty error result is made up; the other fixes write no result. An orphan that a call could
    still own is never dropped, and a call without an id gets one only with the result it pairs
    with (`given_ids`)."""
    if defect.strip:
        return Applicability.SAFE, STRIP_DESCRIPTION, None
    rule = RULES[defect.code]
    if rule.fix is None or defect.reason in _KEPT_ORPHANS:
        return None
    if defect.code == "TP105" and defect.result is None:
        return None
    if defect.drop:
        return Applicability.UNSAFE, DROP_DESCRIPTION, None
    description = rule.fix_description or ""
    if defect.code in ANSWERED:
        if defect.copied is not None:
            return rule.fix, COPIED_DESCRIPTION, Origin.RECOVERED
        if defect.origin is Origin.RECOVERED:
            return rule.fix, RECORDED_DESCRIPTION, Origin.RECOVERED
        return rule.fix, description, Origin.SYNTHESIZED
    if defect.code == "TP307":
        return rule.fix, description, Origin.SYNTHESIZED  # the rule's text, in an empty result
    return rule.fix, description, Origin.RECOVERED if defect.code == "TP102" else None


def _unread_calls(views: Sequence[MessageView], pairing: Pairing, owned: set[int]) -> list[Defect]:
    """The orphans that name a call no message of the list holds (TP004, where TP101 is not
    selected to report them): their call is missing or written in a form the reading does not
    read (docs/rules.md#unread-tool-call-tp004). An orphan whose call comes after it, that a
    call without an id could own, or that names no call at all (a tool message without an id)
    is TP101's only."""
    keys = {call.pairing_key for view in views for call in view.calls}
    return [
        Defect("TP004", r.message_index, r.result.path, result=r.result)
        for r in pairing.orphans
        if _names_a_call(r.result) and r.result.key not in keys and id(r) not in owned
    ]


def _unread_messages(messages: Sequence[Any], views: Sequence[MessageView]) -> list[Defect]:
    """The messages in which the list's dialect reads no call and no result, but that hold
    something that looks like one (`patchcore.engine.unread.held`: an item of a type it does not
    know, calls under a key it does not read): TP004, one per message, at the first
    (docs/rules.md#unread-tool-call-tp004). A message whose calls or results it reads is read
    as it reads them."""
    unread = []
    for index, (message, view) in enumerate(zip(messages, views, strict=True)):
        if message is None or view.calls or view.results or view.inner_results or view.understood:
            continue
        found = list(held(message, ()))
        if found:
            (path, what), count = found[0], len(found)
            many = f"{count} objects that look" if count > 1 else "an object that looks"
            reason = f"{many} like a tool call or result (the first: {what})"
            unread.append(Defect("TP004", index, path, reason=reason))
    return unread


def _kept_because(at: int, owned: bool, first_unread: int) -> str | None:
    """Why the orphan of message ``at`` is kept (TP101 without a fix), if it is: a call without
    an id before it may own it (``owned``), or a message before it (the first at
    ``first_unread``) holds what looks like a call its dialect does not read."""
    if owned:
        return MAY_ANSWER
    return MAY_ANSWER_UNREAD if first_unread < at else None


def _names_a_call(result: ToolResult) -> bool:
    """Whether ``result`` names the call it answers: by its own id, or by a tool name (Gemini,
    a legacy function message); a result with neither could be anybody's."""
    return result.id_at is None and (result.keyed or result.name is not None)


def collect(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    pairing: Pairing,
    dialect: Dialect,
    options: Options,
    *,
    recorded: Mapping[str, str],
    copying: ListContext | None,
    context: ListContext,
) -> list[Defect]:
    """Every defect of the list that ``options`` selects, in message order (the placement and
    shape checks of the strict rules are not run when none of their rules is selected).
    ``recorded``: as `answer_text`'s; ``copying``: the list's context, where an unanswered
    call's own result found before it is copied into place (`_copies`); ``None`` in a session
    log, whose entries are events of their own that a copy would repeat; ``context``: the
    list's, which the provider rules read (`patchcore.engine.provider_rules`)."""
    selected = options.selection.codes
    defects = [unanswered(dangling, options, recorded) for dangling in pairing.dangling]
    if copying is not None and defects and options.repair is not RepairPolicy.DROP:
        for k, copied in _copies(messages, views, pairing, dialect, copying).items():
            defects[k] = structs.replace(defects[k], copied=copied, origin=Origin.RECOVERED)
    ordered = len(defects)  # the dangling calls come in message and call order
    owned = {id(r) for r in pairing.owned}
    unread = _unread_messages(messages, views) if pairing.orphans or "TP004" in selected else []
    first_unread = min((d.message_index for d in unread), default=len(messages))
    defects += [
        Defect(
            "TP101",
            r.message_index,
            r.result.path,
            result=r.result,
            reason=_kept_because(r.message_index, id(r) in owned, first_unread),
        )
        for r in pairing.orphans
    ]
    if "TP004" in selected:
        defects += unread
        if pairing.orphans and "TP101" not in selected:
            defects += _unread_calls(views, pairing, owned)
    if "TP103" in selected:
        defects += duplicates(messages, views, pairing, dialect=dialect, options=options)
    for answer in pairing.answers if "TP102" in selected else ():
        reason = dialect.misplaced(messages, views, answer)
        if reason is not None:
            defects.append(
                Defect(
                    "TP102",
                    answer.result.message_index,
                    answer.result.result.path,
                    answer.call.call,
                    answer.call.call_index,
                    result=answer.result.result,
                    target=answer.call.message_index,
                    reason=reason,
                )
            )
    defects += [
        Defect("TP104", c.message_index, c.call.path, c.call, c.call_index) for c in pairing.reused
    ]
    if pairing.keyless:
        idless = {id(a.call): a.result for a in pairing.answers if a.call.call.pairing_key is None}
        for c in pairing.keyless:
            contested = any(may_own(c, r) for r in pairing.owned)
            where = None if contested else idless.get(id(c))
            defects.append(
                Defect(
                    "TP105",
                    c.message_index,
                    c.call.path,
                    c.call,
                    c.call_index,
                    result=None if where is None else where.result,
                    target=None if where is None else where.message_index,
                    reason=CONTESTED if contested else None,
                )
            )
    if not selected.isdisjoint(SHAPE_RULES):
        defects += dialect.shape_defects(messages, views)
    if options.target is not None:  # the provider rules are selected by a target alone
        defects += provider_defects(messages, views, context, dialect.name, options)
    if len(defects) == ordered:
        return defects
    return in_order(defects, views)


def in_order(defects: Sequence[Defect], views: Sequence[MessageView]) -> list[Defect]:
    """``defects`` in message order; within a message, calls in call order, then its results in
    their order (a TP105 defect is its call's, though it names the result in another message)."""
    results = {
        (index, id(result)): rank
        for index in {d.message_index for d in defects if d.result is not None}
        for rank, result in enumerate((*views[index].results, *views[index].inner_results))
    }

    def position(defect: Defect) -> tuple[int, int, int]:
        if defect.result is not None and defect.code != "TP105":
            return (defect.message_index, 1, results[(defect.message_index, id(defect.result))])
        return (defect.message_index, 0, defect.call_index)

    return sorted(defects, key=position)


#: Why a call awaiting an approval gets no synthetic result.
AWAITING_APPROVAL = (
    "it awaits an approval decision (its tool_approval_item, or one in the agent run its tool "
    "started): resuming the run with the decision gives it its result"
)


def _awaiting(views: list[MessageView], approvals: frozenset[str]) -> list[MessageView]:
    """``views`` with the calls that await an approval marked unanswerable: a made-up result
    would take the decision out of the approver's hands, and the resumed run would add a
    second one."""
    if not approvals:
        return views
    return [
        replace(
            view,
            calls=tuple(
                replace(call, unanswerable=AWAITING_APPROVAL) if call.id in approvals else call
                for call in view.calls
            ),
        )
        for view in views
    ]


#: Why a call is not answered when a later call of its turn reuses its id and stays open.
SHADOWED = (
    "a later call of its turn reuses its id and gets no result, so a result written for this "
    "call would answer that one instead"
)


def _shadowed(pairing: Pairing, views: Sequence[MessageView]) -> Pairing:
    """``pairing``, with each answerable open call marked unanswerable when a later open call
    with its key, which gets no result, sits before the place its result would go: the result
    would answer that later call (the nearest open one), and this call would still be open after
    the fix. Such a reused id is TP104; a fix that cannot converge is not offered."""
    by_key: dict[str, list[Dangling]] = {}
    for dangling in pairing.dangling:
        if dangling.call.pairing_key:
            by_key.setdefault(dangling.call.pairing_key, []).append(dangling)
    shadowed = {
        id(earlier)
        for same in by_key.values()
        if len(same) > 1
        for i, earlier in enumerate(same)
        if earlier.call.answerable
        and any(
            not later.call.answerable
            and later.message_index < insertion_point(views, earlier.message_index)
            for later in same[i + 1 :]
        )
    }
    if not shadowed:
        return pairing
    return structs.replace(
        pairing,
        dangling=tuple(
            structs.replace(d, call=replace(d.call, unanswerable=SHADOWED))
            if id(d) in shadowed
            else d
            for d in pairing.dangling
        ),
    )


def _in_place(
    pairing: Pairing, messages: Sequence[Any], views: Sequence[MessageView], dialect: Dialect
) -> Pairing:
    """``pairing``, with the results without an id that answer a call without one but are out
    of place (TP102) taken back to orphans that the call may own: moving such a result and
    writing an id into it cannot be one fix (the moved result is the original, written as it
    was), and a pair made only after the move would leave a fix for a second run. They are
    reported and kept, and the call gets no id (docs/pairing.md#calls-and-results-without-ids)."""
    astray = [
        a
        for a in pairing.answers
        if a.call.call.pairing_key is None and dialect.misplaced(messages, views, a) is not None
    ]
    if not astray:
        return pairing
    kept = [a.result for a in astray]
    return structs.replace(
        pairing,
        answers=tuple(a for a in pairing.answers if a not in astray),
        orphans=(*pairing.orphans, *kept),
        owned=(*pairing.owned, *kept),
    )


def _keeping_a_message(
    edits: dict[int, tuple[Edit, ...]], context: ListContext, count: int
) -> dict[int, tuple[Edit, ...]]:
    """``edits``, less the message deletions if together they would leave the list empty.

    A history of nothing but orphan or duplicate results has nothing to keep: deleting them all
    would write an empty list (or an empty file) that no provider takes and no reader recognises
    as a history. Those defects are left unfixed instead (reported without a fix).
    """
    if not context.whole_messages:
        return edits
    everything = [e for planned in edits.values() for e in planned]
    if not any(isinstance(e, Delete) for e in everything):
        return edits  # nothing is deleted (a synthetic result is all the TP0xx rules add)
    deleted = {
        e.pointer
        for e in everything
        if isinstance(e, Delete) and e.pointer[:-1] == context.pointer and e.pointer
    }
    added = sum(
        len(e.values) for e in everything if isinstance(e, Insert) and e.array == context.pointer
    )
    if count - len(deleted) + added > 0:
        return edits
    return {
        key: () if any(isinstance(e, Delete) and e.pointer in deleted for e in planned) else planned
        for key, planned in edits.items()
    }


def kept_calls(dialect: Dialect, context: ListContext) -> str | None:
    """Why the calls of this list are never dropped (an agent session's), or ``None``."""
    return context.kept_calls or dialect.kept_calls


def _still_a_history(
    edits: dict[int, tuple[Edit, ...]],
    planned: Sequence[Defect],
    messages: Sequence[Any],
    context: ListContext,
) -> dict[int, tuple[Edit, ...]]:
    """``edits``, less the drops if together they would leave a list that reads as no message
    history (its only tool call gone, beside items only a list of calls makes readable): the
    file would no longer be one toolpatch reads, and a second run would fail on it."""
    dropping = {id(d) for d in planned if d.drop and edits.get(id(d))}
    if not dropping or context.single or context.member is not None:
        return edits
    depth = len(context.pointer)
    changes = [
        Delete(e.pointer[depth:])
        for e in distinct_edits(e for k in dropping for e in edits[k])
        if isinstance(e, Delete)
    ]
    # None: an element without a message, or one the quick lane did not read (it holds no call)
    left = [m for m in apply_edits(list(messages), changes) if m is not None]
    if not left or classify(left, DIALECTS) is not None:
        return edits
    return {k: () if k in dropping else planned_edits for k, planned_edits in edits.items()}


def check_list(
    messages: Sequence[Any],
    *,
    dialect: Dialect,
    context: ListContext,
    options: Options,
    plan_unsafe: bool = True,
    views: Sequence[MessageView] | None = None,
    style: Mapping[str, Any] | None = None,
    left_open: Collection[str] | None = None,
    first_caller: int = 0,
    place: Callable[[Pointer], tuple[int, int]] | None = None,
    recorded: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Find the selected defects of one message list, each with a fix where one is honest.

    ``messages`` may hold ``None`` for elements of a wrapper list that carry no message. Safe
    fixes are always planned; unsafe ones when ``plan_unsafe`` (a check reports what they would
    do; a fix plans them only with ``unsafe_fixes``). All planned fixes are planned together.

    ``views``, ``style`` (how the list writes new results), ``left_open`` (the keys some call
    is left open for, `patchcore.engine.quick.open_keys`) and ``first_caller`` (the first
    message that issues such a call) are for a caller that has read them already (the quick
    lane, `lane_findings`): by default they are learned from ``messages``.
    ``place``: the line and column in the file of a message, by its pointer in the record, for
    a caller that reads a file (each finding is made at its calling message's place).
    ``recorded``: the results the data recorded elsewhere for calls it leaves unanswered, by
    pairing key (a session layout's events: Codex's execution events), written in place of
    synthetic texts, with what the dialect reads in the list itself
    (`Dialect.recorded_results`).

    Raises:
        ShapeError: A tool-related field of a message has the wrong shape.
    """
    if views is None:
        views = _awaiting(dialect.views(messages, context), context.awaiting_approval)
    pairing = pair(
        views,
        dangling_only=options.selection.codes <= COUNTED and not options.strip,
        left_open=left_open,
        first_caller=first_caller,
    )
    pairing = _shadowed(pairing, views)
    if pairing.keyless:
        pairing = _in_place(pairing, messages, views, dialect)
    if options.strip:
        defects = in_order(
            [
                *written_results(messages, pairing, dialect, options),
                *filled_errors(messages, views, dialect.name, options),
            ],
            views,
        )
    else:
        if pairing.dangling:
            recorded = {**dialect.recorded_results(messages, views), **(recorded or {})}
        collected = collect(
            messages,
            views,
            pairing,
            dialect,
            options,
            recorded=recorded or {},
            copying=context if kept_calls(dialect, context) is None else None,
            context=context,
        )
        defects = [d for d in collected if d.code in options.selection]
    if not defects:
        return []

    def plans(defect: Defect) -> bool:
        """Whether the run plans the defect's fix."""
        kind = fix_kind(defect)
        return (
            kind is not None
            and (kind[0] is Applicability.SAFE or plan_unsafe)
            and not (defect.drop and kept_calls(dialect, context) is not None)
        )

    planned = [d for d in defects if plans(d)]
    provider = [d for d in planned if d.code in PROVIDER_CODES]
    answers = [d for d in planned if not d.drop and d.code not in PROVIDER_CODES]
    drops = [d for d in planned if d.drop]
    # Without a target, no provider rule is selected: the pairing fixes are all there is.
    renames = provider_plan(messages, context, provider, options=options) if provider else []
    answered = renamed_answers(answers, provider, renames, options) if provider else answers
    pairing_plans = dict(
        zip(
            map(id, [*answers, *drops]),
            [
                *dialect.plan(messages, views, context, answered, style=style),
                *(plan_drops(dialect, messages, context, drops) if drops else []),
            ],
            strict=True,
        )
    )
    if options.target is not None and not options.strip and any(pairing_plans.values()):
        # the provider rules judge the list as the pairing fixes leave it
        after = left_by(messages, context, [e for p in pairing_plans.values() for e in p])
        fresh = provider_defects(messages, views, context, dialect.name, options, after=after)
        defects = in_order([*(d for d in defects if d.code not in PROVIDER_CODES), *fresh], views)
        provider = [d for d in fresh if plans(d)]
        planned = [*answers, *drops, *provider]
        renames = provider_plan(messages, context, provider, options=options)
    by_defect = (
        composed(
            {**pairing_plans, **dict(zip(map(id, provider), renames, strict=True))},
            [id(d) for d in provider],
            messages,
            context,
        )
        if provider
        else pairing_plans
    )
    edits = _keeping_a_message({id(d): by_defect[id(d)] for d in planned}, context, len(messages))
    if options.repair is RepairPolicy.DROP:
        edits = _still_a_history(edits, planned, messages, context)
    for defect in planned:
        if defect.reason is KEEPS_BOTH:
            edits[id(defect)] = ()
        elif defect.code == "TP105":
            edits[id(defect)] = given_ids(defect, context, edits.values(), target=options.target)
    found = findings_of(defects, edits, dialect=dialect, context=context, place=place)
    return found if options.against is None else options.against.broken(found)


def renamed_answers(
    answers: Sequence[Defect],
    provider: Sequence[Defect],
    plans: Sequence[tuple[Edit, ...]],
    options: Options,
) -> list[Defect]:
    """``answers`` as the fix writes their results when the same fix gives their calls a
    provider's id (TP302's plans, among ``plans``, the edits of each ``provider`` defect): a
    synthetic result names the call by its new id, in its key and in its text, or the repaired
    list would hold a call and a result that no longer pair. A result copied into place carries
    the new id as the copy is made (`patchcore.engine.compose.composed`)."""
    new_ids = {
        defect.call.id: edits[0].value
        for defect, edits in zip(provider, plans, strict=True)
        if defect.code == "TP302"
        and defect.call is not None
        and edits
        and isinstance(edits[0], Replace)
    }
    return [_renamed(defect, new_ids, options) for defect in answers]


def _renamed(defect: Defect, new_ids: Mapping[str | None, Any], options: Options) -> Defect:
    """``defect`` with its call under its new id, if it gets one, and a synthetic text that
    names that id."""
    call = defect.call
    if defect.code not in ANSWERED or call is None or call.id not in new_ids:
        return defect  # a moved or removed result is the original: composed() renames a move
    call = replace(call, id=new_ids[call.id])
    text = defect.text
    if defect.origin is Origin.SYNTHESIZED:
        text = render_text(options.text(defect.code), name=call.name, call_id=call.id)
    return structs.replace(defect, call=call, text=text)


def given_ids(
    defect: Defect,
    context: ListContext,
    planned: Iterable[tuple[Edit, ...]],
    *,
    target: str | None = None,
) -> tuple[Edit, ...]:
    """TP105's fix: one id for a call without one and for the result without one that answers
    it (docs/pairing.md#calls-and-results-without-ids), derived from where the call sits in its
    record and its tool name, so two runs write the same id (`derived_id`). None in a stored
    model response (what the model returned stays), nor where another planned fix replaces or
    removes either place or what holds it (``planned``: the others' edits). ``target``: the
    run's provider, whose shape the id takes (`provider_id`: Mistral's 9 letters and digits)."""
    call, result, at = defect.call, defect.result, defect.target
    if call is None or result is None or at is None or call.id_at is None or result.id_at is None:
        return ()
    if context.single or context.sealed_reason is not None:
        return ()
    caller = (*context.message_pointer(defect.message_index), *call.path)
    ident = provider_id(derived_id(f"{format_pointer(caller)}:{call.name or ''}"), target)
    places = (
        (*context.message_pointer(defect.message_index), *call.id_at),
        (*context.message_pointer(at), *result.id_at),
    )
    # An insertion changes no value already there (edits address the original record).
    others = [edit.pointer for edits in planned for edit in edits if not isinstance(edit, Insert)]
    if any(_overlap(place, other) for place in places for other in others):
        return ()
    return tuple(Replace(place, ident) for place in places)


def _overlap(one: Pointer, other: Pointer) -> bool:
    """Whether one pointer is the other or inside it."""
    shorter = min(len(one), len(other))
    return one[:shorter] == other[:shorter]


def findings_of(
    defects: Sequence[Defect],
    edits: Mapping[int, tuple[Edit, ...]],
    *,
    dialect: Dialect,
    context: ListContext,
    place: Callable[[Pointer], tuple[int, int]] | None = None,
) -> list[Finding]:
    """The findings of a list's selected ``defects``; ``edits``: the planned fix of each defect,
    by its ``id()``. A fixable defect that was not planned gets a fix without edits (what it
    would do is not worked out); one planned without edits cannot be fixed here: no fix.
    ``place``: as `check_list`'s."""
    findings = []
    for defect in defects:
        rule = RULES[defect.code]
        fix = None
        message = _describe(defect)
        kind = fix_kind(defect)
        kept = kept_calls(dialect, context) if defect.drop else None
        if kept is not None:
            if _answerable(defect):
                message += f"; {kept}"
        elif kind is not None:
            planned_edits = edits.get(id(defect))
            if planned_edits is None or planned_edits:
                fix = Fix(kind[0], kind[1], planned_edits or (), kind[2])
            elif _answerable(defect) and defect.drop:
                message += f"; {DROP_REFUSED if context.closed_reason is None else DROP_CLOSED}"
            elif _answerable(defect) and context.closed_reason is not None:
                message += f"; {context.closed_reason}"  # its result was refused by the list itself
        path = context.message_pointer(defect.message_index)
        line, column = place(path) if place is not None else (None, None)
        findings.append(
            Finding(
                code=defect.code,
                rule=rule.name,
                message=message,
                dialect=dialect.name,
                list_pointer=context.pointer,
                message_index=defect.message_index,
                message_path=path,
                call_path=defect.path,
                call_id=defect.ident,
                tool_name=defect.call.name if defect.call is not None else None,
                fix=fix,
                provider_error=None if defect.strip else dialect.provider_error(defect),
                line=line,
                column=column,
                pending=defect.pending,
            )
        )
    return findings


_LANGCHAIN = LangChain()
_CHAT = OpenAIChat()


def _adapter(lane: Lane) -> tuple[ResultMessageDialect, Mapping[str, Any]]:
    """The lane's dialect and how its result messages are written."""
    if lane.dialect == "langchain":
        # The lane reads messages_to_dict lists only: no flat message with nulls to copy.
        return _LANGCHAIN, LangChain.style(keep_nulls=False)
    answer_keys, named = lane.writing_style()
    return _CHAT, OpenAIChat.style(answer_keys=answer_keys, named=named)


def _keys(view: View) -> tuple[list[str | None], list[str], list[str]]:
    """What pairing reads of a view."""
    return (
        [call.pairing_key for call in view.calls],
        [result.key for result in view.results],
        [result.key for result in view.inner_results],
    )


def _callers(lane: Lane) -> list[int]:
    """The messages that issue a call with a key left open."""
    left_open = lane.open_keys
    callers = []
    for index, view in enumerate(lane.views):
        calls = view.calls
        if calls:  # most messages have none (some a null, `patchcore.engine.quick._Message`)
            for call in calls:
                if call.pairing_key in left_open:
                    callers.append(index)
                    break
    return callers


def _earlier_results(lane: Lane, last: int) -> list[int]:
    """The messages before message ``last`` that hold a result with a key left open: the call's
    own result out of place, which its fix copies (`check_list`), is one of them."""
    left_open = lane.open_keys
    return [
        index
        for index, view in enumerate(lane.views[:last])
        if view.results and any(result.key in left_open for result in view.results)
    ]


def lane_findings(
    lane: Lane,
    spans: Spans,
    *,
    options: Options,
    place: Callable[[Pointer], tuple[int, int]] | None = None,
) -> list[Finding] | None:
    """The selected findings of the record ``spans.buf``, whose lane is ``lane`` (with open
    calls), each with its fix (and with ``place``, at its place: as `check_list`'s); ``None``
    if a calling message does not read as the lane read it (the full path decides).
    ``options`` select the counted rules only (`Options.quick`): the lane's views tell pairing
    the keys, not what the other rules read (the lane has no record with a duplicate)."""
    assert options.selection.codes <= COUNTED
    if lane.dialect == "anthropic":
        return None  # its new results go in the blocks of the next user turn, which is not read
    dialect, style = _adapter(lane)
    context = ListContext(lane.pointer)
    elements = spans.elements(lane.pointer)
    # Only the messages that issue calls with an open key are parsed (``None`` stands for the
    # others: with the TP0xx rules, the checker reads no message but a caller's).
    messages: list[Any] = [None] * lane.messages
    views: list[View] = list(lane.views)
    callers = _callers(lane)
    for index in sorted({*callers, *_earlier_results(lane, callers[-1])}):
        view = lane.views[index]
        start, end = elements[index]
        messages[index] = msgspec.json.decode(spans.buf[start:end])  # MemoryError, no crash
        views[index] = dialect.view(messages[index], context.message_pointer(index))
        if _keys(views[index]) != _keys(view):
            return None
    # Every call that pairing walks (one with an open key) is the adapter's: the lane's views
    # stand only for messages whose calls and results it reads by their keys.
    return check_list(
        messages,
        dialect=dialect,
        context=context,
        options=options,
        views=cast("Sequence[MessageView]", views),
        style=style,
        left_open=lane.open_keys,
        first_caller=callers[0],
        place=place,
    )
