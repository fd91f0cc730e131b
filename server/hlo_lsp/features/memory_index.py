"""What inlay hints and code lenses ask of a buffer assignment per line, beyond its own lookups:
thread-local allocations, the schedule by time, pairing with the HLO module, and the peak.

The index is kept while the model lives (the model is rebuilt when one of its files
changes) and dropped with it.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import cast

from hlo_lsp.analysis.memory import peak_moment
from hlo_lsp.features.hover_memory import Peak, peak_of, space_peaks
from hlo_lsp.model.buffer_assignment import BufferAssignment, BufferValue, LiveRange, LiveRangeSection
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR, MemorySpace, MemorySpaces
from hlo_lsp.model.pairing import paired_module
from hlo_lsp.model.sizes import human_bytes

_HUMAN = re.compile(r"([0-9.]+)([A-Za-z]+)$")


@dataclass(frozen=True, slots=True)
class ModulePeak:
    """The peak as XLA printed it (or recomputed by its algorithm) and the buffers live at it."""

    time: int
    instruction: str | None
    total: int | None
    live: tuple[LiveRange, ...]  # the BufferLiveRange entries with start <= time <= end
    counted: dict[str, int]  # bytes each live buffer adds at the peak, by label (old format: by name)
    by_name: bool
    space: MemorySpace | None = None  # the memory space it is the peak of (None: every space, as XLA prints it)

    def counted_size(self, live: LiveRange, value: BufferValue | None) -> int:
        size = self.counted.get(live.name if self.by_name else live.label)
        if size is not None:
            return size
        return value.size if value is not None else 0


class MemoryIndex:
    """Thread-local allocations and (on first use) the peak of a buffer assignment."""

    def __init__(self, buffers: BufferAssignment) -> None:
        # Held weakly: the index is kept on the buffer assignment (`derived`), and a cycle between them
        # would outlive a closed module (what the server builds is frozen out of the cyclic collector).
        self.buffers: BufferAssignment = cast(BufferAssignment, weakref.proxy(buffers))
        self.thread_local: frozenset[int] = frozenset(
            allocation.index for allocation in buffers.allocations if allocation.is_thread_local)
        self.section: LiveRangeSection | None = buffers.live_range
        self._peaks: dict[object, ModulePeak | None] = {}  # by the module structure they were read with

    def values_of(self, name: str) -> list[BufferValue]:
        """The instruction's values, by index."""
        return sorted(self.buffers.values_named(name), key=lambda value: (value.index or (), value.value_id))

    def value(self, name: str, index: tuple[int, ...]) -> BufferValue | None:
        return next((value for value in self.values_of(name) if (value.index or ()) == index), None)

    def live_range(self, value: BufferValue) -> LiveRange | None:
        return self.buffers.live_range_of(value.name, value.index)

    def is_thread_local(self, value: BufferValue) -> bool:
        return value.allocation in self.thread_local

    def pairs_with(self, hlo: HloModule | None) -> bool:
        """False when `hlo` is a module of another compilation that shares the name."""
        return hlo is None or paired_module(hlo, self.buffers) is not None

    def peak(self, hlo: HloModule | None) -> ModulePeak | None:
        """The module's peak and the buffers live at it (None without live ranges or a peak); read once
        for each structure of the module (without a printed peak, it is recomputed from its shapes)."""
        paired = hlo if self.pairs_with(hlo) else None
        key = paired.structure_id if paired is not None else None
        if key not in self._peaks:
            self._peaks[key] = self._read_peak(paired)
        return self._peaks[key]

    def _read_peak(self, hlo: HloModule | None) -> ModulePeak | None:
        peak: Peak | None = peak_of(hlo, self.buffers)
        return self._module_peak(peak, None) if peak is not None and self.section is not None else None

    def space_peaks(self, hlo: HloModule | None, spaces: MemorySpaces) -> list[ModulePeak]:
        """The peak of each memory space (default first), when the module uses more than one."""
        if self.section is None or not spaces.several:
            return []
        peaks = space_peaks(hlo if self.pairs_with(hlo) else None, self.buffers, spaces)
        return [self._module_peak(peaks[space.color], space) for space in spaces if space.color in peaks]

    def _module_peak(self, peak: Peak, space: MemorySpace | None) -> ModulePeak:
        assert self.section is not None
        colors = {allocation.index: allocation.color for allocation in self.buffers.allocations}
        live = tuple(entry for entry in self.section.ranges if entry.start <= peak.time <= entry.end
                     and (space is None or self._color(entry, colors) == space.color))
        return ModulePeak(peak.time, peak.instruction, peak.total, live, peak.counted, peak.by_name, space)

    def _color(self, live: LiveRange, colors: dict[int, int]) -> int:
        value = self.value(live.name, live.index)
        return colors.get(value.allocation, DEFAULT_COLOR) if value is not None else DEFAULT_COLOR

    def allocation_peak(self, index: int) -> tuple[int, int] | None:
        """(time, bytes) of an allocation's own peak, by XLA's peak algorithm over its values."""
        allocation = self.buffers.allocation(index)
        if allocation is None:
            return None
        sized = [(live.start, live.end, value.size) for value in allocation.values
                 if (live := self.live_range(value)) is not None]
        if not sized:
            return None
        time = peak_moment(sized)
        return time, sum(size for start, end, size in sized if start <= time <= end)


_INDEX: DerivedKey[MemoryIndex] = DerivedKey("memory index")


def memory_index(buffers: BufferAssignment) -> MemoryIndex:
    """The index of `buffers`, built on first use and kept with it."""
    return buffers.derived.memo(_INDEX, lambda: MemoryIndex(buffers))


def module_memory(module: ModuleDump) -> tuple[HloModule | None, MemoryIndex | None]:
    """The module's HLO view and memory index; the index is None without a buffer assignment,
    and the HLO view None when it comes from another compilation than the buffer assignment."""
    buffers = module.buffer_assignment
    if buffers is None:
        return module.hlo, None
    index = memory_index(buffers)
    hlo = module.hlo
    return (hlo if index.pairs_with(hlo) else None), index


def size_text(count: int) -> str:
    """`32.0 KiB`, `40 B`: XLA's human-readable bytes with a space before the unit."""
    text = human_bytes(count)
    match = _HUMAN.match(text)
    return f"{match.group(1)} {match.group(2)}" if match else text


def range_text(live: LiveRange) -> str:
    return f"{live.start}→{live.end}"
