"""The memory part of hovers: a buffer value's size, allocation, live range and its place at the peak.

Every figure is one XLA printed (sizes, offsets, live ranges, the peak time) or XLA's
own accounting of them: the bytes at the peak are the sum of the printed peak list,
which is the running total XLA's peak algorithm maximised (old format: each live
value counted with its whole instruction's size; new format: with its own size).
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.analysis.memory import MemorySummary, memory_by_space, memory_summary
from hlo_lsp.model.buffer_assignment import Allocation, BufferAssignment, BufferValue, LiveRange, LiveRangeSection
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.memory_spaces import MemorySpace, MemorySpaces
from hlo_lsp.model.sizes import dense_size, human_bytes
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.syntax import ArrayShape


@dataclass(frozen=True, slots=True)
class Peak:
    time: int
    instruction: str | None  # the instruction scheduled at that time
    total: int | None  # bytes live at the peak, as XLA counts them
    counted: dict[str, int]  # bytes each live value adds, by range label (old format: by name)
    by_name: bool
    space: str | None = None  # the memory space it is the peak of (None: every space, as XLA prints it)
    whole_tuples: bool = False  # counts a live tuple element with its whole tuple's size (older XLA)


def count_text(count: int) -> str:
    """`1,048,576`; a count too long to print in full (from a garbled shape) as a power of ten."""
    if count.bit_length() > 200:
        return f"about 10^{int(count.bit_length() * 0.30103)}"
    return f"{count:,}"


def byte_text(count: int) -> str:
    """`16,384 bytes (16.0KiB)`; small counts need no unit beside them."""
    exact = f"{count_text(count)} bytes"
    return exact if count < 1024 else f"{exact} ({human_bytes(count)})"


def allocation_text(allocation: Allocation) -> str:
    kinds = allocation.kinds()
    return f"allocation {allocation.index}" + (f" ({', '.join(kinds)})" if kinds else "")


def peak_of(hlo: HloModule | None, buffers: BufferAssignment) -> Peak | None:
    """The peak XLA printed; recomputed by XLA's algorithm only when no peak list was printed."""
    section = buffers.live_range
    if section is None:
        return None
    time = section.peak_time
    if time is None:
        return _recomputed_peak(hlo, buffers)
    return buffers.derived.memo(_PRINTED_PEAK, lambda: _printed_peak(section, time))


# Every hover of a large module asks for its peak: the printed one is read once per buffer assignment.
_PRINTED_PEAK: DerivedKey[Peak] = DerivedKey("printed peak")


def _printed_peak(section: LiveRangeSection, time: int) -> Peak:
    counted = section.peak.sizes  # (one dict for every question of a glance: not changed)
    total = section.peak.total if section.peak else section.breakdown_total
    old = section.peak_format == "old"
    return Peak(time, section.scheduled.get(time), total, counted, old, None, old)


def _recomputed_peak(hlo: HloModule | None, buffers: BufferAssignment) -> Peak | None:
    if buffers.live_range is None or not buffers.live_range.ranges:
        return None
    return _summary_peak(memory_summary(hlo, buffers))


def _summary_peak(summary: MemorySummary, space: str | None = None) -> Peak | None:
    if summary.peak_time is None:
        return None
    counted = {buffer.label: buffer.counted for buffer in summary.buffers_at_peak}
    return Peak(summary.peak_time, summary.peak_instruction, summary.peak_bytes, counted, False, space,
                summary.whole_instruction_sizes)


def space_peaks(hlo: HloModule | None, buffers: BufferAssignment, spaces: MemorySpaces) -> dict[int, Peak]:
    """The peak of each memory space by XLA's accounting, by color; empty for a module of one space.
    Computed once per buffer assignment, module structure (the shapes it reads) and spaces."""
    if buffers.live_range is None or not spaces.several:
        return {}
    key = (hlo.structure_id if hlo is not None else None, spaces)
    kept = buffers.derived.get(_SPACE_PEAKS)
    if kept is not None and kept[0] == key:
        return kept[1]
    peaks = {memory.space.color: peak for memory in memory_by_space(hlo, buffers, spaces)
             if (peak := _summary_peak(memory.summary, space_text(memory.space))) is not None}
    buffers.derived.put(_SPACE_PEAKS, (key, peaks))
    return peaks


