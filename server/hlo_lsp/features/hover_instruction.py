"""The hovers of what holds memory or names it: an instruction (its buffers, their allocations, live ranges
and place at the peak, where it comes from), a buffer value, an allocation, a stack frame and a label of the
peak's stack-trace breakdown."""

from __future__ import annotations

from hlo_lsp.analysis.memory import framework_op
from hlo_lsp.features.definition import instructions_with_op_name
from hlo_lsp.features.hover_memory import allocation_text, byte_text, peak_of, space_text, value_facts
from hlo_lsp.features.hover_views import MAX_LISTED, Defined, Views, clip
from hlo_lsp.features.types import Target
from hlo_lsp.model.buffer_assignment import BreakdownFrame, BufferAssignment, BufferValue, format_index
from hlo_lsp.model.hlo_module import HloModule, InstructionSite, StackFrame
from hlo_lsp.model.memory_spaces import DEFAULT_COLOR, HOST_COLOR, MemorySpaces, unnamed_space
from hlo_lsp.model.sizes import dense_size, has_tiles
from hlo_lsp.parsing.hlo_syntax import parse_instruction
from hlo_lsp.parsing.syntax import ArrayShape, Instruction, Metadata, TupleShape

_MAX_VALUES = 16  # values listed for one (tuple-shaped) instruction
_LARGEST_VALUES = 5
_MAX_PARSED = 100_000  # characters of an instruction worth parsing for its metadata (huge constants are not)


def hover_instruction(views: Views, target: Target) -> str | None:
    hlo = views.hlo
    near_line = target.range.start.line if hlo is not None and target.source == hlo.document.source else None
    return _instruction_markdown(views, target.name, near_line)


def _instruction_markdown(views: Views, name: str, near_line: int | None = None) -> str | None:
    site = views.hlo.site(name, near_line) if views.hlo is not None else None
    defined = _defined_in_hlo(views.hlo, site) if views.hlo is not None and site is not None else None
    if defined is None and views.buffers is not None:
        defined = _defined_in_buffers(views.buffers, name)
    values = views.buffers.values_named(name) if views.buffers is not None else []
    if defined is None and not values:
        return None
    title = f"**{name}**" + (f" = `{clip(defined.shape)}` {defined.opcode}".rstrip() if defined else "")
    origin = _origin_lines(defined) if defined else []
    memory = _memory_sections(views, name, defined, values) if views.buffers is not None else []
    moved = _copy_text(views, name, defined)
    return "\n\n".join([title, *memory, *([moved] if moved else []), *(["\n".join(origin)] if origin else [])])


def _memory_sections(views: Views, name: str, defined: Defined | None, values: list[BufferValue]) -> list[str]:
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
        heading = f"`{value.short_string}`" + (f" `{clip(value.shape_text)}`" if value.index else "")
        sections.append("\n".join([heading, *value_facts(buffers, value, peak, spaces)]))
    if len(values) > _MAX_VALUES:
        sections.append(f"… and {len(values) - _MAX_VALUES} more values")
    return sections


def _holds_text(held: list[BufferValue]) -> str:
    names = sorted({f"`{value.name}`" for value in held})
    return f"no buffer of its own: it holds the value{'s' if len(held) > 1 else ''} of {', '.join(names)}"


def _copy_text(views: Views, name: str, defined: Defined | None) -> str | None:
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


def _defined_in_hlo(hlo: HloModule, site: InstructionSite) -> Defined:
    scan = hlo.instruction_scan(site.line, site.name)
    text = hlo.document.line(site.line)
    shape = text[scan.data[1] : scan.data[2]].strip()
    metadata = hlo.metadata(site.line, site.name) if len(text) <= _MAX_PARSED else None
    location = hlo.source_location(metadata)
    source = _source_text(location.file_name, location.line, location.function_name) if location else None
    stack = tuple(_frame_text(frame) for frame in location.stack) if location and len(location.stack) > 1 else ()
    return Defined(shape, site.opcode, metadata.op_name if metadata else None, source, stack,
                    metadata.op_type if metadata else None)


def _defined_in_buffers(buffers: BufferAssignment, name: str) -> Defined | None:
    """From the `from instruction:` text of one of its Used values (the dump has no HLO module)."""
    used = next((used for used in buffers.used_values if used.name == name and used.instruction_text), None)
    if used is None or used.instruction_text is None:
        return None
    text = used.instruction_text
    parsed = parse_instruction(text) if len(text) <= _MAX_PARSED else None
    if not isinstance(parsed, Instruction):
        return Defined(used.instruction_shape, "", None, None) if used.instruction_shape else None
    shape = text[parsed.shape_span[0] : parsed.shape_span[1]]
    metadata = parsed.metadata
    return Defined(shape, parsed.opcode, metadata.op_name if metadata else None, _metadata_source(metadata), (),
                    metadata.op_type if metadata else None)


def _metadata_source(metadata: Metadata | None) -> str | None:
    if metadata is None or not metadata.source_file:
        return None
    return _source_text(metadata.source_file, metadata.source_line, None)


def _origin_lines(defined: Defined) -> list[str]:
    lines = [f"- framework op `{framework_op(defined.op_type, None)}`"] if defined.op_type else []
    lines += [f"- op_name `{defined.op_name}`"] if defined.op_name else []
    if defined.source:
        lines.append(f"- source {defined.source}")
    if defined.stack:
        lines.append("- Python stack, innermost first:")
        lines.extend(f"  {number}. {frame}" for number, frame in enumerate(defined.stack, 1))
    return lines


def hover_value(views: Views, target: Target) -> str | None:
    buffers = views.buffers
    if buffers is None or not target.name.isdigit():
        return None
    value = buffers.value_by_id().get(int(target.name))
    if value is None:
        return None
    title = f"**value {value.value_id}** `{value.short_string}` `{clip(value.shape_text)}`"
    return "\n\n".join([title, "\n".join(value_facts(buffers, value, peak_of(views.hlo, buffers), views.spaces))])




def hover_allocation(views: Views, target: Target) -> str | None:
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
        details.append(f"- parameter {allocation.parameter_number}: `{clip(allocation.parameter_shape)}`"
                       f" at ShapeIndex {format_index(allocation.parameter_index or ())}")
    if allocation.output_shape is not None:
        details.append(f"- output shape `{clip(allocation.output_shape)}`")
    largest = sorted(allocation.values, key=lambda value: (-value.size, value.value_id))[:_LARGEST_VALUES]
    heading = "value" if count == 1 else f"largest values ({len(largest)} of {count})"
    table = [f"| {heading} | size | offset |", "|---|--:|--:|"]
    table += [f"| `{v.short_string}` | {byte_text(v.size)} | {v.offset:,} |" for v in largest]
    return "\n\n".join([title, *(["\n".join(details)] if details else []), *(["\n".join(table)] if largest else [])])





def hover_frame(views: Views, target: Target) -> str | None:
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




def hover_op_name(views: Views, target: Target) -> str | None:
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
    found = here or frames
    return found[0] if found else None


def _op_name_instructions(views: Views, op_name: str) -> str | None:
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
    listed = [f"- `{name}`" + (f" ({opcode})" if opcode else "") for name, opcode in names[:MAX_LISTED]]
    more = [f"- … and {len(names) - MAX_LISTED} more"] if len(names) > MAX_LISTED else []
    return "\n".join(["instructions with this op_name:", *listed, *more])
