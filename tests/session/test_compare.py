"""Two dumps compared through the facade: B read in a worker process (forked from the CLI, spawned from the
server) gives what reading it here gives."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any
from unittest import mock

import pytest

from helpers import PAIR_NARROW, PAIR_WIDE
from hlo_lsp.lsp.compare_json import comparison_json
from hlo_lsp.lsp.memory_json import file_location
from hlo_lsp.session import Session
from hlo_lsp.session import compare as compare_module


def _json(a: str, b: str) -> dict[str, object]:
    return comparison_json(Session.compare([a], [b]), file_location, Session.compare_svg)


class _Counted(ProcessPoolExecutor):
    started = 0

    def __init__(self, *arguments: Any, **options: Any) -> None:
        _Counted.started += 1
        super().__init__(*arguments, **options)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_a_worker_reads_b_as_this_process_would(start: str) -> None:
    here = _json(str(PAIR_NARROW), str(PAIR_WIDE))
    assert _Counted.started == 0
    with mock.patch.object(compare_module, "WORKER_FROM_BYTES", 0), \
            mock.patch.object(compare_module, "_worker_context", lambda: multiprocessing.get_context(start)), \
            mock.patch.object(compare_module, "ProcessPoolExecutor", _Counted):
        in_worker = _json(str(PAIR_NARROW), str(PAIR_WIDE))
    assert _Counted.started == 1
    _Counted.started = 0
    assert in_worker == here and here["pairs"]


def test_what_is_large_enough_for_a_worker() -> None:
    hlo = PAIR_WIDE / "module_0000.jit__lambda.cpu_after_optimizations.txt"
    assert compare_module.dump_bytes([str(hlo)]) == hlo.stat().st_size
    assert compare_module.dump_bytes([str(PAIR_WIDE)]) == sum(
        path.stat().st_size for path in PAIR_WIDE.iterdir() if path.suffix == ".txt")
    assert compare_module.dump_bytes([str(PAIR_WIDE / "missing")]) == 0
