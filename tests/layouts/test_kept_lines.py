"""``keep_invalid_lines``: a corpus with a torn line (a crash while a training set was written)
is checked and repaired line by line, and the lines that are not JSON are kept byte for byte and
reported (`patchcore.Result.invalid_lines`), whether the corpus is read whole or streamed in
batches. Without the option such a corpus fails as a whole, as it always did."""

from __future__ import annotations

import pytest

import patchcore
from patchcore import Stream
from patchcore.pipeline import run
from tests.builders import NULS, TORN, conversation, streamed, torn_corpus
from tests.conftest import SAMPLES

KEEP = patchcore.make_options(keep_invalid_lines=True)


def test_without_the_option_the_first_torn_line_fails_the_file() -> None:
    with pytest.raises(patchcore.DecodeError) as raised:
        run(torn_corpus(), filename="train.jsonl", options=patchcore.make_options(), fix=True)
    assert raised.value.line == 4  # the NUL bytes are refused up front, as before
    data = b"\n".join([conversation(1), TORN, conversation(3)])
    with pytest.raises(patchcore.DecodeError) as raised:
        run(data, filename="train.jsonl", options=patchcore.make_options(), fix=True)
    assert raised.value.line == 2


def test_torn_lines_are_kept_byte_for_byte_and_the_others_repaired() -> None:
    data = torn_corpus()
    result = run(data, filename="train.jsonl", options=KEEP, fix=True)
    assert [(e.line, e.column) for e in result.invalid_lines] == [(2, 42), (4, 1)]
    assert result.invalid_lines[0].reason.startswith("invalid JSON")
    assert result.invalid_lines[1].reason.startswith("NUL byte")
    assert [f.line for f in result.fixed] == [1, 3, 5]
    assert result.output is not None
    lines = result.output.split(b"\n")
    assert lines[1] == TORN and lines[3] == NULS
    repaired = patchcore.fix_document(
        b"\n".join([conversation(1), conversation(3), conversation(5), b""]),
        filename="x.jsonl",
    ).output
    assert repaired is not None
    assert [lines[0], lines[2], lines[4]] == repaired.split(b"\n")[:3]


def test_a_torn_first_line_does_not_decide_the_layout() -> None:
    data = b"\n".join([TORN, conversation(3), conversation(5)])
    for name in ("train.jsonl", None):  # framing told by the name, or by the content
        result = run(data, filename=name, options=KEEP, fix=False)
        assert result.layout == "jsonl"
        assert [e.line for e in result.invalid_lines] == [1]
        assert [f.line for f in result.findings] == [2, 3]
    nul_first = b"\n".join([NULS, conversation(3), conversation(5)])
    assert [
        e.line for e in run(nul_first, filename=None, options=KEEP, fix=False).invalid_lines
    ] == [1]


def test_a_document_with_nul_bytes_is_still_refused() -> None:
    data = b'{"messages": [\n{"role": "user", "content": "hi"}\x00]}'
    with pytest.raises(patchcore.DecodeError, match="NUL byte"):
        run(data, filename="doc.json", options=KEEP, fix=False)


def test_a_file_with_no_json_line_at_all_fails_with_its_first_error() -> None:
    with pytest.raises(patchcore.DecodeError) as raised:
        run(b"\n".join([TORN, NULS]), filename="train.jsonl", options=KEEP, fix=False)
    assert raised.value.line == 1


@pytest.mark.parametrize("file", [False, True])
@pytest.mark.parametrize("batch", [150, 400])
def test_a_streamed_corpus_keeps_its_torn_lines_on_the_input_lines(batch: int, file: bool) -> None:
    data = torn_corpus() * 12 + TORN
    whole = run(data, filename="train.jsonl", options=KEEP, fix=True)
    stream = streamed(data, KEEP, fix=True, chunk=97, batch=batch, file=file)
    assert stream.streamed
    assert stream.output == whole.output  # type: ignore[attr-defined]
    assert [(e.line, e.column, e.reason) for e in stream.result.invalid_lines] == [
        (e.line, e.column, e.reason) for e in whole.invalid_lines
    ]
    assert len(whole.invalid_lines) == 25
    assert stream.result.findings == whole.findings


def test_a_stream_whose_first_line_is_torn_is_still_streamed() -> None:
    data = TORN + b"\n" + torn_corpus() * 12
    stream = Stream(iter([data]), filename=None, options=KEEP, fix=True, whole_limit=300)
    output = b"".join(bytes(piece) for piece in stream)  # type: ignore[arg-type]
    assert stream.streamed
    assert output == run(data, filename=None, options=KEEP, fix=True).output
    assert stream.result.invalid_lines[0].line == 1


def test_message_lines_still_fail_on_a_torn_line() -> None:
    """One message per line: a conversation without one of its messages cannot be checked."""
    sample = SAMPLES / "openai-chat/messages.jsonl"
    assert run(sample.read_bytes(), filename=sample.name, options=KEEP, fix=False).layout == (
        "jsonl-messages"
    )
    lines = sample.read_bytes().split(b"\n")
    lines[1] = lines[1][:7]
    with pytest.raises(patchcore.DecodeError):
        run(b"\n".join(lines), filename=sample.name, options=KEEP, fix=False)


def test_a_session_keeps_a_line_of_nul_bytes_as_a_warning() -> None:
    """With or without ``keep_invalid_lines``: a session log is read past the NUL bytes a
    crash left (docs/cli.md#torn-lines)."""
    data = (SAMPLES / "claude-code/interrupt.jsonl").read_bytes() + b"\x00" * 40 + b"\n"
    for options in (patchcore.make_options(), KEEP):
        result = run(data, filename="s.jsonl", options=options, fix=True)
        assert result.layout == "claude-code-session"
        assert not result.invalid_lines
        note = "40 NUL bytes and nothing else, as a crash leaves a log; kept as it is"
        assert any(c.warning and c.note == note for c in result.conversations)
        assert result.output is not None and result.output.endswith(b"\x00" * 40 + b"\n")
