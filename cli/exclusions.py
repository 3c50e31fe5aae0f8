"""Which paths a run passes over: the configuration's ``exclude`` and ``extend-exclude``
patterns and, with ``respect-gitignore``, the ignore files of the folders (``.gitignore``,
``.ignore``, ``.git/info/exclude``), as ruff decides it (docs/cli.md#inputs).

Every pattern list is gitignore syntax, matched by pathspec's ``GitIgnoreSpec`` (with RE2, in
linear time) against a path
relative to the folder the list belongs to: an ignore file's own folder, or the configuration's
folder. Precedence is that of ripgrep's walker, which ruff uses: a ``.ignore`` beats a
``.gitignore``, which beats ``.git/info/exclude``, which beats the global excludes file
(``core.excludesFile``, by default ``~/.config/git/ignore``); among files of one kind the
deepest folder that has a say decides (a ``!pattern`` there re-includes). ``.gitignore``
files, ``info/exclude`` and the global file count only in a git repository (the nearest folder
above with a ``.git``, file or folder, is its root); ``.ignore`` files count from the repository
root, or outside one from the walked folder, down. A path named on the command line is taken as
given: a folder named is walked even when it is excluded or ignored itself, and a list that
excludes it matches the paths inside it relative to it instead.

This module imports pathspec, so `cli.inputs` imports it only for a walk or ``--force-exclude``:
a run over named files never loads it.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pathspec import GitIgnoreSpec

#: The ignore files a folder may hold, the stronger first.
IGNORE = ".ignore"
GITIGNORE = ".gitignore"
GIT = ".git"


def compile_patterns(lines: Iterable[str]) -> GitIgnoreSpec:
    """Gitignore patterns, compiled for RE2, which matches in time linear in the path: the
    patterns come from the repository walked, and Python's backtracking ``re`` takes time
    exponential in the stars of one (``*a*a*a*a*a*a*a*a*a*b``: 11 s for three files at nine,
    minutes at twelve), so a hostile ``.gitignore`` could hang the walk (docs/cli.md#safety).

    Raises:
        ValueError: A pattern git would not accept either (``!`` alone, a lone ``\\``).
    """
    return GitIgnoreSpec.from_lines(list(lines), backend="re2")


def _read_ignore_file(path: str) -> GitIgnoreSpec | None:
    """The patterns of an ignore file, or ``None`` when it is unreadable or says nothing; a line
    that is no valid pattern is passed over, as git passes it over."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    try:
        spec = compile_patterns(lines)
    except ValueError:
        spec = compile_patterns(line for line in lines if _valid(line))
    if not any(pattern.include is not None for pattern in spec.patterns):
        return None
    return spec


def _valid(line: str) -> bool:
    try:
        compile_patterns([line])
    except ValueError:
        return False
    return True


def _relative(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` (both absolute), or ``None`` when it is not below it."""
    if path == folder:
        return ""
    prefix = folder if folder.endswith(os.sep) else folder + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


@dataclass(frozen=True, slots=True)
class Patterns:
    """A pattern list and the folder its paths are relative to (absolute)."""

    folder: str
    spec: GitIgnoreSpec

    def verdict(self, path: str, *, is_dir: bool) -> bool | None:
        """For ``path`` (absolute, below `folder`): ``True`` excluded, ``False`` re-included by
        a ``!pattern``, ``None`` no pattern says anything (or it is not below `folder`)."""
        relative = _relative(path, self.folder)
        if not relative:
            return None
        return self.spec.check_file(relative + "/" if is_dir else relative).include

    def taken_as_given(self, top: str) -> Patterns:
        """These patterns for a walk of the named folder ``top``: when they exclude ``top``
        itself (or a folder above it), they are matched relative to ``top``."""
        return replace(self, folder=top) if self.verdict(top, is_dir=True) else self


@dataclass(frozen=True, slots=True)
class IgnoreFiles:
    """The ignore files in force in a folder, each kind the deepest first.

    Attributes:
        respected: Whether ignore files count at all (``respect-gitignore``).
        in_repository: Whether the folder is in a git repository (``.gitignore`` counts).
        ignore: The ``.ignore`` files'.
        gitignore: The ``.gitignore`` files'.
        git_exclude: The repository's ``.git/info/exclude``, then the global excludes file
            (both relative to the repository root).
    """

    respected: bool = True
    in_repository: bool = False
    ignore: tuple[Patterns, ...] = ()
    gitignore: tuple[Patterns, ...] = ()
    git_exclude: tuple[Patterns, ...] = ()

    def verdict(self, path: str, *, is_dir: bool) -> bool:
        """Whether they ignore ``path``: the first kind with a say decides, in each kind the
        deepest file with one."""
        for kind in (self.ignore, self.gitignore, self.git_exclude):
            for patterns in kind:
                found = patterns.verdict(path, is_dir=is_dir)
                if found is not None:
                    return found
        return False

    def entering(self, folder: str, names: Container[str]) -> IgnoreFiles:
        """Those in force inside ``folder`` (absolute), which holds the entries ``names``: its
        own ignore files added; a folder with ``.git`` starts a repository of its own."""
        if not self.respected:
            return self
        files = self
        if GIT in names:
            exclude = _git_exclude(os.path.join(folder, GIT))
            everywhere = _global_excludes()
            files = IgnoreFiles(
                in_repository=True,
                ignore=self.ignore,
                git_exclude=tuple(
                    Patterns(folder, spec) for spec in (exclude, everywhere) if spec is not None
                ),
            )
        if IGNORE in names and (spec := _read_ignore_file(os.path.join(folder, IGNORE))):
            files = replace(files, ignore=(Patterns(folder, spec), *files.ignore))
        if (
            files.in_repository
            and GITIGNORE in names
            and (spec := _read_ignore_file(os.path.join(folder, GITIGNORE)))
        ):
            files = replace(files, gitignore=(Patterns(folder, spec), *files.gitignore))
        return files

    def taken_as_given(self, top: str) -> IgnoreFiles:
        """Those of the folders above the named folder ``top``, for a walk of it."""
        return replace(
            self,
            ignore=tuple(p.taken_as_given(top) for p in self.ignore),
            gitignore=tuple(p.taken_as_given(top) for p in self.gitignore),
            git_exclude=tuple(p.taken_as_given(top) for p in self.git_exclude),
        )


@functools.cache
def _global_excludes() -> GitIgnoreSpec | None:
    """git's global excludes file, found as ripgrep finds it, without running git: the
    ``core.excludesFile`` of ``$XDG_CONFIG_HOME/git/config`` (or ``~/.config/git/config``) or of
    ``~/.gitconfig`` (the later wins), else ``$XDG_CONFIG_HOME/git/ignore``
    (``~/.config/git/ignore``)."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    path = os.path.join(config_home, "git", "ignore")
    for config in (os.path.join(config_home, "git", "config"), os.path.expanduser("~/.gitconfig")):
        path = _excludes_file(config) or path
    return _read_ignore_file(path)


def _excludes_file(config: str) -> str | None:
    """The ``excludesFile`` of the ``[core]`` section of the git configuration file
    ``config``, ``~`` expanded, if it sets one."""
    try:
        text = Path(config).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = None
    section = ""
    for line in text.splitlines():
        header = re.match(r"\s*\[\s*([^\]\s]+)", line)
        if header:
            section = header[1].lower()
            line = line[line.index("]") + 1 :] if "]" in line else ""
        setting = re.match(r"\s*excludesfile\s*=\s*(.*?)\s*$", line, re.I)
        if section == "core" and setting:
            found = os.path.expanduser(setting[1].strip('"'))
    return found


def _git_exclude(git: str) -> GitIgnoreSpec | None:
    """The ``info/exclude`` of the repository whose ``.git`` is ``git``: a folder, or the file
    of a worktree or submodule (``gitdir: PATH``, whose ``commondir`` holds ``info/``)."""
    folder = os.path.dirname(git)
    if os.path.isfile(git):
        try:
            text = Path(git).read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        git = os.path.join(folder, text.removeprefix("gitdir:").strip())
        try:
            common = Path(git, "commondir").read_text(encoding="utf-8").strip()
        except OSError:
            common = ""
        if common:
            git = os.path.join(git, common)
    return _read_ignore_file(os.path.join(git, "info", "exclude"))


def _entries(folder: str) -> set[str]:
    """The names of the ignore files and ``.git`` that ``folder`` holds."""
    return {
        name for name in (GIT, IGNORE, GITIGNORE) if os.path.lexists(os.path.join(folder, name))
    }


class Exclusions:
    """What a run passes over, for walks and (with ``--force-exclude``) for named paths; the
    ignore files read are kept for the run.

    Args:
        patterns: The configuration's ``exclude`` (or the default) then ``extend-exclude``.
        root: The folder they are relative to (the configuration's).
        respect_gitignore: Whether the ignore files count.
    """

    def __init__(self, patterns: Sequence[str], *, root: Path, respect_gitignore: bool) -> None:
        self._root = os.path.abspath(root)
        spec = compile_patterns(patterns)
        self._exclude = spec if spec.patterns else None
        self._respect = respect_gitignore
        self._inside: dict[str, tuple[IgnoreFiles, bool]] = {}
        self._repository: dict[str, str | None] = {}

    def walk_start(self, top: str) -> tuple[Patterns | None, IgnoreFiles]:
        """For a walk of the folder ``top`` (absolute): the configuration's patterns, and the
        ignore files of the folders above it in its repository (the walk adds its own), both
        taken as given for it (see the module)."""
        exclude = None
        if self._exclude is not None:
            below = _relative(top, self._root) is not None
            exclude = Patterns(self._root if below else top, self._exclude).taken_as_given(top)
        if not self._respect:
            return exclude, IgnoreFiles(respected=False)
        parent = os.path.dirname(top)
        if self._repository_of(top) in (None, top) or parent == top:
            return exclude, IgnoreFiles()
        above, _ = self._ignore_files_inside(parent)
        return exclude, above.taken_as_given(top)

    def excludes_named(self, path: str, *, is_dir: bool) -> bool:
        """Whether ``path`` (as named) is excluded or ignored, with ``--force-exclude``: by the
        configuration's patterns (a folder above it included, up to the configuration's folder;
        outside that folder, by its name), or by the ignore files of its repository (a folder
        above it ignored included)."""
        absolute = os.path.abspath(path)
        if self._exclude is not None:
            relative = _relative(absolute, self._root)
            if relative is None:
                relative = os.path.basename(absolute)
            if (
                relative
                and self._exclude.check_file(relative + "/" if is_dir else relative).include
            ):
                return True
        parent = os.path.dirname(absolute)
        if not self._respect or parent == absolute:
            return False
        files, ignored = self._ignore_files_inside(parent)
        return ignored or files.verdict(absolute, is_dir=is_dir)

    def _ignore_files_inside(self, folder: str) -> tuple[IgnoreFiles, bool]:
        """The ignore files in force in ``folder`` (absolute), from its repository root down
        (outside a repository: its own), and whether they ignore ``folder`` or a folder above it
        in the repository. Worked out from the top down, without recursing: a path may be
        thousands of folders deep."""
        chain = []  # folders not known yet, from ``folder`` up
        while folder not in self._inside:
            chain.append(folder)
            parent = os.path.dirname(folder)
            if self._repository_of(folder) in (None, folder) or parent == folder:
                break
            folder = parent
        for below in reversed(chain):
            parent = os.path.dirname(below)
            if self._repository_of(below) in (None, below) or parent == below:
                found = (IgnoreFiles().entering(below, _entries(below)), False)
            else:
                above, ignored = self._inside[parent]
                ignored = ignored or above.verdict(below, is_dir=True)
                found = (above.entering(below, _entries(below)), ignored)
            self._inside[below] = found
        return self._inside[chain[0] if chain else folder]

    def _repository_of(self, folder: str) -> str | None:
        """The root of the git repository ``folder`` (absolute) is in, or ``None`` (looked up
        folder by folder, without recursing)."""
        chain = []
        root: str | None = None
        while folder not in self._repository:
            chain.append(folder)
            parent = os.path.dirname(folder)
            if os.path.lexists(os.path.join(folder, GIT)):
                root = folder
                break
            if parent == folder:
                break
            folder = parent
        else:
            root = self._repository[folder]
        for below in chain:
            self._repository[below] = root
        return root


def excluded(exclude: Patterns | None, files: IgnoreFiles, path: str, *, is_dir: bool) -> bool:
    """Whether a walk passes over ``path`` (absolute): the configuration's patterns exclude it,
    or the ignore files in force ignore it."""
    if exclude is not None and exclude.verdict(path, is_dir=is_dir):
        return True
    return files.verdict(path, is_dir=is_dir)
