"""A JSON document written as a JSON string: the document inside it is read and repaired.

Older LlamaIndex releases persisted a ``SimpleChatStore`` with ``json.dump(self.json(), f)``:
the file is one JSON string whose text is the store's JSON, and ``from_persist_path`` still
reads it (``if isinstance(data, str): cls.model_validate_json(data)``). The inner document is
checked as any JSON document (`patchcore.layouts.records.JSON_DOCUMENT`) and its repair is
written back as a string again, escaped as the file escapes it (``json.dump``'s default, ASCII
escapes, or UTF-8 as it is): a file whose string no such encoding gives back is reported, not
rewritten, since its other bytes could not be kept (docs/formats.md#json-document-in-a-string).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from patchcore.layouts.base import Head, Layout
from patchcore.layouts.records import JSON_DOCUMENT
from patchcore.raw.codec import Decoded, Framing, Record

if TYPE_CHECKING:
    from patchcore.options import Options
    from patchcore.result import Result

#: The first characters of a string that may hold a JSON document.
_OPENINGS = ("{", "[")


def _encoding(literal: str, text: str) -> bool | None:
    """The ``ensure_ascii`` that writes ``text`` as ``literal``, or ``None`` when neither does."""
    import json  # here, not at start-up: few inputs are a document in a string

    for ascii_only in (True, False):
        if json.dumps(text, ensure_ascii=ascii_only) == literal:
            return ascii_only
    return None


class EncodedDocument(Layout):
    """A JSON document that is a string holding a JSON document (layout ``json-string``)."""

    name = "json-string"

    def recognises(self, head: Head, options: Options) -> bool:
        # Asked of a JSON document that starts with a string alone (`patchcore.pipeline.layout_of`
        # decides that from the first byte: a document is not parsed twice).
        value = head.first_record
        return isinstance(value, str) and value.lstrip().startswith(_OPENINGS)

    def process(self, decoded: Decoded, *, options: Options, fix: bool) -> Result:
        import json  # here, not at start-up: few inputs are a document in a string

        body = decoded.body
        start = len(body) - len(body.lstrip())
        end = len(body.rstrip())
        literal = body[start:end].decode()
        text: str = json.loads(literal)
        inner = text.encode()
        result = JSON_DOCUMENT.process(
            Decoded(b"", Framing.JSON, [inner], [Record(inner, 1, 0)]), options=options, fix=fix
        )
        result = replace(result, layout=self.name, patches=())
        if result.output is None:
            return result
        ascii_only = _encoding(literal, text)
        if ascii_only is None:  # the file's escapes cannot be written again: report, keep
            return replace(result, fixed=(), remaining=result.findings, output=None)
        new = json.dumps(result.output.decode(), ensure_ascii=ascii_only).encode()
        output = decoded.bom + body[:start] + new + body[end:]
        return replace(result, patches=((start, end, new),), output=output)


ENCODED_DOCUMENT = EncodedDocument()
