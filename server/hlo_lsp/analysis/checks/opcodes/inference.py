"""The shapes XLA's parser infers where none is written (`ROOT v = abs(p)`), as its ShapeInference does,
for the few opcodes where that is cheap and certain: elementwise unary and binary operations, compare, select
and copy, broadcasts, dots and tuples. Where the shape is not certain, there is none (None), and no rule reports on it.
"""

from __future__ import annotations

import dataclasses
import re

from hlo_lsp.analysis.checks.opcodes.literals import ELEMENT_TYPES
from hlo_lsp.analysis.checks.opcodes.other_lines import definition, operand_name, shape_text
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape, read_instruction
from hlo_lsp.analysis.checks.opcodes.shape_rules import compatible
from hlo_lsp.analysis.checks.opcodes.values import int64_value
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import continued_instruction_data, without_comments
from hlo_lsp.parsing.names import NAME
from hlo_lsp.parsing.syntax import ArrayShape, Shape, TupleShape

_HEAD = re.compile(r"\s*(?:ROOT\s+)?%?" + NAME + r"\s*=\s*(.*?)\s[a-z][a-z0-9_\-]*\(", re.S)
_DEPTH = 16  # operands followed back through instructions without a shape
_COMPLEX_PART = {"c64": "f32", "c128": "f64"}
_FLOATING = frozenset(t for t in ELEMENT_TYPES if t.startswith(("f", "bf")))
_SIGNED = frozenset(t for t in ELEMENT_TYPES if t.startswith("s"))
_UNSIGNED = frozenset(t for t in ELEMENT_TYPES if t.startswith("u"))
_COMPLEX = frozenset(_COMPLEX_PART)
_INTEGRAL = _SIGNED | _UNSIGNED
_FLOAT_OR_COMPLEX = (_FLOATING | _COMPLEX, "Expected element type in shape to be floating or complex for {op} "
                                           "operation; got {type}.")
_FLOAT = (_FLOATING, "Expected element type in shape to be floating for {op} operation; got {type}.")
# The element types each unary operation takes when XLA infers its shape, and XLA's message otherwise.
UNARY_TYPES: dict[str, tuple[frozenset[str], str]] = {
    **dict.fromkeys(("acos", "acosh", "asin", "asinh", "atanh", "cosine", "cosh", "exponential",
                     "exponential-minus-one", "log", "log-plus-one", "logistic", "rsqrt", "sine", "sinh", "sqrt",
                     "tan", "tanh", "real", "imag"), _FLOAT_OR_COMPLEX),
    **dict.fromkeys(("ceil", "floor", "round-nearest-afz", "round-nearest-even", "cbrt", "erf"), _FLOAT),
    "is-finite": (_FLOATING, "Expected element type in shape to be floating point for IsFinite operation; "
                             "got {type}."),
    "abs": (_SIGNED | _FLOATING | _COMPLEX, _FLOAT_OR_COMPLEX[1]),
    "sign": (_SIGNED | _FLOATING | _COMPLEX, "Expected element type in shape to be signed or complex for {op} "
                                             "operation; got {type}."),
    "negate": (_INTEGRAL | _FLOATING | _COMPLEX, "Expected element type in shape to be integral, floating or "
                                                 "complex for {op} operation; got {type}."),
    "count-leading-zeros": (_INTEGRAL, "Expected an integral element type in argument to Clz operation; "
                                       "got {type}."),
    "popcnt": (_INTEGRAL, "Expected an integral element type in argument to PopulationCount operation; "
                          "got {type}."),
    "not": (_INTEGRAL | {"pred"}, "Expected pred or an integral element type in argument to Not operation; "
                                  "got {type}."),
}
BINARY = frozenset(("add", "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum", "atan2",
                     "and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical"))


def is_array(shape: Shape) -> bool:
    return isinstance(shape, ArrayShape) and shape.element_type not in ("token", "opaque")


def unary_problem(opcode: str, operand: Shape) -> str | None:
    if not is_array(operand):
        return f"Expected array argument for operand of unary operation, but got {operand}."
    assert isinstance(operand, ArrayShape)
    types, message = UNARY_TYPES.get(opcode, (None, ""))
    if types is None or operand.element_type in types:
        return None
    return message.format(op=opcode, type=operand.element_type.upper())


