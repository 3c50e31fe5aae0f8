"""What a user installs: the wheel's contents, and a plain install in a new virtual environment.

docs/architecture.md#packaging: the distribution installs `patchcore` and `toolpatch` (the
command line as `toolpatch.cli`), nothing named `cli`; a plain install leaves langchain-core out,
and the BaseMessage API then says which extra to install. These build the wheel from the source
tree and install it as pip would for a user, with no extra.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.slow

#: What the build reads: the project file, the README it embeds, and the packages.
SOURCES = ("pyproject.toml", "README.md", "patchcore", "cli", "integrations", "src")


def pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the sources (a build in the checkout would leave
    ``build/`` and ``*.egg-info`` there)."""
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            skip = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, source / name, ignore=skip)
        else:
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    built = pip(Path(sys.executable), "wheel", "--no-deps", "-q", "-w", str(out), str(source))
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = out.glob("*.whl")
    return found


@pytest.fixture(scope="module")
def plain(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed, no extra: its ``bin`` folder."""
    home = tmp_path_factory.mktemp("plain")
    venv.create(home, with_pip=True)
    bin_dir = home / ("Scripts" if os.name == "nt" else "bin")
    installed = pip(bin_dir / "python", "install", "-q", str(wheel))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return bin_dir


def test_the_wheel_installs_patchcore_and_toolpatch_only(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"patchcore", "toolpatch"}
    assert "patchcore/py.typed" in names
    # every module of the source folders, under its installed name
    for folder, installed in (("cli", "toolpatch/cli"), ("integrations", "toolpatch/integrations")):
        for path in (ROOT / folder).rglob("*.py"):
            assert f"{installed}/{path.relative_to(ROOT / folder).as_posix()}" in names
    for path in (ROOT / "patchcore").rglob("*.py"):
        assert path.relative_to(ROOT).as_posix() in names


def test_langchain_core_is_an_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        fields = Parser().parsestr(archive.read(metadata).decode())
    assert fields["Name"] == "toolpatch-cli"
    requires = fields.get_all("Requires-Dist")
    plain = [r for r in requires if "extra ==" not in r]
    assert sorted(r.split(">")[0].split("<")[0].split(";")[0].strip() for r in plain) == [
        "google-re2",
        "msgspec",
        "orjson",
        "pathspec",
        "rich",
        "tomli",
        "typer",
    ]
    for extra in ("langchain-core", "langchain>"):  # the BaseMessage API, the agent middleware
        assert any(r.startswith(extra) and 'extra == "langchain"' in r for r in requires), extra


@pytest.mark.parametrize("where", ["a folder of the user's", "the checkout"])
def test_a_plain_install_runs_the_command(plain: Path, tmp_path: Path, where: str) -> None:
    """From any folder, the checkout's root included: no folder there shadows the installed
    package (docs/architecture.md#packaging)."""
    sample = SAMPLES / "openai-chat" / "messages.jsonl"
    cwd = tmp_path if where == "a folder of the user's" else ROOT
    for command in ([str(plain / "toolpatch")], [str(plain / "python"), "-m", "toolpatch"]):
        result = subprocess.run(
            [*command, "check", str(sample)],
            capture_output=True,
            text=True,
            check=False,
            cwd=cwd,
        )
        assert result.returncode == 1, result.stderr
        assert "TP001" in result.stderr
    version = subprocess.run(
        [str(plain / "python"), "-m", "toolpatch", "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    assert version.stdout.startswith("toolpatch ")


def test_a_plain_install_has_no_langchain_and_says_what_to_install(plain: Path) -> None:
    probe = (
        "import importlib.util, patchcore\n"
        "assert importlib.util.find_spec('langchain_core') is None\n"
        "assert importlib.util.find_spec('cli') is None\n"
        "try:\n"
        "    patchcore.check_base_messages\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error)\n"
        "try:\n"
        "    import patchcore.langchain\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [str(plain / "python"), "-c", probe], capture_output=True, text=True, check=False, cwd="/"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("pip install 'toolpatch-cli[langchain]'") == 2, result.stdout
    assert "PatchToolCallsMiddleware needs langchain" in result.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_git_install_line_builds(plain: Path, tmp_path: Path) -> None:
    """README's ``pip install "git+https://...@REF"``, with the checkout's own history as the
    remote: what is committed builds and installs."""
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    if head.returncode:
        pytest.skip("not a git checkout")
    url = f"git+file://{ROOT}@{head.stdout.strip()}"
    target = tmp_path / "target"
    installed = pip(plain / "python", "install", "-q", "--no-deps", "--target", str(target), url)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (target / "toolpatch" / "cli" / "app.py").is_file()
    assert not (target / "cli").exists()
