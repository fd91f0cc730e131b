"""Under load, beside mlir-lsp-server: a large dump in hlo-lsp and an MLIR file of its size in mlir-lsp-server.

    .venv/bin/python benchmarks/load.py --mb 40 [--edits 20] [--json PATH] [--baseline PATH]
    .venv/bin/python benchmarks/load.py --dir /tmp/big40

`--mb` writes a dump with benchmarks/make_large_dump.py, `--dir` reads one already written; benchmarks/make_mlir.py
writes the MLIR file. mlir-lsp-server is Debian's `mlir-22-tools` (`benchmarks/install-mlir` installs it); without it
its column is skipped, and the run says so. Each server in turn, over stdio: idle RSS; didOpen and a hover at once
(the first hover), then a hover every 40 ms, one at a time, until the diagnostics of every file of the module (hlo-lsp
publishes the opened HLO file's first: the diagnostics row is the opened file's, and its cell gives every file's too);
one-line edits that keep the file valid, each followed by a second of hovers (a server that takes whole texts only is
sent the whole text); didClose and RSS after it. Then, in a session of its own, didOpen, a hover, and the next hover
2 s later (`--pause`), as an editor's next hover comes. RSS sums VmRSS over the server's process tree (/proc; its
peak sampled every 50 ms). XLA's C++ parser reads the module's text in a subprocess, when jax is installed.
docs/performance.md says more.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import cycle
from pathlib import Path
from typing import Any

from lsp_process import MB, ResidentMemory, Server
from make_large_dump import make_large_dump  # benchmarks/ is on sys.path when run as a script
from make_mlir import constant_edits, make_mlir, value_uses

MLIR_SERVERS = ("mlir-lsp-server", "mlir-lsp-server-22", "/usr/lib/llvm-22/bin/mlir-lsp-server")
COMPANIONS = ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt", "-memory-usage-report.txt")
Edit = tuple[int, int, int, str]  # line, start column, end column, new text
_HLO_NAME = re.compile(r"%[\w.\-]+")
_DEFINED = re.compile(r"^  (?:ROOT )?%?([\w.\-]+) = ")
_OP_NAME_LETTER = re.compile(r'op_name="[^"]*?([A-Za-z])"')
_FRAME = re.compile(r"stack_frame_id=(\d+)")


@dataclass
class Figures:
    """What one server was measured at."""

    server: str
    file_mb: float
    first_hover_s: float = 0.0
    diagnostics_s: float = 0.0  # the opened file's
    all_diagnostics_s: float = 0.0  # every file's of its module: the check's end
    errors: int = 0  # error diagnostics of the opened file
    check_hovers_ms: list[float] = field(default_factory=list)
    edit_hovers_ms: list[float] = field(default_factory=list)
    empty_hovers: int = 0  # hovers answered with nothing
    edit_diagnostics_s: float | None = None  # from the last edit to its diagnostics
    errors_after_edits: int | None = None
    rss_idle_mb: float = 0.0
    rss_open_mb: float = 0.0
    rss_peak_mb: float = 0.0
    rss_closed_mb: float = 0.0
    hover_after_pause_ms: float | None = None  # a session of its own: the hover after the first, a pause later


@dataclass
class Plan:
    """What to open in a server and ask of it."""

    command: list[str]
    path: Path
    language: str
    hovers: list[tuple[int, int]]
    edits: list[Edit]
    companions: list[Path] = field(default_factory=list)  # the module's other files: their diagnostics come too


def hover_every(server: Server, uri: str, at: Iterator[tuple[int, int]], interval: float,
                stop: Callable[[], bool], figures: Figures, at_least_once: bool = False) -> list[float]:
    """Hovers at `at`, one at a time, every `interval` seconds until `stop()` (the first one even after it,
    `at_least_once`): each one's milliseconds."""
    took: list[float] = []
    while not stop() or at_least_once and not took:
        sent = time.perf_counter()
        answered, result = server.ask("textDocument/hover", hover(uri, next(at)))
        took.append((answered - sent) * 1e3)
        figures.empty_hovers += result is None
        server.listen(stop, max(0.0, sent + interval - time.perf_counter()))
    return took


