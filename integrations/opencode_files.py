"""Check and repair the sessions opencode kept as files, before its database.

Earlier opencode releases keep their data in a folder, ``~/.local/share/opencode/storage/``
(``Storage``, ``packages/opencode/src/storage/storage.ts``): a key is a path under it plus
``.json``, written whole as ``JSON.stringify(value, null, 2)``. A session is
``session/<projectID>/<sessionID>.json``, its messages ``message/<sessionID>/<messageID>.json``
and each message's parts ``part/<messageID>/<partID>.json`` (``Session.updateMessage``,
``updatePart``), each file the whole JSON with its ids. opencode reads a session's messages
in the order of their ids (``Storage.list`` sorts its keys; ids count up) and a message's
parts sorted by id (``MessageV2.parts``). So the session is the same history as in its
database: read as ``opencode export`` gives it and checked with the opencode dialect
(`toolpatch.integrations.opencode_store`, whose reading of rows this module feeds with
files), and a repair settles a tool part in its own state. Only the files of the parts it
settles are written, each atomically and in opencode's own form, after making sure the file
still holds what was read (else nothing more is written: the agent is running).

A folder is such a store by what it holds (`is_storage`): its ``session``, ``message`` and
``part`` folders. It is named on the command line as the folder, or as
``opencode+files:///path/to/storage`` (docs/stores.md#opencode-storage-files).

Whether the agent may still be writing a session is judged by the store's own clock: the
newest modification time of the session's files (opencode writes a part's file each time the
part changes, a running tool's included).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from patchcore.raw.codec import MAX_RECORD_BYTES

from .opencode_store import Rows, session_thread
from .store_files import StoreError, chosen_ids, over_limit
from .stores import StoreThread

#: The URL prefix of opencode's storage folder.
FILES = "opencode+files://"
#: The layout its sessions are reported as.
LAYOUT = "opencode-files"
#: The folders that make a folder opencode's storage.
FOLDERS = ("session", "message", "part")


def is_storage(folder: Path) -> bool:
    """Whether ``folder`` is opencode's storage: it holds the ``session``, ``message`` and
    ``part`` folders, and a session file ``session/<project>/<id>.json`` at least."""
    try:
        if not all((folder / name).is_dir() for name in FOLDERS):
            return False
        return any(path.is_file() for path in (folder / "session").glob("*/*.json"))
    except OSError:
        return False


def storage_url(folder: str) -> str:
    """The store URL that names the storage folder ``folder``."""
    return FILES + str(Path(folder).resolve())


class Storage:
    """opencode's storage folder, opened from its URL.

    Raises:
        StoreError: Not such a URL, or no such folder.
    """

    def __init__(self, url: str, *, max_record: int = MAX_RECORD_BYTES) -> None:
        if not url.startswith(FILES):
            msg = f"not an opencode storage URL ({FILES}/path/to/storage)"
            raise StoreError(msg)
        self.root = Path(url[len(FILES) :])
        if not is_storage(self.root):
            msg = f"{self.root}: not opencode's storage (no session, message and part folders)"
            raise StoreError(msg)
        self.max_record = max_record
        found = sorted(self.root.glob("session/*/*.json"), key=lambda p: p.stem)
        self._ids = [path.stem for path in found]

    def session_ids(self, only: Sequence[str] = ()) -> list[str]:
        """Its sessions' ids, in the order of their ids (only ``only`` when given).

        Raises:
            StoreError: A session id the storage does not hold.
        """
        return chosen_ids(self._ids, only)

    def rows(self, session_id: str) -> Rows:
        """The session's messages and parts as stored (ids and JSON text, in opencode's
        order), and the newest modification time of their files.

        Raises:
            StoreError: They take more than the record-size limit, or cannot be read as
                UTF-8 text.
        """
        listed = sorted((self.root / "message" / session_id).glob("*.json"))
        messages = [(path.stem, path) for path in listed]
        parts = [
            (mid, part.stem, part)
            for mid, _ in messages
            for part in sorted((self.root / "part" / mid).glob("*.json"), key=lambda p: p.stem)
        ]
        try:
            every = [path for _, path in messages] + [path for _, _, path in parts]
            size = sum(path.stat().st_size for path in every)
            too_much = over_limit("its files", size, self.max_record)
            if too_much is not None:
                raise StoreError(too_much)
            return Rows(
                [(mid, path.read_text(encoding="utf-8")) for mid, path in messages],
                [(mid, pid, path.read_text(encoding="utf-8")) for mid, pid, path in parts],
                max((path.stat().st_mtime for path in every), default=None),
            )
        except (OSError, UnicodeDecodeError) as exc:
            msg = f"{session_id}: cannot read its files: {exc}"
            raise StoreError(msg) from None

    def write_parts(self, read: Rows, parts: dict[str, str]) -> None:
        """Write the parts ``parts`` names (part id to its new JSON), each as opencode writes a
        file (``JSON.stringify(value, null, 2)``), atomically, once the file is seen to hold
        what was read (``read``).

        Raises:
            StoreError: A file changed since it was read (the agent is running), or cannot
                be written; the parts before it are written, none after.
        """
        from toolpatch.integrations.file_io import AtomicFile

        stored = {pid: (mid, data) for mid, pid, data in read.parts}
        for pid, text in parts.items():
            mid, data = stored[pid]
            path = self.root / "part" / mid / f"{pid}.json"
            try:
                if path.read_bytes() != data.encode("utf-8"):
                    msg = f"{path} changed while toolpatch worked: not written, run it again"
                    raise StoreError(msg)
                with AtomicFile(path, durable=True) as new:
                    new.write(_as_opencode_writes(json.loads(text)))
                    new.commit()
            except OSError as exc:
                msg = f"{path}: cannot write it: {exc}"
                raise StoreError(msg) from None


def _as_opencode_writes(value: Any) -> bytes:
    """``value`` as ``JSON.stringify(value, null, 2)`` writes it: two-space indent, not
    ASCII-escaped, no newline after."""
    return json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8")


@contextmanager
def store_threads(
    url: str, *, write: bool, only: Sequence[str] = (), max_record: int = MAX_RECORD_BYTES
) -> Iterator[Iterator[StoreThread]]:
    """The sessions of opencode's storage ``url`` as `toolpatch.integrations.stores` takes
    them: messages of the opencode dialect, whose repair writes the settled parts' files."""
    storage = Storage(url, max_record=max_record)
    ids = storage.session_ids(only)
    yield (_store_thread(storage, sid) for sid in ids)


def _store_thread(storage: Storage, session_id: str) -> StoreThread:
    """The session ``session_id`` as the stores' interface takes it."""
    return session_thread(session_id, LAYOUT, lambda: storage.rows(session_id), storage.write_parts)
