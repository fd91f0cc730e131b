"""XLA's own memory accounting over the schedule (xla/hlo/utils/hlo_live_range.cc).

Used to check the peak XLA printed, to list the buffers live at it, and (analysis/timeline.py)
to draw usage over time. The peak moment is chosen with instruction-shape sizes; the bytes at
it are counted as the printed peak list counts them: each value's own size in the new format,
its whole defining instruction's size in the old one (a live tuple element counts as the tuple).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hlo_lsp.model.buffer_assignment import (
    Allocation,
    BufferAssignment,
    BufferValue,
    LiveRange,
    LiveRangeSection,
    Place,
    UsedValue,
)
from hlo_lsp.model.hlo_module import HloModule, SourceLocation
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR, MemorySpace, MemorySpaces
from hlo_lsp.model.pairing import paired_module
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


class ShapeLookup:
    """Instruction shapes by name: from the paired HLO module, else from Used values."""

    def __init__(self, hlo: HloModule | None, buffers: BufferAssignment | None) -> None:
        self._hlo = paired_module(hlo, buffers)
        self._buffers = buffers
        self._from_values: dict[str, str] | None = None  # read when the module lacks a shape (a 20 MB file at times)

    def shape(self, name: str) -> Shape | None:
        if self._hlo is not None:
            shape = self._hlo.shape_of(name)
            if shape is not None:
                return shape
        text = self._value_shapes().get(name)
        if text is None:
            return None
        parsed = parse_shape(text)
        return None if isinstance(parsed, ParseError) else parsed

    def _value_shapes(self) -> dict[str, str]:
        if self._from_values is None:
            self._from_values = self._buffers.instruction_shapes() if self._buffers is not None else {}
        return self._from_values


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


# What an allocation holds, as XProf's memory viewer splits it.
PARAMETER, OUTPUT, CONSTANT, TEMPORARY, UNALLOCATED = "parameter", "output", "constant", "temporary", "unallocated"
KINDS = (PARAMETER, CONSTANT, OUTPUT, TEMPORARY, UNALLOCATED)


def allocation_kind(allocation: Allocation | None) -> str:
    """parameter (also when donated to an output), output (maybe-live-out), constant or temporary."""
    if allocation is None:
        return UNALLOCATED
    if allocation.is_parameter:
        return PARAMETER
    if allocation.maybe_live_out:
        return OUTPUT
    return CONSTANT if allocation.is_constant else TEMPORARY


def counts_whole_instruction(section: LiveRangeSection) -> bool:
    """True when this XLA's peak list counts a value with its whole instruction's size (old format)."""
    return section.peak_format == "old"


def counted_bytes(item: SizedRange, whole_instruction: bool) -> int:
    return item.instruction_bytes if whole_instruction else item.value_bytes


class ValueIndex:
    """The allocated value of each live range, and its allocation."""

    def __init__(self, buffers: BufferAssignment) -> None:
        self._values = {(v.name, v.index or ()): v for v in buffers.values()}
        self._allocations = {a.index: a for a in buffers.allocations}

    def value(self, live_range: LiveRange) -> BufferValue | None:
        return self._values.get((live_range.name, live_range.index))

    def allocation(self, live_range: LiveRange) -> Allocation | None:
        value = self.value(live_range)
        return self._allocations.get(value.allocation) if value is not None else None

    def kind(self, live_range: LiveRange) -> str:
        return allocation_kind(self.allocation(live_range))

    def color(self, live_range: LiveRange) -> int:
        """The memory space of the value's allocation (the default space when it has none)."""
        allocation = self.allocation(live_range)
        return allocation.color if allocation is not None else DEFAULT_COLOR


@dataclass(frozen=True, slots=True)
class PeakBuffer:
    label: str
    size: int  # dense bytes of the value's own shape (what the new peak-list format prints)
    live_range: LiveRange
    allocation: int | None
    offset: int | None
    allocated_size: int | None  # the value's size in its allocation (padded on TPU)
    counted: int  # bytes XLA's printed peak counts for it (old format: its whole instruction's size)
    kind: str  # parameter, output, constant, temporary or unallocated (from its allocation)


