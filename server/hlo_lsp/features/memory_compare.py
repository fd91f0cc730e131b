"""What grew between two dumps of one program (`hlo-lsp diff`, the `hlo.compare` command): for each pair of
modules, the peak of every memory space before and after, the bytes at the peak by kind, the buffers live at
each peak matched by what they are, and the module's counts.

Buffer names change between runs (`add_bitcast_fusion.8` becomes `.16`), so a buffer is matched by what it
is: tier by tier, from its name with its opcode and shape, through the framework op and the source line that
made it, down to its kind and shape alone; within a tier, in schedule order. What no tier matches is "only in
A" or "only in B". Every buffer of each peak is in exactly one row, so the rows' deltas add up to the peak's.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace

from hlo_lsp.analysis.memory import KINDS, Origin, PeakBuffer, ShapeLookup
from hlo_lsp.features.compared_modules import Paired, Unpaired, has_own_memory, module_name, pair_by_name
from hlo_lsp.features.memory_timeline import MemoryReport, memory_report
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.syntax import ArrayShape, Shape, subshape
from hlo_lsp.problems import Problem

COPY_OPCODES = frozenset(("copy", "copy-start"))


@dataclass(frozen=True, slots=True)
class PeakSide:
    """A buffer live at one side's peak, and what it is."""

    buffer: PeakBuffer
    origin: Origin
    opcode: str | None
    shape: Shape | None  # the value's own shape
    position: float  # where its live range starts in the schedule, 0 to 1

    @property
    def bytes(self) -> int:
        return self.buffer.counted

    @property
    def element_type(self) -> str | None:
        return self.shape.element_type if isinstance(self.shape, ArrayShape) else None

    @property
    def rank(self) -> int | None:
        return len(self.shape.dims) if isinstance(self.shape, ArrayShape) else None


@dataclass(frozen=True, slots=True)
class BufferChange:
    """One row: a buffer of A's peak and the buffer of B's that is the same thing (either may be None)."""

    a: PeakSide | None
    b: PeakSide | None
    matched_by: str | None  # the tier that matched them; None for a buffer on one side only

    @property
    def delta(self) -> int:
        return (self.b.bytes if self.b else 0) - (self.a.bytes if self.a else 0)

    @property
    def either(self) -> PeakSide:
        side = self.b or self.a
        assert side is not None  # a row holds one side at least
        return side


@dataclass(frozen=True, slots=True)
class SpaceChange:
    """One memory space's peak in A and in B (None where that side has no such space or no peak in it)."""

    name: str
    color: int
    a: int | None
    b: int | None


@dataclass(frozen=True, slots=True)
class ModuleSide:
    """One module of one dump as a comparison needs it, without its documents (a worker process may send it):
    its memory report (its timeline without its buffers), the buffers at its peak and what it holds."""

    name: str  # the name the program gave it (`module_name`)
    path: str  # its HLO file, or else its stem
    report: MemoryReport | None  # None: no peak (no live ranges, or a shape unknown)
    peak_sides: tuple[PeakSide, ...] = ()
    counts: dict[str, int] | None = None


@dataclass(frozen=True, slots=True)
class ModuleChange:
    """A pair of modules compared."""

    name: str
    paired_by: str
    a: ModuleSide
    b: ModuleSide
    spaces: tuple[SpaceChange, ...]  # the default space first
    kinds: dict[str, tuple[int, int]]  # bytes at the peak by kind, A and B (KINDS order)
    changes: tuple[BufferChange, ...]  # largest change first
    counts: dict[str, tuple[int, int]]

    @property
    def a_report(self) -> MemoryReport:
        assert self.a.report is not None  # (a pair without a peak is no change)
        return self.a.report

    @property
    def b_report(self) -> MemoryReport:
        assert self.b.report is not None
        return self.b.report

    @property
    def delta(self) -> int:
        return self.b_peak - self.a_peak

    @property
    def a_peak(self) -> int:
        return self.a_report.summary.peak_bytes or 0

    @property
    def b_peak(self) -> int:
        return self.b_report.summary.peak_bytes or 0

    @property
    def matched_bytes(self) -> int:
        """The bytes of B's peak in rows that match a buffer of A's."""
        return sum(change.b.bytes for change in self.changes if change.a is not None and change.b is not None)

    @property
    def delta_percent(self) -> float | None:
        return percent(self.delta, self.a_peak)

    @property
    def matched_share(self) -> float | None:
        """The share of B's peak bytes matched to A's buffers (None for a peak of no byte)."""
        return self.matched_bytes / self.b_peak if self.b_peak else None


