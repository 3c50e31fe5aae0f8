"""The ``toolpatch`` distribution's own package: what is installed besides the library.

``patchcore`` is the library (pure: no printing, exits or file access). This package holds what
stands on it: the command line, ``toolpatch.cli`` (the ``cli/`` folder of the source tree), and
the optional integrations, ``toolpatch.integrations`` (``integrations/``). They are installed
inside this package so that nothing named ``cli`` or ``integrations`` lands at the top of
site-packages, where another project's could collide with it. ``python -m toolpatch`` runs the
command.

The source of this package is ``src/toolpatch/``, outside the repository's root folder, so that
``python -m toolpatch`` run there finds the installed package (with its ``cli``), never a bare
folder that shadows it.
"""
