"""What a run reads, as ruff decides it (docs/cli.md#inputs): no PATH means the current folder
unless standard input holds data, and a walk passes over what the configuration excludes and
what ``.gitignore`` / ``.ignore`` files ignore.

Pinned through the real entry point, with standard input of each kind a run meets: ``/dev/null``
(CI, cron), a pipe, a regular file (``< file``), and a terminal (a pseudo terminal).
"""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.builders import (
    CLEAN,
    DANGLING,
    DANGLING_FIXED,
    DANGLING_JSONL,
    pyproject,
    snapshot,
    toolpatch_toml,
    write,
)
from tests.helpers import Result, clean_env, run, run_process


def finding_files(result: Result) -> list[str]:
    """The files named by the finding lines of a text report, in order, each once."""
    names = [line.split(":", 1)[0] for line in result.finding_lines if " TP0" in line]
    return list(dict.fromkeys(names))


def run_with_stdin(args: list[str], stdin: int, cwd: Path) -> Result:
    """``toolpatch ARGS`` with file descriptor ``stdin`` as its standard input."""
    return run_process(args, cwd=cwd, stdin=stdin)


# --------------------------------------------------------------------------------------------
# no PATH: standard input or the current folder


@pytest.mark.parametrize("command", [["check"], ["fix", "--check"], ["fix", "--diff"]])
def test_no_path_and_stdin_dev_null_checks_the_current_folder(
    tmp_path: Path, command: list[str]
) -> None:
    """CI runs a command with standard input on /dev/null: that is no input, so the folder is
    checked (it used to read the empty stdin and fail with "-:1:1: empty input")."""
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "sub" / "clean.json", CLEAN)
    result = run(command, cwd=tmp_path, expect=1)  # stdin is /dev/null
    assert "empty input" not in result.stderr, result.show()
    if command == ["check"]:
        assert finding_files(result) == ["h.json"], result.show()
    else:
        assert "h.json" in result.stderr + result.stdout.decode(), result.show()


@pytest.mark.parametrize("command", [["fix"], ["check", "--fix"]])
def test_no_path_fix_repairs_the_current_folder_in_place(
    tmp_path: Path, command: list[str]
) -> None:
    path = write(tmp_path / "deep" / "h.json", DANGLING)
    clean = write(tmp_path / "clean.json", CLEAN)
    before = snapshot(clean)
    result = run(command, cwd=tmp_path, expect=0)
    assert result.stdout == b"", "the folder is fixed in place, nothing goes to stdout"
    assert path.read_bytes() == DANGLING_FIXED
    assert snapshot(clean) == before


@pytest.mark.parametrize(("command", "code"), [(["check"], 1), (["fix"], 0)])
def test_no_path_and_piped_stdin_reads_stdin_not_the_folder(
    tmp_path: Path, command: list[str], code: int
) -> None:
    folder_file = write(tmp_path / "h.json", DANGLING)
    result = run(command, input=DANGLING, cwd=tmp_path, expect=code)
    assert "h.json" not in result.stderr, "the folder is not read" + result.show()
    assert folder_file.read_bytes() == DANGLING
    if command == ["fix"]:
        assert result.stdout == DANGLING_FIXED
    else:
        assert finding_files(result) == ["-"], result.show()


def test_no_path_and_stdin_an_empty_regular_file_checks_the_folder(tmp_path: Path) -> None:
    write(tmp_path / "data" / "h.json", DANGLING)
    empty = write(tmp_path / "empty.txt", b"")
    with empty.open("rb") as stdin:
        result = run_with_stdin(["check", "data"], stdin.fileno(), tmp_path)
        assert result.code == 1, result.show()  # a PATH given: stdin plays no part
    with empty.open("rb") as stdin:
        result = run_with_stdin(["check"], stdin.fileno(), tmp_path / "data")
    assert result.code == 1, result.show()
    assert finding_files(result) == ["h.json"], result.show()


def test_no_path_and_stdin_a_regular_file_with_data_reads_it(tmp_path: Path) -> None:
    """``toolpatch check < history.json``: the file is standard input, the folder is not read."""
    write(tmp_path / "folder" / "clean.json", CLEAN)
    history = write(tmp_path / "history.json", DANGLING)
    with history.open("rb") as stdin:
        result = run_with_stdin(["check"], stdin.fileno(), tmp_path / "folder")
    assert result.code == 1, result.show()
    assert finding_files(result) == ["-"], result.show()


