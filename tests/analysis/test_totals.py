"""Total bytes used (dump-format.md §3.2: T1, T2) planted into real dumps."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import (
    COMBINED_MLP,
    GPU_SEED,
    SPLIT_MLP,
    TPU_JAX_SEED,
    TPU_SEED,
    copy_module,
    module_of,
    plant,
    problems_of,
    where,
)
from hlo_lsp.problems import Severity


@pytest.mark.parametrize(("stem", "suffix"), [(SPLIT_MLP, "-buffer-assignment-values.txt"),
                                              (COMBINED_MLP, "-buffer-assignment.txt")])
def test_wrong_total_bytes_used_is_an_error(stem: Path, suffix: str, tmp_path: Path) -> None:
    path = Path(f"{copy_module(stem, tmp_path)}{suffix}")
    assert problems_of(tmp_path) == []
    line = plant(path, "Total bytes used: 488768 (477.3KiB)", "Total bytes used: 488772 (477.3KiB)")

    problems = problems_of(tmp_path)

    assert where(problems) == [(path.name, line, Severity.ERROR, "total-bytes")]
    assert problems[0].message == "Total bytes used is 488772 but the 15 allocations add up to 488768 (477.3KiB)"


def test_total_counts_every_allocation_kind_and_color() -> None:
    # Parameters, constants, thread-local, outputs and temps of colors 0/1/2 all count (§2.4).
    for seed in (GPU_SEED, TPU_SEED, TPU_JAX_SEED):
        buffers = module_of(seed).buffer_assignment
        assert buffers is not None and buffers.totals is not None
        assert buffers.totals.size == sum(allocation.size for allocation in buffers.allocations)
        assert problems_of(seed) == []


def test_tpu_total_with_a_byte_missing(tmp_path: Path) -> None:
    seed = copy_module(TPU_SEED, tmp_path)
    line = plant(seed, "Total bytes used: 299944008 (286.05MiB)", "Total bytes used: 299944007 (286.05MiB)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(seed.name, line, Severity.ERROR, "total-bytes")]
    assert "the 13 allocations add up to 299944008 (286.05MiB)" in problems[0].message


def test_human_readable_total_that_does_not_match_the_bytes(tmp_path: Path) -> None:
    path = Path(f"{copy_module(COMBINED_MLP, tmp_path)}-buffer-assignment.txt")
    line = plant(path, "Total bytes used: 488768 (477.3KiB)", "Total bytes used: 488768 (477.2KiB)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, Severity.WARNING, "total-bytes-human")]
    assert problems[0].message == "488768 bytes print as 477.3KiB, not 477.2KiB"


def test_megabyte_totals_print_with_two_decimals(tmp_path: Path) -> None:
    seed = copy_module(GPU_SEED, tmp_path)
    line = plant(seed, "Total bytes used: 932847568 (889.63MiB)", "Total bytes used: 932847568 (889.6MiB)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(seed.name, line, Severity.WARNING, "total-bytes-human")]
    assert "print as 889.63MiB" in problems[0].message


def test_values_file_alone_is_not_compared_with_allocations(tmp_path: Path) -> None:
    # Without the allocations file there is nothing to add up; only the human form is checked.
    source = Path(f"{SPLIT_MLP}-buffer-assignment-values.txt")
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    assert problems_of(tmp_path) == []
    plant(path, "Total bytes used: 488768 (477.3KiB)", "Total bytes used: 488772 (477.3KiB)")
    assert problems_of(tmp_path) == []
