"""What toolpatch loads from a LangGraph checkpoint, and what it leaves as stored bytes.

A checkpoint blob can name any Python callable through LangGraph's msgpack extension types
(module, name and arguments), and the serializer a checkpointer gets by default imports the
module and calls it: reading an untrusted database would run its code. toolpatch therefore
opens every checkpointer with `StoredSerializer`, which constructs nothing: a value read from
the database stays msgpack, each extension an opaque ``ormsgpack.Ext`` that is written back as
the very same bytes. Only the ``messages`` channel, and the messages a pending write carries,
are loaded, by `load_messages` through LangGraph's own strict serializer
(``JsonPlusSerializer(allowed_msgpack_modules=None)``: its built-in list of safe types, the
LangChain message classes among them, and no pickle); a type outside that list is the thread's
error, named (docs/stores.md#what-toolpatch-loads).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import ormsgpack
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from .store_files import StoreError

#: LangGraph's msgpack extension code of a ``DeltaChannel``'s snapshot (``EXT_DELTA_SNAPSHOT``).
DELTA_SNAPSHOT = 7

#: LangGraph's msgpack extension code of a value rebuilt from its module, name and positional
#: arguments (``EXT_CONSTRUCTOR_POS_ARGS``), as a ``Send`` is stored.
CONSTRUCTOR_POS_ARGS = 1


class Unloadable(StoreError):
    """A value toolpatch must read (a message) is of a type it does not load."""


class StoredSerializer(JsonPlusSerializer):
    """A checkpoint serializer that loads values without constructing anything.

    ``msgpack`` values keep their extensions as ``ormsgpack.Ext`` (written back unchanged by
    LangGraph's encoder, which packs them as they are), ``json`` values stay plain JSON, and
    anything else (``pickle``, an encrypted serializer's types) is refused. Writing is
    LangGraph's strict serializer's.
    """

    def __init__(self) -> None:
        super().__init__(allowed_msgpack_modules=None, pickle_fallback=False)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, payload = data
        if kind == "msgpack":
            return ormsgpack.unpackb(payload, ext_hook=_kept, option=ormsgpack.OPT_NON_STR_KEYS)
        if kind == "json":
            return json.loads(payload)
        if kind in ("null", "bytes", "bytearray"):
            return super().loads_typed(data)
        msg = f"a value serialized as {kind!r}, which toolpatch does not load"
        raise Unloadable(msg)


#: LangGraph's strict serializer: its safe types only (``LANGGRAPH_STRICT_MSGPACK``'s list).
_STRICT = JsonPlusSerializer(allowed_msgpack_modules=None, pickle_fallback=False)
_blocked = threading.local()


def _note_blocked(event: SerdeEvent) -> None:
    """Remember a type the strict serializer refused, for the `load_messages` under way."""
    refused = getattr(_blocked, "names", None)
    if refused is not None and event["kind"] in ("msgpack_blocked", "msgpack_method_blocked"):
        name = ".".join(filter(None, (event["module"], event["name"], event.get("method"))))
        refused.append(name)


register_serde_event_listener(_note_blocked)


class _Quiet(logging.Filter):
    """Keeps LangGraph's own warning about a refused type out of the output: the thread's
    error names it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return False


def load_messages(value: Any) -> Any:
    """``value`` (as `StoredSerializer` read it) loaded by LangGraph's strict serializer.

    Raises:
        Unloadable: It holds a type outside LangGraph's safe types, or is not a message (a
            message's own fields are loaded as messages are; anything else is left alone).
    """
    refused: list[str] = []
    _blocked.names = refused
    logger = logging.getLogger("langgraph.checkpoint.serde.jsonplus")
    quiet = _Quiet()
    logger.addFilter(quiet)
    try:
        if _is_json(value):
            loaded = _STRICT.loads_typed(("json", json.dumps(value).encode()))
        else:
            packed = ormsgpack.packb(value, option=ormsgpack.OPT_NON_STR_KEYS)
            loaded = _STRICT.loads_typed(("msgpack", packed))
    except (ValueError, TypeError) as exc:  # torn msgpack, a value JSON cannot hold
        msg = f"its messages cannot be read: {exc}"
        raise Unloadable(msg) from None
    finally:
        logger.removeFilter(quiet)
        _blocked.names = None
    if refused:
        names = ", ".join(dict.fromkeys(refused))
        msg = f"its messages hold {names}, which toolpatch does not load (docs/stores.md)"
        raise Unloadable(msg)
    return loaded


def is_messages(value: Any) -> bool:
    """Whether a loaded value is a list of LangChain messages."""
    return isinstance(value, list) and all(isinstance(m, BaseMessage) for m in value)


class DeltaSnapshot:
    """A ``DeltaChannel``'s snapshot (LangGraph's beta channel), as stored: toolpatch reads
    and writes no delta channel (docs/stores.md#langgraph)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def is_delta_snapshot(value: Any) -> bool:
    """Whether a stored value is a ``DeltaChannel``'s snapshot."""
    return isinstance(value, DeltaSnapshot)


def stored_send(value: Any) -> tuple[Any, Any] | None:
    """The node and the argument of a stored ``Send`` (a value of LangGraph's
    ``__pregel_tasks``), read as plain data from its msgpack extension without constructing the
    ``Send`` (extensions inside it stay opaque ``ormsgpack.Ext`` values); ``None`` when
    ``value`` is no ``Send``. The node is whatever the data holds there (a node's name, when
    LangGraph wrote it): it only names, it is never looked up or called."""
    if not isinstance(value, ormsgpack.Ext):
        return None
    # an Ext shows neither its code nor its data: packed again, they are read back as such
    code, data = ormsgpack.unpackb(ormsgpack.packb(value), ext_hook=lambda *read: read)
    if code != CONSTRUCTOR_POS_ARGS:
        return None
    try:
        stored = ormsgpack.unpackb(data, ext_hook=_kept, option=ormsgpack.OPT_NON_STR_KEYS)
    except (ValueError, TypeError):  # torn msgpack
        return None
    if not isinstance(stored, list) or stored[:2] != ["langgraph.types", "Send"]:
        return None
    arguments = stored[2] if len(stored) > 2 else None
    if not isinstance(arguments, list) or len(arguments) < 2:
        return None
    return arguments[0], arguments[1]


def _kept(code: int, data: bytes) -> Any:
    """A msgpack extension as stored: an ``ormsgpack.Ext``, which LangGraph's encoder packs
    back into the same bytes (a delta snapshot is told apart, and never written)."""
    return DeltaSnapshot(data) if code == DELTA_SNAPSHOT else ormsgpack.Ext(code, data)


def _is_json(value: Any) -> bool:
    """Whether a stored value came from LangGraph's older ``json`` format (LangChain's
    ``{"lc": …}`` constructors), which the strict serializer revives from JSON text."""
    items = value if isinstance(value, list) else [value]
    return any(isinstance(item, dict) and "lc" in item for item in items)
