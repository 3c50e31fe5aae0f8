"""The ``toolpatch`` command line: a thin layer over ``patchcore``."""
