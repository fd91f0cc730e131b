"""Go to definition (textDocument/definition and declaration) across the files of one module.

An instruction named anywhere (an operand, a buffer-assignment value, a live range,
the peak list) goes to its line in the HLO module; without the module file, to the
`from instruction:` line that prints it.
"""

from __future__ import annotations

from hlo_lsp.features.types import Location, Target
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.text import Range, utf16_column

_TABLE_DEFINITION = {
    "frame": Role.FRAME_DEF,
    "location": Role.LOCATION_DEF,
    "file_name": Role.FILE_NAME_DEF,
    "function_name": Role.FUNCTION_NAME_DEF,
}

# What a cursor may be on that has a definition (a shape has none).
DEFINED_KINDS = frozenset(("instruction", "computation", "value", "allocation", "op_name", *_TABLE_DEFINITION))


def definition(module: ModuleDump, target: Target) -> list[Location]:
    kind = target.kind
    if kind == "instruction":
        return instruction_definition(module, target.name, _line_in(module.hlo, target))
    if kind == "computation":
        return _definitions(module.hlo_document, target.name, Role.COMPUTATION_DEF)
    if kind == "value":
        return [found for document in module.buffer_assignment_documents
                for found in _definitions(document, target.name, Role.VALUE_DEF)]
    if kind in _TABLE_DEFINITION:
        return _definitions(module.hlo_document, target.name, _TABLE_DEFINITION[kind])
    if kind == "allocation":
        return _allocation(module, target.name)
    if kind == "op_name":
        return _frame_label(module, target.name)
    return []


def instruction_definition(module: ModuleDump, name: str, near_line: int | None = None) -> list[Location]:
    """The instruction's line in the HLO module; else where a buffer-assignment file prints it."""
    hlo = module.hlo
    if hlo is not None:
        site = hlo.site(name, near_line)
        if site is not None:
            return [Location(hlo.document.source, site.name_range)]
    buffers = module.buffer_assignment
    if buffers is None:
        return []
    for used in buffers.used_values:
        if used.instruction_name == name and used.instruction_place is not None:
            return [_name_in_place(module, used.instruction_place.source, used.instruction_place.line, name)]
    for value in buffers.values():
        if value.name == name:
            return [_name_in_place(module, value.place.source, value.place.line, name)]
    return []


def _line_in(hlo: HloModule | None, target: Target) -> int | None:
    """The target's line when it is in the HLO module itself (to resolve within its computation)."""
    return target.range.start.line if hlo is not None and target.source == hlo.document.source else None


def _definitions(document: Document | None, name: str, role: Role) -> list[Location]:
    if document is None:
        return []
    return [Location(document.source, Range.on_line(line, ref.start, ref.end))
            for line, ref in document.definitions(name, frozenset((role,)))]


def _allocation(module: ModuleDump, index: str) -> list[Location]:
    buffers = module.buffer_assignment
    if buffers is None:
        return []
    return [Location(a.place.source, a.place.range) for a in buffers.allocations if str(a.index) == index]


def _frame_label(module: ModuleDump, label: str) -> list[Location]:
    """A stack-trace frame: an instruction name (`copy.12`, `arg_tuple.1{2}`) or an op_name."""
    name = label.split("{", 1)[0]
    found = instruction_definition(module, name)
    if found or module.hlo is None:
        return found
    return instructions_with_op_name(module.hlo, label)


def instructions_with_op_name(hlo: HloModule, op_name: str) -> list[Location]:
    needle = f'op_name="{op_name}"'
    found = []
    for computation in hlo.all_computations():
        for line in computation.instruction_lines:
            if needle in hlo.document.line(line):
                ref = hlo.document.scan(line).refs[0]
                found.append(Location(hlo.document.source, Range.on_line(line, ref.start, ref.end)))
    return found


def _name_in_place(module: ModuleDump, source: str, line: int, name: str) -> Location:
    document = next(d for d in module.all_documents() if d.source == source)
    text = document.line(line).rstrip("\r")
    start = _find_name(text, name)
    return Location(source, Range.on_line(line, utf16_column(text, start), utf16_column(text, start + len(name))))


def _find_name(text: str, name: str) -> int:
    """Where `name` stands as a whole name in `text` (after `%` or a space), else the line start."""
    for prefix in ("%", " "):
        index = text.find(prefix + name)
        while index >= 0:
            end = index + len(prefix) + len(name)
            if end >= len(text) or not (text[end].isalnum() or text[end] in "_.-"):
                return index + len(prefix)
            index = text.find(prefix + name, index + 1)
    return len(text) - len(text.lstrip())