@dataclass(frozen=True, slots=True)
class MemorySummary:
    total_bytes: int | None
    allocation_count: int
    peak_time: int | None
    peak_instruction: str | None
    peak_bytes: int | None  # as XLA's printed peak counts them: the sum of `counted`
    buffers_at_peak: tuple[PeakBuffer, ...]
    whole_instruction_sizes: bool = False  # the old peak format's accounting (see counted_bytes)

    @property
    def padding(self) -> int:
        """Bytes the buffers live at the peak hold in their allocations beyond their dense sizes
        (TPU pads to tiles: `f32[]{:T(128)}` takes 512 bytes)."""
        return sum(max(buffer.allocated_size - buffer.size, 0) for buffer in self.buffers_at_peak
                   if buffer.allocated_size is not None)

    def bytes_by_kind(self) -> dict[str, int]:
        """Counted bytes at the peak per kind, in KINDS order, kinds with no buffer left out."""
        totals = {kind: 0 for kind in KINDS}
        present = set()
        for buffer in self.buffers_at_peak:
            totals[buffer.kind] += buffer.counted
            present.add(buffer.kind)
        return {kind: total for kind, total in totals.items() if kind in present}

    @property
    def value_bytes(self) -> int:
        """The bytes at the peak by the values' own sizes (differs from peak_bytes only in the old format)."""
        return sum(buffer.size for buffer in self.buffers_at_peak)


def sized_module(hlo: HloModule | None, buffers: BufferAssignment) -> list[SizedRange] | None:
    """Every live range of the module with its sizes; None without a live-range section or a shape."""
    section = buffers.live_range
    return sized_ranges(section.ranges, ShapeLookup(hlo, buffers).shape) if section else None


def xla_peak_time(sized: Iterable[SizedRange]) -> int:
    return peak_moment((s.live_range.start, s.live_range.end, s.instruction_bytes) for s in sized)


def memory_summary(hlo: HloModule | None, buffers: BufferAssignment,
                   sized: list[SizedRange] | None = None, color: int | None = None) -> MemorySummary:
    """Peak and the buffers live at it, by XLA's own accounting (matches its printed peak, which
    counts every memory space); with `color`, the same accounting over that space's values alone."""
    index = ValueIndex(buffers)
    # The allocations' sizes, which XLA's `Total bytes used:` adds up (the total-bytes check says where it does
    # not): that line is in the values file, 20 MB at 40 MB, which a peak needs nothing else of.
    allocations = [allocation for allocation in buffers.allocations if color is None or allocation.color == color]
    total, count = sum(allocation.size for allocation in allocations), len(allocations)
    section = buffers.live_range
    sized = sized if sized is not None else sized_module(hlo, buffers)
    if sized is not None and color is not None:
        sized = [item for item in sized if index.color(item.live_range) == color]
    if section is None or sized is None or (color is not None and not sized):
        return MemorySummary(total, count, None, None, None, ())
    time = xla_peak_time(sized)
    whole = counts_whole_instruction(section)
    peak = [_peak_buffer(item, index, whole) for item in live_at(sized, time)]
    peak.sort(key=lambda b: (-b.size, b.live_range.name, b.live_range.index))
    names = {entry.time: entry.name for entry in section.schedule}
    return MemorySummary(total, count, time, names.get(time), sum(b.counted for b in peak), tuple(peak), whole)


@dataclass(frozen=True, slots=True)
class SpaceMemory:
    """One memory space's figures: its allocations and its peak by XLA's accounting."""

    space: MemorySpace
    summary: MemorySummary


def memory_by_space(hlo: HloModule | None, buffers: BufferAssignment, spaces: MemorySpaces,
                    sized: list[SizedRange] | None = None) -> tuple[SpaceMemory, ...]:
    """Every memory space's figures, the default space first."""
    sized = sized if sized is not None else sized_module(hlo, buffers)
    return tuple(SpaceMemory(space, memory_summary(hlo, buffers, sized, space.color)) for space in spaces)


