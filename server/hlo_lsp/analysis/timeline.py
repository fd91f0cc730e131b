"""Memory over the schedule: the bytes live at each step (split by what holds them), every
buffer's lifetime, and how much of each allocation is ever in use at once.

Bytes are counted as XLA's printed peak counts them (analysis/memory.py), so the usage at
the peak step is the printed peak. XLA picks its peak step by a running sum that counts a
value one step past its last use, so another step can hold more live bytes than the peak
step does (dump-format.md §2.6, P6): `Timeline.highest` is that step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hlo_lsp.analysis.memory import (
    KINDS,
    MemorySummary,
    SizedRange,
    ValueIndex,
    allocation_kind,
    counted_bytes,
    counts_whole_instruction,
    memory_summary,
    sized_module,
)
from hlo_lsp.model.buffer_assignment import Allocation, BufferAssignment, LiveRange
from hlo_lsp.model.hlo_module import HloModule


@dataclass(frozen=True, slots=True)
class TimelineBuffer:
    """One value with a live range."""

    live_range: LiveRange
    size: int  # counted as the peak counts it
    value_size: int  # dense bytes of the value's own shape
    kind: str
    allocation: int | None
    offset: int | None

    @property
    def label(self) -> str:
        return self.live_range.label


@dataclass(frozen=True, slots=True)
class AllocationUse:
    """How much of an allocation its values ever use at once (by their assigned sizes and offsets)."""

    allocation: Allocation
    kind: str
    live_values: int
    peak_live_bytes: int  # the most bytes of it covered by live values at one step
    peak_live_time: int
    used_extent: int  # the end of the highest value in it

    @property
    def fragmentation(self) -> int:
        """Bytes of the allocation never in use at the step its values use the most."""
        return max(self.allocation.size - self.peak_live_bytes, 0)

    @property
    def fragmentation_percent(self) -> float:
        return 100.0 * self.fragmentation / self.allocation.size if self.allocation.size else 0.0


@dataclass(frozen=True, slots=True)
class Timeline:
    max_time: int
    schedule: tuple[str | None, ...]  # the instruction at each step 0..max_time-1
    usage: tuple[int, ...]  # bytes live at each step 0..max_time
    usage_by_kind: dict[str, tuple[int, ...]]  # the same, per kind (KINDS order, kinds present only)
    buffers: tuple[TimelineBuffer, ...]  # every value with a live range, largest first
    allocations: tuple[AllocationUse, ...]  # those holding values with live ranges, by index
    summary: MemorySummary

    @property
    def highest(self) -> tuple[int, int]:
        """(step, bytes) of the first step with the most live bytes."""
        most = max(self.usage, default=0)
        return (self.usage.index(most) if self.usage else 0), most

    def instruction_at(self, time: int) -> str | None:
        return self.schedule[time] if 0 <= time < len(self.schedule) else None


def memory_timeline(hlo: HloModule | None, buffers: BufferAssignment, color: int | None = None,
                    sized: list[SizedRange] | None = None, fragmentation: bool = True) -> Timeline | None:
    """The timeline of every memory space as XLA's printed peak counts them, or of the space `color` (without
    `fragmentation`: no allocation's use); None without a live-range section, or when some scheduled
    instruction's shape is unknown."""
    section = buffers.live_range
    sized = sized if sized is not None else sized_module(hlo, buffers)
    if section is None or sized is None:
        return None
    summary = memory_summary(hlo, buffers, sized, color)
    index = ValueIndex(buffers)
    if color is not None:
        sized = [item for item in sized if index.color(item.live_range) == color]
    # XLA's max is the number of scheduled instructions; a larger one (a checker reports it) would
    # only make every per-step list as long as the number says.
    max_time = min(section.max_time, len(section.schedule))
    timeline_buffers = _timeline_buffers(sized, index, counts_whole_instruction(section), max_time)
    by_kind = _usage_by_kind(timeline_buffers, max_time)
    usage = tuple(sum(step) for step in zip(*by_kind.values())) if by_kind else (0,) * (max_time + 1)
    schedule: list[str | None] = [None] * max_time
    for entry in section.schedule:
        if 0 <= entry.time < max_time:
            schedule[entry.time] = entry.name
    uses = _allocation_uses(buffers, color) if fragmentation else ()
    return Timeline(max_time, tuple(schedule), usage, by_kind, timeline_buffers, uses, summary)


