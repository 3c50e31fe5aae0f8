"""Fine-tuning data: which calls are training targets, held back from every fix.

A fine-tuning file is JSON Lines with one training example per line; in OpenAI's chat format
(the API reference's ``FineTuneChatRequestInput``, "the per-line training example of a
fine-tuning input file") a line is an object of ``messages`` and, optionally, ``tools``,
``functions`` and ``parallel_tool_calls``, and its messages hold only the keys that format
knows (an assistant message may carry ``weight``, 0 or 1: whether it is trained on). An example
that teaches the model to call a tool ends on the assistant message that makes the call: that
call is what the model learns to produce (docs/cli.md#fine-tuning-data cites the sources). It
has no result, by design; a made-up result after it, or its removal, would change what is
taught, and the original is data nobody can get back.

The judgement rests on positive evidence only, one example at a time:

* the input is conversation lines (`patchcore.layouts.records.ConversationLines`), never a JSON
  document, a file of one message per line or an agent session log;
* the line is a fine-tuning record: an object with ``messages``, no key outside
  `EXAMPLE_KEYS`, and messages with no key outside `MESSAGE_KEYS` (a run that an agent, a
  proxy or an SDK recorded carries more: ``model``, ``id``, ``usage``, timestamps, metadata, a
  message's ``annotations``);
* its conversation (the list at ``/messages``, read as OpenAI Chat) ends on the assistant
  message whose calls are left open: those calls, and only those, are the example's target.

A call left open anywhere else in an example (one the conversation went on past, an answer
missing from a parallel turn that a tool message follows) is no target: a provider refuses such
an example, and it is fixed as usual. Each line is judged on its own, so a corpus cut into
batches (`patchcore.Stream`, worker processes) is judged exactly as one read whole; the file's
judgement is what its examples add up to (`training_data`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from patchcore.layouts.base import held_back

if TYPE_CHECKING:
    from patchcore.model import Finding
    from patchcore.result import Conversation, Result

#: The keys of a line of an OpenAI chat fine-tuning file (``FineTuneChatRequestInput``).
EXAMPLE_KEYS = frozenset({"messages", "tools", "functions", "parallel_tool_calls"})
#: The keys its messages may have: the fine-tuning input's system, user, assistant and tool
#: messages (``weight`` only exists there).
MESSAGE_KEYS = frozenset(
    {
        "role",
        "content",
        "name",
        "weight",
        "refusal",
        "audio",
        "tool_calls",
        "function_call",
        "tool_call_id",
    }
)
#: Where a fine-tuning record holds its conversation.
_MESSAGES = ("messages",)

#: Why the fix of a training target is held back (after the finding's own sentence): what
#: `patchcore.model.Finding.held` says of it, which `is_training_target` recognises.
TRAINING_TARGET = "the fine-tuning example ends on this call, its training target: left as it is"


def is_training_example(value: Any) -> bool:
    """Whether a line's parsed ``value`` is a fine-tuning record: an object of
    `EXAMPLE_KEYS` with a ``messages`` list whose messages are objects of `MESSAGE_KEYS`."""
    if not isinstance(value, dict) or not value.keys() <= EXAMPLE_KEYS:
        return False
    messages = value.get("messages")
    return (
        isinstance(messages, list)
        and bool(messages)
        and all(isinstance(m, dict) and m.keys() <= MESSAGE_KEYS for m in messages)
    )


def held_targets(
    conversations: Sequence[Conversation], findings: Sequence[Finding], value: Callable[[], Any]
) -> tuple[tuple[Conversation, ...], tuple[Finding, ...]]:
    """The checked lists of one line of conversation lines and their ``findings``, with the fix
    of each call its example ends on held back (`TRAINING_TARGET`), when the line (its parsed
    ``value``, asked only where a finding could be one) is a fine-tuning example
    (`is_training_example`). Both the check of a line and the self-check of its repair judge
    it so: the targets a repair leaves are not left to fix."""
    ending = [f for f in findings if f.pending and f.list_pointer == _MESSAGES]
    if not ending:
        return tuple(conversations), tuple(findings)
    parsed = value()
    if not is_training_example(parsed):
        return tuple(conversations), tuple(findings)
    last = len(parsed["messages"]) - 1
    targets = [f for f in ending if f.message_index == last and f.dialect == "openai-chat"]
    return held_back(conversations, findings, targets, TRAINING_TARGET)


def is_training_target(finding: Finding) -> bool:
    """Whether ``finding`` is a call a fine-tuning example ends on, its fix held back."""
    return finding.held == TRAINING_TARGET


@dataclass(frozen=True, slots=True)
class TrainingData:
    """The judgement of an input with training targets: what a report says before anything is
    written.

    Attributes:
        examples: The examples (lines) that end on their call, left as they are.
        targets: The calls they end on (an example may end on parallel calls).
        conversations: The conversations checked in the input (every line's, clean ones
            included).
    """

    examples: int
    targets: int
    conversations: int

    def note(self, *, answered_by: str, unreported_by: str) -> str:
        """What is said of the input before anything is written (docs/cli.md#fine-tuning-data):
        how many examples end on a call a fix leaves as it is, and how the caller's user has
        them answered (``answered_by``: the command line's ``--fix-training-targets``,
        `patchcore.Options.fix_training_targets`) or left unreported (``unreported_by``)."""
        examples = "example" if self.conversations == 1 else "examples"
        end = "ends" if self.examples == 1 else "end"
        calls, them, are = ("those calls", "them", "they are")
        if self.targets == 1:
            calls, them, are = ("that call", "it", "it is")
        return (
            f"fine-tuning data: {self.examples} of {self.conversations} {examples} {end} on a "
            f"tool call, the training target; fix leaves {calls} as {are} "
            f"({answered_by} answers {them}; {unreported_by} leaves {them} unreported)"
        )


def training_data(result: Result) -> TrainingData | None:
    """The judgement of ``result`` (a whole input's, or a stream's), or ``None`` when no example
    of it ends on its call (nothing was held back as a target)."""
    targets = [f for f in result.findings if is_training_target(f)]
    if not targets:
        return None
    checked = [c for c in result.conversations if c.dialect is not None and c.note is None]
    return TrainingData(
        examples=len({f.line for f in targets}),
        targets=len(targets),
        conversations=len(checked) + result.clean_lists,
    )
