"""The rules of some opcodes on their own line, beyond their operand count and attributes: constant
literals, the sizes of `dimensions`, result shapes XLA's parser crashes on, collectives'
attributes, custom-calls' layout constraints, scans; and which opcodes ask to read other lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.findings import Judgement
from hlo_lsp.analysis.checks.opcodes.inference import UNARY_TYPES
from hlo_lsp.analysis.checks.opcodes.inferred_operands import BINARY_INFERRED
from hlo_lsp.analysis.checks.opcodes.literals import ELEMENT_TYPES, LiteralShape, literal_problem
from hlo_lsp.analysis.checks.opcodes.parameters import parameter_line
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape
from hlo_lsp.analysis.checks.opcodes.text_keys import literal_digits_matter
from hlo_lsp.analysis.checks.opcodes.values import int64_value, split_top_level
from hlo_lsp.parsing.syntax import Shape, TupleShape

LineRule = Callable[[InstructionParts, Judgement], None]


def _dimensions_size(read: InstructionParts, judgement: Judgement) -> None:
    value = read.attribute("dimensions")
    if value is None or tables.VALIDATORS["dimensions"](value) is not None:
        return
    count = len(re.findall(r"-?[0-9]+", value))
    if read.opcode in tables.ONE_DIMENSION and count != 1:
        judgement.add(read.value_span("dimensions"), "attribute-value",
                      f"dimensions: {read.opcode} expects exactly one dimension, but sees {count}")
    elif read.opcode in tables.SOME_DIMENSION and count == 0:
        judgement.add(read.value_span("dimensions"), "attribute-value",
                      f"dimensions: {read.opcode} reads its first dimension (XLA's parser crashes on {{}})")


def _constant(read: InstructionParts, judgement: Judgement) -> None:
    start, end = read.operands_span[0] + 1, read.operands_span[1] - 1
    shape = _literal_shape(parsed_shape(read.shape))
    if shape is None:
        return
    found = literal_problem(shape, read.text[start:end])
    if found is not None:
        judgement.add((start + found[0], start + max(found[1], found[0] + 1)), found[2], found[3])
    judgement.digit_sensitive = judgement.digit_sensitive or literal_digits_matter(shape, read.text[start:end])


def _literal_shape(shape: Shape | None) -> LiteralShape | None:
    if isinstance(shape, TupleShape):
        elements = [_literal_shape(element) for element in shape.elements]
        return None if None in elements else LiteralShape("", (), tuple(e for e in elements if e))
    if shape is None or shape.element_type not in ELEMENT_TYPES:
        return None
    dims = tuple(-(2**63) if size < 0 else size for size in shape.dims)
    return LiteralShape(shape.element_type, dims)


def _id_shape(read: InstructionParts, judgement: Judgement) -> None:
    judgement.digit_sensitive = True  # u32 and u64 zero alike
    if read.shape and re.sub(r"\s", "", read.shape) != "u32[]":
        judgement.add(read.opcode_span, "result-shape", f"{read.opcode} must have shape u32[], not {read.shape} "
                                                        "(XLA's parser crashes)")


def _tuple_result(read: InstructionParts, judgement: Judgement) -> None:
    shape = parsed_shape(read.shape)
    if read.opcode == "infeed" and isinstance(shape, TupleShape) and not shape.elements:
        judgement.add(read.opcode_span, "result-shape", "infeed with the empty tuple shape () (XLA's parser crashes)")
    elif shape is not None and not shape.is_tuple:
        judgement.add(read.opcode_span, "result-shape", f"{read.opcode} must have a non-empty tuple shape" + (
            " (XLA's parser crashes)" if read.opcode == "recv" else ""))


def _collective_permute(read: InstructionParts, judgement: Judgement) -> None:
    if read.attribute("slice_sizes") is not None and len(read.operands) != 4:
        judgement.add(read.operands_span, "operand-count", "CollectivePermute and CollectivePermuteStart must "
                                                           "have exactly four operands with slice_sizes")


def _global_device_ids(read: InstructionParts, judgement: Judgement) -> None:
    if read.attribute("mode") is None and read.attribute("use_global_device_ids") == "true" and (
            read.attribute("channel_id") is None):
        judgement.add(read.value_span("use_global_device_ids"), "attribute-value",
                      "Cannot have use_global_device_ids=true without channel_id")
    _dimensions_size(read, judgement)


def _custom_call(read: InstructionParts, judgement: Judgement) -> None:
    constraints = read.attribute("operand_layout_constraints")
    if constraints is None or not constraints.startswith("{"):
        return
    given = len(split_top_level(constraints[1:-1]))
    if given != len(read.operands):
        judgement.add(read.value_span("operand_layout_constraints"), "operand-count",
                      f"Expected {len(read.operands)} operand layout constraints, {given} given")
    else:
        judgement.actions.add("cross")


def _scan(read: InstructionParts, judgement: Judgement) -> None:
    dimensions, carries = read.attribute("dimensions"), int64_value(read.attribute("num_carries") or "")
    if dimensions is not None and len(re.findall(r"-?[0-9]+", dimensions)) != 1:
        judgement.add(read.value_span("dimensions"), "attribute-value", "dimensions: expects exactly one dimension")
    if carries is not None and carries > len(read.operands):
        judgement.add(read.operands_span, "operand-count", f"expects at least {carries} operands to match the "
                                                           f"number of carries, but has {len(read.operands)}")
    judgement.actions.add("cross")


def _needs(action: str) -> LineRule:
    """A rule that only asks for work on other lines (`cross` only where no result shape is written)."""
    def rule(read: InstructionParts, judgement: Judgement) -> None:
        if action != "cross" or not read.shape:
            judgement.actions.add(action)
    return rule


OPCODE_RULES: dict[str, LineRule] = {
    "constant": _constant, "parameter": parameter_line, "replica-id": _id_shape, "partition-id": _id_shape,
    "infeed": _tuple_result, "recv": _tuple_result, "collective-permute": _collective_permute,
    "collective-permute-start": _collective_permute, "all-reduce": _global_device_ids,
    "all-reduce-start": _global_device_ids, "reduce-scatter": _global_device_ids, "custom-call": _custom_call,
    "scan": _scan, "reshape": _needs("reshape"), "send-done": _needs("channel"), "recv-done": _needs("channel"),
    **dict.fromkeys(("get-tuple-element", "call", "dot", "reduce-window", "while", "select", *UNARY_TYPES,
                     *BINARY_INFERRED),
                    _needs("cross")),
    **dict.fromkeys(("concatenate", "sort", "all-to-all", "ragged-all-to-all", "get-dimension-size",
                     "set-dimension-size", "all-gather", "all-gather-start"), _dimensions_size),
}
