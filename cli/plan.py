"""A run's inputs resolved once from its PATHs, and where its product goes (`Plan`): every
usage error the two hold together is raised here, before any input is read (`Settings.of`
builds the plan, check-jsonschema's split of building from running)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import typer
from msgspec import structs

from .input_run import Mode
from .inputs import DEFAULT_WALK, Source, WalkSettings, may_be_url, resolve
from .object_inputs import RefusedURL, checked_url, object_sources, split_urls
from .output_sinks import InPlace, Target, ToFile, ToPrefix, ToStdout
from .stores import split_paths

if TYPE_CHECKING:
    from .settings import Settings


class Plan(msgspec.Struct, frozen=True):
    """A run's inputs, resolved once: its files, stdin and objects, its store URLs, and where
    its product goes."""

    sources: list[Source]
    stores: list[str]
    target: Target


def input_sources(
    paths: list[str] | None,
    *,
    stdin_filename: str | None,
    skip: bool,
    walk: WalkSettings | None = None,
) -> list[Source]:
    """The inputs; with ``skip``, named files without a history are skipped, not errors."""
    sources = resolve(paths or [], stdin_filename=stdin_filename, walk=walk or DEFAULT_WALK)
    return [structs.replace(source, explicit=False) for source in sources] if skip else sources


def _target(mode: Mode, output: Path | str | None, *, urls: bool) -> Target:
    """``-o`` of a run: for ``fix`` over URLs, a PREFIX each input is written under (a URL or
    a folder; ``-`` stays standard output); else ``-`` or a file.

    Raises:
        typer.BadParameter: The PREFIX is a URL toolpatch does not write (`checked_url`).
    """
    if output is None:
        return InPlace()
    if output in ("-", Path("-")):  # the one place ``-o -`` is read
        return ToStdout()
    if mode is Mode.FIX and urls:
        try:
            return ToPrefix(checked_url(str(output)))
        except RefusedURL as exc:
            raise typer.BadParameter(str(exc), param_hint="--output") from None
    return ToFile(Path(output))


def _split(paths: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The PATHs as local paths (and ``-``), store URLs and object URLs, each in its order. Only
    a URL (`may_be_url`) or a folder (opencode's storage is named by its store URL) can be
    other than a local path."""
    if not any(may_be_url(path) or os.path.isdir(path) for path in paths):
        return paths, [], []
    paths, stores = split_paths(paths)
    paths, urls = split_urls(paths)
    return paths, stores, urls


def plan_of(settings: Settings, *, strip: bool) -> Plan:
    """The inputs of a run of ``check``, ``fix`` or ``strip`` (``strip``) and where its product
    goes. What the settings ask that these inputs cannot do is a usage error, located at its
    option.

    Raises:
        typer.BadParameter: ``-o``, ``--dask``, ``--thread`` or a store URL where it cannot be.
    """
    mode = settings.mode
    paths, stores, urls = _split(settings.paths or [])
    target = _target(mode, settings.output, urls=bool(urls))
    prefix = target.url if isinstance(target, ToPrefix) else None
    skip = settings.skip_no_history  # a named object without a history is skipped too
    sources = (
        input_sources(paths, stdin_filename=settings.stdin_filename, skip=skip, walk=settings.walk)
        if paths or not (stores or urls)
        else []
    )
    if prefix is not None and sources:
        msg = "a PREFIX for URL inputs: name every input by its URL (file:// for local files)"
        raise typer.BadParameter(msg, param_hint="--output")
    for source in object_sources(urls, walk=settings.walk, output_prefix=prefix) if urls else ():
        sources.append(structs.replace(source, explicit=False) if skip else source)
    fixes_to = None if mode is not Mode.FIX or isinstance(target, (InPlace, ToPrefix)) else target
    if settings.dask is not None and any(source.is_stdin for source in sources):
        msg = "runs files and URLs on the cluster, not standard input"
        raise typer.BadParameter(msg, param_hint="--dask")
    if settings.dask is not None and isinstance(fixes_to, ToStdout):
        msg = "runs on the cluster, whose workers write files and objects, not this stdout"
        raise typer.BadParameter(msg, param_hint="--output")
    if settings.threads and not stores:
        msg = "names threads of a store: give a langgraph+ or agents+ URL"
        raise typer.BadParameter(msg, param_hint="--thread")
    if strip and stores:
        msg = (
            "strip reads files; a store's repair is undone by going back to the checkpoint "
            "or item before it (docs/stores.md#rolling-back)"
        )
        raise typer.BadParameter(msg, param_hint="PATH")
    if fixes_to is not None and stores:
        msg = "a store is repaired in place, not written to -o"
        raise typer.BadParameter(msg, param_hint="--output")
    if fixes_to is not None and len(sources) != 1:
        msg = f"needs exactly one input, got {len(sources)}"
        raise typer.BadParameter(msg, param_hint="--output")
    return Plan(sources, stores, target)