def _timeline_buffers(sized: list[SizedRange], index: ValueIndex, whole_instruction: bool,
                      max_time: int) -> tuple[TimelineBuffer, ...]:
    found = []
    for item in sized:
        value = index.value(item.live_range)
        found.append(TimelineBuffer(_clamped(item.live_range, max_time), counted_bytes(item, whole_instruction),
                                    item.value_bytes, index.kind(item.live_range),
                                    value.allocation if value else None, value.offset if value else None))
    found.sort(key=lambda b: (-b.size, b.live_range.start, b.live_range.name, b.live_range.index))
    return tuple(found)


def _clamped(live_range: LiveRange, max_time: int) -> LiveRange:
    """The range inside 0..max_time (a checker reports ranges outside it; drawing needs them inside)."""
    start = min(max(live_range.start, 0), max_time)
    end = min(max(live_range.end, start), max_time)
    if (start, end) == (live_range.start, live_range.end):
        return live_range
    return LiveRange(live_range.name, live_range.index, start, end, live_range.place)


def _usage_by_kind(found: Iterable[TimelineBuffer], max_time: int) -> dict[str, tuple[int, ...]]:
    """Bytes live at each step 0..max_time per kind, by running sums of start and end+1 deltas."""
    deltas: dict[str, list[int]] = {}
    for buffer in found:
        delta = deltas.get(buffer.kind)
        if delta is None:  # (not `setdefault`, which would build a list of every step for each buffer)
            delta = deltas[buffer.kind] = [0] * (max_time + 2)
        delta[buffer.live_range.start] += buffer.size
        delta[buffer.live_range.end + 1] -= buffer.size
    usage = {}
    for kind in KINDS:
        if kind in deltas:
            running, steps = 0, []
            for change in deltas[kind][: max_time + 1]:
                running += change
                steps.append(running)
            usage[kind] = tuple(steps)
    return usage


# ---- per allocation ----------------------------------------------------------------------------


def _allocation_uses(buffers: BufferAssignment, color: int | None) -> tuple[AllocationUse, ...]:
    section = buffers.live_range
    ranges = {(r.name, r.index): r for r in section.ranges} if section else {}
    uses = []
    for allocation in buffers.allocations:
        if color is not None and allocation.color != color:
            continue
        spans = []
        for value in allocation.values:
            live = ranges.get((value.name, value.index or ()))
            if live is not None and value.size > 0:
                spans.append((live.start, live.end, value.offset, value.end))
        if spans:
            uses.append(_allocation_use(allocation, spans))
    return tuple(uses)


def _allocation_use(allocation: Allocation, spans: list[tuple[int, int, int, int]]) -> AllocationUse:
    """Sweeps the value starts (the covered bytes only grow there) keeping the values still live."""
    spans.sort()
    active: list[tuple[int, int, int, int]] = []
    best, best_time = 0, spans[0][0]
    position = 0
    while position < len(spans):
        time = spans[position][0]
        active = [span for span in active if span[1] >= time]
        while position < len(spans) and spans[position][0] == time:
            active.append(spans[position])
            position += 1
        covered = _covered_bytes((span[2], span[3]) for span in active)
        if covered > best:
            best, best_time = covered, time
    return AllocationUse(allocation, allocation_kind(allocation), len(spans), best, best_time,
                         max(span[3] for span in spans))


def _covered_bytes(intervals: Iterable[tuple[int, int]]) -> int:
    """The size of the union of byte intervals [start, end)."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total
