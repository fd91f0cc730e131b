"""The buffer assignment of one compiled module, read from one or several files.

Older XLA writes everything to `-buffer-assignment.txt`; newer XLA splits it over
`-buffer-assignment.txt` (allocations), `-buffer-assignment-values.txt` (totals,
used values) and `-live-range.txt` (schedule, live ranges, peak). Sections are
taken from whichever document holds them, so both layouts give the same model.
Every record remembers the document and line it was read from. The records of which
a large module has hundreds of thousands are NamedTuples: immutable like the frozen
dataclasses of the rest, and built in a third of the time.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.document import Document
from hlo_lsp.model.lazy import lazy
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.ba_scanner import AllocationData
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.text import Position as TextPosition
from hlo_lsp.text import Range, utf16_column


class Place:
    """Where a record was read: the file, the line, and the part of the line a diagnostic
    should underline. A 40 MB module's files hold about a million records, and few places are
    ever shown: the underlined columns and the Range are worked out when first asked for. Immutable."""

    __slots__ = ("source", "line", "_text", "_start", "_end", "_range")
    source: str
    line: int
    _text: str | None
    _start: int | None
    _end: int | None
    _range: Range | None

    def __init__(self, source: str, line: int, range: Range) -> None:  # noqa: A002 - the field's name
        self.source, self.line, self._text, self._range = source, line, None, range
        self._start, self._end = range.start.character, range.end.character

    @classmethod
    def in_line(cls, source: str, line: int, text: str, start: int | None = None, end: int | None = None) -> Place:
        """The place of Python indices start..end of `text`, the text of `line` (default: the text
        without its indent and trailing spaces)."""
        place = cls.__new__(cls)
        place.source, place.line, place._text, place._start, place._end, place._range = (
            source, line, text, start, end, None)
        return place

    @property
    def range(self) -> Range:
        if self._range is None:
            start, end = self._columns()
            self._range = Range(TextPosition(self.line, start), TextPosition(self.line, end))
        return self._range

    def _columns(self) -> tuple[int, int]:
        text = self._text
        if text is None:  # made from a Range, which gave the columns
            assert self._start is not None and self._end is not None
            return self._start, self._end
        start, end = self._indices(text)
        return (start, end) if text.isascii() else (utf16_column(text, start), utf16_column(text, end))

    def _indices(self, text: str) -> tuple[int, int]:
        """The Python indices underlined in `text` (by default, the text without indent and trailing spaces)."""
        if self._start is None or self._end is None:
            return len(text) - len(text.lstrip()), len(text.rstrip())
        return self._start, self._end

    def underlined_text(self) -> str | None:
        """The underlined part of the line (None for a place made from a Range alone)."""
        if self._text is None:
            return None
        start, end = self._indices(self._text)
        return self._text[start:end]

    def _key(self) -> tuple[str, int, Range]:
        return self.source, self.line, self.range

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Place) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Place(source={self.source!r}, line={self.line}, range={self.range!r})"


def parse_index(text: str | None) -> tuple[int, ...] | None:
    """`{1,2}` -> (1, 2); `{}` -> (); None -> None (no index printed)."""
    if text is None:
        return None
    inner = text.strip()[1:-1]
    return tuple(int(part) for part in inner.split(",") if part.strip())


def format_index(index: tuple[int, ...] | None) -> str:
    return "" if index is None else "{" + ",".join(str(i) for i in index) + "}"


# The records' `index` fields shadow tuple.index, as collections.namedtuple lets them: mypy takes a NamedTuple
# field for an incompatible override of the method (python/mypy#4507), hence their `type: ignore[assignment]`.
class BufferValue(NamedTuple):
    value_id: int
    name: str
    index: tuple[int, ...] | None  # type: ignore[assignment]  # printed only for tuple-shaped instructions
    is_phi: bool
    color: int | None
    size: int
    offset: int
    shape_text: str
    allocation: int
    place: Place

    @property
    def label(self) -> str:
        return self.name + format_index(self.index)

    @property
    def short_string(self) -> str:
        """The value as XLA prints it everywhere: `<179 custom-call.5.0{0} @0>`."""
        phi = " (phi)" if self.is_phi else ""
        color = f" @{self.color}" if self.color is not None else ""
        return f"<{self.value_id} {self.label}{phi}{color}>"

    @property
    def end(self) -> int:
        return self.offset + self.size


class Allocation(NamedTuple):
    index: int  # type: ignore[assignment]  # shadows tuple.index (python/mypy#4507)
    size: int
    color: int
    page: int | None
    parameter_number: int | None
    parameter_shape: str | None
    parameter_index: tuple[int, ...] | None
    output_shape: str | None
    flags: frozenset[str]  # constant, thread-local, maybe-live-out, preallocated-temp
    values: tuple[BufferValue, ...]
    place: Place
    unread: str  # header text after the known properties (should be empty)

    @property
    def is_parameter(self) -> bool:
        return self.parameter_number is not None

    @property
    def is_thread_local(self) -> bool:
        return "thread-local" in self.flags

    @property
    def is_constant(self) -> bool:
        return "constant" in self.flags

    @property
    def maybe_live_out(self) -> bool:
        return "maybe-live-out" in self.flags

    @property
    def is_preallocated_temp(self) -> bool:
        return "preallocated-temp" in self.flags

    def kinds(self) -> list[str]:
        kinds = [f"parameter {self.parameter_number}"] if self.is_parameter else []
        kinds += [flag for flag in ("constant", "thread-local", "maybe-live-out", "preallocated-temp")
                  if flag in self.flags]
        if self.color:
            kinds.append(f"color {self.color}")
        return kinds


class Position(NamedTuple):
    name: str
    index: tuple[int, ...] | None  # type: ignore[assignment]  # shadows tuple.index (python/mypy#4507)
    place: Place


class Use(NamedTuple):
    name: str
    operand: int
    index: tuple[int, ...] | None  # type: ignore[assignment]  # shadows tuple.index (python/mypy#4507)
    place: Place


class UsedValue(NamedTuple):
    value_id: int
    name: str
    index: tuple[int, ...] | None  # type: ignore[assignment]  # shadows tuple.index (python/mypy#4507)
    is_phi: bool
    color: int | None
    header: str
    place: Place
    positions: tuple[Position, ...]
    uses: tuple[Use, ...]
    instruction_place: Place | None  # underlines the `from instruction:` text
    instruction_name: str | None
    instruction_shape: str | None  # the shape text of that instruction

    @property
    def label(self) -> str:
        return self.name + format_index(self.index)

    @property
    def instruction_text(self) -> str | None:
        """The `from instruction:` text, read again from its line: not a second copy of every line."""
        return self.instruction_place.underlined_text() if self.instruction_place is not None else None


class ScheduleEntry(NamedTuple):
    time: int
    name: str
    place: Place


class LiveRange(NamedTuple):
    name: str
    index: tuple[int, ...]  # type: ignore[assignment]  # shadows tuple.index (python/mypy#4507)
    start: int
    end: int
    place: Place

    @property
    def label(self) -> str:
        return self.name + format_index(self.index)


class PeakEntry(NamedTuple):
    name: str
    index: tuple[int, ...] | None  # type: ignore[assignment]  # None in the old format (`name: N bytes`)
    size: int
    cumulative: int | None
    place: Place

    @property
    def label(self) -> str:
        return self.name + format_index(self.index)


@dataclass(frozen=True, slots=True)
class BreakdownFrame:
    depth: int
    label: str
    percent: float
    total: int
    current: int
    remaining: int
    place: Place


# Not slotted: the memory tests hold weak references to sections, and a slotted dataclass has a __weakref__
# slot only from Python 3.11 (weakref_slot=True raises TypeError on 3.10, which requires-python admits).
@dataclass(frozen=True)
class LiveRangeSection:
    max_time: int
    place: Place
    schedule: tuple[ScheduleEntry, ...]
    ranges: tuple[LiveRange, ...]
    peak_time: int | None
    peak_place: Place | None
    peak: tuple[PeakEntry, ...]
    breakdown_total: int | None = None
    breakdown: tuple[BreakdownFrame, ...] = ()

    @property
    def peak_format(self) -> str | None:
        if not self.peak:
            return None
        return "old" if self.peak[0].index is None else "new"


@dataclass(frozen=True, slots=True)
class Totals:
    size: int
    human: str
    place: Place


@dataclass
class BufferAssignment:
    """Everything the buffer-assignment files of one module say.

    The `-buffer-assignment-values.txt` file (totals and Used values, the largest file of a
    module in newer XLA) is read when one of those is first asked for: a hover or the
    memory view never needs it.
    """

    allocations: list[Allocation] = field(default_factory=list)
    live_range: LiveRangeSection | None = None
    live_range_unavailable: bool = False
    sources: list[str] = field(default_factory=list)
    has_allocations_section: bool = False
    _totals: Totals | None = None
    _used_values: list[UsedValue] = field(default_factory=list)
    _has_used_values_section: bool = False
    _unread_values_documents: list[Document] = field(default_factory=list)
    _read_lock: threading.Lock = field(default_factory=threading.Lock)
    derived: Derived = field(default_factory=Derived, repr=False, compare=False)

    @property
    def totals(self) -> Totals | None:
        self._read_values_documents()
        return self._totals

    @property
    def used_values(self) -> list[UsedValue]:
        self._read_values_documents()
        return self._used_values

    @property
    def has_used_values_section(self) -> bool:
        self._read_values_documents()
        return self._has_used_values_section

    def _read_values_documents(self) -> None:
        if not self._unread_values_documents:
            return
        with self._read_lock, paused_collector():
            for document in self._unread_values_documents:
                # totals and Used values only: XLA writes nothing else to this file
                part = BufferAssignment()
                _Reader(document, part).read()
                self._totals = self._totals or part._totals
                self._used_values.extend(part._used_values)
                self._has_used_values_section |= part._has_used_values_section
            self._unread_values_documents = []

    def values(self) -> Iterable[BufferValue]:
        for allocation in self.allocations:
            yield from allocation.values

    def value_by_id(self) -> dict[int, BufferValue]:
        """Every value by its id (the last printed wins); read-only, shared between callers."""
        return self._values_by_id

    # Lookups answer from tables built on first use, once reading is done: a hover asks several,
    # and a 40 MB module has tens of thousands of values.

    def allocation(self, index: int) -> Allocation | None:
        return self._allocations_by_index.get(index)

    def values_named(self, name: str) -> list[BufferValue]:
        return list(self._values_by_name.get(name, ()))

    def values_at_position(self, name: str) -> list[BufferValue]:
        """The allocated values of other instructions that `name` is a position of (`positions:` in
        Used values): a `copy-done` holds its `copy-start`'s value. Reads the values file."""
        by_id = self.value_by_id()
        found = [by_id[used.value_id] for used in self.used_values if used.name != name and used.value_id in by_id
                 and any(position.name == name for position in used.positions)]
        return sorted(found, key=lambda value: value.value_id)

    def live_range_of(self, name: str, index: tuple[int, ...] | None = None) -> LiveRange | None:
        """The BufferLiveRange entry of a value (which always prints an index, `{}` at the top)."""
        return self._ranges_by_value.get((name, index or ()))

    @lazy
    def colors(self) -> frozenset[int]:
        """The memory spaces (colors) of its allocations."""
        return frozenset(allocation.color for allocation in self.allocations)

    @lazy
    def _allocations_by_index(self) -> dict[int, Allocation]:
        table: dict[int, Allocation] = {}
        for allocation in self.allocations:
            table.setdefault(allocation.index, allocation)
        return table

    @lazy
    def _values_by_id(self) -> dict[int, BufferValue]:
        return {value.value_id: value for value in self.values()}

    @lazy
    def _values_by_name(self) -> dict[str, list[BufferValue]]:
        table: dict[str, list[BufferValue]] = {}
        with paused_collector():  # a list per name: tens of thousands of new objects
            for value in self.values():
                table.setdefault(value.name, []).append(value)
        return table

    @lazy
    def _ranges_by_value(self) -> dict[tuple[str, tuple[int, ...]], LiveRange]:
        table: dict[tuple[str, tuple[int, ...]], LiveRange] = {}
        for entry in self.live_range.ranges if self.live_range is not None else ():
            table.setdefault((entry.name, entry.index), entry)
        return table


def read_buffer_assignment(documents: Iterable[Document]) -> BufferAssignment:
    """Reads the model from the documents of one module (combined or split files)."""
    model = BufferAssignment()
    with paused_collector():
        for document in documents:
            model.sources.append(document.source)
            if document.kind is FileKind.BUFFER_ASSIGNMENT_VALUES:
                model._unread_values_documents.append(document)
            else:
                _Reader(document, model).read()
    return model


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
    peak: list[PeakEntry] = field(default_factory=list)
    breakdown_total: int | None = None
    breakdown: list[BreakdownFrame] = field(default_factory=list)

    def close(self) -> LiveRangeSection:
        return LiveRangeSection(self.max_time, self.place, tuple(self.schedule), tuple(self.ranges),
                                self.peak_time, self.peak_place, tuple(self.peak), self.breakdown_total,
                                tuple(self.breakdown))


class _Reader:
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
            self.live.peak.append(PeakEntry(name, parse_index(index), size, cumulative, self.place(line)))

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
