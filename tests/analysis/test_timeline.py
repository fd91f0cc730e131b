"""Memory over the schedule (analysis/timeline.py) and where buffers come from (analysis/memory.py
instruction_origins), on real dumps: usage at XLA's peak step is the peak XLA printed, usage at
every step is the printed sizes of the values live then, and fragmentation is what the offsets say."""

from __future__ import annotations

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
from hlo_lsp.analysis.memory import instruction_origins
from hlo_lsp.analysis.timeline import Timeline, memory_timeline
from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.dump_module import ModuleDump

REFERENCE_ATTENTION = DATA / "seeds" / "jax-tpu-reference-attention.buffer-assignment.txt"
DUMPS = [SPLIT_MLP, SPLIT_CONTROL_FLOW, COMBINED_MLP, COMBINED_CONTROL_FLOW, GPU_SEED, TPU_SEED, TPU_JAX_SEED,
         REFERENCE_ATTENTION]


def loaded(dump: Path) -> tuple[ModuleDump, BufferAssignment, Timeline]:
    module = module_of(dump if dump.is_file() else Path(f"{dump}.txt"))
    buffers = module.buffer_assignment
    assert buffers is not None
    timeline = memory_timeline(module.hlo, buffers)
    assert timeline is not None
    return module, buffers, timeline


@pytest.mark.parametrize("dump", DUMPS, ids=lambda dump: dump.name)
def test_usage_at_the_peak_step_is_the_peak_xla_printed(dump: Path) -> None:
    _, buffers, timeline = loaded(dump)
    section = buffers.live_range
    assert section is not None and section.peak_time is not None
    printed = sum(entry.size for entry in section.peak)
    assert timeline.summary.peak_time == section.peak_time
    assert timeline.usage[section.peak_time] == timeline.summary.peak_bytes == printed
    assert len(timeline.usage) == section.max_time + 1


@pytest.mark.parametrize("dump", DUMPS, ids=lambda dump: dump.name)
def test_the_kinds_add_up_to_the_usage(dump: Path) -> None:
    _, _, timeline = loaded(dump)
    assert [sum(steps) for steps in zip(*timeline.usage_by_kind.values())] == list(timeline.usage)
    summary = timeline.summary
    assert sum(summary.bytes_by_kind().values()) == summary.peak_bytes


def test_usage_is_the_printed_size_of_every_value_live_at_each_step() -> None:
    _, buffers, timeline = loaded(SPLIT_MLP)
    section = buffers.live_range
    assert section is not None
    sizes = {(value.name, value.index or ()): value.size for value in buffers.values()}  # dense on CPU
    expected = [sum(sizes[(r.name, r.index)] for r in section.ranges if r.start <= time <= r.end)
                for time in range(section.max_time + 1)]
    assert list(timeline.usage) == expected
    assert timeline.instruction_at(9) == "ynn_fusion.1" and timeline.instruction_at(15) is None


def test_the_split_at_the_peak_follows_the_allocations() -> None:
    _, _, timeline = loaded(SPLIT_MLP)
    kinds = {buffer.label: buffer.kind for buffer in timeline.summary.buffers_at_peak}
    assert kinds == {"ws_1_.1{}": "parameter", "ws_0_.1{}": "parameter", "x.1{}": "parameter",
                     "ws_2_.1{}": "parameter", "bs_0_.1{}": "parameter", "bs_1_.1{}": "parameter",
                     "bs_2_.1{}": "parameter", "broadcast_maximum_fusion{}": "temporary",
                     "ynn_fusion.1{}": "temporary"}
    assert timeline.summary.bytes_by_kind() == {"parameter": 421_928, "temporary": 65_536}
    _, _, control_flow = loaded(SPLIT_CONTROL_FLOW)
    assert control_flow.summary.bytes_by_kind() == {"parameter": 1036, "output": 1032, "temporary": 1048}


def test_buffers_are_listed_largest_first_with_their_live_ranges() -> None:
    _, _, timeline = loaded(SPLIT_MLP)
    assert [(b.label, b.size, b.live_range.start, b.live_range.end) for b in timeline.buffers[:4]] == [
        ("ws_1_.1{}", 262_144, 0, 15), ("ws_0_.1{}", 131_072, 0, 15), ("ynn_fusion.2{}", 32_768, 7, 8),
        ("broadcast_maximum_fusion{}", 32_768, 8, 9)]
    assert len(timeline.buffers) == 15


def test_another_step_can_hold_more_than_xlas_peak_step() -> None:
    """XLA picks its peak where a running sum that keeps each value one step past its last use is
    largest (dump-format.md §2.6); the bytes live at that step are what it prints."""
    _, _, timeline = loaded(SPLIT_CONTROL_FLOW)
    assert (timeline.summary.peak_time, timeline.summary.peak_bytes) == (30, 3116)
    assert timeline.highest == (37, 4148)
    assert timeline.instruction_at(37) == "cond.9.clone"


