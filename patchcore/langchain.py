"""A LangChain v1 agent middleware that repairs the history before the agent runs.

`PatchToolCallsMiddleware` is a drop-in for deepagents' middleware of that name: it is added to
``langchain.agents.create_agent(middleware=[...])`` (or replaces deepagents' own in
``create_deep_agent``, which swaps middleware by name), runs in ``before_agent``, and returns
deepagents' kind of update, a ``RemoveMessage(REMOVE_ALL_MESSAGES)`` followed by the whole
repaired list, or ``None`` when nothing is repaired. The repair is `fix_base_messages`'s: the
pairing of docs/pairing.md, the rule texts, ``status="error"``, and the options of
`patchcore.make_options` (docs/langchain.md says how it differs from deepagents').

Two options change where and how it repairs: ``repair_callback`` builds each synthetic result
(deepagents' callback), and ``keep_state`` leaves the stored state as it is and repairs only
the messages each model call is sent, in ``wrap_model_call`` (deer-flow's way).

Importing this module imports langchain (the ``langchain`` extra, which brings langgraph);
without it the import says what to install (`patchcore.extras`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from patchcore.extras import MissingExtra

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        AgentState,
        ModelRequest,
        ModelResponse,
    )
    from langchain_core.messages import AnyMessage, BaseMessage, RemoveMessage
    from langgraph.graph.message import REMOVE_ALL_MESSAGES
    from langgraph.runtime import Runtime
except ModuleNotFoundError as missing:
    raise MissingExtra(
        missing, extra="langchain", part="patchcore.langchain.PatchToolCallsMiddleware"
    ) from None

try:  # newer langchain traces middleware hooks by policy; deepagents leaves the history out
    from langchain.agents.middleware import TracePolicy, omit_payload
except ImportError:  # older: hook inputs are traced, and nothing can say otherwise
    _TRACE_POLICY: TracePolicy | None = None
else:
    _TRACE_POLICY = TracePolicy(process_inputs=omit_payload)

from patchcore.base_messages import RepairCallback, fix_base_messages
from patchcore.options import Options, make_options


def patch_update(
    messages: Sequence[BaseMessage] | None,
    *,
    options: Options | None = None,
    repair_callback: RepairCallback | None = None,
) -> dict[str, Any] | None:
    """The state update that repairs ``messages``, as deepagents' middleware returns it.

    Returns:
        ``None`` when there are no messages (``None``, as a state without its ``messages``
        channel has, or an empty list) or `fix_base_messages` fixes nothing (a clean history,
        or only findings without a fix under ``options``); else
        ``{"messages": [RemoveMessage(REMOVE_ALL), ...]}`` with every message of the repaired
        list, the original objects untouched.
    """
    if not messages:
        return None
    repair = fix_base_messages(messages, options=options, repair_callback=repair_callback)
    if not repair.changed:
        return None
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *repair.value]}


class PatchToolCallsMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Answer the history's unanswered tool calls before the agent runs.

    The options are given one of two ways, never both: the keywords of
    `patchcore.make_options` (``select``, ``ignore``, ``texts``, ``unsafe_fixes``, ... and
    whatever it takes next), forwarded to it as they are; or ``options=``, one already built.
    With neither, the defaults: the TP0xx rules, toolpatch's texts, safe fixes only;
    ``texts="deepagents"`` writes deepagents' own wording instead (docs/langchain.md#texts).

    Two keywords are the middleware's own, and go with either way:

    - ``repair_callback``: builds the ``ToolMessage`` of each unanswered call from the call
      (`patchcore.base_messages.RepairCallback`), in place of toolpatch's text;
    - ``keep_state``: leave the state's messages as they are (``before_agent`` returns
      ``None``) and repair, in ``wrap_model_call``, only the messages each model call is sent.

    Raises:
        TypeError: ``options=`` comes with other keywords, or a keyword that
            `patchcore.make_options` does not take.
        PatchcoreError: ``make_options`` refuses a value (an unknown rule, an empty text).

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
        >>> state = {"messages": [HumanMessage("Paris?"), AIMessage("", tool_calls=[call])]}
        >>> update = PatchToolCallsMiddleware().before_agent(state, None)
        >>> [m.type for m in update["messages"]]
        ['remove', 'human', 'ai', 'tool']
        >>> update["messages"][-1].content[:72]
        'Tool call get_weather with id call_1 has no recorded result: the run sto'
        >>> deepagents = PatchToolCallsMiddleware(texts="deepagents").before_agent(state, None)
        >>> deepagents["messages"][-1].content
        'Tool call get_weather with id call_1 did not complete - no result was recorded.'
    """

    trace_policy = _TRACE_POLICY
    """Hook inputs (the whole history) are left out of traces, as deepagents' are."""

    def __init__(
        self,
        *,
        options: Options | None = None,
        repair_callback: RepairCallback | None = None,
        keep_state: bool = False,
        **settings: Any,
    ) -> None:
        super().__init__()
        self.repair_callback = repair_callback
        self.keep_state = keep_state
        if options is not None and settings:
            named = ", ".join(sorted(settings))
            msg = (
                "PatchToolCallsMiddleware takes options= or make_options' keywords, "
                f"not both ({named})"
            )
            raise TypeError(msg)
        self.options: Options = options if options is not None else make_options(**settings)

    def before_agent(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Repair ``state["messages"]``; ``runtime`` is not read (deepagents' signature).

        ``None`` with ``keep_state`` (the model calls are repaired instead), and for a state
        without messages, as deepagents' returns."""
        if self.keep_state:
            return None
        messages: Sequence[BaseMessage] | None = state.get("messages")
        return patch_update(messages, options=self.options, repair_callback=self.repair_callback)

    async def abefore_agent(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """`before_agent`: the repair is pure computation, nothing to await."""
        return self.before_agent(state, runtime)

    def _sent(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """``request``, with its messages repaired when ``keep_state`` asks for it."""
        if not self.keep_state or not request.messages:
            return request
        repair = fix_base_messages(
            request.messages, options=self.options, repair_callback=self.repair_callback
        )
        if not repair.changed:
            return request
        return request.override(messages=cast("list[AnyMessage]", repair.value))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """With ``keep_state``, send the model a repaired copy of the messages (the state keeps
        what it holds); otherwise the request goes as it is."""
        return handler(self._sent(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """`wrap_model_call`, for ``ainvoke``."""
        return await handler(self._sent(request))
