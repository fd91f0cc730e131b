"""How fast the modules of a large dump folder are listed (`hlo-lsp modules`, `hlo.listModules`): a folder of
thousands of small modules and one large one, listed cold (a fresh session) and warm (the same session again,
nothing changed on disk), against the targets.

    .venv/bin/python benchmarks/folder_modules.py                      # 2,000 modules + a 40 MB one
    .venv/bin/python benchmarks/folder_modules.py --modules 200 --mb 0 # small ones only
    .venv/bin/python benchmarks/folder_modules.py --large /tmp/big40   # the large module already written

The small modules are the bundled `folder_small_eager` (14 modules of a JAX script, every file of each)
written again under new module numbers, hard-linked; the large one is written by
`benchmarks/make_large_dump.py` (`--mb`, style 0.10.2) or taken from `--large`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from hlo_lsp.session import Session  # noqa: E402

SMALL = ROOT / "tests" / "data" / "jax-0.10.2" / "folder_small_eager"
COLD_SECONDS, WARM_SECONDS = 10.0, 1.0  # 2,000 modules and a 40 MB one
_NUMBER = re.compile(r"^module_(\d+)\.")


def write_small_modules(folder: Path, count: int) -> int:
    """`count` modules (about) copied from the bundled folder under fresh numbers; how many files."""
    compilations: dict[str, list[Path]] = {}
    for path in sorted(SMALL.iterdir()):
        match = _NUMBER.match(path.name)
        if match:
            compilations.setdefault(match.group(1), []).append(path)
    files, number = 0, 0
    while number < count:
        for paths in compilations.values():
            if number >= count:
                break
            for path in paths:
                os.link(path, folder / _NUMBER.sub(f"module_{10000 + number:05d}.", path.name))
                files += 1
            number += 1
    return files


def add_large_module(folder: Path, mb: float, large: str | None) -> str | None:
    if large:
        source = Path(large)
    elif mb > 0:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from make_large_dump import make_large_dump
        source = folder.parent / "large"
        make_large_dump(mb, "0.10.2", source)
    else:
        return None
    names = sorted(path.name for path in source.iterdir() if path.name.startswith("module_"))
    for name in names:
        os.symlink(source / name, folder / name)
    hlo = next((name for name in names if name.endswith("after_optimizations.txt")), names[0])
    return f"{(source / hlo).stat().st_size / 1e6:.1f} MB ({hlo})"


def timed(session: Session, folder: Path) -> tuple[float, int, int | None]:
    started = time.perf_counter()
    listed = session.list_modules([str(folder)])
    seconds = time.perf_counter() - started
    return seconds, len(listed.rows), listed.rows[0].peak if listed.rows else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", type=int, default=2000, help="small modules (default 2000)")
    parser.add_argument("--mb", type=float, default=40, help="a generated large module of this size (0: none)")
    parser.add_argument("--large", help="a folder with a large module already written (instead of --mb)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hlo-folder-") as scratch:
        folder = Path(scratch) / "dump"
        folder.mkdir()
        files = write_small_modules(folder, arguments.modules)
        large = add_large_module(folder, arguments.mb, arguments.large)
        print(f"{arguments.modules} small modules ({files} files){' + ' + large if large else ''} in {folder}")
        session = Session()
        cold, rows, peak = timed(session, folder)
        warm, _, _ = timed(session, folder)
        print(f"{'':24}{'seconds':>10}{'target':>10}  met?")
        print(f"{'cold (a fresh session)':24}{cold:>10.2f}{'≤ ' + str(COLD_SECONDS):>10}  {_met(cold, COLD_SECONDS)}")
        print(f"{'warm (the same again)':24}{warm:>10.2f}{'≤ ' + str(WARM_SECONDS):>10}  {_met(warm, WARM_SECONDS)}")
        print(f"{rows} rows; the largest peak {peak:,} bytes" if peak is not None else f"{rows} rows")
    return 0


def _met(seconds: float, target: float) -> str:
    return "yes" if seconds <= target else "no"


if __name__ == "__main__":
    sys.exit(main())
