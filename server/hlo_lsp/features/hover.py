"""Hover (textDocument/hover): a few lines of Markdown about what the cursor is on.

An instruction shows its shape and opcode, then the memory of each of its buffer
values as XLA printed it (size, allocation, offset, live range, place at the peak),
then where it comes from in the user's program. Values, allocations, computations,
shapes, stack frames and the labels of the peak's stack-trace breakdown have their
own short summaries. Nothing to say is None, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable

from hlo_lsp.features.hover_computation import hover_computation, hover_shape, shape_markdown
from hlo_lsp.features.hover_instruction import (
    hover_allocation,
    hover_frame,
    hover_instruction,
    hover_op_name,
    hover_value,
)
from hlo_lsp.features.hover_memory import peak_of, space_peaks
from hlo_lsp.features.hover_views import Views
from hlo_lsp.features.types import HoverInfo, Target
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR
from hlo_lsp.model.pairing import paired_module


def hover(module: ModuleDump, target: Target) -> HoverInfo | None:
    builder = _BUILDERS.get(target.kind)
    markdown = builder(_views(module, target), target) if builder is not None else None
    return HoverInfo(markdown, target.range) if markdown else None


def module_free_hover(target: Target) -> HoverInfo | None:
    """The hover of what says all about itself (a shape), without a module; None for anything else."""
    builder = _MODULE_FREE_BUILDERS.get(target.kind)
    markdown = builder(target) if builder is not None else None
    return HoverInfo(markdown, target.range) if markdown else None


def prepare_hovers(module: ModuleDump) -> None:
    """Builds the tables every hover of an instruction reads (values by name, live ranges by value,
    allocations by index, the printed peak: tens of milliseconds at 40 MB), so that no hover waits
    for them."""
    buffers = module.buffer_assignment
    if buffers is not None:
        buffers.values_named("")
        buffers.live_range_of("")
        buffers.allocation(-1)
        peak_of(module.hlo, buffers)
        if buffers.colors - {DEFAULT_COLOR}:
            space_peaks(module.hlo, buffers, module.memory_spaces)


def _views(module: ModuleDump, target: Target) -> Views:
    hlo, buffers = module.hlo, module.buffer_assignment
    if hlo is not None and buffers is not None and paired_module(hlo, buffers) is None:
        # Two compilations share the name (XLA numbers modules per process): trust the file the cursor is in.
        if target.source == hlo.document.source:
            buffers = None
        else:
            hlo = None
    return Views(hlo, buffers, module)




_BUILDERS: dict[str, Callable[[Views, Target], str | None]] = {
    "instruction": hover_instruction,
    "value": hover_value,
    "computation": hover_computation,
    "allocation": hover_allocation,
    "shape": hover_shape,
    "frame": hover_frame,
    "op_name": hover_op_name,
}
_MODULE_FREE_BUILDERS: dict[str, Callable[[Target], str | None]] = {"shape": shape_markdown}
# What a cursor may be on that a hover may say something about (a table's file or function name,
# or a file location, it says nothing about).
HOVERED_KINDS = frozenset(_BUILDERS)
