"""The operands XLA's parser cannot infer a result shape from, where none is written: a unary operation of a
tuple, a token or an element type it does not take; a binary operation of a non-array, of two element types,
of two ranks or of sizes that do not broadcast; a dot whose dimension numbers do not pair up; a select whose
branches differ or whose predicate is not of their size. With the
result shape written, XLA's parser infers nothing and says nothing of these (its verifier does).
"""

from __future__ import annotations

from hlo_lsp.analysis.checks.opcodes.findings import Judgement
from hlo_lsp.analysis.checks.opcodes.inference import (
    BINARY,
    dot_problem,
    is_array,
    operand_shape,
    select_problem,
    unary_problem,
)
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.syntax import ArrayShape, Shape

BINARY_INFERRED = BINARY | {"compare"}


def unary_operand(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    if read.shape or len(read.operands) != 1:
        return
    operand = operand_shape(hlo, line, read.item(read.operands[0]), 0)
    _report(read, judgement, unary_problem(read.opcode, operand) if operand is not None else None)


def binary_operands(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    if read.shape or len(read.operands) != 2:
        return
    lhs, rhs = (operand_shape(hlo, line, read.item(span), 0) for span in read.operands)
    if lhs is not None and rhs is not None:
        _report(read, judgement, _binary_problem(read.opcode, lhs, rhs))


def dot_operands(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    if read.shape or len(read.operands) != 2:
        return
    lhs, rhs = (operand_shape(hlo, line, read.item(span), 0) for span in read.operands)
    if lhs is not None and rhs is not None:
        _report(read, judgement, dot_problem(lhs, rhs, read))


def select_operands(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    if read.shape or len(read.operands) != 3:
        return
    pred, on_true, on_false = (operand_shape(hlo, line, read.item(span), 0) for span in read.operands)
    if pred is not None and on_true is not None and on_false is not None:
        _report(read, judgement, select_problem(pred, on_true, on_false))


def _report(read: InstructionParts, judgement: Judgement, problem: str | None) -> None:
    if problem is not None:
        judgement.add(read.opcode_span, "operand-shape", f"failed to infer shape for opcode: {read.opcode}, error: "
                                                         f"{problem} (write the result shape before the opcode)")


def _binary_problem(opcode: str, lhs: Shape, rhs: Shape) -> str | None:
    for side, shape in (("lhs", lhs), ("rhs", rhs)):
        if not is_array(shape):
            return f"Expected array argument for {side} of binary operation {opcode}, but got {shape}."
    assert isinstance(lhs, ArrayShape) and isinstance(rhs, ArrayShape)
    if lhs.element_type != rhs.element_type and not (_floating(lhs) and _floating(rhs)):
        return f"Binary op {opcode} with different element types: {lhs} and {rhs}."
    if not lhs.dims or not rhs.dims:
        return None  # a scalar broadcasts to the other
    if len(lhs.dims) != len(rhs.dims):
        low, high = sorted((lhs, rhs), key=lambda shape: len(shape.dims))
        return f"Shapes must be equal rank, but are {low} and {high}"
    if any(a != b and 1 not in (a, b) and a >= 0 and b >= 0 for a, b in zip(lhs.dims, rhs.dims)):
        return f"Binary op with incompatible shapes: {lhs} and {rhs}."
    return None


def _floating(shape: ArrayShape) -> bool:
    return shape.element_type.startswith(("f", "bf"))
