"""A real S3-compatible server for the tests of URL inputs and ``--dask``: moto's server (what
s3fs's own test suite runs against), started once per session on a free port of 127.0.0.1 and
stopped at its end, and the environment that points the AWS SDK (and so s3fs) at it.

The credentials are made up; the server accepts any. `SECRET` is distinctive so that a test can
tell it was never printed.
"""

from __future__ import annotations

import gzip
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import SAMPLES, Result, clean_env, run_process

#: The made-up secret key every run is given (never to be printed).
SECRET = "tp-secret-2f9c4e1d7b"
#: How long the server may take to answer its first request.
START_SECONDS = 60


@dataclass(frozen=True)
class S3Server:
    """A running server: its address, and the environment variables that reach it."""

    endpoint: str
    env: dict[str, str]

    def fs(self) -> Any:
        """An s3fs file system on the server, for the test's own reads and writes."""
        import s3fs

        return s3fs.S3FileSystem(
            key=self.env["AWS_ACCESS_KEY_ID"],
            secret=SECRET,
            endpoint_url=self.endpoint,
            skip_instance_cache=True,
        )

    def bucket(self) -> str:
        """A new, empty bucket's name."""
        name = f"tp-{uuid.uuid4().hex[:12]}"
        self.fs().mkdir(name)
        return name


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(endpoint: str) -> bool:
    try:
        with urllib.request.urlopen(endpoint, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True  # it answered
    except OSError:
        return False


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server on a loopback port, for the whole session."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("moto") / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(endpoint):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"moto's S3 server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        nowhere = str(Path(str(log)).with_name("none"))
        env = {
            "AWS_ACCESS_KEY_ID": "tp-test-key",
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": endpoint,
            # no credentials or settings of the machine's own user
            "AWS_CONFIG_FILE": nowhere,
            "AWS_SHARED_CREDENTIALS_FILE": nowhere,
        }
        yield S3Server(endpoint, env)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def with_s3(server: S3Server) -> dict[str, str]:
    """The tests' clean environment plus the server's (for the command in a subprocess)."""
    return clean_env(**server.env)


def set_s3_env(server: S3Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point this process (and the processes it starts) at the server."""
    for key, value in server.env.items():
        monkeypatch.setenv(key, value)


#: Sample folders of every kind of input: documents, conversation lines, message lines, agent
#: session logs.
FOLDERS = ("openai-chat", "langchain", "claude-code", "codex", "gemini-cli")


def tree(root: Path) -> Path:
    """The inputs: samples (inputs and expected outputs alike: both are histories), a gzip copy
    of one corpus in a subfolder, hidden and ``node_modules`` folders (excluded), a text file
    (not a history file's ending) and a JSON-with-comments file of another tool."""
    for folder in FOLDERS:
        shutil.copytree(SAMPLES / folder, root / folder)
    corpus = (SAMPLES / "openai-chat" / "messages.jsonl").read_bytes()
    (root / "deep" / "er").mkdir(parents=True)
    (root / "deep" / "er" / "messages.jsonl.gz").write_bytes(gzip.compress(corpus, mtime=0))
    for excluded in (".hidden", "node_modules"):
        (root / excluded).mkdir()
        (root / excluded / "messages.jsonl").write_bytes(corpus)
    (root / "notes.txt").write_text("not a history\n")
    # another tool's file with a history's ending, not JSON: passed over, not an error
    (root / "deep" / "tsconfig.json").write_text('{\n  // strict\n  "strict": true,\n}\n')
    return root


def uploaded(server: S3Server, root: Path) -> str:
    """``root`` uploaded under a new bucket's ``in/`` prefix; its URL."""
    bucket = server.bucket()
    fs = server.fs()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            fs.pipe_file(f"{bucket}/in/{path.relative_to(root).as_posix()}", path.read_bytes())
    return f"s3://{bucket}/in/"


def toolpatch(server: S3Server, args: list[str], cwd: Path) -> Result:
    result = run_process(args, cwd=cwd, env=with_s3(server), timeout=120)
    assert SECRET not in result.stderr, result.show()
    assert SECRET.encode() not in result.stdout, result.show()
    return result


def local_names(text: str, url: str) -> str:
    """A report on the prefix, with each object's URL written as the local name (also as a
    GitHub annotation's property escapes it)."""
    return text.replace(url, "in/").replace(url.replace(":", "%3A"), "in/")
