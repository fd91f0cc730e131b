"""What the rules of one instruction read of other lines: the line defining an operand, the shape
written on an instruction's line, and an attribute of another instruction.
"""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape, read_instruction
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import blank_comments, item_text, without_comments
from hlo_lsp.parsing.syntax import Shape


def operand_name(item: str) -> str:
    """The name an operand written `item` (`%x`, `f32[2] %x`, `/* c */ x`) names."""
    words = without_comments(item).split()
    return words[-1].lstrip("%") if words else ""


def definition(hlo: HloModule, line: int, item: str) -> int | None:
    """The line defining the operand written `item` (`%x`, `f32[2] %x`) in the computation of `line`."""
    if "/*" in item and blank_comments(item)[1]:
        return None  # a comment left open: the grammar's problem
    item = without_comments(item)
    if not item.strip() or "(" in item:
        return None
    name = item.split()[-1].lstrip("%")
    here = hlo.computation_at(line)
    if here is None:
        return None
    found = hlo.line_of(name) if hlo.names_are_unique else (site.line if (site := hlo.site(name, line)) else None)
    return found if found is not None and hlo.computation_at(found) is here else None


def shape_text(hlo: HloModule, line: int, name: str | None = None) -> str:
    """The result shape written on the instruction's line `line` (of `name`, on a line of several items),
    "" where there is none."""
    scan = hlo.instruction_scan(line, name)
    if scan.kind != "instruction" or len(scan.data) < 5:
        return ""
    if not scan.data[3]:  # its shape and opcode on the lines below (`p` / `= f32[4] parameter(0)`)
        shape = hlo.shape_at_line(line, name)
        return str(shape) if shape is not None else ""
    return hlo.written_shape(line, scan)


def operand_shape(hlo: HloModule, line: int, read: InstructionParts, index: int) -> Shape | None:
    """The shape of operand `index` of the instruction on `line`, where it is defined beside it."""
    if index >= len(read.operands):
        return None
    item = read.item(read.operands[index])
    found = definition(hlo, line, item)
    return parsed_shape(shape_text(hlo, found, operand_name(item))) if found is not None else None


def attribute_of_line(hlo: HloModule, line: int, key: str, name: str | None = None) -> str | None:
    """The attribute `key` of the instruction on `line` (`name`, on a line of several items)."""
    read = read_instruction(hlo.instruction_text(line, name), hlo.instruction_scan(line, name).data)
    return read.attribute(key) if read is not None else None


def instructions_on(hlo: HloModule, line: int) -> Iterator[tuple[str, str, tuple[object, ...]]]:
    """(name, text, scan data) of the instruction on `line`, or of each on a line of several items
    (its text the item's, the others blanked); none on a line of another kind."""
    scan = hlo.document.scan(line)
    if scan.kind == "instruction":
        data = hlo.instruction_scan(line).data
        yield str(data[0]), hlo.instruction_text(line), data
    if scan.kind != "items":
        return
    text = hlo.whole_text(line)
    for start, item in scan.data:
        if item.kind == "instruction" and item.problem is None:
            yield str(item.data[0]), item_text(text, scan, start), item.data
