"""Store URLs among the PATHs without their extras, and the options that go with them
(docs/stores.md; the stores themselves: tests/conformance/test_langgraph_store.py,
tests/conformance/test_agents_store.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import run, run_process
from toolpatch.cli.stores import is_store_url, split_paths


@pytest.mark.slow  # a subprocess per command and URL
@pytest.mark.parametrize(
    ("url", "module", "extra"),
    [
        ("langgraph+sqlite:///threads.sqlite", "langgraph", "langgraph"),
        ("langgraph+postgresql://u:p@localhost:5432/db", "langgraph", "langgraph"),
        ("agents+sqlite:///conversations.db", "agents", "agents"),
    ],
)
def test_a_store_without_its_extra_names_the_extra(
    url: str, module: str, extra: str, tmp_path: Path
) -> None:
    without = (
        f"import sys; sys.modules[{module!r}] = None\nfrom toolpatch.cli.app import main\nmain()\n"
    )
    for command in (["check"], ["fix"], ["fix", "--diff"]):
        result = run_process(
            [*command, url], cwd=tmp_path, command=[sys.executable, "-c", without], expect=2
        )
        shown = url.replace(":p@", ":***@")  # never the password (docs/stores.md)
        assert f"{shown}: error: " in result.stderr, result.show()
        assert f"pip install 'toolpatch-cli[{extra}]'" in result.stderr, result.show()
    assert list(tmp_path.iterdir()) == []


def test_thread_needs_a_store_and_a_store_is_fixed_in_place(tmp_path: Path) -> None:
    (tmp_path / "h.json").write_text("[]")
    result = run(["check", "h.json", "--thread", "t1"], cwd=tmp_path, expect=2)
    assert "--thread" in result.stderr
    result = run(["fix", "langgraph+sqlite:///x.sqlite", "-o", "out.json"], cwd=tmp_path, expect=2)
    assert "a store is repaired in place" in result.stderr


def test_store_urls_among_paths() -> None:
    assert is_store_url("langgraph+sqlite:///a.sqlite")
    assert is_store_url("agents+sqlite:////srv/a.db")
    assert not is_store_url("langgraph+notes.json")  # a file name, however odd
    assert split_paths(["a.json", "langgraph+sqlite:///x", "-"]) == (
        ["a.json", "-"],
        ["langgraph+sqlite:///x"],
    )


@pytest.mark.slow  # runs pytest twice
def test_the_postgres_tests_skip_locally_and_fail_in_ci_without_a_server() -> None:
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TOOLPATCH_TEST_POSTGRES")}
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-rs",
        "tests/conformance/test_langgraph_store.py::test_a_clean_store_is_never_written[postgres]",
    ]
    local = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert local.returncode == 0, local.stdout
    assert "1 skipped" in local.stdout
    assert "source .ci/postgres" in local.stdout
    ci = subprocess.run(
        argv, cwd=root, env={**env, "CI": "1"}, capture_output=True, text=True, check=False
    )
    assert ci.returncode == 1, ci.stdout
    assert "TOOLPATCH_TEST_POSTGRES is not set in CI" in ci.stdout


def test_strip_refuses_a_store(tmp_path: Path) -> None:
    """A store's repair is a checkpoint (or item) of its own, undone by going back to the one
    before it; strip, which rewrites files, says so rather than report a store clean."""
    refused = run(["strip", "langgraph+sqlite:///threads.sqlite"], cwd=tmp_path, expect=2)
    assert "docs/stores.md#rolling-back" in " ".join(refused.stderr.split())
