"""The modules of a dump folder, one row per compilation (`hlo-lsp modules`, the `hlo.listModules` command): its
name, the files of its stages, the size of its HLO, its peak in each memory space by XLA's accounting (the
default space first), what it allocates and how many instructions it has; the largest peak first.

A training run writes tens to thousands of modules, most of them tiny eager ops: the list says which one holds
the peak."""

from __future__ import annotations

import os
from dataclasses import dataclass

from hlo_lsp.features.compared_modules import has_own_memory, module_name
from hlo_lsp.features.memory_compare import module_path
from hlo_lsp.features.memory_timeline import memory_report
from hlo_lsp.model.dump_module import ModuleDump, compilation_key
from hlo_lsp.problems import Problem

SORTS = ("peak", "name", "size")


@dataclass(frozen=True, slots=True)
class SpacePeak:
    space: str
    bytes: int | None  # None: no live range in that space


@dataclass(frozen=True, slots=True)
class ModuleRow:
    name: str  # the name the program gave it (`jit_step`)
    path: str  # the HLO file of the stage with the memory (or else of the first stage), or its stem
    files: tuple[str, ...]  # every file of the compilation, by name, in order
    hlo_bytes: int  # the size of that HLO file (0 without one)
    peaks: tuple[SpacePeak, ...] = ()  # the default space first; () without live ranges
    allocated: int | None = None  # the bytes of its allocations; None without a buffer assignment
    instructions: int | None = None  # None without an HLO file

    @property
    def peak(self) -> int | None:
        """The default memory space's peak."""
        return self.peaks[0].bytes if self.peaks else None


@dataclass(frozen=True, slots=True)
class ModuleList:
    rows: list[ModuleRow]
    problems: list[Problem]  # of the files that could not be read


def module_rows(modules: list[ModuleDump], sort: str = "peak") -> list[ModuleRow]:
    """One row per compilation of `modules` (the modules a dump folder holds), sorted by `sort` (SORTS: the
    largest peak first, modules without one last; by name; the largest HLO file first)."""
    compilations: dict[str, list[ModuleDump]] = {}
    for module in modules:
        compilations.setdefault(compilation_key(module.stem), []).append(module)
    rows = [_row(stages) for stages in compilations.values()]
    if sort == "name":
        return sorted(rows, key=lambda row: (row.name, row.path))
    if sort == "size":
        return sorted(rows, key=lambda row: (-row.hlo_bytes, row.name, row.path))
    return sorted(rows, key=lambda row: (row.peak is None, -(row.peak or 0), row.name, row.path))


def _row(stages: list[ModuleDump]) -> ModuleRow:
    """The row of one compilation: its stage with a buffer assignment of its own gives the memory."""
    files = tuple(sorted({os.path.basename(document.source) for stage in stages
                          for document in stage.documents.values()}))
    module = next((stage for stage in stages if has_own_memory(stage)), stages[0])
    hlo_bytes = _utf8_bytes(module.hlo_document.text) if module.hlo_document is not None else 0  # (before its scan)
    instructions = sum(1 for _ in module.hlo.instruction_scans()) if module.hlo is not None else None
    row = ModuleRow(module_name(module), module_path(module), files, hlo_bytes, instructions=instructions)
    if not has_own_memory(module):
        return row
    report = memory_report(module, drawn=0, fragmentation=False)
    buffers = module.buffer_assignment
    allocated = sum(allocation.size for allocation in buffers.allocations) if buffers is not None else None
    if report is None:
        return ModuleRow(row.name, row.path, files, hlo_bytes, (), allocated, instructions)
    peaks = tuple(SpacePeak(memory.space.name, memory.summary.peak_bytes) for memory in report.spaces)
    return ModuleRow(row.name, row.path, files, hlo_bytes, peaks, allocated, instructions)


def _utf8_bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())
