"""What a user installs: the wheel's contents, and a plain install in a new virtual environment.

docs/architecture.md#packaging: the distribution installs `patchcore` and `toolpatch` (the
command line as `toolpatch.cli`), nothing named `cli`; a plain install leaves langchain-core out,
and the BaseMessage API then says which extra to install. These build the wheel from the source
tree and install it as pip would for a user, with no extra.
"""

from __future__ import annotations

import os
import re
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
SOURCES = (
    "pyproject.toml",
    "MANIFEST.in",
    "README.md",
    "patchcore",
    "cli",
    "integrations",
    "src",
    "build_backend",
)


def pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def copied_sources(source: Path) -> Path:
    """What the build reads, copied into ``source`` (a build in the checkout would leave
    ``build/`` and ``*.egg-info`` there)."""
    source.mkdir(exist_ok=True)
    for name in SOURCES:
        if (ROOT / name).is_dir():
            skip = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, source / name, ignore=skip)
        else:
            shutil.copy2(ROOT / name, source / name)
    return source


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the sources."""
    source = copied_sources(tmp_path_factory.mktemp("source"))
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


def _run(command: list[str], *, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run an installed command in ``cwd``, its output as text."""
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=cwd)


@pytest.mark.parametrize("where", ["a folder of the user's", "the checkout"])
def test_a_plain_install_runs_the_command(plain: Path, tmp_path: Path, where: str) -> None:
    """From any folder, the checkout's root included: no folder there shadows the installed
    package (docs/architecture.md#packaging)."""
    sample = SAMPLES / "openai-chat" / "messages.jsonl"
    cwd = tmp_path if where == "a folder of the user's" else ROOT
    for command in ([str(plain / "toolpatch")], [str(plain / "python"), "-m", "toolpatch"]):
        result = _run([*command, "check", str(sample)], cwd=cwd)
        assert result.returncode == 1, result.stderr
        assert "TP001" in result.stdout, "the report, on stdout"
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


def test_the_wheel_holds_the_html_reports_page(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    page = ROOT / "cli" / "machine_reports" / "html_page"
    for path in page.iterdir():
        assert f"toolpatch/cli/machine_reports/html_page/{path.name}" in names


def test_a_plain_install_says_what_the_html_report_needs(plain: Path, tmp_path: Path) -> None:
    """docs/cli.md#html-report: Jinja2 comes with the html extra only."""
    sample = SAMPLES / "openai-chat" / "messages.jsonl"
    result = _run(
        [str(plain / "toolpatch"), "check", "--output-format", "html", str(sample)], cwd=tmp_path
    )
    assert result.returncode == 2, result.stderr
    assert "pip install 'toolpatch-cli[html]'" in result.stderr
    assert not result.stdout


def test_a_plain_install_says_what_the_proxy_needs(plain: Path, tmp_path: Path) -> None:
    """docs/proxy.md: aiohttp comes with the proxy extra only; the proxy says so before it
    listens."""
    command = [str(plain / "toolpatch"), "proxy", "--upstream", "http://127.0.0.1:9"]
    result = _run([*command, "--isolated"], cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "pip install 'toolpatch-cli[proxy]'" in result.stderr
    assert "listening" not in result.stderr


def test_the_editable_install_prints_no_warning(tmp_path: Path) -> None:
    """CONTRIBUTING.md's install command (``pip install -q -e .``) in a new environment says
    nothing: setuptools' notice about folders named like the package, which this layout does
    not have, is left out by the build backend (``build_backend/toolpatch_backend.py``)."""
    source = copied_sources(tmp_path / "source")
    home = tmp_path / "venv"
    venv.create(home, with_pip=True)
    python = home / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    upgraded = pip(python, "install", "-q", "-U", "pip")  # as the command does: pip 25 shows it
    assert upgraded.returncode == 0, upgraded.stderr
    installed = pip(python, "install", "-q", "--no-deps", "-e", str(source))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert installed.stdout + installed.stderr == ""
    ran = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util, patchcore; importlib.util.find_spec('toolpatch.cli.app')",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr


#: A shell block of the README.
SHELL_BLOCK = re.compile(r"^```sh\n(?P<body>.*?)^```$", re.M | re.S)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_every_readme_shell_command_runs_in_a_fresh_checkout(tmp_path: Path) -> None:
    """Every command of the README's shell blocks, as written, in a copy of the checkout with
    nothing installed: none fails to run (a finding is exit 1; a missing file, command or
    package, exit 2 and up, is not). The block that runs the whole test suite is left to
    ``.ci/run``, which is that command."""
    checkout = copied_sources(tmp_path / "checkout")
    shutil.copytree(SAMPLES, checkout / "samples")
    blocks = SHELL_BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    lines = [
        line
        for block in blocks
        if "pytest" not in block
        for line in block.splitlines()
        if line.strip()
    ]
    assert any(line.startswith("toolpatch ") for line in lines), lines
    script = "".join(f'{line}\necho "::rc=$?"\n' for line in lines)
    ran = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        check=False,
        cwd=checkout,
        env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
    )
    codes = [int(code) for code in re.findall(r"^::rc=(\d+)$", ran.stdout, re.M)]
    assert len(codes) == len(lines), ran.stdout + ran.stderr
    failed = [(line, code) for line, code in zip(lines, codes, strict=True) if code > 1]
    assert not failed, f"{failed}\n{ran.stderr}"
