"""Where a SARIF log says a file is: relative to the directory toolpatch ran in, or a file URI.

Code scanning matches a result to a file of the repository by its relative URI, and turns an
absolute one into a relative one only if it is a ``file://`` URI under the source root it is
given. So a file inside the working directory is named relative to it, with the ``uriBaseId``
``%SRCROOT%``, which the run defines (``originalUriBaseIds``: the directory as a file URI ending
in ``/``) and the invocation repeats as its ``workingDirectory``; a file outside it (an absolute
path elsewhere, ``../``) has no relative name and gets its absolute ``file://`` URI. Names are
taken as given, symlinks not resolved: they are the names people and the repository use. An
object of a store is named by its URL, an absolute URI already.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from ..object_inputs import is_object_url

#: The base id of relative artifact URIs: the directory toolpatch ran in.
SRCROOT = "%SRCROOT%"


def directory_uri(directory: Path) -> str:
    """``directory`` (absolute) as a file URI ending in ``/``, as a base URI must."""
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def relative_uri(path: str) -> str:
    """A relative path as a relative URI reference: ``/`` separators, other characters escaped
    where a URI needs it (``:`` too, which would otherwise read as a scheme)."""
    return quote(path, safe="/@!$&'()*+,;=-._~")


def artifact_location(file: str, root: Path) -> dict[str, str]:
    """The ``artifactLocation`` of the input named ``file``, for a run in ``root`` (absolute);
    an object named by its URL (``s3://bucket/key``) is that absolute URI."""
    if is_object_url(file):
        return {"uri": file}
    absolute = Path(os.path.abspath(root / file))
    try:
        inside = absolute.relative_to(root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": relative_uri(inside.as_posix()), "uriBaseId": SRCROOT}
