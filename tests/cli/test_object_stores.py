"""URLs as PATH (docs/cli.md#object-stores): a prefix of a real S3-compatible server (moto's,
`tests.object_store`) checks and fixes as the same folder does on disk.

Each test builds one tree of inputs on disk (samples, compressed copies, folders the default
exclusions pass over, a file of another kind), uploads the same tree under a prefix, and runs
the command on both: the findings in every output format (files named by their URLs), the exit
codes and the bytes ``fix`` writes must be the same. The secret key the runs are given must
never be printed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.helpers import run
from tests.object_store import S3Server, local_names, set_s3_env, toolpatch, tree, uploaded

#: Every test talks to the server many times and runs the command twice: seconds each.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("output_format", ["concise", "json", "github", "sarif"])
def test_a_prefix_reports_as_the_folder_does(
    s3_server: S3Server, tmp_path: Path, output_format: str
) -> None:
    tree(tmp_path / "in")
    url = uploaded(s3_server, tmp_path / "in")
    args = ["check", "--force", "--output-format", output_format]
    local = toolpatch(s3_server, [*args, "in"], tmp_path)
    remote = toolpatch(s3_server, [*args, url], tmp_path)
    assert local.code == remote.code == 1, remote.show()
    assert local_names(remote.stderr, url) == local.stderr
    if output_format == "sarif":  # the same log, each artifact named by its URL (absolute)
        local_log = json.dumps(json.loads(local.stdout))
        remote_log = json.dumps(json.loads(remote.stdout))
        assert f'{{"uri": "{url}' in remote_log
        assert local_names(remote_log, url) == local_log.replace(', "uriBaseId": "%SRCROOT%"', "")
    else:
        assert local_names(remote.stdout.decode(), url) == local.stdout.decode()
    assert f"{url}deep/er/messages.jsonl.gz".encode() in remote.stdout + remote.stderr.encode()
    assert b".hidden" not in remote.stdout and ".hidden" not in remote.stderr


def test_fix_writes_in_place_the_bytes_a_local_fix_writes(
    s3_server: S3Server, tmp_path: Path
) -> None:
    tree(tmp_path / "in")
    url = uploaded(s3_server, tmp_path / "in")
    fs = s3_server.fs()
    bucket_in = url.removeprefix("s3://")
    before = {key: info["ETag"] for key, info in fs.find(bucket_in, detail=True).items()}
    local = toolpatch(s3_server, ["fix", "--force", "in"], tmp_path)
    remote = toolpatch(s3_server, ["fix", "--force", url], tmp_path)
    assert local.code == remote.code, remote.show()
    assert local_names(remote.stderr, url) == local.stderr
    fs.invalidate_cache()
    changed = 0
    for path in sorted((tmp_path / "in").rglob("*")):
        if not path.is_file():
            continue
        key = f"{bucket_in}{path.relative_to(tmp_path / 'in').as_posix()}"
        assert fs.cat_file(key) == path.read_bytes(), key
        if fs.info(key)["ETag"] != before[key]:
            changed += 1
    assert changed > 5  # and only those with something to fix were written
    assert changed == local.stderr.count("\nFixed in/") + local.stderr.startswith("Fixed in/")


def test_fix_writes_every_input_under_an_output_prefix(s3_server: S3Server, tmp_path: Path) -> None:
    tree(tmp_path / "in")
    url = uploaded(s3_server, tmp_path / "in")
    out = url.replace("/in/", "/out/")
    remote = toolpatch(s3_server, ["fix", "--force", url, "-o", out], tmp_path)
    toolpatch(s3_server, ["fix", "--force", "in"], tmp_path)
    fs = s3_server.fs()
    written = {key.split("/out/", 1)[1] for key in fs.find(out.removeprefix("s3://"))}
    fixed_locally = {
        path.relative_to(tmp_path / "in").as_posix(): path.read_bytes()
        for path in (tmp_path / "in").rglob("*")
        if path.name.endswith((".json", ".jsonl", ".jsonl.gz"))
        and path.name != "tsconfig.json"  # skipped (no history): nothing to write
        and ".hidden" not in path.parts
        and "node_modules" not in path.parts
    }
    assert written == set(fixed_locally), remote.show()
    for name, data in fixed_locally.items():
        assert fs.cat_file(f"{out.removeprefix('s3://')}{name}") == data, name
    unchanged = fs.find(url.removeprefix("s3://"))
    assert all(fs.cat_file(key) for key in unchanged)  # the inputs are left as they were


def test_a_missing_bucket_is_that_inputs_error(s3_server: S3Server, tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    shutil.copyfile(SAMPLES / "openai-chat" / "trailing-call.json", tmp_path / "in" / "t.json")
    url = uploaded(s3_server, tmp_path / "in")
    result = toolpatch(
        s3_server,
        ["check", "s3://tp-no-such-bucket/in/", url, "s3://tp-no-such-bucket/x.json"],
        tmp_path,
    )
    assert result.code == 2, result.show()
    errors = [line for line in result.stderr_lines if ": error: " in line]
    assert [line.split(": error: ")[0] for line in errors] == [
        "s3://tp-no-such-bucket/in/",
        "s3://tp-no-such-bucket/x.json",
    ], result.show()
    assert f"{url}t.json:8:5: TP002" in result.said  # the other input is still checked


def test_an_object_changed_while_it_is_repaired_is_not_overwritten(
    s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change is made for real in the window between the repair and the upload (before
    the sink's check of the object's ETag), as tests/cli/test_concurrent_change.py does for
    files."""
    from tests.helpers import run_main
    from toolpatch.cli.object_inputs import ObjectSink

    bucket = s3_server.bucket()
    fs = s3_server.fs()
    original = (SAMPLES / "openai-chat" / "trailing-call.json").read_bytes()
    meanwhile = (SAMPLES / "openai-chat" / "clean.json").read_bytes()
    fs.pipe_file(f"{bucket}/h.json", original)
    finish = ObjectSink.finish

    def changed_first(self: ObjectSink, **kw: object) -> None:
        fs.pipe_file(f"{bucket}/h.json", meanwhile)  # another writer, after the repair
        finish(self, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ObjectSink, "finish", changed_first)
    set_s3_env(s3_server, monkeypatch)
    assert run_main(["fix", f"s3://{bucket}/h.json"], monkeypatch) == 2
    fs.invalidate_cache()
    assert fs.cat_file(f"{bucket}/h.json") == meanwhile


