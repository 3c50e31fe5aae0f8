"""What the pairing engine sees of a message, and its first pass: which keys are left open.

The engine (`patchcore.engine.pairing`) pairs *views*: anything with a `Role`, the calls it
issues (each with a ``pairing_key``), the results it holds (each with a ``key``) and whether it
joins the turn before it. The dialect adapters make `patchcore.model.MessageView`s; the quick
lane (`patchcore.engine.quick`) decodes its two shapes into structs that are views already.

`open_keys` is the pairing's first pass: it only counts, per key, the calls that no result has
answered yet, which is what a stack of open calls would hold, and notes a result that closes no
open call (a duplicate, or an orphan). Most lists have neither, and then nothing else needs
doing; otherwise `patchcore.engine.pairing.pair` walks again, with stacks, over the keys left
open alone (pairing is per key, so the others need no second look), or over the whole list when
a result came unmatched.

Kept free of the engine's other imports: a record proven clean needs nothing more.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Protocol


class Role(enum.Enum):
    """How the pairing engine sees a message, whatever its dialect calls it."""

    CALLER = "caller"
    """A message that may issue tool calls (an assistant / AI / model turn)."""

    RESULTS = "results"
    """A message that holds tool results and nothing else (a tool message, a user turn made
    only of result blocks). Synthetic results go after a run of these."""

    OTHER = "other"
    """Anything else: user text, system prompts, messages of unknown kind."""


class Call(Protocol):
    """A call, as pairing sees it."""

    @property
    def pairing_key(self) -> str | None:
        """The key results are matched on (none: nothing can answer it)."""


class Result(Protocol):
    """A result, as pairing sees it."""

    @property
    def key(self) -> str:
        """The pairing key of the call it answers."""


class View(Protocol):
    """A message, as pairing sees it (`patchcore.model.MessageView` says what each means)."""

    @property
    def role(self) -> Role: ...

    @property
    def calls(self) -> Sequence[Call]: ...

    @property
    def results(self) -> Sequence[Result]: ...

    @property
    def inner_results(self) -> Sequence[Result]: ...

    @property
    def joins_previous(self) -> bool: ...


def open_keys(views: Sequence[View]) -> tuple[set[str], bool]:
    """The keys that some call is left open for, in one pass that only counts, and whether a
    result came that closes no open call: for a key whose calls were all answered already (a
    duplicate, TP103), or for a key no call had before it (an orphan, which the default
    selection reports as TP004, docs/rules.md#unread-tool-call-tp004). Either sends pairing
    down its full walk, which tells them apart.

    In each message, results for earlier messages are matched first, then its calls open, then
    its inner results are matched: a result closes an open call with its key, if there is one.
    (Hot for every record of a corpus: the common empty sequences are not iterated at all, and a
    result that closes a call costs no more than before.)
    """
    counts: dict[str, int] = {}
    count = counts.get
    unmatched = False
    for view in views:
        results = view.results
        if results:
            for result in results:
                key = result.key
                if count(key):
                    counts[key] -= 1
                else:
                    unmatched = True
        calls = view.calls
        if calls:
            for call in calls:
                called = call.pairing_key
                if called:
                    counts[called] = count(called, 0) + 1
        inner = view.inner_results
        if inner:
            for result in inner:
                key = result.key
                if count(key):
                    counts[key] -= 1
                else:
                    unmatched = True
    return {key for key, left in counts.items() if left}, unmatched