def inferred_shape(hlo: HloModule, line: int, depth: int = 0, name: str | None = None) -> Shape | None:
    """The shape of the instruction on `line` (`name`, on a line of several items): written, else inferred
    where that is certain, else None."""
    written = shape_text(hlo, line, name)
    found = parsed_shape(written) or _continued_shape(hlo, line, name)
    if found is not None or written or depth > _DEPTH:
        return found
    scan, text = hlo.instruction_scan(line, name), hlo.instruction_text(line, name)
    read = read_instruction(text, continued_instruction_data(text, scan.data)) if len(scan.data) == 5 else None
    if read is None or read.attribute("result_accuracy") is not None:
        return None
    operands = [operand_shape(hlo, line, read.item(span), depth + 1) for span in read.operands]
    known = [shape for shape in operands if shape is not None]
    if read.opcode == "tuple" and len(known) == len(operands):  # (of no operands too: `()`)
        return TupleShape(tuple(known))
    if None in operands or not operands:
        return None
    if read.opcode == "broadcast" and len(operands) == 1:
        return _broadcast_result(operands[0], read.attribute("dimensions") or "{}")
    if read.opcode == "dot" and len(operands) == 2:
        return _dot_result(operands[0], operands[1], read)
    return _result(read.opcode, [shape for shape in operands if shape is not None])


_DOT_KEYS = ("lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims")


def _dot_result(lhs: Shape | None, rhs: Shape | None, read: InstructionParts) -> Shape | None:
    """XLA's dot shape (InferDotOpShape): the batch dimensions, then the lhs's other dimensions, then the rhs's;
    None where the element types differ (the more precise one is XLA's) or XLA infers none (`dot_problem`)."""
    numbers = _dot_numbers(read)
    if not (isinstance(lhs, ArrayShape) and isinstance(rhs, ArrayShape)) or lhs.element_type != rhs.element_type \
            or numbers is None or dot_problem(lhs, rhs, read) is not None:
        return None
    lhs_batch, lhs_contracting, rhs_batch, rhs_contracting = numbers
    lhs_rest = [size for d, size in enumerate(lhs.dims) if d not in lhs_batch and d not in lhs_contracting]
    rhs_rest = [size for d, size in enumerate(rhs.dims) if d not in rhs_batch and d not in rhs_contracting]
    return ArrayShape(lhs.element_type, (*(lhs.dims[d] for d in lhs_batch), *lhs_rest, *rhs_rest))


def dot_problem(lhs: Shape, rhs: Shape, read: InstructionParts) -> str | None:
    """Why XLA cannot infer a dot's shape from its operands' (its messages), or None."""
    numbers = _dot_numbers(read)
    if numbers is None or not (isinstance(lhs, ArrayShape) and isinstance(rhs, ArrayShape)) or \
            not (is_array(lhs) and is_array(rhs)):
        return None  # an attribute's syntax problem, or not arrays: other rules tell
    lhs_batch, lhs_contracting, rhs_batch, rhs_contracting = numbers
    reason = None
    if len(lhs_contracting) != len(rhs_contracting):
        reason = "Must specify the same number of contracting dimensions for lhs and rhs."
    elif len(lhs_batch) != len(rhs_batch):
        reason = "Must specify the same number of batch dimensions for lhs and rhs."
    elif any(d >= len(lhs.dims) for d in (*lhs_batch, *lhs_contracting)) or \
            any(d >= len(rhs.dims) for d in (*rhs_batch, *rhs_contracting)):
        reason = "A dimension number is out of range."
    elif any(lhs.dims[a] != rhs.dims[b] for a, b in zip(lhs_contracting, rhs_contracting, strict=True)):
        reason = "Contracting dimension sizes do not match."
    elif any(lhs.dims[a] != rhs.dims[b] for a, b in zip(lhs_batch, rhs_batch, strict=True)):
        reason = "Batch dimension sizes must match for lhs/rhs."
    return None if reason is None else f"Cannot infer shape for dot operation: {lhs} <dot> {rhs}. {reason}"


def _dot_numbers(read: InstructionParts) -> tuple[list[int], ...] | None:
    """The dot's batch and contracting dimension numbers (lhs, then rhs), or None where one is no list of them."""
    numbers = [_dimension_numbers(read.attribute(key) or "{}") for key in _DOT_KEYS]
    return None if any(found is None for found in numbers) else tuple(found or [] for found in numbers)


def _dimension_numbers(value: str) -> list[int] | None:
    """`{1,0}` read: non-negative integers (dimension numbers, sizes), or None where it holds another value."""
    body = value.strip().removeprefix("{").removesuffix("}")
    numbers = [int64_value(part.strip()) for part in body.split(",") if part.strip()]
    return None if any(n is None or n < 0 for n in numbers) else numbers  # type: ignore[return-value]


def _broadcast_result(operand: Shape | None, dimensions: str) -> Shape | None:
    """Without a result shape, XLA reads `dimensions` as the sizes of new major dimensions."""
    sizes = _dimension_numbers(dimensions)
    if not isinstance(operand, ArrayShape) or not is_array(operand) or sizes is None:
        return None
    return ArrayShape(operand.element_type, (*sizes, *operand.dims))