def test_no_path_and_stdin_a_terminal_checks_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "h.json", DANGLING)
    primary, secondary = pty.openpty()
    try:
        result = run_with_stdin(["check"], secondary, tmp_path)
    finally:
        os.close(secondary)
        os.close(primary)
    assert result.code == 1, result.show()
    assert finding_files(result) == ["h.json"], result.show()


def test_no_path_in_an_empty_folder_finds_nothing(tmp_path: Path) -> None:
    result = run(["check"], cwd=tmp_path, expect=0)
    assert "empty input" not in result.stderr, result.show()


def test_dash_still_reads_stdin_even_when_it_is_empty(tmp_path: Path) -> None:
    """``-`` says "standard input" outright: an empty one is then an error, as before."""
    write(tmp_path / "h.json", CLEAN)
    result = run(["check", "-"], cwd=tmp_path, expect=2)
    assert "empty input" in result.stderr, result.show()


def test_no_path_discovers_the_configuration_from_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "toolpatch.toml", b'ignore = ["TP001"]\n')
    write(tmp_path / "h.json", DANGLING)
    run(["check"], cwd=tmp_path, expect=0)


# --------------------------------------------------------------------------------------------
# walks: .gitignore, .ignore, .git/info/exclude


def git_init(folder: Path) -> Path:
    """``folder`` made a real git repository."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)
    return folder


def histories(root: Path, *names: str) -> dict[str, Path]:
    """A history with a dangling call at each of ``names`` below ``root``."""
    return {
        name: write(root / name, DANGLING_JSONL if name.endswith(".jsonl") else DANGLING)
        for name in names
    }


#: A repository's files, and those a walk of it must find, in the walk's order (each folder's
#: files, sorted, before its subfolders, sorted).
REPOSITORY_FILES = (
    "a.json",
    "ignored.json",  # .gitignore
    "other.local.json",  # .gitignore: *.local.json
    "build/x.json",  # .gitignore: build/
    "logs/ok.json",
    "logs/private.json",  # .git/info/exclude
    "scratch/s.json",  # .ignore
    "sub/keep.json",
    "sub/kept.local.json",  # sub/.gitignore re-includes it: !kept.local.json
    "sub/local.json",  # sub/.gitignore
    "sub/deep/y.json",
    "sub/deep/z.json",  # sub/deep/.ignore
)
FOUND_IN_REPOSITORY = [
    "a.json",
    "logs/ok.json",
    "sub/keep.json",
    "sub/kept.local.json",
    "sub/deep/y.json",
]


def make_repository(root: Path) -> dict[str, Path]:
    git_init(root)
    files = histories(root, *REPOSITORY_FILES)
    write(root / ".gitignore", b"ignored.json\nbuild/\n*.local.json\n")
    write(root / "sub" / ".gitignore", b"local.json\n!kept.local.json\n")
    write(root / ".ignore", b"scratch/\n")
    write(root / "sub" / "deep" / ".ignore", b"z.json\n")
    with (root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("private.json\n")
    return files


def test_walk_passes_over_what_the_ignore_files_ignore(tmp_path: Path) -> None:
    files = make_repository(tmp_path / "repo")
    result = run(["check"], cwd=tmp_path / "repo", expect=1)
    assert finding_files(result) == FOUND_IN_REPOSITORY, result.show()
    named = run(["check", "repo"], cwd=tmp_path, expect=1)
    assert finding_files(named) == [f"repo/{name}" for name in FOUND_IN_REPOSITORY]

    run(["fix", "repo"], cwd=tmp_path, expect=0)
    for name, path in files.items():
        assert (path.read_bytes() == DANGLING_FIXED) is (name in FOUND_IN_REPOSITORY), name


def test_walk_of_a_subfolder_reads_the_ignore_files_above_it(tmp_path: Path) -> None:
    make_repository(tmp_path)
    below = run(["check"], cwd=tmp_path / "sub", expect=1)
    assert finding_files(below) == ["keep.json", "kept.local.json", "deep/y.json"], below.show()
    named = run(["check", "sub/deep"], cwd=tmp_path, expect=1)
    assert finding_files(named) == ["sub/deep/y.json"], named.show()


def test_no_respect_gitignore_walks_everything_but_the_excluded(tmp_path: Path) -> None:
    make_repository(tmp_path)
    everything = list(REPOSITORY_FILES)  # already in the walk's order
    result = run(["check", "--no-respect-gitignore"], cwd=tmp_path, expect=1)
    assert finding_files(result) == everything, result.show()
    write(tmp_path / "toolpatch.toml", b"respect-gitignore = false\n")
    configured = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(configured) == everything, configured.show()
    back_on = run(["check", "--respect-gitignore"], cwd=tmp_path, expect=1)
    assert finding_files(back_on) == FOUND_IN_REPOSITORY, back_on.show()


def test_gitignore_counts_only_in_a_repository_and_ignore_files_anywhere(tmp_path: Path) -> None:
    """As ruff (ripgrep's walker): outside a git repository a .gitignore is a file like any
    other; a .ignore is read all the same."""
    histories(tmp_path, "a.json", "git-ignored.json", "ignored.json")
    write(tmp_path / ".gitignore", b"git-ignored.json\n")
    write(tmp_path / ".ignore", b"ignored.json\n")
    result = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["a.json", "git-ignored.json"], result.show()


def test_a_nested_repository_starts_afresh(tmp_path: Path) -> None:
    """A folder with its own .git is a repository of its own: the .gitignore files above it
    do not reach into it (as git, and ruff's walker)."""
    git_init(tmp_path)
    histories(tmp_path, "x.json", "inner/x.json", "inner/y.json")
    git_init(tmp_path / "inner")
    write(tmp_path / ".gitignore", b"x.json\n")
    write(tmp_path / "inner" / ".gitignore", b"y.json\n")
    result = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["inner/x.json"], result.show()


def test_a_worktree_reads_the_info_exclude_of_its_repository(tmp_path: Path) -> None:
    """A worktree's .git is a file (gitdir: …); info/exclude is the main repository's."""
    main = git_init(tmp_path / "main")
    subprocess.run(
        [
            "git",
            "-C",
            str(main),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        ["git", "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "wt" / ".git").is_file()
    with (main / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("private.json\n")
    histories(tmp_path / "wt", "a.json", "private.json")
    result = run(["check"], cwd=tmp_path / "wt", expect=1)
    assert finding_files(result) == ["a.json"], result.show()


def test_an_invalid_line_of_an_ignore_file_is_passed_over(tmp_path: Path) -> None:
    git_init(tmp_path)
    histories(tmp_path, "a.json", "b.json")
    write(tmp_path / ".gitignore", b"!\n\\\nb.json\n# a comment\n")
    result = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["a.json"], result.show()


# --------------------------------------------------------------------------------------------
# named paths and --force-exclude


def test_named_paths_are_taken_even_when_ignored(tmp_path: Path) -> None:
    make_repository(tmp_path)
    result = run(["check", "ignored.json", "build", "sub/local.json"], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["ignored.json", "build/x.json", "sub/local.json"]


def test_force_exclude_passes_over_named_paths_that_are_ignored(tmp_path: Path) -> None:
    make_repository(tmp_path)
    named = [
        "a.json",
        "ignored.json",
        "build/x.json",  # in an ignored folder
        "build",
        "sub/local.json",
        "sub/kept.local.json",  # re-included
        "logs/private.json",
        "scratch/s.json",
        "sub/deep/z.json",
    ]
    result = run(["check", "--force-exclude", *named], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["a.json", "sub/kept.local.json"], result.show()
    write(tmp_path / "toolpatch.toml", b"force-exclude = true\n")
    configured = run(["check", *named], cwd=tmp_path, expect=1)
    assert finding_files(configured) == ["a.json", "sub/kept.local.json"], configured.show()
    off = run(["check", "--no-force-exclude", "ignored.json"], cwd=tmp_path, expect=1)
    assert finding_files(off) == ["ignored.json"], off.show()
    with_no_gitignore = ["check", "--force-exclude", "--no-respect-gitignore", "ignored.json"]
    assert finding_files(run(with_no_gitignore, cwd=tmp_path, expect=1)) == ["ignored.json"]


def test_force_exclude_with_nothing_left_is_a_clean_run(tmp_path: Path) -> None:
    make_repository(tmp_path)
    result = run(["fix", "--force-exclude", "ignored.json"], cwd=tmp_path, expect=0)
    assert (tmp_path / "ignored.json").read_bytes() == DANGLING, result.show()


def test_force_exclude_never_drops_stdin(tmp_path: Path) -> None:
    make_repository(tmp_path)
    result = run(["fix", "--force-exclude", "-"], input=DANGLING, cwd=tmp_path, expect=0)
    assert result.stdout == DANGLING_FIXED


@pytest.mark.parametrize("where", ["core.excludesFile", "default"])
def test_walk_passes_over_what_git_ignores_everywhere(tmp_path: Path, where: str) -> None:
    """git's global excludes file counts as ripgrep and ruff read it, below the repository's
    own files: ``core.excludesFile`` of ``~/.gitconfig``, else ``~/.config/git/ignore``. Outside
    a repository it does not count."""
    home = tmp_path / "home"
    if where == "default":
        write(home / ".config" / "git" / "ignore", b"secret*.json\n")
    else:
        write(home / ".gitconfig", b'[user]\n\tname = x\n[core]\n\texcludesFile = "~/ig"\n')
        write(home / "ig", b"secret*.json\n")
    repository = tmp_path / "repo"
    git_init(repository)
    histories(repository, "a.json", "secret-1.json", "sub/secret-2.json", "kept.json")
    write(repository / "sub" / ".gitignore", b"!secret-2.json\n")  # a repository file wins
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    result = run(["check"], cwd=repository, expect=1, env=clean_env(**env))
    assert finding_files(result) == ["a.json", "kept.json", "sub/secret-2.json"], result.show()
    outside = tmp_path / "plain"
    histories(outside, "secret-3.json")
    result = run(["check"], cwd=outside, expect=1, env=clean_env(**env))
    assert finding_files(result) == ["secret-3.json"], result.show()


def test_force_exclude_passes_over_an_excluded_stdin_filename(tmp_path: Path) -> None:
    """As ruff does for editors: standard input named by an excluded ``--stdin-filename`` is
    passed over; ``fix`` writes it back unchanged (a filter's output is never empty), ``check``
    reports nothing. Without ``--force-exclude`` the name excludes nothing."""
    make_repository(tmp_path)
    named = ["--force-exclude", "--stdin-filename", "ignored.json", "-"]
    fixed = run(["fix", *named], input=DANGLING, cwd=tmp_path, expect=0)
    assert fixed.stdout == DANGLING, fixed.show()
    assert fixed.stderr_lines == ["1 file skipped (excluded)."], fixed.show()
    checked = run(["check", *named], input=DANGLING, cwd=tmp_path, expect=0)
    assert finding_files(checked) == [], checked.show()
    assert checked.stdout == b"1 file skipped (excluded).\n", checked.show()
    plain = run(["fix", *named[1:]], input=DANGLING, cwd=tmp_path, expect=0)
    assert plain.stdout == DANGLING_FIXED, plain.show()


def test_same_file_walked_and_named_is_checked_once(tmp_path: Path) -> None:
    make_repository(tmp_path)
    result = run(["check", ".", "./a.json", "ignored.json", "ignored.json"], cwd=tmp_path, expect=1)
    assert finding_files(result) == [*FOUND_IN_REPOSITORY, "ignored.json"], result.show()


# --------------------------------------------------------------------------------------------
# exclude and extend-exclude


EXCLUDE_TREE = (
    "a.json",
    "archive/old.json",
    "data/raw/r.json",
    "data/clean.json",
    "data/x.bak.json",
    "node_modules/pkg/m.json",
    ".claude/projects/p/s.jsonl",
    ".hidden.json",
)


def configure(folder: Path, where: str, keys: str) -> None:
    """``keys`` in a ``toolpatch.toml``, or in the table of a ``pyproject.toml``."""
    if where == "pyproject.toml":
        pyproject(folder, f"[tool.toolpatch]\n{keys}")
    else:
        toolpatch_toml(folder, keys)


@pytest.mark.parametrize("where", ["toolpatch.toml", "pyproject.toml"])
def test_extend_exclude_adds_to_the_default_list(tmp_path: Path, where: str) -> None:
    histories(tmp_path, *EXCLUDE_TREE)
    configure(tmp_path, where, 'extend-exclude = ["archive/", "data/raw", "*.bak.json"]\n')
    result = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(result) == ["a.json", "data/clean.json"], result.show()
    # relative to the configuration's folder, wherever the run starts
    below = run(["check"], cwd=tmp_path / "data", expect=1)
    assert finding_files(below) == ["clean.json"], below.show()
    named = run(["check", "data"], cwd=tmp_path, expect=1)
    assert finding_files(named) == ["data/clean.json"], named.show()


@pytest.mark.parametrize("where", ["toolpatch.toml", "pyproject.toml"])
def test_exclude_replaces_the_default_list(tmp_path: Path, where: str) -> None:
    histories(tmp_path, *EXCLUDE_TREE)
    configure(tmp_path, where, 'exclude = ["archive"]\n')
    result = run(["check"], cwd=tmp_path, expect=1)
    assert finding_files(result) == [
        ".hidden.json",
        "a.json",
        ".claude/projects/p/s.jsonl",
        "data/clean.json",
        "data/x.bak.json",
        "data/raw/r.json",
        "node_modules/pkg/m.json",
    ], result.show()


def test_extend_exclude_can_re_include_a_default(tmp_path: Path) -> None:
    histories(tmp_path, *EXCLUDE_TREE)
    write(tmp_path / "toolpatch.toml", b'extend-exclude = ["!.claude/"]\n')
    result = run(["check", "--select", "TP0"], cwd=tmp_path, expect=1)
    assert ".claude/projects/p/s.jsonl" in finding_files(result), result.show()
    assert ".hidden.json" not in finding_files(result), result.show()


def test_a_named_folder_is_walked_even_where_it_is_excluded(tmp_path: Path) -> None:
    """Agent session logs live in hidden folders: naming one, or running in one below a
    configuration, walks it; the hidden and excluded entries inside it are still passed
    over."""
    histories(tmp_path, *EXCLUDE_TREE, ".claude/projects/p/.tmp.json")
    write(tmp_path / "toolpatch.toml", b'extend-exclude = ["archive/"]\n')
    named = run(["check", ".claude/projects"], cwd=tmp_path, expect=1)
    assert finding_files(named) == [".claude/projects/p/s.jsonl"], named.show()
    inside = run(["check"], cwd=tmp_path / ".claude" / "projects", expect=1)
    assert finding_files(inside) == ["p/s.jsonl"], inside.show()
    forced = run(["check", "--force-exclude", ".claude/projects"], cwd=tmp_path, expect=0)
    assert finding_files(forced) == [], forced.show()


def test_force_exclude_applies_the_configured_patterns_to_named_files(tmp_path: Path) -> None:
    histories(tmp_path, *EXCLUDE_TREE)
    write(tmp_path / "toolpatch.toml", b'extend-exclude = ["archive/", "*.bak.json"]\n')
    named = ["a.json", "archive/old.json", "data/x.bak.json", ".hidden.json"]
    taken = run(["check", *named], cwd=tmp_path, expect=1)
    assert finding_files(taken) == named, taken.show()
    forced = run(["check", "--force-exclude", *named], cwd=tmp_path, expect=1)
    assert finding_files(forced) == ["a.json"], forced.show()


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('exclude = "archive"', "exclude: expected a list of gitignore patterns"),
        ('extend-exclude = ["!"]', "extend-exclude: '!' is not a gitignore pattern"),
        ("respect-gitignore = 1", "respect-gitignore: expected true or false"),
        ('force-exclude = "yes"', "force-exclude: expected true or false"),
    ],
)
def test_bad_exclude_settings_are_errors_naming_the_key(
    tmp_path: Path, body: str, error: str
) -> None:
    write(tmp_path / "h.json", DANGLING)
    write(tmp_path / "toolpatch.toml", f"{body}\n".encode())
    result = run(["check", "h.json"], cwd=tmp_path, expect=2)
    assert error in result.stderr and "toolpatch.toml" in result.stderr, result.show()
