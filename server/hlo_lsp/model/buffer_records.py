"""The records of a buffer assignment (allocations, values, used values, live ranges, the peak) and their places.

Every record remembers the document and line it was read from (`Place`). The records of which
a large module has hundreds of thousands are NamedTuples: immutable like the frozen dataclasses
of the rest, and built in a third of the time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from hlo_lsp.memos import memo
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


@memo(maxsize=4096)  # a few shapes' indices, asked for each of 12,000 peak entries a hover
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


class PeakList(tuple[PeakEntry, ...]):
    """The buffers XLA printed live at the peak, with the bytes each counts, read once for however many
    buffer assignments share the list (a glance's questions share one)."""

    @functools.cached_property
    def sizes(self) -> dict[str, int]:
        """The bytes each buffer counts at the peak, by label (by name in the old format): do not change it."""
        return {entry.name if entry.index is None else entry.label: entry.size for entry in self}

    @functools.cached_property
    def total(self) -> int:
        return sum(entry.size for entry in self)


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
    peak: PeakList
    breakdown_total: int | None = None
    breakdown: tuple[BreakdownFrame, ...] = ()

    @property
    def peak_format(self) -> str | None:
        if not self.peak:
            return None
        return "old" if self.peak[0].index is None else "new"

    @functools.cached_property
    def scheduled(self) -> dict[int, str]:
        """The schedule by time (the first name where two share one): a hover names the instructions at a
        live range's ends, and a 40 MB module's schedule is 46,000 entries long."""
        by_time: dict[int, str] = {}
        for entry in self.schedule:
            by_time.setdefault(entry.time, entry.name)
        return by_time


@dataclass(frozen=True, slots=True)
class Totals:
    size: int
    human: str
    place: Place
