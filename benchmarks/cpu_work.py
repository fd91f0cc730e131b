"""The CPU work of `hlo-lsp check` on a large dump, this checkout against another commit, counted in
machine instructions under valgrind's callgrind: a figure that does not move with the machine's load.

    .venv/bin/python benchmarks/cpu_work.py --against e3ac9f0 [--mb 5] [--dir DIR] [--runs 1]

Wall-clock time on a shared 2-core machine moves by 10-15 % from run to run, more than the differences a
change makes; the instructions a run executes move by about 0.1 % (Python's hash seed). Each commit's
`server/` is put on PYTHONPATH (the other one from a `git worktree` made for the run and removed after);
both run in this project's .venv, at once, one per core, under callgrind (about 50 times slower than
without, so the default dump is 5 MB), the count of each the sum of its processes' (a check forks a copy of
itself for a large HLO file). Prints the instructions of each, and this checkout's ratio to the
other. Without valgrind, says so and exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from make_large_dump import make_large_dump  # benchmarks/ is on sys.path when run as a script

PROJECT = Path(__file__).resolve().parents[1]
_COLLECTED = re.compile(r"Collected : ([0-9]+)")


def instructions(server: Path, dump: Path) -> int:
    """The instructions `hlo-lsp check dump` executes with the engine of `server` on PYTHONPATH."""
    environment = {**os.environ, "PYTHONPATH": str(server)}
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               sys.executable, "-m", "hlo_lsp", "check", str(dump)]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    counted = collected(done.stderr)
    if counted is None:
        raise SystemExit(f"callgrind printed no count for {server}:\n{done.stderr[-2000:]}")
    return counted


def collected(report: str) -> int | None:
    """The instructions of every process callgrind's `report` counts: the check's own and those of the copy of
    itself it forks to read a large HLO file on two cores (each prints its count when it ends)."""
    counts = [int(count) for count in _COLLECTED.findall(report)]
    return sum(counts) if counts else None


def compare(against: str, dump: Path, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hlo-lsp-cpu-work-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(PROJECT), "worktree", "add", "--detach", "--quiet", str(tree), against],
                       check=True)
        try:
            servers = {"this checkout": PROJECT / "server", against: tree / "server"}
            counts: dict[str, list[int]] = {label: [] for label in servers}
            with ThreadPoolExecutor(max_workers=2) as pool:
                for _ in range(runs):
                    found = dict(zip(servers, pool.map(lambda server: instructions(server, dump), servers.values())))
                    for label, count in found.items():
                        counts[label].append(count)
        finally:
            subprocess.run(["git", "-C", str(PROJECT), "worktree", "remove", "--force", str(tree)], check=False)
    mine, theirs = min(counts["this checkout"]), min(counts[against])
    size = sum(path.stat().st_size for path in dump.iterdir()) / 1e6
    print(f"hlo-lsp check of {dump} ({size:.1f} MB of files), instructions (fewest of {runs} run(s)):")
    for label, count in counts.items():
        print(f"  {label:24} {min(count):>18,}")
    print(f"  ratio this checkout / {against}: {mine / theirs:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the commit to compare with (e3ac9f0, HEAD~3, ...)")
    parser.add_argument("--mb", type=float, default=5.0, help="size of the generated HLO module (default 5)")
    parser.add_argument("--dir", type=Path, help="check this dump folder instead of a generated one")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, the fewest instructions kept")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("cpu_work: valgrind is not installed (apt-get install valgrind): nothing measured")
        return
    if args.dir is not None:
        compare(args.against, args.dir, args.runs)
        return
    with tempfile.TemporaryDirectory(prefix="hlo-lsp-cpu-dump-") as folder:
        make_large_dump(args.mb, "0.10.2", Path(folder))
        compare(args.against, Path(folder), args.runs)


if __name__ == "__main__":
    main()
