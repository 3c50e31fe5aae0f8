"""``--output-format github``: GitHub Actions workflow commands, one annotation per finding.

``::error title=toolpatch (TP001),file=F,line=L,col=C::F:L:C: TP001 [*] message (fix: ORIGIN)``
(ruff's layout, with the text report's fix mark: ``[*]`` ``toolpatch fix`` repairs it, ``[~]``
only with ``--unsafe-fixes``, and its origin: whether the result the fix writes is recovered or
synthesized; a fine-tuning example's training target, left as it is, is a ``::notice``); the
provider error follows on a second line of the annotation. Columns
count characters, as the text report's do. The annotations are the whole report: no summary
line follows them on stderr (ruff prints none either). A part of an input that was not
checked is a ``::warning`` in the words of the text report (``F:L: /pointer: warning: why``);
an input that cannot be read is an ``::error``. Escaping follows the Actions toolkit: in the
message ``%``, CR and LF are percent-encoded; in property values ``:`` and ``,`` are too, since
they separate the properties. Before that, what comes from the data (file names, tool names,
call ids) has its control characters shown as escapes, as in the text report (`cli.console`):
ESC, BEL and C1 controls would reach the log raw, and a line feed would be one of the message's
own lines.
"""

from __future__ import annotations

from patchcore import Finding, is_training_target

from ..console import visible
from ..input_errors import InputError
from ..input_run import Outcome
from ..text_report import MARKS, fixability, origin_note
from .base import InputWarning, Reporter


def escape_data(text: str) -> str:
    """A workflow command's message, escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value, escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _shown_property(value: str) -> str:
    """A property value with its controls shown as escapes (`cli.console`), but for CR and
    LF, which the property's own escaping percent-encodes: GitHub decodes those back, so the
    annotation names the file by its real name."""
    return "\n".join("\r".join(map(visible, part.split("\r"))) for part in value.split("\n"))


def annotation(
    command: str, title: str, file: str, line: int | None, column: int | None, message: str
) -> str:
    """One ``::error`` or ``::warning`` command line (``line`` and ``col`` only where known).
    The property values (a file name) have their controls shown as escapes; ``message`` is
    already shown as people see it (`cli.console`: what comes from the data
    holds no control character; its own line breaks are the annotation's)."""
    properties = [("title", title), ("file", file)]
    if line is not None:
        properties.append(("line", str(line)))
        if column is not None:
            properties.append(("col", str(column)))
    spec = ",".join(f"{key}={escape_property(_shown_property(value))}" for key, value in properties)
    return f"::{command} {spec}::{escape_data(message)}\n"


def finding_annotation(file: str, finding: Finding) -> str:
    """The annotation of one finding, in the words of the text report's finding line (a
    training target, left as it is, is a ``notice``)."""
    line, column = finding.line, finding.column or 1
    mark = MARKS[fixability(finding)]
    where = file if line is None else f"{file}:{line}:{column}"  # a store's thread: no lines
    message = visible(f"{where}: {finding.code}{mark} {finding.message}{origin_note(finding)}")
    if finding.provider_error:
        message += f"\nprovider error: {visible(finding.provider_error)}"
    command = "notice" if is_training_target(finding) else "error"
    return annotation(command, f"toolpatch ({finding.code})", file, line, column, message)


def error_annotation(error: InputError) -> str:
    """The annotation of an input that could not be evaluated, in the words of the text report
    (``F:L:C: error: reason (at /pointer)``)."""
    message = visible(f"{error.place}: error: {error.described}")
    return annotation("error", "toolpatch (error)", error.file, error.line, error.column, message)


def warning_annotation(warning: InputWarning) -> str:
    """The annotation of a part of an input that was not checked."""
    where = warning.file if warning.line is None else f"{warning.file}:{warning.line}"
    if warning.column is not None:  # a line kept as it is: located as an error is
        message = f"{where}:{warning.column}: warning: {warning.message}"
    elif warning.line is None and not warning.pointer:  # about the whole file
        message = f"{where}: warning: {warning.message}"
    else:
        message = f"{where}: {warning.pointer or '/'}: warning: {warning.message}"
    line, column = warning.line, warning.column
    return annotation(
        "warning", "toolpatch (warning)", warning.file, line, column, visible(message)
    )


class GithubReporter(Reporter):
    """Annotations written as each input is done."""

    def add(self, outcome: Outcome) -> None:
        if outcome.error is not None:
            self.write(error_annotation(outcome.error))
        elif outcome.result is not None:
            name = outcome.source.name
            warnings = [warning_annotation(w) for w in InputWarning.all_of(outcome)]
            findings = [finding_annotation(name, f) for f in outcome.result.findings]
            self.write("".join(warnings + findings))
