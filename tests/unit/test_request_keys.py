"""A request's settings read in their shape (`patchcore.engine.request_keys`) hold nothing the
full path reads: whatever decodes, the engine's own locator finds no list and no call-like
object in. Without it, every request Claude Code sends (tools, system blocks, thinking,
context management) took the full path in the quick lane's stead (docs/proxy.md#cost).
"""

from __future__ import annotations

import inspect
from typing import Any
from unittest import mock

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.proxy import claude_code_body
from patchcore.chat_names import ID_KEYS, LIST_KEYS, OBJECT_KEYS
from patchcore.engine import request_keys
from patchcore.engine.locate import HISTORY_KEYS, MEMBERS, find_message_lists
from patchcore.engine.quick import read
from patchcore.engine.request_keys import could_hold_history, read_in_shape
from patchcore.layouts.base import dialects_for
from patchcore.layouts.records import process_record
from patchcore.options import make_options
from patchcore.raw.codec import Record
from tests.request_settings import SETTING

PROMPT = [{"role": "user", "content": "hi"}]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(setting=SETTING, spaced=st.booleans())
def test_what_reads_in_its_shape_holds_nothing_the_locator_finds(
    setting: tuple[str, Any], spaced: bool
) -> None:
    key, value = setting
    raw = orjson.dumps(value) if not spaced else orjson.dumps(value, option=orjson.OPT_INDENT_2)
    if not read_in_shape(key, raw):
        return
    body = {"model": "m", "messages": PROMPT, key: value}
    found = find_message_lists(body, dialects=dialects_for(make_options()))
    assert [(listed.pointer, listed.unread) for listed in found] == [(("messages",), ())]


def _field_names(struct: type[msgspec.Struct]) -> set[str]:
    return set(struct.__struct_encode_fields__)


def test_no_shape_has_a_key_the_locator_or_the_unread_objects_look_at() -> None:
    """The proof's premises, on the shapes themselves: no field is a key that names, holds or
    is a call (`patchcore.engine.unread`), a member the locator looks through for a message,
    or a key under which an empty list is a history."""
    shapes = [
        cls
        for _, cls in inspect.getmembers(request_keys, inspect.isclass)
        if issubclass(cls, msgspec.Struct) and cls.__module__ == request_keys.__name__
    ]
    assert len(shapes) > 10
    looked_at = ID_KEYS | LIST_KEYS | OBJECT_KEYS | set(MEMBERS) | HISTORY_KEYS | {"role"}
    for shape in shapes:
        assert not _field_names(shape) & looked_at, shape


def test_a_claude_code_request_is_proven_clean_without_the_full_path() -> None:
    raw = claude_code_body(100)
    lane = read(raw)
    assert lane is not None and lane.clean and lane.dialect == "anthropic"
    with mock.patch("patchcore.engine.locate.find_message_lists") as full_path:
        result = process_record(
            Record(raw, 1), layout="json", options=make_options(), fix=True, jsonl=False
        )
    full_path.assert_not_called()
    assert result.findings == ()


def test_a_first_request_with_tools_and_no_call_yet_is_proven_clean() -> None:
    """A session's first request holds no call; the names in its tools (``"tools"``,
    ``tool_choice``) are in settings read in their shape, so they send it nowhere else."""
    raw = orjson.loads(claude_code_body(1))
    raw["tool_choice"] = {"type": "auto"}
    lane = read(orjson.dumps(raw))
    assert lane is not None and lane.clean and lane.messages == 1


def test_a_call_named_in_a_setting_not_read_in_its_shape_takes_the_full_path() -> None:
    body = {"messages": PROMPT, "tools": [{"type": "tool_search_tool_regex_20251119"}]}
    assert read(orjson.dumps(body)) is None
    body = {"messages": PROMPT, "output_config": {"toolCall": {"name": "f"}}}
    assert read(orjson.dumps(body)) is None


def test_values_with_no_key_a_message_needs_pass_without_a_shape() -> None:
    assert not could_hold_history("metadata", msgspec.Raw(b'{"user_id": "u"}'))
    assert not could_hold_history("tools", msgspec.Raw(b"7"))
    assert could_hold_history("metadata", msgspec.Raw(b'{"user_\\u0069d": "u"}'))
    assert could_hold_history("other", msgspec.Raw(b'[{"type": "text", "text": "x"}]'))
    assert not could_hold_history("system", msgspec.Raw(b'[{"type": "text", "text": "x"}]'))
