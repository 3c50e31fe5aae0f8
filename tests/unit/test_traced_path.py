"""docs/architecture.md#the-path-of-one-input says how many of the project's modules
``toolpatch fix FILE`` runs code in; this counts them again, so the page stays true."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT, SAMPLES

#: Runs ``toolpatch fix FILE`` twice in a fresh interpreter (the first run loads what is loaded
#: lazily and fills the caches, as a long-lived process has), tracing the second with
#: ``sys.setprofile``, and prints each project source file a call ran in.
TRACE = """
import shutil, sys, tempfile
from pathlib import Path
import toolpatch.cli.app

root, sample = Path(sys.argv[1]), Path(sys.argv[2])
seen = set()

def fix():
    target = Path(tempfile.mkdtemp()) / sample.name
    shutil.copyfile(sample, target)
    sys.argv = ["toolpatch", "fix", str(target)]
    try:
        toolpatch.cli.app.main()
    except SystemExit:
        pass

def profile(frame, event, arg):
    if event == "call":
        seen.add(frame.f_code.co_filename)

fix()
sys.setprofile(profile)
fix()
sys.setprofile(None)
for name in sorted(seen):
    path = Path(name)
    if path.is_relative_to(root) and not path.is_relative_to(root / "tests") and not any(
        part.startswith(".") for part in path.relative_to(root).parts
    ):
        print(path.relative_to(root).as_posix())
"""

STATED = re.compile(
    r"runs code in (?P<dangling>\d+) of the project's modules for a file with a dangling call "
    r"\(`samples/(?P<one>[^`]+)`\), and in (?P<clean>\d+) for a clean one "
    r"\(`samples/(?P<other>[^`]+)`\)"
)


def traced(sample: str) -> list[str]:
    """The project's source files ``toolpatch fix`` runs code in, for ``samples/<sample>``."""
    ran = subprocess.run(
        [sys.executable, "-c", TRACE, str(ROOT), str(SAMPLES / sample)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    return ran.stdout.decode().split()


def test_the_architecture_page_counts_the_modules_fix_runs() -> None:
    page = " ".join((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split())
    stated = STATED.search(page)
    assert stated is not None, "docs/architecture.md no longer states the traced count"
    dangling, clean = traced(stated["one"]), traced(stated["other"])
    assert (len(dangling), len(clean)) == (int(stated["dangling"]), int(stated["clean"])), (
        dangling,
        clean,
    )
