"""Time toolpatch against its baselines, interleaved in one run, and print the table.

``python -m benchmarks.run`` generates the bench corpora (``benchmarks.corpus``: 5,000
conversations per dialect, LangChain and OpenAI Chat, and a realistic LangChain corpus with 0.1
% of calls unanswered), then runs every case ``--repeat`` times, round-robin (so a machine that
slows down mid-run slows every case alike), each case a process of its own: plain ``toolpatch
fix`` of the file (every core, as a user runs it) and with ``--jobs 1``, plain ``fix -`` as a
filter (``< corpus > out``), plain ``check``, the bare orjson pass, the filter and the bare pass
again with their output to ``/dev/null`` (the compute ratios, beside the ratios with files
written), the same pass on the corpus's two halves at once (the machine's two-process capacity),
and deepagents' middleware when it is installed; over the realistic corpus, plain ``fix`` and
``check``; then, with ``distributed`` installed, ``fix --dask`` on clusters of one and two
workers, round-robin too, the clusters up only while their own cases run. It prints medians,
ratios against the bare pass, and each case's peak RSS (its largest process), then the targets
with their verdicts. Start-up (``toolpatch check`` of a small clean file against ``python -c
"import typer"``) and, with ``--memory-gb``, the peak RSS of a corpus of that size piped through
``fix -`` and of a clean corpus of that size in short lines checked with ``--jobs 1`` are
measured the same way.

Ratios, not seconds, are what is compared: they hold across machines. ``--conversations 50
--repeat 1`` is the smoke run CI does to prove the runner works.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.cluster import has_distributed, local_clusters, parts
from benchmarks.corpus import write

#: The share of calls the realistic corpus leaves unanswered (the bench corpus: 3 %).
REALISTIC_UNANSWERED = 0.001
#: The name the realistic corpus's cases go by.
REALISTIC = "realistic (langchain, 0.1 % unanswered)"

TOOLPATCH = [sys.executable, "-m", "toolpatch"]
BASELINES = [sys.executable, "-m", "benchmarks.baselines"]
MEASURE = [sys.executable, "-m", "benchmarks.measure"]
SMALL_CLEAN = b'{"messages": [{"role": "user", "content": "hi"}]}\n'


@dataclass
class Case:
    """One command, timed as many times as the run repeats."""

    name: str
    argv: Callable[[Path], list[str]]
    """The command for a scratch folder (where it may write its output)."""
    ok: tuple[int, ...] = (0,)
    stdin: Path | None = None
    """A file the command reads as its standard input, its output going to a scratch file."""
    null: bool = False
    """Its standard output goes to ``/dev/null`` instead (a compute ratio's case)."""
    seconds: list[float] = field(default_factory=list)
    peak_kb: int = 0

    def run(self, scratch: Path) -> None:
        command = self.argv(scratch)
        piped = [] if self.stdin is None else ["--stdin", str(self.stdin)]
        out = os.devnull if self.null else str(scratch / "piped")
        piped += [] if self.stdin is None else ["--stdout", out]
        measured = subprocess.run(
            [*MEASURE, *piped, *command], capture_output=True, check=True, text=True
        )
        result = json.loads(measured.stdout)
        if result["exit"] not in self.ok:
            msg = f"{self.name}: exit {result['exit']} ({' '.join(command)})"
            raise SystemExit(msg)
        self.seconds.append(result["seconds"])
        self.peak_kb = max(self.peak_kb, result["peak_kb"])

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def has_deepagents() -> bool:
    try:
        import deepagents  # noqa: F401
    except ImportError:
        return False
    return True


def halves(corpus: Path) -> tuple[Path, Path]:
    """The corpus cut in two at the line break nearest its middle, as two files beside it."""
    data = corpus.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    first, second = corpus.with_suffix(".half1.jsonl"), corpus.with_suffix(".half2.jsonl")
    first.write_bytes(data[:cut])
    second.write_bytes(data[cut:])
    return first, second


def corpus_cases(corpus: Path, dialect: str, *, deepagents: bool) -> list[Case]:
    """The cases over one corpus (deepagents reads LangChain only)."""

    def toolpatch(*args: str) -> Callable[[Path], list[str]]:
        return lambda scratch: [*TOOLPATCH, *args]

    first, second = halves(corpus)
    cases = [
        Case(f"{dialect}: bare orjson", lambda s: [*BASELINES, "bare", str(corpus), str(s / "b")]),
        Case(
            f"{dialect}: bare orjson{TO_NULL}",
            lambda s: [*BASELINES, "bare", str(corpus), os.devnull],
        ),
        Case(
            f"{dialect}: bare orjson, two halves at once",
            lambda s: [*BASELINES, "bare-pair", str(first), str(second), str(s / "h")],
        ),
        Case(
            f"{dialect}: fix --jobs 1",
            lambda s: [*TOOLPATCH, "fix", "-j1", "-o", str(s / "f1"), str(corpus)],
        ),
        Case(f"{dialect}: fix", lambda s: [*TOOLPATCH, "fix", "-o", str(s / "f"), str(corpus)]),
        Case(f"{dialect}: fix - (a pipe)", toolpatch("fix", "-"), stdin=corpus),
        Case(f"{dialect}: fix - (a pipe){TO_NULL}", toolpatch("fix", "-"), stdin=corpus, null=True),
        Case(f"{dialect}: check", toolpatch("check", str(corpus)), ok=(0, 1)),
    ]
    if deepagents and dialect == "langchain":
        cases.append(
            Case(
                f"{dialect}: deepagents",
                lambda s: [*BASELINES, "deepagents", str(corpus), str(s / "d")],
            )
        )
    return cases


def realistic_cases(corpus: Path) -> list[Case]:
    """Plain ``fix`` and ``check`` over the realistic corpus, where few lines need a fix: there
    a fix should cost little more than the check it starts with."""
    return [
        Case(
            f"{REALISTIC}: fix",
            lambda s: [*TOOLPATCH, "fix", "-o", str(s / "r"), str(corpus)],
        ),
        Case(f"{REALISTIC}: check", lambda s: [*TOOLPATCH, "check", str(corpus)], ok=(0, 1)),
    ]


def dask_cases(corpus: Path, dialect: str, addresses: dict[int, str]) -> list[Case]:
    """``fix --dask`` of the corpus cut into parts, on each cluster of ``addresses`` (scheduler
    addresses by number of workers), and of an empty folder there: what a run pays whatever its
    work (importing ``distributed``, connecting, listing the URL), which `dask_work_ratio` takes
    off both sides of the ratio."""
    folder = parts(corpus)
    nothing = folder.with_suffix(".empty")
    nothing.mkdir(exist_ok=True)
    cases = []
    for workers, address in addresses.items():
        name = f"{dialect}: fix --dask, {workers} worker{'s' if workers > 1 else ''}"
        for given, suffix, out in ((folder, "", ""), (nothing, NO_INPUT, "-none")):
            fix_on = [*TOOLPATCH, "fix", "--dask", address, f"file://{given}/", "-o"]
            output = f"dask{workers}{out}"
            cases.append(
                Case(name + suffix, lambda s, fix_on=fix_on, o=output: [*fix_on, f"{s}/{o}/"])
            )
    return cases


def dask_work_ratio(cases: dict[str, Case], dialect: str) -> tuple[float, float] | None:
    """``fix --dask``'s work on one worker over its work on two, each its run's time less the
    run with no input on the same cluster; and the ratio of the two runs' whole times, as a user
    waits for them. A millisecond at least of work on each side: a tiny corpus (the tests')
    does about none."""
    names = [
        f"{dialect}: fix --dask, {w}{suffix}"
        for w in ("1 worker", "2 workers")
        for suffix in ("", NO_INPUT)
    ]
    if not all(name in cases for name in names):
        return None
    one, one_fixed, two, two_fixed = (cases[name].median for name in names)
    work = max(one - one_fixed, 1e-3) / max(two - two_fixed, 1e-3)
    return work, one / two


def startup_cases(small: Path) -> list[Case]:
    return [
        Case("start-up: import typer", lambda s: [sys.executable, "-c", "import typer"]),
        Case("start-up: toolpatch check", lambda s: [*TOOLPATCH, "check", str(small)]),
    ]


def interleave(cases: Sequence[Case], repeat: int, scratch: Path) -> None:
    """Run every case ``repeat`` times, round-robin. Each run writes into an empty folder: the
    outputs of the run before are removed first, untimed, so that every command writes a new
    file as a first run does (writing over the last run's output would add freeing it, about
    0.1 s for 160 MB on ext4, to whichever case wrote there: docs/benchmarks.md#the-baselines)."""
    outputs = scratch / "outputs"
    for _ in range(repeat):
        for case in cases:
            shutil.rmtree(outputs, ignore_errors=True)
            outputs.mkdir()
            case.run(outputs)


def ratio(cases: dict[str, Case], top: str, bottom: str) -> float | None:
    if top not in cases or bottom not in cases:
        return None
    return cases[top].median / cases[bottom].median


def table(cases: Sequence[Case]) -> list[str]:
    """A row per case: its median, its ratio to its corpus's bare pass and, for a case written
    to ``/dev/null`` (and ``check``, which writes no file), to the bare pass written there too
    (the compute ratio), and its peak RSS."""
    rows = [
        "| case | median (s) | vs bare | compute vs bare | peak RSS (MB) |",
        "|---|---:|---:|---:|---:|",
    ]
    named = {c.name: c for c in cases}
    for case in cases:
        dialect = case.name.split(":")[0]
        bare = named.get(f"{dialect}: bare orjson")
        times_bare = f"{case.median / bare.median:.2f}" if bare else ""
        null = named.get(f"{dialect}: bare orjson{TO_NULL}")
        computed = case.name.endswith(TO_NULL) or case.name == f"{dialect}: check"
        compute = f"{case.median / null.median:.2f}" if null and computed else ""
        rows.append(
            f"| {case.name} | {case.median:.3f} | {times_bare} | {compute} | "
            f"{case.peak_kb / 1024:.0f} |"
        )
    return rows


#: What the name of a case written to ``/dev/null`` ends with: the compute ratios' cases.
TO_NULL = ", to /dev/null"
#: What the name of a ``--dask`` case of an empty folder ends with: its run's fixed cost.
NO_INPUT = ", no input"

#: The targets (docs/benchmarks.md#targets-and-verdicts): (label, case over, case under, bound
#: for each dialect, whether the ratio is an upper bound). ``{d}`` stands for each corpus
#: dialect. The OpenAI Chat corpus's records are short, so what each record costs sets its
#: ratio: its bounds are looser than LangChain's.
TARGETS: tuple[tuple[str, str, str, dict[str, float], bool], ...] = (
    (
        "{d}: fix - (a pipe) / bare",
        "{d}: fix - (a pipe)",
        "{d}: bare orjson",
        {"langchain": 2.0, "openai-chat": 2.2},
        True,
    ),
    (
        "{d}: check / bare",
        "{d}: check",
        "{d}: bare orjson",
        {"langchain": 1.3, "openai-chat": 1.5},
        True,
    ),
    ("{d}: deepagents / fix", "{d}: deepagents", "{d}: fix", {"langchain": 4.0}, False),
)
#: For each target's case, its twin written to ``/dev/null`` and the bare pass's: the compute
#: ratio printed beside the verdict (``check`` writes no file: it is its own twin).
COMPUTE = {
    "{d}: fix - (a pipe)": ("{d}: fix - (a pipe)" + TO_NULL, "{d}: bare orjson" + TO_NULL),
    "{d}: check": ("{d}: check", "{d}: bare orjson" + TO_NULL),
}
#: The targets measured once: start-up, and fix against check on the realistic corpus.
ONCE = (
    (
        "start-up: toolpatch check / import typer",
        "start-up: toolpatch check",
        "start-up: import typer",
        1.5,
        True,
    ),
    (f"{REALISTIC}: fix / check", f"{REALISTIC}: fix", f"{REALISTIC}: check", 1.2, True),
)
#: Plain ``fix`` (every core) must get this share of what two independent processes get on the
#: machine.
SCALING = 0.9
#: The peak RSS of the large corpus piped through ``fix -``, at most (MB).
MEMORY_MB = 150


def verdict(label: str, value: float, bound: float, *, at_most: bool, why: str = "") -> str:
    ok = value <= bound if at_most else value >= bound
    sign = "≤" if at_most else "≥"
    return f"- {label}: {value:.2f} (target {sign} {bound:.2f}{why}) {'PASS' if ok else 'MISS'}"


def verdicts(cases: dict[str, Case], dialects: Sequence[str]) -> list[str]:
    """Each target with its measured ratio (targets whose cases did not run are left out), and
    each corpus's two-process capacity, which the ``--jobs`` target is relative to."""
    lines = []
    for d in dialects:
        for label, top, bottom, bounds, at_most in TARGETS:
            value = ratio(cases, top.format(d=d), bottom.format(d=d))
            if value is None or d not in bounds:
                continue
            why = ""
            if top in COMPUTE:
                twin, bare = (name.format(d=d) for name in COMPUTE[top])
                compute = ratio(cases, twin, bare)
                why = "" if compute is None else f"; compute ratio, to /dev/null: {compute:.2f}"
            lines.append(verdict(label.format(d=d), value, bounds[d], at_most=at_most, why=why))
        capacity = ratio(cases, f"{d}: bare orjson", f"{d}: bare orjson, two halves at once")
        speedup = ratio(cases, f"{d}: fix --jobs 1", f"{d}: fix")
        if capacity is not None and speedup is not None:
            lines.append(f"- {d}: two-process capacity (bare / two halves at once): {capacity:.2f}")
            why = f" = {SCALING:.0%} of the capacity"
            label = f"{d}: fix jobs 1 / every core"
            lines.append(verdict(label, speedup, SCALING * capacity, at_most=False, why=why))
            dask = dask_work_ratio(cases, d)
            if dask is not None:
                work, waited = dask
                label = f"{d}: fix --dask workers 1 / workers 2, the work"
                said = f"{why}; whole runs: {waited:.2f}"
                lines.append(verdict(label, work, SCALING * capacity, at_most=False, why=said))
    for label, top, bottom, bound, at_most in ONCE:
        value = ratio(cases, top, bottom)
        if value is not None:
            lines.append(verdict(label, value, bound, at_most=at_most))
    for memory in (c for n, c in cases.items() if n.startswith("memory:")):
        lines.append(
            f"- {memory.name}: peak RSS {memory.peak_kb / 1024:.0f} MB (target ≤ {MEMORY_MB}) "
            f"{'PASS' if memory.peak_kb <= MEMORY_MB * 1024 else 'MISS'}"
        )
    return lines


def memory_case(corpus: Path, gigabytes: float, scratch: Path) -> Case:
    """A corpus of about ``gigabytes`` (the bench corpus repeated), piped through ``fix -`` in
    one process, as ``cat corpus | toolpatch fix - > out`` runs it."""
    big = scratch / "memory.jsonl"
    with big.open("wb") as out:
        while out.tell() < gigabytes * 1e9:
            with corpus.open("rb") as part:
                shutil.copyfileobj(part, out)
    return Case(
        f"memory: {big.stat().st_size / 1e9:.1f} GB piped through fix -",
        lambda s: [*TOOLPATCH, "fix", "-j1", "-"],
        stdin=big,
    )


def short_lines_case(gigabytes: float, scratch: Path) -> Case:
    """A clean corpus of about ``gigabytes`` in short lines (a one-message list each, about 60
    bytes), checked in one process: what a run keeps per line, if anything, shows here."""
    big = scratch / "short-lines.jsonl"
    block = b"".join(
        b'{"messages": [{"role": "user", "content": "hi %d"}]}\n' % k for k in range(100_000)
    )
    with big.open("wb") as out:
        while out.tell() < gigabytes * 1e9:
            out.write(block)
    return Case(
        f"memory: {big.stat().st_size / 1e9:.1f} GB of short lines, check --jobs 1",
        lambda s: [*TOOLPATCH, "check", "-j1", str(big)],
    )


def compile_bytecode() -> None:
    """Write the bytecode of toolpatch's own modules, as an installed copy has it (pip compiles
    at install). An editable install run with ``PYTHONDONTWRITEBYTECODE`` never writes it, and
    every start would then compile some fifty modules from source (~100 ms), which measures the
    checkout, not the tool."""
    import compileall

    import patchcore
    import toolpatch
    import toolpatch.cli
    import toolpatch.integrations

    for package in (toolpatch, toolpatch.cli, toolpatch.integrations, patchcore):
        compileall.compile_dir(Path(str(package.__file__)).parent, quiet=1)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--memory-gb", type=float, default=0.0, help="also fix a corpus this big")
    parser.add_argument("--dialects", default="langchain,openai-chat")
    parser.add_argument("--keep", type=Path, help="folder to keep the corpora in (reused)")
    args = parser.parse_args(argv)
    dialects = args.dialects.split(",")
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="toolpatch-bench-") as tmp:
        scratch = Path(tmp)
        folder = args.keep or scratch
        folder.mkdir(parents=True, exist_ok=True)
        cases: list[Case] = []
        corpora = []
        for dialect in dialects:
            corpus = folder / f"{dialect}-{args.conversations}.jsonl"
            if not corpus.exists():
                write(corpus, dialect=dialect, conversations=args.conversations)
            corpora.append(corpus)
            cases += corpus_cases(corpus, dialect, deepagents=has_deepagents())
        realistic = folder / f"realistic-{args.conversations}.jsonl"
        if not realistic.exists():
            write(
                realistic,
                dialect="langchain",
                conversations=args.conversations,
                unanswered=REALISTIC_UNANSWERED,
            )
        cases += realistic_cases(realistic)
        small = scratch / "small.json"
        small.write_bytes(SMALL_CLEAN)
        startup = startup_cases(small)
        interleave(cases, args.repeat, scratch)
        if has_distributed():
            # --dask (on the first corpus): clusters of 1 and 2 workers, up only while their
            # own cases run (idle, they took 3-5 % from the cases that use both cores)
            with local_clusters(1, 2) as addresses:
                dask = dask_cases(corpora[0], dialects[0], addresses)
                interleave(dask, args.repeat, scratch)
            after = max(k for k, c in enumerate(cases) if c.name.startswith(f"{dialects[0]}:"))
            cases[after + 1 : after + 1] = dask  # shown with the first corpus's cases
        interleave(startup, max(args.repeat, 5) * 2, scratch)
        cases += startup
        if args.memory_gb:
            memory = memory_case(
                folder / f"{dialects[0]}-{args.conversations}.jsonl", args.memory_gb, scratch
            )
            short = short_lines_case(args.memory_gb, scratch)
            interleave([memory, short], 1, scratch)
            cases += [memory, short]
        print(
            f"{args.conversations} conversations per corpus, {args.repeat} runs each, "
            f"{os.cpu_count()} cores, Python {sys.version.split()[0]}\n"
        )
        print("\n".join(table(cases)))
        print()
        print("\n".join(verdicts({c.name: c for c in cases}, dialects)))


if __name__ == "__main__":
    main()