def test_old_format_counts_a_live_tuple_element_as_its_whole_tuple() -> None:
    _, buffers, timeline = loaded(COMBINED_CONTROL_FLOW)
    section = buffers.live_range
    assert section is not None and section.peak_format == "old"
    summary = timeline.summary
    assert summary.whole_instruction_sizes
    assert Counter((b.live_range.name, b.counted) for b in summary.buffers_at_peak) == Counter(
        (entry.name, entry.size) for entry in section.peak)
    assert (summary.peak_bytes, summary.value_bytes) == (2076, 3092)
    element = next(b for b in summary.buffers_at_peak if b.label == "conditional.20.clone{0}")
    assert (element.size, element.counted) == (1024, 8)  # f32[16,16] counted as its 1-tuple's pointer table


def test_fragmentation_is_what_the_offsets_of_live_values_leave_unused() -> None:
    _, buffers, timeline = loaded(SPLIT_CONTROL_FLOW)
    use = next(use for use in timeline.allocations if use.allocation.index == 22)
    # Brute force: at every step, the bytes of allocation 22 covered by the values live then.
    ranges = {(r.name, r.index): r for r in buffers.live_range.ranges}  # type: ignore[union-attr]
    covered = []
    for time in range(buffers.live_range.max_time + 1):  # type: ignore[union-attr]
        used = set()
        for value in use.allocation.values:
            live = ranges.get((value.name, value.index or ()))
            if live is not None and live.start <= time <= live.end:
                used.update(range(value.offset, value.end))
        covered.append(len(used))
    assert use.peak_live_bytes == max(covered) == 1048
    assert covered.index(max(covered)) == use.peak_live_time == 25
    assert (use.allocation.size, use.used_extent, use.fragmentation) == (1560, 1560, 512)
    assert round(use.fragmentation_percent, 1) == 32.8
    with_ranges = [v for v in use.allocation.values if (v.name, v.index or ()) in ranges]
    assert use.kind == "temporary" and use.live_values == len(with_ranges) == 37


def test_allocations_without_live_ranges_are_left_out() -> None:
    _, buffers, timeline = loaded(SPLIT_MLP)
    thread_local = {a.index for a in buffers.allocations if a.is_thread_local}
    assert thread_local == {8, 9, 10, 11, 12, 13}
    assert [use.allocation.index for use in timeline.allocations] == [0, 1, 2, 3, 4, 5, 6, 7, 14]
    assert all(use.fragmentation == 0 for use in timeline.allocations)


def test_no_timeline_without_a_live_range_section() -> None:
    module = module_of(Path(f"{COMBINED_MLP}.txt"))
    assert module.buffer_assignment is not None
    module.buffer_assignment.live_range = None
    assert memory_timeline(module.hlo, module.buffer_assignment) is None


# ---- where buffers come from ---------------------------------------------------------------------


def test_origins_come_from_the_hlo_module_with_stack_frames_resolved() -> None:
    module, buffers, _ = loaded(SPLIT_MLP)
    origins = instruction_origins(module.hlo, buffers, ["ynn_fusion.1", "ws_1_.1", "no-such-instruction"])
    ynn = origins["ynn_fusion.1"]
    assert (ynn.op_name, ynn.source, ynn.function) == (
        "jit(mlp)/dot_general", "/home/dev/xla-examples/gen_dumps.py:169", "_mlp3.<locals>.mlp")
    hlo = Path(f"{SPLIT_MLP}.txt")
    line = hlo.read_text().split("\n")[ynn.place.line]  # type: ignore[union-attr]
    assert ynn.place.source == str(hlo) and line.startswith("  %ynn_fusion.1 = ")  # type: ignore[union-attr]
    assert (ynn.place.range.start.character, ynn.place.range.end.character) == (3, 15)  # type: ignore[union-attr]
    parameter = origins["ws_1_.1"]
    assert (parameter.op_name, parameter.source) == ("ws[1]", None)
    assert origins["no-such-instruction"].place is None


def test_without_a_module_origins_come_from_the_from_instruction_lines() -> None:
    module, buffers, _ = loaded(TPU_JAX_SEED)
    assert module.hlo is None
    fusion = instruction_origins(None, buffers, ["multiply_reduce_fusion"])["multiply_reduce_fusion"]
    assert (fusion.op_name, fusion.source_file, fusion.source_line) == (
        "jit(mini_attention)/jit(main)/matmul_1/dot_general", "/home/ptoulme/tpu.py", 35)
    text = TPU_JAX_SEED.read_text().split("\n")[fusion.place.line]  # type: ignore[union-attr]
    assert text.startswith(" from instruction: %multiply_reduce_fusion = ")
