"""The memory part of hovers: a buffer value's size, allocation, live range and its place at the peak.

Every figure is one XLA printed (sizes, offsets, live ranges, the peak time) or XLA's
own accounting of them: the bytes at the peak are the sum of the printed peak list,
which is the running total XLA's peak algorithm maximised (old format: each live
value counted with its whole instruction's size; new format: with its own size).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass

from hlo_lsp.analysis.memory import memory_summary
from hlo_lsp.model.buffer_assignment import (
    Allocation,
    BufferAssignment,
    BufferValue,
    LiveRange,
    LiveRangeSection,
)
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.sizes import human_bytes


@dataclass(frozen=True, slots=True)
class Peak:
    time: int
    instruction: str | None  # the instruction scheduled at that time
    total: int | None  # bytes live at the peak, as XLA counts them
    counted: dict[str, int]  # bytes each live value adds, by range label (old format: by name)
    by_name: bool


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
    if section.peak_time is None:
        return _recomputed_peak(hlo, buffers)
    cached = _printed_peaks.get(id(section))
    if cached is not None and cached[0]() is section:
        return cached[1]
    peak = _printed_peak(section, section.peak_time)
    if len(_printed_peaks) >= 8:
        _printed_peaks.pop(next(iter(_printed_peaks)))
    _printed_peaks[id(section)] = (weakref.ref(section), peak)
    return peak


# Every hover of a large module asks for its peak: the printed one, read once per section (held
# weakly: a closed module's sections go with it).
_printed_peaks: dict[int, tuple[weakref.ref[LiveRangeSection], Peak]] = {}


def _printed_peak(section: LiveRangeSection, time: int) -> Peak:
    counted: dict[str, int] = {}
    for entry in section.peak:
        counted[entry.name if entry.index is None else entry.label] = entry.size
    total = sum(entry.size for entry in section.peak) if section.peak else section.breakdown_total
    return Peak(time, _scheduled_at(section, time), total, counted, section.peak_format == "old")


def _recomputed_peak(hlo: HloModule | None, buffers: BufferAssignment) -> Peak | None:
    if buffers.live_range is None or not buffers.live_range.ranges:
        return None
    summary = memory_summary(hlo, buffers)
    if summary.peak_time is None:
        return None
    counted = {buffer.label: buffer.size for buffer in summary.buffers_at_peak}
    return Peak(summary.peak_time, summary.peak_instruction, summary.peak_bytes, counted, False)


def _scheduled_at(section: LiveRangeSection, time: int) -> str | None:
    return next((entry.name for entry in section.schedule if entry.time == time), None)


def value_facts(buffers: BufferAssignment, value: BufferValue, peak: Peak | None) -> list[str]:
    """Markdown list items: size, allocation and offset; live range; whether it is live at the peak."""
    allocation = buffers.allocation(value.allocation)
    where = allocation_text(allocation) if allocation else f"allocation {value.allocation}"
    facts = [f"- {byte_text(value.size)} in {where}, offset {value.offset:,}"]
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


def live_range_text(section: LiveRangeSection, live: LiveRange, markdown: bool = True,
                    scheduled: Mapping[int, str] | None = None) -> str:
    """`[9, 10]: from `ynn_fusion.1` to `add_maximum_fusion`` (an end at max is past the last instruction);
    names without backticks for plain text. `scheduled`: the schedule by time, when the caller has it."""
    def at(time: int) -> str | None:
        name = scheduled.get(time) if scheduled is not None else _scheduled_at(section, time)
        return _code(name) if markdown else name

    first = at(live.start)
    last = "the end of the program" if live.end >= section.max_time else at(live.end)
    span = f"[{live.start}, {live.end}]"
    if first is None or last is None:
        return span
    return f"{span}: from {first} to {last}"


def _peak_text(peak: Peak, live: LiveRange, value: BufferValue) -> str:
    moment = f"time {peak.time}" + (f", `{peak.instruction}`" if peak.instruction else "")
    if not live.start <= peak.time <= live.end:
        holding = f", which holds {byte_text(peak.total)}" if peak.total is not None else ""
        return f"not live at the peak ({moment}){holding}"
    counted = peak.counted.get(value.name if peak.by_name else live.label)
    if counted is None:
        return f"live at the peak ({moment})"
    of_total = f" of {byte_text(peak.total)}" if peak.total is not None else " bytes"
    counted_text = f"counted as {counted:,}{of_total}"
    if peak.by_name and value.index:
        counted_text += "; this XLA counts a live tuple element with its whole tuple's size"
    return f"live at the peak ({moment}): {counted_text}"


def _code(text: str | None) -> str | None:
    return f"`{text}`" if text is not None else None
