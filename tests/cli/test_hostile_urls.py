"""URLs as an attacker writes them (docs/cli.md#safety): only the documented protocols are read,
nothing is sent to a URL that was read, no object's name leads a write outside what the user
named, and no URL's secret is shown in any output.

The HTTP server is a real one (``http.server`` on a loopback port) that records every request
it is sent: a refused URL must reach it with none. The S3 cases run against moto's server
(`tests.object_store`).
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import DANGLING, toolpatch_toml, write
from tests.helpers import Result, run
from tests.object_store import S3Server, toolpatch

#: The password and token the URLs below carry (never to be shown).
PASSWORD = "S3cretPw"
TOKEN = "T0kenVal"


class Recorder(http.server.SimpleHTTPRequestHandler):
    """Serves a folder (its listings as HTML pages with links, ``../`` included), and records
    the method and path of every request, whatever it is."""

    requests: list[str]

    def log_message(self, format: str, *args: object) -> None:
        self.requests.append(self.requestline)

    def do_POST(self) -> None:  # what fsspec's HTTP file system writes with
        self.requests.append(self.requestline)
        self.send_response(200)
        self.end_headers()

    do_PUT = do_POST


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A web server on a loopback port serving a history and a folder of them (whose listing
    links to ``../``), for the module; its address and the requests it received."""
    root = tmp_path_factory.mktemp("web")
    write(root / "x.json", DANGLING)
    write(root / "dir" / "y.json", DANGLING)
    requests: list[str] = []
    handler = type("Handler", (Recorder,), {"requests": requests})

    def serve(*args: object) -> http.server.BaseHTTPRequestHandler:
        return handler(*args, directory=str(root))  # type: ignore[arg-type]

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), serve)  # type: ignore[arg-type]
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{web.server_address[1]}", requests
    finally:
        web.shutdown()
        web.server_close()


@pytest.fixture
def web(server: tuple[str, list[str]]) -> tuple[str, list[str]]:
    """The web server, with no request received yet."""
    server[1].clear()
    return server


def errors(result: Result) -> list[str]:
    """The error lines of a run, each one line (its input, ``error:``, why)."""
    return [line for line in result.stderr_lines if ": error: " in line]


@pytest.mark.parametrize(
    "command", [["check"], ["fix"], ["fix", "--diff"], ["check", "--fix"], ["strip"]]
)
@pytest.mark.parametrize(
    "url",
    [
        "http://{host}/x.json",
        "https://{host}/x.json",
        "http://{host}/dir/",  # a listing, walked by its links
        "zip://x.json::http://{host}/a.zip",  # a chain
        "s3://bucket/x.json::http://{host}/x.json",  # a chain from a permitted protocol
        "ftp://{host}/x.json",
    ],
)
def test_only_the_documented_protocols_are_read(
    web: tuple[str, list[str]], tmp_path: Path, command: list[str], url: str
) -> None:
    """Each is that input's error, one line, exit 2; the server is never asked anything (no
    GET, no listing walked, no POST of a repair); the other input is still checked."""
    host, requests = web
    given = url.format(host=host)
    write(tmp_path / "h.json", DANGLING)
    result = run([*command, "--force", given, "h.json"], cwd=tmp_path, expect=2)
    assert requests == []
    (line,) = errors(result)
    assert line.startswith(f"{given}: error: ") and "not read" in line, result.show()
    noun = "input" if given.endswith("/") else "file"  # a prefix is no file
    assert f"1 {noun} could not be processed" in result.said  # and the other one was