def _continued_shape(hlo: HloModule, line: int, name: str | None) -> Shape | None:
    """The shape of an instruction that goes on over lines (`name`'s, on a line of several items: the
    last may go on), comments between its tokens blanked."""
    if not isinstance(hlo.document.scan(line).end_state, tuple):
        return None
    head = _HEAD.match(without_comments(hlo.instruction_text(line, name)))
    return parsed_shape(head.group(1).strip()) if head else None


def inferred_text(hlo: HloModule, line: int, name: str | None = None) -> str:
    """The shape XLA infers for the instruction on `line`, which has none written, or "" where not certain."""
    inferred = inferred_shape(hlo, line, name=name)
    return str(inferred) if inferred is not None else ""


def operand_shape(hlo: HloModule, line: int, item: str, depth: int) -> Shape | None:
    clean = without_comments(item) if "(" in item else item
    if "(" in clean:  # an instruction written as the operand (`add(f32[4] constant({...}), p)`): its shape
        nested = _NESTED.match(clean)
        return parsed_shape(nested.group(1)) if nested is not None else None
    found = definition(hlo, line, item)
    return inferred_shape(hlo, found, depth, operand_name(item)) if found is not None else None


_NESTED = re.compile(r"\s*(\S.*?)\s+[a-z][a-z0-9_\-]*\(", re.S)


def _result(opcode: str, operands: list[Shape]) -> Shape | None:
    first = operands[0]
    if opcode == "copy" and len(operands) == 1:
        return first
    if not all(is_array(shape) for shape in operands):
        return None
    arrays = [shape for shape in operands if isinstance(shape, ArrayShape)]
    if opcode in UNARY_TYPES and len(arrays) == 1:
        return _unary_result(opcode, arrays[0])
    if (opcode in BINARY or opcode == "compare") and len(arrays) == 2:
        return _binary_result(opcode, arrays[0], arrays[1])
    if opcode == "select" and len(arrays) == 3 and select_problem(*arrays) is None:
        pred, on_true = arrays[0], arrays[1]
        full_rank = on_true if not pred.dims else pred
        if any(size < 0 for size in full_rank.dims) or any(full_rank.bounded) or any(on_true.bounded):
            return None  # dynamic sizes: XLA's rules for them are not followed here
        return ArrayShape(on_true.element_type, full_rank.dims)
    return None


def select_problem(pred: Shape, on_true: Shape, on_false: Shape) -> str | None:
    """Why XLA cannot infer a select's shape from its operands' (InferSelectShape's messages), or None."""
    for what, shape in (("select pred", pred), ("select on-true", on_true), ("select on-false", on_false)):
        if not is_array(shape):
            return f"Expected array argument for {what}, but got {shape}."
    assert isinstance(pred, ArrayShape) and isinstance(on_true, ArrayShape) and isinstance(on_false, ArrayShape)
    if not compatible(on_true, on_false):
        return f"Operands to select must be the same shape; got {on_true} and {on_false}."
    if pred.element_type != "pred":
        return f"Select's pred operand must have PRED element type; got {pred}."
    if pred.dims and not (_compatible_dims(pred, on_true) and _compatible_dims(pred, on_false)):
        return f"Operands to select and predicate must be the same shape; got {on_true} and {on_false} and {pred}."
    return None


def _compatible_dims(a: ArrayShape, b: ArrayShape) -> bool:
    """ShapeUtil::CompatibleIgnoringElementType."""
    return compatible(dataclasses.replace(a, element_type=b.element_type), b)


def _unary_result(opcode: str, operand: ArrayShape) -> ArrayShape | None:
    if unary_problem(opcode, operand) is not None:
        return None
    element = operand.element_type
    if opcode in ("abs", "real", "imag"):
        element = _COMPLEX_PART.get(element, element)
    elif opcode == "is-finite":
        element = "pred"
    return ArrayShape(element, operand.dims, operand.bounded)


def _binary_result(opcode: str, lhs: ArrayShape, rhs: ArrayShape) -> ArrayShape | None:
    """Same element types, and the same dimensions or one operand a scalar (XLA's implicit broadcast)."""
    if lhs.element_type != rhs.element_type:
        return None
    if lhs.dims != rhs.dims and lhs.dims and rhs.dims:
        return None
    shaped = lhs if lhs.dims or not rhs.dims else rhs
    if any(size < 0 for size in shaped.dims) or any(shaped.bounded):
        return None  # dynamic sizes: XLA's rules for them are not followed here
    return ArrayShape("pred" if opcode == "compare" else lhs.element_type, shaped.dims)
