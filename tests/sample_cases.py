"""The shipped samples as data: what each file of ``samples/`` must give, read from the
``cases.toml`` beside it.

A sample is an input file ``x.json`` (or ``x.jsonl``) with, when ``fix`` changes it, its expected
repair ``x.fixed.json`` beside it, and for the provider-strict samples ``x.unsafe.json``, what
``fix --unsafe-fixes`` writes. ``x.drop.json``, where present, is what ``fix --repair drop
--unsafe-fixes`` writes (docs/pairing.md#repair-policies): the unanswered calls removed instead
of answered. The files are the source of truth: the expected repairs were
stated by hand, never computed by toolpatch (the LangChain ones are serialised by langchain-core
itself: ``tests/langchain_samples.py`` writes them). What the files cannot say lives in the
``cases.toml`` of their folder, one table per input file::

    ["seed-dangling.json"]
    about = "messages_to_dict list; the user moved on ..."   # one line for samples/README.md
    findings = ["TP001 123"]                                 # what `check` reports, in order

Every key but ``about`` may be left out. A finding is ``"CODE call_id"``, or ``"CODE"`` for a
finding without a call id (a Gemini call paired by name, a shape rule such as TP107). The keys:

``findings``
    ``(code, call_id)`` that ``check`` must report, in order.
``unfixed``
    The findings that have no fix (no truthful result exists, e.g. an Anthropic server tool or
    an OpenAI ``computer_call``): ``fix`` leaves them and exits 1.
``targets``
    The findings that are a call a fine-tuning example ends on, its training target
    (docs/cli.md#fine-tuning-data): reported without a fix and left by ``fix``, which exits 0
    when nothing else is left.
``warning``
    Text that ``check`` must print as a ``warning:`` on stderr (a list that mixes dialects is
    reported, not repaired); absent: no warning at all.
``select``
    Rule selectors passed as ``--select`` to every ``check`` and ``fix`` of the sample (``["ALL"]``
    for the provider-strict TP1xx rules); absent: the defaults. ``x.fixed.json`` is then what
    ``fix`` with these selectors writes: safe fixes only.
``fixability``
    For each finding, in order, what ``check`` says ``fix`` can do about it: ``"safe"``,
    ``"unsafe"`` (only ``fix --unsafe-fixes``: it deletes or moves content) or ``"none"``.
    Absent: ``"none"`` for the ``unfixed`` findings and the ``targets``, ``"safe"`` for the
    others.
``dialect``
    The dialect the CLI reads the file in although content would say another, because of the
    file's name (``api_conversation_history.json``: ``cline``, `cli.settings`): the CLI
    is run without ``--dialect``, and patchcore is given it. Absent: detected.
``target``
    The provider the sample's history is sent to, passed as ``--target`` to every ``check`` and
    ``fix`` of it: its provider rules (TP3xx) apply (docs/cli.md#target). Absent: none.
``cured``
    Findings without a fix of their own that the fixes of the others make go away (an id reused
    while its earlier call was open, once that call gets its synthetic result).
``recovered``
    The findings whose fix writes a result recovered from the data (the call's own result, or
    what the log recorded of it: docs/pairing.md#evidence-first), not a made-up one; every
    other fix that answers a call says it is synthesized.

A sample may be a folder (an input that is a folder: an OpenHands event store, opencode's
storage files): its table is
named after the folder, and its expected repair is the folder ``x.fixed/`` beside it, holding
every file the folder holds once ``fix`` has run; `folder_cases` lists them, and
``tests/cli/test_folder_samples.py`` runs them (the other tests read files).

``python -m tests.sample_cases`` rewrites ``samples/README.md`` (its table) from the data;
``tests/cli/test_samples.py`` fails when the README, the data and the files disagree.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import patchcore

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
#: The data file of each folder of samples.
DATA_FILE = "cases.toml"
#: The command that rewrites samples/README.md from the data files.
REGENERATE = "python -m tests.sample_cases"

Finding = tuple[str, "str | None"]


@dataclass(frozen=True)
class Case:
    """One sample input file and what ``check`` and ``fix`` must give on it.

    Attributes:
        path: Path under ``samples/``.
        about: One line for samples/README.md.
        findings, unfixed, targets, warning, select, fixability, cured, dialect, recovered,
            target: As
            the module docstring says.
    """

    path: str
    about: str
    findings: Sequence[Finding] = ()
    unfixed: Sequence[Finding] = ()
    targets: Sequence[Finding] = ()
    warning: str | None = None
    select: Sequence[str] = ()
    fixability: Sequence[str] = ()
    cured: Sequence[Finding] = field(default_factory=tuple)
    dialect: str | None = None
    recovered: Sequence[Finding] = ()
    target: str | None = None

    @property
    def folder(self) -> bool:
        """Whether the input is a folder (an OpenHands event store)."""
        return (SAMPLES / self.path).is_dir()

    @property
    def expected(self) -> Path | None:
        """The expected repair ``x.fixed.json`` (a folder's: ``x.fixed/``), or ``None`` when
        ``fix`` must change nothing."""
        path = SAMPLES / fixed_path(self.path)
        return path if path.is_file() or (self.folder and path.is_dir()) else None

    @property
    def unsafe(self) -> Path | None:
        """What ``fix --unsafe-fixes`` writes, ``x.unsafe.json``; ``None``: the same as
        without ``--unsafe-fixes``."""
        path = SAMPLES / unsafe_path(self.path)
        return path if path.is_file() else None

    @property
    def drop(self) -> Path | None:
        """What ``fix --repair drop --unsafe-fixes`` writes, ``x.drop.json``; ``None``: no
        sample of that policy for this input."""
        path = SAMPLES / drop_path(self.path)
        return path if path.is_file() else None

    @property
    def fixes(self) -> list[str]:
        """``safe`` / ``unsafe`` / ``none`` for each finding, in order."""
        if self.fixability:
            return list(self.fixability)
        left = {*self.unfixed, *self.targets}
        return ["none" if f in left else "safe" for f in self.findings]

    @property
    def recovered_by_fix(self) -> list[Finding]:
        """The recovered findings that plain ``fix`` (safe fixes only) repairs: what
        ``x.fixed.json`` holds that toolpatch did not make up."""
        fixes = dict(zip(self.findings, self.fixes, strict=True))
        return [f for f in self.recovered if fixes[f] == "safe"]

    @property
    def selectors(self) -> list[str]:
        """The case's selectors as command-line arguments."""
        targeted = ["--target", self.target] if self.target is not None else []
        return [arg for selector in self.select for arg in ("--select", selector)] + targeted

    def options(self, **more: Any) -> patchcore.Options:
        """The options of the case's ``check`` and ``fix`` (its selectors, dialect and target),
        with ``more`` (`patchcore.make_options`' other keywords)."""
        return patchcore.make_options(
            select=self.select or None, dialect=self.dialect, target=self.target, **more
        )


#: The keys a table of a data file may hold.
KEYS = frozenset(
    {
        "about",
        "findings",
        "unfixed",
        "targets",
        "warning",
        "select",
        "fixability",
        "cured",
        "dialect",
        "recovered",
        "target",
    }
)


def parse_finding(text: str) -> Finding:
    """``"TP001 call_1"`` → ``("TP001", "call_1")``; ``"TP107"`` → ``("TP107", None)``."""
    code, _, call_id = text.partition(" ")
    return code, call_id or None


def data_files() -> list[Path]:
    """Every data file under ``samples/``, in a stable order."""
    return sorted(SAMPLES.rglob(DATA_FILE))


def read_cases(data_file: Path) -> list[Case]:
    """The cases of one data file, in its order."""
    folder = data_file.parent.relative_to(SAMPLES).as_posix()
    with data_file.open("rb") as stream:
        tables = tomllib.load(stream)
    cases = []
    for name, table in tables.items():
        unknown = set(table) - KEYS
        if unknown:
            raise ValueError(f"{data_file}: [{name!r}] has unknown keys {sorted(unknown)}")
        cases.append(
            Case(
                path=f"{folder}/{name}",
                about=table["about"],
                findings=[parse_finding(f) for f in table.get("findings", [])],
                unfixed=[parse_finding(f) for f in table.get("unfixed", [])],
                targets=[parse_finding(f) for f in table.get("targets", [])],
                warning=table.get("warning"),
                select=tuple(table.get("select", ())),
                fixability=tuple(table.get("fixability", ())),
                cured=[parse_finding(f) for f in table.get("cured", [])],
                dialect=table.get("dialect"),
                recovered=[parse_finding(f) for f in table.get("recovered", [])],
                target=table.get("target"),
            )
        )
    return cases


#: The order of the folders in samples/README.md (the strict ones after the default ones).
ORDER = (
    "langchain",
    "openai-chat",
    "anthropic",
    "openai-responses",
    "openai-agents-js",
    "gemini",
    "bedrock",
    "ai-sdk-ui",
    "ai-sdk-model",
    "llama-index",
    "mixed",
    "strict/openai-chat",
    "strict/langchain",
    "strict/anthropic",
    "strict/bedrock",
    "strict/gemini",
    "strict/openai-responses",
    "strict/pydantic-ai",
    "providers",
    "claude-code",
    "claude-agent-sdk",
    "codex",
    "gemini-cli",
    "openhands-events",
    "opencode-files",
)


def folder_rank(data_file: Path) -> tuple[int, str]:
    """Where a folder comes in samples/README.md: listed ones first, in ``ORDER``."""
    folder = data_file.parent.relative_to(SAMPLES).as_posix()
    return (ORDER.index(folder) if folder in ORDER else len(ORDER), folder)


def every_case() -> list[Case]:
    """Every sample, in a stable order (the README's)."""
    return [case for data in sorted(data_files(), key=folder_rank) for case in read_cases(data)]


def all_cases() -> list[Case]:
    """Every sample whose input is a file, in the README's order."""
    return [case for case in every_case() if not case.folder]


def folder_cases() -> list[Case]:
    """Every sample whose input is a folder, in the README's order."""
    return [case for case in every_case() if case.folder]


def file_samples(pattern: str) -> list[Path]:
    """The files of ``samples/`` whose names match ``pattern``, but for those of a folder
    sample (an event file of a store is one input only with the others)."""
    folders = [SAMPLES / case.path for case in folder_cases()]
    folders += [case.expected for case in folder_cases() if case.expected is not None]
    return sorted(
        path
        for path in SAMPLES.rglob(pattern)
        if path.is_file() and not any(path.is_relative_to(folder) for folder in folders)
    )


def fixed_path(path: str) -> str:
    """``a/b.json`` → ``a/b.fixed.json``; a folder ``a/b`` → ``a/b.fixed``."""
    if "." not in path.rpartition("/")[2]:
        return f"{path}.fixed"
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.fixed{dot}{suffix}"


def unsafe_path(path: str) -> str:
    """``a/b.json`` → ``a/b.unsafe.json``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.unsafe{dot}{suffix}"


def drop_path(path: str) -> str:
    """``a/b.json`` → ``a/b.drop.json``."""
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}.drop{dot}{suffix}"


def case_files(case: Case) -> list[str]:
    """The files of ``samples/`` a case owns: its input and the expected outputs it has (a
    folder case: every file of its folder and of its ``x.fixed/``)."""
    if case.folder:
        folders = [SAMPLES / case.path, *([case.expected] if case.expected else [])]
        return sorted(
            str(file.relative_to(SAMPLES))
            for folder in folders
            for file in folder.rglob("*")
            if file.is_file()
        )
    owned = [case.path]
    if case.expected is not None:
        owned.append(fixed_path(case.path))
    if case.unsafe is not None:
        owned.append(unsafe_path(case.path))
    if case.drop is not None:
        owned.append(drop_path(case.path))
    return owned


# -- serialisers (for the files that code writes: tests/langchain_samples.py, the tests) ---

Dump = Callable[[Sequence[Any]], bytes]


def json_doc(indent: int | str | None = 2, **kwargs: Any) -> Dump:
    """One JSON document written by ``json.dumps`` (``records`` holds one value)."""

    def dump(records: Sequence[Any]) -> bytes:
        (value,) = records
        return (json.dumps(value, indent=indent, **kwargs) + "\n").encode("utf-8")

    return dump


def jsonl(newline: str = "\n", **kwargs: Any) -> Dump:
    """JSON Lines written by ``json.dumps`` (``None`` records are blank lines)."""

    def dump(records: Sequence[Any]) -> bytes:
        lines = ["" if r is None else json.dumps(r, **kwargs) for r in records]
        return (newline.join(lines) + newline).encode("utf-8")

    return dump


# -- samples/README.md ---------------------------------------------------------------------

#: How samples/README.md marks a finding of a case that states its fixability (ruff's marks).
FIX_MARKS = {"safe": " [*]", "unsafe": " [~]", "none": " (not fixable)"}


def reported_finding(case: Case, finding: Finding, fix: str | None = None) -> str:
    """One finding as samples/README.md lists it."""
    code, call_id = finding
    shown = f"{code} `{call_id}`" if call_id is not None else f"{code} (no id)"
    if code in ("TP106", "TP107"):  # about a message's shape: no call, no id
        shown = code
    if fix is not None:
        return shown + FIX_MARKS[fix]
    if finding in case.targets:
        return f"{shown} (training target)"
    return f"{shown} (not fixable)" if finding in case.unfixed else shown


def readme(cases: Sequence[Case]) -> bytes:
    """samples/README.md: what the samples are, and a table of every case."""
    lines = [
        "# Samples",
        "",
        "Real-looking transcripts for every format and container toolpatch reads. Each",
        "defective input `x.json` has its expected repair `x.fixed.json` beside it, stated by",
        "hand, not computed by toolpatch (the LangChain files are written by langchain-core:",
        "`python -m tests.langchain_samples`). Each folder's `cases.toml` says what `check`",
        "reports; this README is generated from them by `python -m tests.sample_cases`, and",
        "`tests/cli/test_samples.py` runs every pair through the CLI.",
        "",
        "`strict/` holds the provider-strict cases (TP1xx rules), checked and fixed with",
        "`--select ALL`: `x.fixed.json` is what `fix` writes (safe fixes only: the TP1xx",
        "defects stay), `x.unsafe.json` what `fix --unsafe-fixes` writes. Their findings carry",
        "`check`'s marks: `[*]` fixable, `[~]` fixable with `--unsafe-fixes`.",
        "",
        "`x.drop.json`, beside some inputs, is what `fix --repair drop --unsafe-fixes` writes:",
        "the unanswered calls removed instead of answered (docs/pairing.md#repair-policies);",
        "the table marks those inputs *(drop)*.",
        "",
        "| file | what it shows | `toolpatch check` reports |",
        "|---|---|---|",
    ]
    for case in cases:
        marks: Sequence[str | None] = case.fixability or [None] * len(case.findings)
        reported = ", ".join(
            reported_finding(case, finding, fix)
            for finding, fix in zip(case.findings, marks, strict=True)
        )
        if case.warning:
            reported = ", ".join(filter(None, (reported, f"warning: {case.warning}")))
        reported = reported or "-"
        shown = f"`{case.path}` *(drop)*" if case.drop is not None else f"`{case.path}`"
        lines.append(f"| {shown} | {case.about} | {reported} |")
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    """Rewrite samples/README.md from the data files."""
    (SAMPLES / "README.md").write_bytes(readme(every_case()))


if __name__ == "__main__":
    main()
