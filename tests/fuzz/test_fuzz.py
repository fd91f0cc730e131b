"""Mutation fuzzing of the whole engine over real dumps: no crash, no request slower than its bound.

The default run is seeded and short (a few hundred mutants of the small dumps in
tests/data). HLO_LSP_FUZZ_LONG=<count> runs that many mutants instead, over
tests/data and the small and medium files of ../shared/corpus, and prints a
summary line; benchmarks/fuzz_long.py runs the same in two processes.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from harness import Limits, Result, distinct, known_bug, run_mutant
from mutations import module_groups, mutate

from helpers import CORPUS, DATA

SEED = 20240611
DEFAULT_MUTANTS = 600
CLI_EVERY = 10  # every K-th mutant also runs `hlo-lsp check` and `hlo-lsp memory` in-process
SMALL = 64 * 1024  # the default run: files up to this size
MEDIUM = 600 * 1024  # the long mode: corpus files up to this size


def sources(long_mode: bool) -> list[tuple[str, dict[str, bytes]]]:
    """Modules (and single files) to mutate: both HLO styles, split and combined buffer assignments,
    the seeds, memory reports."""
    found = module_groups(DATA, MEDIUM if long_mode else SMALL)
    if long_mode and CORPUS.is_dir():
        found += module_groups(CORPUS, MEDIUM)
    return found


def fuzz(count: int, seed: int, long_mode: bool, tmp_dir: Path, limits: Limits,
         groups: list[tuple[str, dict[str, bytes]]] | None = None, start: int = 0) -> Result:
    """Mutants number start..start+count-1 (each seeded by (seed, its number): reproducible one by one)."""
    groups = groups if groups is not None else sources(long_mode)
    total = Result()
    for number in range(start, start + count):
        rng = random.Random(f"{seed}:{number}")
        origin, files = rng.choice(groups)
        mutant = mutate(rng, files, origin=f"#{number} {origin}", long_mode=long_mode)
        total.merge(run_mutant(mutant.files, tmp_dir, description=mutant.description, seed=number,
                               limits=limits, run_cli=number % CLI_EVERY == 0))
    return total


def summary(mutants: int, result: Result, seconds: float) -> str:
    slowest, operation, description = result.slowest
    crashes = distinct(result.crashes)
    new = [f for f in distinct(result.failures) if known_bug(f) is None]
    return (f"fuzz: {mutants} mutants, {result.calls} calls, {len(result.crashes)} crashes "
            f"({len(crashes)} distinct), {len(result.slow)} over the time bound, {len(new)} new distinct failures, "
            f"{seconds:.0f} s; slowest request: {operation} {slowest:.2f} s on [{description[:300]}]")


def report(result: Result) -> str:
    lines = []
    for failure in distinct(result.failures):
        bug = known_bug(failure)
        lines.append(("known bug " + bug if bug else "NEW") + " " + str(failure))
    return "\n\n".join(lines)


@pytest.mark.slow
def test_fuzz(tmp_path: Path) -> None:
    long_count = int(os.environ.get("HLO_LSP_FUZZ_LONG", "0") or 0)
    long_mode = long_count > 0
    count = long_count or DEFAULT_MUTANTS
    # Default run: 2 s per call, a runaway call stopped at 2.5 s (a hang would otherwise stall the suite).
    limits = Limits(seconds=2.0, seconds_per_mb=2.0, hard_factor=5.0 if long_mode else 1.25)
    started = time.monotonic()
    result = fuzz(count, SEED, long_mode, tmp_path, limits)
    line = summary(count, result, time.monotonic() - started)
    print("\n" + line)
    print(report(result))
    new = [failure for failure in result.failures if known_bug(failure) is None]
    assert not new, line + "\n\n" + "\n\n".join(str(f) for f in distinct(new))