def hover(uri: str, at: tuple[int, int]) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": at[0], "character": at[1]}}


def open_and_hover(server: Server, plan: Plan, figures: Figures, interval: float) -> Iterator[tuple[int, int]]:
    """didOpen, a first hover at once, then hovers until the diagnostics of every file of the module (the opened
    file's may come first); the hover positions left."""
    uri, at, text = plan.path.as_uri(), cycle(plan.hovers), plan.path.read_text(encoding="utf-8")
    opened = time.perf_counter()
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": plan.language,
                                                            "version": 1, "text": text}})
    figures.first_hover_s = server.ask("textDocument/hover", hover(uri, next(at)))[0] - opened
    uris = [uri, *(companion.as_uri() for companion in plan.companions)]
    checked = lambda: all(server.diagnostics_after(each, opened) is not None for each in uris)  # noqa: E731
    figures.check_hovers_ms = hover_every(server, uri, at, interval, checked, figures)
    server.listen(checked)
    when, figures.errors = server.diagnostics_after(uri, opened) or (opened, 0)
    last = max((server.diagnostics_after(each, opened) or (opened, 0))[0] for each in uris)
    figures.diagnostics_s, figures.all_diagnostics_s = when - opened, last - opened
    return at


def edit_and_hover(server: Server, plan: Plan, figures: Figures, at: Iterator[tuple[int, int]],
                   interval: float, window: float) -> None:
    """Each edit, then hovers for `window` seconds; then the diagnostics of the last version."""
    uri, edited = plan.path.as_uri(), time.perf_counter()
    lines = plan.path.read_text(encoding="utf-8").split("\n") if server.whole_texts else []
    for version, (line, start, end, text) in enumerate(plan.edits, start=2):
        change: dict[str, Any] = {"range": {"start": {"line": line, "character": start},
                                            "end": {"line": line, "character": end}}, "text": text}
        if server.whole_texts:
            lines[line] = lines[line][:start] + text + lines[line][end:]
            change = {"text": "\n".join(lines)}
        edited = time.perf_counter()
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
        # (writing a whole text to a server still reading the last one may take longer than the window)
        figures.edit_hovers_ms += hover_every(server, uri, at, interval, passed(edited + window), figures, True)
    if plan.edits and server.listen(lambda: server.diagnostics_after(uri, edited) is not None, 300):
        when, figures.errors_after_edits = server.diagnostics_after(uri, edited) or (edited, 0)
        figures.edit_diagnostics_s = when - edited


def passed(moment: float) -> Callable[[], bool]:
    return lambda: time.perf_counter() >= moment


def measure(name: str, plan: Plan, options: argparse.Namespace) -> Figures:
    """One server's figures on the file of `plan`."""
    figures = Figures(name, plan.path.stat().st_size / MB)
    server = Server(plan.command)
    memory = ResidentMemory(server.pid)
    try:
        server.start(plan.path.parent)
        server.listen(lambda: False, options.settle)  # the server readies itself (hlo-lsp builds its parser)
        figures.rss_idle_mb = memory.peak = memory.now()
        at = open_and_hover(server, plan, figures, options.interval)
        figures.rss_open_mb = memory.now()
        edit_and_hover(server, plan, figures, at, options.interval, options.window)
        figures.rss_peak_mb = max(memory.peak, memory.now())
        server.notify("textDocument/didClose", {"textDocument": {"uri": plan.path.as_uri()}})
        server.listen(lambda: False, options.settle)
        figures.rss_closed_mb = memory.now()
    finally:
        memory.stop()
        server.close()
    if options.pause:
        figures.hover_after_pause_ms = hover_after_pause(plan, options.pause)
    return figures