def percent(delta: int, before: int) -> float | None:
    """`delta` as a percentage of `before`, to 0.1 (None from nothing)."""
    return round(100 * delta / before, 1) if before else None


@dataclass(frozen=True, slots=True)
class Comparison:
    changes: tuple[ModuleChange, ...]
    unpaired: tuple[Unpaired, ...]
    without_peak: tuple[Unpaired, ...] = ()  # paired, but a side has no peak (no live ranges, or a shape unknown)
    problems: tuple[Problem, ...] = ()  # of files that could not be read


def dump_sides(modules: list[ModuleDump]) -> list[ModuleSide]:
    """Each module of a dump with memory of its own, as a comparison needs it."""
    return [module_side(module) for module in modules if has_own_memory(module)]


def module_side(module: ModuleDump) -> ModuleSide:
    name, path = module_name(module), module_path(module)
    report = memory_report(module, drawn=0, fragmentation=False)
    if report is None or report.summary.peak_bytes is None:
        return ModuleSide(name, path, None)
    sides = tuple(_peak_sides(module, report))
    counts = module_counts(module, report)
    timeline = replace(report.timeline, buffers=())  # (what a picture of its usage does not draw)
    return ModuleSide(name, path, replace(report, timeline=timeline), sides, counts)


def module_path(module: ModuleDump) -> str:
    """The module's HLO file, or else its stem (a module with its buffer assignment alone)."""
    document = module.hlo_document
    return document.source if document is not None else module.stem


def compare_sides(a: list[ModuleSide], b: list[ModuleSide]) -> Comparison:
    pairs, left = pair_by_name(a, b, lambda side: side.name)
    changes, without_peak = [], []
    for pair in pairs:
        if pair.a.report is None or pair.b.report is None:
            without_peak += [Unpaired("a", pair.name, pair.a.path), Unpaired("b", pair.name, pair.b.path)]
        else:
            changes.append(compare_pair(pair))
    unpaired = tuple(Unpaired(which, side.name, side.path) for which, side in left)
    return Comparison(tuple(changes), unpaired, tuple(without_peak))


def compare_pair(pair: Paired[ModuleSide]) -> ModuleChange:
    """The pair compared in the default memory space (both sides with a peak)."""
    a, b = pair.a, pair.b
    assert a.report is not None and b.report is not None and a.counts is not None and b.counts is not None
    kinds_a, kinds_b = a.report.summary.bytes_by_kind(), b.report.summary.bytes_by_kind()
    kinds = {kind: (kinds_a.get(kind, 0), kinds_b.get(kind, 0)) for kind in KINDS
             if kind in kinds_a or kind in kinds_b}
    counts = {key: (a.counts[key], b.counts[key]) for key in a.counts}
    return ModuleChange(pair.name, pair.paired_by, a, b, _space_changes(a.report, b.report), kinds,
                        match_buffers(list(a.peak_sides), list(b.peak_sides)), counts)


def _space_changes(a: MemoryReport, b: MemoryReport) -> tuple[SpaceChange, ...]:
    peaks_a = {memory.space.color: memory for memory in a.spaces}
    peaks_b = {memory.space.color: memory for memory in b.spaces}
    changes = []
    for color in dict.fromkeys([*peaks_a, *peaks_b]):
        named = peaks_a.get(color) or peaks_b[color]
        changes.append(SpaceChange(named.space.name, color,
                                   peaks_a[color].summary.peak_bytes if color in peaks_a else None,
                                   peaks_b[color].summary.peak_bytes if color in peaks_b else None))
    return tuple(changes)


