"""XLA's own memory accounting over the schedule (xla/hlo/utils/hlo_live_range.cc).

Used both to check the peak XLA printed and, later, to draw usage over time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hlo_lsp.model.buffer_assignment import BufferAssignment, LiveRange
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.sizes import dense_size
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.syntax import ParseError, Shape, subshape


def peak_moment(ranges: Iterable[tuple[int, int, int]]) -> int:
    """ComputePeakMemoryMoment: the first time the running sum of live bytes is largest.

    `ranges` are (start, end, bytes) with inclusive ends. Events are (start, begin)
    and (end + 1, finish), begins first at equal times; this is not the naive
    argmax of bytes live at t, and it is what XLA prints.
    """
    events: list[tuple[int, int, int]] = []
    for start, end, size in ranges:
        events.append((start, 0, size))
        events.append((end + 1, 1, size))
    events.sort(key=lambda event: (event[0], event[1]))
    usage = peak = 0
    moment: int | None = None
    for time, is_end, size in events:
        usage += -size if is_end else size
        if peak < usage:
            peak, moment = usage, time
    return moment if moment is not None else 0


@dataclass(frozen=True, slots=True)
class SizedRange:
    live_range: LiveRange
    instruction_bytes: int  # dense size of the defining instruction's whole shape
    value_bytes: int  # dense size of the value's own (sub)shape


def paired_module(hlo: HloModule | None, buffers: BufferAssignment | None) -> HloModule | None:
    """`hlo` when it is the module the buffer assignment was made for (most scheduled names
    are its instructions), else None: XLA numbers modules per process, so a folder can hold
    files of two compilations under one name."""
    if hlo is None or buffers is None or buffers.live_range is None or not buffers.live_range.schedule:
        return hlo
    schedule = buffers.live_range.schedule
    known = sum(1 for entry in schedule if hlo.line_of(entry.name) is not None)
    return hlo if known * 2 >= len(schedule) else None


class ShapeLookup:
    """Instruction shapes by name: from the paired HLO module, else from Used values."""

    def __init__(self, hlo: HloModule | None, buffers: BufferAssignment | None) -> None:
        self._hlo = paired_module(hlo, buffers)
        self._from_values: dict[str, str] = {}
        if buffers is not None:
            for used in buffers.used_values:
                if used.instruction_shape is not None:
                    self._from_values.setdefault(used.name, used.instruction_shape)

    def shape(self, name: str) -> Shape | None:
        if self._hlo is not None:
            shape = self._hlo.shape_of(name)
            if shape is not None:
                return shape
        text = self._from_values.get(name)
        if text is None:
            return None
        parsed = parse_shape(text)
        return None if isinstance(parsed, ParseError) else parsed


def sized_ranges(ranges: Iterable[LiveRange], shape_of: Callable[[str], Shape | None]) -> list[SizedRange] | None:
    """Each live range with its sizes; None if some instruction's shape is unknown."""
    sized = []
    for entry in ranges:
        shape = shape_of(entry.name)
        if shape is None:
            return None
        value_shape = subshape(shape, entry.index)
        whole, own = dense_size(shape), dense_size(value_shape) if value_shape is not None else None
        if whole is None or own is None:
            return None
        sized.append(SizedRange(entry, whole, own))
    return sized


def live_at(sized: Iterable[SizedRange], time: int) -> list[SizedRange]:
    return [item for item in sized if item.live_range.start <= time <= item.live_range.end]


def new_format_peak(sized: Iterable[SizedRange], time: int) -> list[tuple[str, int]]:
    """The peak list as newer XLA prints it: (label, bytes), largest first, then name, index."""
    live = live_at(sized, time)
    live.sort(key=lambda item: (-item.value_bytes, item.live_range.name, item.live_range.index))
    return [(item.live_range.label, item.value_bytes) for item in live]


@dataclass(frozen=True, slots=True)
class PeakBuffer:
    label: str
    size: int  # dense bytes of the value, as XLA's peak list counts them
    live_range: LiveRange
    allocation: int | None
    offset: int | None
    allocated_size: int | None  # the value's size in its allocation (padded on TPU)


@dataclass(frozen=True, slots=True)
class MemorySummary:
    total_bytes: int | None
    allocation_count: int
    peak_time: int | None
    peak_instruction: str | None
    peak_bytes: int | None
    buffers_at_peak: tuple[PeakBuffer, ...]


def memory_summary(hlo: HloModule | None, buffers: BufferAssignment) -> MemorySummary:
    """Peak and the buffers live at it, by XLA's own accounting (matches its printed peak)."""
    total = buffers.totals.size if buffers.totals else sum(a.size for a in buffers.allocations)
    section = buffers.live_range
    sized = sized_ranges(section.ranges, ShapeLookup(hlo, buffers).shape) if section else None
    if section is None or sized is None:
        return MemorySummary(total, len(buffers.allocations), None, None, None, ())
    time = peak_moment((s.live_range.start, s.live_range.end, s.instruction_bytes) for s in sized)
    values = {(v.name, v.index or ()): v for v in buffers.values()}
    peak = []
    for item in live_at(sized, time):
        value = values.get((item.live_range.name, item.live_range.index))
        peak.append(PeakBuffer(item.live_range.label, item.value_bytes, item.live_range,
                               value.allocation if value else None, value.offset if value else None,
                               value.size if value else None))
    peak.sort(key=lambda b: (-b.size, b.live_range.name, b.live_range.index))
    names = {entry.time: entry.name for entry in section.schedule}
    return MemorySummary(total, len(buffers.allocations), time, names.get(time),
                         sum(b.size for b in peak), tuple(peak))
