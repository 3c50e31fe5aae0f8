"""``check --output-format html`` (docs/cli.md#html-report): the page says what the JSON report
says, runs nothing a history holds, and opens in a real browser without an error.

The browser tests run Debian's ``chromium`` headless (``.ci/run`` installs it): its console
(``--enable-logging=stderr``) must stay silent, a Content-Security-Policy violation or an
uncaught error included, and the DOM it dumps after the page's script ran must show the
findings; a screenshot of each page is kept in the test's temporary folder. One test drives
the page's controls over the DevTools protocol, as a person's clicks and keys would.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES
from tests.helpers import run, run_process

#: What a history may hold to break out of its place in the page.
HOSTILE = '</script><script>alert(1);document.documentElement.dataset.pwned="script"</script>'
HOSTILE_IMG = "<img src=x onerror=\"document.documentElement.dataset.pwned='img'\">"
HOSTILE_COMMENT = "<!--<script>"


class Page(HTMLParser):
    """What a test reads of the page: the totals, and the text of each data block."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.totals: dict[str, int] = {}
        self.blocks: dict[str, str] = {}
        self.scripts: list[dict[str, str | None]] = []
        self._total: str | None = None
        self._block: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if "data-total" in named:
            self._total = named["data-total"]
        if tag == "script":
            self.scripts.append(named)
            self._block = named.get("id") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._block = None

    def handle_data(self, data: str) -> None:
        if self._total is not None:
            self.totals[self._total] = int(data)
            self._total = None
        elif self._block is not None:
            self.blocks[self._block] = self.blocks.get(self._block, "") + data

    def data(self) -> dict[str, Any]:
        return json.loads(self.blocks["report-data"])

    def excerpts(self) -> list[Any]:
        return json.loads(self.blocks["report-excerpts"])


def html_report(args: list[str], cwd: Path | None = None) -> Page:
    result = run(["check", "--output-format", "html", *args], cwd=cwd)
    assert result.code in (0, 1, 2), result.show()
    return Page(result.stdout.decode("utf-8"))


def json_totals(args: list[str], cwd: Path | None = None) -> dict[str, int]:
    """The totals the page shows, counted from the JSON report's records."""
    result = run(["check", "--output-format", "json", *args], cwd=cwd)
    records = json.loads(result.stdout)
    findings = [r for r in records if r["kind"] == "finding"]
    fixes = Counter(r["fix"]["applicability"] if r["fix"] else "none" for r in findings)
    return {
        "findings": len(findings),
        "files_with_findings": len({r["file"] for r in findings}),
        "safe": fixes["safe"],
        "unsafe": fixes["unsafe"],
        "none": fixes["none"],
        "warnings": sum(r["kind"] == "warning" for r in records),
        "errors": sum(r["kind"] == "error" for r in records),
    }


def assert_same_as_json(args: list[str], cwd: Path | None = None) -> Page:
    page = html_report(args, cwd)
    expected = json_totals(args, cwd)
    shown = {key: page.totals.get(key, 0) for key in expected}
    assert shown == expected
    records = json.loads(run(["check", "--output-format", "json", *args], cwd=cwd).stdout)
    findings = [r for r in records if r["kind"] == "finding"]
    data = page.data()
    rows = [
        {
            "file": data["files"][row[0]],
            "line": row[1],
            "column": row[2],
            "code": row[3],
            "tool_name": row[4],
            "call_id": row[5],
            "pointer": row[6],
            "origin": row[12],
        }
        for row in data["rows"]
    ]
    expected = [
        {
            **{key: r[key] for key in ("file", "line", "column", "code", "tool_name", "call_id")},
            "pointer": r["pointer"],
            "origin": r["fix"] and r["fix"]["origin"],
        }
        for r in findings
    ]
    assert rows == expected
    return page


