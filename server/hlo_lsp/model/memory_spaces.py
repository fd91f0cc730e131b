"""The memory spaces of a module, named as its memory-usage report names them.

Buffer assignment gives every allocation a color: its memory space (`allocation 8: size 786432,
color 1, ...`; no color printed is 0). Color 0 is the default space (HBM on accelerators); TPU adds
vmem, smem, cmem and others, which the memory-usage report names with their totals
(`Memory Space: vmem (color=1)`, `Total bytes: 786432 (768.0KiB)`). Layouts say the same with
`S(n)`. Without a report, color 0 is `default` and any other `color N`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hlo_lsp.model.buffer_assignment import Place
from hlo_lsp.model.document import Document

DEFAULT_COLOR = 0
HOST_COLOR = 5  # `S(5)`: where XLA offloads to host memory (on GPU and CPU; TPU's color 5 is cmem)


@dataclass(frozen=True, slots=True)
class MemorySpace:
    color: int
    name: str
    reported_total: int | None = None  # the report's `Total bytes:` of the space
    place: Place | None = None  # its `Memory Space:` line

    @property
    def is_default(self) -> bool:
        return self.color == DEFAULT_COLOR


def unnamed_space(color: int) -> MemorySpace:
    return MemorySpace(color, "default" if color == DEFAULT_COLOR else f"color {color}")


@dataclass(frozen=True, slots=True)
class MemorySpaces:
    """The spaces a module's allocations use, default first, then by color."""

    spaces: tuple[MemorySpace, ...]

    def __getitem__(self, color: int) -> MemorySpace:
        return next((space for space in self.spaces if space.color == color), unnamed_space(color))

    def __iter__(self):  # noqa: ANN204 - an iterator of MemorySpace
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    @property
    def several(self) -> bool:
        """Whether the module uses more than the default space (its figures are then given per space)."""
        return any(not space.is_default for space in self.spaces)


def memory_spaces(report: Document | None, colors: Iterable[int]) -> MemorySpaces:
    """The spaces of `colors` (the allocations' colors) and of the report, named as the report names them."""
    named = {space.color: space for space in _reported_spaces(report)} if report is not None else {}
    used = sorted(set(colors) | set(named) | {DEFAULT_COLOR})
    return MemorySpaces(tuple(named.get(color) or unnamed_space(color) for color in used))


def _reported_spaces(report: Document) -> list[MemorySpace]:
    found: list[MemorySpace] = []
    pending: tuple[str, int, Place] | None = None
    for line, scan in report.scans():
        if scan.kind == "memory_space":
            name, color = scan.data
            pending = (name, color, Place.in_line(report.source, line, report.line(line)))
            found.append(MemorySpace(color, name, None, pending[2]))
        elif scan.kind == "report_totals" and pending is not None:
            name, color, place = pending
            found[-1] = MemorySpace(color, name, scan.data[0], place)
            pending = None
    return found
