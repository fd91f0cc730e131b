"""Operands written with their shape (`add(f32[32]{0} %b, ...)`) against the shape XLA's parser infers for
an operand instruction written without one (`%b = broadcast(f32[] %p), dimensions={}`): it rejects a
declared shape not compatible with its operand's (ShapeUtil::Compatible: layouts aside).

Read from the instructions without a written shape, which dumps never print (XLA writes every shape), to
their uses: not from each of the millions of operands a dump writes with their shapes.
"""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.checks.opcodes.findings import Finding
from hlo_lsp.analysis.checks.opcodes.inference import inferred_shape
from hlo_lsp.analysis.checks.opcodes.other_lines import definition, instructions_on, operand_name
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape, read_instruction
from hlo_lsp.analysis.checks.opcodes.shape_rules import compatible
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import continued_end, continued_instruction_data
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.syntax import Shape

_USES = frozenset((Role.INSTRUCTION_USE,))


def declared_operand_findings(hlo: HloModule, line: int, name: str) -> Iterator[tuple[int, str, Finding]]:
    """(line, instruction text, finding) of each operand naming the instruction `name` on `line`, whose
    shape is not written, with a declared shape other than the one XLA infers for it."""
    inferred: Shape | None = None
    for user_line, user_text, read in _users(hlo, line, name):
        for start, end in read.operands:
            item = read.item((start, end))
            declared = _declared_shape(item, name)
            shape = parsed_shape(declared) if declared else None
            if shape is None or definition(hlo, user_line, item) != line:
                continue
            inferred = inferred or inferred_shape(hlo, line, name=name)
            if inferred is None:
                return
            if not compatible(shape, inferred):
                written = declared if "/" not in user_text[start:end] else shape  # (a comment in it: as read)
                message = (f"The declared operand shape {written} is not compatible with the shape of the "
                           f"operand instruction {inferred}")
                yield user_line, user_text, (start, end, "operand-shape", message)


def _declared_shape(item: str, name: str) -> str:
    """The shape an operand written `item` (its comments blanked) declares for the instruction `name`, or ""."""
    if "(" in item or operand_name(item) != name:
        return ""  # a nested instruction, or another operand
    return " ".join(item.split()[:-1])


def _users(hlo: HloModule, line: int, name: str) -> Iterator[tuple[int, str, InstructionParts]]:
    """(line, text, parts) of each instruction of the module that names `name` among its operands."""
    seen: set[tuple[int, str]] = set()
    for use_line, _ in hlo.document.uses(name, _USES):
        for start_line in {use_line, _instruction_start(hlo, use_line)}:
            for user, text, data in instructions_on(hlo, start_line):
                if (start_line, user) in seen or user == name and start_line == line:
                    continue
                seen.add((start_line, user))
                read = read_instruction(text, continued_instruction_data(text, data)) if len(data) == 5 else None
                if read is not None:
                    yield start_line, text, read


def _instruction_start(hlo: HloModule, line: int) -> int:
    """The line an instruction continued on `line` starts on (`line` itself where none is continued)."""
    document = hlo.document
    while line > 0 and continued_end(document.scan(line), document.line(line)) is not None:
        line -= 1
    return line
