"""Parameter numbers: on its line, a parameter takes one integer, not negative, and as many leaves
in `parameter_replication` as its shape has; in its computation, each number once and none beyond
their count (XLA's parser crashes on a gap).
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.findings import Judgement, problems
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape, read_instruction
from hlo_lsp.analysis.checks.opcodes.values import int64_value
from hlo_lsp.analysis.context import PROBLEM_LIMIT
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import continued_instruction_data, without_comments
from hlo_lsp.parsing.syntax import Shape, TupleShape
from hlo_lsp.problems import Problem

# The parameter numbers of computations that number them 0, 1, 2... in order (the common case).
ORDERED = {count: [str(number) for number in range(count)] for count in range(1, 64)}
_NUMBER_SETS = {count: frozenset(numbers) for count, numbers in ORDERED.items()}


def parameter_line(read: InstructionParts, judgement: Judgement) -> None:
    """The rule of a parameter's own line; its number is checked with its computation's."""
    span = read.operands[0] if len(read.operands) == 1 else read.operands_span
    number = int64_value(read.item(span)) if len(read.operands) == 1 else None
    if number is None:
        judgement.add(span, "parameter-number", "parameter expects one integer, its number: parameter(0)")
    elif number < 0:
        judgement.add(span, "parameter-number", "parameter number must be >= 0")
    judgement.actions.add("parameter")
    replication = read.attribute("parameter_replication")
    shape = parsed_shape(read.shape) if replication is not None else None
    if replication is None or shape is None or tables.VALIDATORS["parameter_replication"](replication):
        return
    given, leaves = len(re.findall(r"true|false", replication)), _leaf_count(shape)
    if given != leaves:
        judgement.add(read.value_span("parameter_replication"), "attribute-value",
                      f"parameter has {leaves} leaf buffers, but parameter_replication has {given} elements")


def _leaf_count(shape: Shape) -> int:
    return sum(_leaf_count(e) for e in shape.elements) if isinstance(shape, TupleShape) else 1


def numbered_in_order(numbers: list[str]) -> bool:
    """Whether the numbers are 0 to n-1 as XLA prints them, in any order (without converting one)."""
    count = len(numbers)
    expected = _NUMBER_SETS.get(count)
    if expected is None:  # a computation of many parameters: a set made for it alone (one kept would outlive
        expected = frozenset(str(number) for number in range(count))  # the module, and keep its memory)
    return len(set(numbers)) == count and expected.issuperset(numbers)


def number_span(text: str, data: tuple[object, ...]) -> tuple[int, int]:
    """Where the number of `parameter(N)` is in its text (a `)` in a comment does not close it)."""
    start = data[2] + len("parameter(")  # type: ignore[operator]
    return start, without_comments(text).find(")", start)


def numbering_problems(hlo: HloModule, header: int) -> list[Problem]:
    """The parameters of the computation whose header is on `header`, read again: each number once,
    and none beyond their count (XLA's parser crashes on a gap)."""
    parameters = _numbered_parameters(hlo, header)
    found: list[Problem] = []
    first: dict[int, int] = {}  # parameter number -> its first line
    for line, text, start, end, number in parameters:
        if number is None or number < 0:
            continue
        if number in first:
            message = f"Duplicate parameter number {number} (first on line {first[number] + 1})"
        elif number >= len(parameters):
            message = (f"parameter number {number} leaves a gap: the computation has {len(parameters)} "
                       "parameters, numbered from 0 (XLA's parser crashes)")
        else:
            first[number] = line
            continue
        found.extend(problems(hlo, line, text, [(start, end, "parameter-number", message)]))
        if len(found) > PROBLEM_LIMIT:  # a file of one parameter repeated: the run keeps no more
            break
    return found


def _numbered_parameters(hlo: HloModule, header: int) -> list[tuple[int, str, int, int, int | None]]:
    """(line, text, number start, number end, number) of each parameter of the computation, or none
    where a parameter's number is not known for sure."""
    computation = hlo.computation_at(header)
    if computation is None or _has_unread_line(hlo, computation.line, computation.end_line):
        return []
    parameters, written = [], 0
    for line, start, scan in hlo.instruction_items(computation):
        data = scan.data
        if data[3] and data[3] != "parameter":
            continue
        text = hlo.instruction_text(line, at=start)
        data = continued_instruction_data(text, data)  # its opcode perhaps on a line below
        blanked = without_comments(text)
        # Counted in whole instruction texts, comments aside: a parameter on the line of another
        # instruction is one too.
        written += blanked.count(" parameter(")
        if data[3] == "parameter":
            if read_instruction(text, data) is None:
                return []  # a parameter the grammar cannot read
            start, end = number_span(text, data)
            number = blanked[start:end].strip()
            start = blanked.find(number, start) if number else start
            parameters.append((line, text, start, start + len(number) if number else end, int64_value(number)))
    if written > len(parameters):
        return []  # a parameter on the line of another instruction: the grammar's problem first
    return parameters


def _has_unread_line(hlo: HloModule, start: int, end: int | None) -> bool:
    """Whether a line of the computation is one the scanner could not read (a parameter may hide in it)."""
    stop = end if end is not None else hlo.document.line_count
    return any(hlo.document.scan(line).problem is not None for line in range(start, stop))
