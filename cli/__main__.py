"""``python -m cli`` runs the ``toolpatch`` command."""

from cli.app import main

main()
