"""The code-quality gates run with the tests: mypy (strict) and ruff over the whole project.

patchcore promises a typed, pure library (docs/architecture.md); these keep the promise checked
by the one command README documents.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_mypy_strict_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lint_is_clean() -> None:
    """cli/ruff.toml bans every patchcore module but the package itself there: the command
    line imports only what ``patchcore.__all__`` exports (docs/architecture.md)."""
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (``from x import y``
    counts as ``x`` and, when it is one, the module ``x.y``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_patchcore_has_no_import_cycle() -> None:
    """Lazy imports included: importing a module imports its packages' ``__init__`` too."""
    modules = {module_name(p): p for p in (ROOT / "patchcore").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for imported in imports(path) & modules.keys():
            parts = imported.split(".")
            for depth in range(1, len(parts) + 1):
                target = ".".join(parts[:depth])
                if target in modules and target != name and not name.startswith(target + "."):
                    edges.add(target)
        graph[name] = edges
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError, naming the cycle


def test_the_cli_lint_bans_every_module_of_patchcore() -> None:
    """The lint rule of the CLI's imports (cli/ruff.toml) names the library's modules one by
    one: a module added to patchcore is added there too, or the CLI could import it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    config = tomllib.loads((ROOT / "cli" / "ruff.toml").read_text())
    banned = config["lint"]["flake8-tidy-imports"]["banned-api"].keys()
    library = ROOT / "patchcore"
    modules = {
        f"patchcore.{path.stem}"
        for path in library.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").is_file()
    }
    assert modules <= banned, sorted(modules - banned)


def test_the_source_folders_are_imported_by_their_installed_names() -> None:
    """``cli/`` and ``integrations/`` are installed as ``toolpatch.cli`` and
    ``toolpatch.integrations`` (docs/architecture.md#packaging): inside them imports are
    relative, and everything else names them through ``toolpatch``. A top-level ``import cli``
    works from the checkout only, and would load a second copy of every module beside the
    installed one."""
    folders = ("cli", "integrations")
    for path in sorted(
        p
        for top in ("cli", "integrations", "src", "tests", "benchmarks")
        for p in (ROOT / top).rglob("*.py")
        # the npm clients the conformance tests install (tests/npm_clients.py) ship Python of
        # their own (Python 2, some of it)
        if "node_modules" not in p.relative_to(ROOT).parts
    ):
        stray = {n for n in imports(path) if n.split(".")[0] in folders}
        assert not stray, f"{path.relative_to(ROOT)} imports {stray} by the source folder's name"


def test_the_integrations_never_import_the_command_line() -> None:
    """One direction between the two packages (docs/architecture.md): the command line may use
    the integrations (`--dask`, the stores, compression and URL redaction shared with them),
    never the other way, lazy imports included, so that there is no cycle between them."""
    wrong = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "integrations").rglob("*.py"))
        for name in imports(path)
        if name == "toolpatch.cli" or name.startswith("toolpatch.cli.")
    }
    relative = {
        f"{path.relative_to(ROOT)}: ..cli"
        for path in sorted((ROOT / "integrations").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.level > 1 and (node.module or "") == "cli"
    }
    assert not wrong | relative, sorted(wrong | relative)