def test_an_output_prefix_of_another_protocol_is_a_usage_error(
    web: tuple[str, list[str]], tmp_path: Path
) -> None:
    host, requests = web
    write(tmp_path / "in" / "h.json", DANGLING)
    for prefix in (f"http://{host}/out/", f"zip://o.json::file://{tmp_path}/o.zip"):
        result = run(["fix", "--force", f"file://{tmp_path / 'in'}/", "-o", prefix], expect=2)
        assert "Invalid value for --output" in result.stderr and "not read or written" in (
            result.stderr
        ), result.show()
    assert requests == []
    assert [p.name for p in tmp_path.iterdir()] == ["in"]


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--output-format", "concise"],
        ["check", "--output-format", "full"],
        ["check", "--output-format", "json"],
        ["check", "--output-format", "jsonl"],
        ["check", "--output-format", "github"],
        ["check", "--output-format", "sarif"],
        ["check", "--output-format", "html"],
        ["check", "--statistics"],
        ["check", "-v"],
        ["fix"],
        ["fix", "--diff"],
        ["fix", "-o", "out"],
        ["strip"],
    ],
)
def test_no_url_secret_is_shown_in_any_output(
    web: tuple[str, list[str]], tmp_path: Path, args: list[str]
) -> None:
    """A URL's password and secret parameters are shown as ``***`` (`integrations.redaction`), in
    the report of every format, the errors and the summary, with a history's findings beside."""
    host, _ = web
    url = f"http://alice:{PASSWORD}@{host}/x.json?token={TOKEN}&part=1"
    write(tmp_path / "in" / "h.json", DANGLING)
    local = f"file://{tmp_path / 'in'}/"
    result = run([*args, "--force", url, local], cwd=tmp_path, expect=2)
    everything = result.stdout.decode() + result.stderr
    assert PASSWORD not in everything and TOKEN not in everything, result.show()
    shown = f"http://alice:***@{host}/x.json?token=***&part=1"
    assert shown in everything, result.show()


def test_a_named_file_url_is_redacted_as_every_url_is(tmp_path: Path) -> None:
    """An object's name is its URL redacted even when its reading fails for another reason
    (no such object), the message of the failure included."""
    result = run(["check", f"file://bob:{PASSWORD}@{tmp_path}/none.json"], expect=2)
    assert PASSWORD not in result.stderr and "bob:***@" in result.stderr, result.show()


def test_an_output_folder_symlink_leading_outside_is_not_followed(tmp_path: Path) -> None:
    """``-o out`` where ``out/sub`` is a link to a folder outside ``out``: the input that
    would be written through it is that input's error, and nothing outside ``out`` changes."""
    write(tmp_path / "in" / "a.json", DANGLING)
    write(tmp_path / "in" / "sub" / "b.json", DANGLING)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "sub").symlink_to(tmp_path / "elsewhere")
    result = run(["fix", "--force", f"file://{tmp_path / 'in'}/", "-o", "out"], cwd=tmp_path)
    assert result.code == 2, result.show()
    (line,) = errors(result)
    assert line.startswith(f"file://{tmp_path / 'in' / 'sub' / 'b.json'}: error: not written")
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert (tmp_path / "out" / "a.json").is_file()


@pytest.mark.slow  # talks to moto's server and runs the command in processes: seconds
@pytest.mark.parametrize("exclude", ["exclude = []", 'exclude = ["node_modules"]'])
def test_an_object_name_never_leads_a_write_outside_the_prefix(
    s3_server: S3Server, tmp_path: Path, exclude: str
) -> None:
    """An object named ``in/../../../../x/pwn.json`` (a project setting lets the walk take
    every name): ``fix -o DIR`` writes nothing outside DIR, ``fix`` in place writes no other
    object, and every command reports it as that input's error (exit 2, one line)."""
    bucket = s3_server.bucket()
    fs = s3_server.fs()
    fs.pipe_file(f"{bucket}/in/ok.json", DANGLING)
    hostile = f"{bucket}/in/../../../../x/pwn.json"
    fs.pipe_file(hostile, DANGLING)
    work = tmp_path / "a" / "b" / "c" / "work"
    toolpatch_toml(work, exclude + "\n")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    keys = {key: fs.info(key)["ETag"] for key in fs.find(bucket)}
    url = f"s3://{bucket}/in/"
    for args in (["fix", url, "-o", "out"], ["fix", url], ["check", url], ["fix", "--diff", url]):
        result = toolpatch(s3_server, [*args, "--force"], work)
        assert result.code == 2, result.show()
        (line,) = errors(result)
        assert line.startswith(f"s3://{hostile}: error: ") and "'..'" in line, result.show()
    after = sorted(str(p) for p in tmp_path.rglob("*"))
    assert [p for p in after if p not in before] == [str(work / "out"), str(work / "out/ok.json")]
    fs.invalidate_cache()
    assert set(fs.find(bucket)) == set(keys)
    assert fs.info(hostile)["ETag"] == keys[hostile]
