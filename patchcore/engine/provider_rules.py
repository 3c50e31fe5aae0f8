"""The provider rules (TP3xx): what one provider refuses beyond pairing, checked in a list only
when the run targets that provider and the list is of a dialect it takes (`Options.target`,
`patchcore.rules.PROVIDERS`, docs/cli.md#target); and the edits of their fixes.

Each check reads the list's own messages, as the provider's validator does (the sources are in
docs/rules.md, each rule's "Provider error"); each finding's sentence is its defect's
``reason``, and its provider error the rule's own (`patchcore.rules.Rule.error`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from patchcore.dialects.base import ListContext
from patchcore.model import Defect, Delete, Edit, MessageView, Pointer, Replace, ToolCall
from patchcore.options import Options
from patchcore.rules import PROVIDERS, RULES, render_text

#: The codes of the provider rules.
PROVIDER_CODES = frozenset(code for code, rule in RULES.items() if rule.provider is not None)

#: The value Gemini's documentation gives for a thought signature that is not known, and that
#: Gemini CLI writes (``SYNTHETIC_THOUGHT_SIGNATURE``): TP301's fix.
SKIP_SIGNATURE = "skip_thought_signature_validator"

#: A tool call id Mistral takes (mistral-common's ``MistralRequestValidatorV3``).
MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")
#: Its letters and digits, in the order of ``string.ascii_letters + string.digits`` (which
#: `mistral_id` draws from; importing `string` was 1 ms of the engine's load).
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

#: A provider rule's check: of the list's messages, their views, the list's context, and the
#: messages as the same run's pairing fixes leave them, by index (`None`: removed; see
#: `patchcore.engine.compose.left_by`), which a rule that reads what follows what judges, or
#: the repair would hold what it refuses.
Check = Callable[[Sequence[Any], Sequence[MessageView], ListContext, Sequence[Any]], list[Defect]]


def _text(message: Any) -> bool:
    """Whether a Gemini user content holds text and no function response: where the API starts
    the current turn."""
    parts = message.get("parts") if isinstance(message, dict) else None
    if message is None or message.get("role") != "user" or not isinstance(parts, list):
        return False
    blocks = [p for p in parts if isinstance(p, dict)]
    return any("text" in p for p in blocks) and not any(
        "functionResponse" in p or "function_response" in p for p in blocks
    )


def _unsigned_calls(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP301: the first function call part of each model content after the last user content
    with text, when it carries no thought signature (the validation Gemini's documentation
    describes, and Gemini CLI's ``ensureActiveLoopHasThoughtSignatures`` repairs). The current
    turn is looked for in ``after``: a user content with text that a pairing fix gives a
    function response no longer starts it, so the calls before it are of the current turn in
    the repair."""
    start = next((i for i in range(len(after) - 1, -1, -1) if _text(after[i])), None)
    if start is None:
        return []
    defects = []
    for index in range(start + 1, len(messages)):
        message = messages[index]
        parts = message.get("parts") if isinstance(message, dict) else None
        if message is None or message.get("role") != "model" or not isinstance(parts, list):
            continue
        for k, part in enumerate(parts):
            calling = isinstance(part, dict) and ("functionCall" in part or "function_call" in part)
            if not calling:
                continue
            if not (part.get("thoughtSignature") or part.get("thought_signature")):
                call = next((c for c in views[index].calls if c.path == ("parts", k)), None)
                name = call.name if call is not None else None
                defects.append(
                    Defect(
                        "TP301",
                        index,
                        ("parts", k),
                        call or ToolCall(None, name, path=("parts", k)),
                        reason=f"function call '{name or 'unknown'}' of the current turn has no "
                        "thought signature",
                    )
                )
            break  # only the first function call part of a content is validated
    return defects


def _ids(messages: Sequence[Any]) -> Iterator[tuple[int, Pointer, str, str | None]]:
    """Every tool call id of an OpenAI Chat list, with its message, its place there and the
    tool's name: the calls' ``id`` and the tool messages' ``tool_call_id``."""
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        calls = message.get("tool_calls")
        for k, entry in enumerate(calls if isinstance(calls, list) else ()):
            ident = entry.get("id") if isinstance(entry, dict) else None
            if isinstance(ident, str) and ident:
                function = entry.get("function")
                name = function.get("name") if isinstance(function, dict) else None
                yield index, ("tool_calls", k, "id"), ident, name
        ident = message.get("tool_call_id") if message.get("role") == "tool" else None
        if isinstance(ident, str) and ident:
            yield index, ("tool_call_id",), ident, message.get("name")


