"""XLA's peak accounting (analysis/memory.py) reproduces the peak XLA printed in real dumps."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from helpers import (
    COMBINED_CONTROL_FLOW,
    COMBINED_MLP,
    DATA,
    GPU_SEED,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TPU_JAX_SEED,
    TPU_SEED,
    module_of,
)
from hlo_lsp.analysis.memory import ShapeLookup, memory_summary, peak_moment, sized_ranges
from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.dump_module import ModuleDump

TINY_ADD = DATA / "jax-0.10.2" / "tiny_add" / "module_0002.jit__lambda.cpu_after_optimizations"
REFERENCE_ATTENTION = DATA / "seeds" / "jax-tpu-reference-attention.buffer-assignment.txt"
# (dump, printed peak format)
DUMPS = [(SPLIT_MLP, "new"), (SPLIT_CONTROL_FLOW, "new"), (TINY_ADD, "new"), (COMBINED_MLP, "old"),
         (COMBINED_CONTROL_FLOW, "old"), (GPU_SEED, "old"), (TPU_SEED, "old"), (TPU_JAX_SEED, "new"),
         (REFERENCE_ATTENTION, "new")]


def loaded(dump: Path) -> tuple[ModuleDump, BufferAssignment]:
    module = module_of(dump if dump.is_file() else Path(f"{dump}.txt"))
    assert module.buffer_assignment is not None and module.buffer_assignment.live_range is not None
    return module, module.buffer_assignment


@pytest.mark.parametrize(("dump", "peak_format"), DUMPS, ids=lambda x: getattr(x, "name", x))
def test_recomputed_peak_time_is_the_one_xla_printed(dump: Path, peak_format: str) -> None:
    module, buffers = loaded(dump)
    section = buffers.live_range
    assert section is not None and section.peak_format == peak_format
    summary = memory_summary(module.hlo, buffers)
    assert summary.peak_time == section.peak_time
    assert summary.peak_instruction == next(e.name for e in section.schedule if e.time == section.peak_time)


@pytest.mark.parametrize("dump", [d for d, f in DUMPS if f == "new"], ids=lambda d: d.name)
def test_new_format_buffers_at_peak_are_the_printed_list(dump: Path) -> None:
    module, buffers = loaded(dump)
    section = buffers.live_range
    assert section is not None
    summary = memory_summary(module.hlo, buffers)
    # Same labels, sizes and order (bytes descending, then name, index); the total is the last cumulative.
    assert [(b.label, b.size) for b in summary.buffers_at_peak] == [(e.label, e.size) for e in section.peak]
    assert summary.peak_bytes == section.peak[-1].cumulative


@pytest.mark.parametrize("dump", [d for d, f in DUMPS if f == "old"], ids=lambda d: d.name)
def test_old_format_buffers_at_peak_are_the_printed_names_with_instruction_sizes(dump: Path) -> None:
    module, buffers = loaded(dump)
    section = buffers.live_range
    assert section is not None
    summary = memory_summary(module.hlo, buffers)
    assert Counter(b.live_range.name for b in summary.buffers_at_peak) == Counter(e.name for e in section.peak)
    # The old format prints the dense size of the whole defining instruction's shape.
    sized = sized_ranges([b.live_range for b in summary.buffers_at_peak], ShapeLookup(module.hlo, buffers).shape)
    assert sized is not None
    assert Counter((s.live_range.name, s.instruction_bytes) for s in sized) == Counter(
        (e.name, e.size) for e in section.peak)


def test_buffers_at_peak_know_their_allocation_and_offset() -> None:
    module, buffers = loaded(SPLIT_MLP)
    summary = memory_summary(module.hlo, buffers)
    placed = {b.label: (b.allocation, b.offset, b.allocated_size) for b in summary.buffers_at_peak}
    assert placed["ws_1_.1{}"] == (0, 0, 262144)
    assert placed["broadcast_maximum_fusion{}"] == (14, 32768, 32768)
    assert placed["ynn_fusion.1{}"] == (14, 0, 32768)
    assert (summary.total_bytes, summary.allocation_count, summary.peak_bytes) == (488768, 15, 487464)


def test_tpu_allocated_size_is_padded_while_peak_size_is_dense() -> None:
    module, buffers = loaded(TPU_JAX_SEED)
    summary = memory_summary(module.hlo, buffers)
    fusion_2 = next(b for b in summary.buffers_at_peak if b.label == "fusion.2{}")
    assert (fusion_2.size, fusion_2.allocated_size, fusion_2.allocation) == (64, 512, 15)


def test_summary_without_live_range_section(tmp_path: Path) -> None:
    for suffix in ("-buffer-assignment.txt", "-buffer-assignment-values.txt"):
        shutil.copyfile(f"{SPLIT_MLP}{suffix}", tmp_path / f"{SPLIT_MLP.name}{suffix}")
    module = module_of(tmp_path / f"{SPLIT_MLP.name}-buffer-assignment.txt")
    assert module.buffer_assignment is not None
    summary = memory_summary(module.hlo, module.buffer_assignment)
    assert (summary.total_bytes, summary.allocation_count) == (488768, 15)
    assert (summary.peak_time, summary.peak_bytes, summary.buffers_at_peak) == (None, None, ())


def test_sized_ranges_of_tuple_elements_have_instruction_and_value_sizes() -> None:
    module, buffers = loaded(SPLIT_CONTROL_FLOW)
    assert buffers.live_range is not None
    sized = sized_ranges(buffers.live_range.ranges, ShapeLookup(module.hlo, buffers).shape)
    assert sized is not None and len(sized) == len(buffers.live_range.ranges)
    by_label = {s.live_range.label: (s.instruction_bytes, s.value_bytes) for s in sized}
    # while.19 is (s32[], f32[16,16], s32[]): a 24-byte tuple table; element {1} is 1024 bytes.
    assert by_label["while.19{}"] == (24, 24)
    assert by_label["while.19{1}"] == (24, 1024)
    assert by_label["x.5{}"] == (1024, 1024)


def test_sized_ranges_need_every_shape() -> None:
    module, buffers = loaded(SPLIT_MLP)
    assert buffers.live_range is not None
    lookup = ShapeLookup(module.hlo, buffers)
    assert sized_ranges(buffers.live_range.ranges, lambda name: None if name == "x.1" else lookup.shape(name)) is None


def test_shapes_come_from_used_values_without_a_module() -> None:
    _, buffers = loaded(TPU_SEED)
    lookup = ShapeLookup(None, buffers)
    assert str(lookup.shape("all-reduce.28")) == "(f32[8,128,4096], f32[])"
    assert lookup.shape("no-such-instruction") is None


def test_begins_count_before_finishes_at_the_same_time() -> None:
    # Each value alone is 10 bytes, and no two are live at the same step, yet XLA's peak is 20 at 2.
    assert peak_moment([(0, 1, 10), (2, 3, 10)]) == 2


def test_peak_is_the_first_time_the_running_sum_is_largest() -> None:
    assert peak_moment([(0, 9, 5), (3, 4, 7), (6, 7, 7)]) == 3


def test_no_ranges_peak_at_zero() -> None:
    assert peak_moment([]) == 0
