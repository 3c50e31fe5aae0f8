"""opencode's storage files, a folder read as a store (docs/stores.md#opencode-storage-files):
told by what it holds, its sessions judged live by their files' times, and a part's file
written only when it still holds what was read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import run
from tests.sample_cases import SAMPLES
from toolpatch.integrations.opencode_files import Storage, is_storage, storage_url
from toolpatch.integrations.store_files import StoreError

SAMPLE = SAMPLES / "opencode-files/killed-mid-tool"
PART = "part/msg_a01f3c9e3001Hq8Rk2Vn5Ws0Jc/prt_a01f3c9e4003Ef3.json"
SESSION = "ses_5f1c0a2b7ffeq3Zk9VhXr2mT4d"


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    folder = tmp_path / "storage"
    shutil.copytree(SAMPLE, folder)
    return folder


def test_a_folder_is_storage_by_what_it_holds(storage: Path, tmp_path: Path) -> None:
    assert is_storage(storage)
    (tmp_path / "other" / "session").mkdir(parents=True)
    assert not is_storage(tmp_path / "other")
    result = run(["check", str(storage)], expect=1)
    assert f"opencode+files://{storage}#{SESSION}: TP002" in result.said


def test_a_session_written_just_now_is_live_and_left_as_it_is(storage: Path) -> None:
    before = (storage / PART).read_bytes()
    os.utime(storage / PART)  # the part's file written just now, as a running tool's is
    result = run(["fix", str(storage)], expect=0)  # a store's live thread is a warning
    assert "the session may still be running" in result.stderr
    assert (storage / PART).read_bytes() == before


def test_a_part_file_changed_meanwhile_is_not_written(storage: Path) -> None:
    store = Storage(storage_url(str(storage)))
    rows = store.rows(SESSION)
    (storage / PART).write_text('{"changed": true}')
    with pytest.raises(StoreError, match="changed while toolpatch worked"):
        store.write_parts(rows, {"prt_a01f3c9e4003Ef3": '{"state": {}}'})
    assert (storage / PART).read_text() == '{"changed": true}'