# The peaks of each space, for the last structure of the HLO module (its shapes size the values) and spaces.
_SPACE_PEAKS: DerivedKey[tuple[tuple[object, MemorySpaces], dict[int, Peak]]] = DerivedKey("space peaks")


def space_text(space: MemorySpace) -> str:
    """`vmem`; `the default space` (HBM on an accelerator, RAM on a CPU)."""
    return "the default space" if space.is_default else space.name


@dataclass(frozen=True, slots=True)
class Spaces:
    """The memory spaces of a module of several (names, and the peak of each by color)."""

    spaces: MemorySpaces
    peaks: dict[int, Peak]


def value_facts(buffers: BufferAssignment, value: BufferValue, peak: Peak | None,
                spaces: Spaces | None = None) -> list[str]:
    """Markdown list items: size, memory space, allocation and offset; padding; live range; whether it is
    live at the peak (of its memory space, when the module has several)."""
    allocation = buffers.allocation(value.allocation)
    where = allocation_text(allocation) if allocation else f"allocation {value.allocation}"
    if spaces is not None and allocation is not None:
        space = spaces.spaces[allocation.color]
        where = f"{space_text(space)}, {where}" if space.is_default or space.reported_total is not None else where
        peak = spaces.peaks.get(allocation.color)
    facts = [f"- {byte_text(value.size)} in {where}, offset {value.offset:,}", *_padding_facts(value)]
    section = buffers.live_range
    if allocation is not None and allocation.is_thread_local:
        facts.append("- no live range: thread-local (it lives only while its computation runs)")
    elif section is not None:
        live = buffers.live_range_of(value.name, value.index)
        if live is None:
            facts.append("- no live range in `BufferLiveRange`")
        else:
            facts.append(f"- live {live_range_text(section, live)}")
            if peak is not None:
                facts.append(f"- {_peak_text(peak, live, value)}")
    return facts


def live_range_text(section: LiveRangeSection, live: LiveRange, markdown: bool = True) -> str:
    """`[9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`` (an end at max is past the last instruction);
    names without backticks for plain text."""
    def at(time: int) -> str | None:
        name = section.scheduled.get(time)
        return _code(name) if markdown else name

    first = at(live.start)
    last = "the end of the program" if live.end >= section.max_time else at(live.end)
    span = f"[{live.start}, {live.end}]"
    if first is None or last is None:
        return span
    return f"{span}: from {first} to {last}"


def _padding_facts(value: BufferValue) -> list[str]:
    """How much of the value's allocated bytes is padding (a TPU tile around fewer elements)."""
    shape = parse_shape(value.shape_text)
    dense = dense_size(shape) if isinstance(shape, ArrayShape) else None
    if dense is None or dense >= value.size:
        return []
    padding = value.size - dense
    return [f"- unpadded {byte_text(dense)}: {count_text(padding)} bytes ({100 * padding / value.size:.1f}%) "
            "are padding"]


def _peak_text(peak: Peak, live: LiveRange, value: BufferValue) -> str:
    moment = f"time {peak.time}" + (f", `{peak.instruction}`" if peak.instruction else "")
    the_peak = f"the peak of {peak.space}" if peak.space else "the peak"
    if not live.start <= peak.time <= live.end:
        holding = f", which holds {byte_text(peak.total)}" if peak.total is not None else ""
        return f"not live at {the_peak} ({moment}){holding}"
    counted = peak.counted.get(value.name if peak.by_name else live.label)
    if counted is None:
        return f"live at {the_peak} ({moment})"
    of_total = f" of {byte_text(peak.total)}" if peak.total is not None else " bytes"
    counted_text = f"counted as {counted:,}{of_total}"
    if peak.whole_tuples and value.index:
        counted_text += "; this XLA counts a live tuple element with its whole tuple's size"
    return f"live at {the_peak} ({moment}): {counted_text}"


def _code(text: str | None) -> str | None:
    return f"`{text}`" if text is not None else None
