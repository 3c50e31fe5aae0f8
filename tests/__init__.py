"""toolpatch's test suite, one folder per level (CONTRIBUTING.md says what goes where).

* ``unit/``: the library's parts one at a time, in process (engine, pairing, splicing, ...).
* ``layouts/``: each dialect, container and session layout, and streaming.
* ``cli/``: the real ``toolpatch`` entry point (in process, or in a subprocess where a real
  process is the point), the samples through it.
* ``properties/``: generated and corrupted histories (hypothesis), and the atheris fuzz run.
* ``corpus/``: the real transcripts of ``../shared/corpus``, read in place.
* ``conformance/``: real libraries and tools judge toolpatch's output or code.

``properties/``, ``corpus/`` and ``conformance/`` are marked ``slow`` (``tests/conftest.py``), as
are single slow tests elsewhere: ``python -m pytest -m "not slow"`` is the fast loop.

The modules here are shared helpers, imported as ``tests.<name>`` (a test module imports what
it shares from them, never from another test module): ``helpers`` (the synthetic texts, the two
runners of the real entry point), ``builders`` (shared test data and builders),
``langchain_builders`` (the same for the LangChain middleware), ``object_store`` (the S3
server), ``robustness`` (hostile input, snapshots),
``provider_rules`` (an independent validator of each provider's rules), ``sample_cases`` (the
shipped samples' data), ``langchain_samples`` (the LangChain samples' generator),
``session_logs`` (builders of agent session logs) and ``interrupt_probe``.
"""
