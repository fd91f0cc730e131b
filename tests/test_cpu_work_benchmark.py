"""benchmarks/cpu_work.py counts the instructions of every process of a check: a large HLO file is read on two
cores by a forked copy of the check, whose count callgrind prints first, when it ends."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import cpu_work  # noqa: E402

# What callgrind printed at the end of `hlo-lsp check` of a 4 MB dump: the copy's count, then the check's.
FORKED_CHECK = """==5862== Events    : Ir
==5862== Collected : 4653438912
==5862==
==5862== I   refs:      4,653,438,912
==5860==
==5860== Events    : Ir
==5860== Collected : 8722809331
==5860==
==5860== I   refs:      8,722,809,331
"""


def test_a_check_that_forks_counts_the_instructions_of_both_processes() -> None:
    assert cpu_work.collected(FORKED_CHECK) == 4653438912 + 8722809331


def test_a_report_without_a_count_is_none() -> None:
    assert cpu_work.collected("==1== valgrind: failed to start tool 'callgrind'\n") is None
