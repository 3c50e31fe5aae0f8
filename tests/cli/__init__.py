"""The command line, run as a user runs it: the real entry point, in the test process
(``tests.helpers.run``) or, where a real process is the point, in a subprocess
(``tests.helpers.run_process``).

What belongs here: ``check``, ``fix``, ``show``, ``rules`` and their options, output formats,
configuration, the terminal (colour, progress), start-up imports, the README's session, the
pre-commit hooks, hostile input and failure injection around the in-place write, and every
shipped sample through the CLI (``test_samples.py``).
"""
