"""Reading one buffer-assignment-family document's line scans into the records of a BufferAssignment."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hlo_lsp.model.buffer_records import (
    Allocation,
    BreakdownFrame,
    BufferValue,
    LiveRange,
    LiveRangeSection,
    PeakEntry,
    PeakList,
    Place,
    Position,
    ScheduleEntry,
    Totals,
    Use,
    UsedValue,
    parse_index,
)
from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Document
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.ba_scanner import AllocationData
from hlo_lsp.parsing.line_scan import LineScan

if TYPE_CHECKING:  # the model imports its reader
    from hlo_lsp.model.buffer_assignment import BufferAssignment


# A chunk's peak entries, as read from a line number of a file
_PEAK_LIST: DerivedKey[tuple[tuple[str, int], PeakList]] = DerivedKey("peak list")


def _ignore(line: int, scan: LineScan) -> None:
    """Lines that carry nothing for the model (blank lines, headers of known sections)."""


@dataclass
class _OpenValue:
    """A Used values block while its lines are read."""

    value_id: int
    name: str
    index: tuple[int, ...] | None
    is_phi: bool
    color: int | None
    header: str
    place: Place
    positions: list[Position] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    text_place: Place | None = None
    instruction: str | None = None
    instruction_shape: str | None = None

    def close(self) -> UsedValue:
        return UsedValue(self.value_id, self.name, self.index, self.is_phi, self.color, self.header, self.place,
                         tuple(self.positions), tuple(self.uses), self.text_place, self.instruction,
                         self.instruction_shape)


@dataclass
class _OpenLiveRange:
    """An HloLiveRange section while its lines are read."""

    max_time: int
    place: Place
    schedule: list[ScheduleEntry] = field(default_factory=list)
    ranges: list[LiveRange] = field(default_factory=list)
    peak_time: int | None = None
    peak_place: Place | None = None
    peak: list[PeakEntry] | PeakList = field(default_factory=list)  # a list shared by questions as it was read
    breakdown_total: int | None = None
    breakdown: list[BreakdownFrame] = field(default_factory=list)

    def close(self) -> LiveRangeSection:
        peak = self.peak if isinstance(self.peak, PeakList) else PeakList(self.peak)
        return LiveRangeSection(self.max_time, self.place, tuple(self.schedule), tuple(self.ranges),
                                self.peak_time, self.peak_place, peak, self.breakdown_total, tuple(self.breakdown))


class BufferAssignmentReader:
    """Walks one document's line scans and adds what they say to the model."""

    def __init__(self, document: Document, model: BufferAssignment) -> None:
        self.document = document
        self.model = model
        self.allocation: tuple[AllocationData, Place] | None = None
        self.values: list[BufferValue] = []
        self.used: _OpenValue | None = None
        self.live: _OpenLiveRange | None = None
        self.text = ""  # the line being read, without its `\r`
        self.line_text = ""  # as the document holds it: places keep it, not a stripped copy

    def place(self, line: int, start: int | None = None, end: int | None = None) -> Place:
        """The line being read, underlining Python indices start..end (default: the text without indent)."""
        return Place.in_line(self.document.source, line, self.line_text, start, end)

    def read(self) -> None:
        handlers: dict[str, Callable[[int, LineScan], None]] = {}
        for first, chunk in self.document.chunks_with_starts():
            let_questions_first()
            if self._read_peak_list(first, chunk):
                continue
            for local, (text, scan) in enumerate(zip(chunk.lines, chunk.scans)):
                handler = handlers.get(scan.kind)
                if handler is None:
                    handler = handlers[scan.kind] = getattr(self, "_on_" + scan.kind, _ignore)
                if handler is not _ignore:
                    self.text, self.line_text = text.rstrip("\r"), text
                    handler(first + local, scan)
        self._finish_allocation()
        self._finish_used_value()
        self._finish_live_range()

    # ---- allocations ---------------------------------------------------------------
    def _on_allocations_header(self, line: int, scan: LineScan) -> None:
        self.model.has_allocations_section = True

    def _on_allocation(self, line: int, scan: LineScan) -> None:
        self._finish_allocation()
        self.allocation = (scan.data, self.place(line))

    def _on_value(self, line: int, scan: LineScan) -> None:
        value_id, name, index, phi, color, size, offset, shape, ref_start, ref_end = scan.data
        allocation = self.allocation[0][0] if self.allocation else -1
        self.values.append(BufferValue(
            value_id, name, parse_index(index), phi, color, size, offset, shape, allocation,
            self.place(line, ref_start, ref_end)))

    def _finish_allocation(self) -> None:
        if self.allocation is None:  # values before any allocation's header (a garbled file) belong to none
            self.values = []
            return
        data, place = self.allocation
        index, size, color, page, parameter, output_shape, flags, unread = data
        number, shape, parameter_index = parameter if parameter else (None, None, None)
        self.model.allocations.append(Allocation(
            index, size, color, page, number, shape, parse_index(parameter_index), output_shape,
            frozenset(flags), tuple(self.values), place, unread))
        self.allocation, self.values = None, []

    # ---- totals and used values ------------------------------------------------------
    def _on_totals(self, line: int, scan: LineScan) -> None:
        if self.model._totals is None:
            self.model._totals = Totals(scan.data[0], scan.data[1], self.place(line))

    def _on_used_values_header(self, line: int, scan: LineScan) -> None:
        self._finish_allocation()
        self.model._has_used_values_section = True

    def _on_used_value(self, line: int, scan: LineScan) -> None:
        self._finish_used_value()
        value_id, name, index, phi, color, header = scan.data
        self.used = _OpenValue(value_id, name, parse_index(index), phi, color, header, self.place(line))

    def _on_position(self, line: int, scan: LineScan) -> None:
        if self.used is not None:
            self.used.positions.append(Position(scan.data[0], parse_index(scan.data[1]), self.place(line)))

    def _on_use(self, line: int, scan: LineScan) -> None:
        if self.used is not None:
            self.used.uses.append(Use(scan.data[0], scan.data[1], parse_index(scan.data[2]), self.place(line)))

    def _on_from_instruction(self, line: int, scan: LineScan) -> None:
        if self.used is None:
            return
        start = scan.data[0]
        text = self.text
        self.used.text_place = self.place(line, start, len(text))
        if len(scan.data) > 4:
            _, name, shape_start, opcode_start = scan.data[:4]
            self.used.instruction = name
            self.used.instruction_shape = sys.intern(text[shape_start:opcode_start].strip())  # shapes repeat

    def _finish_used_value(self) -> None:
        if self.used is not None:
            self.model._used_values.append(self.used.close())
            self.used = None

    # ---- live ranges -------------------------------------------------------------------
    def _on_live_range_header(self, line: int, scan: LineScan) -> None:
        self._finish_used_value()
        self._finish_live_range()
        self.live = _OpenLiveRange(scan.data[0], self.place(line))

    def _on_live_range_unavailable(self, line: int, scan: LineScan) -> None:
        self.model.live_range_unavailable = True

    def _on_sequence_entry(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            self.live.schedule.append(ScheduleEntry(scan.data[0], scan.data[1], self.place(line)))

    def _on_live_range(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            name, index, start, end = scan.data
            self.live.ranges.append(LiveRange(name, parse_index(index) or (), start, end, self.place(line)))

    def _on_peak_header(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            self.live.peak_time = scan.data[0]
            self.live.peak_place = self.place(line)

    def _on_peak_entry(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            name, index, size, cumulative = scan.data
            if isinstance(self.live.peak, PeakList):
                self.live.peak = list(self.live.peak)
            self.live.peak.append(PeakEntry(name, parse_index(index), size, cumulative, self.place(line)))

    def _read_peak_list(self, first: int, chunk: Chunk) -> bool:
        """Reads a chunk of peak entries alone (a glance's questions share one) once for all the documents
        that hold it from `first`; False for any other chunk."""
        if self.live is None or not chunk.scans or chunk.scans[0].kind != "peak_entry":
            return False
        kept = chunk.derived.get(_PEAK_LIST)
        if kept is None or kept[0] != (self.document.source, first):
            if any(scan.kind != "peak_entry" for scan in chunk.scans):
                return False
            entries = []
            for local, (text, scan) in enumerate(zip(chunk.lines, chunk.scans)):
                self.line_text = text
                name, index, size, cumulative = scan.data
                entries.append(PeakEntry(name, parse_index(index), size, cumulative, self.place(first + local)))
            kept = ((self.document.source, first), PeakList(entries))
            chunk.derived.put(_PEAK_LIST, kept)
        if not self.live.peak:
            self.live.peak = kept[1]
        else:  # (a whole file's peak list, read chunk by chunk)
            if isinstance(self.live.peak, PeakList):
                self.live.peak = list(self.live.peak)
            self.live.peak.extend(kept[1])
        return True

    def _on_breakdown_header(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            self.live.breakdown_total = scan.data[0]

    def _on_breakdown_frame(self, line: int, scan: LineScan) -> None:
        if self.live is not None:
            depth, label, label_start, percent, total, current, remaining = scan.data
            place = self.place(line, label_start, label_start + len(label))
            self.live.breakdown.append(BreakdownFrame(depth, label, percent, total, current, remaining, place))

    def _finish_live_range(self) -> None:
        if self.live is not None:
            self.model.live_range = self.live.close()
            self.live = None
