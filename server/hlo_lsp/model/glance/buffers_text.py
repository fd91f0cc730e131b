"""The buffer-assignment family at a glance: section headers, the state a line is scanned in (resynchronised
from the nearest value block or allocation above it), and the one HloLiveRange section of a module."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterator

from hlo_lsp.model.buffer_assignment import read_buffer_assignment
from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.glance.text_index import Declined, Picks, Text
from hlo_lsp.model.lazy import lazy
from hlo_lsp.parsing.block_names import BlockNames, line_first_names, value_names
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import LineScan, State
from hlo_lsp.parsing.text_search import (
    allocation_numbers,
    end_of_blanks,
    header_line_starts,
    regular_schedule_length,
    schedule_entry_offset,
    scheduled_names,
)

_HEADER_KINDS = frozenset((
    "allocations_header", "stats_header", "used_values_header", "sequence_header", "ranges_header",
    "report_section", "report_table_header", "live_range_header", "live_range_unavailable", "totals",
    "peak_header", "peak_unknown", "breakdown_header", "memory_space",
))



HeaderLine = tuple[int, int, str, LineScan]  # offset, line, text, scan


class BuffersText(Text):
    @lazy
    def headers(self) -> list[HeaderLine]:
        """Every section header line, in order."""
        found: list[HeaderLine] = []
        for start in header_line_starts(self.text):
            text = self.line_from(start)
            scan = self.document.scanner.scan("top", text)
            if scan.kind in _HEADER_KINDS:
                found.append((start, self.line_at(start), text, scan))
        return found

    def headers_of(self, kind: str, after: int = -1) -> list[HeaderLine]:
        return [header for header in self.headers if header[3].kind == kind and header[0] > after]

    def read_indexes(self) -> None:
        """Reads what questions read of the whole text: its sections, and in a buffer assignment the values index
        and how allocations are numbered (a glance reads values and allocations there alone)."""
        _ = self.headers, self._header_starts
        if self.document.kind is FileKind.BUFFER_ASSIGNMENT:
            self._value_blocks.read()
            _ = self._allocation_numbers

    @lazy
    def _value_blocks(self) -> BlockNames:
        return BlockNames(self.text, value_names)

    def value_name_occurrences(self, name: str) -> Iterator[int]:
        """The offsets of ` name` where a value may be printed of instruction `name` (and some more)."""
        for start, end in self._value_blocks.spans(name):
            yield from self.occurrences(" " + name, start, end)

    def section_end(self, header: HeaderLine) -> int:
        """Where the section a header opens ends: at the next header."""
        index = self.headers.index(header)
        return self.headers[index + 1][0] if index + 1 < len(self.headers) else len(self.text)

    @lazy
    def _header_starts(self) -> list[int]:
        return [header[0] for header in self.headers]

    def section_at(self, offset: int) -> HeaderLine | None:
        """The header of the section `offset` is in."""
        index = bisect.bisect_right(self._header_starts, offset) - 1
        return self.headers[index] if index >= 0 else None

    def prints_one_value(self, value_id: str) -> bool:
        """Whether one value of the allocations has the id `value_id`: a garbled file may print two alike,
        and the whole module then takes the last."""
        needle = f"<{value_id} "
        return sum(self.text.count(needle, header[0], self.section_end(header))
                   for header in self.headers_of("allocations_header")) == 1

    def allocation_above(self, start: int, offset: int) -> int:
        """The offset of the nearest `allocation ` between `start` and `offset` that begins its line after
        blanks (as the scanner reads a header, a tab before it too), or -1."""
        found = self.text.rfind("allocation ", start, offset)
        while found >= 0:
            line_start = self.text.rfind("\n", 0, found) + 1
            if end_of_blanks(self.text, line_start) >= found:
                return found
            found = self.text.rfind("allocation ", start, line_start)  # only a line's first word may be one
        return -1

    def numbers_one_allocation(self, index: int) -> bool:
        """Whether `allocation {index}:` is printed once: a garbled file may number two allocations
        alike, and the whole module then says which one it means."""
        return self._allocation_numbers[index] == 1

    @lazy
    def _allocation_numbers(self) -> Counter[int]:
        """How often each `allocation N:` is printed (`00` numbers 0 too): one pass, however many values
        a hover picks."""
        return Counter(allocation_numbers(self.text))

    def state_entering(self, line: int) -> State:
        """The scanner's state at the start of `line`: its section's, or found by scanning from the
        nearest line before it that enters one state whatever the lines before it were."""
        start = self.line_start(line)
        header = self.section_at(start)
        if header is None:
            raise Declined  # before any section: nothing a glance answers about
        if header[0] == start:
            return "top"  # a header reads the same in any state
        state = header[3].end_state
        resync = _RESYNC.get(state)
        if resync is None:
            return state
        needle, kind, entered = resync
        found = self.text.rfind(needle, header[0], start)
        first = header[1] + 1
        if found >= 0:
            first, state = self.line_at(found + 1), entered
            if self.scan(first, state)[1].kind != kind:
                raise Declined
        if line - first > RESYNC_LINES:
            raise Declined
        for _, _, _, scan in self.scan_run(first, state, line):
            state = scan.end_state
        return state


ALLOCATION = frozenset(("allocation",))
AFTER_ALLOCATION = frozenset(("allocation", "used_values_header"))  # what ends an allocation's values
_SEQUENCE_ENTRY = frozenset(("sequence_entry",))
# Sections whose lines change the scanner's state: (what a line that enters the same state whatever came
# before starts with, at the start of its line; its kind; that state). In every other section each
# line is read in the state its header leaves.
_RESYNC: dict[State, tuple[str, str, State]] = {
    "used": ("\n<", "used_value", "used"),  # a value block; its positions:, uses: and instruction follow
    "alloc": ("\nallocation ", "allocation", "alloc"),  # its values, and a `reused by` list
}
RESYNC_LINES = 5_000  # a cursor further from where its state is known is left to the whole file


class LiveRangeSection:
    """Where the one HloLiveRange section of a module is, and its parts."""

    def __init__(self, file: BuffersText, header: HeaderLine) -> None:
        self.file = file
        self.header = header
        self.sequence = only(file.headers_of("sequence_header", header[0]))
        self.ranges = only(file.headers_of("ranges_header", header[0]))
        self.peak = only(file.headers_of("peak_header", header[0]))
        self.breakdowns = file.headers_of("breakdown_header", header[0])

    @property
    def max_time(self) -> int:
        return self.header[3].data[0]

    @lazy
    def base(self) -> dict[int, tuple[str, State, LineScan]]:
        """The lines every question reads but the peak list: the headers."""
        return {header[1]: (header[2], "top", header[3])
                for header in (self.header, self.sequence, self.ranges, self.peak, *self.breakdowns)}

    @lazy
    def peak_list(self) -> tuple[int, Chunk]:
        """The whole peak list (its first line, its lines), every question's: one chunk that the documents
        of every question share, with what is read of it."""
        first, end = self.peak[1] + 1, self.file.end_line(self.file.section_end(self.peak))
        texts, scans = [], []
        for _, text, _, scan in self.file.scan_run(first, self.peak[3].end_state, end):
            texts.append(text)
            scans.append(scan)
        return first, Chunk(texts, scans, self.peak[3].end_state, self.file.document.scanner)

    def read_indexes(self) -> None:
        """Reads what questions read of the whole section: the peak list (its records, the bytes each counts
        and their total, shared by every question), the live ranges' index, the schedule."""
        self._range_blocks.read()
        _ = self._regular_schedule_length
        picks = Picks(self.file)
        self.share_lines(picks)
        live = read_buffer_assignment([picks.document()]).live_range
        if live is not None:
            _ = live.peak.sizes, live.peak.total

    def share_lines(self, picks: Picks) -> None:
        """Adds the lines every question about memory reads: the section's headers, and its peak list shared."""
        picks.lines.update(self.base)
        picks.share(*self.peak_list)

    def scheduled_names(self) -> list[str]:
        start, end = self.sequence[0], self.file.section_end(self.sequence)
        return scheduled_names(self.file.text, start, end)

    @lazy
    def _range_blocks(self) -> BlockNames:
        return BlockNames(self.file.text, line_first_names, self.ranges[0], self.file.section_end(self.ranges))

    def pick_ranges(self, picks: Picks, name: str) -> list[LineScan]:
        found = []
        for offset in (offset for start, end in self._range_blocks.spans(name)
                       for offset in self.file.occurrences(name + "{", start, end)):
            if self.file.prefix_on_line(offset):
                continue
            line = self.file.line_at(offset)
            text, scan = self.file.scan(line, "ranges")
            if scan.kind == "live_range" and scan.data[0] == name:
                picks.lines[line] = (text, "ranges", scan)
                found.append(scan)
        return found

    @lazy
    def _regular_schedule_length(self) -> int | None:
        return regular_schedule_length(self.file.text, self.sequence[0], self.file.section_end(self.sequence))

    def _schedule_entry_offset(self, time: int) -> int | None:
        """The offset of the line break before the first entry at `time`; None when there is none."""
        length = self._regular_schedule_length
        if length is None:
            start, end = self.sequence[0], self.file.section_end(self.sequence)
            return schedule_entry_offset(self.file.text, time, start, end)
        return self.file.line_start(self.sequence[1] + 1 + time) - 1 if 0 <= time < length else None

    def pick_scheduled(self, picks: Picks, time: int) -> str | None:
        """The name scheduled at `time` (its first entry), or None when nothing is."""
        offset = self._schedule_entry_offset(time)
        if offset is None:
            return None
        scan = picks.pick(self.file.line_at(offset + 1), "seq", _SEQUENCE_ENTRY)
        if scan.data[0] != time:
            raise Declined
        return scan.data[1]


def only(headers: list[HeaderLine]) -> HeaderLine:
    if len(headers) != 1:
        raise Declined
    return headers[0]