def _peak_buffer(item: SizedRange, index: ValueIndex, whole_instruction: bool) -> PeakBuffer:
    value = index.value(item.live_range)
    return PeakBuffer(item.live_range.label, item.value_bytes, item.live_range,
                      value.allocation if value else None, value.offset if value else None,
                      value.size if value else None, counted_bytes(item, whole_instruction),
                      index.kind(item.live_range))


# ---- where an instruction comes from ----------------------------------------------------------

# The metadata fields an origin needs, read without the grammar (a module can have thousands of
# buffers at its peak; `op_name` and `source_file` are printed only inside `metadata={...}`).
_METADATA_FIELD = re.compile(r'\b(op_type|op_name|source_file|source_line|stack_frame_id)=("(?:[^"\\]|\\.)*"|[0-9]+)')


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an instruction is defined in the dump, and where it comes from in the user's program."""

    place: Place | None  # its name in the HLO module, else its `from instruction:` line
    op_name: str | None
    source_file: str | None
    source_line: int | None
    function: str | None
    op_type: str | None = None  # TensorFlow's node type, PyTorch/XLA's `aten__addmm`

    @property
    def framework_op(self) -> str | None:
        return framework_op(self.op_type, self.op_name)

    @property
    def source(self) -> str | None:
        """`file:line` (or just the file) in the user's program."""
        if self.source_file is None:
            return None
        return self.source_file + (f":{self.source_line}" if self.source_line is not None else "")


NO_ORIGIN = Origin(None, None, None, None, None)


def instruction_origins(hlo: HloModule | None, buffers: BufferAssignment | None,
                        names: Iterable[str]) -> dict[str, Origin]:
    """Each instruction's origin: from the paired HLO module when it defines it, else from the
    `from instruction:` text of one of its Used values."""
    hlo = paired_module(hlo, buffers)
    used_values: dict[str, UsedValue] | None = None  # read for a name the module does not define
    origins: dict[str, Origin] = {}
    for name in names:
        site = hlo.site(name) if hlo is not None else None
        if hlo is not None and site is not None:
            place = Place(hlo.document.source, site.line, site.name_range)
            origins[name] = _origin(place, hlo.instruction_text(site.line), hlo)
            continue
        if used_values is None:
            used_values = _values_with_text(buffers)
        used = used_values.get(name)
        if used is not None and used.instruction_text is not None:
            origins[name] = _origin(used.instruction_place, used.instruction_text, None)
        else:
            origins[name] = NO_ORIGIN
    return origins


def _values_with_text(buffers: BufferAssignment | None) -> dict[str, UsedValue]:
    """The first Used value of each instruction that prints its `from instruction:` text."""
    found: dict[str, UsedValue] = {}
    for value in buffers.used_values if buffers is not None else ():
        if value.instruction_text:
            found.setdefault(value.name, value)
    return found


def framework_op(op_type: str | None, op_name: str | None) -> str | None:
    """The operation of the framework an instruction comes from: TensorFlow's `op_type` (`MatMul`),
    PyTorch/XLA's (`aten__addmm`, spelled `aten::addmm`), else the `op_name` (JAX prints no op_type:
    `jit(mlp)/dot_general`)."""
    if op_type:
        return "aten::" + op_type[len("aten__"):] if op_type.startswith("aten__") else op_type
    return op_name


def _origin(place: Place | None, text: str, hlo: HloModule | None) -> Origin:
    start = text.rfind("metadata={")
    fields = {match[1]: match[2] for match in _METADATA_FIELD.finditer(text, start)} if start >= 0 else {}
    op_name, op_type = _unquoted(fields.get("op_name")), _unquoted(fields.get("op_type"))
    source_file = _unquoted(fields.get("source_file"))
    source_line, frame_id = _number(fields.get("source_line")), _number(fields.get("stack_frame_id"))
    if hlo is not None:
        location = hlo.source_of(source_file, source_line, frame_id)
    else:
        location = SourceLocation(source_file, source_line) if source_file else None
    if location is None:
        return Origin(place, op_name, None, None, None, op_type)
    return Origin(place, op_name, location.file_name, location.line, location.function_name, op_type)


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def _unquoted(value: str | None) -> str | None:
    if value is None or not value.startswith('"'):
        return value
    return re.sub(r"\\(.)", r"\1", value[1:-1])
