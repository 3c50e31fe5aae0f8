"""The command line, run as a user runs it: the real entry point in a subprocess.

What belongs here: ``check``, ``fix``, ``show``, ``rules`` and their options, output formats,
configuration, the terminal (colour, progress), start-up imports, the README's session, the
pre-commit hooks, hostile input and failure injection around the in-place write, and every
shipped sample through the CLI (``test_samples.py``).
"""