def _peak_sides(module: ModuleDump, report: MemoryReport) -> list[PeakSide]:
    hlo, buffers = module.hlo, module.buffer_assignment
    shapes = ShapeLookup(hlo, buffers)
    length = max(report.timeline.max_time, 1)
    sides = []
    for buffer in report.peak_buffers:
        live = buffer.live_range
        site = hlo.site(live.name) if hlo is not None else None
        shape = shapes.shape(live.name)
        sides.append(PeakSide(buffer, report.origin(live.name), site.opcode if site is not None else None,
                              subshape(shape, live.index) if shape is not None else None, live.start / length))
    return sides


# ---- matching -------------------------------------------------------------------------------------------

Feature = Callable[[PeakSide], Hashable]

# (the tier's name, what must be known for it to match anything, what both sides must share)
_TIERS: tuple[tuple[str, Feature, Feature], ...] = (
    ("name", lambda side: side.buffer.live_range.name,
     lambda side: (side.buffer.live_range.name, side.buffer.live_range.index, side.opcode, side.element_type,
                   side.rank)),
    ("op and source", lambda side: side.origin.framework_op and side.origin.source,
     lambda side: (side.origin.framework_op, side.origin.source, side.opcode, side.element_type, side.rank,
                   side.buffer.live_range.index)),
    ("op", lambda side: side.origin.framework_op,
     lambda side: (side.origin.framework_op, side.opcode, side.element_type, side.rank)),
    ("source", lambda side: side.origin.source,
     lambda side: (side.origin.source, side.opcode, side.element_type, side.rank)),
    ("opcode and shape", lambda side: side.opcode,
     lambda side: (side.opcode, side.element_type, side.rank, side.buffer.kind)),
    ("kind and shape", lambda side: side.shape is not None,  # the whole shape: no opcode, op or source to go by
     lambda side: (side.buffer.kind, str(side.shape))),
)


def match_buffers(a: list[PeakSide], b: list[PeakSide]) -> tuple[BufferChange, ...]:
    """Every buffer of both peaks in one row, matched tier by tier; the largest change first."""
    rows: list[BufferChange] = []
    left_a, left_b = list(a), list(b)
    for tier, known, feature in _TIERS:
        groups_a = _grouped([side for side in left_a if known(side)], feature)
        groups_b = _grouped([side for side in left_b if known(side)], feature)
        for key, group_a in groups_a.items():
            for side_a, side_b in zip(group_a, groups_b.get(key, ())):
                rows.append(BufferChange(side_a, side_b, tier))
        matched = {id(side) for row in rows for side in (row.a, row.b)}
        left_a = [side for side in left_a if id(side) not in matched]
        left_b = [side for side in left_b if id(side) not in matched]
    rows += [BufferChange(side, None, None) for side in left_a]
    rows += [BufferChange(None, side, None) for side in left_b]
    rows.sort(key=lambda row: (-abs(row.delta), row.either.buffer.label))
    return tuple(rows)


def _grouped(sides: list[PeakSide], feature: Feature) -> dict[Hashable, list[PeakSide]]:
    """The sides by feature, each group in schedule order."""
    groups: dict[Hashable, list[PeakSide]] = {}
    for side in sorted(sides, key=lambda side: (side.position, side.buffer.label)):
        groups.setdefault(feature(side), []).append(side)
    return groups


# ---- counts ---------------------------------------------------------------------------------------------

def module_counts(module: ModuleDump, report: MemoryReport) -> dict[str, int]:
    """What a module holds: instructions, fusions and copies (outside fused computations too), the schedule's
    length, the allocations, and the padding of the buffers live at the peak."""
    instructions = fusions = copies = 0
    if module.hlo is not None:
        for _, _, scan in module.hlo.instruction_scans():
            instructions += 1
            opcode = scan.data[3]
            fusions += opcode == "fusion"
            copies += opcode in COPY_OPCODES
    buffers = module.buffer_assignment
    return {
        "instructions": instructions,
        "fusions": fusions,
        "copies": copies,
        "scheduleLength": report.timeline.max_time,
        "allocations": len(buffers.allocations) if buffers is not None else 0,
        "padding": report.summary.padding,
    }
