"""Two dumps compared as a user compares them: the peaks XLA printed, and every buffer of both peaks in one row,
matched by what it is. The rows add up to the peak's change on every pair of real modules."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from helpers import (
    COMBINED_MLP,
    FLAX_SCAN,
    PAIR_NARROW,
    PAIR_WIDE,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TF_EVAL,
    TORCH_EVAL,
    TPU_MATMUL,
)
from hlo_lsp.features.memory_compare import ModuleChange, compare_sides, dump_sides, module_side
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.workspace.loader import load

_PRINTED_PEAK = re.compile(r"Stack trace breakdown for peak usage: ([0-9 ]+) bytes")


def _compared(a: Path, b: Path) -> ModuleChange:
    (change,) = compare_sides(dump_sides(load([str(a)]).modules), dump_sides(load([str(b)]).modules)).changes
    return change


def _printed_peak(folder: Path) -> int:
    """The peak XLA printed in the folder's live-range file."""
    (live_range,) = folder.glob("*-live-range.txt")
    found = _PRINTED_PEAK.search(live_range.read_text())
    assert found is not None
    return int(found[1].replace(" ", ""))


def test_the_shared_pair_grows_by_xlas_printed_peaks_and_every_byte_of_b_is_matched() -> None:
    change = _compared(PAIR_NARROW, PAIR_WIDE)
    assert (change.a_peak, change.b_peak) == (_printed_peak(PAIR_NARROW), _printed_peak(PAIR_WIDE))
    assert (change.a_peak, change.b_peak) == (1_341_744, 17_899_824)
    assert sum(row.delta for row in change.changes) == change.delta == 16_558_080
    assert change.matched_bytes == change.b_peak
    assert change.kinds["parameter"] == (881_960, 12_914_984)
    assert change.counts["instructions"] == (330, 330) and change.counts["scheduleLength"] == (60, 60)


def test_renamed_buffers_are_matched_by_their_op_and_source_line() -> None:
    rows = {(row.a.buffer.label, row.b.buffer.label): row for row in _compared(PAIR_NARROW, PAIR_WIDE).changes
            if row.a is not None and row.b is not None}
    relu = rows[("broadcast_maximum_fusion{}", "add_maximum_fusion.2{}")]
    assert (relu.matched_by, relu.delta) == ("op and source", 196_608)
    assert relu.b is not None and relu.b.origin.framework_op == "jit(<lambda>)/jvp()/jit(relu)/max"
    assert rows[("ynn_fusion.9{}", "ynn_fusion.11{}")].matched_by == "op and source"
    assert rows[("copy.3{}", "copy.3{}")].delta == 4 * 2**20 - 256 * 2**10


def test_jax_0_4_38_and_0_10_2_compare_their_parameters_by_what_they_hold() -> None:
    # The same program from two JAX versions: `Arg_0.1` became `ws_0_.1`, `dot.8` a `ynn_fusion.1`.
    change = _compared(COMBINED_MLP.parent, SPLIT_MLP.parent)
    assert (change.name, change.paired_by, change.delta) == ("jit_mlp", "name", 0)
    pairs = {row.a.buffer.label: row.b.buffer.label for row in change.changes if row.a and row.b}
    assert pairs["Arg_0.1{}"] == "ws_0_.1{}" and pairs["Arg_6.7{}"] == "x.1{}" and pairs["dot.8{}"] == "ynn_fusion.1{}"
    assert change.matched_bytes == change.b_peak
    assert change.counts["fusions"] == (5, 8)


def test_a_module_against_itself_changes_nothing_and_matches_every_buffer_by_name() -> None:
    change = _compared(TPU_MATMUL.parent / f"{TPU_MATMUL.name}.txt", TPU_MATMUL.parent / f"{TPU_MATMUL.name}.txt")
    assert change.delta == 0 and {row.matched_by for row in change.changes} == {"name"}
    assert [space.name for space in change.spaces][:1] == ["default"] and len(change.spaces) > 1
    assert all(space.a == space.b for space in change.spaces)


_MODULES = [SPLIT_MLP, COMBINED_MLP, SPLIT_CONTROL_FLOW, TPU_MATMUL, FLAX_SCAN, TF_EVAL, TORCH_EVAL,
            PAIR_NARROW / "module_0000.jit__lambda.cpu_after_optimizations"]


def _module(stem: Path) -> ModuleDump:
    return next(module for module in load([f"{stem}.txt"]).modules if module.stem == str(stem))


@pytest.mark.parametrize(("a", "b"), list(itertools.permutations(_MODULES, 2)),
                         ids=lambda stem: stem.name.split(".")[1][:24])
def test_any_two_modules_rows_hold_each_peak_buffer_once_and_add_up_to_the_change(a: Path, b: Path) -> None:
    (change,) = compare_sides([module_side(_module(a))], [module_side(_module(b))]).changes  # (paired by order)
    # every one of them has a peak (TensorFlow's and PyTorch/XLA's in one combined file)
    assert sum(row.delta for row in change.changes) == change.delta
    for side, report in (("a", change.a_report), ("b", change.b_report)):
        rows = [getattr(row, side).buffer for row in change.changes if getattr(row, side) is not None]
        assert sorted(rows, key=id) == sorted(report.peak_buffers, key=id)
    assert all((row.a is None or row.b is None) == (row.matched_by is None) for row in change.changes)
    deltas = [abs(row.delta) for row in change.changes]
    assert deltas == sorted(deltas, reverse=True)
