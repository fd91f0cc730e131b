"""What every part of a hover reads: the module's views (its HLO side and buffer side, paired), what an
instruction's defining line says, and the limits that keep a hover short."""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.features.hover_memory import Spaces, space_peaks
from hlo_lsp.model.buffer_assignment import BufferAssignment
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR

_MAX_SHAPE = 160  # characters of a shape in a title; huge tuples are cut
MAX_LISTED = 10  # callers, instructions of an op_name, signature parameters


@dataclass(frozen=True, slots=True)
class Views:
    hlo: HloModule | None
    buffers: BufferAssignment | None
    module: ModuleDump | None = None

    @property
    def spaces(self) -> Spaces | None:
        """The module's memory spaces and the peak of each, when it uses more than the default one."""
        if self.module is None or self.buffers is None or not self.buffers.colors - {DEFAULT_COLOR}:
            return None
        spaces = self.module.memory_spaces
        return Spaces(spaces, space_peaks(self.hlo, self.buffers, spaces))


@dataclass(frozen=True, slots=True)
class Defined:
    """What the defining line of an instruction says: shape, opcode, origin."""

    shape: str
    opcode: str
    op_name: str | None
    source: str | None  # Markdown: `file:line` in `function`
    stack: tuple[str, ...] = ()  # Markdown, every frame of the Python stack, innermost first
    op_type: str | None = None  # the framework's operation (TensorFlow, PyTorch/XLA)




def clip(text: str) -> str:
    return text if len(text) <= _MAX_SHAPE else text[: _MAX_SHAPE - 1] + "…"
