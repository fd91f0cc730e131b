"""The buffer assignment of one compiled module, read from one or several files.

Older XLA writes everything to `-buffer-assignment.txt`; newer XLA splits it over
`-buffer-assignment.txt` (allocations), `-buffer-assignment-values.txt` (totals,
used values) and `-live-range.txt` (schedule, live ranges, peak). Sections are
taken from whichever document holds them, so both layouts give the same model.
The records are `model/buffer_records.py`'s, read by `model/buffer_reader.py`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from hlo_lsp.model.buffer_reader import BufferAssignmentReader
from hlo_lsp.model.buffer_records import (
    Allocation,
    BreakdownFrame,
    BufferValue,
    LiveRange,
    LiveRangeSection,
    PeakEntry,
    Place,
    Position,
    ScheduleEntry,
    Totals,
    Use,
    UsedValue,
    format_index,
    parse_index,
)
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.document import Document
from hlo_lsp.model.lazy import lazy
from hlo_lsp.parsing.ba_scanner import used_value_shapes
from hlo_lsp.parsing.file_kinds import FileKind

__all__ = [
    "Allocation", "BreakdownFrame", "BufferAssignment", "BufferValue", "LiveRange", "LiveRangeSection", "PeakEntry",
    "Place", "Position", "ScheduleEntry", "Totals", "Use", "UsedValue", "format_index", "parse_index",
    "read_buffer_assignment",
]


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
                BufferAssignmentReader(document, part).read()
                self._totals = self._totals or part._totals
                self._used_values.extend(part._used_values)
                self._has_used_values_section |= part._has_used_values_section
            self._unread_values_documents = []

    def instruction_shapes(self) -> dict[str, str]:
        """The shape text of each used value's instruction, by the value's name (the first of a name): from the
        used values once read, else from the values files' value and `from instruction:` lines alone (a peak
        needs nothing else of them)."""
        with self._read_lock:
            used, unread = list(self._used_values), list(self._unread_values_documents)
        shapes: dict[str, str] = {}
        for value in used:
            if value.instruction_shape is not None:
                shapes.setdefault(value.name, value.instruction_shape)
        for document in unread:
            for name, shape in used_value_shapes(document.text).items():
                shapes.setdefault(name, shape)
        return shapes

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
                BufferAssignmentReader(document, model).read()
    return model
