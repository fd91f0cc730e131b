"""A module's memory as a script or the CLI asks for it: one memory space's report, and the timeline's picture."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hlo_lsp.analysis.memory import MemorySummary, memory_summary
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import MemoryReport, memory_report
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR


@dataclass(frozen=True)
class Memory:
    """A module's memory in one memory space, by XLA's accounting. `report`: the peak, the buffers live at it,
    usage over the schedule and every space's figures (None without a live-range section, or where a scheduled
    shape is unknown). `summary`: the report's, or else what the buffer assignment allocates (every space
    counted, no peak)."""

    name: str  # the module's file name without its suffix
    summary: MemorySummary
    report: MemoryReport | None


@dataclass(frozen=True)
class MemoryTimeline:
    """The memory timeline of a module (what the `hlo.memoryTimeline` command answers) and its picture."""

    report: MemoryReport
    svg: str


def module_memory(module: ModuleDump, space: object = None) -> Memory | None:
    """The memory of `module` in the space `space` (its name, its color or the color's digits; None: the
    default space); None when the module has no buffer assignment or no such space."""
    buffers = module.buffer_assignment
    color = _space_color(module, space) if buffers is not None else None
    if buffers is None or color is None:
        return None
    report = memory_report(module, color=color)
    summary = report.summary if report is not None else memory_summary(module.hlo, buffers)
    return Memory(os.path.basename(module.stem), summary, report)


def module_timeline(module: ModuleDump, space: object = None) -> MemoryTimeline | None:
    """The timeline of `module` in the space `space` with its picture; None without a buffer assignment, a
    live-range section, a scheduled shape or such a space."""
    color = _space_color(module, space) if module.buffer_assignment is not None else None
    report = memory_report(module, color=color) if color is not None else None
    return MemoryTimeline(report, timeline_svg(report)) if report is not None else None


def _space_color(module: ModuleDump, space: object) -> int | None:
    if space is None:
        return DEFAULT_COLOR
    return next((known.color for known in module.memory_spaces
                 if space in (known.name, known.color, str(known.color))), None)
