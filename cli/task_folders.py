"""The dialect an input's place implies: a Cline task folder.

Cline (and Roo Code) keep each task in a folder of its own, ``<global storage>/tasks/<id>/``
(``ensureTaskDirectoryExists`` in Cline's ``src/core/storage/disk.ts``), which holds the model
conversation ``api_conversation_history.json`` beside ``ui_messages.json`` (what the chat
panel shows), and, in later releases, ``context_history.json`` and ``task_metadata.json``
(``GlobalFileNames``). Its messages read as Anthropic's, but Cline answers many calls with text
and pairs them as it sends them (docs/formats.md#cline-and-roo-code-task-histories), which no
content tells. So the folder tells: a JSON file named as Cline's history, or any other JSON
file (a renamed copy, a ``.fixed`` one) in a folder that holds one of Cline's two task files,
is read as the ``cline`` dialect; Cline's other task files hold no conversation and keep their
reading.
"""

from __future__ import annotations

from pathlib import Path

#: The file Cline keeps a task's model conversation in.
HISTORY = "api_conversation_history.json"
#: Files that make a folder a Cline task folder: the history, and the chat panel's messages
#: that Cline writes beside it in every task.
TASK_FILES = (HISTORY, "ui_messages.json")
#: Cline's task files that hold no model conversation.
OTHER_TASK_FILES = frozenset({"ui_messages.json", "context_history.json", "task_metadata.json"})


def dialect_of_place(name: str) -> str | None:
    """The dialect the place of the input ``name`` (a path as given, or the name given to
    standard input) implies, or ``None``: ``cline`` for a JSON file in a Cline task folder.
    Looks at the file's folder (a file name alone says it only for Cline's own name)."""
    path = Path(name)
    if path.name == HISTORY:
        return "cline"
    if path.suffix != ".json" or path.name in OTHER_TASK_FILES:
        return None
    try:
        in_task = any((path.parent / task_file).is_file() for task_file in TASK_FILES)
    except OSError:
        return None
    return "cline" if in_task else None
