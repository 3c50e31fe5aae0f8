"""``toolpatch proxy``'s command line: what it refuses before it listens (docs/proxy.md).

The proxy itself, run as a process in front of a fake upstream, is tested in
``tests/conformance/test_proxy.py``; these are the usage errors, which end the run with exit
code 2 and say which option is wrong, without binding anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import run

UPSTREAM = "http://127.0.0.1:9"

REFUSED = {
    "a listen address that is not loopback": (
        ["--listen", "0.0.0.0:8787"],
        "0.0.0.0 is not a loopback address",
    ),
    "a host name, which only its resolution would tell": (
        ["--listen", "example.com:8787"],
        "give --allow-remote to listen there anyway",
    ),
    "no port": (["--listen", "127.0.0.1"], "expected HOST:PORT"),
    "a port past 65535": (["--listen", "127.0.0.1:70000"], "expected HOST:PORT"),
    "an upstream that is not http": (["--upstream", "ftp://host/x"], "not an http:// or https://"),
    "an upstream with a query": (["--upstream", "https://host/?k=v"], "base URL"),
    "an unknown rule": (["--select", "TP999"], "TP999"),
    "an unknown repair": (["--repair", "guess"], "--repair"),
    "an unknown target": (["--target", "nowhere"], "--target"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_what_the_proxy_refuses_before_it_listens(case: str, tmp_path: Path) -> None:
    options, said = REFUSED[case]
    upstream = [] if "--upstream" in options else ["--upstream", UPSTREAM]
    result = run(["proxy", *upstream, "--isolated", *options], cwd=tmp_path, expect=2)
    assert said in result.stderr, result.stderr
    assert "listening" not in result.stderr


def test_an_upstream_password_is_never_printed(tmp_path: Path) -> None:
    result = run(
        ["proxy", "--upstream", "ftp://alice:S3cretPw@host/", "--isolated"], cwd=tmp_path, expect=2
    )
    assert "S3cretPw" not in result.stderr and "alice:***@host" in result.stderr


def test_the_upstream_is_required(tmp_path: Path) -> None:
    result = run(["proxy", "--isolated"], cwd=tmp_path, expect=2)
    assert "--upstream" in result.stderr
