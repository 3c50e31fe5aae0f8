"""``python -m toolpatch`` runs the ``toolpatch`` command, as the console script does."""

from toolpatch.cli.app import console

if __name__ == "__main__":  # worker processes of --jobs import this module without running it
    console()
