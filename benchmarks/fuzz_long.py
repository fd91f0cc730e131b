"""The long fuzz run, outside pytest, in worker processes; prints a summary line and the distinct failures.

    .venv/bin/python benchmarks/fuzz_long.py --mutants 100000 [--workers 2] [--seed N]

Mutates the dumps of tests/data and the small and medium files of ../shared/corpus and
../shared/producers (when present; TPU, TensorFlow, PyTorch/XLA and flax) with
tests/fuzz/mutations.py and runs each mutant through tests/fuzz/harness.py: loading, every
check, every IDE feature at random positions, a TPU stage with the companions it borrows, an
incremental edit, and (every 10th mutant) the CLI. Mutant number n
is seeded by (seed, n), so `--start n --mutants 1` replays one.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

from harness import Limits, Result, distinct, known_bug, run_mutant  # noqa: E402
from mutations import module_groups, mutate  # noqa: E402

DATA = ROOT / "tests" / "data"
CORPUS = ROOT.parent / "shared" / "corpus"
MEDIUM = 256 * 1024  # corpus files up to this size (the 2-3 MB modules would dominate the run)
CLI_EVERY = 10
BATCH = 250
LIMITS = Limits(seconds=2.0, seconds_per_mb=2.0, hard_factor=3.0)

_groups: list[tuple[str, dict[str, bytes]]] = []


def sources() -> list[tuple[str, dict[str, bytes]]]:
    found = module_groups(DATA, MEDIUM)
    for shared in (CORPUS, CORPUS.parent / "producers"):
        if shared.is_dir():
            found += module_groups(shared, MEDIUM)
    return found


def _init() -> None:
    _groups.extend(sources())


def run_batch(job: tuple[int, int, int]) -> tuple[int, Result]:
    seed, start, count = job
    total = Result()
    with tempfile.TemporaryDirectory(prefix="hlo-fuzz-") as tmp:
        for number in range(start, start + count):
            rng = random.Random(f"{seed}:{number}")
            origin, files = rng.choice(_groups)
            mutant = mutate(rng, files, origin=f"#{number} {origin}", long_mode=True)
            result = run_mutant(mutant.files, tmp, description=mutant.description, seed=number, limits=LIMITS,
                                run_cli=number % CLI_EVERY == 0)
            for failure in result.failures:  # keep the reports small: traceback tails only
                failure.trace = "\n".join(failure.trace.splitlines()[-8:])
            total.merge(result)
    return count, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    jobs = [(args.seed, start, min(BATCH, args.start + args.mutants - start))
            for start in range(args.start, args.start + args.mutants, BATCH)]
    started = time.monotonic()
    total, done = Result(), 0
    with multiprocessing.get_context("fork").Pool(args.workers, initializer=_init, maxtasksperchild=20) as pool:
        for count, result in pool.imap_unordered(run_batch, jobs):
            done += count
            known = {str(failure) for failure in distinct(total.failures)}
            total.merge(result)
            for failure in distinct(total.failures):  # a new kind of failure is told at once
                if str(failure) not in known:
                    print(f"  new failure after {done} mutants: {str(failure)[:2000]}", flush=True)
            for failure in result.failures:  # each slow call in full (one kind, told apart by its input only)
                if failure.kind == "slow" and str(failure) not in known:
                    print(f"  slow: {str(failure)[:600]}", flush=True)
                elif failure.kind != "slow":  # and every failing mutant, by its number: a run stopped early keeps them
                    print(f"  failed: [{failure.kind}] {failure.operation} on {failure.description[:120]}", flush=True)
            if done % 5000 < BATCH:
                print(f"  {done} mutants, {len(total.crashes)} crashes, {len(total.slow)} slow, "
                      f"{time.monotonic() - started:.0f} s", flush=True)
    seconds = time.monotonic() - started
    slowest, operation, description = total.slowest
    failures = distinct(total.failures)
    new = [f for f in failures if known_bug(f) is None]
    print(f"fuzz: {args.mutants} mutants, {total.calls} calls, {len(total.crashes)} crashes "
          f"({len(distinct(total.crashes))} distinct), {len(total.slow)} over the time bound, "
          f"{len(new)} new distinct failures, {seconds:.0f} s; slowest request: {operation} {slowest:.2f} s "
          f"on [{description[:400]}]")
    for failure in failures:
        bug = known_bug(failure)
        print("\n" + ("known bug " + bug if bug else "NEW") + " " + str(failure))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
