"""The documentation in docs/ stays true: the generated rules page matches the rule table,
every ``docs/<page>.md#<anchor>`` cited anywhere in the repository (and every link between the
pages) names a page and a heading that exist, and nothing cites a source outside the repository
instead of docs/ (CONTRIBUTING.md#before-committing)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.builders import anchors, slug
from tests.conftest import ROOT
from toolpatch.cli.rules_markdown import REGENERATE, rules_markdown

DOCS = ROOT / "docs"
#: A citation from code or prose: ``docs/formats.md#anthropic``, ``docs/cli.md``.
CITATION = re.compile(r"docs/([a-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]+))?")
#: A link from one page to another: ``](pairing.md#keyless-calls)``, ``](#tp001-...)``.
LINK = re.compile(r"\]\(([a-z0-9_-]+\.md)?(?:#([A-Za-z0-9_-]+))?\)")
SCANNED = ("*.py", "*.md", "*.toml", "*.yaml")
#: A test a page cites as the check of what it states: ``tests/cli/test_x.py::test_name``.
CITED_TEST = re.compile(r"(tests/[a-z0-9_/]+\.py)::([a-z0-9_]+)")


def scanned_files() -> list[Path]:
    skip = {".git", ".venv", "node_modules"}
    return sorted(
        path
        for pattern in SCANNED
        for path in ROOT.rglob(pattern)
        if not skip.intersection(path.relative_to(ROOT).parts)
    )


#: What the repository must not cite, as a source of truth, instead of its own docs/: files
#: beside the checkout (the project's design notes and reference notes, the corpus's own notes
#: and manifest; reading ``../shared/corpus`` files as test input is no citation), and the
#: numbers of issues and pull requests.
OUTSIDE = re.compile(
    r"\b(?:DESIGN|SOURCES)\.md\b|\bMANIFEST\.json\b|(?<![\w.-])shared/(?!corpus\b)[\w.-]+"
    r"|(?<![\w/.-])reference/[\w.-]+\.md\b|\bbriefs?/[\w.-]+"
    r"|(?<![\w-])(?:issue|pr|pull request)s?\s*(?:#\s*)?\d+\b|\b(?:issues|pull)/\d+\b"
    r"|\((?:see\s+)?#\d+\)|\bsee #\d+",
    re.IGNORECASE,
)
#: A web address: an upstream project's issue a page links to, as the evidence of what that
#: project does, is a source its reader can open, not a citation of one of ours.
URL = re.compile(r"https?://\S+")
#: The page that describes the corpus's manifest, which it may name (docs/corpus.md).
MANIFEST_PAGE = DOCS / "corpus.md"
#: The text files that are neither scanned for docs citations nor data: scripts, the HTML
#: report's page, the conformance judge.
SCRIPTS = ("*.js", "*.cjs", "*.css", "*.j2", "*.sql", "*.txt", ".ci/*")


def test_rules_page_is_generated_from_the_rule_table() -> None:
    written = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert written == rules_markdown(), f"docs/rules.md is stale: run `{REGENERATE}`"


def test_every_cited_docs_anchor_exists() -> None:
    broken = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited = [(m.group(1), m.group(2)) for m in CITATION.finditer(text)]
        if path.parent == DOCS and path.suffix == ".md":
            cited += [(m.group(1) or path.name, m.group(2)) for m in LINK.finditer(text)]
        for page, anchor in cited:
            where = path.relative_to(ROOT)
            if not (DOCS / page).is_file():
                broken.append(f"{where}: docs/{page} does not exist")
            elif anchor is not None and anchor not in anchors(DOCS / page):
                broken.append(f"{where}: docs/{page} has no heading #{anchor}")
    assert broken == []


def test_every_test_a_page_cites_exists() -> None:
    """A rule a page states with the test that checks it (docs/cli.md#safety) names a test that
    is there."""
    missing = []
    for page in sorted(DOCS.glob("*.md")):
        for match in CITED_TEST.finditer(page.read_text(encoding="utf-8")):
            module, name = ROOT / match.group(1), match.group(2)
            if not module.is_file() or f"def {name}(" not in module.read_text(encoding="utf-8"):
                missing.append(f"{page.name}: {match.group(0)}")
    assert missing == []
    safety = (DOCS / "cli.md").read_text(encoding="utf-8").partition("\n## Safety\n")[2]
    assert CITED_TEST.search(safety.partition("\n## ")[0])


def test_slugs_follow_github() -> None:
    assert (
        slug("OpenAI Chat (incl. legacy `function_call`)")
        == "openai-chat-incl-legacy-function_call"
    )
    assert slug("TP001 dangling-tool-call") == "tp001-dangling-tool-call"


def test_the_dialect_interface_is_documented_as_the_code_has_it() -> None:
    """docs/architecture.md#the-dialect-interface lists exactly `Dialect`'s data (class
    variables) and hooks (public methods): a hook added or removed is a documented change."""
    from patchcore.dialects.base import Dialect

    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## The dialect interface", 1)[1].split("\n## ", 1)[0]
    documented = {
        name
        for row in section.splitlines()
        if row.startswith("| `")
        for name in re.findall(r"`(\w+)", row.split("|")[1])
    }
    data = set(Dialect.__annotations__)
    hooks = {name for name, value in vars(Dialect).items() if callable(value) and name[0] != "_"}
    assert documented == data | hooks


def test_nothing_cites_a_source_outside_the_repository() -> None:
    """Code, tests, samples' notes and docs cite docs/, never a file outside the repository or
    an issue number: a reader of the checkout has neither (CONTRIBUTING.md#before-committing).
    A fact such a source held is written in docs/ in the project's words, and cited there."""
    skip = {".git", ".venv", "node_modules"}
    scripts = [
        path
        for pattern in SCRIPTS
        for path in ROOT.rglob(pattern)
        if path.is_file() and not skip.intersection(path.relative_to(ROOT).parts)
    ]
    found = []
    for path in sorted({*scanned_files(), *scripts} - {Path(__file__).resolve()}):
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in OUTSIDE.finditer(URL.sub("", line)):
                if path == MANIFEST_PAGE and match.group(0) == "MANIFEST.json":
                    continue  # the page that says what the corpus's manifest holds
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert found == []


def test_the_citation_check_sees_each_kind() -> None:
    """`OUTSIDE` matches each kind of outside citation, and not a corpus file's name, a
    message's number in ``show`` nor an upstream project's issue linked by its address."""
    cited = [
        "see ../shared/DESIGN.md",
        "reference/langgraph.md says",
        "SOURCES.md",
        "the corpus's MANIFEST.json",
        "fixed in issue 12",
        "issue #12",
        "github.com/o/r/issues/12",
        "as asked (#12)",
        "/work/briefs/issue35.md",
    ]
    assert [text for text in cited if not OUTSIDE.search(text)] == []
    clean = [
        "tau2/tau2-whissle-airline-run1-pr448.json",
        "#2 assistant",
        "../shared/corpus/x",
        "([#8484](https://github.com/anthropics/claude-code/issues/8484))",
    ]
    assert [text for text in clean if OUTSIDE.search(URL.sub("", text))] == []