def _foreign_results(messages: Sequence[Any]) -> bool:
    """Whether some tool message names its call under a framework's own key (SWE-agent's
    ``tool_call_ids``, tau2's ``id``) rather than ``tool_call_id``: TP302's fix, which rewrites
    ``tool_call_id``, would leave it naming the old id."""
    return any(
        isinstance(m, dict)
        and m.get("role") == "tool"
        and not m.get("tool_call_id")
        and (m.get("tool_call_ids") or m.get("id"))
        for m in messages
    )


def _mistral_ids(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP302: each id not of Mistral's shape, once, at its first place."""
    seen: set[str] = set()
    defects = []
    for index, at, ident, name in _ids(messages):
        if MISTRAL_ID.fullmatch(ident) or ident in seen:
            continue
        seen.add(ident)
        defects.append(
            Defect(
                "TP302",
                index,
                at[:-1],
                ToolCall(ident, name if isinstance(name, str) else None, path=at[:-1]),
                reason=f"tool call id {ident} is not 9 letters and digits, as Mistral requires",
            )
        )
    return defects


def mistral_id(old: str, taken: set[str]) -> str:
    """A Mistral id for ``old``: 9 letters and digits of its SHA-256 (the same for every run),
    never one of ``taken``."""
    import hashlib  # here: loading OpenSSL's hashes costs every run with a finding 5 ms

    for salt in range(1000):
        digest = int.from_bytes(hashlib.sha256(f"{salt}:{old}".encode()).digest(), "big")
        new = ""
        for _ in range(9):
            digest, rest = divmod(digest, len(_ALPHABET))
            new += _ALPHABET[rest]
        if new not in taken:
            return new
    msg = f"no free Mistral id for {old!r}"  # 62**9 ids: unreachable
    raise AssertionError(msg)


def provider_id(ident: str, target: str | None) -> str:
    """``ident``, an id toolpatch derived, in the shape ``target`` takes: for Mistral, 9 letters
    and digits derived from it (`mistral_id`); as it is for any other."""
    return mistral_id(ident, set()) if target == "mistral" else ident


def _led_to(item: Any) -> bool:
    """Whether a Responses item is one a reasoning item leads to: an assistant message, or a
    call (of a tool the client or the server runs)."""
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if item.get("role") == "assistant":
        return True
    return isinstance(kind, str) and kind.endswith("_call")


def _tied(item: Any) -> bool:
    """Whether a Responses item may be tied to the reasoning item before it by its own ``id``
    and be sent without it: a function call or an assistant message (the items Continue strips
    the id of; a server call's id is required)."""
    if not isinstance(item, dict):
        return False
    return item.get("type") in ("function_call", "message") or item.get("role") == "assistant"


def _output(item: Any) -> bool:
    """Whether a Responses item is a call's output."""
    kind = item.get("type") if isinstance(item, dict) else None
    return isinstance(kind, str) and (kind.endswith("_output") or kind.endswith("_result"))


def _orphan_reasoning(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP303: each reasoning item that no item it led to follows, passing over outputs (a
    reasoning item split from its item by outputs is TP102's), in the list as the pairing
    fixes leave it (``after``: a call the drop repair removes leads nowhere)."""
    defects = []
    for index, item in enumerate(messages):
        if not isinstance(item, dict) or item.get("type") != "reasoning" or after[index] is None:
            continue
        following = index + 1
        while following < len(after) and (after[following] is None or _output(after[following])):
            following += 1
        if following < len(after) and _led_to(after[following]):
            continue
        ident = item.get("id") if isinstance(item.get("id"), str) else None
        defects.append(
            Defect(
                "TP303",
                index,
                (),
                ToolCall(ident, None),
                reason=f"reasoning item {ident or '(no id)'} is followed by no item it led to",
            )
        )
    return defects


def _prefill(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP304: in a request body, a last message of the assistant without a tool call."""
    if not context.request:
        return []
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i] is not None), None)
    if last is None:
        return []
    message = messages[last]
    if not isinstance(message, dict) or message.get("role") != "assistant" or views[last].calls:
        return []
    reason = "the last message is the assistant's, a prefill"
    return [Defect("TP304", last, (), reason=reason)]


