"""Unit tests: the library's parts one at a time, called in process, no subprocess.

What belongs here: the pairing engine and the message-list API, byte locating and splicing, the
quick lane, the signs of a history in bytes that are not JSON, never trusting the data (as a
library). A test that needs a dialect's whole layout goes in ``layouts/``; one that runs
``toolpatch`` goes in ``cli/``.
"""