def hover_after_pause(plan: Plan, pause: float) -> float:
    """Milliseconds of the hover an editor asks next, `pause` seconds after the first one after didOpen (the
    cursor moved), in a session of its own."""
    server = Server(plan.command)
    try:
        server.start(plan.path.parent)
        uri = plan.path.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": plan.language, "version": 1,
                                                                "text": plan.path.read_text(encoding="utf-8")}})
        server.ask("textDocument/hover", hover(uri, plan.hovers[0]))
        server.listen(lambda: False, pause)
        asked = time.perf_counter()
        return (server.ask("textDocument/hover", hover(uri, plan.hovers[1 % len(plan.hovers)]))[0] - asked) * 1e3
    finally:
        server.close()


def hlo_hovers(lines: list[str], count: int, seed: int = 7) -> list[tuple[int, int]]:
    """(line, column) on an instruction's name, its own or an operand's, on `count` random instruction lines."""
    rng = random.Random(seed)
    picked = []
    for number in rng.sample([n for n, text in enumerate(lines) if _DEFINED.match(text)], count):
        sigils = [match.start() + 1 for match in _HLO_NAME.finditer(lines[number])]
        picked.append((number, rng.choice(sigils) if sigils else len(lines[number]) - len(lines[number].lstrip())))
    return picked


def hlo_edits(lines: list[str], count: int, seed: int = 11) -> list[Edit]:
    """`count` one-line edits that keep the module valid, each on the text the ones before it left: a
    letter of an op_name, and every other edit a stack_frame_id changed to another id the module uses."""
    rng = random.Random(seed)
    named = [number for number, text in enumerate(lines) if _OP_NAME_LETTER.search(text)]
    framed = [number for number in named if _FRAME.search(lines[number])]
    frames = sorted({match.group(1) for number in framed for match in _FRAME.finditer(lines[number])})
    edited: dict[int, str] = {}
    edits: list[Edit] = []
    for k in range(count):
        number = rng.choice(framed if k % 2 else named)
        text = edited.get(number, lines[number])
        found = (_FRAME if k % 2 else _OP_NAME_LETTER).search(text)
        assert found is not None
        old = found.group(1)
        new = rng.choice([frame for frame in frames if frame != old] or [old]) if k % 2 else "xy"[old == "x"]
        edits.append((number, found.start(1), found.end(1), new))
        edited[number] = text[:found.start(1)] + new + text[found.end(1):]
    return edits


def hlo_plan(hlo: Path, options: argparse.Namespace) -> Plan:
    lines = hlo.read_text(encoding="utf-8").split("\n")
    console_script = Path(sys.executable).with_name("hlo-lsp")
    command = [str(console_script)] if console_script.exists() else [sys.executable, "-m", "hlo_lsp"]
    hovers = hlo_hovers(lines, min(options.positions, sum(1 for text in lines if _DEFINED.match(text))))
    companions = [path for suffix in COMPANIONS if (path := hlo.with_name(hlo.stem + suffix)).exists()]
    return Plan(command, hlo, "hlo", hovers, hlo_edits(lines, options.edits), companions)


def mlir_plan(server: str, mlir: Path, options: argparse.Namespace) -> Plan:
    lines = mlir.read_text(encoding="utf-8").split("\n")
    return Plan([server], mlir, "mlir", value_uses(lines, options.positions), constant_edits(lines, options.edits))


def mlir_server() -> str | None:
    return next((found for name in MLIR_SERVERS if (found := shutil.which(name))), None)


XLA_PARSE = """import sys, time
from jax._src.lib import xla_client
text = open(sys.argv[1], encoding="utf-8").read()
start = time.perf_counter()
xla_client.hlo.hlo_module_from_text(text)
print(time.perf_counter() - start)
"""


def xla_parse(hlo: Path) -> tuple[float | None, str]:
    """Seconds XLA's C++ parser takes on the module's text, or None and why not."""
    done = subprocess.run([sys.executable, "-c", XLA_PARSE, str(hlo)], capture_output=True, text=True)
    if done.returncode:
        lines = done.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit {done.returncode}"
    return float(done.stdout.split()[-1]), ""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1e3:.2f} s"


def hovers_cell(figures: Figures, samples: list[float]) -> tuple[float | None, str]:
    if not samples:
        return None, "blocks until parsed" if figures.first_hover_s >= figures.diagnostics_s else "no hover"
    p99 = percentile(samples, 0.99)  # (and the slowest, which a percentile of a few hundred hovers leaves out)
    return p99, f"{duration(p99)} (p50 {duration(percentile(samples, 0.5))}, max {duration(max(samples))})"


