"""The modules of a dump folder, one row per compilation (`hlo-lsp modules`, the `hlo.listModules` command): its
name, the files of its stages, the size of its HLO, its peak in each memory space by XLA's accounting (the
default space first), what it allocates and how many instructions it has; the largest peak first.

A training run writes tens to thousands of modules, most of them tiny eager ops: the list says which one holds
the peak."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from hlo_lsp.analysis.memory import memory_by_space, memory_summary, sized_module
from hlo_lsp.features.compared_modules import has_own_memory, module_name
from hlo_lsp.features.memory_compare import module_path
from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.dump_module import ModuleDump, compilation_key, module_stem
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR
from hlo_lsp.parsing.text_search import defined_names
from hlo_lsp.problems import Problem

SORTS = ("peak", "name", "size")
_NOTHING_UNREAD: Mapping[str, int] = MappingProxyType({})


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
    """One row per compilation of `modules` (the modules a dump folder holds), sorted by `sort`."""
    return sorted_rows([module_row(stages) for stages in compilations(modules).values()], sort)


def compilations(modules: list[ModuleDump]) -> dict[str, list[ModuleDump]]:
    """The modules by compilation (`compilation_key`): the stages of each, in the order given."""
    stages: dict[str, list[ModuleDump]] = {}
    for module in modules:
        stages.setdefault(compilation_key(module.stem), []).append(module)
    return stages


def sorted_rows(rows: list[ModuleRow], sort: str = "peak") -> list[ModuleRow]:
    """The rows sorted by `sort` (SORTS): the largest peak first, modules without one last; by name; the largest
    HLO file first."""
    if sort == "name":
        return sorted(rows, key=lambda row: (row.name, row.path))
    if sort == "size":
        return sorted(rows, key=lambda row: (-row.hlo_bytes, row.name, row.path))
    return sorted(rows, key=lambda row: (row.peak is None, -(row.peak or 0), row.name, row.path))


class NeedsHlo(Exception):
    """A row's peak needs the shapes of the HLO module it was listed without (its values file lacks some)."""


def module_row(stages: list[ModuleDump], unread: Mapping[str, int] = _NOTHING_UNREAD) -> ModuleRow:
    """The row of one compilation (its stages): the stage with a buffer assignment of its own gives the memory.
    `unread`: the HLO files left unread for their size (path: bytes); such a stage's instructions are not
    counted. Raises NeedsHlo when its peak needs one of them."""
    files = tuple(sorted({os.path.basename(document.source) for stage in stages
                          for document in stage.documents.values()} | {os.path.basename(path) for path in unread}))
    module = next((stage for stage in stages if has_own_memory(stage)), stages[0])
    unread_hlo = next((path for path in unread if module_stem(path) == module.stem), None)
    document = module.hlo_document
    hlo_bytes = _utf8_bytes(document.text) if document is not None else unread.get(unread_hlo or "", 0)
    instructions = len(defined_names(document.text)) if document is not None else None
    buffers = module.buffer_assignment if has_own_memory(module) else None
    allocated = sum(allocation.size for allocation in buffers.allocations) if buffers is not None else None
    peaks = _peaks(module, buffers, unread_hlo is not None) if buffers is not None else ()
    return ModuleRow(module_name(module), unread_hlo or module_path(module), files, hlo_bytes, peaks, allocated,
                     instructions)


def _peaks(module: ModuleDump, buffers: BufferAssignment, hlo_unread: bool) -> tuple[SpacePeak, ...]:
    """Each memory space's peak by XLA's accounting, the default space first (as the memory timeline counts
    them); () without live ranges or a scheduled shape. The shapes come from the values file's lines when they
    give them all: the HLO module, the largest file, is not scanned for them."""
    sized = sized_module(None, buffers)
    if sized is None and buffers.live_range is not None and hlo_unread:
        raise NeedsHlo
    sized = sized or sized_module(module.hlo, buffers)
    if sized is None:
        return ()
    spaces = module.memory_spaces
    if not spaces.several:
        return (SpacePeak(spaces[DEFAULT_COLOR].name, memory_summary(None, buffers, sized).peak_bytes),)
    return tuple(SpacePeak(memory.space.name, memory.summary.peak_bytes)
                 for memory in memory_by_space(None, buffers, spaces, sized))


def _utf8_bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())
