"""The rules of an instruction that read the lines its operands and attributes name, run where its
line's verdict asks for them: reshapes' element counts, broadcasts of non-scalars, dynamic slices'
start indices, conditionals' selectors, tuple indices, custom-calls' layout constraints, scans'
parameters, calls' operands and whiles' computations where XLA infers their shape, and control predecessors
defined too late.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.findings import Finding, Judgement
from hlo_lsp.analysis.checks.opcodes.inference import UNARY_TYPES, inferred_shape, inferred_text, is_array
from hlo_lsp.analysis.checks.opcodes.inference import operand_shape as inferred_operand_shape
from hlo_lsp.analysis.checks.opcodes.inferred_operands import (
    BINARY_INFERRED,
    binary_operands,
    dot_operands,
    select_operands,
    unary_operand,
)
from hlo_lsp.analysis.checks.opcodes.inline_bodies import body_module, inline_body
from hlo_lsp.analysis.checks.opcodes.line_rules import check_attributes
from hlo_lsp.analysis.checks.opcodes.other_lines import (
    definition,
    instructions_on,
    operand_name,
    operand_shape,
    shape_text,
)
from hlo_lsp.analysis.checks.opcodes.reader import ARRAY_SHAPE, InstructionParts, parsed_shape
from hlo_lsp.analysis.checks.opcodes.shape_rules import compatible
from hlo_lsp.analysis.checks.opcodes.text_keys import CACHE_LIMIT
from hlo_lsp.analysis.checks.opcodes.values import int64_value, split_top_level
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.hlo_scanner import continued_instruction_data, without_comments
from hlo_lsp.parsing.names import NAME
from hlo_lsp.parsing.syntax import ArrayShape, Shape, TupleShape

CrossRule = Callable[[HloModule, int, InstructionParts, Judgement], None]

_ELEMENTS: dict[str, int | None] = {}  # a shape's text -> its element count


def _element_count(shape: str) -> int | None:
    if shape not in _ELEMENTS:
        if len(_ELEMENTS) > CACHE_LIMIT:
            _ELEMENTS.clear()
        array = ARRAY_SHAPE.fullmatch(re.sub(r"\{[^{}]*\}$", "", re.sub(r"/\*.*?\*/", "", shape).strip()))
        sizes = [size.strip().lstrip("<=").strip() for size in array.group(2).split(",")] if array else None
        count: int | None = None
        if sizes is not None and all(size.isdigit() for size in sizes if size.strip()):
            count = 1
            for size in filter(None, sizes):
                count *= int(size)
        _ELEMENTS[shape] = count
    return _ELEMENTS[shape]


def reshape_problem(hlo: HloModule, line: int, text: str, data: tuple[object, ...]) -> Finding | None:
    """A reshape to a shape of another element count than its operand's (read without the reader:
    reshapes are many and their lines simple)."""
    _, shape_start, opcode_start, opcode, _ = data
    assert isinstance(shape_start, int) and isinstance(opcode_start, int) and isinstance(opcode, str)
    open_paren = opcode_start + len(opcode)
    close = without_comments(text).find(")", open_paren)  # (not one in a comment)
    item = text[open_paren + 1 : close].strip()
    found = definition(hlo, line, item)
    if found is None:
        return None
    name = operand_name(item)
    theirs = shape_text(hlo, found, name) or inferred_text(hlo, found, name)
    mine = "".join(without_comments(text[shape_start:opcode_start]).split())  # (`f32[/* c */5] // c` / `reshape(a)`)
    counts = _element_count(mine), _element_count(theirs)
    if None in counts or counts[0] == counts[1]:
        return None
    start = text.index(item, open_paren)
    return (start, start + len(item), "operand-shape", f"reshape of {theirs} ({counts[1]} elements) to {mine} "
                                                       f"({counts[0]} elements) (XLA's parser crashes)")


def cross_line_findings(hlo: HloModule, line: int, read: InstructionParts) -> list[Finding]:
    judgement = Judgement()
    check = _CROSS_RULES.get(read.opcode)
    if check is not None:
        check(hlo, line, read, judgement)
    if read.attribute("control-predecessors") is not None:
        _control_predecessors(hlo, line, read, judgement)
    return judgement.findings


def _rank_of(shape: Shape | None) -> int | None:
    return len(shape.dims) if isinstance(shape, ArrayShape) else None


def _broadcast(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    rank = _rank_of(operand_shape(hlo, line, read, 0))
    if rank:
        judgement.add(read.opcode_span, "missing-attribute", "attribute dimensions is expected but not seen "
                                                             "(the operand of broadcast is not a scalar)")


def _dynamic_slice(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    fixed = 1 if read.opcode == "dynamic-slice" else 2
    operand, vector = _rank_of(operand_shape(hlo, line, read, 0)), operand_shape(hlo, line, read, fixed)
    count = len(read.operands)
    if operand is None or (count == fixed + 1 and _rank_of(vector) == 1) or count == fixed + operand:
        return
    judgement.add(read.operands_span, "operand-count", f"Wrong number of operands: {read.opcode} of a rank-{operand} "
                                                       f"operand takes {operand} scalar start indices (or one vector)")


def _conditional(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    selector = inferred_operand_shape(hlo, line, read.item(read.operands[0]), 0) if read.operands else None
    if selector is None:
        return
    if not isinstance(selector, ArrayShape) or selector.dims or not is_array(selector):
        judgement.add(read.operands_span, "operand-shape", "The first operand must be a scalar")
    elif selector.element_type not in ("pred", "s32"):
        judgement.add(read.operands_span, "operand-shape", "The first operand must be a scalar of PRED or S32")
    else:
        keys = ("true_computation", "false_computation") if selector.element_type == "pred" else (
            "branch_computations",)
        check_attributes(read, tables.GENERIC | frozenset(keys), frozenset(keys), judgement)
        kept = [f for f in judgement.findings if f[2] == "unknown-attribute"]  # the other family's keys
        judgement.findings[:] = kept or [f for f in judgement.findings if f[2] == "missing-attribute"]
        _branch_count(read, judgement)


def _branch_count(read: InstructionParts, judgement: Judgement) -> None:
    branches = read.attribute("branch_computations")
    expected = 2 if branches is None else len(split_top_level(branches.strip()[1:-1]))
    if branches is None and read.attribute("true_computation") is None:
        return
    if expected == 0 or len(read.operands) != expected + 1:
        judgement.add(read.operands_span, "operand-count", f"conditional with {expected} branches takes "
                                                           f"{expected + 1} operands, but has {len(read.operands)}")


def _get_tuple_element(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    operand, index = operand_shape(hlo, line, read, 0), int64_value(read.attribute("index") or "")
    if operand is None or index is None:
        return
    size = len(operand.elements) if isinstance(operand, TupleShape) else -1
    if not 0 <= index < size:
        judgement.add(read.operands_span, "operand-shape", f"index {index} is out of range for an operand of shape "
                                                           f"{operand} (XLA's parser crashes inferring the shape)")


def _layout_constraints(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    constraints = read.attribute("operand_layout_constraints") or "{}"
    for index, text in enumerate(split_top_level(constraints.strip()[1:-1])):
        operand = inferred_operand_shape(hlo, line, read.item(read.operands[index]), 0) \
            if index < len(read.operands) else None  # written, or inferred where none is (`a = abs(p)`)
        text = "".join(text.split()) if "\n" in text else text.strip()  # over lines: `f32[5]{// c` / `0}`
        wanted = parsed_shape(text)
        if wanted is not None and operand is not None and not compatible(wanted, operand):
            judgement.add(read.value_span("operand_layout_constraints"), "operand-shape",
                          f"Operand layout constraint shape {text} for operand {index} is not compatible "
                          f"with operand shape {operand}")


def _applied_parameters(hlo: HloModule, read: InstructionParts) -> tuple[str, int | None]:
    """The computation `to_apply` names and its number of parameters (None where it is not defined)."""
    name = _called_name(read, "to_apply")
    computation = hlo.computations.get(name)
    if computation is None:
        return name, None
    return name, sum(1 for _, _, data in _computation_instructions(hlo, computation) if data[3] == "parameter")


def _called_name(read: InstructionParts, key: str) -> str:
    """The name of the computation the attribute `key` names ("" where there is none)."""
    return (read.attribute(key) or "").strip().lstrip("%")


def _computation_instructions(hlo: HloModule, computation: Computation) -> list[tuple[int, str, tuple[Any, ...]]]:
    """(line, text, scan data read to its opcode) of each instruction of `computation`, in order."""
    lines = dict.fromkeys(computation.instruction_lines)  # (a line of several instructions is listed for each)
    return [(line, text, continued_instruction_data(text, data))
            for line in lines for text, data in _instructions_of(hlo, computation, line)]


def _instructions_of(hlo: HloModule, computation: Computation, line: int) -> Iterator[tuple[str, tuple[object, ...]]]:
    """(text, scan data) of each instruction of `computation` on `line` (a line of several items may hold
    another computation's too)."""
    scan = hlo.document.scan(line)
    starts = [start for start, item in scan.data if item.kind == "instruction" and item.problem is None] \
        if scan.kind == "items" else [0]
    for start, (_, text, data) in zip(starts, instructions_on(hlo, line), strict=False):
        if scan.kind != "items" or hlo.computation_at(line, start) is computation:
            yield text, data


def _call_arity(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    """A call whose shape XLA's parser infers (none written) from its computation's: one operand per parameter."""
    _, parameters = _applied_parameters(hlo, read)
    if parameters is not None and parameters != len(read.operands):
        judgement.add(read.opcode_span, "operand-shape", "failed to infer shape for opcode: call, error: Call applied "
                                                         "function arity must match number of arguments; got: arity: "
                                                         f"{parameters}, arguments: {len(read.operands)} (write the "
                                                         "result shape before the opcode)")


def _reduce_window(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    """A reduce-window whose shape XLA's parser infers (none written): a window dimension per operand dimension
    (none without `window=`)."""
    window = read.attribute("window")
    size = _WINDOW_SIZE.search(window) if window is not None else None
    if window is not None and size is None:
        return
    rank = _rank_of(inferred_operand_shape(hlo, line, read.item(read.operands[0]), 0) if read.operands else None)
    dimensions = len(size.group(1).split("x")) if size is not None else 0
    if rank is not None and rank != dimensions:
        judgement.add(read.opcode_span, "operand-shape", "failed to infer shape for opcode: reduce-window, error: "
                                                         f"Window has dimension {dimensions} but base shape has "
                                                         f"dimension {rank}. (write the result shape before the "
                                                         "opcode)")


def _while(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    """A while whose shape XLA's parser infers (none written) from its computations' (ShapeInference's
    InferWhileShape): one parameter each, a condition returning pred[], and one shape for the condition's and
    the body's parameter, the body's result and the operand. Said only where every shape is known."""
    condition, body = (_called_program(hlo, read, key) for key in ("condition", "body"))
    init = inferred_operand_shape(hlo, line, read.item(read.operands[0]), 0) if len(read.operands) == 1 else None
    if condition is None or body is None or init is None:
        return
    shapes = f"Condition: {_human(condition)}; body: {_human(body)}; init: {init}."
    reason = (f"Condition must take 1 arguments; got {len(condition[0])}." if len(condition[0]) != 1 else
              f"Body must take 1 arguments; got {len(body[0])}." if len(body[0]) != 1 else
              f"Condition must return a boolean; got {shapes}" if not compatible(condition[1], _PRED) else
              None if all(compatible(body[1], shape) for shape in (condition[0][0][1], body[0][0][1], init)) else
              "The parameter of condition and body, the result of the body, and init must all have the same shape; "
              f"got {shapes}")
    if reason is not None:
        judgement.add(read.opcode_span, "operand-shape", f"failed to infer shape for opcode: while, error: {reason} "
                                                         "(write the result shape before the opcode)")


_PRED = ArrayShape("pred", ())
ProgramShape = tuple[list[tuple[str, Shape]], Shape]  # (name, shape) of each parameter in number order; result


def _called_program(hlo: HloModule, read: InstructionParts, key: str) -> ProgramShape | None:
    """The program shape of the computation the attribute `key` names, or writes inline (read as a module of
    its own, its computation named `_`, as the inline bodies' check reads it)."""
    span = inline_body(read, key)
    if span is None:
        return _program_shape(hlo, _called_name(read, key))
    body = body_module(read.text, span).dump(hlo.document.source).hlo
    return _program_shape(body, "_") if body is not None else None


def _program_shape(hlo: HloModule, name: str) -> ProgramShape | None:
    """The parameters and result of the computation `name` (ComputeProgramShape: its ROOT, else its last
    instruction), or None where one of their shapes is not known (or the computation is not defined)."""
    computation = hlo.computations.get(name)
    if computation is None:
        return None
    instructions = _computation_instructions(hlo, computation)
    parameters: dict[int, tuple[str, Shape]] = {}
    for line, text, data in instructions:
        if data[3] == "parameter":
            number = _PARAMETER_NUMBER.match(without_comments(text), data[2])
            shape = inferred_shape(hlo, line, name=data[0])
            if number is None or shape is None:
                return None
            parameters[int(number.group(1))] = (data[0], shape)
    root = next((found for found in instructions if found[2][4]), instructions[-1] if instructions else None)
    result = inferred_shape(hlo, root[0], name=root[2][0]) if root is not None else None
    return ([parameters[number] for number in sorted(parameters)], result) if result is not None else None


_PARAMETER_NUMBER = re.compile(r"parameter\(\s*([0-9]+)\s*\)")


def _human(program: ProgramShape) -> str:
    """ShapeUtil::HumanString of a program shape: `(a: f32[4]) -> pred[]`."""
    return "(" + ", ".join(f"{name}: {shape}" for name, shape in program[0]) + f") -> {program[1]}"


_WINDOW_SIZE = re.compile(r"(?<![\w])size=\s*([0-9]+(?:x[0-9]+)*)")


def _scan_parameters(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    name, parameters = _applied_parameters(hlo, read)
    if parameters is not None and parameters != len(read.operands):
        judgement.add(read.operands_span, "operand-count", f"expects {len(read.operands)} operands to match the "
                                                           f"number of parameters of to_apply, but {name} has "
                                                           f"{parameters} parameters")


def _control_predecessors(hlo: HloModule, line: int, read: InstructionParts, judgement: Judgement) -> None:
    start, end = read.value_span("control-predecessors")
    here = hlo.computation_at(line)
    column = len(read.text) - len(read.text.lstrip())  # where the instruction starts (an item may start mid-line)
    for match in re.finditer(r"%?(" + NAME + r")", read.text[start:end]):
        name = match.group(1)
        site = hlo.site(name) if hlo.names_are_unique else None
        if here is not None and site is not None and hlo.computation_at(site.line) is here and (
                site.line > line or site.line == line and site.name_range.start.character >= column):
            judgement.add((start + match.start(1), start + match.end(1)), "attribute-value",
                          f"control-predecessors: instruction '{name}' is not defined before this one "
                          "(XLA's parser reads names in order)")


_CROSS_RULES: dict[str, CrossRule] = {
    "broadcast": _broadcast, "broadcast-start": _broadcast, "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_slice,
    "conditional": _conditional, "get-tuple-element": _get_tuple_element, "custom-call": _layout_constraints,
    "scan": _scan_parameters, "call": _call_arity, "reduce-window": _reduce_window, "dot": dot_operands,
    "while": _while, "select": select_operands,
    **dict.fromkeys(UNARY_TYPES, unary_operand),
    **dict.fromkeys(BINARY_INFERRED, binary_operands),
}
