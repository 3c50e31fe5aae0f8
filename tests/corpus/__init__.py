"""The real transcripts of ``../shared/corpus``, read in place (never copied into the repo).

What belongs here: every test that reads the shared corpus (the ``corpus`` fixture skips when
the checkout has none beside it). Every test here is marked ``slow``.
"""
