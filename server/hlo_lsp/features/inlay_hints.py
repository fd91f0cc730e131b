"""Inlay hints (textDocument/inlayHint): the memory of each buffer, shown where it is defined.

In the HLO module, after the shape of an instruction that has buffers in the buffer
assignment: their size and live range, `32.0 KiB · 9→10` (a thread-local value has
no live range: `4 B · thread-local`; without a live-range section, the size alone).
In the allocations of a buffer-assignment file, at the end of each value line: the
value's live range, `9→10`. Only the lines of the requested range are read, so a
request costs work in proportion to the lines on screen, not to the file (and a request for a
whole large file, as some clients make, stops after `MAX_HINTS` hints).
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.features.hover_memory import byte_text, live_range_text
from hlo_lsp.features.memory_index import MemoryIndex, module_memory, range_text, size_text
from hlo_lsp.model.buffer_assignment import BufferValue, LiveRange, parse_index
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range, utf16_column

_LISTED = 3  # values of a tuple-shaped instruction labelled one by one; more are summed up
MAX_HINTS = 20_000  # per request: a client that asks for a whole 40 MB module gets its first lines' hints


@dataclass(frozen=True, slots=True)
class InlayHint:
    position: Position
    label: str
    tooltip: str
    kind: str = "type"  # what LSP calls the hint: type (a property of what precedes it) or parameter


def inlay_hints(module: ModuleDump, document: Document, visible: Range) -> list[InlayHint]:
    """The hints on the lines of `visible` (inclusive)."""
    hlo, index = module_memory(module)
    if index is None or not index.buffers.has_allocations_section:
        return []
    first = max(visible.start.line, 0)
    last = min(visible.end.line, document.line_count - 1)
    if document.kind is FileKind.HLO_MODULE:
        if hlo is None or hlo.document is not document:
            return []
        return _instruction_hints(document, index, first, last)
    if document.kind.is_buffer_assignment_family and index.section is not None:
        return _value_hints(document, index, first, last)
    return []


# ---- the HLO module -------------------------------------------------------------------------


def _instruction_hints(document: Document, index: MemoryIndex, first: int, last: int) -> list[InlayHint]:
    hints = []
    for line in range(first, last + 1):
        scan = document.scan(line)
        if scan.kind != "instruction":
            continue
        values = index.values_of(scan.data[0])
        if not values:
            continue
        text = document.line(line).rstrip("\r")
        shape_end = len(text[: scan.data[2]].rstrip()) if scan.data[3] else len(text.rstrip())
        position = Position(line, utf16_column(text, shape_end))
        hints.append(InlayHint(position, _instruction_label(index, values), _tooltip(index, values)))
        if len(hints) >= MAX_HINTS:
            break
    return hints


def _instruction_label(index: MemoryIndex, values: list[BufferValue]) -> str:
    if len(values) == 1:
        return _value_label(index, values[0])
    if len(values) <= _LISTED:
        return ", ".join(f"{_index_text(value)} {_value_label(index, value)}" for value in values)
    total = sum(value.size for value in values)
    ranges = [live for value in values if (live := index.live_range(value)) is not None]
    span = f" · {min(r.start for r in ranges)}→{max(r.end for r in ranges)}" if ranges else ""
    return f"{len(values)} buffers, {size_text(total)}{span}"


def _value_label(index: MemoryIndex, value: BufferValue) -> str:
    size = size_text(value.size)
    if index.is_thread_local(value):
        return f"{size} · thread-local"
    live = index.live_range(value)
    return f"{size} · {range_text(live)}" if live is not None else size


def _index_text(value: BufferValue) -> str:
    return "{" + ",".join(str(i) for i in value.index or ()) + "}"


def _tooltip(index: MemoryIndex, values: list[BufferValue]) -> str:
    lines = []
    for value in values:
        allocation = index.buffers.allocation(value.allocation)
        kinds = allocation.kinds() if allocation is not None else []
        where = f"allocation {value.allocation}" + (f" ({', '.join(kinds)})" if kinds else "")
        lines.append(f"{value.short_string}: {byte_text(value.size)} in {where}, offset {value.offset:,}")
        live = index.live_range(value)
        if live is not None:
            lines.append(f"  live {_live_text(index, live)}")
        elif index.is_thread_local(value):
            lines.append("  no live range: thread-local (it lives only while its computation runs)")
    return "\n".join(lines)


def _live_text(index: MemoryIndex, live: LiveRange) -> str:
    """`[9, 10]: from ynn_fusion.1 to add_maximum_fusion`, as the hover says it, in plain text."""
    if index.section is None:
        return f"[{live.start}, {live.end}]"
    return live_range_text(index.section, live, markdown=False)


# ---- buffer-assignment files ----------------------------------------------------------------


def _value_hints(document: Document, index: MemoryIndex, first: int, last: int) -> list[InlayHint]:
    hints = []
    for line in range(first, last + 1):
        scan = document.scan(line)
        if scan.kind != "value":
            continue
        name, printed_index = scan.data[1], scan.data[2]
        live = index.buffers.live_range_of(name, parse_index(printed_index))
        if live is None:
            continue
        text = document.line(line).rstrip("\r")
        position = Position(line, utf16_column(text, len(text.rstrip())))
        label = name + (printed_index or "")
        hints.append(InlayHint(position, range_text(live), f"{label} live {_live_text(index, live)}"))
        if len(hints) >= MAX_HINTS:
            break
    return hints
