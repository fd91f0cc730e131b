"""Where a check of a large module spends its time, part by part, in the engine (no server).

    .venv/bin/python benchmarks/parts.py [--mb 40] [--edits 20] [--dir DIR]
    PYTHONPATH=<another checkout>/server .venv/bin/python benchmarks/parts.py   # the same parts of that code

Writes (or reuses, with --dir) a dump made by benchmarks/make_large_dump.py and prints, in seconds: the
scan of the HLO file's lines, the reading of their uses, loading the module, the syntax check of every
file, each check of analysis/run.py on a fresh context; then a re-check after one-character op_name
edits (p50 and p95, in ms). Run under two checkouts to compare them part by part.

It reaches below the engine's facade (`hlo_lsp.session.Session`, which benchmarks/engine.py and run.py
drive) on purpose: no question of the facade separates the scanners, the loader and each check.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from make_large_dump import make_large_dump  # benchmarks/ is on sys.path when run as a script

from hlo_lsp.analysis import run
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import hlo_line_uses, scan_hlo_line
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load


def timed(work) -> float:  # noqa: ANN001 - any callable
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def scan_and_uses(hlo_text: str) -> tuple[float, float]:
    lines = hlo_text.split("\n")
    scans = []

    def scan() -> None:
        state = "top"
        for line in lines:
            found = scan_hlo_line(state, line)
            state = found.end_state
            scans.append(found)

    scanned = timed(scan)
    return scanned, timed(lambda: [hlo_line_uses(line, found) for line, found in zip(lines, scans, strict=True)])


def recheck_ms(module, edits: int) -> list[float]:  # noqa: ANN001 - a ModuleDump
    run.check_module(module)
    document = module.hlo_document
    lines = [n for n in range(1000, document.line_count, 997) if 'op_name="' in document.line(n)][:edits]
    times = []
    for number in lines:
        column = document.line(number).index('op_name="') + len('op_name="')
        document = document.apply_edit(Range(Position(number, column), Position(number, column)), "x")
        module = module.updated({**module.documents, FileKind.HLO_MODULE: document})
        times.append(timed(lambda module=module: run.check_module(module)) * 1e3)
    return sorted(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--dir", type=Path, help="a folder with the dump (written there when empty)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="hlo-parts-"))
    if not any(folder.glob("*.txt")):
        make_large_dump(args.mb, "0.10.2", folder)
    hlo_path = next(path for path in folder.glob("*.txt") if "-" not in path.name.split(".")[-2])
    parts: list[tuple[str, float]] = list(zip(("scan", "uses"), scan_and_uses(hlo_path.read_text()), strict=True))
    modules: list = []
    parts.append(("load", timed(lambda: modules.extend(load([str(folder)]).modules))))
    module = modules[0]
    parts.append(("syntax", timed(lambda: [syntax_problems(d) for d in module.documents.values()])))
    context = CheckContext(module)
    parts += [(name, timed(lambda check=check: list(check(context)))) for name, check in run.CHECKS]
    width = max(len(name) for name, _ in parts)
    for name, seconds in parts:
        print(f"{name:<{width}}  {seconds:6.2f} s")
    print(f"{'all':<{width}}  {sum(seconds for _, seconds in parts):6.2f} s")
    times = recheck_ms(module, args.edits)
    if not times:
        return
    print(f"re-check after an op_name edit: p50 {times[len(times) // 2]:.1f} ms, "
          f"p95 {times[min(int(len(times) * 0.95), len(times) - 1)]:.1f} ms ({len(times)} edits)")


if __name__ == "__main__":
    main()