def corpus(folder: Path, conversations: int) -> Path:
    """A generated corpus: one conversation per line, some answered, some dangling (TP001 or
    TP002), some with a malformed call (TP003), and an orphan result now and then (TP101, fixed
    only with --unsafe-fixes); plus a file that is not JSON."""
    lines = []
    for n in range(conversations):
        tool = f"tool_{n % 7}"
        call = {"id": f"c{n}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
        if n % 5 == 0:
            call["function"]["arguments"] = '{"q": '
        messages: list[Any] = [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ]
        if n % 3 == 0:
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"})
        if n % 4 == 1:
            messages.append({"role": "user", "content": "and then?"})
        if n % 11 == 0:
            messages.append({"role": "tool", "tool_call_id": "nobody", "content": "orphan"})
        lines.append(json.dumps({"messages": messages}))
    path = folder / "corpus.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (folder / "broken.json").write_text('{"messages": [')
    return path


def test_totals_equal_the_json_reports_on_the_samples() -> None:
    page = assert_same_as_json([str(SAMPLES)])
    assert page.totals["findings"] > 50
    assert page.totals["files"] > 100


def test_totals_equal_the_json_reports_on_a_generated_corpus(tmp_path: Path) -> None:
    corpus(tmp_path, 300)
    page = assert_same_as_json(["--select", "ALL", "."], cwd=tmp_path)
    assert page.totals["unsafe"] > 0
    assert page.totals["errors"] == 1
    assert page.totals["conversations"] == 300
    tenths = Counter(row[10] for row in page.data()["rows"])
    assert sum(tenths.values()) == page.totals["findings"]


def test_each_finding_has_its_excerpt_with_the_inserted_result(tmp_path: Path) -> None:
    corpus(tmp_path, 30)
    page = html_report(["corpus.jsonl"], cwd=tmp_path)
    rows, excerpts = page.data()["rows"], page.excerpts()
    assert len(excerpts) == len(rows) > 0
    for row, items in zip(rows, excerpts, strict=True):
        kinds = [kind for kind, _, _ in items]
        assert "call" in kinds
        if row[7] == "safe":
            (inserted,) = [text for kind, _, text in items if kind == "insert"]
            assert row[5] in inserted  # the synthetic result names its call
        # the calling message, counted as the table counts it ("6 of 8", not "#5")
        (title,) = [title for kind, title, _ in items if kind == "call"]
        assert title.startswith(f"#{row[8] + 1} "), (title, row[8])


def test_excerpts_are_capped(tmp_path: Path) -> None:
    """A long history gives a short excerpt: a few messages around the call, each cut short."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages: list[Any] = [{"role": "user", "content": "x" * 100_000}] * 200
    messages += [{"role": "assistant", "tool_calls": [call]}]
    messages += [{"role": "user", "content": "y" * 100_000}] * 200
    (tmp_path / "long.json").write_text(json.dumps({"messages": messages}))
    result = run(["check", "--output-format", "html", "long.json"], cwd=tmp_path, expect=1)
    assert len(result.stdout) < 60_000
    (items,) = Page(result.stdout.decode()).excerpts()
    assert [kind for kind, _, _ in items].count("gap") == 2


def hostile_history() -> dict[str, Any]:
    call = {
        "id": HOSTILE_IMG,
        "type": "function",
        "function": {"name": HOSTILE, "arguments": json.dumps({"q": HOSTILE_COMMENT + HOSTILE})},
    }
    return {
        "messages": [
            {"role": "user", "content": HOSTILE_COMMENT + HOSTILE + HOSTILE_IMG},
            {"role": "assistant", "content": HOSTILE, "tool_calls": [call]},
            {"role": "user", "content": "next"},
        ]
    }


def write_hostile(folder: Path) -> Path:
    path = folder / f"{HOSTILE_IMG[:12]}.json".replace("/", "_")
    path.write_text(json.dumps(hostile_history()))
    (folder / "warned.json").write_text(
        json.dumps(
            [
                {"role": "user", "content": HOSTILE},
                {"type": "function_call_output", "call_id": HOSTILE, "output": HOSTILE_IMG},
                {"role": "tool", "tool_call_id": HOSTILE_IMG, "content": "x"},
            ]
        )
    )
    return path


def test_hostile_text_is_escaped_everywhere(tmp_path: Path) -> None:
    write_hostile(tmp_path)
    result = run(["check", "--output-format", "html", "."], cwd=tmp_path, expect=1)
    text = result.stdout.decode()
    for raw in ("<script>alert", "<img src=x", "<!--<script>", 'onerror="document'):
        assert raw not in text
    page = Page(text)
    # Only the page's own three script elements: two data blocks and its script.
    assert [s.get("type") for s in page.scripts] == ["application/json", "application/json", None]
    data = page.data()
    (row,) = data["rows"]
    assert (row[4], row[5]) == (HOSTILE, HOSTILE_IMG)  # the exact values, once parsed
    assert any(HOSTILE in text for _, _, text in page.excerpts()[0])
    assert page.totals["warnings"] >= 1
    # the Kind column's words are kept whole (the cells' "wrap anywhere" made "warni/ng")
    assert '<td class="kind">warning</td>' in text
    assert ".grid .kind { white-space: nowrap; overflow-wrap: normal; }" in text


def test_the_page_loads_nothing_and_runs_only_its_own_script(tmp_path: Path) -> None:
    write_hostile(tmp_path)
    text = run(["check", "--output-format", "html", "."], cwd=tmp_path).stdout.decode()
    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    policy = html.unescape(policy)
    assert policy.startswith("default-src 'none';")
    assert "unsafe-inline" not in policy
    assert re.search(r"\b(src|href)=\"?(https?:)?//", text) is None


def test_written_to_a_file_with_o(tmp_path: Path) -> None:
    (tmp_path / "h.json").write_text(json.dumps(hostile_history()))
    result = run(["check", "--output-format", "html", "-o", "r.html", "h.json"], cwd=tmp_path)
    assert result.code == 1 and not result.stdout
    assert Page((tmp_path / "r.html").read_text()).totals["findings"] == 1


def test_without_the_html_extra_the_run_says_what_to_install(tmp_path: Path) -> None:
    (tmp_path / "h.json").write_text(json.dumps(hostile_history()))
    hide_jinja = (
        "import sys; sys.modules['jinja2'] = None; sys.argv[0] = 'toolpatch'; "
        "from toolpatch.cli.app import main; main()"
    )
    result = run_process(
        ["check", "--output-format", "html", "h.json"],
        command=[sys.executable, "-c", hide_jinja],
        cwd=tmp_path,
        expect=2,
    )
    assert "pip install 'toolpatch-cli[html]'" in result.stderr
    assert not result.stdout


# ---------------------------------------------------------------------------------------------
# In a real browser


def chromium() -> str:
    """Debian's chromium; in CI (``CI`` set) its absence fails the test, elsewhere skips it."""
    found = shutil.which("chromium")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


#: Chromium without a window, a sandbox (root in CI), a GPU, or any network of its own.
#: How long a step of the browser may take before the test calls it hung: a guard against a hang,
#: not a speed bound, so generous enough for a 2-core machine running two suites at once.
HANG = 300

HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def browse(page: Path, folder: Path, *, fragment: str = "") -> tuple[str, list[str]]:
    """Open ``page`` in headless chromium: the DOM after its script ran, the console's lines
    (anything the page logs, uncaught errors and policy violations included); a screenshot is
    kept beside it as ``<page>.png``."""
    browser = chromium()
    url = page.resolve().as_uri() + fragment
    flags = [
        *HEADLESS,
        f"--user-data-dir={folder / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1400,2000",
    ]
    dumped = subprocess.run(
        [browser, *flags, "--dump-dom", url], capture_output=True, timeout=HANG, check=False
    )
    assert dumped.returncode == 0, dumped.stderr.decode(errors="replace")
    shot = page.with_suffix(".png")
    subprocess.run(
        [browser, *flags, f"--screenshot={shot}", url],
        capture_output=True,
        timeout=HANG,
        check=True,
    )
    assert shot.stat().st_size > 10_000
    stderr = dumped.stderr.decode(errors="replace")
    console = [line for line in stderr.splitlines() if ":CONSOLE" in line]
    return dumped.stdout.decode(), console


@pytest.mark.slow
def test_the_samples_page_opens_in_a_browser_without_an_error(tmp_path: Path) -> None:
    page = tmp_path / "samples.html"
    run(["check", "--output-format", "html", "-o", str(page), str(SAMPLES)])
    excerpts = Page(page.read_text()).excerpts()
    # the first finding whose fix inserts a result (a sample's first may set a part's state)
    first = next(k for k, items in enumerate(excerpts) if any(i[0] == "insert" for i in items))
    dom, console = browse(page, tmp_path, fragment=f"#finding={first}")
    assert console == []
    assert 'data-ready="true"' in dom
    assert dom.count('<tr class="row') >= 50 + 15  # a page of findings, a page of files
    assert '<li class="insert">' in dom  # that finding's excerpt, opened by the link


@pytest.mark.slow
def test_hostile_text_runs_nothing_in_a_browser(tmp_path: Path) -> None:
    write_hostile(tmp_path)
    page = tmp_path / "hostile.html"
    run(["check", "--output-format", "html", "-o", str(page), "."], cwd=tmp_path)
    dom, console = browse(page, tmp_path, fragment="#finding=0")
    assert console == []  # not even a script the policy blocked
    assert 'data-ready="true"' in dom
    assert "data-pwned" not in dom
    assert '<li class="insert">' in dom


@pytest.mark.slow
def test_a_hundred_thousand_findings_open_in_a_browser(tmp_path: Path) -> None:
    """docs/cli.md#html-report: the page grows with the findings (under a kilobyte each), and a
    browser draws the first page of 100,000 of them. How fast is measured there, not held here:
    a wall-clock bound failed on a loaded machine, where the test proves nothing about speed."""
    call = '{"id": "c%d", "type": "function", "function": {"name": "tool_%d", "arguments": "{}"}}'
    # recorded requests (their model), not fine-tuning examples whose target is the call
    line = '{"model": "gpt-4o", "messages": [{"role": "user", "content": "question %d"}, '
    line += '{"role": "assistant", "content": null, "tool_calls": [' + call + "]}]}\n"
    (tmp_path / "big.jsonl").write_text("".join(line % (n, n, n % 40) for n in range(100_000)))
    page = tmp_path / "big.html"
    result = run_process(
        ["check", "--output-format", "html", "-o", str(page), "big.jsonl"],
        cwd=tmp_path,
        timeout=600,
    )
    assert result.code == 1, result.show()
    assert page.stat().st_size < 100_000 * 1_000  # under a kilobyte a finding
    dom, console = browse(page, tmp_path)
    assert console == []
    assert 'data-ready="true"' in dom
    assert "100000 of 100000" in dom


class DevTools:
    """A headless chromium driven over the DevTools protocol (`websockets`' client): evaluate
    script in the page as a person's clicks and keys would, and collect what its console says
    (messages, uncaught exceptions, policy violations)."""

    def __init__(self, url: str, folder: Path) -> None:
        from websockets.sync.client import connect

        profile = folder / "devtools-profile"
        self.process = subprocess.Popen(
            [
                chromium(),
                *HEADLESS,
                f"--user-data-dir={profile}",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "--window-size=1400,2000",
                url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # No keepalive pings: their thread draws from the global `random` (websockets'
            # ping payloads), which Hypothesis takes, in a later test, for a strategy's doing.
            self.socket = connect(self._page(profile), max_size=None, ping_interval=None)
            self.socket.__enter__()  # websockets 17 wants its connection entered, as a `with`
        except BaseException:
            self._stop()
            raise
        self.next_id = 0
        self.console: list[Any] = []
        for domain in ("Runtime.enable", "Log.enable"):
            self.call(domain)

    @staticmethod
    def _page(profile: Path) -> str:
        """The DevTools address of the page chromium opened (it writes its port once up)."""
        from urllib.request import urlopen

        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + HANG
        while not port_file.exists() or not port_file.read_text().strip():
            assert time.monotonic() < deadline, "chromium gave no DevTools port"
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        while True:
            with urlopen(f"http://127.0.0.1:{port}/json/list") as listing:
                pages = [t for t in json.load(listing) if t["type"] == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
            assert time.monotonic() < deadline, "chromium opened no page"
            time.sleep(0.1)

    def call(self, method: str, **params: Any) -> Any:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=HANG))
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message["result"]
            if message.get("method") in (
                "Runtime.consoleAPICalled",
                "Runtime.exceptionThrown",
                "Log.entryAdded",
            ):
                self.console.append(message["params"])

    def value(self, expression: str) -> Any:
        """What ``expression`` gives in the page (after its script has run)."""
        deadline = time.monotonic() + HANG
        while (
            self.call("Runtime.evaluate", expression="document.documentElement.dataset.ready")[
                "result"
            ].get("value")
            != "true"
        ):
            assert time.monotonic() < deadline, "the page's script never finished"
            time.sleep(0.1)
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def close(self) -> None:
        try:
            self.socket.__exit__(None, None, None)
        finally:
            self._stop()

    def _stop(self) -> None:
        """End chromium and reap it (a process left to the garbage collector warns later, in
        whichever test is running then)."""
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.mark.slow
def test_the_tables_sort_filter_page_and_open_excerpts(tmp_path: Path) -> None:
    """The page's controls, used as a person would (DevTools protocol): filtering, sorting,
    paging, picking a file and opening a finding; the console stays silent throughout."""
    page = tmp_path / "samples.html"
    run(["check", "--output-format", "html", "-o", str(page), str(SAMPLES)])
    records = json.loads(run(["check", "--output-format", "json", str(SAMPLES)]).stdout)
    findings = [r for r in records if r["kind"] == "finding"]
    fields = ("file", "code", "tool_name", "call_id", "pointer", "message")
    weather = [f for f in findings if any("get_weather" in str(f[k]).lower() for k in fields)]
    browser = DevTools(page.resolve().as_uri(), tmp_path)
    try:
        shown_rows = "document.querySelectorAll('#findings tbody tr.row').length"
        assert browser.value(shown_rows) == 50
        assert browser.value("document.getElementById('row-count').textContent") == (
            f"{len(findings)} of {len(findings)}"
        )
        browser.value("document.querySelector('#findings-pager button:last-child').click()")
        assert browser.value(shown_rows) == min(50, len(findings) - 50)
        type_in = (
            "(() => { const f = document.getElementById('filter'); f.value = 'GET_WEATHER';"
            " f.dispatchEvent(new Event('input')); })()"
        )
        browser.value(type_in)
        assert browser.value(shown_rows) == len(weather) > 0
        line = "document.querySelector('#findings th[data-key=line]')"
        browser.value(f"{line}.click(); {line}.click()")
        assert browser.value(f"{line}.getAttribute('aria-sort')") == "descending"
        lines = browser.value(
            "[...document.querySelectorAll('#findings tbody tr.row td:nth-child(2)')]"
            ".map(td => parseInt(td.textContent))"
        )
        assert lines == sorted((f["line"] for f in weather), reverse=True)
        browser.value(  # the first that fix repairs: it has a result to insert
            "[...document.querySelectorAll('#findings tbody tr.row')]"
            ".find(tr => tr.querySelector('td.fix.safe')).click()"
        )
        assert browser.value("document.querySelectorAll('#findings tr.detail').length") == 1
        assert browser.value("document.querySelectorAll('#findings li.insert').length") >= 1
        browser.value(
            "(() => { const f = document.getElementById('filter'); f.value = '';"
            " f.dispatchEvent(new Event('input'));"
            " document.querySelector('#files tbody tr.row').click(); })()"
        )
        picked = browser.value("document.querySelector('#files tbody tr.row td').textContent")
        listed = browser.value(
            "[...document.querySelectorAll('#findings tbody tr.row td:first-child')]"
            ".map(td => td.textContent)"
        )
        assert listed and set(listed) == {picked}
        assert len(listed) == sum(f["file"] == picked for f in findings)
    finally:
        browser.close()
    assert browser.console == []