def test_file_urls_are_local_files_named_by_their_url(tmp_path: Path) -> None:
    tree(tmp_path / "in")
    shutil.copytree(tmp_path / "in", tmp_path / "copy")
    url = f"file://{tmp_path / 'copy'}/"
    local = run(["check", "--force", "--output-format", "json", "in"], cwd=tmp_path)
    remote = run(["check", "--force", "--output-format", "json", url], cwd=tmp_path)
    assert remote.code == local.code == 1
    assert remote.stdout.decode().replace(url, "in/") == local.stdout.decode()
    run(["fix", "--force", "in"], cwd=tmp_path)
    run(["fix", "--force", url], cwd=tmp_path)
    for path in (tmp_path / "in").rglob("*"):
        if path.is_file():
            twin = tmp_path / "copy" / path.relative_to(tmp_path / "in")
            assert twin.read_bytes() == path.read_bytes(), path


def _folder_and_prefix(s3_server: S3Server, tmp_path: Path) -> str:
    """``in/`` on disk (a call left dangling in ``in/a.json`` and in ``in/skip/b.json``) and the
    same under a prefix, with a configuration in the current folder whose patterns name
    ``in/...`` paths (relative to its folder on disk, to the bucket for the prefix)."""
    folder = tmp_path / "in"
    (folder / "skip").mkdir(parents=True)
    shutil.copyfile(SAMPLES / "openai-chat" / "trailing-call.json", folder / "a.json")
    shutil.copyfile(SAMPLES / "openai-chat" / "trailing-call.json", folder / "skip" / "b.json")
    url = uploaded(s3_server, folder)
    (tmp_path / "toolpatch.toml").write_text(
        'extend-exclude = ["in/skip/"]\n[per-file-ignores]\n"in/a.json" = ["TP002"]\n'
    )
    return url


def test_a_prefix_is_excluded_and_configured_as_the_folder_is(
    s3_server: S3Server, tmp_path: Path
) -> None:
    """``extend-exclude`` and ``per-file-ignores`` patterns match an object by its key in the
    bucket, as a file by its path relative to the configuration's folder (the same code): the
    prefix reports what the folder reports."""
    url = _folder_and_prefix(s3_server, tmp_path)
    local = toolpatch(s3_server, ["check", "in"], tmp_path)
    remote = toolpatch(s3_server, ["check", url], tmp_path)
    assert local.code == remote.code == 0, remote.show()
    assert local_names(remote.said, url) == local.said
    assert "b.json" not in remote.said


def test_force_exclude_passes_over_a_named_object_as_a_named_file(
    s3_server: S3Server, tmp_path: Path
) -> None:
    url = _folder_and_prefix(s3_server, tmp_path)
    local = toolpatch(s3_server, ["check", "--force-exclude", "in/skip/b.json"], tmp_path)
    remote = toolpatch(s3_server, ["check", "--force-exclude", f"{url}skip/b.json"], tmp_path)
    assert local.code == remote.code, remote.show()
    assert local_names(remote.said, url) == local.said
    assert "TP002" not in remote.said
