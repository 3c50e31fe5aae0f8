"""``python -m cli`` runs the ``toolpatch`` command."""

from cli.app import main

if __name__ == "__main__":  # worker processes of --jobs import this module without running it
    main()