def cells(figures: Figures | None) -> list[tuple[float | None, str]]:
    """One server's value (as the ratio compares it) and cell, row by row."""
    if figures is None:
        return [(None, "skipped")] * 6
    f, times = figures, figures.rss_peak_mb / figures.file_mb
    every = f" (every file {f.all_diagnostics_s:.2f} s)" if f.all_diagnostics_s > f.diagnostics_s else ""
    return [(f.diagnostics_s, f"{f.diagnostics_s:.2f} s{every}"), hovers_cell(f, f.check_hovers_ms),
            hovers_cell(f, f.edit_hovers_ms), (times, f"{f.rss_peak_mb:.0f} MB = {times:.1f}× the module"),
            (f.first_hover_s, f"{f.first_hover_s:.2f} s"),
            (None, f"{f.rss_idle_mb:.0f} → {f.rss_open_mb:.0f} → {f.rss_closed_mb:.0f} MB")]


def verdict(value: float | None, bound: float | None) -> str:
    return "n/a" if value is None or bound is None else "yes" if value <= bound else "no"


def table(ours: Figures, theirs: Figures | None, xla: float | None, options: argparse.Namespace) -> list[list[str]]:
    """The rows: label, hlo-lsp, mlir-lsp-server, ratio, target, met?"""
    mine, other = cells(ours), cells(theirs)
    ratios = [m[0] / o[0] if m[0] is not None and o[0] else None for m, o in zip(mine, other)]
    xla_target = f"≤ 0.5× XLA's C++ parse ({xla:.2f} s)" if xla is not None else "≤ 0.5× XLA's C++ parse (skipped)"
    rows = [
        ("didOpen → diagnostics published", "≤ 1.0× mlir-lsp-server (stretch: 0.5×)",
         "stretch" if ratios[0] is not None and ratios[0] <= 0.5 else verdict(ratios[0], 1.0)),
        (f"hover p99 while the initial check runs (hover every {options.interval * 1e3:.0f} ms)", "≤ 10 ms",
         verdict(mine[1][0], 10)),
        (f"hover p99 in the second after each of {options.edits} one-line edits", "≤ 10 ms",
         verdict(mine[2][0], 10)),
        ("resident memory, server and every process it starts", "≤ 8×", verdict(mine[3][0], 8)),
        ("first hover after didOpen", xla_target, verdict(mine[4][0], 0.5 * xla if xla is not None else None)),
        ("RSS idle → after open → after close", "after close ≤ 1.2× idle",
         verdict(ours.rss_closed_mb / ours.rss_idle_mb, 1.2)),
    ]
    return [[label, m[1], o[1], ratio_text(ratio), target, met]
            for (label, target, met), m, o, ratio in zip(rows, mine, other, ratios)]


def ratio_text(ratio: float | None) -> str:
    """`4.99×`, and `0.0021×` where two decimals would say nothing."""
    return "—" if ratio is None else f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def print_table(rows: list[list[str]]) -> None:
    rows = [["", "hlo-lsp", "mlir-lsp-server", "ratio", "target", "met?"], *rows]
    widths = [max(len(row[column]) for row in rows) + 2 for column in range(5)]
    for row in rows:
        print("".join(text.ljust(width) for text, width in zip(row, widths)) + row[-1])


def notes(figures: Figures) -> str:
    after = "" if figures.edit_diagnostics_s is None else (
        f", {figures.errors_after_edits} after the edits (published {figures.edit_diagnostics_s:.2f} s after the last)")
    paused = "" if figures.hover_after_pause_ms is None else (
        "; in a session of its own, the hover after the first, a pause later: "
        f"{duration(figures.hover_after_pause_ms)}")
    return (f"{figures.server}: {figures.errors} error diagnostic(s) after didOpen{after}; "
            f"{len(figures.check_hovers_ms)} hovers during the check, {len(figures.edit_hovers_ms)} after the "
            f"edits, {figures.empty_hovers} of them answered with nothing{paused}")