def _unstored(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP305: in a request that sets ``store: false``, each reasoning item without
    ``encrypted_content`` and each ``item_reference``: items named by their id alone."""
    if not context.unstored:
        return []
    defects = []
    for index, item in enumerate(messages):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "item_reference" or (kind == "reasoning" and not item.get("encrypted_content")):
            ident = item.get("id") if isinstance(item.get("id"), str) else None
            what = "an item reference" if kind == "item_reference" else "a reasoning item"
            reason = (
                f"{what} names item {ident or '(no id)'} by its id alone, in a request that "
                "sets store: false"
            )
            defects.append(Defect("TP305", index, (), ToolCall(ident, None), reason=reason))
    return defects


def _unnamed_results(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP306: each tool message that names no call: the dialect reads no id in it (a framework's
    own key, SWE-agent's ``tool_call_ids`` or tau2's ``id``, names its call, and the framework
    writes ``tool_call_id`` when it sends the message)."""
    return [
        Defect("TP306", index, (), reason="the tool message names no call: no tool_call_id")
        for index, message in enumerate(messages)
        if isinstance(message, dict)
        and message.get("role") == "tool"
        and not any(result.keyed for result in views[index].results)
    ]


def _empty_errors(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    after: Sequence[Any],
) -> list[Defect]:
    """TP307: each ``tool_result`` block with ``is_error: true`` whose ``content`` is ``""`` or
    ``[]``, the two the API is reported refusing (docs/rules.md#empty-error-tool-result-tp307);
    the call it answers named by its ``tool_use_id``."""
    return [
        Defect(
            "TP307",
            index,
            call.path,
            call,
            reason=f"the error result of tool call {call.id or '(no id)'} has empty content",
        )
        for index, block, call in _error_results(messages, views)
        if block.get("content") in ("", [])
    ]


def _error_results(
    messages: Sequence[Any], views: Sequence[MessageView]
) -> Iterator[tuple[int, dict[str, Any], ToolCall]]:
    """Each Anthropic ``tool_result`` block with ``is_error: true``: its message, the block, and
    the call it answers (its ``tool_use_id``, the name of the call of that id), whose ``path``
    is the block's place in its message."""
    names = {call.id: call.name for view in views for call in view.calls if call.id is not None}
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        for k, block in enumerate(content if isinstance(content, list) else ()):
            if not (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("is_error") is True
            ):
                continue
            named = block.get("tool_use_id")
            ident = named if isinstance(named, str) and named else None
            yield (
                index,
                block,
                ToolCall(ident, names.get(ident) if ident else None, path=("content", k)),
            )


#: Each provider rule's check, by code and dialect.
_CHECKS: dict[tuple[str, str], Check] = {
    ("TP301", "gemini"): _unsigned_calls,
    ("TP302", "openai-chat"): _mistral_ids,
    ("TP303", "openai-responses"): _orphan_reasoning,
    ("TP304", "anthropic"): _prefill,
    ("TP305", "openai-responses"): _unstored,
    ("TP306", "openai-chat"): _unnamed_results,
    ("TP307", "anthropic"): _empty_errors,
}


def provider_defects(
    messages: Sequence[Any],
    views: Sequence[MessageView],
    context: ListContext,
    dialect: str,
    options: Options,
    *,
    after: Sequence[Any] | None = None,
) -> list[Defect]:
    """The defects of the selected provider rules of the run's target in a list of ``dialect``
    (none without a target, or in a list of a dialect the target does not take). ``after``:
    the messages as the same run's pairing fixes leave them (`Check`); by default, as they
    are."""
    target = options.target
    if target is None or dialect not in PROVIDERS[target]:
        return []
    defects = []
    for code in sorted(options.selection.codes & PROVIDER_CODES):
        check = _CHECKS.get((code, dialect))
        if check is not None:
            defects += check(messages, views, context, messages if after is None else after)
    return defects


def provider_plan(
    messages: Sequence[Any], context: ListContext, defects: Sequence[Defect], *, options: Options
) -> list[tuple[Edit, ...]]:
    """The edits of each provider defect's fix (empty: none can be made here); ``options``
    give the texts a fix writes (`Options.text`)."""
    taken = {ident for _, _, ident, _ in _ids(messages) if MISTRAL_ID.fullmatch(ident)}
    plans: list[tuple[Edit, ...]] = []
    for defect in defects:
        where = context.message_pointer(defect.message_index)
        if defect.code == "TP301":
            part = messages[defect.message_index]["parts"][defect.path[1]]
            key = "thought_signature" if "function_call" in part else "thoughtSignature"
            plans.append((Replace((*where, *defect.path, key), SKIP_SIGNATURE),))
        elif (
            defect.code == "TP302"
            and defect.call is not None
            and defect.call.id is not None
            and not _foreign_results(messages)
        ):
            new = mistral_id(defect.call.id, taken)
            taken.add(new)
            plans.append(
                tuple(
                    Replace((*context.message_pointer(index), *at), new)
                    for index, at, ident, _ in _ids(messages)
                    if ident == defect.call.id
                )
            )
        elif defect.code in ("TP303", "TP305"):
            plans.append(_dropped_reasoning(messages, context, defect))
        elif defect.code == "TP307":
            plans.append((_filled_error(messages, context, defect, options),))
        else:
            plans.append(())
    return plans


def _dropped_reasoning(
    messages: Sequence[Any], context: ListContext, defect: Defect
) -> tuple[Edit, ...]:
    """TP303's and TP305's fix: the item deleted; for a reasoning item, each ``item_reference``
    to its id too, and the ``id`` of the calls and assistant messages right after it, which
    tie them to it (Continue's ``sanitizeResponsesInput``)."""
    ident = defect.call.id if defect.call is not None else None
    if messages[defect.message_index].get("type") != "reasoning":
        ident = None  # an item reference: only itself goes
    doomed = [defect.message_index] + [
        index
        for index, item in enumerate(messages)
        if ident is not None
        and isinstance(item, dict)
        and item.get("type") == "item_reference"
        and item.get("id") == ident
    ]
    deletions = [context.delete_message(index) for index in doomed]
    if any(deletion is None for deletion in deletions):
        return ()
    unlinked: list[Edit] = []
    after = defect.message_index + 1
    while ident is not None and after < len(messages) and _tied(messages[after]):
        if "id" in messages[after]:
            unlinked.append(Delete((*context.message_pointer(after), "id")))
        after += 1
    return (*(d for d in deletions if isinstance(d, Delete)), *unlinked)


def _filled_error(
    messages: Sequence[Any], context: ListContext, defect: Defect, options: Options
) -> Replace:
    """TP307's fix: the empty ``content`` of the error result replaced by the rule's text (the
    configured one, `Options.text`), in the shape it had: a string for ``""``, one text block
    for ``[]``. For ``toolpatch strip`` (`filled_errors`), the inverse: the text taken out."""
    content = messages[defect.message_index]["content"][defect.path[1]]["content"]
    if defect.strip:
        value: Any = "" if isinstance(content, str) else []
    else:
        text = _error_text(defect.call, options)
        value = text if content == "" else [{"type": "text", "text": text}]
    where = context.message_pointer(defect.message_index)
    return Replace((*where, *defect.path, "content"), value)


def _error_text(call: ToolCall | None, options: Options) -> str:
    """The text TP307's fix writes for ``call``'s result."""
    name, ident = (call.name, call.id) if call is not None else (None, None)
    return render_text(options.text("TP307"), name=name, call_id=ident)


def filled_errors(
    messages: Sequence[Any], views: Sequence[MessageView], dialect: str, options: Options
) -> list[Defect]:
    """The error results whose content is the text TP307's fix wrote there (``toolpatch
    strip``, docs/cli.md#strip): the configured text for the call, as the string or the one
    text block the fix writes, in a ``tool_result`` with ``is_error: true``."""
    if dialect not in PROVIDERS["anthropic"]:
        return []
    found = []
    for index, block, call in _error_results(messages, views):
        text = _error_text(call, options)
        if block.get("content") in (text, [{"type": "text", "text": text}]):
            reason = (
                f"the content of the error result of tool call {call.id or '(no id)'} is the "
                "text toolpatch wrote for TP307"
            )
            found.append(Defect("TP307", index, call.path, call, reason=reason, strip=True))
    return found
