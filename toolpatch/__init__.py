"""The ``toolpatch`` distribution's own package: what is installed besides the library.

``patchcore`` is the library (pure: no printing, exits or file access). This package holds what
stands on it: the command line, ``toolpatch.cli`` (the ``cli/`` folder of the source tree), and
the optional integrations, ``toolpatch.integrations`` (``integrations/``). They are installed
inside this package so that nothing named ``cli`` or ``integrations`` lands at the top of
site-packages, where another project's could collide with it. ``python -m toolpatch`` runs the
command.
"""

import os as _os

# Run from a checkout (``python -m toolpatch`` in the repository's root folder, with toolpatch
# installed from it), this folder comes first on ``sys.path`` and shadows the installed package,
# and the command line is the sibling folder ``cli/``: look for subpackages there too. An
# installed copy holds ``cli`` itself, and is left as it is.
_SOURCE_TREE = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(_os.path.dirname(__file__), "cli")) and _os.path.isfile(
    _os.path.join(_SOURCE_TREE, "cli", "__init__.py")
):
    __path__.append(_SOURCE_TREE)
