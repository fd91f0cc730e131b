"""Hover (textDocument/hover): a few lines of Markdown about what the cursor is on.

An instruction shows its shape and opcode, then the memory of each of its buffer
values as XLA printed it (size, allocation, offset, live range, place at the peak),
then where it comes from in the user's program. Values, allocations, computations,
shapes, stack frames and the labels of the peak's stack-trace breakdown have their
own short summaries. Nothing to say is None, never an exception.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from hlo_lsp.analysis.memory import framework_op
from hlo_lsp.features.definition import instructions_with_op_name
from hlo_lsp.features.hover_memory import (
    Spaces,
    allocation_text,
    byte_text,
    count_text,
    peak_of,
    space_peaks,
    space_text,
    value_facts,
)
from hlo_lsp.features.types import HoverInfo, Target
from hlo_lsp.model.buffer_assignment import BreakdownFrame, BufferAssignment, BufferValue, format_index
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import Computation, HloModule, InstructionSite, StackFrame
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR, HOST_COLOR, MemorySpaces, unnamed_space
from hlo_lsp.model.pairing import paired_module
from hlo_lsp.model.sizes import dense_size, has_tiles, tiled_size
from hlo_lsp.parsing.hlo_syntax import parse_computation_header, parse_instruction, parse_shape
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.syntax import ArrayShape, ComputationHeader, Instruction, Metadata, ParseError, TupleShape

_MAX_SHAPE = 160  # characters of a shape in a title; huge tuples are cut
# Longer than any shape XLA prints (a tuple of a thousand elements is ~30 KB): the grammar would take seconds.
_LONGEST_SHAPE_READ = 64 * 1024
_MAX_VALUES = 16  # values listed for one (tuple-shaped) instruction
_MAX_LISTED = 10  # callers, instructions of an op_name, signature parameters
_LARGEST_VALUES = 5
_MAX_PARSED = 100_000  # characters of an instruction worth parsing for its metadata (huge constants are not)
_COMPUTATION_USE = frozenset((Role.COMPUTATION_USE,))
_PARAMETER_NUMBER = re.compile(r"\bparameter\(\s*([0-9]+)\s*\)")


@dataclass(frozen=True, slots=True)
class _Views:
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
class _Defined:
    """What the defining line of an instruction says: shape, opcode, origin."""

    shape: str
    opcode: str
    op_name: str | None
    source: str | None  # Markdown: `file:line` in `function`
    stack: tuple[str, ...] = ()  # Markdown, every frame of the Python stack, innermost first
    op_type: str | None = None  # the framework's operation (TensorFlow, PyTorch/XLA)


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


def _views(module: ModuleDump, target: Target) -> _Views:
    hlo, buffers = module.hlo, module.buffer_assignment
    if hlo is not None and buffers is not None and paired_module(hlo, buffers) is None:
        # Two compilations share the name (XLA numbers modules per process): trust the file the cursor is in.
        if target.source == hlo.document.source:
            buffers = None
        else:
            hlo = None
    return _Views(hlo, buffers, module)


# ---- instructions and values -----------------------------------------------------------


def _hover_instruction(views: _Views, target: Target) -> str | None:
    hlo = views.hlo
    near_line = target.range.start.line if hlo is not None and target.source == hlo.document.source else None
    return _instruction_markdown(views, target.name, near_line)


def _instruction_markdown(views: _Views, name: str, near_line: int | None = None) -> str | None:
    site = views.hlo.site(name, near_line) if views.hlo is not None else None
    defined = _defined_in_hlo(views.hlo, site) if views.hlo is not None and site is not None else None
    if defined is None and views.buffers is not None:
        defined = _defined_in_buffers(views.buffers, name)
    values = views.buffers.values_named(name) if views.buffers is not None else []
    if defined is None and not values:
        return None
    title = f"**{name}**" + (f" = `{_clip(defined.shape)}` {defined.opcode}".rstrip() if defined else "")
    origin = _origin_lines(defined) if defined else []
    memory = _memory_sections(views, name, defined, values) if views.buffers is not None else []
    moved = _copy_text(views, name, defined)
    return "\n\n".join([title, *memory, *([moved] if moved else []), *(["\n".join(origin)] if origin else [])])


def _memory_sections(views: _Views, name: str, defined: _Defined | None, values: list[BufferValue]) -> list[str]:
    """One Markdown block per buffer value of the instruction (a tuple has one per `{index}`); for the
    `*-done` of an asynchronous pair, the values of its `*-start` it is a position of."""
    buffers = views.buffers
    assert buffers is not None
    if not buffers.has_allocations_section:
        return []
    held = []
    if not values and defined is not None and defined.opcode.endswith("-done"):
        held = buffers.values_at_position(name)
        values = held
    if not values:
        return ["no buffer of its own in the buffer assignment"]
    peak, spaces = peak_of(views.hlo, buffers), views.spaces
    sections = [_holds_text(held)] if held else []
    for value in sorted(values, key=lambda value: value.value_id)[:_MAX_VALUES]:
        heading = f"`{value.short_string}`" + (f" `{_clip(value.shape_text)}`" if value.index else "")
        sections.append("\n".join([heading, *value_facts(buffers, value, peak, spaces)]))
    if len(values) > _MAX_VALUES:
        sections.append(f"… and {len(values) - _MAX_VALUES} more values")
    return sections


def _holds_text(held: list[BufferValue]) -> str:
    names = sorted({f"`{value.name}`" for value in held})
    return f"no buffer of its own: it holds the value{'s' if len(held) > 1 else ''} of {', '.join(names)}"


def _copy_text(views: _Views, name: str, defined: _Defined | None) -> str | None:
    """What an asynchronous copy moves, from which memory space to which (its start's shape is
    `(destination, source, context)`): `copies 512.0KiB from default to vmem`."""
    if defined is None or defined.opcode not in ("copy-start", "copy-done") or views.hlo is None:
        return None
    start = name if defined.opcode == "copy-start" else _operand_start(views.hlo, name)
    shape = views.hlo.shape_of(start) if start is not None else None
    if not isinstance(shape, TupleShape) or len(shape.elements) < 2:
        return None
    destination, source = shape.elements[0], shape.elements[1]
    size = dense_size(destination)
    if not isinstance(destination, ArrayShape) or not isinstance(source, ArrayShape) or size is None:
        return None
    spaces = views.module.memory_spaces if views.module is not None else None
    return (f"copies {byte_text(size)} from {_space_name(spaces, source)} to {_space_name(spaces, destination)}"
            + (f" (started by `{start}`)" if start != name else ""))


def _operand_start(hlo: HloModule, name: str) -> str | None:
    site = hlo.site(name)
    parsed = hlo.parse(site.line, site.name) if site is not None else None
    operands = parsed.operands if isinstance(parsed, Instruction) else ()
    return operands[0].name if operands else None


def _space_name(spaces: MemorySpaces | None, shape: ArrayShape) -> str:
    """The space a layout's `S(n)` names; an `S(5)` no report names is host memory (where XLA offloads
    to the host on GPU; TPU, whose layouts are tiled, has its cmem there)."""
    layout = shape.layout
    color = layout.memory_space if layout is not None and layout.memory_space else DEFAULT_COLOR
    space = spaces[color] if spaces is not None else unnamed_space(color)
    if space.place is None and color == HOST_COLOR and not has_tiles(shape):
        return "host memory"
    return space_text(space)


def _defined_in_hlo(hlo: HloModule, site: InstructionSite) -> _Defined:
    scan = hlo.instruction_scan(site.line, site.name)
    text = hlo.document.line(site.line)
    shape = text[scan.data[1] : scan.data[2]].strip()
    parsed = hlo.parse(site.line, site.name) if len(text) <= _MAX_PARSED else None
    metadata = parsed.metadata if isinstance(parsed, Instruction) else None
    location = hlo.source_location(site.line, site.name) if metadata is not None else None
    source = _source_text(location.file_name, location.line, location.function_name) if location else None
    stack = tuple(_frame_text(frame) for frame in location.stack) if location and len(location.stack) > 1 else ()
    return _Defined(shape, site.opcode, metadata.op_name if metadata else None, source, stack,
                    metadata.op_type if metadata else None)


def _defined_in_buffers(buffers: BufferAssignment, name: str) -> _Defined | None:
    """From the `from instruction:` text of one of its Used values (the dump has no HLO module)."""
    used = next((used for used in buffers.used_values if used.name == name and used.instruction_text), None)
    if used is None or used.instruction_text is None:
        return None
    text = used.instruction_text
    parsed = parse_instruction(text) if len(text) <= _MAX_PARSED else None
    if not isinstance(parsed, Instruction):
        return _Defined(used.instruction_shape, "", None, None) if used.instruction_shape else None
    shape = text[parsed.shape_span[0] : parsed.shape_span[1]]
    metadata = parsed.metadata
    return _Defined(shape, parsed.opcode, metadata.op_name if metadata else None, _metadata_source(metadata), (),
                    metadata.op_type if metadata else None)


def _metadata_source(metadata: Metadata | None) -> str | None:
    if metadata is None or not metadata.source_file:
        return None
    return _source_text(metadata.source_file, metadata.source_line, None)


def _origin_lines(defined: _Defined) -> list[str]:
    lines = [f"- framework op `{framework_op(defined.op_type, None)}`"] if defined.op_type else []
    lines += [f"- op_name `{defined.op_name}`"] if defined.op_name else []
    if defined.source:
        lines.append(f"- source {defined.source}")
    if defined.stack:
        lines.append("- Python stack, innermost first:")
        lines.extend(f"  {number}. {frame}" for number, frame in enumerate(defined.stack, 1))
    return lines


def _hover_value(views: _Views, target: Target) -> str | None:
    buffers = views.buffers
    if buffers is None or not target.name.isdigit():
        return None
    value = buffers.value_by_id().get(int(target.name))
    if value is None:
        return None
    title = f"**value {value.value_id}** `{value.short_string}` `{_clip(value.shape_text)}`"
    return "\n\n".join([title, "\n".join(value_facts(buffers, value, peak_of(views.hlo, buffers), views.spaces))])


# ---- allocations ----------------------------------------------------------------------


def _hover_allocation(views: _Views, target: Target) -> str | None:
    buffers = views.buffers
    allocation = buffers.allocation(int(target.name)) if buffers and target.name.isdigit() else None
    if allocation is None:
        return None
    count = len(allocation.values)
    title = f"**{allocation_text(allocation)}**: {byte_text(allocation.size)}, {count} value{'' if count == 1 else 's'}"
    if allocation.color and views.module is not None:
        title += f", in {space_text(views.module.memory_spaces[allocation.color])}"
    details = []
    if allocation.parameter_shape is not None:
        details.append(f"- parameter {allocation.parameter_number}: `{_clip(allocation.parameter_shape)}`"
                       f" at ShapeIndex {format_index(allocation.parameter_index or ())}")
    if allocation.output_shape is not None:
        details.append(f"- output shape `{_clip(allocation.output_shape)}`")
    largest = sorted(allocation.values, key=lambda value: (-value.size, value.value_id))[:_LARGEST_VALUES]
    heading = "value" if count == 1 else f"largest values ({len(largest)} of {count})"
    table = [f"| {heading} | size | offset |", "|---|--:|--:|"]
    table += [f"| `{v.short_string}` | {byte_text(v.size)} | {v.offset:,} |" for v in largest]
    return "\n\n".join([title, *(["\n".join(details)] if details else []), *(["\n".join(table)] if largest else [])])


# ---- computations ---------------------------------------------------------------------


def _hover_computation(views: _Views, target: Target) -> str | None:
    hlo = views.hlo
    computation = hlo.computations.get(target.name) if hlo is not None else None
    if hlo is None or computation is None:
        return None
    kind = "ENTRY computation" if computation.is_entry else "computation"
    count = len(computation.instruction_lines)
    sections = [f"**{kind}** `{computation.name}`", f"```\n{_signature(hlo, computation)}\n```",
                f"{count} instruction{'' if count == 1 else 's'}"]
    callers = _callers(hlo, computation.name)
    if callers:
        listed = [f"- `{site.name}` ({site.opcode})" + (f" in `{site.computation}`" if site.computation else "")
                  for site in callers[:_MAX_LISTED]]
        more = [f"- … and {len(callers) - _MAX_LISTED} more"] if len(callers) > _MAX_LISTED else []
        sections.append("\n".join(["called by:", *listed, *more]))
    elif not computation.is_entry:
        sections.append("not called by any instruction")
    return "\n\n".join(sections)


def _signature(hlo: HloModule, computation: Computation) -> str:
    """`name(p: shape, ...) -> result`, from the header, or from the body when the header has none."""
    header = parse_computation_header(hlo.document.line(computation.line).rstrip("\r"))
    if isinstance(header, ComputationHeader) and header.parameters is not None:
        parameters = [f"{p.name}: {p.shape}" for p in header.parameters]
        result = str(header.result) if header.result is not None else "?"
    else:
        parameters, result = _signature_from_body(hlo, computation)
    if len(parameters) > _MAX_LISTED:
        parameters = [*parameters[:_MAX_LISTED], f"… {len(parameters) - _MAX_LISTED} more"]
    return f"{computation.name} ({', '.join(parameters)}) -> {_clip(result)}"


def _signature_from_body(hlo: HloModule, computation: Computation) -> tuple[list[str], str]:
    numbered = []
    for line in computation.instruction_lines:
        site = hlo.site_at_line(line)
        number = _PARAMETER_NUMBER.search(hlo.document.line(line)) if site and site.opcode == "parameter" else None
        if site is not None and number is not None:
            numbered.append((int(number.group(1)), site.name, line))
    numbered.sort()
    parameters = [f"{name}: {hlo.shape_at_line(line) or '?'}" for _, name, line in numbered]
    roots = computation.root_lines or computation.instruction_lines[-1:]
    result = hlo.shape_at_line(roots[0]) if roots else None
    return parameters, str(result) if result is not None else "?"


def _callers(hlo: HloModule, name: str) -> list[InstructionSite]:
    """Instructions naming the computation in calls=, to_apply=, body=, branch_computations=..."""
    found: dict[int, InstructionSite] = {}
    for line, _ in hlo.document.uses(name, _COMPUTATION_USE):
        start = _instruction_start(hlo.document, line)
        site = hlo.site_at_line(start)
        if site is not None:
            found.setdefault(start, site)
    return list(found.values())


def _instruction_start(document: Document, line: int) -> int:
    while line > 0 and document.scan(line).kind == "continuation":
        line -= 1
    return line


# ---- shapes and stack frames -------------------------------------------------------------


def _hover_shape(views: _Views, target: Target) -> str | None:
    return _shape_markdown(target)


def _shape_markdown(target: Target) -> str | None:
    if len(target.name) > _LONGEST_SHAPE_READ:
        length = count_text(len(target.name))
        return f"`{_clip(target.name)}`: a shape of {length} characters, longer than a hover reads"
    shape = parse_shape(target.name)
    if isinstance(shape, ParseError):
        return None
    dense = dense_size(shape)
    if isinstance(shape, TupleShape):
        if dense is None:
            return None
        return (f"`{_clip(target.name)}`: tuple of {len(shape.elements)}, {byte_text(dense)}"
                " (its table of pointers; each element is a buffer of its own)")
    dynamic = any(shape.bounded)
    elements = math.prod(shape.dims) if all(size >= 0 for size in shape.dims) else None
    count = "unbounded" if elements is None else ("up to " if dynamic else "") + count_text(elements)
    lines = [f"`{_clip(target.name)}`: {count} × {shape.element_type}"]
    if dense is None:
        lines.append("- no static byte size")
    else:
        lines.append(f"- dense: {byte_text(dense)}")
        tiled = tiled_size(shape) if has_tiles(shape) else None
        if tiled is not None:
            lines.append(f"- tiled: {byte_text(tiled)}")
    if shape.layout is not None and shape.layout.memory_space:
        lines.append(f"- memory space {shape.layout.memory_space}")
    return "\n".join(lines)


def _hover_frame(views: _Views, target: Target) -> str | None:
    stack = views.hlo.stack(int(target.name)) if views.hlo is not None and target.name.isdigit() else []
    if not stack:
        return None
    title = f"**stack frame {stack[0].frame_id}**: {_frame_text(stack[0])}"
    callers = [f"- {_frame_text(frame)} (frame {frame.frame_id})" for frame in stack[1:]]
    return title + ("\n\ncalled from:\n" + "\n".join(callers) if callers else "")


def _frame_text(frame: StackFrame) -> str:
    return _source_text(frame.file_name or "?", frame.line, frame.function_name)


def _source_text(file_name: str, line: int | None, function_name: str | None) -> str:
    where = file_name + (f":{line}" if line is not None else "")
    return f"`{where}`" + (f" in `{function_name}`" if function_name else "")


# ---- the peak's stack-trace breakdown ------------------------------------------------------


def _hover_op_name(views: _Views, target: Target) -> str | None:
    """A label of `Stack trace breakdown for peak usage`: an instruction name, an op_name, a computation."""
    frame = _breakdown_frame(views.buffers, target)
    name = target.name.split("{", 1)[0]
    about = _instruction_markdown(views, name)
    if about is None:
        about = _op_name_instructions(views, target.name)
    if about is None and views.hlo is not None and target.name in views.hlo.computations:
        about = f"computation `{target.name}`"
    if frame is None and about is None:
        return None
    title = f"**`{target.name}`**"
    if frame is not None and views.buffers is not None:
        title += f" at the peak: {byte_text(frame.total)}, {frame.percent:.1f}%"
        if views.buffers.live_range and views.buffers.live_range.breakdown_total is not None:
            title += f" of {byte_text(views.buffers.live_range.breakdown_total)}"
        if frame.current not in (0, frame.total):
            title += f" ({byte_text(frame.current)} directly)"
    return "\n\n".join([title, *([about] if about else [])])


def _breakdown_frame(buffers: BufferAssignment | None, target: Target) -> BreakdownFrame | None:
    if buffers is None or buffers.live_range is None:
        return None
    frames = [frame for frame in buffers.live_range.breakdown if frame.label == target.name]
    here = [frame for frame in frames
            if frame.place.source == target.source and frame.place.line == target.range.start.line]
    return (here or frames or [None])[0]


def _op_name_instructions(views: _Views, op_name: str) -> str | None:
    names: list[tuple[str, str]] = []
    if views.hlo is not None:
        for location in instructions_with_op_name(views.hlo, op_name):
            site = views.hlo.site_at_line(location.range.start.line)
            if site is not None:
                names.append((site.name, site.opcode))
    elif views.buffers is not None:
        needle = f'op_name="{op_name}"'
        for used in views.buffers.used_values:
            if used.instruction_text and needle in used.instruction_text and (used.name, "") not in names:
                names.append((used.name, ""))
    if not names:
        return None
    listed = [f"- `{name}`" + (f" ({opcode})" if opcode else "") for name, opcode in names[:_MAX_LISTED]]
    more = [f"- … and {len(names) - _MAX_LISTED} more"] if len(names) > _MAX_LISTED else []
    return "\n".join(["instructions with this op_name:", *listed, *more])


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_SHAPE else text[: _MAX_SHAPE - 1] + "…"


_BUILDERS: dict[str, Callable[[_Views, Target], str | None]] = {
    "instruction": _hover_instruction,
    "value": _hover_value,
    "computation": _hover_computation,
    "allocation": _hover_allocation,
    "shape": _hover_shape,
    "frame": _hover_frame,
    "op_name": _hover_op_name,
}
_MODULE_FREE_BUILDERS: dict[str, Callable[[Target], str | None]] = {"shape": _shape_markdown}
# What a cursor may be on that a hover may say something about (a table's file or function name,
# or a file location, it says nothing about).
HOVERED_KINDS = frozenset(_BUILDERS)
