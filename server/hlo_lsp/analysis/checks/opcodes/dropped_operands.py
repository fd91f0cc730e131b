"""Operands XLA's parser drops: a bare name spelt like an opcode (`tuple(p, abs)`, `fusion(p, all-reduce)`,
`tuple(p, f32[4] add-start)`) that names no instruction defined above it in its computation is read as an
opcode and left out, without a word. The instruction then has one operand fewer: `tuple(p, abs)` is
`tuple(p)`, and `negate(abs)` has none, which the operand-count rule rejects.
"""

from __future__ import annotations

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, read_instruction
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import without_comments
from hlo_lsp.parsing.line_scan import Role, as_spaces

OPCODE_OPERANDS = "opcode-operands"  # the judgement's action: an operand spelt like an opcode, perhaps dropped


def spelt_like_opcode(name: str) -> bool:
    return name in tables.RULES or tables.async_wrapped(name) is not None


def opcode_spelt_name(item: str) -> str | None:
    """The name of an operand written `abs` or `f32[4] abs` when it is spelt like an opcode (not `%abs`)."""
    words = without_comments(item).split() if "/" in item else item.split()
    return words[-1] if words and spelt_like_opcode(words[-1]) else None


def has_opcode_spelt_operand(read: InstructionParts) -> bool:
    return any(opcode_spelt_name(read.item(span)) is not None for span in read.operands)


def without_dropped_operands(hlo: HloModule, line: int, text: str, data: tuple[object, ...]) -> str:
    """The instruction `text` (on `line`) with the operands XLA's parser drops blanked, and the commas that
    parted them from the others: what XLA reads, at the same columns."""
    read = read_instruction(text, data)
    if read is None:
        return text
    item_start = len(text) - len(text.lstrip())
    kept = [span for span in read.operands if (name := opcode_spelt_name(read.item(span))) is None
            or _in_scope(hlo, name, line, item_start)]
    if len(kept) == len(read.operands):
        return text
    inside = (read.operands_span[0] + 1, read.operands_span[1] - 1)
    clean = without_comments(text)
    pieces, at = [text[: inside[0]]], inside[0]
    for number, (start, end) in enumerate(kept):
        if number:  # one comma between two operands kept: the one after the first
            comma = clean.index(",", at)
            pieces += [as_spaces(text[at:comma]), ","]
            at = comma + 1
        pieces += [as_spaces(text[at:start]), text[start:end]]
        at = end
    pieces += [as_spaces(text[at : inside[1]]), text[inside[1] :]]
    return "".join(pieces)


def _in_scope(hlo: HloModule, name: str, line: int, item_start: int) -> bool:
    """Whether instruction `name` is defined above the instruction that starts at (`line`, `item_start`), in
    its computation: on a line above, or before it on a line of several items."""
    computation = hlo.computation_at(line, item_start)
    if computation is None:
        return False
    scan = hlo.document.scan(line)
    if scan.kind == "items" and any(ref.role is Role.INSTRUCTION_DEF and ref.name == name and ref.start < item_start
                                    for ref in scan.refs):
        return True
    return hlo.defines(computation, name, before=line)
