"""Two dumps compared as the CLI and the `hlo.compare` command ask: each read from disk, B in a process of its own
when it is large (a 40 MB module takes seconds to read; the machine's other core reads it meanwhile)."""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from hlo_lsp.features.memory_compare import Comparison, ModuleSide, compare_sides, dump_sides
from hlo_lsp.problems import Problem
from hlo_lsp.workspace.loader import load

# Below this many bytes of dump files, B is read here: starting a process costs about half a second.
WORKER_FROM_BYTES = 8_000_000


def compare_dumps(a: Sequence[str], b: Sequence[str]) -> Comparison:
    """The modules of two dumps (folders, or any file of a module) read from disk, paired and compared."""
    if dump_bytes(b) < WORKER_FROM_BYTES or (os.cpu_count() or 1) < 2:
        sides_a, problems_a = read_sides(list(a))
        sides_b, problems_b = read_sides(list(b))
    else:
        with ProcessPoolExecutor(1, mp_context=_worker_context()) as worker:
            other = worker.submit(read_sides, list(b))
            sides_a, problems_a = read_sides(list(a))
            sides_b, problems_b = other.result()
    return replace(compare_sides(sides_a, sides_b), problems=(*problems_a, *problems_b))


def _worker_context() -> multiprocessing.context.BaseContext:
    """Forked where this process runs no other thread (the CLI: the worker starts at once, with everything
    imported), else spawned (the language server: a fork would copy the locks its other threads hold)."""
    return multiprocessing.get_context("fork" if threading.active_count() == 1 else "spawn")


def read_sides(paths: list[str]) -> tuple[list[ModuleSide], list[Problem]]:
    """The modules of a dump as a comparison needs them (no documents: what a process sends back), and the
    problems of the files that could not be read."""
    dump = load(paths)
    return dump_sides(dump.modules), dump.problems


def dump_bytes(paths: Sequence[str]) -> int:
    """The bytes of the dump files under `paths` (a file: its own, which are most of its module's when it is an
    HLO module)."""
    total = 0
    for path in paths:
        if os.path.isdir(path):
            total += sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(path)
                         for name in names if name.endswith((".txt", ".hlo")))
        elif os.path.isfile(path):
            total += os.path.getsize(path)
    return total
