"""The provider rules (TP3xx, docs/rules.md) against the providers themselves: Mistral's request
validation (mistral-common's ``MistralRequestValidatorV3``, which Mistral's servers run) refuses
each sample the rule reports with the very error the finding quotes, and takes what ``fix``
writes; where no validator runs here, the finding quotes the provider's error as its
documentation or its users report it, word for word (the sources are in docs/rules.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mistral_common.exceptions import MistralCommonException
from mistral_common.protocol.instruct.request import ChatCompletionRequest
from mistral_common.protocol.instruct.validator import MistralRequestValidatorV3, ValidationMode

import patchcore
from tests.helpers import SAMPLES, run

#: A sample of TP302 (samples/providers/cases.toml).
MISTRAL = SAMPLES / "providers" / "mistral-ids-from-openai.json"
#: A sample of TP306 (samples/strict/openai-chat/cases.toml).
UNNAMED = SAMPLES / "strict" / "openai-chat" / "mistral-tool-message-without-id.json"


def mistral_refusal(document: bytes) -> str | None:
    """What Mistral's request validation says of a history: a request body's messages, or a
    list of messages (``None``: taken)."""
    value = json.loads(document)
    messages = value["messages"] if isinstance(value, dict) else value
    try:
        request = ChatCompletionRequest.model_validate({"messages": messages})
        MistralRequestValidatorV3(ValidationMode.test).validate_messages(request.messages)
    except MistralCommonException as exc:
        return str(exc)
    return None


def test_mistral_refuses_what_tp302_reports_with_its_words() -> None:
    data = MISTRAL.read_bytes()
    report = patchcore.check_document(data, options=patchcore.make_options(target="mistral"))
    (finding,) = report.findings
    assert finding.code == "TP302"
    assert mistral_refusal(data) == finding.provider_error


def test_mistral_refuses_what_tp306_reports_with_its_words() -> None:
    """The rule's own example (docs/rules.md), asked on: a tool message that names no call."""
    history = [*json.loads(patchcore.RULES["TP306"].example), {"role": "user", "content": "Ok"}]
    data = json.dumps(history).encode()
    options = patchcore.make_options(select=["TP306"], target="mistral")
    (finding,) = patchcore.check_document(data, options=options).findings
    assert mistral_refusal(data) == finding.provider_error


@pytest.mark.parametrize("sample", [MISTRAL, UNNAMED], ids=lambda p: p.name)
def test_mistral_takes_what_the_unsafe_fix_writes(sample: Path) -> None:
    """``fix --target mistral --select ALL --unsafe-fixes``: TP302's new ids, TP105's ids of
    Mistral's shape."""
    args = ["fix", "--target", "mistral", "--select", "ALL", "--unsafe-fixes", "-"]
    fixed = run(args, input=sample.read_bytes(), expect=0)
    assert mistral_refusal(fixed.stdout) is None


def test_without_a_target_mistral_ids_are_not_reported() -> None:
    """The rule is Mistral's: an OpenAI Chat list sent elsewhere takes such ids."""
    assert "TP302" not in run(["check", "--select", "ALL", str(MISTRAL)], expect=0).said


@pytest.mark.parametrize(
    ("sample", "target", "error"),
    [
        (
            "gemini-unsigned-call.json",
            "gemini",
            # the Gemini API's 400, as its users report it (docs/rules.md, TP301)
            "Function call is missing a thought_signature in functionCall parts. This is "
            "required for tools to work correctly, and missing thought_signature may lead to "
            "degraded model performance. Additional data, function call "
            "`default_api:search_flights`, position 1.",
        ),
        (
            "responses-cut-after-reasoning.json",
            "openai",
            "Item 'rs_68a1f0c9b7c3' of type 'reasoning' was provided without its required "
            "following item.",
        ),
        (
            "responses-store-false.json",
            "openai",
            "Item with id 'rs_68a1f0c2d4e8' not found. Items are not persisted when `store` is "
            "set to false. Try again with `store` set to true, or remove this item from your "
            "input.",
        ),
        (
            "anthropic-prefill.json",
            "anthropic",
            "This model does not support assistant message prefill. The conversation must end "
            "with a user message.",
        ),
        (
            "anthropic-empty-error-result.json",
            "anthropic",
            "messages.2.content.0.tool_result: content cannot be empty if `is_error` is true",
        ),
    ],
)
def test_the_finding_quotes_the_documented_error(sample: str, target: str, error: str) -> None:
    data = (SAMPLES / "providers" / sample).read_bytes()
    report = patchcore.check_document(
        data, filename=sample, options=patchcore.make_options(target=target)
    )
    assert report.findings[0].provider_error == error