def scale_line(ours: Figures, baseline: Path) -> str:
    """The targets of a larger module against a 40 MB run (its --json)."""
    base = json.loads(baseline.read_text())["hlo-lsp"]
    times, memory = ours.diagnostics_s / base["diagnostics_s"], ours.rss_peak_mb / ours.file_mb
    return (f"against the {base['file_mb']:.1f} MB run of {baseline}: first hover {ours.first_hover_s:.2f} s "
            f"(≤ 2 s: {verdict(ours.first_hover_s, 2)}); diagnostics {ours.diagnostics_s:.2f} s = {times:.2f}× "
            f"(≤ 3×: {verdict(times, 3)}); resident memory {memory:.1f}× (≤ 8×: {verdict(memory, 8)})")


def hlo_module_of(folder: Path) -> Path:
    """The largest HLO module file of a dump folder (not a buffer-assignment companion)."""
    modules = [path for path in folder.glob("*.txt") if not path.name.endswith(COMPANIONS)]
    if not modules:
        raise SystemExit(f"load.py: no HLO module in {folder}")
    return max(modules, key=lambda path: path.stat().st_size)


def run(args: argparse.Namespace, scratch: Path) -> None:
    hlo = hlo_module_of(args.dir or make_large_dump(args.mb, "0.10.2", scratch / "dump")["hlo"].parent)
    server = mlir_server() if not args.no_mlir else None
    mlir_file = make_mlir(hlo.stat().st_size / MB, scratch / "model.mlir") if server else None
    load = os.getloadavg()
    ours = measure("hlo-lsp", hlo_plan(hlo, args), args)
    theirs = measure("mlir-lsp-server", mlir_plan(server, mlir_file, args), args) if server and mlir_file else None
    xla, why = xla_parse(hlo) if not args.no_xla else (None, "--no-xla")
    mlir_size = f", an MLIR file of {mlir_file.stat().st_size / MB:.1f} MB" if mlir_file else ""
    print(f"{hlo} ({ours.file_mb:.1f} MB, with its companions){mlir_size};"
          f" {os.cpu_count()} cores, load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print_table(table(ours, theirs, xla, args))
    print("\n".join(notes(figures) for figures in (ours, theirs) if figures))
    if args.no_mlir:
        print("mlir-lsp-server skipped: --no-mlir")
    elif server is None:
        print("mlir-lsp-server is not installed (benchmarks/install-mlir installs it): its column is skipped")
    if xla is None:
        print(f"XLA's C++ parse skipped: {why}")
    if args.baseline:
        print(scale_line(ours, args.baseline))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"hlo-lsp": asdict(ours), "mlir-lsp-server": theirs and asdict(theirs),
                                         "xla_parse_s": xla, "load_average": [load, os.getloadavg()]}))


OPTIONS = (  # flag, type, default, help
    ("--edits", int, 20, "one-line edits, each followed by hovers"),
    ("--window", float, 1.0, "seconds of hovers after each edit"),
    ("--interval", float, 0.04, "seconds between hovers"),
    ("--settle", float, 2.0, "seconds idle before didOpen and after didClose"),
    ("--positions", int, 1000, "hover positions, used in turn"),
    ("--pause", float, 2.0, "seconds between the first hover and the next in a session of its own (0: none)"),
    ("--json", Path, None, "write the figures there"),
    ("--baseline", Path, None, "a 40 MB run's --json: check a larger module's targets against it"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--dir", type=Path, help="a dump folder already written")
    where.add_argument("--mb", type=float, help="write a dump whose HLO module is this many MB")
    for flag, kind, default, text in OPTIONS:
        parser.add_argument(flag, type=kind, default=default, help=text)
    parser.add_argument("--no-xla", action="store_true", help="skip XLA's C++ parse")
    parser.add_argument("--no-mlir", action="store_true", help="skip mlir-lsp-server (measure hlo-lsp alone)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hlo-load-") as scratch:
        run(args, Path(scratch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
