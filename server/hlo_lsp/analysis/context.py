"""What every check reads: one module's documents and the models built from them."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hlo_lsp.analysis.memory import ShapeLookup, SizedRange, sized_ranges
from hlo_lsp.model.buffer_assignment import BufferAssignment, BufferValue, LiveRange, Place
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.lazy import lazy
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.syntax import ParseError, Shape
from hlo_lsp.problems import Problem, Related, Severity

# Like a compiler's error limit: a file that is not a dump at all (one line repeated a
# million times, say) would otherwise give a million diagnostics no editor can show. Each
# check stops there (analysis.run); a check that keeps its problems keeps no more than that.
PROBLEM_LIMIT = 1000


@dataclass(eq=False)
class CheckContext:
    module: ModuleDump

    @property
    def hlo(self) -> HloModule | None:
        return self.module.hlo

    @property
    def buffers(self) -> BufferAssignment | None:
        return self.module.buffer_assignment

    @lazy
    def shapes(self) -> ShapeLookup:
        return ShapeLookup(self.hlo, self.buffers)

    @lazy
    def tiled(self) -> bool:
        """True when layouts carry tiles (TPU): sizes are padded, tuple tables backend-sized."""
        return self.buffers is not None and any("T(" in value.shape_text for value in self.buffers.values())

    @lazy
    def values_by_id(self) -> dict[int, BufferValue]:
        return self.buffers.value_by_id() if self.buffers is not None else {}

    @lazy
    def live_ranges(self) -> dict[tuple[str, tuple[int, ...]], LiveRange]:
        if self.buffers is None or self.buffers.live_range is None:
            return {}
        return {(entry.name, entry.index): entry for entry in self.buffers.live_range.ranges}

    def live_range_of(self, value: BufferValue) -> LiveRange | None:
        return self.live_ranges.get((value.name, value.index or ()))

    @lazy
    def sized_live_ranges(self) -> list[SizedRange] | None:
        if self.buffers is None or self.buffers.live_range is None:
            return None
        return sized_ranges(self.buffers.live_range.ranges, self.shapes.shape)

    @staticmethod
    def shape(text: str) -> Shape | None:
        parsed = parse_shape(text)
        return None if isinstance(parsed, ParseError) else parsed


def problem(place: Place, severity: Severity, code: str, message: str,
            related: tuple[tuple[Place, str], ...] = ()) -> Problem:
    return Problem(place.source, place.range, severity, code, message,
                   tuple(Related(where.source, where.range, note) for where, note in related))


class StructureMemo:
    """What a pass over a module's structure found, kept on the structure (`HloModule.derived`): an edit
    that keeps it (HloModule.edited: only instruction lines changed, their names, kinds and shapes kept)
    keeps the headers and closing lines such a pass reads, and so its problems."""

    def __init__(self, name: str) -> None:
        self._key: DerivedKey[list[Problem]] = DerivedKey(name)

    def problems(self, hlo: HloModule, compute: Callable[[HloModule], Iterable[Problem]]) -> list[Problem]:
        return hlo.derived.memo(self._key, lambda: list(itertools.islice(compute(hlo), PROBLEM_LIMIT + 1)))
