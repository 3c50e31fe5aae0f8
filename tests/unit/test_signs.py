"""`patchcore.raw.signs`: whether bytes that are not JSON still look like a message history.

The rule the CLI passes over unreadable files by: a history names, as JSON strings, the keys and
block types of some dialect; the JSON-with-comments files of other tools name none of them.
"""

from __future__ import annotations

import pytest

from patchcore.raw.signs import HISTORY_SIGNS, shows_history
from tests.conftest import ROOT

JSONC = ROOT / "tests" / "data" / "jsonc"


@pytest.mark.parametrize("name", ["tsconfig.json", ".vscode/extensions.json"])
def test_configuration_files_show_no_history(name: str) -> None:
    assert not shows_history([(JSONC / name).read_bytes()])


@pytest.mark.parametrize(
    "text",
    [
        b'{"messages": [',
        b'[{"role": "user", "content": "hi"},',
        b'{"type": "tool_use", "id": "toolu_1"',
        b'{"parts": [{"functionCall": {"name": "f"',
        b'{"toolUse": {"toolUseId": "t"',
        b'[{"parts": [{"part_kind": "tool-call"',
    ],
)
def test_torn_histories_show_one(text: bytes) -> None:
    assert shows_history([text])


def test_a_bare_word_is_no_sign() -> None:
    assert not shows_history([b"// the role of this file: messages for the build\n{"])


def test_a_sign_split_between_blocks_is_found() -> None:
    for sign in HISTORY_SIGNS:
        for cut in range(1, len(sign)):
            blocks = [b"{\n  // x\n  " + sign[:cut], sign[cut:] + b": 1,\n}"]
            assert shows_history(blocks), (sign, cut)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16", "utf-32"])
def test_text_in_wider_encodings_is_searched(encoding: str) -> None:
    assert shows_history(['[{"role": "user"'.encode(encoding)])
    assert not shows_history(['{"compilerOptions": {}}'.encode(encoding)])
