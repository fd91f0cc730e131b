"""The memory timeline of a module (the `hlo.memoryTimeline` command, `hlo-lsp memory`): the
peak by XLA's accounting, the buffers live at it with where they come from, usage over the
schedule, per-allocation fragmentation, and the picture (features/memory_svg.py).

The answer is plain records: the layers above spell it for an editor or a terminal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from hlo_lsp.analysis.memory import (
    CONSTANT,
    NO_ORIGIN,
    OUTPUT,
    PARAMETER,
    TEMPORARY,
    UNALLOCATED,
    MemorySummary,
    Origin,
    PeakBuffer,
    SpaceMemory,
    instruction_origins,
    memory_by_space,
    memory_summary,
    sized_module,
)
from hlo_lsp.analysis.timeline import Timeline, TimelineBuffer, memory_timeline
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR, MemorySpace

DRAWN_BUFFERS = 20  # the largest buffers drawn as bars
PLURALS = {PARAMETER: "parameters", CONSTANT: "constants", OUTPUT: "outputs", TEMPORARY: "temporaries",
           UNALLOCATED: "unallocated"}


@dataclass(frozen=True, slots=True)
class MemoryReport:
    """One memory space of a module over its schedule: the peak, the buffers live at it and where they come
    from, usage per step, every space's figures."""

    name: str  # the module's file name without its suffix
    timeline: Timeline  # of the memory space `space`
    drawn: tuple[TimelineBuffer, ...]  # the largest buffers, largest first
    origins: dict[str, Origin]  # by instruction name: the peak's, the drawn and the live-at-peak ones
    space: MemorySpace
    spaces: tuple[SpaceMemory, ...] = ()  # every space's allocations and peak, the default space first
    combined: MemorySummary | None = None  # the peak XLA prints, every space counted (when there are several)

    @property
    def several_spaces(self) -> bool:
        return self.combined is not None

    def origin(self, name: str | None) -> Origin:
        return self.origins.get(name or "", NO_ORIGIN)

    @property
    def summary(self) -> MemorySummary:
        """The peak of the space `space` and the buffers live at it, by XLA's accounting."""
        return self.timeline.summary

    @property
    def peak_buffers(self) -> tuple[PeakBuffer, ...]:
        return self.timeline.summary.buffers_at_peak


def memory_report(module: ModuleDump, drawn: int = DRAWN_BUFFERS, color: int | None = None,
                  fragmentation: bool = True) -> MemoryReport | None:
    """The report of the memory space `color` (default: the default space; without `fragmentation`, no
    allocation's use); None when the module has no buffer assignment, no live ranges, or a scheduled shape is
    unknown. A module that uses one space is reported as XLA prints its peak."""
    buffers = module.buffer_assignment
    if buffers is None:
        return None
    spaces = module.memory_spaces
    sized = sized_module(module.hlo, buffers)
    shown = spaces[color if color is not None else DEFAULT_COLOR]
    timeline = memory_timeline(module.hlo, buffers, shown.color if spaces.several else None, sized, fragmentation)
    if timeline is None:
        return None
    largest = timeline.buffers[:drawn]
    names = {timeline.summary.peak_instruction or "", *(b.live_range.name for b in largest),
             *(b.live_range.name for b in timeline.summary.buffers_at_peak)}
    origins = instruction_origins(module.hlo, buffers, sorted(name for name in names if name))
    combined = memory_summary(module.hlo, buffers, sized) if spaces.several else None
    by_space = memory_by_space(module.hlo, buffers, spaces, sized) if spaces.several else (
        SpaceMemory(shown, timeline.summary),)
    return MemoryReport(os.path.basename(module.stem), timeline, largest, origins, shown, by_space, combined)

