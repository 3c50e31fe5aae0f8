"""``python -m toolpatch`` runs the ``toolpatch`` command, as the console script does."""

import os
import sys

from toolpatch.cli.app import Interrupted, main

if __name__ == "__main__":  # worker processes of --jobs import this module without running it
    try:
        main()
    except Interrupted as done:
        # Everything has unwound (temporary files removed): exit at once. CPython takes an
        # interrupt that went through an exec call (a dataclass being made, in an import) for an
        # unhandled one even once caught, and ``python -m`` would end the process by SIGINT
        # instead of with exit code 130 (a script, such as the console entry point, would not).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(done.code if isinstance(done.code, int) else 130)
