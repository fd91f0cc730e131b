"""Where a large module's memory goes in the engine, file by file (one process: no server, no check process).

    .venv/bin/python benchmarks/memory_parts.py --dir DIR [--json PATH]
    .venv/bin/python benchmarks/memory_parts.py --mb 40          # a dump made by benchmarks/make_large_dump.py
    PYTHONPATH=<another checkout>/server .venv/bin/python benchmarks/memory_parts.py --dir DIR

Reads the largest module under DIR (`Session.read`), scans each of its files in turn, then checks the module, and
prints the resident memory after each step: what each file's scan kept (MB, bytes a line, and MB for each MB of the
file), and what the check kept after them. It runs under the system allocator, as the server does (it starts itself
again with PYTHONMALLOC=malloc), and hands freed pages back (`malloc_trim`) before each reading: a figure is what a
step keeps, not what it used on the way. The check process keeps about as much (docs/performance.md, "Where the check
process's memory is"). Linux only: it reads /proc.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from lsp_process import MB, resident_mb  # benchmarks/ is on sys.path when run as a script
from make_large_dump import make_large_dump

from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.session import Session


@dataclass
class Part:
    step: str  # "start", "read", a file's kind (its scan), "check"
    kept_mb: float  # what the step added to the resident memory
    rss_mb: float  # the resident memory after it
    seconds: float
    file_mb: float = 0.0  # a scanned file's size
    lines: int = 0  # a scanned file's lines


def kept_pages() -> float:
    """The resident memory once the collector has run and freed pages are given back to the system."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return resident_mb([os.getpid()])


def largest_module(folder: Path) -> ModuleDump:
    modules = Session.read([str(folder)]).modules
    if not modules:
        raise SystemExit(f"no dump module under {folder}")
    return max(modules, key=lambda module: sum(os.path.getsize(d.source) for d in module.all_documents()))


def measure(folder: Path) -> tuple[ModuleDump, list[Part]]:
    parts = [Part("start", 0.0, kept_pages(), 0.0)]

    def step(name: str, work, **sizes: float) -> None:  # noqa: ANN001 - any callable
        started = time.perf_counter()
        work()
        seconds = time.perf_counter() - started
        rss = kept_pages()
        parts.append(Part(name, rss - parts[-1].rss_mb, rss, seconds, **sizes))

    found: list[ModuleDump] = []
    step("read", lambda: found.append(largest_module(folder)))
    module = found[0]
    for document in sorted(module.all_documents(), key=lambda document: document.kind.value):
        step(document.kind.value, lambda document=document: document.chunks,
             file_mb=os.path.getsize(document.source) / MB, lines=document.line_count)
    step("check", lambda: Session().check_module(module))
    return module, parts


def table(module: ModuleDump, parts: list[Part]) -> str:
    hlo_mb = os.path.getsize(module.hlo_document.source) / MB if module.hlo_document is not None else 0.0
    rows = [f"{os.path.basename(module.stem)}: {len(module.all_documents())} files, the HLO file {hlo_mb:.1f} MB",
            f"{'step':28} {'kept MB':>9} {'RSS MB':>8} {'seconds':>8} {'file MB':>8} {'lines':>9} {'B/line':>7} "
            f"{'× file':>7}"]
    for part in parts:
        per_line = f"{part.kept_mb * MB / part.lines:7.0f}" if part.lines else " " * 7
        per_file = f"{part.kept_mb / part.file_mb:7.1f}" if part.file_mb else " " * 7
        sized = f"{part.file_mb:8.1f} {part.lines:9d}" if part.lines else " " * 18
        rows.append(f"{part.step:28} {part.kept_mb:9.1f} {part.rss_mb:8.1f} {part.seconds:8.2f} {sized} {per_line} "
                    f"{per_file}")
    if hlo_mb:
        kept, whole = parts[-1].rss_mb - parts[0].rss_mb, parts[-1].rss_mb
        rows.append(f"the module keeps {kept:.0f} MB = {kept / hlo_mb:.1f}× the HLO file, the process {whole:.0f} MB = "
                    f"{whole / hlo_mb:.1f}× (the load benchmark's row, ≤ 8×, adds the server's)")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, help="a dump folder (default: one made by make_large_dump.py)")
    parser.add_argument("--mb", type=float, default=40.0, help="the size of the HLO file made without --dir")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not sys.platform.startswith("linux"):
        print("memory_parts.py reads /proc and calls glibc's malloc_trim: Linux only", file=sys.stderr)
        return 2
    if os.environ.get("PYTHONMALLOC") != "malloc":  # as the server runs (hlo_lsp.launch)
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONMALLOC": "malloc"})
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.dir
        if folder is None:
            folder = Path(scratch)
            make_large_dump(args.mb, "0.10.2", folder)
        module, parts = measure(folder)
        print(table(module, parts))
    if args.json is not None:
        args.json.write_text(json.dumps({"module": module.stem, "parts": [asdict(part) for part in parts]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
